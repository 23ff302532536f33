using AppFunctions.Tests.MissingDependency;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

/// <summary>Issue 27.10: a delegate whose services the container lacks fails at startup, named.</summary>
public sealed class DelegateDependencyTests
{
    private static ServiceProvider Build(bool logging)
    {
        var services = new ServiceCollection();
        if (logging)
        {
            services.AddLogging();
        }
        services.AddSingleton<TelemetrySink>();
        services.AddAppFunctions(o => o.Include = t => t.Namespace == typeof(TelemetryDelegate).Namespace);
        return services.BuildServiceProvider();
    }

    [Fact]
    public void An_OnInvoked_only_delegate_without_its_logger_fails_at_startup_naming_both()
    {
        using var sp = Build(logging: false);
        var e = Assert.Throws<AppFunctionRegistrationException>(() => sp.GetRequiredService<AppFunctionDispatcher>());
        Assert.Contains("the delegate AppFunctions.Tests.MissingDependency.TelemetryDelegate needs Microsoft.Extensions.Logging.ILogger<AppFunctions.Tests.MissingDependency.TelemetryDelegate>", e.Message);
        Assert.Contains("services.AddLogging()", e.Message);
    }

    [Fact]
    public async Task With_the_service_registered_the_delegate_runs()
    {
        using var sp = Build(logging: true);
        var o = await sp.GetRequiredService<AppFunctionDispatcher>().Execute(new AppFunctionInvocation("ping"), "{}");
        Assert.Equal(AppFunctionStatus.Success, o.Status);
        var sink = sp.GetRequiredService<TelemetrySink>();
        for (int i = 0; i < 100 && sink.Seen.IsEmpty; i++)
        {
            await Task.Delay(10);
        }
        Assert.Equal("ping", Assert.Single(sink.Seen));
    }
}
