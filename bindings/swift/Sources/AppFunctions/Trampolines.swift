import CAppFunctions
import Foundation

// The C callbacks. Each is a `@convention(c)` closure stored in a global: it recovers its
// box from `user_data`, copies what it needs while the call lends it, and never throws or
// traps across C (a handler's error becomes `af_call_fail`).

/// A handler or entity lookup: takes the call's input JSON, returns the result JSON.
typealias JSONHandler = @Sendable (AppFunctionContext, String) async throws -> String?

/// A handler that answers at once, on the thread that calls it: takes the input JSON the
/// core lends (UTF-8 bytes) and answers through the reply it is given (a result's JSON
/// written into memory of its own, lent to the core: no String made for it), or throws.
typealias InlineHandler = @Sendable (AppFunctionContext, UnsafeBufferPointer<UInt8>, InlineReply) throws -> InlineReply.Answered

/// How an inline handler answers its call (`runInline`): once, after it has run. A call the
/// core cancelled meanwhile (token or timeout) refuses the answer and ends itself, as in the
/// Kotlin and .NET bindings: the core logs the ignored answer (a warning), and no look-up of
/// the call is made before every answer to spare that line.
struct InlineReply {
    let call: CallHandle

    /// What only `answer` makes: an inline handler's closure returns it, so it cannot end
    /// without answering or throwing.
    struct Answered {
        fileprivate init() {}
    }

    /// The result's JSON (NUL-terminated, lent for the call), or nil for none (void).
    func answer(_ json: UnsafePointer<CChar>?) -> Answered {
        _ = af_call_return(call.raw, json)
        return Answered()
    }

    func answer(_ json: String?) -> Answered {
        guard let json else { return answer(nil as UnsafePointer<CChar>?) }
        // (withCString: the implicit conversion copies a short string into a heap array)
        return json.withCString { answer($0) }
    }
}

final class HandlerBox: UserDataBox, @unchecked Sendable {
    /// The handler answers on the calling thread (`inline`), or on a task of its own (`run`).
    /// The other is a stand-in never called: non-optional, a handler is lent to `runInline`
    /// as it is stored, with no copy (a retain and a release of its context per call).
    let isInline: Bool
    let run: JSONHandler
    let inline: InlineHandler
    /// The id of the one function this handler serves, when it is known (a typed
    /// registration): its calls' contexts take it instead of reading it from the call.
    let functionId: String?
    /// False for a handler that takes no arguments: its calls' input is not read (it is given
    /// `{}`, unread).
    let readsInput: Bool
    init(_ run: @escaping JSONHandler, functionId: String? = nil, readsInput: Bool = true) {
        isInline = false
        self.run = run
        inline = { _, _, _ in throw AppFunctionError(.internalError, "not an inline handler") }
        self.functionId = functionId
        self.readsInput = readsInput
    }
    init(inline: @escaping InlineHandler, functionId: String? = nil, readsInput: Bool = true) {
        isInline = true
        run = { _, _ in throw AppFunctionError(.internalError, "not a task handler") }
        self.inline = inline
        self.functionId = functionId
        self.readsInput = readsInput
    }

    /// Runs the handler for `call`: inline, or on a task of its own.
    func handle(_ call: CallHandle) {
        if isInline {
            runInline(inline, call, functionId: functionId, readsInput: readsInput)
        } else {
            startHandler(run, call, functionId: functionId, readsInput: readsInput)
        }
    }
}

final class DelegateBox: UserDataBox, @unchecked Sendable {
    let delegate: any AppFunctionDelegate
    /// The same delegate when it decides without `await` (its gate is answered inline).
    let synchronous: (any AppFunctionSynchronousDelegate)?
    /// The delegate's dynamic type (what `DelegateProbe` compares).
    let delegateType: ObjectIdentifier
    /// Per method, under `lock`: nil until a call of it has returned, then whether it is the
    /// protocol's default (`isDefault`, `learn`). (A lock, not an atomic: `Synchronization`'s
    /// `Atomic` needs iOS 18.)
    private let lock = NSLock()
    private var onInvokingIsDefault: Bool?
    private var onInvokedIsDefault: Bool?

    init(_ delegate: any AppFunctionDelegate) {
        self.delegate = delegate
        synchronous = delegate as? any AppFunctionSynchronousDelegate
        delegateType = ObjectIdentifier(type(of: delegate))
    }

    /// Whether `method` is the protocol's default; nil while no call of it has returned.
    func isDefault(_ method: DelegateMethod) -> Bool? {
        lock.lock()
        defer { lock.unlock() }
        return method == .onInvoking ? onInvokingIsDefault : onInvokedIsDefault
    }

