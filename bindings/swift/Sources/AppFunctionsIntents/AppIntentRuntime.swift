import AppFunctions
import Foundation
#if canImport(AppIntents)
import AppIntents
#else
import AppIntentsStandIn
#endif

/// An intent the `swift-app-intents` export generated: it runs the function `appFunctionsId`.
public protocol AppFunctionsIntent: AppIntent {
    static var appFunctionsId: String { get }
}

/// What the generated `perform()` methods and entity queries call: the process's published
/// dispatcher runs each call with platform `.apple` and the intent's foreground state.
///
/// - The dispatcher is the one the app published (`publish()` from Swift, or the app's
///   .NET or Kotlin code under the same name): a call that arrives during a cold start waits
///   up to `timeout` for it.
/// - A gate's `openApp` continues in the foreground with the outcome's message as the
///   dialog (`continueInForeground`, or `requestToContinueInForeground` before iOS 26), then
///   runs the call again with `isForeground` true, which passes the gate.
/// - An error outcome throws `AppFunctionIntentError`, whose description is the core's message.
/// - Cancelling the intent's task cancels the call through the core's cancel token.
public enum AppIntentRuntime {
    /// The publication the intents use (default `"default"`, as every binding's).
    public static var dispatcherName: String {
        get { settings.withLock { $0.name } }
        set { settings.withLock { $0.name = newValue } }
    }

    /// How long a call waits for the app to publish its dispatcher (default 10 s).
    public static var timeout: Duration {
        get { settings.withLock { $0.timeout } }
        set { settings.withLock { $0.timeout = newValue } }
    }

    /// The dialog of a function without a result and without dialog of its own.
    public static var doneDialog: String {
        get { settings.withLock { $0.done } }
        set { settings.withLock { $0.done = newValue } }
    }

    private struct Settings {
        var name = "default"
        var timeout: Duration = .seconds(10)
        var done = "Done."
    }

    private static let settings = RuntimeLock(Settings())

    /// Runs `intent`'s function with `arguments`.
    public static func perform<I: AppFunctionsIntent>(_ intent: I, arguments: AppIntentArguments) async throws -> AppIntentRun {
        let dispatcher = try await publishedDispatcher()
        let json = arguments.json
        var outcome = await dispatcher.execute(
            AppFunctionInvocation(I.appFunctionsId, platform: .apple, isForeground: isForeground(intent)),
            arguments: json)
        if outcome.status == .openApp {
            try Task.checkCancellation()
            try await continueInForeground(intent, outcome.message ?? "Continue in the app.")
            outcome = await dispatcher.execute(
                AppFunctionInvocation(I.appFunctionsId, platform: .apple, isForeground: true),
                arguments: json)
        }
        return try AppIntentRun(outcome, done: doneDialog)
    }

    /// The entities with these ids (`EntityQuery.entities(for:)`), exactly: the app's lookup
    /// answers them through the core (`AppFunctionDispatcher.lookupEntities`,
    /// `af_entities_async`), in the order of `ids`, an unknown id left out, an id given twice
    /// once. The delegates see it as the lookup of an entity parameter (platform apple, not in
    /// the foreground: a gate's `openApp` throws its message, as a query cannot continue in the
    /// app). A failing lookup throws `AppFunctionIntentError` with the core's message
    /// ("looking up order failed: …"); cancelling the task cancels the lookup and throws
    /// `CancellationError`.
    public static func entities<E: AppFunctionsEntity>(_ type: E.Type, ids: [String]) async throws -> [E] {
        let dispatcher = try await publishedDispatcher()
        let outcome = await dispatcher.lookupEntities(
            E.appFunctionsEntityName, ids: ids,
            invocation: AppFunctionInvocation(E.appFunctionsSearchFunction, platform: .apple))
        return try AppIntentRun(outcome, done: "").value([E].self)
    }

