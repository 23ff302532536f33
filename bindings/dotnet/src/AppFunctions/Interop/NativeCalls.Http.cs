namespace AppFunctions.Interop;

/// <summary>The calls of <see cref="AppFunctionHttpServer"/> and <see cref="AppFunctionMcpStdio"/>
/// (<c>af_http_*</c>, <c>af_mcp_serve_stdio</c>): statuses become exceptions here, strings and
/// bodies cross as UTF-8 bytes.</summary>
internal static unsafe partial class NativeCalls
{
    internal static HttpServerHandle NewHttpServer(DispatcherHandle d, string? configJson)
    {
        using var c = new Utf8.Text(configJson, default);
        var raw = Native.af_http_server_new(Live(d), c.Pointer);
        return raw == 0 ? throw Error("creating the HTTP exchange") : HttpServerHandle.FromRaw(raw);
    }

    internal static long HttpMaxBodyBytes(HttpServerHandle s) => (long)Native.af_http_server_max_body_bytes(s);

    /// <summary>One request; the response's parts, its stream (0 when none) handed to the caller.</summary>
    internal static (int Status, string Headers, byte[] Body, nint Stream) HttpHandle(HttpServerHandle s, AfHttpRequest* request)
    {
        var raw = Native.af_http_handle(s, request);
        if (raw == 0)
        {
            throw Error("handling an HTTP request");
        }
        try
        {
            int status = Native.af_http_response_status(raw);
            var headers = Utf8.Take(Native.af_http_response_headers_copy(raw)) ?? "";
            ulong len = 0;
            byte* bp = Native.af_http_response_body(raw, &len);
            var body = bp is null || len == 0 ? [] : new ReadOnlySpan<byte>(bp, checked((int)len)).ToArray();
            return (status, headers, body, Native.af_http_response_take_stream(raw));
        }
        finally
        {
            Native.af_http_response_free(raw);
        }
    }

    /// <summary>The next frame within <paramref name="timeoutMs"/>: true with a frame, true with
    /// null at the end, false when nothing came in time.</summary>
    internal static bool HttpStreamNext(nint stream, uint timeoutMs, out byte[]? frame)
    {
        frame = null;
        byte* f = null;
        int st = Native.af_http_stream_next_copy(stream, timeoutMs, &f);
        if (st == Native.AF_ERR_TIMED_OUT)
        {
            return false;
        }
        Check(st, "reading an HTTP stream");
        if (f is not null)
        {
            try
            {
                frame = Utf8.Span(f).ToArray();
            }
            finally
            {
                Native.af_string_free(f);
            }
        }
        return true;
    }

    internal static void HttpStreamFree(nint stream) => Native.af_http_stream_free(stream);

    internal static void McpServeStdio(DispatcherHandle d) => Check(Native.af_mcp_serve_stdio(Live(d)), "serving MCP on stdio");
}
