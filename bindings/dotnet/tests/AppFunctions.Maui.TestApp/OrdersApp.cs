using System.Collections.Concurrent;
using System.ComponentModel;

namespace AppFunctions.Maui.TestApp;

// A MAUI app's declarations as the README's quick start shows them (seed 000's orders app),
// built for plain net10.0 with the platform steps on (AppFunctions.Maui.TestApp.csproj). The
// tests (AppFunctions.Maui.Tests) compile the same file: they drive the Android service with it
// and compare the files this app's build wrote with the exports of its dispatcher.

/// <summary>How urgent an order is</summary>
public enum Priority
{
    Low,
    [Description("The default")]
    Normal,
    High,
}

/// <summary>An order of the shop</summary>
[AppFunctionEntity("order", Title = "Order")]
public sealed record Order(string Id, string Customer, int Quantity, Priority Priority, string Status);

public sealed class OrderStore
{
    private int _next = 100;

    public ConcurrentDictionary<string, Order> Orders { get; } = new(new Dictionary<string, Order>
    {
        ["o-1"] = new("o-1", "acme", 2, Priority.Normal, "open"),
        ["o-2"] = new("o-2", "globex", 5, Priority.High, "open"),
    });

    public Order Create(string customer, int quantity, Priority priority)
    {
        var o = new Order($"o-{Interlocked.Increment(ref _next)}", customer, quantity, priority, "open");
        Orders[o.Id] = o;
        return o;
    }
}

public sealed class SignInState
{
    public bool IsSignedIn { get; set; }
}

/// <summary>What a handler saw (the tests read it).</summary>
public sealed class CallLog
{
    public ConcurrentQueue<string> Seen { get; } = new();

    public TaskCompletionSource Started { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
}

public class OrderFunctions(OrderStore store, CallLog log)
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
        log.Seen.Enqueue($"create_order:{context.Platform}:{context.CallerPackage}:{context.IsForeground}");
        return order;
    }

    /// <summary>Cancels an order.</summary>
    /// <param name="order">The order to cancel</param>
    [AppFunction(Title = "Cancel order")]
    public Order CancelOrder(AppFunctionContext context, Order order)
    {
        var cancelled = order with { Status = "cancelled" };
        store.Orders[order.Id] = cancelled;
        context.Say($"Cancelled order {order.Id}.");
        return cancelled;
    }

    /// <summary>Waits until the call is cancelled.</summary>
    [AppFunction]
    public async Task<string> WaitForCancel(CancellationToken cancellationToken)
    {
        log.Started.TrySetResult();
        await Task.Delay(Timeout.Infinite, cancellationToken);
        return "never";
    }

    /// <summary>Always fails.</summary>
    /// <param name="message">What the failure says</param>
    [AppFunction]
    public string Explode(string message) => throw new InvalidOperationException(message);

    /// <summary>Archives every closed order.</summary>
    [AppFunction(Enabled = false)]
    public void ArchiveOrders() => store.Orders.Clear();
}

public sealed class OrderProvider(OrderStore store) : IAppFunctionEntityProvider<Order>
{
    public Task<IReadOnlyList<Order>> GetAsync(IReadOnlyList<string> ids, AppFunctionContext context, CancellationToken cancellationToken) =>
        Task.FromResult<IReadOnlyList<Order>>(ids.Select(id => store.Orders.GetValueOrDefault(id)).OfType<Order>().ToList());

    public Task<IReadOnlyList<Order>> SearchAsync(string query, int? limit, AppFunctionContext context, CancellationToken cancellationToken) =>
        Task.FromResult<IReadOnlyList<Order>>(store.Orders.Values.Where(o => o.Customer.Contains(query, StringComparison.Ordinal))
            .OrderBy(o => o.Id, StringComparer.Ordinal).Take(limit ?? 10).ToList());
}

/// <summary>The seed's delegate: cancelling needs a signed-in user.</summary>
public class SignInDelegate(SignInState signIn) : IAppFunctionDelegate
{
    public Task<AppFunctionGate> OnInvoking(AppFunctionContext context, CancellationToken cancellationToken)
        => Task.FromResult(context.FunctionId == "cancel_order" && !signIn.IsSignedIn
            ? AppFunctionGate.OpenApp("Sign in to cancel orders.")
            : AppFunctionGate.Allow);
}
