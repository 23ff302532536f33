// One Execute round trip from C#, beside the same function through Microsoft.Extensions.AI's
// AIFunctionFactory (reflection binding), in one BenchmarkDotNet run:
//   dotnet run -c Release --project benchmarks/AppFunctions.Benchmarks -- --filter '*'
// Two functions: the seed's create_order, which returns its Order record (the core checks
// the record against its type), and the call ci/bench.sh times in C (benches/scenarios.rs,
// execute/plain: the same three parameters, a string result, a handler answering "ok"), so
// that the ratio to the C figure compares one call with itself.
using System.Text.Json;
using AppFunctions;
using AppFunctions.Extensions.AI;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Running;
using Microsoft.Extensions.AI;
using Microsoft.Extensions.DependencyInjection;

if (args.Length >= 2 && args[0] == "--loop")
{
    // for a profiler (perf record with DOTNET_PerfMapEnabled=1): one benchmark in a loop
    return Loop.Run(args[1], args.Length > 2 ? int.Parse(args[2], System.Globalization.CultureInfo.InvariantCulture) : 2_000_000);
}
BenchmarkSwitcher.FromAssembly(typeof(ExecuteBenchmarks).Assembly).Run(args);
return 0;

public enum Priority
{
    Low,
    Normal,
    High,
}

public sealed record Order(string Id, string Customer, int Quantity, Priority Priority);

/// <summary>The seed's create_order with a trivial body.</summary>
public class BenchFunctions
{
    /// <summary>Creates an order for a customer.</summary>
    [AppFunction]
    public static Order CreateOrder(string customer, int quantity, Priority priority = Priority.Normal) => new("o-1", customer, quantity, priority);
}

/// <summary>The C benchmark's call (benches/scenarios.rs): the same parameters, priority required,
/// a string result, a handler answering "ok".</summary>
public class SameCallAsC
{
    /// <summary>Creates an order for a customer (answers "ok").</summary>
    [AppFunction]
    public static string PlaceOrder(string customer, int quantity, Priority priority) => "ok";
}

/// <summary>The seed's app (seed 000) as one of its calls feels: the function's class resolved
/// from the call's DI scope with a service its constructor takes, and the seed's two delegates,
/// resolved from the same scope (SignInDelegate's OnInvoking, TelemetryDelegate's OnInvoked
/// logging through <c>ILogger&lt;T&gt;</c> of <c>AddLogging()</c> with no provider: what the line
/// costs to write is the logging provider's, not the call's).</summary>
public sealed class OrderStore
{
    public Order Create(string customer, int quantity, Priority priority) => new("o-1", customer, quantity, priority);
}

public class InAppOrders(OrderStore store)
{
    /// <summary>Creates an order for a customer.</summary>
    [AppFunction(Name = "create_order_in_app")]
    public Order CreateOrderInApp(string customer, int quantity, Priority priority = Priority.Normal) => store.Create(customer, quantity, priority);
}

// The seed's delegates, as seed 000 writes them: SignInState, SignInDelegate and
// TelemetryDelegate are the samples' (../../samples/Shared, linked in the .csproj).

/// <summary>What the realistic call adds to the app (the other benchmarks' dispatcher leaves it out).</summary>
internal static class RealisticApp
{
    internal static bool Has(Type t) => t == typeof(InAppOrders) || t == typeof(SignInDelegate) || t == typeof(TelemetryDelegate);
}

[MemoryDiagnoser]
public class ExecuteBenchmarks
{
    private const string Args = """{"customer":"acme","quantity":2,"priority":"Normal"}""";
    private static readonly AppFunctionInvocation Invocation = new("create_order");
    private static readonly AppFunctionInvocation SameCallAsCInvocation = new("place_order");
    private ServiceProvider _provider = null!;
    private AppFunctionDispatcher _dispatcher = null!;
    private AppFunctionDispatcher _noTimeout = null!;
    private AIFunction _factory = null!;
    private AIFunction _factorySameCallAsC = null!;
    private AIFunction _appFunction = null!;

