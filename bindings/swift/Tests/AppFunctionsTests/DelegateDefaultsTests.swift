@testable import AppFunctions
import Foundation
import XCTest

/// A delegate method left to the protocol's default is learned at the delegate's first call
/// (Context.swift's `DelegateProbe`, Trampolines.swift's `DelegateBox`) and then answered
/// without being called: a default `onInvoking` allows inline, with no task, and a default
/// `onInvoked` is not handed the outcome. What a delegate implements runs on every call, and a
/// default run from inside another delegate's implementation is not taken for that delegate's.
///
/// Where the gate is answered shows up in where the handler runs: `executeBlocking` goes on on
/// the calling thread after an inline gate (a gate answered by a task goes on on the task's
/// thread, or on the calling one when the task was quicker than the callback's return: only the
/// inline case is certain).
final class DelegateDefaultsTests: XCTestCase {
    struct Echo: Codable { var text: String }

    /// The threads the handler ran on, in call order.
    final class Threads: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [pthread_t] = []
        func note() { lock.lock(); seen.append(pthread_self()); lock.unlock() }
        var all: [pthread_t] { lock.lock(); defer { lock.unlock() }; return seen }
    }

    /// Counts what it is told, by name.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        func add(_ what: String) { lock.lock(); counts[what, default: 0] += 1; lock.unlock() }
        func count(_ what: String) -> Int { lock.lock(); defer { lock.unlock() }; return counts[what] ?? 0 }
    }

    /// The seed's telemetry written the obvious way: a plain delegate, only `onInvoked`.
    struct Telemetry: AppFunctionDelegate {
        let tally: Tally
        func onInvoked(_ context: AppFunctionContext, outcome: AppFunctionOutcome) {
            tally.add(outcome.isSuccess ? "success:\(context.functionId)" : "failure:\(context.functionId)")
        }
    }

    /// Implements `onInvoking` (a sign-in gate): runs on every call, on a task.
    struct SignIn: AppFunctionDelegate {
        let tally: Tally
        func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate {
            tally.add("onInvoking")
            return context.functionId == "archive" ? .deny("Sign in to archive.") : .allow
        }
    }

    /// Keeps both defaults.
    struct Nothing: AppFunctionDelegate {}

    /// Implements both methods by running another delegate's (defaults included).
    struct Wrapper: AppFunctionDelegate {
        let inner: any AppFunctionDelegate
        let tally: Tally
        func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate {
            tally.add("wrapper.onInvoking")
            return await inner.onInvoking(context)
        }
        func onInvoked(_ context: AppFunctionContext, outcome: AppFunctionOutcome) {
            tally.add("wrapper.onInvoked")
            inner.onInvoked(context, outcome: outcome)
        }
    }

    private func dispatcher(_ threads: Threads) throws -> AppFunctionDispatcher {
        let d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("echo") { AppFunctionParameter("text", String.self) }) {
            (_, a: Echo) -> String in
            threads.note()
            return a.text
        }
        try d.register(AppFunctionDescriptor("archive") { AppFunctionParameter("text", String.self) }) {
            (_, a: Echo) -> String in a.text
        }
        return d
    }

    private func echo(_ d: AppFunctionDispatcher, _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let outcome = d.executeBlocking(AppFunctionInvocation("echo"), arguments: #"{"text":"\#(text)"}"#)
        XCTAssertEqual(try outcome.result(as: String.self), text, "\(outcome)", file: file, line: line)
    }

    func testADefaultOnInvokingRunsOnATaskOnceThenAllowsInline() throws {
        let threads = Threads(), tally = Tally()
        let d = try dispatcher(threads)
        try d.addDelegate(Telemetry(tally: tally))
        let caller = pthread_self()
        for i in 0..<4 { echo(d, "call \(i)") }

        let ran = threads.all
        XCTAssertEqual(ran.count, 4)
        // the first call learned the default on a task; the others were answered inline
        for t in ran.dropFirst() {
            XCTAssertNotEqual(pthread_equal(t, caller), 0, "a learned default allows inline: the call stayed on its thread")
        }
        // what the delegate implements saw every call, the first included
        XCTAssertEqual(tally.count("success:echo"), 4)
        let refused = d.executeBlocking(AppFunctionInvocation("echo"), arguments: #"{"text":1}"#)
        XCTAssertEqual(refused.errorCode, .invalidArgument)
        XCTAssertEqual(tally.count("failure:echo"), 1, "a refusal still reaches onInvoked")
    }

    func testAnImplementedOnInvokingRunsOnEveryCall() throws {
        let threads = Threads(), tally = Tally()
        let d = try dispatcher(threads)
        try d.addDelegate(SignIn(tally: tally))
        for i in 0..<4 { echo(d, "call \(i)") }
        let archived = d.executeBlocking(AppFunctionInvocation("archive"), arguments: #"{"text":"x"}"#)
        XCTAssertEqual(archived.errorCode, .denied)
        XCTAssertEqual(archived.message, "Sign in to archive.")

        XCTAssertEqual(tally.count("onInvoking"), 5)
    }

    /// The learning itself, on the delegate's box: probed from inside a live call (its context).
    func testTheBoxLearnsWhichMethodsAreDefaults() async throws {
        let tally = Tally()
        let delegates: [any AppFunctionDelegate] = [Telemetry(tally: tally), SignIn(tally: tally), Nothing(),
                                                    Wrapper(inner: Nothing(), tally: tally)]
        let boxes = delegates.map { DelegateBox($0) }
        let learned = Locked<[String]>([])
        let d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("probe")) { (context, _: NoArguments) async -> String in
            for b in boxes {
                let before = "\(b.isDefault(.onInvoking) as Any) \(b.isDefault(.onInvoked) as Any)"
                _ = await b.onInvoking(context, probing: true)
                b.onInvoked(context, outcome: AppFunctionOutcome(failure: .handlerFailed, "probe"), probing: true)
                let after = "\(b.isDefault(.onInvoking)!) \(b.isDefault(.onInvoked)!)"
                learned.withLock { $0.append("\(before) -> \(after)") }
            }
            return "done"
        }
        let outcome = await d.execute("probe")
        XCTAssertEqual(try outcome.result(as: String.self), "done")
        XCTAssertEqual(learned.withLock { $0 }, [
            "nil nil -> true false", // Telemetry: only onInvoked
            "nil nil -> false true", // SignIn: only onInvoking
            "nil nil -> true true", // Nothing
            "nil nil -> false false", // Wrapper: both, running Nothing's defaults inside
        ])
        XCTAssertEqual(tally.count("onInvoking"), 1)
        XCTAssertEqual(tally.count("failure:probe"), 1)
    }

    func testADefaultRunByAnotherDelegateIsNotTakenForItsOwn() throws {
        let threads = Threads(), tally = Tally()
        let d = try dispatcher(threads)
        // the wrapper's implementations run the inner delegate's defaults every time
        try d.addDelegate(Wrapper(inner: Nothing(), tally: tally))
        for i in 0..<4 { echo(d, "call \(i)") }
        XCTAssertEqual(tally.count("wrapper.onInvoking"), 4)
        XCTAssertEqual(tally.count("wrapper.onInvoked"), 4)

        // a wrapper of its own type (both implement): the same
        let tally2 = Tally()
        let d2 = try dispatcher(Threads())
        try d2.addDelegate(Wrapper(inner: Wrapper(inner: Nothing(), tally: tally2), tally: tally2))
        for i in 0..<3 { echo(d2, "call \(i)") }
        XCTAssertEqual(tally2.count("wrapper.onInvoking"), 6)
        XCTAssertEqual(tally2.count("wrapper.onInvoked"), 6)
    }

    func testDelegatesOfBothKindsLearnApartAndConcurrentFirstCallsAgree() async throws {
        let tally = Tally()
        let d = try dispatcher(Threads())
        try d.addDelegate(Nothing())
        try d.addDelegate(Telemetry(tally: tally))
        try d.addDelegate(SignIn(tally: tally))
        // many first calls at once: each may probe, every one answers
        let n = 64
        let results = await withTaskGroup(of: AppFunctionOutcome.self) { group in
            for i in 0..<n {
                group.addTask { await d.execute("echo", arguments: #"{"text":"\#(i)"}"#) }
            }
            var all: [AppFunctionOutcome] = []
            for await o in group { all.append(o) }
            return all
        }
        XCTAssertEqual(results.filter(\.isSuccess).count, n)
        XCTAssertEqual(tally.count("success:echo"), n)
        XCTAssertEqual(tally.count("onInvoking"), n)
        // and after them
        for i in 0..<3 {
            let o = await d.execute("echo", arguments: #"{"text":"after \#(i)"}"#)
            XCTAssertEqual(try o.result(as: String.self), "after \(i)")
        }
        let refused = await d.execute("archive", arguments: #"{"text":"x"}"#)
        XCTAssertEqual(refused.errorCode, .denied)
        XCTAssertEqual(tally.count("success:echo"), n + 3)
        XCTAssertEqual(tally.count("failure:archive"), 1)
        XCTAssertEqual(tally.count("onInvoking"), n + 4)
    }
}
