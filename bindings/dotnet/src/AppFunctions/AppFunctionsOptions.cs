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

    /// <summary>The name the dispatcher is published under when it is made, so that the platforms'
    /// calls (the Android service, App Intents) reach it, from C# or from Swift; default
    /// <c>"default"</c>; null: not published.</summary>
    public string? PublishAs { get; set; } = PublishedDispatcher.DefaultName;

    /// <summary>How long a platform call that arrives while the app starts (a cold start) waits for
    /// the published dispatcher before it fails (Android: <c>ERROR_SYSTEM_ERROR</c>); default 10 s.</summary>
    public TimeSpan PlatformWaitTimeout { get; set; } = TimeSpan.FromSeconds(10);
}
