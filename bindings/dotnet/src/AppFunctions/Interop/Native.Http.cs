using System.Runtime.InteropServices;

namespace AppFunctions.Interop;

/// <summary><c>af_http_request</c> (include/appfunctions.h): filled in by the binding, borrowed
/// for one <c>af_http_handle</c> call. Layout: <c>struct_size</c> 0, <c>reserved</c> 4,
/// <c>body_len</c> 8, then five pointers (<c>method</c>, <c>path</c>, <c>query</c>,
/// <c>headers</c>, <c>body</c>); no hidden padding on 32- or 64-bit targets.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct AfHttpRequest
{
    public uint struct_size;
    public uint reserved;
    public ulong body_len;
    public byte* method;
    public byte* path;
    public byte* query;
    public byte* headers;
    public byte* body;
}

/// <summary>MCP over Streamable HTTP and the debug page (<c>af_http_*</c>).</summary>
internal static unsafe partial class Native
{
    [LibraryImport(Library)] internal static partial nint af_http_server_new(DispatcherHandle d, byte* config);
    [LibraryImport(Library)] internal static partial void af_http_server_free(nint s);
    [LibraryImport(Library)] internal static partial ulong af_http_server_max_body_bytes(HttpServerHandle s);
    [LibraryImport(Library)]
    internal static partial int af_http_server_set_authorize(HttpServerHandle s, delegate* unmanaged[Cdecl]<void*, AfHttpRequest*, int> cb,
        void* userData, delegate* unmanaged[Cdecl]<void*, void> free);
    [LibraryImport(Library)] internal static partial nint af_http_handle(HttpServerHandle s, AfHttpRequest* request);
    [LibraryImport(Library)] internal static partial int af_http_response_status(nint r);
    [LibraryImport(Library)] internal static partial byte* af_http_response_headers_copy(nint r);
    [LibraryImport(Library)] internal static partial byte* af_http_response_body(nint r, ulong* outLen);
    [LibraryImport(Library)] internal static partial nint af_http_response_take_stream(nint r);
    [LibraryImport(Library)] internal static partial void af_http_response_free(nint r);
    [LibraryImport(Library)] internal static partial int af_http_stream_next_copy(nint st, uint timeoutMs, byte** outFrame);
    [LibraryImport(Library)] internal static partial void af_http_stream_free(nint st);
}

/// <summary>Owns an <c>af_http_server</c>.</summary>
internal sealed class HttpServerHandle : SafeHandle
{
    public HttpServerHandle() : base(0, ownsHandle: true) { }

    public override bool IsInvalid => handle == 0;

    internal static HttpServerHandle FromRaw(nint raw)
    {
        var h = new HttpServerHandle();
        h.SetHandle(raw);
        return h;
    }

    protected override bool ReleaseHandle()
    {
        Native.af_http_server_free(handle);
        return true;
    }
}
