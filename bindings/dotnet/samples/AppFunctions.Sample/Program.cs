// The seed's orders app as a NativeAOT console program: AddAppFunctions(), the seed's two
// delegates, Execute from your own code, the registry with its JSON schemas.
using System.ComponentModel;
using AppFunctions;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

var services = new ServiceCollection()
    .AddLogging(b => b.AddSimpleConsole(o => o.SingleLine = true).SetMinimumLevel(LogLevel.Information))
    .AddSingleton<OrderStore>()
    .AddSingleton<SignInState>()
    .AddAppFunctions();
await using var provider = services.BuildServiceProvider();
var dispatcher = provider.GetRequiredService<AppFunctionDispatcher>();
int failures = 0;

async Task<AppFunctionOutcome> Run(AppFunctionInvocation invocation, string json, AppFunctionStatus expected)
{
    var outcome = await dispatcher.Execute(invocation, json, CancellationToken.None);
    Console.WriteLine(outcome.Status == AppFunctionStatus.Success
        ? $"{invocation.FunctionId} ({invocation.Platform}): {outcome.Dialog ?? outcome.ResultJson}"
        : $"{invocation.FunctionId} ({invocation.Platform}): {outcome.Status} {outcome.ErrorCode}: {outcome.Message ?? outcome.Dialog}");
    if (outcome.Status != expected)
    {
        Console.Error.WriteLine($"  expected {expected}: {outcome.ToJson()}");
        failures++;
    }
    return outcome;
}

Console.WriteLine($"appfunctions core {AppFunctionDispatcher.NativeVersion}");
await Run(new AppFunctionInvocation("create_order"), """{"customer":"acme","quantity":2,"priority":"Normal"}""", AppFunctionStatus.Success);
await Run(new AppFunctionInvocation("create_order"), """{"customer":"acme","quantity":"two"}""", AppFunctionStatus.Error);
await Run(new AppFunctionInvocation("cancel_order") { Platform = AppFunctionPlatform.Android }, """{"order":"o-1"}""", AppFunctionStatus.Error);
await Run(new AppFunctionInvocation("cancel_order") { Platform = AppFunctionPlatform.Apple }, """{"order":"o-1"}""", AppFunctionStatus.OpenApp);
provider.GetRequiredService<SignInState>().IsSignedIn = true; // the user signed in, in the app
await Run(new AppFunctionInvocation("cancel_order") { Platform = AppFunctionPlatform.Apple, IsForeground = true }, """{"order":"o-1"}""", AppFunctionStatus.Success);
await Run(new AppFunctionInvocation("search_order"), """{"query":"glo"}""", AppFunctionStatus.Success);

foreach (var function in dispatcher.Registry.Functions)
{
    Console.WriteLine($"{function.Id}: {function.Description}\n{function.GetParametersJsonSchema()}");
}

Console.WriteLine(failures == 0 ? "sample: all calls answered as expected" : $"sample: {failures} unexpected outcome(s)");
return failures == 0 ? 0 : 1;

/// <summary>How urgent an order is</summary>
public enum Priority
{
    Low,
    [Description("The default")]
    Normal,
    High,
}

/// <summary>An order of the shop</summary>
[AppFunctionEntity("order")]
public sealed record Order(string Id, string Customer, int Quantity, Priority Priority, string Status);

public sealed class OrderStore
{
    private int _next;

    public Dictionary<string, Order> Orders { get; } = new()
    {
        ["o-1"] = new("o-1", "acme", 2, Priority.Normal, "open"),
        ["o-2"] = new("o-2", "globex", 5, Priority.High, "open"),
    };

    public Order Create(string customer, int quantity, Priority priority)
    {
        lock (Orders)
        {
            var o = new Order($"o-{100 + ++_next}", customer, quantity, priority, "open");
            Orders[o.Id] = o;
            return o;
        }
    }
}

public sealed class SignInState
{
    public bool IsSignedIn { get; set; }
}

public class OrderFunctions(OrderStore store)
{
    /// <summary>Creates an order for a customer.</summary>
    /// <param name="customer">Customer name</param>
    /// <param name="quantity">How many items</param>
    /// <param name="priority">How urgent</param>
    [AppFunction(Title = "Create order")]
    public Order CreateOrder(AppFunctionContext context, string customer, int quantity, Priority priority = Priority.Normal)
    {
        var order = store.Create(customer, quantity, priority);
        context.Say($"Order {order.Id} created.");
        return order;
    }

    /// <summary>Cancels an order.</summary>
    [AppFunction(Title = "Cancel order")]
    public Order CancelOrder(AppFunctionContext context, Order order)
    {
        lock (store.Orders)
        {
            store.Orders[order.Id] = order with { Status = "cancelled" };
        }
        context.Say($"Cancelled order {order.Id} for {order.Customer}.");
        return store.Orders[order.Id];
    }
}

public sealed class OrderProvider(OrderStore store) : IAppFunctionEntityProvider<Order>
{
    public Task<IReadOnlyList<Order>> GetAsync(IReadOnlyList<string> ids, AppFunctionContext context, CancellationToken cancellationToken)
    {
        lock (store.Orders)
        {
            return Task.FromResult<IReadOnlyList<Order>>([.. ids.Where(store.Orders.ContainsKey).Select(id => store.Orders[id])]);
        }
    }

    public Task<IReadOnlyList<Order>> SearchAsync(string query, int? limit, AppFunctionContext context, CancellationToken cancellationToken)
    {
        lock (store.Orders)
        {
            return Task.FromResult<IReadOnlyList<Order>>([.. store.Orders.Values.Where(o => o.Customer.Contains(query, StringComparison.Ordinal)).Take(limit ?? 10)]);
        }
    }
}

// The seed's delegates.
public class SignInDelegate(SignInState signIn) : IAppFunctionDelegate
{
    public Task<AppFunctionGate> OnInvoking(AppFunctionContext context, CancellationToken cancellationToken)
        => Task.FromResult(context.FunctionId == "cancel_order" && !signIn.IsSignedIn
            ? AppFunctionGate.OpenApp("Sign in to cancel orders.")
            : AppFunctionGate.Allow);
}

public class TelemetryDelegate(ILogger<TelemetryDelegate> logger) : IAppFunctionDelegate
{
    public Task OnInvoked(AppFunctionContext context, object? result, Exception? exception)
    {
        logger.LogInformation("{Function} from {Platform}: {Outcome}", context.FunctionId, context.Platform, exception?.Message ?? "ok");
        return Task.CompletedTask;
    }
}
