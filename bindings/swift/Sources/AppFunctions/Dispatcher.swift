import CAppFunctions
import Foundation

/// The registry of functions, entities and delegates, and the entry point of every call.
///
/// Thread-safe (the core dispatcher is), so it is `Sendable`. What it registers (handlers,
/// lookups, delegates, hooks) is released when the dispatcher is released and no call uses
/// it any more. Handlers and delegates must not hold the dispatcher strongly: capture it
/// `weak` or `unowned` when a handler calls back into it, or the two keep each other alive.
public final class AppFunctionDispatcher: @unchecked Sendable {
    /// `af_dispatcher *`: immutable for the object's lifetime, thread-safe by contract.
    let raw: OpaquePointer
    /// Names of enums and records already defined in the core (each is defined once).
    private let definedTypes = Locked<Set<String>>([])
    /// The agent views made from this dispatcher, told when its registry changes.
    let views = ViewRegistry()

    public init() {
        _ = AppFunctionsLibrary.checkedABI
        raw = af_dispatcher_new()
    }

    /// A second handle to a published dispatcher (`af_dispatcher_published_new`): releasing it
    /// frees only the handle.
    init(publishedHandle: OpaquePointer) {
        raw = publishedHandle
    }

    deinit {
        af_dispatcher_free(raw)
    }

    // MARK: Registering

    /// Registers a function whose handler takes `Args` (decoded from the bound arguments,
    /// keyed by parameter name) and returns `Result` (encoded as the declared result type).
    /// Named enums and records the descriptor uses are defined on the way. A thrown
    /// `AppFunctionError` ends the call with its code; any other error is `HandlerFailed`.
    ///
    /// An `async` handler runs on a task of its own: the call's timeout and cancellation end
    /// the call even while it is still running. A handler that does not `await` (see the
    /// synchronous overload) runs inline instead.
    public func register<Args: Decodable, Result: AppFunctionValue & Encodable>(
        _ descriptor: AppFunctionDescriptor,
        handler: @escaping @Sendable (AppFunctionContext, Args) async throws -> Result
    ) throws {
        let id = descriptor.id
        try register(descriptor, result: Result.self, HandlerBox({ context, json in
            let args = try decodeArguments(Args.self, json, function: id)
            return try AppJSON.encode(try await handler(context, args))
        }, functionId: id, readsInput: Args.self != NoArguments.self))
    }

    /// Registers a function whose handler answers at once (a closure without `await`): it
    /// runs inline, on the thread that runs the call (the caller's for `execute`, which then
    /// returns without suspending), with no task of its own. Don't block in it: a blocking
    /// handler holds that thread, and a timeout ends the call only when it returns; use an
    /// `async` handler for slow work.
    public func register<Args: Decodable, Result: AppFunctionValue & Encodable>(
        _ descriptor: AppFunctionDescriptor,
        handler: @escaping @Sendable (AppFunctionContext, Args) throws -> Result
    ) throws {
        let id = descriptor.id
        try register(descriptor, result: Result.self, HandlerBox(inline: { context, input, reply in
            let args = try decodeArguments(Args.self, input, function: id)
            return try JSONWriter.answer(try handler(context, args), reply)
        }, functionId: id, readsInput: Args.self != NoArguments.self))
    }

    /// Registers a function without a result (`void`).
    public func register<Args: Decodable>(
        _ descriptor: AppFunctionDescriptor,
        handler: @escaping @Sendable (AppFunctionContext, Args) async throws -> Void
    ) throws {
        let id = descriptor.id
        try register(descriptor, result: nil, HandlerBox({ context, json in
            try await handler(context, try decodeArguments(Args.self, json, function: id))
            return nil
        }, functionId: id, readsInput: Args.self != NoArguments.self))
    }

    /// Registers a function without a result (`void`) whose handler answers at once: it
    /// runs inline, as for the synchronous overload with a result.
    public func register<Args: Decodable>(
        _ descriptor: AppFunctionDescriptor,
        handler: @escaping @Sendable (AppFunctionContext, Args) throws -> Void
    ) throws {
        let id = descriptor.id
        try register(descriptor, result: nil, HandlerBox(inline: { context, input, reply in
            try handler(context, try decodeArguments(Args.self, input, function: id))
            return reply.answer(nil as String?)
        }, functionId: id, readsInput: Args.self != NoArguments.self))
    }

