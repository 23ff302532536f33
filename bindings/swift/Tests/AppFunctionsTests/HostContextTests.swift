@testable import AppFunctions
import Foundation
import XCTest

/// `AppFunctionInvocation.hostContext` (`af_invocation.host_context`) read back as
/// `context.invocationContext` by every callback of the call, for every way of starting one;
/// nil when unset and for a call the library starts itself (MCP `tools/call`); held exactly
/// as long as the call (the `invocationContexts` table empty after it, the object gone).
// --- the README's example (the swift lane checks it is here verbatim) ----------------------------

final class UserSession: Sendable { let user: String; init(_ user: String) { self.user = user } }

func whoAmI(_ dispatcher: AppFunctionDispatcher, session: UserSession) async throws -> AppFunctionOutcome {
    try dispatcher.register(AppFunctionDescriptor("whoami")) { (context, _: NoArguments) -> String in
        context.invocationContext(as: UserSession.self)?.user ?? "nobody"
    }
    return await dispatcher.execute(AppFunctionInvocation("whoami", hostContext: session))
}

// ---------------------------------------------------------------------------------------------------

final class HostContextTests: XCTestCase {
    final class Session: Sendable {
        let user: String
        init(_ user: String) { self.user = user }
    }

    final class Weak: @unchecked Sendable {
        weak var session: Session?
    }

    struct Pick: Codable { var order: Order }
    struct Echo: Codable { var text: String }

    /// What the callbacks read: "callback=user" ("nil" when they read none).
    final class Reads: Sendable {
        let all = Shared<[String]>([])
        func record(_ what: String, _ context: AppFunctionContext) {
            let user = context.invocationContext(as: Session.self)?.user ?? "nil"
            all.update { $0.append("\(what)=\(user)") }
        }
    }

    let reads = Reads()

    /// `pick` (inline, requires permission, takes an order: a lookup), `pick_later` (async),
    /// the order entity, a delegate of each kind, the scope hooks and the permission hook,
    /// each recording what it reads.
    private func dispatcher() throws -> AppFunctionDispatcher {
        let d = AppFunctionDispatcher()
        let reads = self.reads
        try d.registerEntity(Order.self) { context, request in
            reads.record("lookup", context)
            guard case .ids(let ids) = request else { return [] }
            return ids.map { Order(id: $0, customer: "acme", quantity: 1, priority: .normal, status: "Open") }
        }
        try d.register(AppFunctionDescriptor("pick", requiresPermission: true) {
            AppFunctionParameter("order", Order.self)
        }) { (context, a: Pick) -> String in
            reads.record("handler", context)
            return a.order.id
        }
        try d.register(AppFunctionDescriptor("pick_later") { AppFunctionParameter("order", Order.self) }) {
            (context, a: Pick) async throws -> String in
            await Task.yield()
            reads.record("asyncHandler", context)
            return a.order.id
        }
        struct Sync: AppFunctionSynchronousDelegate {
            let reads: Reads
            func onInvokingNow(_ context: AppFunctionContext) -> AppFunctionGate {
                reads.record("syncDelegate", context)
                return .allow
            }
            func onInvoked(_ context: AppFunctionContext, outcome: AppFunctionOutcome) {
                reads.record("onInvoked", context)
            }
        }
        struct Async: AppFunctionDelegate {
            let reads: Reads
            func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate {
                await Task.yield()
                reads.record("asyncDelegate", context)
                return .allow
            }
        }
        try d.addDelegate(Sync(reads: reads))
        try d.addDelegate(Async(reads: reads))
        try d.setScopeHooks(begin: { context in
            reads.record("scopeBegin", context)
            return nil
        }, end: { context, _ in
            reads.record("scopeEnd", context)
        })
        try d.setPermissionHandler { context in
            reads.record("permission", context)
            return true
        }
        return d
    }

    /// What one call of `pick` (or `pick_later`) reads, in a stable order. The lookup and
    /// the delegates run twice: for the call and for the lookup it makes.
    private func expected(_ user: String, handler: String = "handler") -> [String] {
        var e = ["scopeBegin", "syncDelegate", "asyncDelegate", "lookup", "onInvoked", "scopeEnd", handler]
        if handler == "handler" { e.append("permission") }
        return e.map { "\($0)=\(user)" }.sorted()
    }

