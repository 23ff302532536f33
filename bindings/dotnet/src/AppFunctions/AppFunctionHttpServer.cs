using System.Text;
using AppFunctions.Interop;

namespace AppFunctions;

/// <summary>
/// MCP over Streamable HTTP (both protocol eras) and the debug page, as the core serves them:
/// hand each HTTP request to <see cref="Handle"/> and send back what it answers. Every rule of
/// the transport (sessions, protocol versions, Origin checks, bounds) lives in the core; a web
/// server only carries bytes. <c>AppFunctions.AspNetCore</c> plugs this into ASP.NET Core;
/// any other host can do the same. Thread-safe; dispose it when the server stops.
/// </summary>
public sealed unsafe class AppFunctionHttpServer : IDisposable
{
    private readonly HttpServerHandle _handle;

    /// <summary>An exchange over <paramref name="dispatcher"/> configured by
    /// <paramref name="configJson"/> (<c>af_http_server_new</c>'s keys: <c>mcpPath</c>,
    /// <c>debugPath</c>, <c>allowedOrigins</c>, <c>bearerToken</c>, <c>maxBodyBytes</c>,
    /// <c>maxSessions</c>, <c>maxStreams</c>, <c>maxCalls</c>, <c>sessionIdleSeconds</c>,
    /// <c>metadata</c>, <c>mcp</c>; docs/http.md).</summary>
    public AppFunctionHttpServer(AppFunctionDispatcher dispatcher, string? configJson = null)
    {
        ArgumentNullException.ThrowIfNull(dispatcher);
        _handle = NativeCalls.NewHttpServer(dispatcher.Handle, configJson);
    }

    /// <summary>The largest request body accepted: read at most one byte more (a longer body
    /// is answered 413 either way).</summary>
    public long MaxBodyBytes => NativeCalls.HttpMaxBodyBytes(_handle);

    /// <summary>Handles one request. A response with a <see cref="AppFunctionHttpResponse.Stream"/>
    /// comes back at once (a tool call runs on the core's worker): send the status and headers
    /// now, then the stream's frames.</summary>
    public AppFunctionHttpResponse Handle(string method, string path, string? query,
        IEnumerable<KeyValuePair<string, string>> headers, ReadOnlySpan<byte> body)
    {
        var block = new StringBuilder();
        foreach (var (name, value) in headers)
        {
            // a name or value never spans lines in the block the core reads, nor ends it early
            // (a NUL would end the C string: the headers after it, Origin among them, unseen)
            AppendLinePart(block, name).Append(": ");
            AppendLinePart(block, value).Append('\n');
        }
        using var m = new Utf8.Text(method, stackalloc byte[32]);
        using var p = new Utf8.Text(path, stackalloc byte[256]);
        using var q = new Utf8.Text(query, default);
        using var h = new Utf8.Text(block.ToString(), default);
        (int Status, string Headers, byte[] Body, nint Stream) r;
        fixed (byte* b = body)
        {
            var req = new AfHttpRequest
            {
                struct_size = (uint)sizeof(AfHttpRequest),
                body_len = (ulong)body.Length,
                method = m.Pointer,
                path = p.Pointer,
                query = q.Pointer,
                headers = h.Pointer,
                body = b,
            };
            r = NativeCalls.HttpHandle(_handle, &req);
        }
        var list = new List<KeyValuePair<string, string>>();
        foreach (var line in r.Headers.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            int colon = line.IndexOf(':');
            if (colon > 0)
            {
                list.Add(new(line[..colon], line[(colon + 1)..].Trim()));
            }
        }
        return new AppFunctionHttpResponse(r.Status, list, r.Body, r.Stream == 0 ? null : new AppFunctionHttpStream(r.Stream));
    }