    /// Registers a function whose handler takes only its context: a function without
    /// parameters, or one whose handler reads none of its bound arguments (the core still binds
    /// and checks them, and `context.argumentsJSON` has them). What a handler taking
    /// `NoArguments` does, one closure less: nothing is read or decoded for the call. `async`:
    /// it runs on a task of its own, as for the overloads with arguments.
    public func register<Result: AppFunctionValue & Encodable>(
        _ descriptor: AppFunctionDescriptor,
        handler: @escaping @Sendable (AppFunctionContext) async throws -> Result
    ) throws {
        try register(descriptor, result: Result.self, HandlerBox({ context, _ in
            try AppJSON.encode(try await handler(context))
        }, functionId: descriptor.id, readsInput: false))
    }

    /// Registers a function whose handler takes only its context and answers at once (no
    /// `await`): it runs inline, as for the synchronous overload with arguments.
    public func register<Result: AppFunctionValue & Encodable>(
        _ descriptor: AppFunctionDescriptor,
        handler: @escaping @Sendable (AppFunctionContext) throws -> Result
    ) throws {
        try register(descriptor, result: Result.self, HandlerBox(inline: { context, _, reply in
            try JSONWriter.answer(try handler(context), reply)
        }, functionId: descriptor.id, readsInput: false))
    }

    /// Registers a function without a result (`void`) whose handler takes only its context.
    public func register(
        _ descriptor: AppFunctionDescriptor,
        handler: @escaping @Sendable (AppFunctionContext) async throws -> Void
    ) throws {
        try register(descriptor, result: nil, HandlerBox({ context, _ in
            try await handler(context)
            return nil
        }, functionId: descriptor.id, readsInput: false))
    }

    /// Registers a function without a result (`void`) whose handler takes only its context and
    /// answers at once: it runs inline.
    public func register(
        _ descriptor: AppFunctionDescriptor,
        handler: @escaping @Sendable (AppFunctionContext) throws -> Void
    ) throws {
        try register(descriptor, result: nil, HandlerBox(inline: { context, _, reply in
            try handler(context)
            return reply.answer(nil as String?)
        }, functionId: descriptor.id, readsInput: false))
    }

    /// Registers a function from descriptor JSON (docs/descriptors.md) with a handler that
    /// receives the bound arguments JSON and returns the result JSON (nil for void). Named
    /// types it refers to must be defined first (`defineTypes(json:)`).
    public func register(
        descriptorJSON: String,
        handler: @escaping @Sendable (AppFunctionContext, String) async throws -> String?
    ) throws {
        try registerRaw(descriptorJSON, HandlerBox(handler))
    }

    /// Registers a function from descriptor JSON with a handler that answers at once (no
    /// `await`): it runs inline, as for the synchronous typed overload.
    public func register(
        descriptorJSON: String,
        handler: @escaping @Sendable (AppFunctionContext, String) throws -> String?
    ) throws {
        try registerRaw(descriptorJSON, HandlerBox(inline: { context, input, reply in
            reply.answer(try handler(context, String(decoding: input, as: UTF8.self)))
        }))
    }

    /// Registers an output tool (seed 004's `ToolKind.Output`): no handler runs; the model's
    /// arguments, checked against the parameters, are the final result (`outcome.isFinal`),
    /// shaped as `result` (usually a record whose fields are the parameters).
    public func registerOutput<Result: AppFunctionValue>(_ descriptor: AppFunctionDescriptor, result: Result.Type) throws {
        var d = descriptor
        d.kind = .output
        var collector = newCollector()
        d.collectNamedTypes(result: result, into: &collector)
        try define(collector)
        var out = JSONOut(capacity: d.textCapacity)
        d.write(result: Result.appFunctionType, symbol: nil, to: &out)
        try check(out.withCString { af_register_function(raw, $0, nil, nil, nil) }, "registerOutput")
        views.changed()
    }

    /// Defines named enums and records: `{"enums": [...], "records": [...]}`.
    public func defineTypes(json: String) throws {
        try check(af_define_types(raw, json), "defineTypes")
    }

