// The floor of the .NET cold start (ci/bench/coldstart.py --binding, issue 30): the same app
// (../AppFunctions.ColdStart/App.cs) and the same steps without appfunctions: its services in a
// host, the function's class resolved from a scope and create_order called directly. It prints
//   coldstart main=NS container=NS done=NS
// (CLOCK_MONOTONIC nanoseconds, as the program with appfunctions does): container is the same
// services without AddAppFunctions() and the container built, the full program's `container`
// step without appfunctions (the report sets them side by side); done the end of its work.
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
long container = Stopwatch.GetTimestamp();
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
Console.WriteLine($"coldstart main={main} container={container} done={done}");
return 0;