    [GlobalSetup]
    public void Setup()
    {
        _provider = new ServiceCollection().AddAppFunctions(o => o.Include = t => !RealisticApp.Has(t)).BuildServiceProvider();
        _dispatcher = _provider.GetRequiredService<AppFunctionDispatcher>();
        _noTimeout = new AppFunctionDispatcher(_provider, new AppFunctionsOptions { DefaultTimeout = Timeout.InfiniteTimeSpan, Include = t => !RealisticApp.Has(t) });
        _factory = AIFunctionFactory.Create(BenchFunctions.CreateOrder, "create_order");
        _factorySameCallAsC = AIFunctionFactory.Create(SameCallAsC.PlaceOrder, "place_order");
        _appFunction = _dispatcher.AsAIFunctions().Single(f => f.Name == "create_order");
        foreach (var inv in new[] { Invocation, SameCallAsCInvocation })
        {
            var check = _dispatcher.Execute(inv, Args).GetAwaiter().GetResult();
            if (check.Status != AppFunctionStatus.Success)
            {
                throw new InvalidOperationException(check.ToJson());
            }
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _noTimeout.Dispose();
        _provider.Dispose();
    }

    /// <summary>The seed's API: await dispatcher.Execute(...) (completes inline here).</summary>
    [Benchmark(Baseline = true)]
    public AppFunctionOutcome Execute() => _dispatcher.Execute(Invocation, Args).GetAwaiter().GetResult();

    /// <summary>The C benchmark's call (string result "ok"): the figure to set beside C's execute/plain.</summary>
    [Benchmark]
    public AppFunctionOutcome ExecuteSameCallAsC() => _dispatcher.Execute(SameCallAsCInvocation, Args).GetAwaiter().GetResult();

    /// <summary>Execute on a dispatcher without the core's default timeout: what arming the
    /// 30 s deadline of an af_execute_async call costs.</summary>
    [Benchmark]
    public AppFunctionOutcome ExecuteWithoutDefaultTimeout() => _noTimeout.Execute(Invocation, Args).GetAwaiter().GetResult();

    /// <summary>The raw outcome JSON, blocking (af_execute_json).</summary>
    [Benchmark]
    public string ExecuteJson() => _dispatcher.ExecuteJson(Invocation, Args);

    /// <summary>The same function through AIFunctionFactory.Create(...).InvokeAsync, arguments parsed from the same JSON.</summary>
    [Benchmark]
    public object? AIFunctionFactoryInvoke() => Invoke(_factory);

    /// <summary>The C benchmark's call through AIFunctionFactory.</summary>
    [Benchmark]
    public object? AIFunctionFactoryInvokeSameCallAsC() => Invoke(_factorySameCallAsC);

    private static object? Invoke(AIFunction function)
    {
        using var doc = JsonDocument.Parse(Args);
        var arguments = new AIFunctionArguments();
        foreach (var p in doc.RootElement.EnumerateObject())
        {
            arguments[p.Name] = p.Value.Clone();
        }
        return function.InvokeAsync(arguments).AsTask().GetAwaiter().GetResult();
    }

    /// <summary>dispatcher.AsAIFunctions(): the core's schema and binding behind an AIFunction.</summary>
    [Benchmark]
    public object? AppFunctionAsAIFunction()
    {
        using var doc = JsonDocument.Parse(Args);
        var arguments = new AIFunctionArguments();
        foreach (var p in doc.RootElement.EnumerateObject())
        {
            arguments[p.Name] = p.Value.Clone();
        }
        return _appFunction.InvokeAsync(arguments).AsTask().GetAwaiter().GetResult();
    }
}

/// <summary>The realistic call (issue 30): <c>await dispatcher.Execute(...)</c> of the seed's
/// <c>create_order</c> arguments to a function of a class from the call's DI scope, through the
/// seed's two delegates (one DI scope per call, as every call has).</summary>
[MemoryDiagnoser]
public class RealisticBenchmarks
{
    private const string Args = """{"customer":"acme","quantity":2,"priority":"Normal"}""";
    private static readonly AppFunctionInvocation Invocation = new("create_order_in_app");
    private ServiceProvider _provider = null!;
    private AppFunctionDispatcher _dispatcher = null!;

