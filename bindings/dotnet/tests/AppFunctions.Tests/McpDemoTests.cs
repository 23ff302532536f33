using System.Text.Json;
using ModelContextProtocol.Client;
using ModelContextProtocol.Protocol;

namespace AppFunctions.Tests;

/// <summary>The official MCP C# SDK client against the core's MCP stdio server (the demo).</summary>
public sealed class McpDemoTests
{
    /// <summary>target/release/examples/demo (APPFUNCTIONS_DEMO overrides); built by the dotnet lane.</summary>
    internal static string Demo()
    {
        var env = Environment.GetEnvironmentVariable("APPFUNCTIONS_DEMO");
        if (!string.IsNullOrEmpty(env))
        {
            return env;
        }
        var dir = new DirectoryInfo(AppContext.BaseDirectory);
        while (dir is not null && !File.Exists(Path.Combine(dir.FullName, "Cargo.toml")))
        {
            dir = dir.Parent;
        }
        return Path.Combine(dir?.FullName ?? ".", "target", "release", "examples", "demo");
    }

    /// <summary>2025-11-25: the initialize handshake; a per-session view, so calling the collapsed
    /// toolkit expands it and the server pushes list_changed. null: the SDK's newest revision
    /// (2026-07-28), where the tool list must not change as a side effect of a call: the toolkit is a
    /// routing container that lists its members' definitions and runs one by name.</summary>
    [Theory]
    [InlineData(null)]
    [InlineData("2025-11-25")]
    public async Task Handshake_list_call_a_tool_error_and_list_changed_after_a_toolkit_expands(string? protocolVersion)
    {
        var demo = Demo();
        Assert.True(File.Exists(demo), $"the demo is not built at {demo}: cargo build --release --example demo");
        var transport = new StdioClientTransport(new StdioClientTransportOptions { Name = "appfunctions-demo", Command = demo, Arguments = ["mcp"] });
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        await using var client = await McpClient.CreateAsync(transport, new McpClientOptions { ProtocolVersion = protocolVersion }, cancellationToken: cts.Token);

        // handshake
        Assert.Equal(protocolVersion ?? "2026-07-28", client.NegotiatedProtocolVersion);
        Assert.True(client.ServerCapabilities?.Tools is not null);
        Assert.Equal("appfunctions-demo", client.ServerInfo?.Name);
        Assert.Contains("orders", client.ServerInstructions ?? "");

        var listChanged = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var handler = client.RegisterNotificationHandler(NotificationMethods.ToolListChangedNotification, (_, _) =>
        {
            listChanged.TrySetResult();
            return ValueTask.CompletedTask;
        });

        // list
        var tools = await client.ListToolsAsync(cancellationToken: cts.Token);
        var names = tools.Select(t => t.Name).ToList();
        Assert.Contains("create_order", names);
        Assert.Contains("orders", names); // the collapsed toolkit
        Assert.DoesNotContain("order_stats", names);
        var create = tools.Single(t => t.Name == "create_order");
        Assert.Equal("Creates an order for a customer.", create.Description);
        Assert.Equal("object", create.JsonSchema.GetProperty("type").GetString());

        // call
        var result = await client.CallToolAsync("create_order", new Dictionary<string, object?> { ["customer"] = "acme", ["quantity"] = 2 }, cancellationToken: cts.Token);
        Assert.NotEqual(true, result.IsError);
        var order = result.StructuredContent!.Value;
        Assert.Equal("acme", order.GetProperty("customer").GetString());

        // a tool error
        var bad = await client.CallToolAsync("create_order", new Dictionary<string, object?> { ["customer"] = "acme", ["quantity"] = "two" }, cancellationToken: cts.Token);
        Assert.True(bad.IsError);
        var text = string.Join(" ", bad.Content.OfType<TextContentBlock>().Select(c => c.Text));
        Assert.Contains("InvalidArgument", text);
        Assert.Contains("quantity", text);

        if (protocolVersion is not null)
        {
            // expanding the toolkit changes the list: the server says so
            var expand = await client.CallToolAsync("orders", new Dictionary<string, object?>(), cancellationToken: cts.Token);
            Assert.NotEqual(true, expand.IsError);
            Assert.Contains("order_stats", string.Join(" ", expand.Content.OfType<TextContentBlock>().Select(c => c.Text)));
            await listChanged.Task.WaitAsync(cts.Token);
            var after = await client.ListToolsAsync(cancellationToken: cts.Token);
            Assert.Contains(after, t => t.Name == "order_stats");
            var stats = await client.CallToolAsync("order_stats", new Dictionary<string, object?>(), cancellationToken: cts.Token);
            Assert.True(stats.StructuredContent!.Value.TryGetProperty("open", out _));
        }
        else
        {
            // one tool list per server: the container describes its members and routes to one
            var members = await client.CallToolAsync("orders", new Dictionary<string, object?>(), cancellationToken: cts.Token);
            Assert.Contains("\"order_stats\"", string.Join(" ", members.Content.OfType<TextContentBlock>().Select(c => c.Text)));
            var routed = await client.CallToolAsync("orders",
                new Dictionary<string, object?> { ["tool"] = "order_stats", ["arguments"] = new Dictionary<string, object?>() }, cancellationToken: cts.Token);
            Assert.NotEqual(true, routed.IsError);
            Assert.True(routed.StructuredContent!.Value.TryGetProperty("open", out _));
            var after = await client.ListToolsAsync(cancellationToken: cts.Token);
            Assert.Equal(names, after.Select(t => t.Name).ToList());
        }
    }
}
