import AppFunctions
import Foundation
import XCTest

/// Seed 004 (agent-side function features), sentence by sentence, through Swift agent views;
/// the last tests walk an agent loop end to end and serve the same app over MCP sessions.
final class AgentScenarioTests: XCTestCase {
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

    private func view(_ metadata: AgentMetadata = AgentMetadata()) throws -> AppFunctionView {
        try dispatcher.makeView(metadata: metadata)
    }

    private func string(_ o: AppFunctionOutcome) throws -> String { try o.result(as: String.self) }

    // MARK: The Collapse Attribute

    func testCollapseGroupsAToolkitsFunctionsUnderOneContainerInEveryFormat() throws {
        let v = try view()
        let names = v.toolNames
        for container in ["file_system", "database", "search"] { XCTAssertTrue(names.contains(container), "\(names)") }
        for hidden in ["read_file", "write_file", "delete_file", "query", "web_search"] {
            XCTAssertFalse(names.contains(hidden), "\(hidden) in \(names)")
        }
        for format in AppFunctionToolFormat.allCases {
            let text = try v.tools(format: format)
            XCTAssertTrue(text.contains("File operations for reading, writing, and managing files") && !text.contains("read_file"),
                          "\(format): \(text)")
        }
        // the registry's export is not a view: it lists every function
        XCTAssertTrue(try dispatcher.export(format: "mcp").contains("read_file"))
    }