    /// <summary>Appends <paramref name="text"/> with CR, LF and NUL as spaces.</summary>
    private static StringBuilder AppendLinePart(StringBuilder block, string text)
    {
        if (text.AsSpan().IndexOfAny('\r', '\n', '\0') < 0)
        {
            return block.Append(text);
        }
        foreach (var c in text)
        {
            block.Append(c is '\r' or '\n' or '\0' ? ' ' : c);
        }
        return block;
    }

    /// <inheritdoc/>
    public void Dispose() => _handle.Dispose();
}

/// <summary>What <see cref="AppFunctionHttpServer.Handle"/> answers.</summary>
public sealed class AppFunctionHttpResponse
{
    internal AppFunctionHttpResponse(int status, IReadOnlyList<KeyValuePair<string, string>> headers, byte[] body, AppFunctionHttpStream? stream)
    {
        Status = status;
        Headers = headers;
        Body = body;
        Stream = stream;
    }

    /// <summary>The HTTP status.</summary>
    public int Status { get; }

    /// <summary>The headers to send (Content-Type among them).</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Headers { get; }

    /// <summary>The body (empty for a stream).</summary>
    public byte[] Body { get; }

    /// <summary>A Server-Sent Events stream to send after the headers, or null. The caller owns
    /// it: dispose it when the client goes away or it ends.</summary>
    public AppFunctionHttpStream? Stream { get; }
}

/// <summary>What <see cref="AppFunctionHttpStream.Next"/> found.</summary>
public enum AppFunctionHttpStreamState
{
    /// <summary>A frame to write and flush.</summary>
    Frame,
    /// <summary>Nothing within the timeout; the stream is open (write <c>:\n\n</c> now and then
    /// as a keep-alive).</summary>
    Idle,
    /// <summary>The stream is over: finish the response.</summary>
    End,
}

/// <summary>A Server-Sent Events stream from the core. Disposing it tells the core the client
/// went away: a 2026-07-28 tool call it carries is cancelled, a subscription ends.</summary>
public sealed unsafe class AppFunctionHttpStream : IDisposable
{
    private nint _raw;
    private int _readers;
    private bool _disposed;
    private readonly object _gate = new();

    internal AppFunctionHttpStream(nint raw) => _raw = raw;

    /// <summary>Waits up to <paramref name="timeout"/> (blocking the calling thread) for the next
    /// frame: one complete SSE event, UTF-8, in <paramref name="frame"/>. Safe to race with
    /// <see cref="Dispose"/>: the stream is freed when the last reader returns.</summary>
    public AppFunctionHttpStreamState Next(TimeSpan timeout, out byte[]? frame)
    {
        frame = null;
        nint raw;
        lock (_gate)
        {
            if (_disposed || _raw == 0)
            {
                return AppFunctionHttpStreamState.End;
            }
            raw = _raw;
            _readers++;
        }
        try
        {
            uint ms = (uint)Math.Clamp(timeout.TotalMilliseconds, 0, uint.MaxValue - 1);
            if (!NativeCalls.HttpStreamNext(raw, ms, out frame))
            {
                return AppFunctionHttpStreamState.Idle;
            }
            return frame is null ? AppFunctionHttpStreamState.End : AppFunctionHttpStreamState.Frame;
        }
        finally
        {
            nint free = 0;
            lock (_gate)
            {
                _readers--;
                if (_disposed && _readers == 0)
                {
                    free = _raw;
                    _raw = 0;
                }
            }
            if (free != 0)
            {
                NativeCalls.HttpStreamFree(free);
            }
        }
    }

    /// <inheritdoc/>
    public void Dispose()
    {
        nint free = 0;
        lock (_gate)
        {
            _disposed = true;
            if (_readers == 0)
            {
                free = _raw;
                _raw = 0;
            }
        }
        if (free != 0)
        {
            NativeCalls.HttpStreamFree(free);
        }
        GC.SuppressFinalize(this);
    }

    /// <summary>A stream nobody disposed is closed when collected.</summary>
    ~AppFunctionHttpStream() => Dispose();
}
