import CAppFunctions
import Foundation

/// One call's scope, as handlers, lookups, delegates and hooks see it. It is a value that
/// may be kept and sent anywhere; once its call has ended, writes are ignored and reads
/// answer nil (`platform`, `isForeground`, `callerPackage` and `isEntityLookup` their
/// defaults: `.other`, false, "" and false).
///
/// Only `functionId` is read when the context is made: the rest is read from the call when
/// asked, as in Kotlin and .NET, so a handler that reads nothing pays for nothing.
public struct AppFunctionContext: Sendable {
    let call: CallHandle
    /// The function's id (for entity lookups, `search_{entity}`'s or the function's whose
    /// argument is being resolved).
    public let functionId: String

    /// Where the call comes from (`.other`: in-process, and after the call ended).
    public var platform: AppFunctionPlatform {
        AppFunctionPlatform(rawValue: af_call_platform(call.raw)) ?? .other
    }

    /// Apple: the app is in the foreground for this run.
    public var isForeground: Bool { af_call_is_foreground(call.raw) != 0 }

    /// Android: the calling agent's package ("" in-process or from the shell).
    public var callerPackage: String {
        // (in-process calls have none: no String made for "")
        af_call_caller_package(call.raw).map { $0.pointee == 0 ? "" : String(cString: $0) } ?? ""
    }

    /// True when this is an entity lookup (no arguments).
    public var isEntityLookup: Bool { af_call_kind(call.raw) == AF_CALL_ENTITY_LOOKUP }

    /// `functionId`: the id when the caller knows it already (a handler registered for one
    /// function), so it is not read and copied again.
    init(_ call: CallHandle, functionId: String? = nil) {
        self.call = call
        self.functionId = functionId ?? af_call_function_id(call.raw).map { String(cString: $0) } ?? ""
    }

    /// The bound, normalised arguments JSON (nil for entity lookups or after the call ended).
    public var argumentsJSON: String? {
        af_call_args(call.raw).map { String(cString: $0) }
    }

    /// The called function's normalised descriptor JSON, as in the registry (for an entity
    /// lookup, the function's whose argument is being resolved, or `search_{entity}`'s); nil
    /// after the call ended. Kotlin's `context.descriptor`, .NET's `context.Function`.
    public var descriptorJSON: String? {
        takeString(af_call_descriptor_json(call.raw))
    }

    /// True once the call has been cancelled or has timed out (or has ended).
    public var isCancelled: Bool { af_call_is_cancelled(call.raw) != 0 }

    /// State shared by the delegates and the handler of this call.
    public var items: AppFunctionItems { AppFunctionItems(call: call) }

    /// Sets the text the assistant says (the outcome's `dialog`); the last one wins.
    public func say(_ text: String) {
        _ = af_call_say(call.raw, text)
    }

    /// The text said so far for this call, by `say(_:)` or by any other layer (a delegate, the
    /// entity lookup the call made): the core's dialog; nil when nothing was said yet and once
    /// the call has ended.
    public var dialog: String? {
        takeString(af_call_dialog_copy(call.raw))
    }

    /// Writes to the dispatcher's log (the log handler), prefixed with the function id.
    /// Level: 0 debug, 1 info, 2 warn, 3 error.
    public func log(_ message: String, level: Int32 = 2) {
        _ = af_call_log(call.raw, level, message)
    }

    /// The host scope made by the dispatcher's `setScopeHooks(begin:end:)` for this call
    /// (entity lookups see the scope of the call they serve).
    public var hostScope: (any Sendable)? {
        let key = UInt(userData: af_call_host_data(call.raw))
        return key == 0 ? nil : hostScopes.get(key)
    }

    /// The host scope as a given type.
    public func hostScope<T>(as type: T.Type) -> T? { hostScope as? T }

    /// The `AppFunctionInvocation.hostContext` of the invocation that started this call (for
    /// an entity lookup, of the call it serves): nil when none was set, for a call the library
    /// started itself (an MCP `tools/call`) and once the call's outcome has been delivered.
    /// Kotlin's `context.invocationContext`.
    public var invocationContext: (any Sendable)? {
        let key = UInt(userData: af_call_invocation_context(call.raw))
        return key == 0 ? nil : invocationContexts.get(key)
    }

    /// The invocation's host context as a given type.
    public func invocationContext<T>(as type: T.Type) -> T? { invocationContext as? T }
}

/// Items: JSON values keyed by name, shared by every delegate and the handler of one call.
public struct AppFunctionItems: Sendable {
    let call: CallHandle

    /// Stores `value` (encoded as JSON; dates ISO 8601).
    public func set<T: Encodable>(_ key: String, _ value: T) throws {
        try setJSON(key, AppJSON.encode(value))
    }

    /// Stores JSON text.
    public func setJSON(_ key: String, _ json: String) throws {
        let st = af_call_item_set(call.raw, key, json)
        if st != AF_OK { throw AppFunctionError(.internalError, "items[\(key)]: \(lastError())") }
    }

