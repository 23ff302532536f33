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
                unit.ConfigureServices(services);
            }
        }
        services.TryAddSingleton(options);
        services.TryAddSingleton(static sp => new AppFunctionDispatcher(sp, sp.GetRequiredService<AppFunctionsOptions>()));
        return services;
    }
}
