import AppFunctions
import Foundation
import XCTest

// The README's agent loop, MCP session, MCP over HTTP and synchronous delegate, as written there (the swift lane checks that each
// block marked `<!-- swift-lane: ReadmeExamplesTests.swift -->` in README.md appears here
// verbatim), run against a scripted model and a scripted MCP client.

// --- the README's agent loop ---------------------------------------------------------------------

protocol Model: Sendable { // your LLM client
    func next(tools: String, instructions: String) async throws -> ToolCall? // nil: it answered in text
    func toolResult(id: String, outcomeJSON: String) async throws
}

struct ToolCall: Sendable { var id: String, name: String, argumentsJSON: String }

func agentLoop(_ dispatcher: AppFunctionDispatcher, model: some Model) async throws -> String? {
    let view = try dispatcher.makeView(metadataJSON: #"{"units":"metric"}"#) // one conversation
    while let call = try await model.next(tools: try view.tools(format: .openAI), instructions: view.instructions) {
        let outcome = await view.execute(call.name, arguments: call.argumentsJSON) // cancelled with the task
        if outcome.isFinal { return outcome.resultJSON } // an output tool ended the run
        try await model.toolResult(id: call.id, outcomeJSON: outcome.json)
    }
    return nil
}

// --- the README's MCP session --------------------------------------------------------------------

func serve(_ dispatcher: AppFunctionDispatcher, incoming: AsyncStream<String>,
           send: @escaping @Sendable (String) async -> Void) async throws {
    let session = try dispatcher.makeMCPSession() // one connection, with its own view
    let notifications = session.notifications // list_changed, ...: subscribe before the first message
    await withTaskGroup(of: Void.self) { group in
        group.addTask { for await note in notifications { await send(note) } }
        for await message in incoming {
            group.addTask { if let reply = await session.handle(message) { await send(reply) } }
        }
        group.cancelAll() // the connection closed
    }
}

// --- the README's MCP over HTTP -----------------------------------------------------------------

func answer(_ mcp: AppFunctionHttpServer, method: String, path: String, query: String?,
            headers: [(name: String, value: String)], body: [UInt8],
            respond: (Int, [(name: String, value: String)]) -> Void, // status and headers
            write: ([UInt8]) -> Bool) throws { // a piece of the body, flushed; false: the client left
    let r = try mcp.handle(method: method, path: path, query: query, headers: headers, body: body)
    respond(r.status, r.headers)
    guard let stream = r.stream else { _ = write(r.body); return }
    defer { stream.close() } // the client went away or the stream ended: a call it carries is cancelled
    while true {
        switch try stream.next(timeoutMilliseconds: 15_000) { // blocks this thread: the web server's
        case .frame(let bytes): if !write(bytes) { return }
        case .idle: if !write(Array(":\n\n".utf8)) { return } // a keep-alive finds a client that left
        case .end: return
        }
    }
}

/// The app the examples run against: a collapsed toolkit and an output tool.
struct Forecast: AppFunctionRecord, Equatable {
    var city: String
    var tempCelsius: Double

    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
        AppFunctionField("city", String.self)
        AppFunctionField("tempCelsius", Double.self)
    }
}

struct CityArgs: Codable { var city: String }

func registerWeather(on dispatcher: AppFunctionDispatcher) throws {
    try dispatcher.defineToolkit(AppFunctionToolkit("weather", description: "Weather lookups",
                                                    systemPrompt: "Temperatures are in Celsius."))
    try dispatcher.register(AppFunctionDescriptor("temperature", description: "The temperature in a city now",
                                                  toolkit: "weather") {
        AppFunctionParameter("city", String.self)
    }) { (_, args: CityArgs) -> Double in args.city == "Oslo" ? -3 : 21.5 }
    try dispatcher.registerOutput(AppFunctionDescriptor("report", description: "Report the weather") {
        AppFunctionParameter("city", String.self)
        AppFunctionParameter("tempCelsius", Double.self)
    }, result: Forecast.self)
}

/// A model that calls the container, the function it revealed, then the output tool.
final class ScriptedModel: Model, @unchecked Sendable {
    let seen = Shared<[String]>([])
    let results = Shared<[String]>([])
    private let script = Shared<[ToolCall]>([
        ToolCall(id: "1", name: "weather", argumentsJSON: "{}"),
        ToolCall(id: "2", name: "temperature", argumentsJSON: #"{"city":"Oslo"}"#),
        ToolCall(id: "3", name: "report", argumentsJSON: #"{"city":"Oslo","tempCelsius":-3}"#),
    ])

    func next(tools: String, instructions: String) async throws -> ToolCall? {
        let list = try JSONSerialization.jsonObject(with: Data(tools.utf8)) as? [[String: Any]] ?? []
        let names = list.compactMap { $0["name"] as? String }.joined(separator: ",")
        seen.update { $0.append("\(names) | \(instructions)") }
        var call: ToolCall?
        script.update { if !$0.isEmpty { call = $0.removeFirst() } }
        return call
    }

    func toolResult(id: String, outcomeJSON: String) async throws {
        results.update { $0.append(outcomeJSON) }
    }
}

/// Messages the server sent, read in order by the test.
final class Outbox: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []

    func add(_ m: String) { lock.lock(); messages.append(m); lock.unlock() }

    private func pop(_ what: (String) -> Bool) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard let i = messages.firstIndex(where: what) else { return nil }
        return messages.remove(at: i)
    }

