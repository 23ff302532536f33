import CAppFunctions
import Foundation

/// A C handle used by several threads and freed exactly once, never under a call: each use
/// `enter`s and `exit`s; `close` refuses new uses and frees the handle when the last use in
/// progress exits (the last one out frees it). `deinit` frees one nobody closed.
final class SharedHandle: @unchecked Sendable {
    private struct State {
        var raw: OpaquePointer?
        var users = 0
        var closed = false
    }

    private let state: Locked<State>
    private let free: @Sendable (OpaquePointer) -> Void

    init(_ raw: OpaquePointer, free: @escaping @Sendable (OpaquePointer) -> Void) {
        state = Locked(State(raw: raw))
        self.free = free
    }

    deinit {
        // nobody is inside: a use holds this object
        if let raw = state.withLock({ $0.raw }) { free(raw) }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// The handle for one use (balance with `exit`), or nil once closed.
    func enter() -> OpaquePointer? {
        state.withLock { s in
            guard !s.closed, let raw = s.raw else { return nil }
            s.users += 1
            return raw
        }
    }

    func exit() {
        let last: OpaquePointer? = state.withLock { s in
            s.users -= 1
            guard s.closed, s.users == 0, let raw = s.raw else { return nil }
            s.raw = nil
            return raw
        }
        if let last { free(last) }
    }

    /// Refuses new uses; frees the handle now, or when the use in progress exits. Idempotent.
    func close() {
        let now: OpaquePointer? = state.withLock { s in
            s.closed = true
            guard s.users == 0, let raw = s.raw else { return nil }
            s.raw = nil
            return raw
        }
        if let now { free(now) }
    }

    /// `body` with the handle, or nil (body not run) once closed.
    func use<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R? {
        guard let raw = enter() else { return nil }
        defer { exit() }
        return try body(raw)
    }
}

/// MCP over Streamable HTTP (both protocol eras) and the debug page, as the core serves them
/// (`af_http_*`, docs/http.md): hand each HTTP request to `handle` and send back what it
/// answers. Every rule of the transport (sessions and their ids, protocol versions, the
/// `Origin` check, the bearer token, bounds) lives in the core; the app's web server
/// (SwiftNIO, Vapor, Hummingbird, a socket of its own) only carries bytes.
///
/// Thread-safe: handle requests on as many threads as the server has. `close()` (or releasing
/// the last reference) frees it after the requests in progress return: its sessions end (their
/// `GET` streams end) and its worker threads exit.
public final class AppFunctionHttpServer: Sendable {
    private let native: SharedHandle
    /// Kept for the exchange's lifetime: the exchange works over it.
    private let dispatcher: AppFunctionDispatcher

    /// The largest request body accepted: read at most one byte more (a longer body is
    /// answered 413 either way).
    public let maxBodyBytes: Int

    /// An exchange over `dispatcher` configured by `configJSON`: `af_http_server_new`'s keys
    /// (`mcpPath`, `debugPath`, `allowedOrigins`, `bearerToken`, `maxBodyBytes`, `maxSessions`,
    /// `maxStreams`, `maxCalls`, `sessionIdleSeconds`, `metadata`, `mcp`; docs/http.md); nil is
    /// the defaults. Throws `invalidArgument` with the core's message naming a wrong key.
    public init(dispatcher: AppFunctionDispatcher, configJSON: String? = nil) throws {
        let made: OpaquePointer? = if let configJSON {
            af_http_server_new(dispatcher.raw, configJSON)
        } else {
            af_http_server_new(dispatcher.raw, nil)
        }
        guard let raw = made else {
            throw AppFunctionError(.invalidArgument, "af_http_server_new: \(lastError())")
        }
        self.dispatcher = dispatcher
        maxBodyBytes = Int(clamping: af_http_server_max_body_bytes(raw))
        native = SharedHandle(raw) { af_http_server_free($0) }
    }

    deinit {
        native.close()
    }

    /// Frees the exchange once the requests in progress return: its sessions end (their `GET`
    /// streams answer `.end`) and its worker threads exit. Streams handed out stay the
    /// caller's to close. Idempotent; `handle` throws afterwards.
    public func close() {
        native.close()
    }

    public var isClosed: Bool { native.isClosed }

