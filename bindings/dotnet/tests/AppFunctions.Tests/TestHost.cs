using System.Collections.Concurrent;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace AppFunctions.Tests;

/// <summary>A DI container with the generated units of one test namespace, and captured logs.</summary>
internal sealed class TestHost : IDisposable
{
    private TestHost(ServiceProvider provider, LogSink logs)
    {
        Provider = provider;
        Logs = logs;
    }

    public ServiceProvider Provider { get; }

    public LogSink Logs { get; }

    public AppFunctionDispatcher Dispatcher => Provider.GetRequiredService<AppFunctionDispatcher>();

    public T Get<T>() where T : notnull => Provider.GetRequiredService<T>();

    public static TestHost Create(string ns, Action<IServiceCollection>? configure = null, Action<AppFunctionsOptions>? options = null)
    {
        var logs = new LogSink();
        var services = new ServiceCollection();
        services.AddLogging(b => b.AddProvider(logs).SetMinimumLevel(LogLevel.Debug));
        configure?.Invoke(services);
        services.AddAppFunctions(o =>
        {
            o.Include = t => t.Namespace == ns;
            options?.Invoke(o);
        });
        return new TestHost(services.BuildServiceProvider(), logs);
    }

    public void Dispose() => Provider.Dispose();
}

internal sealed class LogSink : ILoggerProvider
{
    public ConcurrentQueue<(string Category, LogLevel Level, string Message, Exception? Exception)> Entries { get; } = new();

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    public void Dispose()
    {
    }

    public bool Has(Func<(string Category, LogLevel Level, string Message, Exception? Exception), bool> match) => Entries.Any(match);

    private sealed class Logger(LogSink sink, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            sink.Entries.Enqueue((category, logLevel, formatter(state, exception), exception));
    }
}