    private func register(_ descriptor: AppFunctionDescriptor, result: (any AppFunctionValue.Type)?, _ box: HandlerBox) throws {
        var collector = newCollector()
        descriptor.collectNamedTypes(result: result, into: &collector)
        try define(collector)
        var out = JSONOut(capacity: descriptor.textCapacity)
        descriptor.write(result: result?.appFunctionType ?? .void, symbol: nil, to: &out)
        // The core owns the retained box from here on, also when registration fails.
        let st = out.withCString { af_register_function(raw, $0, handlerTrampoline, box.retainedPointer(), releaseUserData) }
        try check(st, "register")
        views.changed()
    }

    private func registerRaw(_ descriptorJSON: String, _ box: HandlerBox) throws {
        // The core owns the retained box from here on, also when registration fails.
        let st = af_register_function(raw, descriptorJSON, handlerTrampoline, box.retainedPointer(), releaseUserData)
        try check(st, "register")
        views.changed()
    }

    /// Registers an entity and its generated `search_{entityName}` function. `lookup` answers
    /// both id lookups (resolving a parameter of this entity type) and searches; it goes
    /// through the delegates like any call.
    public func registerEntity<E: AppFunctionEntity>(
        _ type: E.Type,
        lookup: @escaping @Sendable (AppFunctionContext, AppFunctionEntityRequest) async throws -> [E]
    ) throws {
        var collector = newCollector()
        let fields = E.fields // (a result builder's run: asked once)
        for f in fields { collector.visit(f.valueType) }
        try define(collector)
        let box = HandlerBox { context, json in
            let request = try parseEntityRequest(json)
            return try AppJSON.encode(try await lookup(context, request))
        }
        var out = JSONOut()
        E.writeEntityDescriptor(fields: fields, to: &out)
        let st = out.withCString { af_register_entity(raw, $0, handlerTrampoline, box.retainedPointer(), releaseUserData) }
        try check(st, "registerEntity(\(E.entityName))")
        _ = definedTypes.withLock { $0.insert(E.entityName) }
        views.changed()
    }

    /// A collector that skips the types defined already (their definitions are not built
    /// again for every function that uses them).
    private func newCollector() -> AppFunctionTypeCollector {
        var c = AppFunctionTypeCollector()
        c.seen = definedTypes.withLock { $0 }
        return c
    }

    /// Defines the collected enums and records the core does not know yet, in one call.
    private func define(_ c: AppFunctionTypeCollector) throws {
        if c.enums.isEmpty && c.records.isEmpty { return }
        try definedTypes.withLock { defined in
            var doc = JSONOut(capacity: 1024)
            guard c.document(skipping: defined, into: &doc) else { return }
            try check(doc.withCString { af_define_types(raw, $0) }, "defineTypes")
            c.enums.forEachName { defined.insert($0) }
            c.records.forEachName { defined.insert($0) }
        }
    }

    /// Removes a declared function; calls in flight finish with it.
    public func unregister(_ functionId: String) throws {
        try check(af_unregister_function(raw, functionId), "unregister(\(functionId))")
        views.changed()
    }

    /// Enables or disables a function at run time (a disabled one answers `Disabled`).
    public func setEnabled(_ functionId: String, _ enabled: Bool) throws {
        try check(af_set_function_enabled(raw, functionId, enabled ? 1 : 0), "setEnabled(\(functionId))")
        views.changed()
    }

    // MARK: Delegates and hooks

    /// Adds a delegate; delegates run in the order added. An `AppFunctionSynchronousDelegate`
    /// decides inline, on the thread running the call; any other's `onInvoking` runs on a
    /// task of its own. A method left to the protocol's default is called once, where the
    /// dispatcher learns it is the default, and answered without a call from then on (a
    /// default `onInvoking` allows inline).
    public func addDelegate(_ delegate: some AppFunctionDelegate) throws {
        // the v1 af_delegate: struct_size first (the core refuses a smaller one)
        var vtable = af_delegate()
        vtable.struct_size = UInt32(MemoryLayout<af_delegate>.size)
        vtable.on_invoking = onInvokingTrampoline
        vtable.on_invoked = onInvokedTrampoline
        vtable.free_user_data = releaseUserData
        try check(af_add_delegate(raw, &vtable, DelegateBox(delegate).retainedPointer()), "addDelegate")
    }

