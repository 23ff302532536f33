using AppFunctions;
using AppFunctions.Generated;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers the app's functions, delegates and entity providers.</summary>
public static class AppFunctionsServiceCollectionExtensions
{
    /// <summary>
    /// Finds the app's <c>[AppFunction]</c> classes, <see cref="IAppFunctionDelegate"/>s and
    /// <see cref="IAppFunctionEntityProvider{TEntity}"/>s (the AppFunctions source generator lists
    /// them at compile time) and registers them as scoped services, plus the
    /// <see cref="AppFunctionDispatcher"/> singleton. Don't register them yourself. Delegates run in
    /// the order of their declarations: by source file path (ordinal), then position in the file.
    /// </summary>
    public static IServiceCollection AddAppFunctions(this IServiceCollection services, Action<AppFunctionsOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        var options = new AppFunctionsOptions();
        configure?.Invoke(options);
        foreach (var unit in AppFunctionCatalog.All)
        {
            if (options.Include?.Invoke(unit.DeclaringType) ?? true)
            {
                unit.ConfigureServices?.Invoke(services);
            }
        }
        services.TryAddSingleton(options);
        services.TryAddSingleton(static sp =>
        {
            var o = sp.GetRequiredService<AppFunctionsOptions>();
            var dispatcher = new AppFunctionDispatcher(sp, o);
            if (o.PublishAs is { } name)
            {
                dispatcher.Publish(name); // the platforms' calls (Android service, App Intents) wait for it
            }
            return dispatcher;
        });
        // known before the dispatcher is made: a platform call during a cold start waits this long
        if (options.PublishAs is { } published)
        {
            AppFunctionsPlatform.PublishedName = published;
        }
        AppFunctionsPlatform.WaitTimeout = options.PlatformWaitTimeout;
        return services;
    }

    /// <summary>
    /// Makes the app's <see cref="AppFunctionDispatcher"/> now, which publishes it (unless
    /// <see cref="AppFunctionsOptions.PublishAs"/> is null): call it once at startup, after the
    /// container is built (MAUI: <c>var app = builder.Build(); app.Services.UseAppFunctions();</c>), so
    /// that Siri's and Gemini's calls find the dispatcher without waiting for a page to ask for it.
    /// </summary>
    public static AppFunctionDispatcher UseAppFunctions(this IServiceProvider services)
    {
        ArgumentNullException.ThrowIfNull(services);
        return services.GetRequiredService<AppFunctionDispatcher>();
    }
}
