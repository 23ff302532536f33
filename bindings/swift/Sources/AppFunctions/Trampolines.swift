import CAppFunctions
import Foundation

// The C callbacks. Each is a `@convention(c)` closure stored in a global: it recovers its
// box from `user_data`, copies what it needs while the call lends it, and never throws or
// traps across C (a handler's error becomes `af_call_fail`).

/// A handler or entity lookup: takes the call's input JSON, returns the result JSON.
typealias JSONHandler = @Sendable (AppFunctionContext, String) async throws -> String?

/// A handler that answers at once, on the thread that calls it: takes the input JSON the
/// core lends (UTF-8 bytes), returns the result JSON.
typealias InlineHandler = @Sendable (AppFunctionContext, UnsafeBufferPointer<UInt8>) throws -> String?

final class HandlerBox: UserDataBox, @unchecked Sendable {
    let run: JSONHandler?
    let inline: InlineHandler?
    /// The id of the one function this handler serves, when it is known (a typed
    /// registration): its calls' contexts take it instead of reading it from the call.
    let functionId: String?
    init(_ run: @escaping JSONHandler, functionId: String? = nil) {
        self.run = run
        inline = nil
        self.functionId = functionId
    }
    init(inline: @escaping InlineHandler, functionId: String? = nil) {
        run = nil
        self.inline = inline
        self.functionId = functionId
    }
}

final class DelegateBox: UserDataBox, @unchecked Sendable {
    let delegate: any AppFunctionDelegate
    /// The same delegate when it decides without `await` (its gate is answered inline).
    let synchronous: (any AppFunctionSynchronousDelegate)?
    init(_ delegate: any AppFunctionDelegate) {
        self.delegate = delegate
        synchronous = delegate as? any AppFunctionSynchronousDelegate
    }
}

final class PermissionBox: UserDataBox, @unchecked Sendable {
    let approve: @Sendable (AppFunctionContext) async -> Bool
    init(_ approve: @escaping @Sendable (AppFunctionContext) async -> Bool) { self.approve = approve }
}

final class ScopeBox: UserDataBox, @unchecked Sendable {
    let begin: @Sendable (AppFunctionContext) -> (any Sendable)?
    let end: (@Sendable (AppFunctionContext, (any Sendable)?) -> Void)?
    init(begin: @escaping @Sendable (AppFunctionContext) -> (any Sendable)?,
         end: (@Sendable (AppFunctionContext, (any Sendable)?) -> Void)?) {
        self.begin = begin
        self.end = end
    }
}

final class LogBox: UserDataBox, @unchecked Sendable {
    let log: @Sendable (AppFunctionLogLevel, String) -> Void
    init(_ log: @escaping @Sendable (AppFunctionLogLevel, String) -> Void) { self.log = log }
}

/// Holds the task running a handler, so a cancellation from the core reaches it.
final class RunningTask: @unchecked Sendable {
    private let state = Locked<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

    func set(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { s -> Bool in
            s.task = task
            return s.cancelled
        }
        if cancelNow { task.cancel() }
    }

    /// True once the core cancelled the call (it then ends the call itself, with
    /// `Cancelled` or `TimedOut`).
    var cancelledByCore: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.cancelled = true
            return s.task
        }
        task?.cancel()
    }
}

/// Running handler tasks by key; the key is the `af_call_on_cancel` user data, removed by
/// its release (the core runs it exactly once: after the cancel callback, when the call
/// ends without one, or at once when it refuses the registration).
let runningTasks = HandleTable<RunningTask>()

let cancelTrampoline: af_cancel_fn = { userData in
    runningTasks.get(UInt(userData: userData))?.cancel()
}

let releaseRunningTask: af_free_fn = { userData in
    runningTasks.remove(UInt(userData: userData))
}

/// Starts a handler or lookup on a new task and completes the call from it.
func startHandler(_ run: @escaping JSONHandler, _ call: CallHandle, functionId: String?) {
    let context = AppFunctionContext(call, functionId: functionId)
    let inputPointer = context.isEntityLookup ? af_call_lookup_request(call.raw) : af_call_args(call.raw)
    let input = inputPointer.map { String(cString: $0) } ?? "{}"
    let running = RunningTask()
    let key = runningTasks.insert(running)
    let task = Task {
        do {
            let result = try await run(context, input)
            if !running.cancelledByCore { complete(call, result) }
        } catch {
            // After the core cancelled the call (token or timeout) it ends the call itself;
            // completing it here would race with that and could report the wrong code.
            if !running.cancelledByCore { fail(call, error) }
        }
    }
    running.set(task)
    _ = af_call_on_cancel(call.raw, cancelTrampoline, key.asUserData, releaseRunningTask, nil)
}