    /// Asks the user to approve each `requiresPermission` function (like App Intents'
    /// `requestConfirmation`). nil removes it: such functions then answer `PermissionDenied`.
    public func setPermissionHandler(_ approve: (@Sendable (AppFunctionContext) async -> Bool)?) throws {
        if let approve {
            try check(af_set_permission_hook(raw, permissionTrampoline, PermissionBox(approve).retainedPointer(),
                                             releaseUserData), "setPermissionHandler")
        } else {
            try check(af_set_permission_hook(raw, nil, nil, nil), "setPermissionHandler")
        }
    }

    /// Opens a host scope for every call (a DI container, a database session): `begin` runs
    /// first in each call and its value is `context.hostScope` for the delegates, the
    /// handler and the lookups of that call; `end` runs exactly once after the last
    /// `onInvoked`, on every path.
    public func setScopeHooks(
        begin: @escaping @Sendable (AppFunctionContext) -> (any Sendable)?,
        end: (@Sendable (AppFunctionContext, (any Sendable)?) -> Void)? = nil
    ) throws {
        let box = ScopeBox(begin: begin, end: end)
        try check(af_set_scope_hooks(raw, scopeBeginTrampoline, scopeEndTrampoline, box.retainedPointer(),
                                     releaseUserData), "setScopeHooks")
    }

    /// Receives the core's warnings (a second completion, a failing `onInvoked`...).
    public func setLogHandler(_ log: (@Sendable (AppFunctionLogLevel, String) -> Void)?) throws {
        if let log {
            try check(af_set_log_callback(raw, logTrampoline, LogBox(log).retainedPointer(), releaseUserData),
                      "setLogHandler")
        } else {
            try check(af_set_log_callback(raw, nil, nil, nil), "setLogHandler")
        }
    }

    /// Which calling packages may call any function (`""` names in-process callers).
    public func setCallerPolicy(allow: [String] = [], deny: [String] = []) throws {
        try check(af_set_caller_policy(raw, callerPolicyJSON(allow, deny)), "setCallerPolicy")
    }

    /// Which calling packages may call `functionId`, replacing its declared `callers`; an
    /// unknown function throws.
    public func setCallerPolicy(_ functionId: String, allow: [String] = [], deny: [String] = []) throws {
        try check(af_set_function_caller_policy(raw, functionId, callerPolicyJSON(allow, deny)),
                  "setCallerPolicy(\(functionId))")
    }

    private func callerPolicyJSON(_ allow: [String], _ deny: [String]) -> String {
        JSONValue.object([
            ("allow", .array(allow.map { .string($0) })), ("deny", .array(deny.map { .string($0) })),
        ]).text
    }

    /// The limits applied to arguments: the largest input in bytes (default 1 MiB) and the
    /// deepest nesting (default 64); past either a call answers `InvalidArgument`. Both must
    /// be greater than zero (0 throws).
    public func setLimits(maxInputBytes: UInt64, maxDepth: UInt32) throws {
        try check(af_set_limits(raw, maxInputBytes, maxDepth), "setLimits")
    }

    // MARK: Executing

    /// Runs a call: a new scope, binding, delegates, the handler and the outcome. Never
    /// throws: every failure (an unknown function, bad arguments, a refusal, a throwing
    /// handler, cancellation of the calling task) comes back as an outcome.
    ///
    /// `arguments` is a JSON object keyed by the parameters' camelCase names; enums by
    /// member name, entities by id, dates as ISO 8601 strings.
    ///
    /// It runs on the caller's actor (`isolation`, the caller's by default): called from the
    /// main actor it does not hop to another thread and back, and an inline handler answers
    /// on the caller's thread.
    public func execute(
        _ invocation: AppFunctionInvocation, arguments: String = "{}",
        isolation: isolated (any Actor)? = #isolation
    ) async -> AppFunctionOutcome {
        await runCall(invocation, arguments: arguments) { inv, box in
            // (withCString: the implicit conversion copies a short string into a heap array)
            arguments.withCString { af_execute_async(raw, inv, $0, outcomeTrampoline, box) }
        }
    }

