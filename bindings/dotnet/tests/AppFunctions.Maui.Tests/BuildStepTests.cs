using System.Diagnostics;
using System.Reflection;
using System.Text.Json;
using System.Xml.Linq;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Maui.Tests;

/// <summary>What the test app's build (plain net10.0, AppFunctionsPlatformFiles=true) wrote, beside
/// what the core exports for a dispatcher with the same declarations (this assembly compiles the
/// test app's OrdersApp.cs): the generator's descriptors, read from the compiled assembly, give
/// the operating systems exactly the files a running app would.</summary>
public sealed class BuildStepTests : IDisposable
{
    private static readonly string Files = Metadata("AppFunctionsTestAppFiles");
    private static readonly string Targets = Path.Combine(Metadata("AppFunctionsSwiftGlue"), "../buildTransitive/AppFunctions.targets");
    private readonly ServiceProvider _provider;

    public BuildStepTests()
    {
        _provider = new ServiceCollection()
            .AddSingleton<OrderStore>().AddSingleton<SignInState>().AddSingleton<CallLog>()
            .AddAppFunctions(o => o.PublishAs = null)
            .BuildServiceProvider();
    }

    public void Dispose() => _provider.Dispose();

    private AppFunctionDispatcher Dispatcher => _provider.GetRequiredService<AppFunctionDispatcher>();

    private static string Metadata(string key) =>
        typeof(BuildStepTests).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == key).Value!;

    /// <summary>The files the targets write and the format of each (read from the targets, so both agree).</summary>
    public static TheoryData<string, string, string> PlatformFiles()
    {
        var data = new TheoryData<string, string, string>();
        foreach (var item in XDocument.Load(Targets).Descendants().Where(e => e.Name.LocalName is "_AppFunctionsAndroidFile" or "_AppFunctionsAppleFile"))
        {
            var android = item.Name.LocalName == "_AppFunctionsAndroidFile";
            data.Add(android ? "android" : "swift", (string)item.Attribute("Include")!, (string)item.Attribute("Format")!);
        }
        return data;
    }

    [Theory]
    [MemberData(nameof(PlatformFiles))]
    public void The_build_wrote_each_platform_file_the_core_exports_for_the_same_declarations(string folder, string file, string format)
    {
        var path = Path.Combine(Files, folder, file);
        Assert.True(File.Exists(path), $"the test app's build did not write {path}");
        Assert.Equal(Dispatcher.Export(format), File.ReadAllText(path));
    }

    [Fact]
    public void The_bundle_the_build_wrote_describes_what_the_running_dispatcher_registers()
    {
        var bundle = File.ReadAllText(Path.Combine(Files, "appfunctions.bundle.json"));
        foreach (var format in new[] { "mcp", "openai", "android-xml" })
        {
            Assert.Equal(Dispatcher.Export(format), AppFunctionBundle.Export(bundle, format));
        }
    }

    /// <summary>The swift lane type-checks these files (bindings/swift/Tests/DotNetIntents, with the
    /// Swift runtime and the App Intents stand-in): they must be what the build writes.</summary>
    [Fact]
    public void The_swift_lane_checks_the_files_the_build_writes()
    {
        var checkedCopies = Path.Combine(Metadata("AppFunctionsSwiftGlue"), "../../../../swift/Tests/DotNetIntents");
        foreach (var file in Directory.GetFiles(Path.Combine(Files, "swift"), "*.swift"))
        {
            var copy = Path.Combine(checkedCopies, Path.GetFileName(file));
            Assert.True(File.Exists(copy), $"{copy} is missing: copy {file} there");
            Assert.True(File.ReadAllText(file) == File.ReadAllText(copy), $"{copy} differs from what the build writes: copy {file} there");
        }
    }

    /// <summary>What an Android build of the app gets from the targets, asked of MSBuild itself:
    /// the assets (under the names the manifest fragment gives), the manifest overlay, and the
    /// service's source in the compile (the Android SDK is not here: its items are what it reads).</summary>
    [Fact]
    public void An_android_build_gets_the_assets_the_manifest_overlay_and_the_service_source()
    {
        var app = Path.GetFullPath(Path.Combine(Files, "../../AppFunctions.Maui.TestApp.csproj"));
        var configuration = typeof(BuildStepTests).Assembly.GetCustomAttribute<AssemblyConfigurationAttribute>()!.Configuration;

        var step = MsBuild(app, $"-p:Configuration={configuration}", "-t:AppFunctionsBundle", "-getItem:AndroidAsset", "-getItem:AndroidManifestOverlay");
        var assets = step.GetProperty("Items").GetProperty("AndroidAsset").EnumerateArray().Select(i => i.GetProperty("Link").GetString()).Order(StringComparer.Ordinal);
        Assert.Equal(new[] { "app_functions.xml", "app_functions_schema.xsd", "app_functions_v2.xml" }.Order(StringComparer.Ordinal), assets);
        var overlay = Assert.Single(step.GetProperty("Items").GetProperty("AndroidManifestOverlay").EnumerateArray());
        Assert.Equal("AndroidManifest.appfunctions.xml", Path.GetFileName(overlay.GetProperty("FullPath").GetString()));
        Assert.Contains(AppFunctions.Platforms.AppFunctionsService.JavaName, File.ReadAllText(overlay.GetProperty("FullPath").GetString()!));

        var sources = Path.Combine(Metadata("AppFunctionsSwiftGlue"), "../Android/");
        var android = MsBuild(app, "-p:_AppFunctionsPlatform=android", "-p:AppFunctionsAndroid=true", $"-p:AppFunctionsAndroidSources={sources}", "-getItem:Compile");
        var links = android.GetProperty("Items").GetProperty("Compile").EnumerateArray()
            .Select(i => i.TryGetProperty("Link", out var l) ? l.GetString() : null).OfType<string>().Order(StringComparer.Ordinal);
        Assert.Equal(Directory.GetFiles(sources, "*.cs").Select(f => "AppFunctions/" + Path.GetFileName(f)).Order(StringComparer.Ordinal), links);
        // a build for another platform compiles none of them
        var plain = MsBuild(app, "-getItem:Compile");
        Assert.DoesNotContain(plain.GetProperty("Items").GetProperty("Compile").EnumerateArray(),
            i => i.GetProperty("FullPath").GetString()!.Contains("AppFunctions.Build", StringComparison.Ordinal));
    }

    private static JsonElement MsBuild(string project, params string[] args)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host ? host : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add("msbuild");
        start.ArgumentList.Add(project);
        start.ArgumentList.Add("-nologo");
        foreach (var a in args)
        {
            start.ArgumentList.Add(a);
        }
        using var p = Process.Start(start)!;
        var stdout = p.StandardOutput.ReadToEndAsync();
        var stderr = p.StandardError.ReadToEndAsync();
        Assert.True(p.WaitForExit(TimeSpan.FromMinutes(5)), "dotnet msbuild did not finish");
        Assert.True(p.ExitCode == 0, $"dotnet msbuild {string.Join(' ', args)} failed:\n{stdout.Result}\n{stderr.Result}");
        var text = stdout.Result;
        return JsonDocument.Parse(text[text.IndexOf('{')..]).RootElement;
    }

    [Fact]
    public void The_build_copied_the_swift_glue_beside_the_intents()
    {
        var glue = Directory.GetFiles(Metadata("AppFunctionsSwiftGlue"), "*.swift");
        Assert.NotEmpty(glue);
        foreach (var g in glue)
        {
            Assert.Equal(File.ReadAllText(g), File.ReadAllText(Path.Combine(Files, "swift", Path.GetFileName(g))));
        }
    }
}
