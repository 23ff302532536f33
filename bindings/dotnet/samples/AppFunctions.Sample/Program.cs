// The seed's orders app as a NativeAOT console program: AddAppFunctions(), the seed's two
// delegates, Execute from your own code, the registry with its JSON schemas. The orders and
// the delegates are ../Shared's (linked in AppFunctions.Sample.csproj).
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