    /// Runs a call with arguments encoded from a value (its Codable keys are the parameter
    /// names; dates become ISO 8601 strings).
    public func execute<Arguments: Encodable>(
        _ invocation: AppFunctionInvocation, encoding arguments: Arguments,
        isolation: isolated (any Actor)? = #isolation
    ) async -> AppFunctionOutcome {
        let json: String
        do {
            json = try AppJSON.encode(arguments)
        } catch {
            return AppFunctionOutcome(failure: .invalidArgument, "the arguments could not be encoded: \(error)")
        }
        return await execute(invocation, arguments: json)
    }

    /// Runs a call on this thread and blocks it until the outcome (`af_execute_json`): for
    /// synchronous code. A handler without `await` answers on this thread; an `async` handler
    /// runs on its task while this thread waits, so never call it from a task of Swift
    /// concurrency (it is unavailable from `async` code) nor from the actor such a handler
    /// needs. No task, so nothing to cancel: the invocation's timeout applies.
    @available(*, noasync, message: "blocks the thread: use await execute")
    public func executeBlocking(_ invocation: AppFunctionInvocation, arguments: String = "{}") -> AppFunctionOutcome {
        invocation.withBlockingCInvocation { inv in
            arguments.withCString { takeOutcome(af_execute_json(raw, inv, $0)) }
        }
    }

    /// Runs `functionId` in-process (platform `.other`).
    public func execute(
        _ functionId: String, arguments: String = "{}", isolation: isolated (any Actor)? = #isolation
    ) async -> AppFunctionOutcome {
        await execute(AppFunctionInvocation(functionId), arguments: arguments)
    }

    /// The entities of `entity` with these ids, through the entity's registered lookup
    /// (`af_entities_async`), after the scope hook and the delegates, as when a function takes
    /// the entity: what an entity query by id asks (App Intents' `entities(for:)`). Never
    /// throws: on success `resultJSON` is the JSON array of the entities **in the order of
    /// `ids`** (an id the lookup does not return is left out, an id given twice gives its
    /// entity once); errors are outcomes naming what is wrong (an unknown entity
    /// `invalidArgument`, a failing lookup its code with "looking up order failed: …", a
    /// delegate's refusal, `timedOut`, `limitExceeded` after `shutdown`). `invocation` gives the
    /// platform, foreground, caller and timeout (default: in-process, the dispatcher's default
    /// timeout); its `functionId` is not used. Cancelling the calling task cancels the lookup
    /// (`cancelled`; the lookup's task is cancelled too).
    public func lookupEntities(
        _ entity: String, ids: [String], invocation: AppFunctionInvocation? = nil
    ) async -> AppFunctionOutcome {
        let inv = invocation ?? AppFunctionInvocation("search_\(entity)")
        let idsJSON = JSONValue.array(ids.map { .string($0) }).text
        return await runCall(inv, arguments: idsJSON) { inv, box in
            af_entities_async(raw, inv, entity, idsJSON, outcomeTrampoline, box)
        }
    }

    // MARK: Timeouts and shutdown

    /// The timeout of invocations that name none (default 30 s): a call still running then
    /// ends `TimedOut`, and the log handler gets a warning. nil: no default timeout.
    public func setDefaultTimeout(_ timeout: Duration?) throws {
        let ms = timeout.map { AppFunctionInvocation.milliseconds($0) } ?? 0
        try check(af_dispatcher_set_default_timeout(raw, ms == AF_TIMEOUT_NONE ? 0 : ms), "setDefaultTimeout")
    }

    /// Calls running now (started, their outcome not yet delivered).
    public var inFlight: Int { Int(af_dispatcher_in_flight(raw)) }

    /// Refuses new calls from now on (they end `LimitExceeded`, "the dispatcher is shutting
    /// down", running no handler or delegate) and waits up to `timeout` for the calls in
    /// flight, on this thread. Returns how many still run (0: drained). Idempotent; releasing
    /// the dispatcher afterwards never blocks. Do not call it from a handler or delegate.
    @discardableResult
    public func shutdown(timeout: Duration) -> Int {
        var left: UInt32 = 0
        let ms = timeout <= .zero ? 0 : AppFunctionInvocation.milliseconds(timeout)
        _ = af_dispatcher_shutdown(raw, ms, &left)
        return Int(left)
    }