/// Runs an inline handler or lookup on this thread and completes the call before returning.
func runInline(_ run: InlineHandler, _ call: CallHandle, functionId: String?) {
    let context = AppFunctionContext(call, functionId: functionId)
    let input = context.isEntityLookup ? af_call_lookup_request(call.raw) : af_call_args(call.raw)
    do {
        let result: String?
        if let input {
            let bytes = UnsafeRawPointer(input).assumingMemoryBound(to: UInt8.self)
            result = try run(context, UnsafeBufferPointer(start: bytes, count: strlen(input)))
        } else {
            let empty: StaticString = "{}"
            result = try run(context, UnsafeBufferPointer(start: empty.utf8Start, count: empty.utf8CodeUnitCount))
        }
        // After the core cancelled the call (token or timeout) it ends the call itself.
        if af_call_is_cancelled(call.raw) == 0 { complete(call, result) }
    } catch {
        if af_call_is_cancelled(call.raw) == 0 { fail(call, error) }
    }
}

func complete(_ call: CallHandle, _ json: String?) {
    // A late completion (the call was cancelled or timed out) is refused and logged by
    // the core; nothing to do here.
    if let json {
        // (withCString: the implicit conversion copies a short string into a heap array)
        _ = json.withCString { af_call_return(call.raw, $0) }
    } else {
        _ = af_call_return(call.raw, nil)
    }
}

func fail(_ call: CallHandle, _ error: any Error) {
    let code: AppFunctionErrorCode
    let message: String
    switch error {
    case let e as AppFunctionError:
        code = e.code
        message = e.message
    case is CancellationError:
        code = .cancelled
        message = "the handler was cancelled"
    default:
        code = .handlerFailed
        message = String(describing: error)
    }
    _ = af_call_fail(call.raw, code.cValue, message)
}

let handlerTrampoline: af_handler_fn = { userData, call in
    guard let call else { return }
    guard let b = box(userData, as: HandlerBox.self) else {
        _ = af_call_fail(call, AF_CODE_INTERNAL_ERROR, "AppFunctions: the handler's user data is not a HandlerBox")
        return
    }
    if let inline = b.inline {
        runInline(inline, CallHandle(raw: call), functionId: b.functionId)
    } else if let run = b.run {
        startHandler(run, CallHandle(raw: call), functionId: b.functionId)
    }
}

func answer(_ gate: GateHandle, _ g: AppFunctionGate) {
    switch g {
    case .allow: _ = af_gate_allow(gate.raw)
    case .deny(let m): _ = af_gate_deny(gate.raw, m)
    case .openApp(let m): _ = af_gate_open_app(gate.raw, m)
    }
}

let onInvokingTrampoline: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?) -> Void = {
    userData, call, gate in
    guard let gate else { return }
    let g = GateHandle(raw: gate)
    guard let call, let b = box(userData, as: DelegateBox.self) else {
        _ = af_gate_allow(gate)
        return
    }
    let context = AppFunctionContext(CallHandle(raw: call))
    if let synchronous = b.synchronous {
        // answered before this callback returns: the core goes on on this thread
        answer(g, synchronous.onInvokingNow(context))
        return
    }
    let delegate = b.delegate
    Task { answer(g, await delegate.onInvoking(context)) }
}

let onInvokedTrampoline: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?) -> Void = {
    userData, call, outcomeJSON in
    guard let call, let outcomeJSON, let b = box(userData, as: DelegateBox.self) else { return }
    b.delegate.onInvoked(AppFunctionContext(CallHandle(raw: call)),
                         outcome: AppFunctionOutcome(cString: outcomeJSON))
}

let permissionTrampoline: af_permission_fn = { userData, call, gate in
    guard let gate else { return }
    let g = GateHandle(raw: gate)
    guard let call, let b = box(userData, as: PermissionBox.self) else {
        _ = af_gate_deny(gate, "no permission handler")
        return
    }
    let context = AppFunctionContext(CallHandle(raw: call))
    let approve = b.approve
    Task {
        if await approve(context) {
            _ = af_gate_allow(g.raw)
        } else {
            _ = af_gate_deny(g.raw, "The user did not approve \(context.functionId).")
        }
    }
}

/// The host data's release: the core runs it exactly once, right after scope end.
let releaseHostScope: af_free_fn = { userData in
    hostScopes.remove(UInt(userData: userData))
}