    func testCallingTheContainerExpandsItAndItsFunctionsBecomeTools() async throws {
        let v = try view()
        let hidden = await v.execute("read_file", arguments: #"{"path":"a.txt"}"#)
        XCTAssertEqual(hidden.errorCode, .functionNotFound)
        XCTAssertTrue(hidden.message?.contains("call file_system first") ?? false, "\(hidden)")

        let expanded = await v.execute("file_system")
        XCTAssertEqual(try string(expanded), "The file_system tools are now available: read_file, write_file, delete_file.")
        let names = v.toolNames
        XCTAssertTrue(["read_file", "write_file", "delete_file"].allSatisfy(names.contains), "\(names)")
        XCTAssertFalse(names.contains("file_system"))
        XCTAssertTrue(names.contains("database"), "the other toolkit stays collapsed: \(names)")

        app.files.update { $0["a.txt"] = "hello" }
        let r1 = await v.execute("read_file", arguments: #"{"path":"a.txt"}"#)
        XCTAssertEqual(try string(r1), "hello")
        // expansion belongs to the conversation: another view starts collapsed, a reset collapses again
        XCTAssertFalse(try view().toolNames.contains("read_file"))
        v.reset()
        XCTAssertTrue(v.toolNames.contains("file_system") && !v.toolNames.contains("read_file"))
    }

    func testWithoutADescriptionAToolkitsFunctionsAreAlwaysVisible() async throws {
        try dispatcher.defineToolkit(AppFunctionToolkit("plain"))
        try dispatcher.register(AppFunctionDescriptor("ungrouped_helper", toolkit: "plain")) { (_, _: NoArguments) -> String in "ok" }
        let v = try view()
        for plain in ["ungrouped_helper", "add", "log_message", "report"] { XCTAssertTrue(v.toolNames.contains(plain), plain) }
        XCTAssertFalse(v.toolNames.contains("plain"), "no container for it")
        let r2 = await v.execute("ungrouped_helper")
        XCTAssertEqual(try string(r2), "ok")
        let r3 = await v.execute("add", arguments: #"{"a":2,"b":3}"#)
        XCTAssertEqual(try r3.result(as: Int32.self), 5)
    }

    // MARK: Collapse with Instructions

    func testFunctionResultOnceOnExpansionSystemPromptEveryTurnWhileExpanded() async throws {
        let v = try view()
        XCTAssertEqual(v.instructions, "", "collapsed: nothing injected")
        let first = await v.execute("database")
        XCTAssertEqual(try string(first), dbResult)
        XCTAssertFalse(first.json.contains(dbPrompt), "the system prompt is not the tool result")
        for _ in 0..<3 {
            XCTAssertEqual(v.instructions, dbPrompt, "every turn")
            let q = await v.execute("query", arguments: #"{"sql":"SELECT 1"}"#)
            XCTAssertTrue(q.isSuccess, "\(q)")
        }
        let again = await v.execute("database")
        XCTAssertTrue(again.isSuccess && !again.json.contains("transactions") && again.json.contains("already available"), "\(again)")
        v.reset()
        XCTAssertEqual(v.instructions, "")
        let r4 = await v.execute("database")
        XCTAssertEqual(try string(r4), dbResult, "a new expansion: once more")
    }

    // MARK: Dynamic Instructions with Expressions

    func testDynamicTextsComeFromTheHostFromTheViewsMetadataWhenNeeded() async throws {
        let v = try view(AgentMetadata(searchers: "web, news"))
        XCTAssertEqual(v.instructions, "")
        XCTAssertEqual(app.textsAsked.value, 0, "collapsed: the host is not asked")
        let r5 = await v.execute("search")
        XCTAssertEqual(try string(r5), "Available: web, news")
        XCTAssertEqual(v.instructions, "Always prefer exact matches over fuzzy matches.")
        let asked = app.textsAsked.value
        _ = v.instructions
        XCTAssertGreaterThan(app.textsAsked.value, asked, "asked again every turn")
        try v.setMetadata(AgentMetadata(searchers: "web, news, images"))
        v.reset()
        let r6 = await v.execute("search")
        XCTAssertEqual(try string(r6), "Available: web, news, images")
        let r7 = await (try view()).execute("search")
        XCTAssertEqual(try string(r7), "Available: none")
    }

    // MARK: Conditional Functions and the generic form

    func testAConditionFlipsWithTheMetadata() async throws {
        let v = try view(AgentMetadata(HasAdvancedFeatures: false))
        XCTAssertFalse(v.toolNames.contains("advanced_search"))
        let hidden = await v.execute("advanced_search", arguments: #"{"query":"x"}"#)
        XCTAssertEqual(hidden.errorCode, .functionNotFound)
        XCTAssertTrue(hidden.message?.contains("HasAdvancedFeatures") ?? false, "\(hidden)")
        try v.setMetadata(AgentMetadata(HasAdvancedFeatures: true))
        XCTAssertTrue(v.toolNames.contains("advanced_search"))
        let r8 = await v.execute("advanced_search", arguments: #"{"query":"x"}"#)
        XCTAssertEqual(try string(r8), "advanced results for x")
        try v.setMetadata(AgentMetadata(HasAdvancedFeatures: false))
        XCTAssertFalse(v.toolNames.contains("advanced_search"))
        XCTAssertTrue(try view(AgentMetadata(HasAdvancedFeatures: true)).toolNames.contains("advanced_search"),
                      "each conversation decides with its own metadata")
    }

    func testATemplateIsRenderedWithTheViewsMetadataAndFollowsIt() throws {
        let v = try view(AgentMetadata(ProviderName: "Bing"))
        XCTAssertTrue(try v.tools(format: .openAI).contains("Search using Bing"))
        try v.setMetadata(AgentMetadata(ProviderName: "Kagi"))
        let anthropic = try v.tools(format: .anthropic)
        XCTAssertTrue(anthropic.contains("Search using Kagi") && !anthropic.contains("Bing"), anthropic)
        // the generic form's check: a placeholder naming no metadata property is refused
        XCTAssertThrowsError(try dispatcher.register(AppFunctionDescriptor("bad", description: "Uses {metadata.Provider}")) {
            (_, _: NoArguments) in
        }) { error in
            XCTAssertTrue("\(error)".contains("{metadata.Provider}"), "\(error)")
        }
    }

    // MARK: ToolKind — Structured Output

    func testAnOutputToolsArgumentsAreTheFinalStructuredResult() async throws {
        let v = try view()
        let o = await v.execute("report", arguments: #"{"city":"Paris","tempCelsius":21.5,"condition":"sunny"}"#)
        XCTAssertTrue(o.isSuccess && o.isFinal, "\(o)")
        XCTAssertEqual(try o.result(as: WeatherReport.self), WeatherReport(city: "Paris", tempCelsius: 21.5, condition: "sunny"))
        let bad = await v.execute("report", arguments: #"{"city":"Paris","tempCelsius":"warm","condition":"sunny"}"#)
        XCTAssertEqual(bad.errorCode, .invalidArgument)
        XCTAssertFalse(bad.isFinal, "the model may try again")
        let normal = await v.execute("add", arguments: #"{"a":1,"b":1}"#)
        XCTAssertFalse(normal.isFinal)
    }

    // MARK: Return Types and Requiring Permission

    func testAVoidFunctionReturnsAConfirmation() async throws {
        let v = try view()
        let o = await v.execute("log_message", arguments: #"{"message":"hi"}"#)
        XCTAssertTrue(o.isSuccess, "\(o)")
        XCTAssertNil(o.resultJSON)
        XCTAssertEqual(o.dialog, "Done: the function completed successfully.")
        XCTAssertEqual(app.logged.value, ["hi"])
        v.setConfirmation("Logged.")
        let r9 = await v.execute("log_message", arguments: #"{"message":"again"}"#).dialog
        XCTAssertEqual(r9, "Logged.")
        // outside a view there is no confirmation
        let r10 = await dispatcher.execute("log_message", arguments: #"{"message":"x"}"#).dialog
        XCTAssertNil(r10)
        _ = await v.execute("search")
        let results = await v.execute("web_search", arguments: #"{"query":"swift"}"#)
        XCTAssertEqual(try results.result(as: [String].self), ["swift result 1", "swift result 2"])
    }

    func testTheDateTypeTravelsAsYYYYMMDD() async throws {
        let v = try view()
        let o = await v.execute("plan_trip", arguments: #"{"departure":"2024-02-27","nights":3}"#)
        XCTAssertEqual(o.resultJSON, #""2024-03-01""#, "\(o)")
        XCTAssertEqual(try o.result(as: AppFunctionDate.self), AppFunctionDate(year: 2024, month: 3, day: 1))
        let bad = await v.execute("plan_trip", arguments: #"{"departure":"2024-02-30","nights":1}"#)
        XCTAssertEqual(bad.errorCode, .invalidArgument, "\(bad)")
        let schema = try dispatcher.parametersJSONSchema("plan_trip")
        XCTAssertTrue(schema.contains(#""format":"date""#) || schema.contains(#""format": "date""#), schema)
    }

    func testPermissionTheUserApprovesOrDenies() async throws {
        let v = try view()
        app.files.update { $0["a.txt"] = "x" }
        _ = await v.execute("file_system")
        app.approve.value = false
        let denied = await v.execute("delete_file", arguments: #"{"path":"a.txt"}"#)
        XCTAssertEqual(denied.errorCode, .permissionDenied, "\(denied)")
        XCTAssertNotNil(app.files.value["a.txt"])
        app.approve.value = true
        let ok = await v.execute("delete_file", arguments: #"{"path":"a.txt"}"#)
        XCTAssertTrue(ok.isSuccess, "\(ok)")
        XCTAssertNil(app.files.value["a.txt"])
    }

    // MARK: Cancellation, timeouts, the change counter

    func testCancellingTheTaskCancelsTheViewCallAndItsHandler() async throws {
        let v = try view()
        let d = dispatcher!
        let call = Task { await v.execute("slow") }
        for _ in 0..<500 where d.inFlight == 0 { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(d.inFlight, 1)
        call.cancel()
        let outcome = await call.value
        XCTAssertEqual(outcome.errorCode, .cancelled, "\(outcome)")
        for _ in 0..<500 where app.slowCancelled.value == 0 { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(app.slowCancelled.value, 1)
        let timedOut = await v.execute(AppFunctionInvocation("slow", timeout: .milliseconds(50)))
        XCTAssertEqual(timedOut.errorCode, .timedOut, "\(timedOut)")
    }

    func testTheChangeCounterIsAnAsyncSequenceThatMovesWithEveryChange() async throws {
        let v = try view()
        var changes = v.generations.makeAsyncIterator()
        let first = await changes.next()
        var last = try XCTUnwrap(first)
        XCTAssertEqual(last, v.generation, "the current value first")
        func moved(_ what: String) async throws {
            let next = await changes.next()
            let g = try XCTUnwrap(next, what)
            XCTAssertNotEqual(g, last, what)
            last = g
        }
        _ = await v.execute("database")
        try await moved("an expansion")
        try v.setMetadata(AgentMetadata(HasAdvancedFeatures: true))
        try await moved("a metadata change")
        v.reset()
        try await moved("a reset")
        try dispatcher.register(AppFunctionDescriptor("late_one")) { (_, _: NoArguments) in }
        try await moved("a registration")
        XCTAssertTrue(v.toolNames.contains("late_one"))
        try dispatcher.setEnabled("late_one", false)
        try await moved("disabling a function")
        XCTAssertFalse(v.toolNames.contains("late_one"))
    }

    // MARK: An agent loop

    /// A scripted model drives the loop: it sees the tools and the instructions each turn,
    /// calls the container, then a function it revealed, then the output tool, which ends the run.
    func testAnAgentLoopCollapseContainerExpandedListInstructionsFinalResult() async throws {
        let v = try view(AgentMetadata(ProviderName: "Bing"))
        var script = [
            ("database", "{}"),
            ("query", #"{"sql":"SELECT city FROM weather"}"#),
            ("report", #"{"city":"Oslo","tempCelsius":-3,"condition":"snow"}"#),
        ]
        var transcript: [String] = []
        var seen: UInt64 = 0
        var tools: [String] = []
        var report: WeatherReport?
        while report == nil {
            if v.generation != seen { // re-fetch only when the view changed
                seen = v.generation
                tools = v.toolNames
            }
            let (name, args) = script.removeFirst()
            XCTAssertTrue(tools.contains(name), "the model only calls what it sees: \(name) in \(tools)")
            let outcome = await v.execute(name, arguments: args)
            transcript.append("\(name) -> \(outcome.status) \(v.instructions)")
            if outcome.isFinal { report = try outcome.result(as: WeatherReport.self) }
        }
        XCTAssertEqual(report?.city, "Oslo")
        XCTAssertEqual(app.statements.value, ["SELECT city FROM weather"])
        XCTAssertEqual(transcript, ["database -> success \(dbPrompt)", "query -> success \(dbPrompt)", "report -> success \(dbPrompt)"])
    }
}

/// `AppFunctionDate`: the core's `date` type.
final class AppFunctionDateTests: XCTestCase {
    func testParsesAndWritesYYYYMMDDExactly() throws {
        XCTAssertEqual(AppFunctionDate("2025-06-01")?.description, "2025-06-01")
        XCTAssertEqual(AppFunctionDate(year: 7, month: 1, day: 9)?.description, "0007-01-09")
        for bad in ["2025-6-01", "2025-06-01T00:00:00Z", "2025-02-29", "2025-13-01", "abcd-ef-gh", ""] {
            XCTAssertNil(AppFunctionDate(bad), bad)
        }
        XCTAssertNotNil(AppFunctionDate("2024-02-29"), "a leap day")
        XCTAssertLessThan(AppFunctionDate("2024-12-31")!, AppFunctionDate("2025-01-01")!)
    }

    func testConvertsFromAndToDateInATimeZone() throws {
        let instant = Date(timeIntervalSince1970: 1_748_790_000) // 2025-06-01T15:00:00Z
        XCTAssertEqual(AppFunctionDate(instant, in: TimeZone(identifier: "UTC")!).description, "2025-06-01")
        XCTAssertEqual(AppFunctionDate(instant, in: TimeZone(identifier: "Pacific/Kiritimati")!).description, "2025-06-02")
        let midnight = try XCTUnwrap(AppFunctionDate("2025-06-01")).date(in: TimeZone(identifier: "UTC")!)
        XCTAssertEqual(midnight.timeIntervalSince1970, 1_748_736_000)
    }

    func testCodableAsAString() throws {
        struct Trip: Codable, Equatable { var departure: AppFunctionDate }
        let data = try JSONEncoder().encode(Trip(departure: AppFunctionDate("2025-06-01")!))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"departure":"2025-06-01"}"#)
        XCTAssertEqual(try JSONDecoder().decode(Trip.self, from: data), Trip(departure: AppFunctionDate("2025-06-01")!))
        XCTAssertThrowsError(try JSONDecoder().decode(Trip.self, from: Data(#"{"departure":"June 1st"}"#.utf8)))
        XCTAssertEqual(AppFunctionDate.appFunctionType, .date)
    }
}