    // MARK: Reading the registry

    /// The declared functions, then the generated `search_{entity}` ones.
    public var registry: AppFunctionRegistry {
        AppFunctionRegistry(dispatcher: self, json: takeString(af_registry_json(raw)) ?? "{}")
    }

    /// The JSON Schema (draft 2020-12) of a function's parameters.
    public func parametersJSONSchema(_ functionId: String) throws -> String {
        guard let s = takeString(af_parameters_schema_json(raw, functionId)) else {
            throw AppFunctionError(.functionNotFound, lastError())
        }
        return s
    }

    /// The JSON Schema (draft 2020-12) of a function's result (`null` for void).
    public func resultJSONSchema(_ functionId: String) throws -> String {
        guard let s = takeString(af_result_schema_json(raw, functionId)) else {
            throw AppFunctionError(.functionNotFound, lastError())
        }
        return s
    }

    private func check(_ status: af_status, _ what: String) throws {
        guard status == AF_OK else {
            let code: AppFunctionErrorCode = status == AF_ERR_NOT_FOUND ? .functionNotFound
                : status == AF_ERR_LIMIT ? .limitExceeded
                : status == AF_ERR_INTERNAL ? .internalError : .invalidArgument
            let message = lastError()
            // the status's own name, from the core: a duplicate id says it is one
            let name = af_status_name(status).map { String(cString: $0) } ?? "status \(status)"
            throw AppFunctionError(code, "\(what) (\(name)): \(message)", status: name)
        }
    }
}

/// Runs one call through `af_execute_async` or `af_view_execute_async` (`start`, given the
/// filled-in v1 invocation and the outcome box) and awaits its outcome. Cancelling the calling
/// task cancels the call through a core cancel token (`Cancelled`), from before it starts until
/// its outcome is back.
///
/// When everything answers inline (an inline handler, no delegate that awaits) the core
/// delivers the outcome before `start` returns, on this thread: then the call returns it
/// without suspending, and without an `async` frame of its own: the task's cancellation handler
/// is the runtime's record added and removed around the synchronous start (what
/// `withTaskCancellationHandler` does around its `async` operation, less the operation's frame
/// and executor hops). Otherwise it waits on a continuation the outcome resumes, the handler
/// still in place. The start itself is a synchronous function (`OutcomeBox.start`): what it
/// keeps while the core runs is on the thread's stack, not in the task's allocator. The box
/// and its token are this thread's spare when the last call left them unused.
@inline(__always)
func runCall(
    _ invocation: AppFunctionInvocation, arguments: String,
    isolation: isolated (any Actor)? = #isolation,
    start: (UnsafePointer<af_invocation>, UnsafeMutableRawPointer) -> af_status
) async -> AppFunctionOutcome {
    let box = OutcomeBox.take()
    // (runs at once, on this thread, when the task is cancelled already; the box's own
    // closure, made once per box, which outlives the record)
    let record = taskAddCancellationHandler(handler: box.onCancel)
    let outcome: AppFunctionOutcome
    if let inline = box.start(invocation, start) {
        outcome = inline
    } else {
        outcome = await withUnsafeContinuation { (continuation: UnsafeContinuation<AppFunctionOutcome, Never>) in
            box.wait(continuation)
        }
    }
    taskRemoveCancellationHandler(record)
    OutcomeBox.recycle(box)
    return outcome
}

// The Swift runtime's cancellation records, as `withTaskCancellationHandler` adds and removes
// them (its own inlinable code calls these entry points of libswift_Concurrency, part of the
// runtime's ABI): `handler` runs at most once, on the cancelling thread (at once when the task
// is cancelled already), until the record is removed. Only from inside a task.
@_silgen_name("swift_task_addCancellationHandler")
private func taskAddCancellationHandler(handler: () -> Void) -> UnsafeRawPointer

@_silgen_name("swift_task_removeCancellationHandler")
private func taskRemoveCancellationHandler(_ record: UnsafeRawPointer)

