import AppFunctions
import Foundation
import XCTest

struct OrderArgs: Codable { var customer: String; var quantity: Int32 }

/// MCP over Streamable HTTP through AppFunctionHttpServer: both eras, streams, refusals,
/// lifetimes (the requests and answers of tests/c/test_http.c).
final class HttpServerTests: XCTestCase {
    var d: AppFunctionDispatcher!

    override func setUpWithError() throws {
        d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("create_order", description: "Creates an order for a customer.") {
            AppFunctionParameter("customer", String.self)
            AppFunctionParameter("quantity", Int32.self)
        }) { (_, a: OrderArgs) -> String in "order for \(a.customer) x\(a.quantity)" }
    }

    override func tearDown() {
        d = nil
    }

    let json: [(name: String, value: String)] = [("Accept", "application/json, text/event-stream"),
                                                 ("Content-Type", "application/json")]
    let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
    let discover = #"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#

    private func post(_ s: AppFunctionHttpServer, _ body: String,
                      _ headers: [(name: String, value: String)]? = nil) throws -> AppFunctionHttpResponse {
        try s.handle(method: "POST", path: "/mcp", headers: headers ?? json, body: Array(body.utf8))
    }

    private func frames(_ stream: AppFunctionHttpStream) throws -> [String] {
        var out: [String] = []
        while true {
            switch try stream.next(timeoutMilliseconds: 10_000) {
            case .frame(let bytes): out.append(String(decoding: bytes, as: UTF8.self))
            case .end: return out
            case .idle: XCTFail("no frame in 10 s"); return out
            }
        }
    }

    private func openSession(_ s: AppFunctionHttpServer) throws -> (String, [(name: String, value: String)]) {
        let sid = try XCTUnwrap(post(s, initialize).header("Mcp-Session-Id"))
        let session = json + [("Mcp-Session-Id", sid), ("MCP-Protocol-Version", "2025-11-25")]
        XCTAssertEqual(try post(s, #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, session).status, 202)
        return (sid, session)
    }

    func testAHandshakeSessionWithACallAnsweredAsAStreamAndDelete() throws {
        let s = try AppFunctionHttpServer(dispatcher: d, configJSON: #"{"mcp":{"serverName":"orders-http"}}"#)
        defer { s.close() }
        let initialized = try post(s, initialize)
        XCTAssertEqual(initialized.status, 200, initialized.bodyText)
        XCTAssertTrue(initialized.bodyText.contains("orders-http"), initialized.bodyText)
        XCTAssertTrue(initialized.header("content-type")?.hasPrefix("application/json") == true, "\(initialized.headers)")
        let sid = try XCTUnwrap(initialized.header("mcp-session-id"), "\(initialized.headers)")
        XCTAssertEqual(sid.count, 32)
        XCTAssertNil(initialized.stream)
        let session = json + [("Mcp-Session-Id", sid), ("MCP-Protocol-Version", "2025-11-25")]
        XCTAssertEqual(try post(s, #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, session).status, 202)
        let list = try post(s, #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#, session)
        XCTAssertEqual(list.status, 200)
        XCTAssertTrue(list.bodyText.contains(#""create_order""#), list.bodyText)

        let call = try post(s, #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"acme","quantity":2}}}"#, session)
        XCTAssertEqual(call.status, 200)
        XCTAssertEqual(call.header("Content-Type"), "text/event-stream")
        XCTAssertEqual(call.body.count, 0)
        let stream = try XCTUnwrap(call.stream)
        let got = try frames(stream)
        stream.close()
        XCTAssertEqual(got.count, 1, "\(got)")
        XCTAssertTrue(got[0].hasPrefix("event: message\ndata: "), got[0])
        XCTAssertTrue(got[0].contains("order for acme x2"), got[0])
        XCTAssertTrue(got[0].contains(#""isError":false"#), got[0])

        XCTAssertEqual(try s.handle(method: "DELETE", path: "/mcp", headers: session).status, 204)
        XCTAssertEqual(try post(s, #"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#, session).status, 404)
    }

    func testTheServerStreamHearsListChangedAndEndsWhenTheServerIsClosed() throws {
        let s = try AppFunctionHttpServer(dispatcher: d)
        let (sid, session) = try openSession(s)
        XCTAssertEqual(try post(s, #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#, session).status, 200)
        let get = try s.handle(method: "GET", path: "/mcp", headers: [("Accept", "text/event-stream"), ("Mcp-Session-Id", sid)])
        XCTAssertEqual(get.status, 200)
        let stream = try XCTUnwrap(get.stream)
        XCTAssertEqual(try stream.next(timeoutMilliseconds: 10), .idle)
        try d.register(descriptorJSON: #"{"id":"ping"}"#) { _, _ in nil }
        let changed = try stream.next(timeoutMilliseconds: 10_000)
        XCTAssertTrue(changed.text?.contains("notifications/tools/list_changed") == true, "\(changed)")
        s.close()
        XCTAssertTrue(s.isClosed)
        XCTAssertEqual(try stream.next(timeoutMilliseconds: 10_000), .end, "the session's stream ended with the server")
        stream.close()
        XCTAssertTrue(stream.isClosed)
        XCTAssertEqual(try stream.next(timeoutMilliseconds: 0), .end, "a closed stream reads as ended")
        XCTAssertThrowsError(try post(s, "{}")) { error in
            XCTAssertTrue("\(error)".contains("closed"), "\(error)")
        }
    }

    func testReleasingTheServerEndsItsSessionsStreams() throws {
        var s: AppFunctionHttpServer? = try AppFunctionHttpServer(dispatcher: d)
        let (sid, _) = try openSession(s!)
        let stream = try XCTUnwrap(s!.handle(method: "GET", path: "/mcp",
                                             headers: [("Accept", "text/event-stream"), ("Mcp-Session-Id", sid)]).stream)
        XCTAssertEqual(try stream.next(timeoutMilliseconds: 10), .idle)
        s = nil // the last reference: deinit frees the exchange
        XCTAssertEqual(try stream.next(timeoutMilliseconds: 10_000), .end)
    }

    func testTheStreamsFramesAsAnAsyncSequence() async throws {
        let s = try AppFunctionHttpServer(dispatcher: d)
        let (_, session) = try openSession(s)
        let call = try post(s, #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"acme","quantity":2}}}"#, session)
        let stream = try XCTUnwrap(call.stream)
        var got: [String] = []
        for try await frame in stream.frames(pollMilliseconds: 200) {
            got.append(String(decoding: frame, as: UTF8.self))
        }
        XCTAssertEqual(got.count, 1, "\(got)")
        XCTAssertTrue(got.first?.contains("order for acme x2") == true, "\(got)")
        for _ in 0..<100 where !stream.isClosed { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertTrue(stream.isClosed, "the sequence's end closed the stream")
        s.close() // no defer: Swift 6.0.3 crashes on defer in some async functions
    }

    func testTheAuthorizationHookSeesTheRequestAndRefusesOrAllowsIt() throws {
        let s = try AppFunctionHttpServer(dispatcher: d, configJSON: #"{"bearerToken":"t0k"}"#)
        let released = Shared(0)
        let token: [(name: String, value: String)] = json + [("Authorization", "Bearer t0k")]
        // each hook alone holds its canary, so the canary's release is the hook's
        try s.setAuthorize { [canary = Canary(released)] _ in canary.touch(); return 403 }
        XCTAssertEqual(try post(s, initialize, token).status, 403, "refused by the hook")
        let seen = Shared<[String]>([])
        try s.setAuthorize { [canary = Canary(released)] request in // replaces the first, which is released
            canary.touch()
            seen.update { $0.append("\(request.method) \(request.path) \(request.query ?? "-") \(request.body.count) \(request.header("x-user") ?? "-")") }
            return request.header("x-user") == "alice" ? nil : 403
        }
        XCTAssertEqual(released.value, 1, "the replaced hook was released")
        XCTAssertEqual(try post(s, initialize, token + [("X-User", "bob")]).status, 403)
        XCTAssertEqual(try s.handle(method: "POST", path: "/mcp", query: "a=1", headers: token + [("X-User", "alice")],
                                    body: Array(initialize.utf8)).status, 200)
        XCTAssertEqual(try post(s, initialize).status, 401, "the bearer token is checked before the hook")
        XCTAssertEqual(seen.value, ["POST /mcp - \(initialize.utf8.count) bob", "POST /mcp a=1 \(initialize.utf8.count) alice"])
        try s.setAuthorize(nil)
        XCTAssertEqual(released.value, 2, "removing the hook released it")
        XCTAssertEqual(try post(s, initialize, token).status, 200, "no hook")
        try s.setAuthorize { [canary = Canary(released)] _ in canary.touch(); return 401 }
        s.close()
        XCTAssertEqual(released.value, 3, "the hook released with the server")
        XCTAssertThrowsError(try s.setAuthorize(nil))
    }

    func testTheStatelessRevisionAndItsHeaderChecks() throws {
        let s = try AppFunctionHttpServer(dispatcher: d)
        defer { s.close() }
        let ok = try post(s, discover, json + [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "server/discover")])
        XCTAssertEqual(ok.status, 200, ok.bodyText)
        XCTAssertTrue(ok.bodyText.contains(#""supportedVersions":["2026-07-28"]"#), ok.bodyText)
        XCTAssertNil(ok.header("Mcp-Session-Id"))
        let noVersion = try post(s, discover)
        XCTAssertEqual(noVersion.status, 400)
        XCTAssertTrue(noVersion.bodyText.contains("-32020"), noVersion.bodyText)
    }

    func testRefusalsBadConfigurationOriginBearerTokenBodyLimitUnknownPath() throws {
        XCTAssertThrowsError(try AppFunctionHttpServer(dispatcher: d, configJSON: #"{"maxBodyBytes":"big"}"#)) { error in
            XCTAssertEqual((error as? AppFunctionError)?.code, .invalidArgument)
            XCTAssertTrue("\(error)".contains("config_json.maxBodyBytes"), "\(error)")
        }
        XCTAssertThrowsError(try AppFunctionHttpServer(dispatcher: d, configJSON: #"{"port":8080}"#)) { error in
            XCTAssertTrue("\(error)".contains("config_json.port: unknown key"), "\(error)")
        }

        let s = try AppFunctionHttpServer(dispatcher: d, configJSON: #"{"bearerToken":"s3cret","maxBodyBytes":64}"#)
        defer { s.close() }
        XCTAssertEqual(s.maxBodyBytes, 64)
        let initBody = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#
        XCTAssertEqual(try post(s, initBody).status, 401, "no bearer token")
        let auth = json + [("Authorization", "Bearer s3cret")]
        XCTAssertEqual(try post(s, initBody, auth + [("Origin", "https://evil.example")]).status, 403, "a foreign origin")
        XCTAssertEqual(try post(s, #"{"pad":""# + String(repeating: "x", count: 100) + #""}"#, auth).status, 413, "over maxBodyBytes")
        XCTAssertEqual(try s.handle(method: "POST", path: "/elsewhere", headers: auth, body: Array(initBody.utf8)).status, 404)
        XCTAssertEqual(try AppFunctionHttpServer(dispatcher: d).maxBodyBytes, 8 * 1024 * 1024)
    }

    func testAHeaderValuesLineBreaksCannotAddAHeader() throws {
        let s = try AppFunctionHttpServer(dispatcher: d, configJSON: #"{"bearerToken":"s3cret"}"#)
        defer { s.close() }
        let initBody = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#
        // the token smuggled on a line of its own in another header's value stays that value
        XCTAssertEqual(try post(s, initBody, json + [("X-Note", "hi\nAuthorization: Bearer s3cret")]).status, 401)
        XCTAssertEqual(try post(s, initBody, json + [("X-Note", "hi\r\nAuthorization: Bearer s3cret")]).status, 401)
        // a NUL cannot end the block before a later header (the Origin check still sees it)
        let origin: [(name: String, value: String)] = [("Authorization", "Bearer s3cret"), ("X-Note", "a\u{0}b"),
                                                       ("Origin", "https://evil.example")]
        XCTAssertEqual(try post(s, initBody, json + origin).status, 403)
        XCTAssertEqual(try post(s, initBody, json + [("Authorization", "Bearer s3cret")]).status, 200, "the token itself works")
    }

    func testManyThreadsHandleRequestsAtOnceAndAStreamReadRacesItsClose() throws {
        let s = try AppFunctionHttpServer(dispatcher: d)
        defer { s.close() }
        let headers = json + [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "server/discover")]
        let body = Array(discover.utf8)
        let statuses = Shared([Int]())
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<50 {
                let status = (try? s.handle(method: "POST", path: "/mcp", headers: headers, body: body).status) ?? -1
                statuses.update { $0.append(status) }
            }
        }
        let all = statuses.value
        XCTAssertEqual(all.count, 400)
        XCTAssertEqual(all.filter { $0 == 200 }.count, 400, "\(Set(all))")

        let (sid, _) = try openSession(s)
        let stream = try XCTUnwrap(s.handle(method: "GET", path: "/mcp",
                                            headers: [("Accept", "text/event-stream"), ("Mcp-Session-Id", sid)]).stream)
        let reading = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let last = Shared<AppFunctionHttpStream.Next?>(nil)
        Thread {
            reading.signal()
            // returns after 0.5 s (nothing comes); the free waits for it
            last.value = try? stream.next(timeoutMilliseconds: 500)
            done.signal()
        }.start()
        XCTAssertEqual(reading.wait(timeout: .now() + 5), .success)
        Thread.sleep(forTimeInterval: 0.02)
        stream.close()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        let read = last.value
        XCTAssertNotNil(read)
        XCTAssertNil(read?.text, "nothing was sent on the stream")
        XCTAssertEqual(try stream.next(timeoutMilliseconds: 0), .end)
    }
}

/// Counts its own release (a hook's box let go by the core).
final class Canary: Sendable {
    let released: Shared<Int>
    init(_ released: Shared<Int>) { self.released = released }
    func touch() {}
    deinit { released.update { $0 += 1 } }
}
