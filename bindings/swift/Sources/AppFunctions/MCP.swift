import CAppFunctions
import Foundation

extension AppFunctionDispatcher {
    /// Handles one MCP JSON-RPC message (`initialize`, `tools/list`, `tools/call`, ...) on
    /// the dispatcher's own session and returns the response, or nil for a notification.
    /// Malformed messages get JSON-RPC errors.
    ///
    /// The core blocks until a `tools/call` has its outcome, so the call runs on a thread of
    /// its own, never on the cooperative pool the handlers need.
    public func mcpHandle(_ message: String) async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let request = MCPRequest(dispatcher: self, message: message, continuation: continuation)
            let thread = Thread { request.run() }
            thread.name = "appfunctions-mcp"
            thread.start()
        }
    }

    /// Configures the MCP server: `{"serverName", "serverVersion", "serverTitle",
    /// "instructions", "pageSize", "maxMessageBytes"}`, any subset. The dispatcher's own
    /// session starts over.
    public func configureMCP(json: String) throws {
        guard af_mcp_configure(raw, json) == AF_OK else {
            throw AppFunctionError(.invalidArgument, "configureMCP: \(lastError())")
        }
    }

    /// The registry as a tool list: `"mcp"`, `"openai"`, `"openai-chat"`, `"anthropic"`,
    /// `"gemini"` (JSON) or `"android-xml"` (Android's AppFunctions schema).
    public func export(format: String) throws -> String {
        guard let s = takeString(af_export_copy(raw, format)) else {
            throw AppFunctionError(.notSupported, "export(\(format)): \(lastError())")
        }
        return s
    }
}

/// One blocking `af_mcp_handle_json` on its own thread (it keeps the dispatcher alive meanwhile).
private final class MCPRequest: @unchecked Sendable {
    let dispatcher: AppFunctionDispatcher
    let message: String
    let continuation: CheckedContinuation<String?, Never>

    init(dispatcher: AppFunctionDispatcher, message: String, continuation: CheckedContinuation<String?, Never>) {
        self.dispatcher = dispatcher
        self.message = message
        self.continuation = continuation
    }

    func run() {
        continuation.resume(returning: takeString(af_mcp_handle_json(dispatcher.raw, message)))
    }
}

/// Where an MCP session's notifications go: the host's handler and the readers of
/// `notifications`. It holds neither the session nor the dispatcher.
final class NotifyBox: UserDataBox, @unchecked Sendable {
    let handler: (@Sendable (String) -> Void)?
    let readers: Broadcaster<String>?
    init(handler: (@Sendable (String) -> Void)?, readers: Broadcaster<String>?) {
        self.handler = handler
        self.readers = readers
    }
}

let notifyTrampoline: af_mcp_notify_fn = { userData, message in
    guard let message, let b = box(userData, as: NotifyBox.self) else { return }
    let text = String(cString: message)
    b.handler?(text)
    b.readers?.yield(text)
}

/// One MCP connection served from the app (`af_mcp_session_*`): its own negotiation state, its
/// own agent view (collapsed toolkits, conditions over this session's metadata), its calls in
/// flight. Made by `AppFunctionDispatcher.makeMCPSession`; `Sendable`: handle each message as
/// it arrives, several at once. Freed when released (calls in flight finish).
///
/// Server-initiated messages (`notifications/tools/list_changed` when the registry or the
/// session's view changes, and in the 2026-07-28 revision a `subscriptions/listen` stream's
/// messages) go to the transport through the handler given at creation and `notifications`;
/// the session has its sink from the start, so it advertises `listChanged`.
public final class AppFunctionMCPSession: @unchecked Sendable {
    /// `af_mcp_session *`: immutable for the object's lifetime, thread-safe by contract.
    let raw: OpaquePointer
    private let readers = Broadcaster<String>(buffer: 256)

    init(raw: OpaquePointer, onNotification: (@Sendable (String) -> Void)?) {
        self.raw = raw
        _ = af_mcp_session_set_notify(raw, notifyTrampoline,
                                      NotifyBox(handler: onNotification, readers: readers).retainedPointer(),
                                      releaseUserData)
    }