extension AppFunctionInvocation {
    /// The header's v1 `af_invocation` of this invocation, lent to `body`: struct_size first,
    /// reserved zero, `host_context` the `invocationContexts` key of `hostContext` (0, NULL:
    /// none). This binding carries its own state in the outcome box, not there: the key is
    /// only the host's value, which `context.invocationContext` reads back.
    func withCInvocation<R>(
        token: OpaquePointer?, hostKey: UInt, _ body: (UnsafePointer<af_invocation>) -> R
    ) -> R {
        functionId.withCString { id in
            withOptionalCString(callerPackage) { caller in
                var inv = af_invocation()
                inv.struct_size = UInt32(MemoryLayout<af_invocation>.size)
                inv.platform = platform.rawValue
                inv.function_id = id
                inv.caller_package = caller
                inv.cancel_token = token
                inv.timeout_ms = timeoutMilliseconds
                inv.is_foreground = isForeground ? 1 : 0
                inv.host_context = hostKey.asUserData
                return body(&inv)
            }
        }
    }

    /// `hostContext` put in `invocationContexts` for one call: its key, 0 when there is none.
    /// The caller removes it once the call's outcome has been delivered.
    @inline(__always)
    func insertHostContext() -> UInt {
        guard hasHostContext, let hostContext else { return 0 }
        return invocationContexts.insert(hostContext)
    }

    /// `withCInvocation` for a blocking call (`af_execute_json`, `af_view_execute_json`, no
    /// cancel token): the call's outcome is delivered before `body` returns, so the host
    /// context is held exactly as long.
    func withBlockingCInvocation<R>(_ body: (UnsafePointer<af_invocation>) -> R) -> R {
        let hostKey = insertHostContext()
        defer { if hostKey != 0 { invocationContexts.remove(hostKey) } }
        return withCInvocation(token: nil, hostKey: hostKey, body)
    }
}

/// The outcome of `af_execute_json` or `af_view_execute_json` (owned; never NULL by contract).
func takeOutcome(_ json: UnsafeMutablePointer<CChar>?) -> AppFunctionOutcome {
    guard let json else { return AppFunctionOutcome(failure: .internalError, "the core returned no outcome") }
    defer { af_string_free(json) }
    return AppFunctionOutcome(cString: json)
}

func decodeArguments<Args: Decodable>(_ type: Args.Type, _ json: String, function: String) throws -> Args {
    var json = json
    return try json.withUTF8 { try decodeArguments(type, $0, function: function) }
}

/// `Args` from the bound arguments' JSON. `NoArguments` is not decoded: it has nothing to read
/// (its handler's input is not even read: `readsInput`), whatever the call's arguments are.
func decodeArguments<Args: Decodable>(_ type: Args.Type, _ json: UnsafeBufferPointer<UInt8>, function: String) throws -> Args {
    if Args.self == NoArguments.self { return unsafeBitCast(NoArguments(), to: Args.self) }
    do {
        return try AppJSON.decode(type, from: json)
    } catch {
        throw AppFunctionError(.handlerFailed,
            "\(function): the bound arguments do not decode into \(Args.self) (does the descriptor match the type?): \(describeDecoding(error))")
    }
}

/// What a decoding error says, with where: "at `order.lines[2].sku`: Expected to decode String
/// but found a number instead." (the members by key, the elements by index).
func describeDecoding(_ error: any Error) -> String {
    guard let e = error as? DecodingError else { return String(describing: error) }
    func at(_ path: [any CodingKey]) -> String {
        if path.isEmpty { return "" }
        var text = ""
        for key in path {
            if key is JSONCodingKey, let i = key.intValue {
                text += "[\(i)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return "at `\(text)`: "
    }
    switch e {
    case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
        return at(c.codingPath) + c.debugDescription
    case .keyNotFound(let key, let c):
        return at(c.codingPath + [key]) + c.debugDescription
    @unknown default:
        return String(describing: e)
    }
}

func parseEntityRequest(_ json: String) throws -> AppFunctionEntityRequest {
    let o = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    if let ids = o?["ids"] as? [String] { return .ids(ids) }
    if let q = o?["query"] as? String {
        return .query(q, limit: (o?["limit"] as? NSNumber)?.intValue)
    }
    throw AppFunctionError(.internalError, "unexpected entity lookup request: \(json)")
}
