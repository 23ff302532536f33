import AppFunctions
import Foundation
import XCTest

/// Warmed-up loops of one round trip with a trivial handler: `execute` on the dispatcher, and
/// the same call through an agent view (the model's tool call), in alternating batches so both
/// see the same machine load. Time-boxed (about a second each) so the lane stays fast; run it
/// alone in release for the README figures:
///   SWIFT_TEST_ARGS="-c release --filter BenchTests" ci/lanes/swift.sh
///
/// Beside them, in the same batches: the C figure's call itself made through the Swift API
/// (`create_order` declared with its three parameters, its handler taking no arguments and
/// answering "ok" as the C one does: nothing decoded), the echo with an `async` handler (its own task), with
/// a raw JSON handler (no Codable: what the C figure's handler does), `executeBlocking` (no
/// async machinery) with either handler, and Swift concurrency's own floor, an `async`
/// function awaiting a continuation resumed inline (what no async API can go below). And the C
/// figure's call made from this process through the C ABI alone (CFigureLoops), with the core's
/// part of `await execute` the same way: the binding's loops divided by a C figure of the same
/// moment and process. And the realistic call (the seed's app as a call feels: scope hooks
/// opening a store the handler reads, the sign-in check as an `AppFunctionSynchronousDelegate`,
/// the telemetry as a plain `AppFunctionDelegate` implementing only `onInvoked`) beside the same
/// call made through the C ABI alone (`CFigureLoops.realisticBatch`).
final class BenchTests: XCTestCase {
    struct Echo: Codable { var text: String }

