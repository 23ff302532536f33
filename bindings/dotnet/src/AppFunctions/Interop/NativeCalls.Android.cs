using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace AppFunctions.Interop;

// Android AppFunctions requests (docs/android.md): the package's AppFunctionService hands the
// image of a request's GenericDocument to the core and gets the response JSON back once.
internal static unsafe partial class NativeCalls
{
    /// <summary>Starts an Android request on <paramref name="d"/>; the response arrives once at
    /// <see cref="Trampolines.AndroidResponse"/> with <paramref name="userData"/> (a
    /// <see cref="PendingAndroidResponse"/>). <paramref name="inv"/> and <paramref name="document"/>
    /// are read before this returns.</summary>
    internal static int AndroidExecuteAsync(DispatcherHandle d, AfInvocation* inv, byte* document, void* userData)
    {
        using var h = new Hold<DispatcherKind>(d);
        return Held.AndroidExecuteAsync(h.Raw, inv, document, userData);
    }
}

internal static unsafe partial class Trampolines
{
    /// <summary><c>af_android_execute_async</c>'s one-shot answer: its own release.</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void AndroidResponse(void* userData, byte* responseJson)
    {
        PendingAndroidResponse? pending = null;
        try
        {
            pending = UserData.Get<PendingAndroidResponse>(userData);
            UserData.Free(userData);
            pending.Complete(Utf8.Read(responseJson) ?? AppFunctionsPlatform.Error(AppFunctionsPlatform.SystemError, "AppFunctions: the core answered nothing"));
        }
        catch (Exception e)
        {
            pending?.Complete(AppFunctionsPlatform.Error(AppFunctionsPlatform.SystemError, "AppFunctions: " + e.Message));
        }
    }
}
