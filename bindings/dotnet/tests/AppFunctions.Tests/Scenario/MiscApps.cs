using System.ComponentModel.DataAnnotations;

namespace AppFunctions.Tests.Throwing
{
    public class GuardedFunctions
    {
        /// <summary>Guarded by a delegate that throws.</summary>
        [AppFunction]
        public static string Guarded() => "ran";

        /// <summary>Runs; the delegate's OnInvoked then throws.</summary>
        [AppFunction]
        public static string Plain() => "ran";
    }

    public class ThrowingDelegate : IAppFunctionDelegate
    {
        public Task<AppFunctionGate> OnInvoking(AppFunctionContext context, CancellationToken cancellationToken) =>
            context.FunctionId == "guarded" ? throw new InvalidOperationException("the gate broke") : Task.FromResult(AppFunctionGate.Allow);

        public async Task OnInvoked(AppFunctionContext context, object? result, Exception? exception)
        {
            await Task.Yield();
            throw new InvalidOperationException("telemetry is down");
        }
    }
}

namespace AppFunctions.Tests.Lifecycle
{
    public sealed class Counter
    {
        private int _n;

        public int Next() => Interlocked.Increment(ref _n);
    }

    public class CounterFunctions(Counter counter)
    {
        /// <summary>Counts.</summary>
        [AppFunction]
        public int Count() => counter.Next();
    }

    public class Passthrough : IAppFunctionDelegate
    {
        public Task<AppFunctionGate> OnInvoking(AppFunctionContext context, CancellationToken cancellationToken) => Task.FromResult(AppFunctionGate.Allow);
    }
}

namespace AppFunctions.Tests.Pooling
{
    public class PoolingFunctions
    {
        /// <summary>Answers inline.</summary>
        [AppFunction]
        public static int Now() => 1;

        /// <summary>Answers later, from another thread.</summary>
        [AppFunction]
        public static async Task<int> Later()
        {
            await Task.Delay(1);
            return 2;
        }
    }
}

namespace AppFunctions.Tests.Constrained
{
    public class ConstrainedFunctions
    {
        /// <summary>Orders within limits.</summary>
        [AppFunction]
        public static int Reserve(
            [Range(1, 100)] int quantity,
            [StringLength(8, MinimumLength = 2)] string code,
            [RegularExpression("^[a-z]+$")] string tag,
            [MinLength(1), MaxLength(3)] string[] items,
            HashSet<string> labels) => quantity;
    }
}
