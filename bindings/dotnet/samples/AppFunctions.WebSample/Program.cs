// The demo app (the seeds' orders and notes functions) as an ASP.NET Core web host: remote MCP
// clients connect over Streamable HTTP at /mcp, a developer opens the debug page at /appfunctions.
//   dotnet run --project bindings/dotnet/samples/AppFunctions.WebSample -- --port 5000
// (ci/demo.sh serve does this). It binds to loopback only and prints one line per endpoint.
// With --stdio it serves the same functions as a local MCP server on stdin/stdout instead
// (one call: dispatcher.ServeMcpStdio()), the way a desktop MCP client launches one. The orders
// and the sign-in delegate are ../Shared's (linked in AppFunctions.WebSample.csproj).
using AppFunctions;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;

if (args.Contains("--stdio"))
{
    // stdout carries MCP: no web host and no console logging at all
#pragma warning disable ASP0000 // the stdio mode has no web application to share services with
    await using var provider = new ServiceCollection()
        .AddSingleton<OrderStore>()
        .AddSingleton<NoteStore>()
        .AddSingleton<SignInState>()
        .AddAppFunctions()
        .BuildServiceProvider();
#pragma warning restore ASP0000
    await provider.GetRequiredService<AppFunctionDispatcher>().ServeMcpStdioAsync();
    return 0;
}

int port = 0;
for (int i = 0; i < args.Length - 1; i++)
{
    if (args[i] == "--port" && !int.TryParse(args[i + 1], out port))
    {
        Console.Error.WriteLine($"--port: not a number: {args[i + 1]}");
        return 2;
    }
}

var builder = WebApplication.CreateSlimBuilder(args);
builder.Logging.SetMinimumLevel(LogLevel.Warning);
// loopback only (port 0: any free port)
builder.WebHost.UseUrls($"http://127.0.0.1:{port}");
builder.Services
    .AddSingleton<OrderStore>()
    .AddSingleton<NoteStore>()
    .AddSingleton<SignInState>()
    .AddAppFunctions();

var app = builder.Build();
app.MapAppFunctionsMcp("/mcp", o =>
{
    o.MetadataJson = """{"ShopName": "Demo shop"}""";
    o.PageSize = 3; // clients follow nextCursor
});
// the debug page runs calls: a development tool, on here because this is the demo
app.MapAppFunctionsDebugPage("/appfunctions");

await app.StartAsync();
var address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First().TrimEnd('/');
Console.WriteLine($"mcp: {address}/mcp");
Console.WriteLine($"debug: {address}/appfunctions");
Console.Out.Flush();
await app.WaitForShutdownAsync();
return 0;

/// <summary>A note</summary>
public sealed record Note(int Id, string Title, string Content);

/// <summary>Open and cancelled orders</summary>
public sealed record OrderStats(int Open, int Cancelled);

public sealed class NoteStore
{
    private int _next = 1;

    public List<Note> Notes { get; } = [new(1, "Shopping", "Milk, eggs")];

    public Note Add(string title, string content)
    {
        lock (Notes)
        {
            var n = new Note(++_next, title, content);
            Notes.Add(n);
            return n;
        }
    }
}

public class OrderFunctions(OrderStore store)
{
    /// <summary>Creates an order for a customer.</summary>
    /// <param name="customer">The customer's name.</param>
    /// <param name="quantity">How many items.</param>
    /// <param name="priority">How urgent the order is.</param>
    [AppFunction(Title = "Create order")]
    public Order CreateOrder(AppFunctionContext context, string customer, int quantity, Priority priority = Priority.Normal)
    {
        var order = store.Create(customer, quantity, priority);
        context.Say($"Order {order.Id} created for {customer}.");
        return order;
    }

    /// <summary>Cancels an open order.</summary>
    /// <param name="order">The order to cancel.</param>
    [AppFunction(Title = "Cancel order")]
    public Order CancelOrder(AppFunctionContext context, Order order)
    {
        lock (store.Orders)
        {
            store.Orders[order.Id] = order with { Status = "cancelled" };
        }
        context.Say($"Order {order.Id} cancelled.");
        return store.Orders[order.Id];
    }

    /// <summary>Waits, for trying cancellation: returns after the given number of seconds.</summary>
    /// <param name="seconds">How long to wait.</param>
    [AppFunction(Title = "Wait")]
    public async Task<string> Wait(int seconds, CancellationToken cancellationToken)
    {
        await Task.Delay(TimeSpan.FromSeconds(seconds), cancellationToken);
        return $"waited {seconds} s";
    }
}

public class NoteFunctions(NoteStore store)
{
    /// <summary>Lists every note.</summary>
    [AppFunction(Title = "List notes")]
    public IReadOnlyList<Note> ListNotes()
    {
        lock (store.Notes)
        {
            return [.. store.Notes];
        }
    }

    /// <summary>Creates a note.</summary>
    /// <param name="title">The note's title.</param>
    /// <param name="content">What the note says.</param>
    [AppFunction(Title = "Create note")]
    public Note CreateNote(AppFunctionContext context, string title, string content)
    {
        var n = store.Add(title, content);
        context.Say($"Note \"{title}\" saved.");
        return n;
    }
}

/// <summary>Order analytics: statistics.</summary>
[Collapse("Order analytics for the shop: statistics.", FunctionResult: "Order analytics is ready: use order_stats for totals.")]
public class Orders(OrderStore store)
{
    /// <summary>Counts the open and cancelled orders.</summary>
    [AppFunction(Title = "Order statistics")]
    public OrderStats OrderStats()
    {
        lock (store.Orders)
        {
            return new(store.Orders.Values.Count(o => o.Status == "open"), store.Orders.Values.Count(o => o.Status == "cancelled"));
        }
    }
}