    deinit {
        readers.finish()
        af_mcp_session_free(raw)
    }

    /// Server-initiated messages to send on the transport, from now on (each access is a new
    /// stream keeping up to 256 unread messages; it ends when the session is released). The
    /// handler given to `makeMCPSession` receives the same messages first, on the thread that
    /// caused them.
    public var notifications: AsyncStream<String> { readers.stream() }

    /// Handles one JSON-RPC message and returns the response, or nil when there is none (a
    /// notification, or a cancelled call). A `tools/call` runs on a thread of its own until its
    /// outcome, never on the cooperative pool the handlers need. Cancelling the calling task
    /// sends the session `notifications/cancelled` for the request (as the client would): the
    /// call ends `Cancelled`, its handler's task is cancelled, and this returns nil.
    public func handle(_ message: String) async -> String? {
        let cancelled = Locked(false)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let thread = Thread { [self] in
                    // a task cancelled before the thread started sends nothing at all
                    if cancelled.withLock({ $0 }) { return continuation.resume(returning: nil) }
                    continuation.resume(returning: takeString(af_mcp_session_handle_json(raw, message)))
                }
                thread.name = "appfunctions-mcp-session"
                thread.start()
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
            if let cancel = mcpCancellation(of: message) {
                af_string_free(af_mcp_session_handle_json(raw, cancel))
            }
        }
    }

    /// Replaces the metadata of the session's view (a JSON object); the client gets
    /// `notifications/tools/list_changed`.
    public func setMetadata(json: String) throws {
        guard af_mcp_session_set_metadata(raw, json) == AF_OK else {
            throw AppFunctionError(.invalidArgument, "setMetadata: \(lastError())")
        }
    }

    /// Replaces the metadata with an encoded value (its Codable keys are the properties).
    public func setMetadata(_ metadata: some Encodable) throws {
        try setMetadata(json: AppJSON.encode(metadata))
    }
}

/// `notifications/cancelled` for a request (with its `_meta` envelope, for the 2026-07-28
/// revision), or nil for a message without an id.
func mcpCancellation(of message: String) -> String? {
    guard let request = try? JSONSerialization.jsonObject(with: Data(message.utf8)) as? [String: Any],
          let id = request["id"], !(id is NSNull) else { return nil }
    var params: [String: Any] = ["requestId": id, "reason": "the host cancelled the call"]
    if let meta = (request["params"] as? [String: Any])?["_meta"] { params["_meta"] = meta }
    let note: [String: Any] = ["jsonrpc": "2.0", "method": "notifications/cancelled", "params": params]
    guard let data = try? JSONSerialization.data(withJSONObject: note) else { return nil }
    return String(decoding: data, as: UTF8.self)
}

extension AppFunctionDispatcher {
    /// A new MCP session (one per connection) with its own agent view of `metadataJSON` (a
    /// JSON object). `onNotification` receives the server-initiated messages to send on the
    /// transport (`notifications/tools/list_changed`, ...), on the thread that caused them;
    /// they are also on `session.notifications`.
    public func makeMCPSession(
        metadataJSON: String = "{}", onNotification: (@Sendable (String) -> Void)? = nil
    ) throws -> AppFunctionMCPSession {
        guard let s = af_mcp_session_new(raw, metadataJSON) else {
            throw AppFunctionError(.invalidArgument, "makeMCPSession: \(lastError())")
        }
        return AppFunctionMCPSession(raw: s, onNotification: onNotification)
    }

    /// Where the dispatcher's own session (`mcpHandle`) sends its notifications; nil removes
    /// the sink. Set it before the first message: a session without one does not offer
    /// `listChanged`.
    public func setMCPNotificationHandler(_ handler: (@Sendable (String) -> Void)?) throws {
        let st: af_status
        if let handler {
            st = af_mcp_set_notify(raw, notifyTrampoline, NotifyBox(handler: handler, readers: nil).retainedPointer(), releaseUserData)
        } else {
            st = af_mcp_set_notify(raw, nil, nil, nil)
        }
        guard st == AF_OK else { throw AppFunctionError(.invalidArgument, "setMCPNotificationHandler: \(lastError())") }
    }
}