    private func distinctReads() -> [String] {
        let r = reads.all.value
        reads.all.value = []
        return Array(Set(r)).sorted()
    }

    private func assertHeldByNoCall(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(invocationContexts.count, 0, "a host context kept after its call", file: file, line: line)
    }

    func testEveryCallbackOfAnAwaitedCallReadsTheHostsValue() async throws {
        let d = try dispatcher()
        let pick = await d.execute(AppFunctionInvocation("pick", hostContext: Session("ana")),
                                   arguments: #"{"order":"o-1"}"#)
        XCTAssertEqual(try pick.result(as: String.self), "o-1", pick.json)
        XCTAssertEqual(distinctReads(), expected("ana"))
        let later = await d.execute(AppFunctionInvocation("pick_later", hostContext: Session("bo")),
                                    arguments: #"{"order":"o-2"}"#)
        XCTAssertEqual(try later.result(as: String.self), "o-2", later.json)
        XCTAssertEqual(distinctReads(), expected("bo", handler: "asyncHandler"))
        // a value, not only an object
        try d.register(AppFunctionDescriptor("trace")) { (context, _: NoArguments) -> String in
            context.invocationContext(as: String.self) ?? "none"
        }
        let traced = await d.execute(AppFunctionInvocation("trace", hostContext: "trace-7"))
        XCTAssertEqual(try traced.result(as: String.self), "trace-7")
        // set on an invocation after it was made, then taken off again
        var invocation = AppFunctionInvocation("trace")
        invocation.hostContext = "trace-8"
        let set = await d.execute(invocation)
        XCTAssertEqual(try set.result(as: String.self), "trace-8")
        invocation.hostContext = nil
        let unset = await d.execute(invocation)
        XCTAssertEqual(try unset.result(as: String.self), "none")
        _ = distinctReads()
        assertHeldByNoCall()
    }

    func testLookupsAndViewsCarryIt() async throws {
        let d = try dispatcher()
        let found = await d.lookupEntities("order", ids: ["o-3"],
                                           invocation: AppFunctionInvocation("search_order", hostContext: Session("cy")))
        XCTAssertEqual(found.status, .success, found.json)
        XCTAssertEqual(distinctReads(), ["asyncDelegate", "lookup", "onInvoked", "scopeBegin", "scopeEnd", "syncDelegate"]
            .map { "\($0)=cy" })
        let view = try d.makeView()
        let viaView = await view.execute(AppFunctionInvocation("pick", hostContext: Session("di")),
                                         arguments: #"{"order":"o-4"}"#)
        XCTAssertEqual(try viaView.result(as: String.self), "o-4", viaView.json)
        XCTAssertEqual(distinctReads(), expected("di"))
        assertHeldByNoCall()
    }

    func testBlockingCallsCarryIt() throws {
        let d = try dispatcher()
        weak var gone: Session?
        do {
            let session = Session("ed")
            gone = session
            let pick = d.executeBlocking(AppFunctionInvocation("pick", hostContext: session), arguments: #"{"order":"o-5"}"#)
            XCTAssertEqual(try pick.result(as: String.self), "o-5", pick.json)
        }
        XCTAssertNil(gone, "released after the blocking call")
        XCTAssertEqual(distinctReads(), expected("ed"))
        let view = try d.makeView()
        let viaView = view.executeBlocking(AppFunctionInvocation("pick_later", hostContext: Session("fa")),
                                           arguments: #"{"order":"o-6"}"#)
        XCTAssertEqual(try viaView.result(as: String.self), "o-6", viaView.json)
        XCTAssertEqual(distinctReads(), expected("fa", handler: "asyncHandler"))
        assertHeldByNoCall()
    }

    func testNilWhenUnsetAndForTheLibrarysOwnCalls() async throws {
        let d = try dispatcher()
        let pick = await d.execute("pick", arguments: #"{"order":"o-7"}"#)
        XCTAssertEqual(pick.status, .success, pick.json)
        XCTAssertEqual(distinctReads(), expected("nil"))
        let initialize = await d.mcpHandle(#"""
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}
            """#)
        XCTAssertTrue(initialize?.contains("\"result\"") ?? false, initialize ?? "nil")
        _ = await d.mcpHandle(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        let call = await d.mcpHandle(#"""
            {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pick_later","arguments":{"order":"o-8"}}}
            """#) ?? ""
        XCTAssertTrue(call.contains("o-8") && call.contains("\"isError\":false"), call)
        XCTAssertEqual(distinctReads(), expected("nil", handler: "asyncHandler"))
        assertHeldByNoCall()
    }

    func testTheReadmeExample() async throws {
        let me = try await whoAmI(AppFunctionDispatcher(), session: UserSession("ana"))
        XCTAssertEqual(try me.result(as: String.self), "ana", me.json)
        assertHeldByNoCall()
    }

    func testAnInlineAnswerReleasesItWhenTheCallReturns() async throws {
        let d = AppFunctionDispatcher()
        let weak = Weak()
        try d.register(AppFunctionDescriptor("echo") { AppFunctionParameter("text", String.self) }) {
            (context, a: Echo) -> String in
            weak.session = context.invocationContext(as: Session.self)
            return a.text + "/" + (weak.session?.user ?? "nil")
        }
        let outcome = await d.execute(AppFunctionInvocation("echo", hostContext: Session("gu")), arguments: #"{"text":"hi"}"#)
        XCTAssertEqual(try outcome.result(as: String.self), "hi/gu")
        XCTAssertNil(weak.session, "released when the call returned")
        assertHeldByNoCall()
    }

    /// `wait`: reads the context, waits for the test to resume it (not cancellable), reads
    /// it again, answers what it read.
    private func waiting(_ d: AppFunctionDispatcher, _ weak: Weak,
                         _ resume: Shared<CheckedContinuation<Void, Never>?>, _ after: Shared<String?>) throws {
        try d.register(AppFunctionDescriptor("wait")) { (context, _: NoArguments) async throws -> String in
            if let s = context.invocationContext(as: Session.self) { weak.session = s }
            let before = weak.session?.user ?? "nil"
            await withCheckedContinuation { c in resume.value = c }
            let now = context.invocationContext(as: Session.self)?.user ?? "nil"
            after.value = now
            return before + "," + now
        }
    }

    private func until(_ what: String, _ done: () -> Bool) async throws {
        let clock = ContinuousClock(), end = clock.now + .seconds(10)
        while !done() {
            if clock.now > end { throw AppFunctionError(.timedOut, "waited for \(what)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    func testALateAnswerHoldsItUntilTheOutcome() async throws {
        let d = AppFunctionDispatcher()
        let weak = Weak(), resume = Shared<CheckedContinuation<Void, Never>?>(nil), after = Shared<String?>(nil)
        try waiting(d, weak, resume, after)
        let call = Task { await d.execute(AppFunctionInvocation("wait", hostContext: Session("hu"))) }
        try await until("the handler to wait") { resume.value != nil }
        XCTAssertEqual(weak.session?.user, "hu", "held while the call runs")
        XCTAssertEqual(invocationContexts.count, 1)
        resume.value?.resume()
        let outcome = await call.value
        XCTAssertEqual(try outcome.result(as: String.self), "hu,hu", outcome.json)
        XCTAssertNil(weak.session, "released after the outcome")
        assertHeldByNoCall()
    }

    func testACancelledCallReleasesItAndItsHandlerReadsNilAfterwards() async throws {
        let d = AppFunctionDispatcher()
        let weak = Weak(), resume = Shared<CheckedContinuation<Void, Never>?>(nil), after = Shared<String?>(nil)
        try waiting(d, weak, resume, after)
        let call = Task { await d.execute(AppFunctionInvocation("wait", hostContext: Session("io"))) }
        try await until("the handler to wait") { resume.value != nil }
        XCTAssertEqual(weak.session?.user, "io")
        call.cancel()
        let outcome = await call.value
        XCTAssertEqual(outcome.errorCode, .cancelled, outcome.json)
        XCTAssertNil(weak.session, "released once the call was cancelled")
        assertHeldByNoCall()
        // the handler still runs: what it reads now is nil, never the released value
        resume.value?.resume()
        try await until("the handler to read again") { after.value != nil }
        XCTAssertEqual(after.value, "nil")
    }
}
