// The floor of the .NET cold start (ci/bench/coldstart.py --binding, issue 30): the same app
// (../AppFunctions.ColdStart/App.cs) and the same steps without appfunctions: its services in a
// host, the function's class resolved from a scope and create_order called directly. It prints
//   coldstart main=NS done=NS
// (CLOCK_MONOTONIC nanoseconds, as the program with appfunctions does).
using System.Diagnostics;
using Microsoft.Extensions.DependencyInjection;

long main = Stopwatch.GetTimestamp();
if (Stopwatch.Frequency != 1_000_000_000)
{
    Console.Error.WriteLine($"coldstart: Stopwatch.Frequency is {Stopwatch.Frequency}, not the nanoseconds of CLOCK_MONOTONIC");
    return 2;
}
var services = new ServiceCollection()
    .AddSingleton<OrderStore>()
    .AddSingleton<NoteStore>()
    .AddScoped<OrderFunctions>();
await using var provider = services.BuildServiceProvider();
Order order;
await using (var scope = provider.CreateAsyncScope())
{
    order = scope.ServiceProvider.GetRequiredService<OrderFunctions>().CreateOrder("acme", 2);
}
long done = Stopwatch.GetTimestamp();
if (order.Customer != "acme")
{
    return 1;
}
Console.WriteLine($"coldstart main={main} done={done}");
return 0;
