// The seed's orders (seed 000), shared by the samples (each project compiles this file through
// <Compile Include="../Shared/Orders.cs" Link=... />): the order entity, its store and its provider.
using System.ComponentModel;
using AppFunctions;

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
