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