    /// Sets the host's authorization hook, run for every request after the `Origin` and
    /// bearer token checks, on the thread that calls `handle`: return nil to let the request
    /// proceed, or the HTTP status to refuse it with (401, 403). nil removes the hook. A web
    /// server that authorizes before it hands a request over (Vapor's middleware, a NIO
    /// handler) needs none; this is for one that does not. Don't block in it.
    public func setAuthorize(_ authorize: (@Sendable (AppFunctionHttpRequest) -> Int?)?) throws {
        let status: af_status? = native.use { server in
            if let authorize {
                return af_http_server_set_authorize(server, httpAuthorizeTrampoline,
                                                    AuthorizeBox(authorize).retainedPointer(), releaseUserData)
            }
            return af_http_server_set_authorize(server, nil, nil, nil)
        }
        guard let status else { throw AppFunctionError(.invalidArgument, "the AppFunctionHttpServer is closed") }
        guard status == AF_OK else { throw AppFunctionError(.invalidArgument, "setAuthorize: \(lastError())") }
    }

    /// Handles one request. `headers` are the request's header lines as received (names in
    /// any case; a line break or NUL in a name or value becomes a space, so a value cannot add
    /// a header line). A response with a `stream` comes back at once (a `tools/call` runs on
    /// the core's worker): send its status and headers now, then the stream's frames.
    ///
    /// Blocks the calling thread only as long as the core takes to answer (no tool call runs
    /// on it); call it from the web server's request thread or event loop handler.
    public func handle(
        method: String,
        path: String,
        query: String? = nil,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = []
    ) throws -> AppFunctionHttpResponse {
        var block = ""
        for (name, value) in headers {
            block += oneLine(name)
            block += ": "
            block += oneLine(value)
            block += "\n"
        }
        let answered: AppFunctionHttpResponse? = try native.use { server in
            try method.withCString { m in
                try path.withCString { p in
                    try withOptionalCString(query) { q in
                        try block.withCString { h in
                            try body.withUnsafeBufferPointer { b in
                                var request = af_http_request()
                                request.struct_size = UInt32(MemoryLayout<af_http_request>.size)
                                request.body_len = UInt64(b.count)
                                request.method = m
                                request.path = p
                                request.query = q
                                request.headers = h
                                request.body = b.isEmpty ? nil : b.baseAddress
                                guard let r = af_http_handle(server, &request) else {
                                    throw AppFunctionError(.invalidArgument, "af_http_handle: \(lastError())")
                                }
                                return AppFunctionHttpResponse(taking: r)
                            }
                        }
                    }
                }
            }
        }
        guard let response = answered else {
            throw AppFunctionError(.invalidArgument, "the AppFunctionHttpServer is closed")
        }
        return response
    }
}

/// What the authorization hook sees of a request (copied from the core's, for the hook).
public struct AppFunctionHttpRequest: Sendable {
    public let method: String
    public let path: String
    /// The query string without its `?`, or nil when the request has none.
    public let query: String?
    /// The header lines, in order (a name or value's line breaks already spaces).
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]

    init(_ r: UnsafePointer<af_http_request>) {
        let rq = r.pointee
        method = rq.method.map { String(cString: $0) } ?? ""
        path = rq.path.map { String(cString: $0) } ?? ""
        query = rq.query.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        headers = headerLines(rq.headers.map { String(cString: $0) } ?? "")
        if let b = rq.body, rq.body_len > 0 {
            body = Array(UnsafeBufferPointer(start: b, count: Int(rq.body_len)))
        } else {
            body = []
        }
    }

    /// The first header named `name` (in any case), or nil.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

final class AuthorizeBox: UserDataBox, @unchecked Sendable {
    let authorize: @Sendable (AppFunctionHttpRequest) -> Int?
    init(_ authorize: @escaping @Sendable (AppFunctionHttpRequest) -> Int?) { self.authorize = authorize }
}

let httpAuthorizeTrampoline: af_http_authorize_fn = { userData, request in
    guard let request, let b = box(userData, as: AuthorizeBox.self) else { return 0 }
    guard let refused = b.authorize(AppFunctionHttpRequest(request)) else { return 0 }
    return Int32(clamping: refused)
}

/// `Name: value` lines (each ended by `\n`) as pairs, the value trimmed.
func headerLines(_ block: String) -> [(name: String, value: String)] {
    var list: [(name: String, value: String)] = []
    for line in block.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { continue }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        list.append((name: String(line[..<colon]), value: value))
    }
    return list
}

/// A header name or value on one line: CR, LF and NUL (which would end the block early)
/// become spaces.
private func oneLine(_ s: String) -> String {
    guard s.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) else { return s }
    return String(decoding: s.utf8.map { $0 == 0x0A || $0 == 0x0D || $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
}

/// `body` with `s` as a C string, or NULL for nil (a borrowed optional argument of the ABI).
func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) throws -> R) rethrows -> R {
    guard let s else { return try body(nil) }
    return try s.withCString { try body($0) }
}

