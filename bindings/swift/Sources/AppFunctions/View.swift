import CAppFunctions
import Foundation

/// The tool-list formats of an agent view and of `AppFunctionDispatcher.export(format:)`.
public enum AppFunctionToolFormat: String, Sendable, CaseIterable {
    case mcp = "mcp"
    case openAI = "openai"
    case openAIChat = "openai-chat"
    case anthropic = "anthropic"
    case gemini = "gemini"
}

/// Which text of a toolkit the core asks for (seed 004's `FunctionResult` and `SystemPrompt`).
public enum AppFunctionToolkitText: Sendable {
    /// Returned once, as the container call's result, when the toolkit expands.
    case functionResult
    /// Added to the system instructions every turn while the toolkit is expanded.
    case systemPrompt
}

/// A toolkit (seed 004's `[Collapse]`): functions naming it in their descriptor's `toolkit`
/// belong to it. With a `description` it collapses in agent views into one container tool
/// until the model calls it; `functionResult` is returned once on expansion and
/// `systemPrompt` joins the instructions every turn while it is expanded.
public struct AppFunctionToolkit: Sendable {
    public var name: String
    public var description: String?
    public var functionResult: String?
    public var systemPrompt: String?

    public init(_ name: String, description: String? = nil, functionResult: String? = nil, systemPrompt: String? = nil) {
        self.name = name
        self.description = description
        self.functionResult = functionResult
        self.systemPrompt = systemPrompt
    }

