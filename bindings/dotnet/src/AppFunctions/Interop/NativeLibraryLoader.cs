#if NET9_0_OR_GREATER
using System.Diagnostics.CodeAnalysis;
#endif
using System.Reflection;
using System.Runtime.InteropServices;

namespace AppFunctions.Interop;

/// <summary>
/// Finds the native core and checks its ABI once, before the first handle is made.
/// A NativeAOT app published with <c>AppFunctionsLinkStatic=true</c> (the package's
/// <c>buildTransitive/AppFunctions.targets</c>) has the core linked into its executable and
/// direct calls to it (<c>DirectPInvoke</c>): the targets set the
/// <see cref="LinkedStaticallySwitch"/> feature switch, which the compiler folds, and no resolver
/// is installed, nothing is probed. Every other app gets
/// one <see cref="NativeLibrary.SetDllImportResolver"/> for this assembly:
/// <list type="bullet">
/// <item>iOS, tvOS, Mac Catalyst: the core is linked statically into the app (<c>__Internal</c>),
/// so symbols come from the main program.</item>
/// <item>elsewhere: <c>APPFUNCTIONS_NATIVE_LIBRARY</c> (a path) when set, else the runtime's own
/// probing (the package's <c>runtimes/&lt;rid&gt;/native/</c> asset, the app folder), by the
/// platform's file name.</item>
/// </list>
/// </summary>
internal static class NativeLibraryLoader
{
    private static readonly object Gate = new();
    private static volatile bool s_checked;
    private static int s_resolverSet;
    private static nint s_loaded; // what the resolver found first: the runtime asks again for each entry point

    /// <summary>The platforms whose native library naming and linking differ.</summary>
    internal enum Platform
    {
        Linux,
        Android,
        MacOS,
        IOS,
        TvOS,
        MacCatalyst,
        Windows,
    }

    /// <summary>The feature switch <c>AppFunctionsLinkStatic=true</c> sets in a NativeAOT publish
    /// (a <c>RuntimeHostConfigurationOption</c> with <c>Trim="true"</c>).</summary>
    internal const string LinkedStaticallySwitch = "AppFunctions.Interop.LinkedStatically";

    /// <summary>The core is linked into the executable and called directly: no resolver, no
    /// probing. A constant in a NativeAOT build (the compiler folds the switch); off unless the
    /// switch is set.</summary>
#if NET9_0_OR_GREATER
    [FeatureSwitchDefinition(LinkedStaticallySwitch)]
#endif
    internal static bool LinkedStatically => AppContext.TryGetSwitch(LinkedStaticallySwitch, out var on) && on;

    internal static Platform Current =>
        OperatingSystem.IsAndroid() ? Platform.Android
        : OperatingSystem.IsMacCatalyst() ? Platform.MacCatalyst
        : OperatingSystem.IsIOS() ? Platform.IOS
        : OperatingSystem.IsTvOS() ? Platform.TvOS
        : OperatingSystem.IsMacOS() ? Platform.MacOS
        : OperatingSystem.IsWindows() ? Platform.Windows
        : Platform.Linux;

    /// <summary>What the resolver loads on <paramref name="platform"/>: <c>__Internal</c> (the main
    /// program, static linking) or the library file names to probe, in order.</summary>
    internal static IReadOnlyList<string> Candidates(Platform platform) => platform switch
    {
        Platform.IOS or Platform.TvOS or Platform.MacCatalyst => ["__Internal"],
        Platform.MacOS => ["libappfunctions.dylib", "appfunctions"],
        Platform.Windows => ["appfunctions.dll", "appfunctions"],
        // Android loads from the APK's lib/<abi>/ by file name; Linux from runtimes/<rid>/native/.
        _ => ["libappfunctions.so", "libappfunctions.so.1", "appfunctions"],
    };

    /// <summary>What the loader tries: nothing when the core is linked into the executable (the
    /// linker bound the calls), else <see cref="Candidates(Platform)"/>.</summary>
    internal static IReadOnlyList<string> Candidates(Platform platform, bool linkedStatically) =>
        linkedStatically ? [] : Candidates(platform);

