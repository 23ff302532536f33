// The official C# MCP SDK client (ModelContextProtocol 2.4.0) against a stdio server,
// once per protocol era:
//
//   dotnet run -- [--era handshake|stateless|both] -- SERVER_CMD [ARGS...]
//
// The server command gets `--metadata-file PATH` appended (the demo reads its metadata
// from it, and again when it changes). Checked in each era: connect at the era's
// revision, list (the orders toolkit is one container), a call that succeeds, a bad
// argument (a tool error naming it), an unknown tool (-32602), and
// notifications/tools/list_changed: after calling the container in the handshake era;
// on a subscriptions/listen stream after the host changes its metadata in 2026-07-28.
// Prints one line per check and ends with the plain line `N passed, M failed`.
using System.Text.Json;
using System.Text.Json.Nodes;
using ModelContextProtocol;
using ModelContextProtocol.Client;
using ModelContextProtocol.Protocol;

var argv = args.ToList();
var dd = argv.IndexOf("--");
if (dd < 0 || dd == argv.Count - 1)
{
    Console.Error.WriteLine("usage: dotnet run -- [--era handshake|stateless|both] -- SERVER_CMD [ARGS...]");
    return 2;
}
var opts = argv.Take(dd).ToList();
var server = argv.Skip(dd + 1).ToList();
var era = opts.Count == 2 && opts[0] == "--era" ? opts[1] : "both";

int passed = 0, failed = 0;
void Check(string name, bool ok, string detail = "")
{
    if (ok) { passed++; Console.WriteLine($"PASS {name}{(detail.Length > 0 ? $" ({detail})" : "")}"); }
    else { failed++; Console.WriteLine($"FAIL {name}: {detail}"); }
}
string Text(CallToolResult r) => string.Join("\n", r.Content.OfType<TextContentBlock>().Select(c => c.Text));