    /// The item decoded as `T`, or nil when there is none (or it does not decode).
    public func get<T: Decodable>(_ key: String, as type: T.Type = T.self) -> T? {
        guard let json = json(key) else { return nil }
        return try? AppJSON.decode(type, from: json)
    }

    /// The item's JSON text, or nil.
    public func json(_ key: String) -> String? {
        takeString(af_call_item_get_json(call.raw, key))
    }

    public subscript<T: Decodable>(_ key: String, as type: T.Type) -> T? { self.get(key, as: type) }
}

/// Host scopes by key (the C library holds the key as the call's host data).
let hostScopes = HandleTable<any Sendable>()

/// Invocations' host contexts by key (the C library carries the key as the call's
/// `host_context`): inserted when a call with one starts, removed when its outcome has been
/// delivered, so a callback that reads it later finds nothing (never freed memory).
let invocationContexts = HandleTable<any Sendable>()

/// What a delegate answers before the handler runs.
public enum AppFunctionGate: Sendable, Equatable {
    /// Let the call go on.
    case allow
    /// Refuse it: the outcome is `Denied` with this message.
    case deny(String)
    /// Ask for the app: in the foreground the gate passes, on every platform; not in the
    /// foreground, on apple the outcome is `openApp` with this message as its dialog, on
    /// android and other it is `Denied` with the message.
    case openApp(String)
}

/// What cuts across every function: sign-in checks, feature flags, telemetry. Both methods
/// have default implementations; implement only what you need. A method left to its default
/// costs nothing past the delegate's first call: the dispatcher learns there that it is the
/// default and from then on answers for it (`.allow`, or nothing to see) without calling it,
/// so a telemetry delegate that implements only `onInvoked` runs no task per call.
///
/// A delegate is held by the dispatcher until the dispatcher is released: don't let it hold
/// the dispatcher strongly (that would be a cycle).
public protocol AppFunctionDelegate: Sendable {
    /// Runs after the arguments are bound, before the handler (entity lookups too).
    /// Delegates run in the order added; the first that does not allow decides.
    func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate
    /// Sees every outcome, refusals included (synchronously, while the call is still open).
    func onInvoked(_ context: AppFunctionContext, outcome: AppFunctionOutcome)
}

extension AppFunctionDelegate {
    public func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate {
        DelegateProbe.current?.ranDefault(.onInvoking, of: type(of: self))
        return .allow
    }
    public func onInvoked(_ context: AppFunctionContext, outcome: AppFunctionOutcome) {
        DelegateProbe.current?.ranDefault(.onInvoked, of: type(of: self))
    }
}

/// A delegate method as the dispatcher calls it.
enum DelegateMethod { case onInvoking, onInvoked }

/// What a delegate's first call of a method taught: whether its type keeps the protocol's
/// default. Swift cannot tell a default witness from an implementation without calling it, so
/// the dispatcher calls it with a probe bound (`DelegateBox.onInvoking(_:probing:)`,
/// `onInvoked(_:outcome:probing:)`) until a call has returned: the defaults above report to it. Only the
/// default of the probed delegate's own type counts, so another delegate's default run from
/// inside an implementation (a delegate that wraps others) is not mistaken for it; a type that
/// implements a method never reaches its default.
final class DelegateProbe: Sendable {
    @TaskLocal static var current: DelegateProbe?

    let box: DelegateBox
    init(_ box: DelegateBox) { self.box = box }

    func ranDefault(_ method: DelegateMethod, of type: Any.Type) {
        if ObjectIdentifier(type) == box.delegateType { box.learn(method, isDefault: true) }
    }
}

/// A delegate that decides without `await`: its `onInvokingNow` runs inline, on the thread
/// that runs the call, with no task. A delegate's `async` `onInvoking` runs on a task of its
/// own and the call goes on from there, so with it even an inline handler's `execute`
/// suspends; with this one (or none) `execute` returns without suspending. Conform to it
/// when `onInvoking` awaits nothing: a flag read, an item set, a telemetry delegate that only
/// needs `onInvoked` (the default `onInvokingNow` allows). Don't block in it: it holds the
/// calling thread (the caller's actor, for `execute`).
public protocol AppFunctionSynchronousDelegate: AppFunctionDelegate {
    /// `onInvoking`, decided at once on the thread running the call.
    func onInvokingNow(_ context: AppFunctionContext) -> AppFunctionGate
}

extension AppFunctionSynchronousDelegate {
    public func onInvokingNow(_ context: AppFunctionContext) -> AppFunctionGate { .allow }
    /// The same decision for callers of `onInvoking` (the dispatcher calls `onInvokingNow`).
    public func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate { onInvokingNow(context) }
}

/// An entity lookup: by ids (resolving a parameter) or by a search (`search_{entity}`).
public enum AppFunctionEntityRequest: Sendable, Equatable {
    /// Return the entities with these ids; skip unknown ids (an unknown id becomes
    /// `EntityNotFound` in the core).
    case ids([String])
    /// Return the entities matching `query`, at most `limit` when given.
    case query(String, limit: Int?)
}
