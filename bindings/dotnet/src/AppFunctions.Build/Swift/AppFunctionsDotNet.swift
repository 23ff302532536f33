// The AppFunctions NuGet package's Swift glue, copied by the app's build beside the generated
// App Intents (AppFunctionsIntents.swift, export format "swift-app-intents"): both go into the
// Xcode target that the MAUI app builds with it (bindings/dotnet/README.md, "iOS, step by step").
//
// The generated intents run through the Swift runtime (AppFunctionsIntents.AppIntentRuntime),
// which waits for the process's published dispatcher. In a .NET app that dispatcher is the C#
// one: AddAppFunctions() publishes it (AppFunctionsOptions.PublishAs, default "default") when
// app.Services.UseAppFunctions() makes it at startup, and the core's one publication table is
// shared by every language in the process. So an intent runs the C# handlers and delegates,
// on platform apple, in the foreground or not, with the open-app rerun, and waits up to
// AppIntentRuntime.timeout for the C# side during a cold start.

import AppFunctionsIntents

/// Points the App Intents at the app's .NET dispatcher.
public enum AppFunctionsDotNet {
    /// The name AddAppFunctions() publishes under unless AppFunctionsOptions.PublishAs says otherwise.
    public static let defaultPublishedName = "default"

    /// How long an intent waits for the C# side by default (AppFunctionsOptions.PlatformWaitTimeout's default).
    public static let defaultTimeout: Duration = .seconds(10)

    /// Only for an app whose C# publishes under another name, or needs a longer cold start:
    /// call it before the first intent runs, with the values of its AppFunctionsOptions.
    public static func use(publishedName: String = defaultPublishedName, timeout: Duration = defaultTimeout) {
        AppIntentRuntime.dispatcherName = publishedName
        AppIntentRuntime.timeout = timeout
    }
}