Console.WriteLine($"dotnet client: ModelContextProtocol {typeof(McpClient).Assembly.GetName().Version}; server: {string.Join(' ', server)}");
var eras = era == "both" ? new[] { "handshake", "stateless" } : new[] { era };
foreach (var e in eras)
{
    var tag = $"dotnet[{e}]";
    var revision = e == "handshake" ? "2025-11-25" : "2026-07-28";
    var metadataFile = Path.Combine(Path.GetTempPath(), $"af-mcp-dotnet-{Environment.ProcessId}-{e}.json");
    File.WriteAllText(metadataFile, "{\"ShopName\": \"the demo shop\"}");
    try
    {
        var transport = new StdioClientTransport(new StdioClientTransportOptions
        {
            Command = server[0],
            Arguments = server.Skip(1).Concat(new[] { "--metadata-file", metadataFile }).ToList(),
            Name = "appfunctions-demo",
        });
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(120));
        await using var client = await McpClient.CreateAsync(transport,
            new McpClientOptions { ProtocolVersion = revision }, cancellationToken: cts.Token);
        Check($"{tag} connect", client.NegotiatedProtocolVersion == revision,
            $"protocol {client.NegotiatedProtocolVersion}");

        var changed = new SemaphoreSlim(0);
        var changes = new List<JsonNode?>();
        await using var handler = client.RegisterNotificationHandler(NotificationMethods.ToolListChangedNotification,
            (n, _) => { lock (changes) changes.Add(n.Params?.DeepClone()); changed.Release(); return ValueTask.CompletedTask; });

        var tools = await client.ListToolsAsync(cancellationToken: cts.Token);
        var names = tools.Select(t => t.Name).ToList();
        Check($"{tag} tools/list shows the orders container, not its members",
            names.Contains("orders") && !names.Contains("order_stats") && names.Contains("create_order"), string.Join(",", names));

        var ok = await client.CallToolAsync("create_order",
            new Dictionary<string, object?> { ["customer"] = "Ada", ["quantity"] = 2 }, cancellationToken: cts.Token);
        Check($"{tag} create_order succeeds", ok.IsError != true && ok.StructuredContent is not null, Text(ok));

        var bad = await client.CallToolAsync("create_order",
            new Dictionary<string, object?> { ["customer"] = "Ada", ["quantity"] = "two" }, cancellationToken: cts.Token);
        Check($"{tag} a bad argument is a tool error naming it", bad.IsError == true && Text(bad).Contains("quantity"), Text(bad));

        try
        {
            await client.CallToolAsync("order_stats", new Dictionary<string, object?>(), cancellationToken: cts.Token);
            Check($"{tag} a tool the client cannot see is unknown (-32602)", false, "got a result");
        }
        catch (McpProtocolException ex)
        {
            Check($"{tag} a tool the client cannot see is unknown (-32602)", (int)ex.ErrorCode == -32602, $"{(int)ex.ErrorCode}: {ex.Message}");
        }

        if (e == "handshake")
        {
            var r = await client.CallToolAsync("orders", new Dictionary<string, object?>(), cancellationToken: cts.Token);
            Check($"{tag} calling the container expands it", r.IsError != true && Text(r).Contains("order_stats"), Text(r));
            var got = await changed.WaitAsync(TimeSpan.FromSeconds(10));
            Check($"{tag} notifications/tools/list_changed after the expansion", got);
            names = (await client.ListToolsAsync(cancellationToken: cts.Token)).Select(t => t.Name).ToList();
            Check($"{tag} the members are listed after it", names.Contains("order_stats") && !names.Contains("orders"), string.Join(",", names));
        }
        else
        {
            var r = await client.CallToolAsync("orders", new Dictionary<string, object?>(), cancellationToken: cts.Token);
            Check($"{tag} the container describes its members", r.IsError != true && Text(r).Contains("order_stats"), Text(r));
            var routed = await client.CallToolAsync("orders", new Dictionary<string, object?>
            {
                ["tool"] = "order_stats",
                ["arguments"] = new Dictionary<string, object?>(),
            }, cancellationToken: cts.Token);
            Check($"{tag} the container runs a member", routed.IsError != true, Text(routed));
            var after = (await client.ListToolsAsync(cancellationToken: cts.Token)).Select(t => t.Name).ToList();
            Check($"{tag} calls leave the tool list as it was", after.SequenceEqual(names), string.Join(",", after));

            // A subscriptions/listen stream: its response comes only when the stream ends,
            // so the request runs in the background; the acknowledgment and the
            // notifications arrive as notifications.
            var acked = new SemaphoreSlim(0);
            await using var ackHandler = client.RegisterNotificationHandler(NotificationMethods.SubscriptionsAcknowledgedNotification,
                (n, _) => { acked.Release(); return ValueTask.CompletedTask; });
            using var listenCts = CancellationTokenSource.CreateLinkedTokenSource(cts.Token);
            var listen = client.SendRequestAsync(new JsonRpcRequest
            {
                Method = RequestMethods.SubscriptionsListen,
                Params = new JsonObject { ["notifications"] = new JsonObject { ["toolsListChanged"] = true } },
            }, listenCts.Token);
            Check($"{tag} subscriptions/listen is acknowledged", await acked.WaitAsync(TimeSpan.FromSeconds(10)));
            File.WriteAllText(metadataFile, "{\"ShopName\": \"Renamed shop\", \"HasAdvancedFeatures\": true}");
            var got = await changed.WaitAsync(TimeSpan.FromSeconds(10));
            JsonNode? p;
            lock (changes) p = changes.LastOrDefault();
            Check($"{tag} notifications/tools/list_changed on the stream after the host's change",
                got && p?["_meta"]?["io.modelcontextprotocol/subscriptionId"] is not null, p?.ToJsonString() ?? "none");
            var orders = (await client.ListToolsAsync(cancellationToken: cts.Token)).FirstOrDefault(t => t.Name == "orders");
            Check($"{tag} the new list follows the metadata", orders?.Description?.Contains("Renamed shop") == true, orders?.Description ?? "no orders tool");
            listenCts.Cancel();
            try { await listen; } catch (OperationCanceledException) { } catch (McpException) { }
        }
    }
    catch (Exception ex)
    {
        Check($"{tag} suite", false, $"{ex.GetType().Name}: {ex.Message}");
    }
    finally
    {
        File.Delete(metadataFile);
    }
}
Console.WriteLine($"{passed} passed, {failed} failed");
return failed > 0 || passed == 0 ? 1 : 0;