    /// The toolkit's JSON (`af_define_toolkit`), written straight into bytes.
    var jsonOut: JSONOut {
        var out = JSONOut(capacity: 256)
        out.ascii(#"{"name":"#)
        out.string(name)
        out.member(#","description":"#, string: description)
        out.member(#","functionResult":"#, string: functionResult)
        out.member(#","systemPrompt":"#, string: systemPrompt)
        out.byte(0x7D)
        return out
    }

    var json: String { jsonOut.text }
}

/// What one conversation's model sees of a dispatcher: toolkits collapsed into one container
/// tool until called, functions hidden by their `condition` over this view's metadata,
/// `{metadata.X}` placeholders rendered, output tools, and a confirmation for void functions.
/// Made by `AppFunctionDispatcher.makeView`; `Sendable` (the core view is thread-safe); freed
/// when released.
///
/// An agent loop: send `tools()` and `instructions` to the model, run each tool call with
/// `execute`, and fetch the tools again when `generation` moved (or on each element of
/// `generations`). An outcome with `isFinal` is an output tool's structured result: the run
/// ends there.
public final class AppFunctionView: @unchecked Sendable {
    /// `af_view *`: immutable for the object's lifetime, thread-safe by contract.
    let raw: OpaquePointer
    private let changes = Broadcaster<UInt64>()
    private let published = Locked<UInt64>(0)

    init(raw: OpaquePointer) {
        self.raw = raw
        published.withLock { $0 = af_view_generation(raw) }
    }

    deinit {
        changes.finish()
        af_view_free(raw)
    }

    // MARK: What the model sees

    /// What the model sees now, as the JSON tool list of `format`.
    public func tools(format: AppFunctionToolFormat = .mcp) throws -> String {
        guard let s = takeString(af_view_tools_json(raw, format.rawValue)) else {
            throw AppFunctionError(.internalError, "tools(\(format.rawValue)): \(lastError())")
        }
        return s
    }

    /// The names of the tools the model sees now (containers of collapsed toolkits included).
    public var toolNames: [String] {
        guard let text = try? tools(),
              let list = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
        else { return [] }
        return list.compactMap { $0["name"] as? String }
    }

    /// The system prompts of the toolkits expanded now, joined by blank lines ("" when none):
    /// add them to the system instructions every turn.
    public var instructions: String { takeString(af_view_instructions_copy(raw)) ?? "" }

    // MARK: Running what the model called

    /// Runs the tool the model called (`invocation.functionId` is the tool name; platform,
    /// caller and timeout apply as for `AppFunctionDispatcher.execute`). A container expands
    /// its toolkit and answers its `functionResult` text; a hidden or collapsed function is
    /// `FunctionNotFound` saying how to make it visible; an output tool answers its arguments
    /// with `isFinal`; a void function's outcome carries the confirmation as its dialog. Never
    /// throws; cancelling the calling task cancels the call (`Cancelled`).
    ///
    /// Like `AppFunctionDispatcher.execute`, it runs on the caller's actor (`isolation`).
    public func execute(
        _ invocation: AppFunctionInvocation, arguments: String = "{}",
        isolation: isolated (any Actor)? = #isolation
    ) async -> AppFunctionOutcome {
        let outcome = await runCall(invocation, arguments: arguments) { inv, box in
            arguments.withCString { af_view_execute_async(raw, inv, $0, outcomeTrampoline, box) }
        }
        refreshGeneration()
        return outcome
    }

    /// `execute` blocking this thread until the outcome (`af_view_execute_json`), for
    /// synchronous code, as `AppFunctionDispatcher.executeBlocking`.
    @available(*, noasync, message: "blocks the thread: use await execute")
    public func executeBlocking(_ invocation: AppFunctionInvocation, arguments: String = "{}") -> AppFunctionOutcome {
        let outcome = invocation.withBlockingCInvocation { inv in
            arguments.withCString { takeOutcome(af_view_execute_json(raw, inv, $0)) }
        }
        refreshGeneration()
        return outcome
    }

    /// Runs the tool `name` (platform `.other`), in the foreground by default: a view is the
    /// app's own assistant and the user is in the app, so an `openApp` gate passes. Pass
    /// `isForeground: false` for a caller outside the app.
    public func execute(
        _ name: String, arguments: String = "{}", isForeground: Bool = true,
        isolation: isolated (any Actor)? = #isolation
    ) async -> AppFunctionOutcome {
        await execute(AppFunctionInvocation(name, isForeground: isForeground), arguments: arguments)
    }

    // MARK: The conversation's state

    /// Replaces the metadata (a JSON object); conditions and `{metadata.X}` texts follow at once.
    public func setMetadata(json: String) throws {
        guard af_view_set_metadata(raw, json) == AF_OK else {
            throw AppFunctionError(.invalidArgument, "setMetadata: \(lastError())")
        }
        refreshGeneration()
    }

    /// Replaces the metadata with an encoded value (its Codable keys are the properties).
    public func setMetadata(_ metadata: some Encodable) throws {
        try setMetadata(json: AppJSON.encode(metadata))
    }

    /// Collapses every toolkit again (a new conversation on the same view).
    public func reset() {
        _ = af_view_reset(raw)
        refreshGeneration()
    }

    /// The text a void function's outcome carries as its dialog in this view.
    public func setConfirmation(_ text: String) {
        _ = af_view_set_confirmation(raw, text)
    }

    // MARK: Changes

    /// The change counter (`af_view_generation`): it moves whenever what the view shows (its
    /// tools or its instructions) may have changed.
    public var generation: UInt64 { af_view_generation(raw) }

    /// The change counter as an `AsyncSequence`: the current value, then each new one after an
    /// expansion, a metadata change, a reset, or a registry change made through the dispatcher
    /// (registration, enabling, toolkits). Each access is a new stream; it keeps the newest
    /// value when its reader is slow, and ends when the view is released.
    public var generations: AsyncStream<UInt64> {
        changes.stream(current: generation)
    }

    /// Reads the counter again and tells the `generations` readers when it moved.
    @discardableResult
    public func refreshGeneration() -> UInt64 {
        let g = af_view_generation(raw)
        let moved = published.withLock { last -> Bool in
            guard last != g else { return false }
            last = g
            return true
        }
        if moved { changes.yield(g) }
        return g
    }
}

/// Hands each value to every open stream (each stream keeps only its newest value when its
/// reader is slow, unless made with a larger buffer).
final class Broadcaster<Element: Sendable>: @unchecked Sendable {
    private let state = Locked<(next: Int, open: [Int: AsyncStream<Element>.Continuation], finished: Bool)>((0, [:], false))
    private let buffer: Int

    init(buffer: Int = 1) { self.buffer = buffer }

    func stream(current: Element? = nil) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(buffer))
        if let current { continuation.yield(current) }
        let key = state.withLock { s -> Int? in
            if s.finished { return nil }
            s.next += 1
            s.open[s.next] = continuation
            return s.next
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.open.removeValue(forKey: key) }
        }
        return stream
    }

    func yield(_ value: Element) {
        for c in state.withLock({ Array($0.open.values) }) { c.yield(value) }
    }

    func finish() {
        let open = state.withLock { s -> [AsyncStream<Element>.Continuation] in
            s.finished = true
            defer { s.open = [:] }
            return Array(s.open.values)
        }
        for c in open { c.finish() }
    }
}

/// A toolkit's dynamic texts, handed to the core as user data.
final class ToolkitTextsBox: UserDataBox, @unchecked Sendable {
    let texts: @Sendable (AppFunctionToolkitText, String) -> String?
    init(_ texts: @escaping @Sendable (AppFunctionToolkitText, String) -> String?) { self.texts = texts }
}

let toolkitTextTrampoline: af_toolkit_text_fn = { userData, _, which, metadataJSON, out in
    guard let out, let b = box(userData, as: ToolkitTextsBox.self) else { return }
    let kind: AppFunctionToolkitText = which == AF_TOOLKIT_SYSTEM_PROMPT ? .systemPrompt : .functionResult
    let metadata = metadataJSON.map { String(cString: $0) } ?? "{}"
    if let text = b.texts(kind, metadata) {
        _ = af_text_set(out, text)
    }
}

/// Weak references to a dispatcher's views, told when the registry changes.
final class ViewRegistry: @unchecked Sendable {
    private struct Weak { weak var view: AppFunctionView? }
    // (a lock and plain fields, not `Locked`: `changed` runs on every registration, and a
    // generic class's fields are found through its metadata, made at first use)
    private let lock = NSLock()
    private var views: [Weak] = []
    /// How many views were ever added: most registering happens before any, and then
    /// `changed` makes no list.
    private var added = 0

