import AppFunctions
import Foundation
import XCTest

/// `await execute`'s paths (Dispatcher.swift's `runCall`): an outcome answered inline, before
/// the core returns, comes back without suspending; one answered later resumes the caller; the
/// calling task's cancellation reaches the core before, while and after the call runs.
final class ExecutePathTests: XCTestCase {
    struct Echo: Codable { var text: String }

    /// The thread running now (a synchronous function: async code may not ask).
    private static func thread() -> pthread_t { pthread_self() }

    /// Polls until no call is in flight (a call's outcome can reach its caller before the call
    /// has left the count), failing after a few seconds.
    private func drained(_ d: AppFunctionDispatcher, file: StaticString = #filePath, line: UInt = #line) async throws {
        let clock = ContinuousClock(), end = clock.now + .seconds(5)
        while d.inFlight != 0 {
            if clock.now > end { return XCTFail("\(d.inFlight) calls still in flight", file: file, line: line) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    private func dispatcher() throws -> AppFunctionDispatcher {
        let d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("echo") { AppFunctionParameter("text", String.self) }) {
            (_, a: Echo) -> String in a.text
        }
        return d
    }

    func testAnInlineAnswerComesBackOnTheCallingThread() async throws {
        let d = try dispatcher()
        final class Seen: @unchecked Sendable {
            var thread: pthread_t?
            var context: (cancelled: Bool, id: String)?
        }
        let seen = Seen()
        try d.register(AppFunctionDescriptor("where") { AppFunctionParameter("text", String.self) }) {
            (context, a: Echo) -> String in
            seen.thread = Self.thread()
            seen.context = (context.isCancelled, context.functionId)
            return a.text + "!"
        }
        let caller = Self.thread()
        let outcome = await d.execute(AppFunctionInvocation("where"), arguments: #"{"text":"hi"}"#)
        XCTAssertEqual(try outcome.result(as: String.self), "hi!")
        XCTAssertNotEqual(pthread_equal(try XCTUnwrap(seen.thread), caller), 0, "the handler ran on the calling thread")
        XCTAssertEqual(seen.context?.cancelled, false)
        XCTAssertEqual(seen.context?.id, "where")
        // a plain success: its whole JSON is what the core wrote
        XCTAssertEqual(outcome.json, #"{"status":"success","result":"hi!","dialog":null,"errorCode":null,"message":null}"#)
        XCTAssertEqual(outcome.resultJSON, #""hi!""#)
        XCTAssertNil(outcome.dialog)
        XCTAssertNil(outcome.errorCode)
        XCTAssertFalse(outcome.isFinal)
        // many in a row on one task: each keeps nothing of the last (the spare token, the box)
        for i in 0..<200 {
            let o = await d.execute("echo", arguments: #"{"text":"n\#(i)"}"#)
            XCTAssertEqual(try o.result(as: String.self), "n\(i)")
        }
        try await drained(d)
    }

    func testAnOutcomeWithMoreThanAResultKeepsTheCoresJSON() async throws {
        let d = try dispatcher()
        try d.register(AppFunctionDescriptor("say") { AppFunctionParameter("text", String.self) }) {
            (context, a: Echo) -> String in
            context.say("Said \(a.text).")
            return a.text
        }
        try d.register(AppFunctionDescriptor("nothing")) { (_, _: NoArguments) -> String? in nil }
        let said = await d.execute("say", arguments: #"{"text":"hi"}"#)
        XCTAssertEqual(said.json, #"{"status":"success","result":"hi","dialog":"Said hi.","errorCode":null,"message":null}"#)
        XCTAssertEqual(said.dialog, "Said hi.")
        let nothing = await d.execute("nothing")
        XCTAssertEqual(nothing.status, .success)
        XCTAssertNil(nothing.resultJSON)
        XCTAssertEqual(nothing.json, #"{"status":"success","result":null,"dialog":null,"errorCode":null,"message":null}"#)
        let missing = await d.execute("echo")
        XCTAssertEqual(missing.errorCode, .invalidArgument)
        XCTAssertTrue(missing.json.contains(#""errorCode":"InvalidArgument""#), missing.json)
    }

    func testALateAnswerResumesTheCaller() async throws {
        let d = try dispatcher()
        let release = Flag()
        try d.register(AppFunctionDescriptor("later") { AppFunctionParameter("text", String.self) }) {
            (_, a: Echo) async throws -> String in
            try await release.wait()
            return a.text + " later"
        }
        let call = Task { await d.execute("later", arguments: #"{"text":"hi"}"#) }
        // the call waits for its handler
        let clock = ContinuousClock(), end = clock.now + .seconds(5)
        while d.inFlight != 1 && clock.now < end { try await Task.sleep(for: .milliseconds(1)) }
        XCTAssertEqual(d.inFlight, 1, "the call waits for its handler")
        try await Task.sleep(for: .milliseconds(10))
        XCTAssertEqual(d.inFlight, 1, "still waiting")
        release.set()
        let outcome = await call.value
        XCTAssertEqual(try outcome.result(as: String.self), "hi later")
        try await drained(d)
        // a delegate answering from a task of its own makes an inline handler's call wait too
        struct Later: AppFunctionDelegate {
            func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate {
                try? await Task.sleep(for: .milliseconds(5))
                return .allow
            }
        }
        try d.addDelegate(Later())
        let gated = await d.execute("echo", arguments: #"{"text":"gated"}"#)
        XCTAssertEqual(try gated.result(as: String.self), "gated")
    }

    func testCancellingBeforeTheCallCancelsItInTheCore() async throws {
        let d = try dispatcher()
        let ran = Counter()
        try d.register(AppFunctionDescriptor("count")) { (_, _: NoArguments) -> String in
            ran.increment()
            return "ran"
        }
        let outcome = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await d.execute("count")
        }.value
        XCTAssertEqual(outcome.errorCode, .cancelled, "\(outcome)")
        XCTAssertEqual(ran.value, 0, "a call cancelled before it starts runs no handler")
        // the cancelled token is not kept for the next call of this thread
        let next = await d.execute("count")
        XCTAssertEqual(try next.result(as: String.self), "ran")
    }

    func testCancellingWhileAnInlineHandlerRunsReachesTheCore() async throws {
        let d = try dispatcher()
        final class Seen: @unchecked Sendable { var cancelled: (before: Bool, after: Bool)? }
        let seen = Seen()
        try d.register(AppFunctionDescriptor("self_cancel")) { (context, _: NoArguments) -> String in
            let before = context.isCancelled
            // what another thread's `task.cancel()` does while this handler runs
            withUnsafeCurrentTask { $0?.cancel() }
            seen.cancelled = (before, context.isCancelled)
            return "too late"
        }
        let outcome = await Task { await d.execute("self_cancel") }.value
        XCTAssertEqual(outcome.errorCode, .cancelled, "\(outcome)")
        XCTAssertEqual(seen.cancelled?.before, false)
        XCTAssertEqual(seen.cancelled?.after, true, "the core saw the cancellation while the handler ran")
        try await drained(d)
    }

    func testCancellingAfterTheCallChangesNothing() async throws {
        let d = try dispatcher()
        let outcomes = await Task { () -> (AppFunctionOutcome, AppFunctionOutcome) in
            let first = await d.execute("echo", arguments: #"{"text":"first"}"#)
            withUnsafeCurrentTask { $0?.cancel() }
            // the same task, now cancelled: its next call is cancelled, the first one stays done
            return (first, await d.execute("echo", arguments: #"{"text":"second"}"#))
        }.value
        XCTAssertEqual(try outcomes.0.result(as: String.self), "first")
        XCTAssertEqual(outcomes.1.errorCode, .cancelled, "\(outcomes.1)")
        // and a new task's calls run
        let again = await Task { await d.execute("echo", arguments: #"{"text":"again"}"#) }.value
        XCTAssertEqual(try again.result(as: String.self), "again")
    }

    /// Inline, late and cancelled calls from several tasks at once, each task's calls one after
    /// another: each gets its own outcome. A thread's spare outcome box and token serve its next
    /// call only once the last one left them (not while a late outcome's callback still holds
    /// the box, nor after its token was cancelled).
    func testInlineLateAndCancelledCallsFromManyTasksEachGetTheirOwnOutcome() async throws {
        let d = try dispatcher()
        try d.register(AppFunctionDescriptor("later") { AppFunctionParameter("text", String.self) }) {
            (_, a: Echo) async -> String in
            await Task.yield()
            return a.text
        }
        let results = await withTaskGroup(of: [String].self) { group -> [[String]] in
            for t in 0..<6 {
                group.addTask {
                    var wrong: [String] = []
                    for i in 0..<150 {
                        let text = "t\(t)-\(i)"
                        let arguments = #"{"text":"\#(text)"}"#
                        if i % 25 == 24 {
                            let cancelled = await Task {
                                withUnsafeCurrentTask { $0?.cancel() }
                                return await d.execute("echo", arguments: arguments)
                            }.value
                            if cancelled.errorCode != .cancelled { wrong.append("\(text): \(cancelled)") }
                            continue
                        }
                        let outcome = await d.execute(i % 3 == 0 ? "later" : "echo", arguments: arguments)
                        if (try? outcome.result(as: String.self)) != text { wrong.append("\(text): \(outcome)") }
                    }
                    return wrong
                }
            }
            var all: [[String]] = []
            for await r in group { all.append(r) }
            return all
        }
        XCTAssertEqual(results.count, 6)
        XCTAssertEqual(results.flatMap { $0 }, [], "every call got its own outcome")
        try await drained(d)
    }

    func testBadArgumentsNameWhatIsWrongAndWhere() async throws {
        struct Line: Codable { var sku: String; var quantity: Int32 }
        struct Args: Codable { var lines: [Line] }
        let d = AppFunctionDispatcher()
        // a descriptor that does not match the Codable type: its lines are strings
        try d.register(AppFunctionDescriptor("typed_order") {
            AppFunctionParameter("lines", [String].self)
        }) { (_, a: Args) -> String in "\(a.lines.count)" }
        let outcome = await d.execute("typed_order", arguments: #"{"lines":["a"]}"#)
        XCTAssertEqual(outcome.errorCode, .handlerFailed, "\(outcome)")
        XCTAssertEqual(outcome.message,
                       "typed_order: the bound arguments do not decode into Args (does the descriptor match the type?): "
                       + "at `lines[0]`: Expected to decode Dictionary<String, Any> but found a string instead.")
    }
    /// The context's call facts are read from the call when asked (a handler that reads none
    /// pays for none): during the call they are the invocation's, and a context kept past its
    /// call answers their defaults, as Kotlin's and .NET's do.
    func testTheContextReadsTheCallsFactsWhenAskedAndItsDefaultsAfterTheCall() async throws {
        let d = AppFunctionDispatcher()
        let kept = Shared<AppFunctionContext?>(nil)
        let during = Shared<String>("")
        try d.register(AppFunctionDescriptor("where")) { context -> String in
            kept.update { $0 = context }
            during.update {
                $0 = "\(context.platform) \(context.isForeground) \(context.callerPackage) \(context.isEntityLookup)"
            }
            return "ok"
        }
        let outcome = await d.execute(
            AppFunctionInvocation("where", platform: .android, isForeground: true, callerPackage: "com.google.android.gms"),
            arguments: "{}")
        XCTAssertTrue(outcome.isSuccess, "\(outcome)")
        XCTAssertEqual(during.value, "android true com.google.android.gms false")
        let context = try XCTUnwrap(kept.value)
        XCTAssertEqual(context.functionId, "where", "the id is kept: it was read when the context was made")
        XCTAssertEqual(context.platform, .other)
        XCTAssertFalse(context.isForeground)
        XCTAssertEqual(context.callerPackage, "")
        XCTAssertFalse(context.isEntityLookup)
        XCTAssertNil(context.argumentsJSON)
        try await drained(d)
    }
}
