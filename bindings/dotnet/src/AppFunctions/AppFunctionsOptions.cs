namespace AppFunctions;

/// <summary>Options of <c>AddAppFunctions()</c> and <see cref="AppFunctionDispatcher"/>.</summary>
public sealed class AppFunctionsOptions
{
    /// <summary>Which generated units to register (by the type they were generated from: a class with
    /// functions, a delegate, an entity, a provider); default: all of them.</summary>
    public Func<Type, bool>? Include { get; set; }

    /// <summary>The timeout of calls whose invocation names none; null keeps the core's default (30 s);
    /// <see cref="Timeout.InfiniteTimeSpan"/>: none.</summary>
    public TimeSpan? DefaultTimeout { get; set; }
}
