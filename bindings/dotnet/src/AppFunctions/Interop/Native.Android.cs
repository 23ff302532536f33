using System.Runtime.InteropServices;

namespace AppFunctions.Interop;

/// <summary>
/// Android AppFunctions calls (<c>include/appfunctions.h</c>, docs/android.md): the image of
/// a request's parameters <c>GenericDocument</c> in, the response JSON out
/// (<c>{"result": &lt;document image&gt;, "extras": {…}}</c> or
/// <c>{"errorCode": &lt;AppFunctionException code&gt;, "message": "…"}</c>). The
/// <c>_json</c> result is freed with <see cref="Native.af_string_free"/>; the async
/// callback's text is lent for the callback.
/// </summary>
internal static unsafe partial class Native
{
    [LibraryImport(Library)]
    internal static partial byte* af_android_execute_json(DispatcherHandle d, AfInvocation* inv, byte* parametersDocument);
    // the raw handle, held by its caller (NativeCalls.Held)
    [LibraryImport(Library)]
    internal static partial int af_android_execute_async(nint d, AfInvocation* inv, byte* parametersDocument,
        delegate* unmanaged[Cdecl]<void*, byte*, void> onResponse, void* userData);
}
