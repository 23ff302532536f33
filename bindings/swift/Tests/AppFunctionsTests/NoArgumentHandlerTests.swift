import AppFunctions
import Foundation
import XCTest

/// Handlers that take no arguments: a closure of the context alone (`register(_:handler:)`),
/// or one taking `NoArguments`, which is the same. Nothing is read or decoded for their calls;
/// the core still binds and checks the arguments the descriptor declares, and the context
/// still has them.
final class NoArgumentHandlerTests: XCTestCase {
    /// `executeBlocking`, from synchronous code.
    static func blocking(_ d: AppFunctionDispatcher, _ id: String) -> AppFunctionOutcome {
        d.executeBlocking(AppFunctionInvocation(id), arguments: "{}")
    }

    /// Each of the four forms (inline or `async`, a result or `void`) answers its call, with
    /// the function's id and the context's platform as the call made them.
    func testEachFormAnswersItsCall() async throws {
        let d = AppFunctionDispatcher()
        let seen = Shared<[String]>([])
        try d.register(AppFunctionDescriptor("ping")) { context -> Int32 in
            seen.update { $0.append("ping \(context.functionId) \(context.platform)") }
            return 1
        }
        try d.register(AppFunctionDescriptor("ping_async")) { context async -> String in
            await Task.yield()
            seen.update { $0.append("ping_async \(context.functionId)") }
            return "pong"
        }
        try d.register(AppFunctionDescriptor("refresh")) { context in
            seen.update { $0.append("refresh \(context.functionId)") }
            context.say("Refreshed.")
        }
        try d.register(AppFunctionDescriptor("refresh_async")) { context async in
            await Task.yield()
            seen.update { $0.append("refresh_async \(context.functionId)") }
        }
        // the same with `NoArguments`, whatever the call's arguments
        try d.register(AppFunctionDescriptor("count") { AppFunctionParameter("from", Int32.self, default: 0) }) {
            (context, _: NoArguments) -> Int32 in
            seen.update { $0.append("count \(context.argumentsJSON ?? "-")") }
            return 3
        }

        let ping = await d.execute(AppFunctionInvocation("ping", platform: .android))
        XCTAssertEqual(ping.status, .success, ping.json)
        XCTAssertEqual(try ping.result(as: Int32.self), 1)
        let pingAsync = await d.execute("ping_async")
        XCTAssertEqual(try pingAsync.result(as: String.self), "pong")
        let refresh = await d.execute("refresh")
        XCTAssertEqual(refresh.status, .success, refresh.json)
        XCTAssertNil(refresh.resultJSON)
        XCTAssertEqual(refresh.dialog, "Refreshed.")
        let refreshAsync = await d.execute("refresh_async")
        XCTAssertEqual(refreshAsync.status, .success, refreshAsync.json)
        XCTAssertNil(refreshAsync.resultJSON)
        // and the blocking form runs the inline one on this thread
        let blocking = Self.blocking(d, "ping")
        XCTAssertEqual(try blocking.result(as: Int32.self), 1)
        let count = await d.execute("count", arguments: #"{"from":7}"#)
        XCTAssertEqual(try count.result(as: Int32.self), 3, count.json)
        let countBad = await d.execute("count", arguments: #"{"from":"seven"}"#)
        XCTAssertEqual(countBad.errorCode, .invalidArgument, countBad.json)

        XCTAssertEqual(seen.value, [
            "ping ping android", "ping_async ping_async", "refresh refresh", "refresh_async refresh_async",
            "ping ping other", #"count {"from":7}"#,
        ])
        // the registry has them as declared: no parameters, their result types
        let registry = d.registry
        XCTAssertEqual(registry.functions.map(\.id).sorted(), ["count", "ping", "ping_async", "refresh", "refresh_async"])
        let pingSchema = try d.resultJSONSchema("ping")
        XCTAssertTrue(pingSchema.contains(#""type":"integer""#), pingSchema)
        XCTAssertEqual(try d.resultJSONSchema("refresh"), "null")
    }

    /// A handler that reads none of its arguments (the C benchmark's `create_order`, answering
    /// "ok"): the core binds and checks them all the same (bad ones never reach the handler),
    /// and the context has them, normalised, for a handler that wants them after all.
    func testAHandlerWithoutArgumentsStillHasItsArgumentsChecked() async throws {
        let d = AppFunctionDispatcher()
        let calls = Shared(0)
        let lastArguments = Shared<String?>(nil)
        try d.register(AppFunctionDescriptor("create_order") {
            AppFunctionParameter("customer", String.self)
            AppFunctionParameter("quantity", Int32.self)
            AppFunctionParameter("priority", Priority.self, default: .normal)
        }) { context -> String in
            calls.update { $0 += 1 }
            lastArguments.update { $0 = context.argumentsJSON }
            return "ok"
        }

        let ok = await d.execute("create_order", arguments: #"{"customer":"acme","quantity":2}"#)
        XCTAssertEqual(try ok.result(as: String.self), "ok", ok.json)
        // the default filled in by the core
        XCTAssertEqual(lastArguments.value, #"{"customer":"acme","quantity":2,"priority":"Normal"}"#)

        let missing = await d.execute("create_order", arguments: #"{"customer":"acme"}"#)
        XCTAssertEqual(missing.errorCode, .invalidArgument, missing.json)
        XCTAssertTrue(missing.message?.contains("quantity") == true, missing.json)
        let wrongType = await d.execute("create_order", arguments: #"{"customer":"acme","quantity":"two"}"#)
        XCTAssertEqual(wrongType.errorCode, .invalidArgument, wrongType.json)
        XCTAssertTrue(wrongType.message?.contains("quantity") == true, wrongType.json)
        let badEnum = await d.execute("create_order", arguments: #"{"customer":"acme","quantity":2,"priority":"Urgent"}"#)
        XCTAssertEqual(badEnum.errorCode, .invalidArgument, badEnum.json)
        XCTAssertTrue(badEnum.message?.contains("priority") == true, badEnum.json)
        XCTAssertEqual(calls.value, 1, "only the good call reached the handler")
    }

    /// A thrown error ends the call with its code, inline or on a task, as for handlers with
    /// arguments; a cancelled `async` one ends `cancelled`.
    func testThrowsAndCancellationEndTheCallAsForHandlersWithArguments() async throws {
        let d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("denied")) { _ -> String in
            throw AppFunctionError(.permissionDenied, "not yours")
        }
        try d.register(AppFunctionDescriptor("broken")) { _ async throws in
            struct Broken: Error {}
            throw Broken()
        }
        try d.register(AppFunctionDescriptor("slow")) { _ async throws -> String in
            try await Task.sleep(for: .seconds(30))
            return "late"
        }

        let denied = await d.execute("denied")
        XCTAssertEqual(denied.errorCode, .permissionDenied, denied.json)
        XCTAssertEqual(denied.message, "not yours")
        let broken = await d.execute("broken")
        XCTAssertEqual(broken.errorCode, .handlerFailed, broken.json)
        XCTAssertTrue(broken.message?.contains("Broken") == true, broken.json)

        let task = Task { await d.execute("slow") }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let slow = await task.value
        XCTAssertEqual(slow.errorCode, .cancelled, slow.json)
    }
}