    /// The realistic call's store, opened by the scope hooks.
    final class Store: Sendable { let name = "orders" }
    /// The seed's sign-in check: decides from the function id, inline.
    struct SignIn: AppFunctionSynchronousDelegate {
        func onInvokingNow(_ context: AppFunctionContext) -> AppFunctionGate {
            context.functionId == "cancel_order" ? .openApp("Sign in to cancel orders.") : .allow
        }
    }
    /// The seed's telemetry written the obvious way: the id, the platform, the outcome.
    final class Telemetry: AppFunctionDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var seen = 0
        func onInvoked(_ context: AppFunctionContext, outcome: AppFunctionOutcome) {
            let n = context.functionId.utf8.count + Int(context.platform.rawValue) + (outcome.isSuccess ? 1 : 0)
            lock.lock(); seen &+= n; lock.unlock()
        }
    }

    /// The realistic call's dispatcher.
    private func realisticDispatcher() throws -> AppFunctionDispatcher {
        let d = AppFunctionDispatcher()
        try d.setScopeHooks(begin: { _ in Store() })
        try d.addDelegate(SignIn())
        try d.addDelegate(Telemetry())
        try d.register(AppFunctionDescriptor("echo_scoped") { AppFunctionParameter("text", String.self) }) {
            (context, a: Echo) -> String in
            guard let store = context.hostScope(as: Store.self) else { throw AppFunctionError(.internalError, "no store") }
            return a.text + store.name
        }
        return d
    }

    /// One batch of `n` calls, in ns per call.
    private func batch(_ n: Int, _ call: () async -> AppFunctionOutcome) async -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<n {
            let o = await call()
            precondition(o.status == .success)
        }
        let elapsed = clock.now - start
        return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(n)
    }

    /// One batch of `n` blocking calls, in ns per call.
    private func blockingBatch(_ n: Int, _ call: () -> AppFunctionOutcome) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<n {
            let o = call()
            precondition(o.status == .success)
        }
        let elapsed = clock.now - start
        return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(n)
    }

    func testBenchExecuteAndViewRoundTrips() async throws {
        let d = AppFunctionDispatcher()
        // a handler without `await`: it answers inline (the synchronous overload)
        try d.register(AppFunctionDescriptor("echo") {
            AppFunctionParameter("text", String.self)
        }) { (_, args: Echo) -> String in args.text }
        // the same as an `async` handler: it runs on a task of its own
        try d.register(AppFunctionDescriptor("echo_async") {
            AppFunctionParameter("text", String.self)
        }) { (_, args: Echo) async -> String in args.text }
        // the raw form: the bound arguments' JSON in, the result's JSON out, no Codable
        try d.register(descriptorJSON: #"{"id":"echo_raw","parameters":[{"name":"text","type":"string"}],"result":"string"}"#) {
            _, _ in #""hi""#
        }
        // the C figure's call (benches/execute.rs `plain`, CFigureLoops' `figureBatch`): three
        // arguments bound and checked by the core, a handler that reads none answering "ok"
        try d.register(AppFunctionDescriptor("create_order") {
            AppFunctionParameter("customer", String.self)
            AppFunctionParameter("quantity", Int32.self)
            AppFunctionParameter("priority", Priority.self)
        }) { _ -> String in "ok" }
        let view = try d.makeView()
        let invocation = AppFunctionInvocation("echo")
        let asyncInvocation = AppFunctionInvocation("echo_async")
        let rawInvocation = AppFunctionInvocation("echo_raw")
        let args = #"{"text":"hi"}"#
        let figureInvocation = AppFunctionInvocation("create_order")
        let figureArgs = #"{"customer":"acme","quantity":2,"priority":"Normal"}"#
        let figure = await d.execute(figureInvocation, arguments: figureArgs)
        XCTAssertEqual(try figure.result(as: String.self), "ok")
        let ready = await d.execute(invocation, arguments: args)
        XCTAssertEqual(try ready.result(as: String.self), "hi")
        let floorOutcome = ready
        let rd = try realisticDispatcher()
        let realisticInvocation = AppFunctionInvocation("echo_scoped")
        let realistic = await rd.execute(realisticInvocation, arguments: args)
        XCTAssertEqual(try realistic.result(as: String.self), "hiorders")

        /// The floor: an async call that awaits a continuation resumed before it suspends.
        @inline(never) func continuationFloor() async -> AppFunctionOutcome {
            await withUnsafeContinuation { $0.resume(returning: floorOutcome) }
        }
        @inline(never) func checkedContinuationFloor() async -> AppFunctionOutcome {
            await withCheckedContinuation { $0.resume(returning: floorOutcome) }
        }

        let c = CFigureLoops()

        let n = 2_000
        _ = await batch(n) { await d.execute(invocation, arguments: args) } // warm-up
        _ = await batch(n) { await view.execute(invocation, arguments: args) }
        _ = await batch(n) { await d.execute(figureInvocation, arguments: figureArgs) }
        _ = await batch(n) { await d.execute(asyncInvocation, arguments: args) }
        _ = blockingBatch(n) { d.executeBlocking(invocation, arguments: args) }
        _ = c.figureBatch(n)
        _ = c.echoBatch(n)
        _ = c.asyncEchoBatch(n)
        _ = await batch(n) { await rd.execute(realisticInvocation, arguments: args) }
        _ = c.realisticBatch(n)
        var best = (execute: Double.infinity, view: Double.infinity, figure: Double.infinity, async: Double.infinity,
                    raw: Double.infinity, blocking: Double.infinity, blockingRaw: Double.infinity,
                    floor: Double.infinity, checkedFloor: Double.infinity,
                    cFigure: Double.infinity, cEcho: Double.infinity, cAsyncEcho: Double.infinity,
                    realistic: Double.infinity, cRealistic: Double.infinity)
        var total = 0
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(2)
        while clock.now < deadline {
            best.execute = min(best.execute, await batch(n) { await d.execute(invocation, arguments: args) })
            best.view = min(best.view, await batch(n) { await view.execute(invocation, arguments: args) })
            best.figure = min(best.figure, await batch(n) { await d.execute(figureInvocation, arguments: figureArgs) })
            best.async = min(best.async, await batch(n) { await d.execute(asyncInvocation, arguments: args) })
            best.raw = min(best.raw, await batch(n) { await d.execute(rawInvocation, arguments: args) })
            best.blocking = min(best.blocking, blockingBatch(n) { d.executeBlocking(invocation, arguments: args) })
            best.blockingRaw = min(best.blockingRaw, blockingBatch(n) { d.executeBlocking(rawInvocation, arguments: args) })
            best.floor = min(best.floor, await batch(n) { await continuationFloor() })
            best.checkedFloor = min(best.checkedFloor, await batch(n) { await checkedContinuationFloor() })
            best.cFigure = min(best.cFigure, c.figureBatch(n))
            best.cEcho = min(best.cEcho, c.echoBatch(n))
            best.cAsyncEcho = min(best.cAsyncEcho, c.asyncEchoBatch(n))
            best.realistic = min(best.realistic, await batch(n) { await rd.execute(realisticInvocation, arguments: args) })
            best.cRealistic = min(best.cRealistic, c.realisticBatch(n))
            total += n
        }
        print("BENCH swift execute round trip: \(Int(best.execute)) ns/call (best batch of \(n), \(total) calls)")
        print("BENCH swift view execute round trip: \(Int(best.view)) ns/call (best batch of \(n), \(total) calls)")
        print("BENCH swift execute, the C figure's call (a handler without arguments): \(Int(best.figure)) ns/call (best batch of \(n), \(total) calls)")
        print("BENCH swift execute async handler round trip: \(Int(best.async)) ns/call (best batch of \(n), \(total) calls)")
        print("BENCH swift execute raw JSON handler round trip: \(Int(best.raw)) ns/call (best batch of \(n), \(total) calls)")
        print("BENCH swift executeBlocking round trip: \(Int(best.blocking)) ns/call (best batch of \(n), \(total) calls)")
        print("BENCH swift executeBlocking raw JSON handler round trip: \(Int(best.blockingRaw)) ns/call (best batch of \(n), \(total) calls)")
        print("BENCH swift continuation floor: \(Int(best.floor)) ns/call (withUnsafeContinuation resumed inline)")
        print("BENCH swift checked continuation floor: \(Int(best.checkedFloor)) ns/call (withCheckedContinuation resumed inline)")
        print("BENCH swift C af_execute_json, the C figure's call (same process): \(Int(best.cFigure)) ns/call (best batch of \(n), \(total) calls)")
        print("BENCH swift C af_execute_json, the echo (same process): \(Int(best.cEcho)) ns/call (best batch of \(n), \(total) calls)")
        print("BENCH swift C af_execute_async, the echo with a kept token, inline (same process): \(Int(best.cAsyncEcho)) ns/call (best batch of \(n), \(total) calls)")
        print("BENCH swift execute realistic call: \(Int(best.realistic)) ns/call (best batch of \(n), \(total) calls)")
        print("BENCH swift C af_execute_async, the realistic call (same process): \(Int(best.cRealistic)) ns/call (best batch of \(n), \(total) calls)")
    }
}
