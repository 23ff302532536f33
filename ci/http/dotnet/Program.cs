// The official C# MCP SDK client (ModelContextProtocol 2.4.0) over Streamable HTTP
// (HttpClientTransport) against the sample web host, once per protocol era:
//
//   dotnet HttpClientCheck.dll URL
//
// Checked in each era: connect at the era's revision, tools/list across pages, a call that
// succeeds, a bad argument (a tool error naming it), an unknown tool (-32602), the orders
// toolkit (expanding with notifications/tools/list_changed on the GET stream in the handshake
// era; routing, and a subscriptions/listen stream, in 2026-07-28), a cancelled call, and the
// end of the session. Prints one line per check and ends with `N passed, M failed`.
using System.Text.Json.Nodes;
using ModelContextProtocol;
using ModelContextProtocol.Client;
using ModelContextProtocol.Protocol;

if (args.Length != 1)
{
    Console.Error.WriteLine("usage: dotnet HttpClientCheck.dll URL");
    return 2;
}
var url = new Uri(args[0]);
int passed = 0, failed = 0;
void Check(string name, bool ok, string detail = "")
{
    if (ok) { passed++; Console.WriteLine($"PASS {name}{(detail.Length > 0 ? $" ({detail})" : "")}"); }
    else { failed++; Console.WriteLine($"FAIL {name}: {detail}"); }
}
string Text(CallToolResult r) => string.Join(" | ", r.Content.OfType<TextContentBlock>().Select(c => c.Text));

Console.WriteLine($"dotnet client: ModelContextProtocol {typeof(McpClient).Assembly.GetName().Version} HttpClientTransport; server: {url}");
foreach (var e in new[] { "handshake", "stateless" })
{
    var tag = $"dotnet[{e}]";
    var revision = e == "handshake" ? "2025-11-25" : "2026-07-28";
    try
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(120));
        var transport = new HttpClientTransport(new HttpClientTransportOptions
        {
            Endpoint = url,
            TransportMode = HttpTransportMode.StreamableHttp,
            Name = "appfunctions-web-sample",
        });
        await using var client = await McpClient.CreateAsync(transport,
            new McpClientOptions { ProtocolVersion = revision }, cancellationToken: cts.Token);
        Check($"{tag} connect", client.NegotiatedProtocolVersion == revision, $"protocol {client.NegotiatedProtocolVersion}");

        var changed = new SemaphoreSlim(0);
        await using var handler = client.RegisterNotificationHandler(NotificationMethods.ToolListChangedNotification,
            (n, _) => { changed.Release(); return ValueTask.CompletedTask; });

        var tools = await client.ListToolsAsync(cancellationToken: cts.Token);
        var names = tools.Select(t => t.Name).ToList();
        Check($"{tag} tools/list (all pages) shows the container, not its members",
            names.Contains("orders") && !names.Contains("order_stats") && names.Contains("create_order") && names.Contains("search_order"), string.Join(",", names));

        var ok = await client.CallToolAsync("create_order",
            new Dictionary<string, object?> { ["customer"] = "cs", ["quantity"] = 2 }, cancellationToken: cts.Token);
        Check($"{tag} create_order succeeds", ok.IsError != true && ok.StructuredContent is not null, Text(ok));
        var bad = await client.CallToolAsync("create_order",
            new Dictionary<string, object?> { ["customer"] = "cs", ["quantity"] = "two" }, cancellationToken: cts.Token);
        Check($"{tag} a bad argument is a tool error naming it", bad.IsError == true && Text(bad).Contains("quantity"), Text(bad));
        try
        {
            await client.CallToolAsync("no_such_tool", new Dictionary<string, object?>(), cancellationToken: cts.Token);
            Check($"{tag} an unknown tool is -32602", false, "got a result");
        }
        catch (McpProtocolException ex)
        {
            Check($"{tag} an unknown tool is -32602", (int)ex.ErrorCode == -32602, $"{(int)ex.ErrorCode}: {ex.Message}");
        }

        if (e == "handshake")
        {
            var r = await client.CallToolAsync("orders", new Dictionary<string, object?>(), cancellationToken: cts.Token);
            Check($"{tag} calling the container expands it", r.IsError != true && Text(r).Contains("order_stats"), Text(r));
            Check($"{tag} notifications/tools/list_changed on the GET stream", await changed.WaitAsync(TimeSpan.FromSeconds(10)));
            names = (await client.ListToolsAsync(cancellationToken: cts.Token)).Select(t => t.Name).ToList();
            Check($"{tag} the members are listed after it", names.Contains("order_stats") && !names.Contains("orders"), string.Join(",", names));
        }
        else
        {
            var routed = await client.CallToolAsync("orders", new Dictionary<string, object?>
            {
                ["tool"] = "order_stats",
                ["arguments"] = new Dictionary<string, object?>(),
            }, cancellationToken: cts.Token);
            Check($"{tag} the container runs a member", routed.IsError != true, Text(routed));
            var acked = new SemaphoreSlim(0);
            await using var ackHandler = client.RegisterNotificationHandler(NotificationMethods.SubscriptionsAcknowledgedNotification,
                (n, _) => { acked.Release(); return ValueTask.CompletedTask; });
            using var listenCts = CancellationTokenSource.CreateLinkedTokenSource(cts.Token);
            var listen = client.SendRequestAsync(new JsonRpcRequest
            {
                Method = RequestMethods.SubscriptionsListen,
                Params = new JsonObject { ["notifications"] = new JsonObject { ["toolsListChanged"] = true } },
            }, listenCts.Token);
            Check($"{tag} subscriptions/listen is acknowledged on its stream", await acked.WaitAsync(TimeSpan.FromSeconds(10)));
            listenCts.Cancel();
            try { await listen; } catch (OperationCanceledException) { } catch (McpException) { }
        }

        // cancel a slow call: the handshake era sends notifications/cancelled, 2026-07-28
        // closes the request's stream
        var t0 = DateTime.UtcNow;
        using (var slowCts = CancellationTokenSource.CreateLinkedTokenSource(cts.Token))
        {
            slowCts.CancelAfter(TimeSpan.FromMilliseconds(400));
            try
            {
                await client.CallToolAsync("wait", new Dictionary<string, object?> { ["seconds"] = 30 }, cancellationToken: slowCts.Token);
                Check($"{tag} a cancelled call ends early", false, "it completed");
            }
            catch (OperationCanceledException)
            {
                Check($"{tag} a cancelled call ends early", DateTime.UtcNow - t0 < TimeSpan.FromSeconds(10), $"{(DateTime.UtcNow - t0).TotalMilliseconds:F0} ms");
            }
        }
        var again = await client.CallToolAsync("list_notes", new Dictionary<string, object?>(), cancellationToken: cts.Token);
        Check($"{tag} the server still answers after the cancel", again.IsError != true, Text(again));
    }
    catch (Exception ex)
    {
        Check($"{tag} suite", false, $"{ex.GetType().Name}: {ex.Message}");
    }
}
Console.WriteLine($"{passed} passed, {failed} failed");
return failed > 0 || passed == 0 ? 1 : 0;