let scopeBeginTrampoline: af_scope_fn = { userData, call in
    guard let call, let b = box(userData, as: ScopeBox.self) else { return }
    if let scope = b.begin(AppFunctionContext(CallHandle(raw: call))) {
        let key = hostScopes.insert(scope)
        _ = af_call_set_host_data(call, key.asUserData, releaseHostScope)
    }
}

let scopeEndTrampoline: af_scope_fn = { userData, call in
    guard let call else { return }
    let key = UInt(userData: af_call_host_data(call))
    let scope = key == 0 ? nil : hostScopes.get(key)
    guard let b = box(userData, as: ScopeBox.self) else { return }
    b.end?(AppFunctionContext(CallHandle(raw: call)), scope)
}

let logTrampoline: af_log_fn = { userData, level, message in
    guard let message, let b = box(userData, as: LogBox.self) else { return }
    b.log(AppFunctionLogLevel(rawValue: level) ?? .error, String(cString: message))
}

/// Receives the outcome of `af_execute_async`: on the starting thread while the call is
/// starting it is kept for `runCall` to return at once; otherwise it resumes the waiting task.
final class OutcomeBox: @unchecked Sendable {
    /// The thread that starts the call.
    let thread = pthread_self()
    /// The call's cancel token (the task's cancellation handler cancels it).
    let token: CancelToken
    /// The `invocationContexts` key of the invocation's host context (0: none), removed when
    /// the outcome is delivered.
    let hostKey: UInt
    init(_ token: CancelToken, hostKey: UInt) {
        self.token = token
        self.hostKey = hostKey
    }
    /// True while `start` runs; written and (by the callback) read on `thread` only.
    var starting = true
    /// The outcome delivered inline (on `thread`, while starting).
    var inline: AppFunctionOutcome?
    /// Under `outcomeLock`: an outcome delivered before `wait`, or the waiting continuation.
    private var pending: AppFunctionOutcome?
    private var continuation: UnsafeContinuation<AppFunctionOutcome, Never>?

    func wait(_ c: UnsafeContinuation<AppFunctionOutcome, Never>) {
        outcomeLock.lock()
        if let pending {
            outcomeLock.unlock()
            c.resume(returning: pending)
        } else {
            continuation = c
            outcomeLock.unlock()
        }
    }

    func deliver(_ outcome: AppFunctionOutcome) {
        if pthread_equal(thread, pthread_self()) != 0 && starting {
            inline = outcome
            return
        }
        outcomeLock.lock()
        if let c = continuation {
            continuation = nil
            outcomeLock.unlock()
            c.resume(returning: outcome)
        } else {
            pending = outcome
            outcomeLock.unlock()
        }
    }
}

/// Guards the hand-over of outcomes that arrive on another thread (short sections only).
let outcomeLock = NSLock()

let outcomeTrampoline: af_outcome_fn = { userData, json in
    guard let userData else { return }
    let b = Unmanaged<OutcomeBox>.fromOpaque(userData).takeRetainedValue()
    // the call has ended (the core released its handle first): its host context goes now
    if b.hostKey != 0 { invocationContexts.remove(b.hostKey) }
    b.deliver(json.map { AppFunctionOutcome(cString: $0) }
        ?? AppFunctionOutcome(failure: .internalError, "the core returned no outcome"))
}

/// A core cancellation token for one call. Tokens that were not cancelled are reused: one
/// kept per thread (a call that ended keeps nothing of its token, and no cancellation
/// handler runs after `withTaskCancellationHandler` returned).
struct CancelToken: @unchecked Sendable {
    let raw: OpaquePointer

    static func take() -> CancelToken {
        if let p = pthread_getspecific(cancelTokenCache) {
            pthread_setspecific(cancelTokenCache, nil)
            return CancelToken(raw: OpaquePointer(p))
        }
        return CancelToken(raw: af_cancel_token_new())
    }

    func cancel() { _ = af_cancel_token_cancel(raw) }

    /// Keeps the token for this thread's next call, or frees it.
    func recycle() {
        if af_cancel_token_is_cancelled(raw) == 0 && pthread_getspecific(cancelTokenCache) == nil {
            pthread_setspecific(cancelTokenCache, UnsafeRawPointer(raw))
        } else {
            af_cancel_token_free(raw)
        }
    }
}

/// The per-thread spare token (freed with its thread).
let cancelTokenCache: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { p in af_cancel_token_free(OpaquePointer(p)) }
    return key
}()

/// The core's log levels.
public enum AppFunctionLogLevel: Int32, Sendable, Comparable {
    case debug = 0, info = 1, warn = 2, error = 3
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