    /// The first sent message matching `what`, taken out (waits up to 5 s).
    func take(_ what: (String) -> Bool) async throws -> String {
        for _ in 0..<500 {
            if let m = pop(what) { return m }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw AppFunctionError(.timedOut, "no such message was sent")
    }
}

// --- the README's synchronous delegate -----------------------------------------------------------

struct FeatureFlags: AppFunctionSynchronousDelegate {
    let disabled: Set<String>
    func onInvokingNow(_ context: AppFunctionContext) -> AppFunctionGate {
        disabled.contains(context.functionId) ? .deny("\(context.functionId) is turned off.") : .allow
    }
}

final class ReadmeExamplesTests: XCTestCase {
    func testTheMCPOverHTTPExampleAnswersAClientAndStreamsACall() throws {
        let dispatcher = AppFunctionDispatcher()
        try registerWeather(on: dispatcher)
        let mcp = try AppFunctionHttpServer(dispatcher: dispatcher)
        defer { mcp.close() }
        func exchange(_ method: String, _ body: String, _ extra: [(name: String, value: String)] = [])
            throws -> (status: Int, headers: [(name: String, value: String)], body: String) {
            var status = 0
            var sent: [(name: String, value: String)] = []
            var out: [UInt8] = []
            try answer(mcp, method: method, path: "/mcp", query: nil,
                       headers: [("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")] + extra,
                       body: Array(body.utf8),
                       respond: { status = $0; sent = $1 }, write: { out += $0; return true })
            return (status, sent, String(decoding: out, as: UTF8.self))
        }
        let initialize = try exchange("POST", #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
        XCTAssertEqual(initialize.status, 200, initialize.body)
        let sid = try XCTUnwrap(initialize.headers.first { $0.name.lowercased() == "mcp-session-id" }?.value)
        let session: [(name: String, value: String)] = [("Mcp-Session-Id", sid), ("MCP-Protocol-Version", "2025-11-25")]
        XCTAssertEqual(try exchange("POST", #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, session).status, 202)
        let call = try exchange("POST", #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{}}}"#, session)
        XCTAssertEqual(call.status, 200)
        XCTAssertTrue(call.headers.contains { $0.name == "Content-Type" && $0.value == "text/event-stream" }, "\(call.headers)")
        XCTAssertTrue(call.body.hasPrefix("event: message\ndata: ") && call.body.contains(#""id":3"#), call.body)
        let foreign = try exchange("POST", #"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#, session + [("Origin", "https://evil.example")])
        XCTAssertEqual(foreign.status, 403, "the core's Origin check")
    }

    func testTheFeatureFlagsDelegateTurnsAFunctionOff() async throws {
        let dispatcher = AppFunctionDispatcher()
        try registerWeather(on: dispatcher)
        try dispatcher.addDelegate(FeatureFlags(disabled: ["temperature"]))
        let outcome = await dispatcher.execute("temperature", arguments: #"{"city":"Oslo"}"#)
        XCTAssertEqual(outcome.errorCode, .denied)
        XCTAssertEqual(outcome.message, "temperature is turned off.")
        let report = await dispatcher.execute("report", arguments: #"{"city":"Oslo","tempCelsius":-3}"#)
        XCTAssertTrue(report.isSuccess, "\(report)")
    }

    func testTheAgentLoopRunsAConversationToItsOutputTool() async throws {
        let dispatcher = AppFunctionDispatcher()
        try registerWeather(on: dispatcher)
        let model = ScriptedModel()
        let result = try await agentLoop(dispatcher, model: model)
        let report = try JSONDecoder().decode(Forecast.self, from: Data(XCTUnwrap(result).utf8))
        XCTAssertEqual(report, Forecast(city: "Oslo", tempCelsius: -3))
        XCTAssertEqual(model.seen.value, [
            "weather,report | ",
            "temperature,report | Temperatures are in Celsius.",
            "temperature,report | Temperatures are in Celsius.",
        ])
        XCTAssertTrue(model.results.value.count == 2 && model.results.value[1].contains("-3"), "\(model.results.value)")
    }

    func testTheMCPSessionAnswersAClientAndTellsItWhenTheToolsChange() async throws {
        let dispatcher = AppFunctionDispatcher()
        try registerWeather(on: dispatcher)
        let (incoming, client) = AsyncStream<String>.makeStream()
        let sent = Outbox()
        let server = Task { try await serve(dispatcher, incoming: incoming) { sent.add($0) } }
        func request(_ id: Int, _ method: String, _ params: String = "{}") async throws -> String {
            client.yield(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#)
            return try await sent.take { $0.contains(#""id":\#(id)"#) }
        }
        _ = try await request(1, "initialize", #"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#)
        client.yield(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        let before = try await request(2, "tools/list")
        XCTAssertTrue(before.contains(#""weather""#), before)
        let expanded = try await request(3, "tools/call", #"{"name":"weather","arguments":{}}"#)
        XCTAssertTrue(expanded.contains("temperature"), expanded)
        let note = try await sent.take { $0.contains("list_changed") }
        XCTAssertTrue(note.contains("notifications/tools/list_changed"))
        let after = try await request(4, "tools/list")
        XCTAssertTrue(after.contains(#""temperature""#), after)
        client.finish()
        try await server.value
    }
}