    [GlobalSetup]
    public void Setup()
    {
        _provider = new ServiceCollection()
            .AddLogging()
            .AddSingleton<OrderStore>()
            .AddSingleton<SignInState>()
            .AddAppFunctions(o => o.Include = t => t != typeof(BenchFunctions) && t != typeof(SameCallAsC))
            .BuildServiceProvider();
        _dispatcher = _provider.GetRequiredService<AppFunctionDispatcher>();
        var check = _dispatcher.Execute(Invocation, Args).GetAwaiter().GetResult();
        if (check.Status != AppFunctionStatus.Success)
        {
            throw new InvalidOperationException(check.ToJson());
        }
    }

    [GlobalCleanup]
    public void Cleanup() => _provider.Dispose();

    /// <summary>A DI scope, the class resolved from it, SignInDelegate and TelemetryDelegate.</summary>
    [Benchmark]
    public AppFunctionOutcome ExecuteWithScopeAndDelegates() => _dispatcher.Execute(Invocation, Args).GetAwaiter().GetResult();
}

/// <summary>The C figure's call (benches/execute.rs, execute/plain) in a C loop of this process
/// (c/same_call.c, which ci/bench.sh builds and names in <c>APPFUNCTIONS_BENCH_SAME_CALL</c>): the
/// same call as <see cref="ExecuteBenchmarks.ExecuteSameCallAsC"/> without .NET, measured by the
/// same tool at the same moment, so that their ratio is one machine's.</summary>
public unsafe class SameCallInC
{
    private const int Calls = 100;
    private delegate* unmanaged<int, long> _run;

    [GlobalSetup]
    public void Setup()
    {
        var path = Environment.GetEnvironmentVariable("APPFUNCTIONS_BENCH_SAME_CALL");
        if (string.IsNullOrEmpty(path))
        {
            throw new InvalidOperationException("APPFUNCTIONS_BENCH_SAME_CALL names no library: ci/bench.sh builds c/same_call.c and sets it");
        }
        var lib = System.Runtime.InteropServices.NativeLibrary.Load(path);
        var setup = (delegate* unmanaged<int>)System.Runtime.InteropServices.NativeLibrary.GetExport(lib, "afb_same_call_setup");
        _run = (delegate* unmanaged<int, long>)System.Runtime.InteropServices.NativeLibrary.GetExport(lib, "afb_same_call_run");
        var status = setup();
        if (status != 0)
        {
            throw new InvalidOperationException($"afb_same_call_setup failed ({status})");
        }
    }

    /// <summary>af_execute_json and af_string_free in C, the handler answering "ok".</summary>
    [Benchmark(OperationsPerInvoke = Calls)]
    public long SameCallInCLoop()
    {
        long ok = _run(Calls);
        return ok == Calls ? ok : throw new InvalidOperationException($"{Calls - ok} of {Calls} calls failed");
    }
}

/// <summary>One benchmark method in a loop, for a profiler.</summary>
internal static class Loop
{
    internal static int Run(string name, int n)
    {
        object bench = name.StartsWith("ExecuteWithScope", StringComparison.Ordinal) ? new RealisticBenchmarks() : new ExecuteBenchmarks();
        bench.GetType().GetMethod("Setup")!.Invoke(bench, null);
        var method = bench.GetType().GetMethod(name) ?? throw new ArgumentException("no benchmark " + name);
        var call = method.CreateDelegate<Func<AppFunctionOutcome>>(bench);
        for (int round = 0; round < 5; round++)
        {
            var sw = System.Diagnostics.Stopwatch.StartNew();
            for (int i = 0; i < n; i++)
            {
                call();
            }
            Console.WriteLine($"{name}: {sw.Elapsed.TotalNanoseconds / n:F0} ns/call");
        }
        return 0;
    }
}
