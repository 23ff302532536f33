// The .NET soak (ci/soak.sh runs it after examples/soak.rs): for the given seconds, threads
// run normal calls mixed with the faults a .NET app can inject into the binding (issue
// 28.2): a result whose generated converter throws, sync and after an await; an exception
// whose Message getter throws; a RegisterFunction handler returning invalid JSON after an
// await. No call has a timeout, so a call the binding failed to complete would never end:
// the invariants are that every call ends within 5 s with the expected code, and that
// nothing is left in flight. The last line is `soak (.NET): N passed, M failed`.
using System.Collections.Concurrent;
using System.Diagnostics;
using AppFunctions;
using AppFunctions.Soak;
using Microsoft.Extensions.DependencyInjection;

int seconds = args.Length > 0 ? int.Parse(args[0], System.Globalization.CultureInfo.InvariantCulture) : 20;
int threads = int.TryParse(Environment.GetEnvironmentVariable("SOAK_THREADS"), out var t) ? t : 2;

await using var provider = new ServiceCollection().AddAppFunctions(o => o.DefaultTimeout = Timeout.InfiniteTimeSpan).BuildServiceProvider();
var dispatcher = provider.GetRequiredService<AppFunctionDispatcher>();
dispatcher.RegisterFunction("""{"id":"invalid_json_after_await","parameters":[{"name":"text","type":"string"}],"result":"string"}""", async (_, _) =>
{
    await Task.Yield();
    return "{not json";
});

// id -> the code its outcome must have (null: success)
var plan = new (string Id, AppFunctionErrorCode? Code, string Fault)[]
{
    ("echo", null, ""),
    ("echo_later", null, ""),
    ("throwing_converter", AppFunctionErrorCode.HandlerFailed, "throwing converter (sync)"),
    ("throwing_converter_after_await", AppFunctionErrorCode.HandlerFailed, "throwing converter (after an await)"),
    ("unreadable_exception", AppFunctionErrorCode.HandlerFailed, "exception whose Message throws (sync)"),
    ("unreadable_exception_after_await", AppFunctionErrorCode.HandlerFailed, "exception whose Message throws (after an await)"),
    ("invalid_json_after_await", AppFunctionErrorCode.HandlerFailed, "invalid result JSON (after an await)"),
};
var faults = new ConcurrentDictionary<string, long>();
var failures = new ConcurrentQueue<string>();
long passed = 0;
var deadline = Stopwatch.StartNew();

async Task Traffic(int seed)
{
    var random = new Random(seed);
    while (deadline.Elapsed.TotalSeconds < seconds)
    {
        var (id, code, fault) = plan[random.Next(plan.Length)];
        var call = dispatcher.Execute(new AppFunctionInvocation(id) { Timeout = Timeout.InfiniteTimeSpan }, """{"text":"hé <&>"}""");
        if (await Task.WhenAny(call, Task.Delay(TimeSpan.FromSeconds(5))) != call)
        {
            failures.Enqueue($"{id}: the call did not end within 5 s ({fault})");
            continue;
        }
        var o = await call;
        if (fault.Length > 0)
        {
            faults.AddOrUpdate(fault, 1, (_, n) => n + 1);
        }
        if (o.ErrorCode != code || (code is null && o.ResultJson != "\"hé <&>\""))
        {
            failures.Enqueue($"{id}: {o.Status} {o.ErrorCode} {o.Message} {o.ResultJson} (expected {code?.ToString() ?? "Success"})");
        }
        else
        {
            Interlocked.Increment(ref passed);
        }
    }
}

Console.WriteLine($"[soak .NET] {threads} threads for {seconds} s");
await Task.WhenAll(Enumerable.Range(0, threads).Select(i => Task.Run(() => Traffic(i))));
for (int i = 0; i < 100 && dispatcher.InFlight > 0; i++)
{
    await Task.Delay(50);
}
if (dispatcher.InFlight != 0)
{
    failures.Enqueue($"{dispatcher.InFlight} call(s) still in flight after the traffic stopped");
}
else
{
    passed++;
}
foreach (var (fault, n) in faults.OrderBy(f => f.Key, StringComparer.Ordinal))
{
    Console.WriteLine($"[soak .NET]   fault {fault}: {n}");
}
foreach (var f in failures.Take(20))
{
    Console.WriteLine($"[soak .NET] FAILED: {f}");
}
Console.WriteLine($"soak (.NET): {passed} passed, {failures.Count} failed");
return failures.IsEmpty ? 0 : 1;

namespace AppFunctions.Soak
{
    /// <summary>An exception whose Message getter throws.</summary>
    public sealed class UnreadableException : Exception
    {
        public override string Message => throw new InvalidOperationException("the message cannot be read");
    }

    /// <summary>A result whose generated writer throws (its getter fails).</summary>
    public sealed class Unwritable
    {
        public string Name => throw new InvalidOperationException("the getter failed");
    }

    public class SoakFunctions
    {
        /// <summary>Echoes the text.</summary>
        [AppFunction]
        public static string Echo(string text) => text;

        /// <summary>Echoes the text after an await.</summary>
        [AppFunction]
        public static async Task<string> EchoLater(string text)
        {
            await Task.Yield();
            return text;
        }

        /// <summary>A result its converter cannot write.</summary>
        [AppFunction]
        public static Unwritable ThrowingConverter(string text) => new();

        /// <summary>The same after an await.</summary>
        [AppFunction]
        public static async Task<Unwritable> ThrowingConverterAfterAwait(string text)
        {
            await Task.Yield();
            return new Unwritable();
        }

        /// <summary>Throws an exception whose Message throws.</summary>
        [AppFunction]
        public static string UnreadableException(string text) => throw new UnreadableException();

        /// <summary>The same after an await.</summary>
        [AppFunction]
        public static async Task<string> UnreadableExceptionAfterAwait(string text)
        {
            await Task.Yield();
            throw new UnreadableException();
        }
    }
}
