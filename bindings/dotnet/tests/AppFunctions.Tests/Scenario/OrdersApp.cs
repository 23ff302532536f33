using System.Collections.Concurrent;
using System.ComponentModel;
using Microsoft.Extensions.Logging;

namespace AppFunctions.Tests.Orders;

// The shared scenario (tests/c/app.c, bindings/*/scenario): the orders app of seed 000.

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
        ["o-3"] = new("o-3", "initech", 1, Priority.Low, "open"),
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

/// <summary>Records what handlers saw (the tests read it).</summary>
public sealed class Probe
{
    public ConcurrentQueue<string> Seen { get; } = new();

    public TaskCompletionSource HandlerCancelled { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public TaskCompletionSource HandlerStarted { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
}

public class OrderFunctions(OrderStore store, Probe probe)
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
        probe.Seen.Enqueue($"create_order:{context.Platform}:{context.Items.Count}");
        return order;
    }

    [Description("Cancels an order.")]
    [AppFunction(Title = "Cancel order")]
    public async Task<Order> CancelOrder(AppFunctionContext context, Order order)
    {
        await Task.Yield();
        var cancelled = order with { Status = "cancelled" };
        store.Orders[order.Id] = cancelled;
        context.Say($"Cancelled order {order.Id} for {order.Customer}.");
        return cancelled;
    }

    /// <summary>Waits until cancelled.</summary>
    [AppFunction]
    public async Task<string> WaitForever(CancellationToken cancellationToken)
    {
        probe.HandlerStarted.TrySetResult();
        try
        {
            await Task.Delay(Timeout.Infinite, cancellationToken);
        }
        catch (OperationCanceledException)
        {
            probe.HandlerCancelled.TrySetResult();
            throw;
        }
        return "never";
    }

    /// <summary>Always throws.</summary>
    [AppFunction]
    public string Explode(string message) => throw new InvalidOperationException(message);

    /// <summary>Fails with a chosen code.</summary>
    [AppFunction]
    public void FailWith(string message) => throw new AppFunctionException(AppFunctionErrorCode.EntityNotFound, message);

    /// <summary>Moves a date.</summary>
    [AppFunction]
    public static DateTimeOffset AddDays(DateTimeOffset at, int days) => at.AddDays(days);

    /// <summary>Who the delegate said the user is (items).</summary>
    [AppFunction]
    public string WhoAmI(AppFunctionContext context) => context.Items.TryGetValue("user", out var u) ? (string)u! : "nobody";

    /// <summary>What the call looks like from the inside.</summary>
    [AppFunction]
    public CallInfo Describe(AppFunctionContext context) =>
        new(context.FunctionId, context.Platform.ToString(), context.IsForeground, context.CallerPackage, context.Function?.Title,
            context.Request is AppFunctionRequests.Describe, context.Services.GetHashCode());

    /// <summary>Opens the app on iOS.</summary>
    [AppFunction(OpensApp = true)]
    public string ShowOrder(string id) => id;
}

/// <summary>What a call saw.</summary>
public sealed record CallInfo(string FunctionId, string Platform, bool IsForeground, string CallerPackage, string? Title, bool RequestBound, int Scope);

public sealed class OrderProvider(OrderStore store, Probe probe) : IAppFunctionEntityProvider<Order>
{
    public Task<IReadOnlyList<Order>> GetAsync(IReadOnlyList<string> ids, AppFunctionContext context, CancellationToken cancellationToken)
    {
        probe.Seen.Enqueue($"lookup:{string.Join(",", ids)}:{context.Request is null}");
        return Task.FromResult<IReadOnlyList<Order>>(ids.Select(id => store.Orders.GetValueOrDefault(id)).OfType<Order>().ToList());
    }

    public Task<IReadOnlyList<Order>> SearchAsync(string query, int? limit, AppFunctionContext context, CancellationToken cancellationToken) =>
        Task.FromResult<IReadOnlyList<Order>>(store.Orders.Values.Where(o => o.Customer.Contains(query, StringComparison.Ordinal))
            .OrderBy(o => o.Id, StringComparer.Ordinal).Take(limit ?? 10).ToList());
}

// The seed's delegates, verbatim.

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
        var what = exception is AppFunctionException { AppRequested: true } asked ? $"asked for the app: {asked.Message}" : exception?.Message ?? "ok";
        logger.LogInformation("{Function} from {Platform}: {Outcome}", context.FunctionId, context.Platform, what);
        return Task.CompletedTask;
    }
}

/// <summary>Shares state with the handler through Items, and sees entity lookups too.</summary>
public class UserDelegate(Probe probe) : IAppFunctionDelegate
{
    public async Task<AppFunctionGate> OnInvoking(AppFunctionContext context, CancellationToken cancellationToken)
    {
        await Task.Yield(); // answers later, from another thread
        context.Items["user"] = "alice";
        probe.Seen.Enqueue($"invoking:{context.FunctionId}:{(context.IsEntityLookup ? "lookup" : "call")}:{(context.Request is null ? "no-request" : "request")}");
        return AppFunctionGate.Allow;
    }

    public Task OnInvoked(AppFunctionContext context, object? result, Exception? exception)
    {
        probe.Seen.Enqueue($"invoked:{context.FunctionId}:{result?.GetType().Name ?? "null"}:{(exception as AppFunctionException)?.Code.ToString() ?? exception?.GetType().Name ?? "none"}");
        return Task.CompletedTask;
    }
}
