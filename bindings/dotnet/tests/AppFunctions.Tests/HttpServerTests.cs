using System.Text;
using System.Text.Json;
using AppFunctions.Tests.Agent;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

/// <summary>MCP over Streamable HTTP and the debug page through the binding's
/// <see cref="AppFunctionHttpServer"/> (the exchange AppFunctions.AspNetCore plugs in).</summary>
public sealed class HttpServerTests : IDisposable
{
    private readonly TestHost _host = TestHost.Create(typeof(SearchToolkit).Namespace!, s => s.AddSingleton<FileStore>());

    public void Dispose() => _host.Dispose();

    private static readonly KeyValuePair<string, string>[] Post =
    [
        new("Accept", "application/json, text/event-stream"),
        new("Content-Type", "application/json"),
    ];

    private static string Header(AppFunctionHttpResponse r, string name) =>
        r.Headers.FirstOrDefault(h => string.Equals(h.Key, name, StringComparison.OrdinalIgnoreCase)).Value;

    [Fact]
    public void A_handshake_session_is_issued_then_required_and_a_call_streams_its_response()
    {
        using var server = new AppFunctionHttpServer(_host.Dispatcher);
        Assert.Equal(8L << 20, server.MaxBodyBytes);
        var init = server.Handle("POST", "/mcp", null, Post,
            """{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"""u8);
        Assert.Equal(200, init.Status);
        Assert.Contains("\"listChanged\":true", Encoding.UTF8.GetString(init.Body));
        var sid = Header(init, "Mcp-Session-Id");
        Assert.Equal(32, sid.Length);
        var session = Post.Append(new("Mcp-Session-Id", sid)).ToArray();

        var none = server.Handle("POST", "/mcp", null, Post, """{"jsonrpc":"2.0","id":2,"method":"tools/list"}"""u8);
        Assert.Equal(400, none.Status);
        var list = server.Handle("POST", "/mcp", null, session, """{"jsonrpc":"2.0","id":2,"method":"tools/list"}"""u8);
        Assert.Equal(200, list.Status);
        Assert.Contains("\"search_toolkit\"", Encoding.UTF8.GetString(list.Body));

        var call = server.Handle("POST", "/mcp", null, session,
            """{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"""u8);
        Assert.Equal(200, call.Status);
        Assert.Contains("-32602", Encoding.UTF8.GetString(call.Body));

        var get = server.Handle("GET", "/mcp", null, [new("Accept", "text/event-stream"), new("Mcp-Session-Id", sid)], default);
        Assert.Equal("text/event-stream", Header(get, "Content-Type"));
        using var stream = get.Stream!;
        Assert.Equal(AppFunctionHttpStreamState.Idle, stream.Next(TimeSpan.FromMilliseconds(10), out _));
        var end = server.Handle("DELETE", "/mcp", null, [new("Mcp-Session-Id", sid)], default);
        Assert.Equal(204, end.Status);
        Assert.Equal(AppFunctionHttpStreamState.End, stream.Next(TimeSpan.FromSeconds(10), out _));
    }

    [Fact]
    public void A_foreign_origin_and_an_oversized_body_are_refused()
    {
        using var server = new AppFunctionHttpServer(_host.Dispatcher, """{"maxBodyBytes": 100}""");
        var evil = server.Handle("POST", "/mcp", null, Post.Append(new("Origin", "http://evil.example")), "{}"u8);
        Assert.Equal(403, evil.Status);
        var big = server.Handle("POST", "/mcp", null, Post, Encoding.UTF8.GetBytes(new string(' ', 200)));
        Assert.Equal(413, big.Status);
        Assert.Throws<AppFunctionRegistrationException>(() => new AppFunctionHttpServer(_host.Dispatcher, """{"maxSessions": "many"}"""));
    }

    [Theory]
    [InlineData("hi\nOrigin: http://localhost")]
    [InlineData("hi\r\nOrigin: http://localhost")]
    [InlineData("hi\0")]
    public void A_header_cannot_add_a_header_line_or_hide_the_ones_after_it(string note)
    {
        using var server = new AppFunctionHttpServer(_host.Dispatcher);
        // the foreign Origin after the note is still seen; the note's own line stays its value
        var r = server.Handle("POST", "/mcp", null,
            Post.Append(new("X-Note", note)).Append(new("Origin", "http://evil.example")), "{}"u8);
        Assert.Equal(403, r.Status);
        var named = server.Handle("POST", "/mcp", null,
            Post.Append(new("X-Note\0", "hi")).Append(new("Origin", "http://evil.example")), "{}"u8);
        Assert.Equal(403, named.Status);
    }

    [Fact]
    public void The_debug_page_lists_functions_and_runs_a_call()
    {
        using var server = new AppFunctionHttpServer(_host.Dispatcher, """{"mcpPath": null, "debugPath": "/appfunctions"}""");
        var page = server.Handle("GET", "/appfunctions", null, [], default);
        Assert.Equal(200, page.Status);
        Assert.Contains("<code>search_web</code>", Encoding.UTF8.GetString(page.Body));
        Assert.Equal(404, server.Handle("POST", "/mcp", null, Post, "{}"u8).Status);
        var run = server.Handle("POST", "/appfunctions/api/execute", null, [new("Content-Type", "application/json")],
            """{"function":"no_such_function"}"""u8);
        using var doc = JsonDocument.Parse(run.Body);
        Assert.Equal("FunctionNotFound", doc.RootElement.GetProperty("outcome").GetProperty("errorCode").GetString());
    }
}
