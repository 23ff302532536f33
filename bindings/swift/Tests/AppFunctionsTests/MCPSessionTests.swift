import AppFunctions
import Foundation
import XCTest

/// MCP sessions served from Swift: per-session views and metadata, list_changed to the host,
/// cancellation of a tool call by cancelling the task.
final class MCPSessionTests: XCTestCase {
    var dispatcher: AppFunctionDispatcher!
    var app: AgentApp!

    override func setUp() async throws {
        dispatcher = AppFunctionDispatcher()
        app = AgentApp()
        try registerAgentApp(on: dispatcher, app: app)
    }

    override func tearDown() async throws {
        dispatcher = nil
    }

    private func json(_ text: String?) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(XCTUnwrap(text).utf8)) as? [String: Any])
    }

    private func open(_ s: AppFunctionMCPSession) async throws {
        let initialize = try json(await s.handle(#"""
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}
            """#))
        let tools = ((initialize["result"] as? [String: Any])?["capabilities"] as? [String: Any])?["tools"] as? [String: Any]
        XCTAssertEqual(tools?["listChanged"] as? Bool, true, "the session has its sink from the start")
        let none = await s.handle(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        XCTAssertNil(none)
    }

    private func toolNames(_ s: AppFunctionMCPSession, id: Int) async throws -> [String] {
        let list = try json(await s.handle(#"{"jsonrpc":"2.0","id":\#(id),"method":"tools/list"}"#))
        let tools = (list["result"] as? [String: Any])?["tools"] as? [[String: Any]] ?? []
        return tools.compactMap { $0["name"] as? String }
    }

    private func call(_ s: AppFunctionMCPSession, id: Int, _ name: String, _ args: String = "{}") async -> String {
        await s.handle(#"{"jsonrpc":"2.0","id":\#(id),"method":"tools/call","params":{"name":"\#(name)","arguments":\#(args)}}"#) ?? ""
    }

    private func isListChanged(_ m: String) -> Bool { m.contains("notifications/tools/list_changed") }

    func testASessionHasItsOwnViewAndTheHostHearsListChanged() async throws {
        let heard = Shared<[String]>([])
        let s = try dispatcher.makeMCPSession { message in heard.update { $0.append(message) } }
        var notifications = s.notifications.makeAsyncIterator()
        try await open(s)
        var names = try await toolNames(s, id: 2)
        XCTAssertTrue(names.contains("database") && !names.contains("query"), "\(names)")
        let expanded = await call(s, id: 3, "database")
        XCTAssertTrue(expanded.contains("Always use transactions"), expanded)
        let next = await notifications.next()
        XCTAssertTrue(isListChanged(next ?? ""), next ?? "nil")
        XCTAssertTrue(heard.value.contains(where: isListChanged), "\(heard.value)")
        names = try await toolNames(s, id: 4)
        XCTAssertTrue(names.contains("query"), "\(names)")
        // another connection is another conversation: still collapsed
        let other = try dispatcher.makeMCPSession()
        try await open(other)
        let otherNames = try await toolNames(other, id: 2)
        XCTAssertFalse(otherNames.contains("query"))
    }

    func testPerSessionMetadataFlipsAConditionAndTheClientIsTold() async throws {
        let s = try dispatcher.makeMCPSession(metadataJSON: #"{"HasAdvancedFeatures":false}"#)
        var notifications = s.notifications.makeAsyncIterator()
        try await open(s)
        var names = try await toolNames(s, id: 2)
        XCTAssertFalse(names.contains("advanced_search"))
        try s.setMetadata(AgentMetadata(HasAdvancedFeatures: true))
        let next = await notifications.next()
        XCTAssertTrue(isListChanged(next ?? ""))
        names = try await toolNames(s, id: 3)
        XCTAssertTrue(names.contains("advanced_search"))
        let result = await call(s, id: 4, "advanced_search", #"{"query":"x"}"#)
        XCTAssertTrue(result.contains("advanced results for x"), result)
    }

    func testARegistrationReachesAnOpenSessionAsListChanged() async throws {
        let s = try dispatcher.makeMCPSession()
        var notifications = s.notifications.makeAsyncIterator()
        try await open(s)
        try dispatcher.register(AppFunctionDescriptor("late_one")) { (_, _: NoArguments) in }
        let next = await notifications.next()
        XCTAssertTrue(isListChanged(next ?? ""))
        let names = try await toolNames(s, id: 2)
        XCTAssertTrue(names.contains("late_one"))
    }

    func testCancellingTheTaskCancelsTheToolCallAndItsHandler() async throws {
        let s = try dispatcher.makeMCPSession()
        try await open(s)
        let d = dispatcher!
        let running = Task { await s.handle(#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#) }
        for _ in 0..<500 where d.inFlight == 0 { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(d.inFlight, 1)
        running.cancel()
        let response = await running.value
        XCTAssertNil(response, "a cancelled request gets no response")
        for _ in 0..<500 where app.slowCancelled.value == 0 || d.inFlight != 0 { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(app.slowCancelled.value, 1)
        let ping = await s.handle(#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#) ?? ""
        XCTAssertTrue(ping.contains(#""id":10"#), "the session goes on: \(ping)")
    }

    func testTheNotificationSinkIsReleasedWithTheSession() async throws {
        let before = AppFunctionsLibrary.liveUserDataCount
        var s: AppFunctionMCPSession? = try dispatcher.makeMCPSession()
        XCTAssertEqual(AppFunctionsLibrary.liveUserDataCount, before + 1)
        _ = s
        s = nil
        XCTAssertEqual(AppFunctionsLibrary.liveUserDataCount, before)
    }

    func testTheDispatchersOwnSessionTellsItsHandler() async throws {
        let heard = Shared<[String]>([])
        try dispatcher.setMCPNotificationHandler { message in heard.update { $0.append(message) } }
        _ = await dispatcher.mcpHandle(#"""
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
            """#)
        _ = await dispatcher.mcpHandle(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        try dispatcher.register(AppFunctionDescriptor("another")) { (_, _: NoArguments) -> Int32 in 1 }
        XCTAssertTrue(heard.value.contains(where: isListChanged), "\(heard.value)")
    }

    func testInThe2026RevisionASubscriptionsListenStreamReachesTheHostThroughTheSameSink() async throws {
        let heard = Shared<[String]>([])
        let s = try dispatcher.makeMCPSession { message in heard.update { $0.append(message) } }
        let envelope = #""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#
        let listen = await s.handle(#"{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},\#(envelope)}}"#)
        XCTAssertNil(listen, "a stream, not a response")
        XCTAssertEqual(heard.value.count, 1)
        XCTAssertTrue(heard.value.first?.contains("notifications/subscriptions/acknowledged") ?? false, "acknowledged first: \(heard.value)")
        try dispatcher.register(AppFunctionDescriptor("late_one")) { (_, _: NoArguments) in }
        let last = heard.value.last ?? ""
        XCTAssertTrue(last.contains("notifications/tools/list_changed") && last.contains("sub-1"), "\(heard.value)")
    }
}