    /// The entities the entity's `search_{entity}` finds (`EntityStringQuery`).
    public static func search<E: AppFunctionsEntity>(_ type: E.Type, matching query: String) async throws -> [E] {
        let dispatcher = try await publishedDispatcher()
        var arguments = AppIntentArguments()
        arguments.set("query", query)
        let outcome = await dispatcher.execute(
            AppFunctionInvocation(E.appFunctionsSearchFunction, platform: .apple), arguments: arguments.json)
        return try AppIntentRun(outcome, done: "").value([E].self)
    }

    /// The published dispatcher, waited for up to `timeout`.
    static func publishedDispatcher() async throws -> AppFunctionDispatcher {
        let (name, wait) = settings.withLock { ($0.name, $0.timeout) }
        do {
            return try await AppFunctionDispatcher.waitForPublished(name, timeout: wait)
        } catch let e as AppFunctionError {
            throw AppFunctionIntentError(code: e.code, message: e.message)
        }
    }

    /// Whether the intent runs with the app in the foreground now.
    static func isForeground<I: AppIntent>(_ intent: I) -> Bool {
        if #available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return intent.systemContext.currentMode != .background
        }
        // before iOS 26 only an intent that opens the app when run is in the foreground
        return I.openAppWhenRun
    }

    /// Asks to continue in the app (the person may refuse: that throws).
    static func continueInForeground<I: AppIntent>(_ intent: I, _ message: String) async throws {
        if #available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            try await intent.continueInForeground(IntentDialog("\(message)"))
            return
        }
        #if !os(visionOS)
        if #available(iOS 16.4, macOS 13.3, tvOS 16.4, watchOS 9.4, *),
           let continuable = intent as? any ForegroundContinuableIntent {
            try await continuable.requestToContinueInForeground(IntentDialog("\(message)"))
            return
        }
        #endif
        throw AppFunctionIntentError(code: .denied, message: message)
    }
}

/// The outcome of one intent's call: its dialog and value.
public struct AppIntentRun: Sendable {
    /// The outcome as the core gave it.
    public let outcome: AppFunctionOutcome
    /// The dialog the handler said (`context.say`), else the result as text, else `doneDialog`.
    public let dialogText: String

    init(_ outcome: AppFunctionOutcome, done: String) throws {
        self.outcome = outcome
        switch outcome.status {
        case .success:
            break
        case .error:
            if outcome.errorCode == .cancelled, Task.isCancelled { throw CancellationError() }
            throw AppFunctionIntentError(code: outcome.errorCode, message: outcome.message ?? "The function failed.")
        case .openApp:
            // asked for the app again, in the foreground: refused
            throw AppFunctionIntentError(code: .denied, message: outcome.message ?? "The app could not continue.")
        }
        if let said = outcome.dialog, !said.isEmpty {
            dialogText = said
        } else if let json = outcome.resultJSON, json != "null" {
            dialogText = (try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String)
                .flatMap { $0 } ?? json
        } else {
            dialogText = done
        }
    }

    /// The dialog for `.result(dialog:)`.
    public var dialog: IntentDialog { IntentDialog("\(dialogText)") }

    /// The result as JSON text (records: App Intents returns no records).
    public var resultText: String { outcome.resultJSON ?? "null" }

    /// The result as the intent's value type.
    public func value<T: AppFunctionsValue>(_ type: T.Type) throws -> T {
        let json = outcome.resultJSON ?? "null"
        let any = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        return try T(appFunctionsJSON: any)
    }
}

/// An error outcome (or a dispatcher that was not published in time): its description is
/// the core's message, which Siri shows.
public struct AppFunctionIntentError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// The core's error code (nil where the core gave none).
    public let code: AppFunctionErrorCode?
    public let message: String

    public init(code: AppFunctionErrorCode?, message: String) {
        self.code = code
        self.message = message
    }

    public var errorDescription: String? { message }
    public var description: String { message }
}

#if canImport(AppIntents)
extension AppFunctionIntentError: CustomLocalizedStringResourceConvertible {
    /// What App Intents shows for a thrown error.
    public var localizedStringResource: LocalizedStringResource { "\(message)" }
}
#endif

/// A value under a lock.
final class RuntimeLock<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