    internal static void InstallResolver()
    {
        if (LinkedStatically)
        {
            return; // the calls are direct: a resolver would never be asked
        }
        if (Interlocked.Exchange(ref s_resolverSet, 1) == 0)
        {
            NativeLibrary.SetDllImportResolver(typeof(NativeLibraryLoader).Assembly, Resolve);
        }
    }

    private static nint Resolve(string name, Assembly assembly, DllImportSearchPath? searchPath)
    {
        if (name != Native.Library)
        {
            return 0;
        }
        // The runtime calls the resolver once per entry point (each [LibraryImport] binds at its
        // first call): the library found the first time is the answer every time after it,
        // without probing again (about 30 µs a time, some 20 times in a cold start's first call,
        // measured 2026-12-07). A library is loaded once per process and never unloaded.
        var loaded = Volatile.Read(ref s_loaded);
        if (loaded != 0)
        {
            return loaded;
        }
        loaded = Find(assembly, searchPath);
        if (loaded != 0)
        {
            Volatile.Write(ref s_loaded, loaded);
        }
        return loaded;
    }

    private static nint Find(Assembly assembly, DllImportSearchPath? searchPath)
    {
        var env = Environment.GetEnvironmentVariable("APPFUNCTIONS_NATIVE_LIBRARY");
        if (!string.IsNullOrEmpty(env))
        {
            return NativeLibrary.Load(env);
        }
        foreach (var candidate in Candidates(Current))
        {
            if (candidate == "__Internal")
            {
                return NativeLibrary.GetMainProgramHandle();
            }
            if (NativeLibrary.TryLoad(candidate, assembly, searchPath, out var h))
            {
                return h;
            }
        }
        return 0; // the runtime's default probing, then DllNotFoundException
    }

    /// <summary>Loads the core and checks <c>af_abi_version()</c>; throws
    /// <see cref="AppFunctionsLibraryException"/> with what went wrong.</summary>
    internal static void EnsureLoaded()
    {
        if (s_checked)
        {
            return;
        }
        lock (Gate)
        {
            if (s_checked)
            {
                return;
            }
            InstallResolver();
            uint abi;
            try
            {
                abi = Native.af_abi_version();
            }
            catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException or BadImageFormatException)
            {
                throw new AppFunctionsLibraryException(LoadFailure(LinkedStatically, Current, RuntimeInformation.RuntimeIdentifier, e.Message), e);
            }
            CheckAbi(abi);
            s_checked = true;
        }
    }

    /// <summary>The message of a core that cannot be reached, for the loader's route.</summary>
    internal static string LoadFailure(bool linkedStatically, Platform platform, string rid, string error) =>
        linkedStatically
            ? $"AppFunctions: the native core '{Native.Library}' should be linked into this executable (the {LinkedStaticallySwitch} switch is on, " +
              $"which AppFunctionsLinkStatic=true sets in a NativeAOT publish) but is not, on {platform}/{rid}: {error} " +
              "Publish with PublishAot=true and AppFunctionsLinkStatic=true (which links the archive and makes the calls direct), or leave the switch off."
            : $"AppFunctions: cannot load the native core '{Native.Library}' ({string.Join(", ", Candidates(platform))}) on {platform}/{rid}: {error} " +
              "Reference the AppFunctions package (it carries runtimes/<rid>/native/), put the library beside the app, or set APPFUNCTIONS_NATIVE_LIBRARY to its path.";

    internal static void CheckAbi(uint abi)
    {
        if (abi != Native.AbiVersion)
        {
            throw new AppFunctionsLibraryException(
                $"AppFunctions: the native core speaks C ABI version {abi}, this binding was written for version {Native.AbiVersion}. " +
                "Use the native library that ships with this AppFunctions package.");
        }
    }
}

/// <summary>The native core cannot be loaded, or speaks another ABI version.</summary>
public sealed class AppFunctionsLibraryException : Exception
{
    /// <summary>Creates the exception.</summary>
    public AppFunctionsLibraryException(string message, Exception? inner = null) : base(message, inner) { }
}