    /// What a call of `method` showed: the default reported itself (`true`), or the call
    /// returned without it (`false`: kept only when nothing was learned yet).
    func learn(_ method: DelegateMethod, isDefault: Bool) {
        lock.lock()
        defer { lock.unlock() }
        switch method {
        case .onInvoking: if isDefault || onInvokingIsDefault == nil { onInvokingIsDefault = isDefault }
        case .onInvoked: if isDefault || onInvokedIsDefault == nil { onInvokedIsDefault = isDefault }
        }
    }

    /// The delegate's `onInvoking`; `probing` (nothing learned yet): with a probe bound, learning
    /// whether it is the default.
    func onInvoking(_ context: AppFunctionContext, probing: Bool) async -> AppFunctionGate {
        guard probing else { return await delegate.onInvoking(context) }
        let gate = await DelegateProbe.$current.withValue(DelegateProbe(self)) { await delegate.onInvoking(context) }
        learn(.onInvoking, isDefault: false)
        return gate
    }

    /// The delegate's `onInvoked`; `probing` as for `onInvoking`.
    func onInvoked(_ context: AppFunctionContext, outcome: AppFunctionOutcome, probing: Bool) {
        guard probing else { return delegate.onInvoked(context, outcome: outcome) }
        DelegateProbe.$current.withValue(DelegateProbe(self)) { delegate.onInvoked(context, outcome: outcome) }
        learn(.onInvoked, isDefault: false)
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

/// A handler's input: its bound arguments, or an entity lookup's request (lent for the call).
private func callInput(_ call: CallHandle, _ context: AppFunctionContext) -> UnsafePointer<CChar>? {
    context.isEntityLookup ? af_call_lookup_request(call.raw) : af_call_args(call.raw)
}

/// Starts a handler or lookup on a new task and completes the call from it.
func startHandler(_ run: @escaping JSONHandler, _ call: CallHandle, functionId: String?, readsInput: Bool) {
    let context = AppFunctionContext(call, functionId: functionId)
    let inputPointer = readsInput ? callInput(call, context) : nil
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
func runInline(_ run: InlineHandler, _ call: CallHandle, functionId: String?, readsInput: Bool) {
    let context = AppFunctionContext(call, functionId: functionId)
    let input = readsInput ? callInput(call, context) : nil
    let reply = InlineReply(call: call)
    do {
        if let input {
            let bytes = UnsafeRawPointer(input).assumingMemoryBound(to: UInt8.self)
            _ = try run(context, UnsafeBufferPointer(start: bytes, count: strlen(input)), reply)
        } else {
            let empty: StaticString = "{}"
            _ = try run(context, UnsafeBufferPointer(start: empty.utf8Start, count: empty.utf8CodeUnitCount), reply)
        }
    } catch {
        // After the core cancelled the call (token or timeout) it ends the call itself.
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
    // (borrowed: the call's registry snapshot holds the handler's user data until the call ends)
    if !withBox(userData, as: HandlerBox.self, { $0.handle(CallHandle(raw: call)) }) {
        _ = af_call_fail(call, AF_CODE_INTERNAL_ERROR, "AppFunctions: the handler's user data is not a HandlerBox")
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
    if let synchronous = b.synchronous {
        // answered before this callback returns: the core goes on on this thread
        answer(g, synchronous.onInvokingNow(AppFunctionContext(CallHandle(raw: call))))
        return
    }
    let isDefault = b.isDefault(.onInvoking)
    if isDefault == true {
        // the protocol's default allows: no task, no context (the core goes on on this thread)
        _ = af_gate_allow(gate)
        return
    }
    let context = AppFunctionContext(CallHandle(raw: call))
    Task { answer(g, await b.onInvoking(context, probing: isDefault == nil)) }
}

let onInvokedTrampoline: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?) -> Void = {
    userData, call, outcomeJSON in
    guard let call, let outcomeJSON, let b = box(userData, as: DelegateBox.self) else { return }
    let isDefault = b.isDefault(.onInvoked)
    // (the protocol's default sees nothing: its outcome is not even read)
    guard isDefault != true else { return }
    b.onInvoked(AppFunctionContext(CallHandle(raw: call)), outcome: AppFunctionOutcome(cString: outcomeJSON),
                probing: isDefault == nil)
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
/// A box whose call ended without its token being cancelled is kept as its thread's spare
/// (`take`, `recycle`), token and all: a call that answers inline allocates nothing here.
final class OutcomeBox: @unchecked Sendable {
    /// The call's cancel token (the task's cancellation handler cancels it): the box's for its
    /// whole life, so the handler never sees another call's.
    let token: OpaquePointer
    /// The task's cancellation handler, made once per box: it cancels the box's token (its
    /// pointer, which the box frees only in `deinit`), and the record it is given to is
    /// removed before the box can go. (A constant: handed to the runtime without a retain.)
    let onCancel: () -> Void
    /// The thread that starts the call (set by `start`).
    private var thread = pthread_self()
    /// The `invocationContexts` key of the invocation's host context (0: none), removed when
    /// the outcome is delivered.
    private(set) var hostKey: UInt = 0
    /// True while `start` runs; written and (by the callback) read on `thread` only.
    private var starting = false
    /// The outcome delivered inline (on `thread`, while starting).
    private var inline: AppFunctionOutcome?
    /// Under `outcomeLock`: an outcome delivered before `wait`, or the waiting continuation.
    private var pending: AppFunctionOutcome?
    private var continuation: UnsafeContinuation<AppFunctionOutcome, Never>?

    private init() {
        let token: OpaquePointer = af_cancel_token_new()
        self.token = token
        onCancel = { _ = af_cancel_token_cancel(token) }
    }

    deinit { af_cancel_token_free(token) }

    /// This thread's spare box (taken out of its slot while in use), or a new one.
    static func take() -> OutcomeBox {
        if let p = pthread_getspecific(outcomeBoxCache) {
            pthread_setspecific(outcomeBoxCache, nil)
            return Unmanaged<OutcomeBox>.fromOpaque(p).takeRetainedValue()
        }
        return OutcomeBox()
    }

    /// After the call's outcome came back and the cancellation record is gone: kept as this
    /// thread's spare unless its token was cancelled or the thread has one. Nothing else holds
    /// the box by then: the core was lent it unretained (`start`), and the outcome's callback
    /// touches it no more once it has handed the outcome over. (`consuming`: the caller's
    /// reference becomes the slot's, with no retain and release.)
    static func recycle(_ box: consuming OutcomeBox) {
        guard af_cancel_token_is_cancelled(box.token) == 0,
              pthread_getspecific(outcomeBoxCache) == nil else { return }
        pthread_setspecific(outcomeBoxCache, Unmanaged.passRetained(box).toOpaque())
    }

    /// Starts the call (`start` given the v1 invocation and the box, lent unretained: the
    /// caller holds it until the outcome is back, and the outcome's callback touches it no
    /// more once it has handed the outcome over): its outcome when
    /// the core delivered it before returning (or it did not start), nil when the caller must
    /// `wait`. Synchronous and not inlined: what it keeps while the core runs is on this
    /// thread's stack.
    @inline(never)
    func start(
        _ invocation: AppFunctionInvocation,
        _ start: (UnsafePointer<af_invocation>, UnsafeMutableRawPointer) -> af_status
    ) -> AppFunctionOutcome? {
        // (a call without a host context inserts nothing: no lock, no table)
        let hostKey = invocation.insertHostContext()
        self.hostKey = hostKey
        thread = pthread_self()
        // (`inline` and `pending` are nil: each outcome put there is moved out, by `start` or
        // by `wait`, before the box can be used again)
        starting = true
        let lent = Unmanaged.passUnretained(self).toOpaque()
        let st = invocation.withCInvocation(token: token, hostKey: hostKey) { start($0, lent) }
        starting = false
        if st != AF_OK {
            // Not started: the callback will not run, so the host context comes back here.
            if hostKey != 0 { invocationContexts.remove(hostKey) }
            return AppFunctionOutcome(failure: st == AF_ERR_UTF8 ? .invalidArgument : .internalError, lastError())
        }
        // (moved out: the box keeps no copy)
        return inline.take()
    }

    func wait(_ c: UnsafeContinuation<AppFunctionOutcome, Never>) {
        outcomeLock.lock()
        if let pending {
            self.pending = nil
            outcomeLock.unlock()
            c.resume(returning: pending)
        } else {
            continuation = c
            outcomeLock.unlock()
        }
    }

    func deliver(_ outcome: consuming AppFunctionOutcome) {
        // (`starting` is read only on its own thread)
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
    // (lent unretained by `OutcomeBox.start`, whose caller holds it until the outcome is handed
    // over: `deliver` is the last that touches it, and no retain or release follows)
    Unmanaged<OutcomeBox>.fromOpaque(userData)._withUnsafeGuaranteedRef { b in
        // the call has ended (the core released its handle first): its host context goes now
        if b.hostKey != 0 { invocationContexts.remove(b.hostKey) }
        // (made here: the outcome is moved into the box, not copied)
        b.deliver(json.map { AppFunctionOutcome(cString: $0) }
            ?? AppFunctionOutcome(failure: .internalError, "the core returned no outcome"))
    }
}

/// Each thread's spare outcome box (released with its thread; its token goes with it).
let outcomeBoxCache: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { p in if let p { Unmanaged<OutcomeBox>.fromOpaque(p).release() } }
    return key
}()

/// The core's log levels.
public enum AppFunctionLogLevel: Int32, Sendable, Comparable {
    case debug = 0, info = 1, warn = 2, error = 3
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
