using System.Collections.Concurrent;
using System.Text.Json;
using AppFunctions.Tests.Agent;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

/// <summary>MCP sessions through the binding: a view per connection, list_changed through the sink.</summary>
public sealed class McpSessionTests : IDisposable
{
    private readonly TestHost _host = TestHost.Create(typeof(SearchToolkit).Namespace!, s => s.AddSingleton<FileStore>());

    public void Dispose() => _host.Dispose();

    private static List<string> ToolNames(string response) =>
        JsonDocument.Parse(response).RootElement.GetProperty("result").GetProperty("tools").EnumerateArray().Select(t => t.GetProperty("name").GetString()!).ToList();

    [Fact]
    public void A_session_expands_its_own_view_and_says_so()
    {
        using var session = _host.Dispatcher.CreateMcpSession("""{"HasAdvancedFeatures":false,"ProviderName":"Bing"}""");
        using var other = _host.Dispatcher.CreateMcpSession("""{"HasAdvancedFeatures":false,"ProviderName":"Bing"}""");
        var sent = new ConcurrentQueue<string>();
        session.SetNotify(sent.Enqueue);
        foreach (var s in new[] { session, other })
        {
            var init = s.Handle("""{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}""");
            Assert.Contains("\"protocolVersion\":\"2025-11-25\"", init);
            Assert.Null(s.Handle("""{"jsonrpc":"2.0","method":"notifications/initialized"}"""));
        }
        Assert.DoesNotContain("read_file", ToolNames(session.Handle("""{"jsonrpc":"2.0","id":2,"method":"tools/list"}""")!));
        var expand = session.Handle("""{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"file_system_toolkit","arguments":{}}}""")!;
        Assert.Contains("Available: read_file", expand);
        Assert.Contains(sent, m => m.Contains("notifications/tools/list_changed", StringComparison.Ordinal));
        Assert.Contains("read_file", ToolNames(session.Handle("""{"jsonrpc":"2.0","id":4,"method":"tools/list"}""")!));
        Assert.DoesNotContain("read_file", ToolNames(other.Handle("""{"jsonrpc":"2.0","id":2,"method":"tools/list"}""")!)); // its own view
        var read = session.Handle("""{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}""")!;
        Assert.Contains("hello", read);
    }

    [Fact]
    public void The_dispatchers_own_session_answers_McpHandle()
    {
        _host.Dispatcher.ConfigureMcp("""{"serverName":"dotnet-test","instructions":"Files and search."}""");
        var init = _host.Dispatcher.McpHandle("""{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}""")!;
        Assert.Contains("\"name\":\"dotnet-test\"", init);
        Assert.Contains("Files and search.", init);
        var bad = _host.Dispatcher.McpHandle("{not json")!;
        Assert.Contains("\"error\"", bad);
        var sent = new ConcurrentQueue<string>();
        _host.Dispatcher.SetMcpNotify(sent.Enqueue);
        Assert.Null(_host.Dispatcher.McpHandle("""{"jsonrpc":"2.0","method":"notifications/initialized"}"""));
        _host.Dispatcher.McpHandle("""{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_toolkit","arguments":{}}}""");
        Assert.Contains(sent, m => m.Contains("notifications/tools/list_changed", StringComparison.Ordinal));
        _host.Dispatcher.SetMcpNotify(null);
    }
}
