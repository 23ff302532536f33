// The cold start of a .NET app with appfunctions (ci/bench/coldstart.py --binding, issue 30):
// one fresh process per sample, from its start to the first outcome, for an app of 50
// functions (App.cs) with AddAppFunctions(). It prints one line of CLOCK_MONOTONIC
// nanoseconds (Stopwatch.GetTimestamp on Linux, whose Frequency is 1e9: checked below):
//   coldstart main=NS load=NS container=NS register=NS call=NS
// (with --detail: main=NS assembly=NS dlopen=NS load=NS ..., below)
// main: the first line of Main; load: the library loaded and its ABI checked (the first use of
// appfunctions); container: the services with AddAppFunctions() and the container built;
// register: the dispatcher resolved from it and made (every registration); call: the first
// outcome (the demo's create_order, its handler answering an Order). The registration part
// (ci/bench/report.py) is container and register. The same program without appfunctions is
// AppFunctions.ColdStart.Floor.
// JIT: dotnet build -c Release; ReadyToRun: dotnet publish -c Release -r linux-x64
// --self-contained false -p:PublishAot=false -p:PublishReadyToRun=true; NativeAOT: dotnet
// publish -c Release -r linux-x64.
using System.Diagnostics;
using System.Runtime.InteropServices;
using AppFunctions;
using Microsoft.Extensions.DependencyInjection;

long main = Stopwatch.GetTimestamp();
if (Stopwatch.Frequency != 1_000_000_000)
{
    Console.Error.WriteLine($"coldstart: Stopwatch.Frequency is {Stopwatch.Frequency}, not the nanoseconds of CLOCK_MONOTONIC");
    return 2;
}

// --detail (ci/bench/coldstart-dotnet.sh, NativeAOT): the load in three steps, for the report's
// account of where it goes. assembly: the binding's assembly object, which NativeAOT's binding
// of the first P/Invoke into any library asks for (its reflection runtime's first use); dlopen:
// the library file loaded by path (NativeLibrary.Load, no resolver); load is then the binding's
// resolver, the P/Invoke binding and the ABI check, the library being loaded already.
bool detail = args is ["--detail"];
long assembly = 0, dlopen = 0;
if (detail)
{
    _ = typeof(AppFunctionDispatcher).Assembly;
    assembly = Stopwatch.GetTimestamp();
    NativeLibrary.Load(Path.Combine(AppContext.BaseDirectory, "libappfunctions.so"));
    dlopen = Stopwatch.GetTimestamp();
}
_ = AppFunctionDispatcher.NativeVersion; // loads the library and checks its ABI version
long load = Stopwatch.GetTimestamp();

var services = new ServiceCollection()
    .AddSingleton<OrderStore>()
    .AddSingleton<NoteStore>()
    .AddAppFunctions();
await using var provider = services.BuildServiceProvider();
long container = Stopwatch.GetTimestamp();
var dispatcher = provider.GetRequiredService<AppFunctionDispatcher>();
long register = Stopwatch.GetTimestamp();

var outcome = await dispatcher.Execute(new AppFunctionInvocation("create_order"), """{"customer":"acme","quantity":2}""");
long call = Stopwatch.GetTimestamp();

if (outcome.Status != AppFunctionStatus.Success)
{
    Console.Error.WriteLine($"coldstart: unexpected {outcome.ToJson()}");
    return 1;
}
if (args is ["--check"]) // once before the samples (ci/bench/coldstart-dotnet.sh): the app is the 50 functions
{
    int declared = dispatcher.Registry.Functions.Count(f => !f.Id.StartsWith("search_", StringComparison.Ordinal));
    Console.WriteLine($"coldstart check: {declared} functions, the first outcome {outcome.ToJson()}");
    return declared == 50 ? 0 : 1;
}
Console.WriteLine(detail ? $"coldstart main={main} assembly={assembly} dlopen={dlopen} load={load} container={container} register={register} call={call}" : $"coldstart main={main} load={load} container={container} register={register} call={call}");
return 0;