/// What `AppFunctionHttpServer.handle` answers.
public struct AppFunctionHttpResponse: Sendable {
    /// The HTTP status.
    public let status: Int
    /// The headers to send (`Content-Type` among them), in order.
    public let headers: [(name: String, value: String)]
    /// The body (empty for a stream).
    public let body: [UInt8]
    /// A Server-Sent Events stream to send after the headers, or nil. The caller owns it:
    /// close it when the client goes away or it ends.
    public let stream: AppFunctionHttpStream?

    /// Copies out an `af_http_response` and frees it (its stream, taken, is the caller's).
    init(taking r: OpaquePointer) {
        status = Int(af_http_response_status(r))
        headers = headerLines(takeString(af_http_response_headers_copy(r)) ?? "")
        var length: UInt64 = 0
        if let p = af_http_response_body(r, &length), length > 0 {
            body = Array(UnsafeBufferPointer(start: p, count: Int(length)))
        } else {
            body = []
        }
        stream = af_http_response_take_stream(r).map(AppFunctionHttpStream.init(raw:))
        af_http_response_free(r)
    }

    /// The first header named `name` (in any case), or nil.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A Server-Sent Events stream from the core. Closing it (or releasing it) tells the core the
/// client went away: a 2026-07-28 tool call it carries is cancelled, a subscription ends.
public final class AppFunctionHttpStream: Sendable {
    /// What `next` found.
    public enum Next: Sendable, Equatable {
        /// One complete SSE event (UTF-8) to write and flush.
        case frame([UInt8])
        /// Nothing within the timeout; the stream is open (write `:\n\n` now and then as a
        /// keep-alive: it also finds a client that went away).
        case idle
        /// The stream is over (or closed): finish the response.
        case end
    }

    // enter/exit keeps a next() racing close() from using a freed stream: the last one out frees it
    private let native: SharedHandle

    init(raw: OpaquePointer) {
        native = SharedHandle(raw) { af_http_stream_free($0) }
    }

    deinit {
        native.close()
    }

    /// Waits up to `timeoutMilliseconds` for the next frame, blocking the calling thread (call
    /// it from a thread of the web server, never from a Swift concurrency task: `frames()` is
    /// the async form). Safe to race with `close`: a closed stream answers `.end`.
    public func next(timeoutMilliseconds: Int) throws -> Next {
        let ms = UInt32(clamping: min(max(timeoutMilliseconds, 0), Int(UInt32.max - 1)))
        let read: Result<Next, AppFunctionError>? = native.use { st in
            var frame: UnsafeMutablePointer<CChar>?
            let status = af_http_stream_next_copy(st, ms, &frame)
            if status == AF_ERR_TIMED_OUT { return .success(.idle) }
            guard status == AF_OK else {
                af_string_free(frame)
                return .failure(AppFunctionError(.internalError, "af_http_stream_next_copy: \(lastError())"))
            }
            guard let frame else { return .success(.end) }
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(frame).assumingMemoryBound(to: UInt8.self),
                                                  count: strlen(frame)))
            af_string_free(frame)
            return .success(.frame(bytes))
        }
        return try (read ?? .success(.end)).get()
    }

    /// The stream's frames, read on a thread of its own (the wait blocks, so never on the
    /// cooperative pool), waiting at most `pollMilliseconds` at a time. The sequence finishes
    /// at the stream's end; when it terminates (its end, or the consumer stops or is
    /// cancelled) the stream is closed. Keep-alives are the consumer's (`next` reports
    /// `.idle`; this sequence does not).
    public func frames(pollMilliseconds: Int = 1000) -> AsyncThrowingStream<[UInt8], Error> {
        AsyncThrowingStream { continuation in
            continuation.onTermination = { [self] _ in close() }
            let thread = Thread { [self] in
                do {
                    while true {
                        switch try next(timeoutMilliseconds: pollMilliseconds) {
                        case .frame(let bytes): continuation.yield(bytes)
                        case .idle: continue
                        case .end: return continuation.finish()
                        }
                    }
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            thread.name = "appfunctions-http-stream"
            thread.start()
        }
    }

    /// Frees the stream (after a `next` in progress returns). Idempotent.
    public func close() {
        native.close()
    }

    public var isClosed: Bool { native.isClosed }
}

extension AppFunctionHttpStream.Next {
    /// The frame as UTF-8 text, or nil for `.idle` and `.end`.
    public var text: String? {
        if case .frame(let bytes) = self { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }
}
