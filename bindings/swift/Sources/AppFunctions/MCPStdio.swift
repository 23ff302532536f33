import CAppFunctions
import Foundation

extension AppFunctionDispatcher {
    /// Serves this dispatcher as an MCP server on the process's stdin and stdout
    /// (newline-delimited JSON-RPC, both protocol eras) until stdin ends, then waits for the
    /// calls in flight; blocks the calling thread. This is how a desktop MCP client (Claude
    /// Desktop, an IDE) runs a local server: nothing else may write to stdout meanwhile (log
    /// to stderr). Tool calls run on the core's workers.
    public func serveMCPStdio() throws {
        guard af_mcp_serve_stdio(raw) == AF_OK else {
            throw AppFunctionError(.internalError, "serveMCPStdio: \(lastError())")
        }
    }

    /// `serveMCPStdio()` on a thread of its own (never on the cooperative pool the handlers
    /// need): returns when stdin has ended and the calls in flight have finished.
    public func serveMCPStdio() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let thread = Thread { [self] in
                do {
                    try self.serveMCPStdio()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "appfunctions-mcp-stdio"
            thread.start()
        }
    }
}
