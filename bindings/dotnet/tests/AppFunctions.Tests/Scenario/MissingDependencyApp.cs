using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace AppFunctions.Tests.MissingDependency;

public sealed class TelemetrySink
{
    public ConcurrentQueue<string> Seen { get; } = new();
}

/// <summary>Only OnInvoked: a failure to make it would have no outcome to show in.</summary>
public sealed class TelemetryDelegate(ILogger<TelemetryDelegate> logger, TelemetrySink sink) : IAppFunctionDelegate
{
    public Task OnInvoked(AppFunctionContext context, object? result, Exception? exception)
    {
        logger.LogInformation("invoked {Function}", context.FunctionId);
        sink.Seen.Enqueue(context.FunctionId);
        return Task.CompletedTask;
    }
}

public class PingFunctions
{
    /// <summary>Answers pong.</summary>
    [AppFunction]
    public static string Ping() => "pong";
}