    func add(_ v: AppFunctionView) {
        lock.lock()
        defer { lock.unlock() }
        added += 1
        views.removeAll { $0.view == nil }
        views.append(Weak(view: v))
    }

    func changed() {
        lock.lock()
        let any = added != 0
        lock.unlock()
        if any { refresh() }
    }

    /// (not inlined into `changed`: its types' metadata would be asked for on every call)
    @inline(never) private func refresh() {
        lock.lock()
        let open = views.compactMap(\.view)
        lock.unlock()
        for v in open { v.refreshGeneration() }
    }
}

extension AppFunctionDispatcher {
    /// A new agent view (one conversation's model) with its metadata (a JSON object): what
    /// conditions and `{metadata.X}` placeholders read.
    public func makeView(metadataJSON: String = "{}") throws -> AppFunctionView {
        guard let v = af_view_new(raw, metadataJSON) else {
            throw AppFunctionError(.invalidArgument, "makeView: \(lastError())")
        }
        let view = AppFunctionView(raw: v)
        views.add(view)
        return view
    }

    /// A new agent view with metadata encoded from a value (its Codable keys are the properties).
    public func makeView(metadata: some Encodable) throws -> AppFunctionView {
        try makeView(metadataJSON: AppJSON.encode(metadata))
    }

    /// Defines a toolkit (before the functions naming it). `texts`, when given, answers its
    /// texts from the asking view's metadata (JSON) when needed; nil falls back to the static
    /// text. It runs on the thread that renders the view.
    public func defineToolkit(
        _ toolkit: AppFunctionToolkit,
        texts: (@Sendable (AppFunctionToolkitText, _ metadataJSON: String) -> String?)? = nil
    ) throws {
        var json = toolkit.jsonOut
        let st: af_status
        if let texts {
            let box = ToolkitTextsBox(texts).retainedPointer()
            st = json.withCString { af_define_toolkit(raw, $0, toolkitTextTrampoline, box, releaseUserData) }
        } else {
            st = json.withCString { af_define_toolkit(raw, $0, nil, nil, nil) }
        }
        guard st == AF_OK else { throw AppFunctionError(.invalidArgument, "defineToolkit(\(toolkit.name)): \(lastError())") }
        views.changed()
    }

    /// `defineToolkit` whose texts read the view's metadata decoded as `Metadata` (a metadata
    /// that does not decode gets the static text).
    public func defineToolkit<Metadata: Decodable>(
        _ toolkit: AppFunctionToolkit, metadata: Metadata.Type,
        texts: @escaping @Sendable (AppFunctionToolkitText, Metadata) -> String?
    ) throws {
        try defineToolkit(toolkit) { which, json in
            (try? AppJSON.decode(Metadata.self, from: json)).flatMap { texts(which, $0) }
        }
    }

    /// Declares the metadata schema (a JSON Schema object with `properties`, or an array of
    /// property names): conditions and `{metadata.X}` placeholders registered afterwards must
    /// name its properties (seed 004's `AIFunction<TMetadata>`).
    public func setMetadataSchema(json: String) throws {
        guard af_set_metadata_schema(raw, json) == AF_OK else {
            throw AppFunctionError(.invalidArgument, "setMetadataSchema: \(lastError())")
        }
    }

    /// `setMetadataSchema` from the metadata's property names.
    public func setMetadataSchema(properties: [String]) throws {
        try setMetadataSchema(json: JSONValue.array(properties.map { .string($0) }).text)
    }
}
