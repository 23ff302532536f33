// The seed's telemetry delegate (seed 000), shared by the console sample and the benchmarks.
using AppFunctions;
using Microsoft.Extensions.Logging;

public class TelemetryDelegate(ILogger<TelemetryDelegate> logger) : IAppFunctionDelegate
{
    public Task OnInvoked(AppFunctionContext context, object? result, Exception? exception)
    {
        logger.LogInformation("{Function} from {Platform}: {Outcome}", context.FunctionId, context.Platform, exception?.Message ?? "ok");
        return Task.CompletedTask;
    }
}
