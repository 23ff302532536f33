import AppFunctions
import Foundation
import XCTest

/// Warmed-up loops of one round trip with a trivial handler: `execute` on the dispatcher, and
/// the same call through an agent view (the model's tool call), in alternating batches so both
/// see the same machine load. Time-boxed (about a second) so the lane stays fast; run it alone
/// in release for the README figures:
///   SWIFT_TEST_ARGS="-c release --filter BenchTests" ci/lanes/swift.sh
final class BenchTests: XCTestCase {
    struct Echo: Codable { var text: String }

    func testBenchExecuteAndViewRoundTrips() async throws {
        let d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("echo") {
            AppFunctionParameter("text", String.self)
        }) { (_, args: Echo) -> String in args.text }
        let view = try d.makeView()
        let invocation = AppFunctionInvocation("echo")
        let args = #"{"text":"hi"}"#

        /// One batch of `n` calls, in ns per call.
        func batch(_ n: Int, _ call: () async -> AppFunctionOutcome) async -> Double {
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<n {
                let o = await call()
                precondition(o.status == .success)
            }
            let elapsed = clock.now - start
            return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(n)
        }

        _ = await batch(2_000) { await d.execute(invocation, arguments: args) } // warm-up
        _ = await batch(2_000) { await view.execute(invocation, arguments: args) }
        var best = (execute: Double.infinity, view: Double.infinity)
        var total = 0
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(1)
        while clock.now < deadline {
            best.execute = min(best.execute, await batch(2_000) { await d.execute(invocation, arguments: args) })
            best.view = min(best.view, await batch(2_000) { await view.execute(invocation, arguments: args) })
            total += 2_000
        }
        print("BENCH swift execute round trip: \(Int(best.execute)) ns/call (best batch of 2000, \(total) calls)")
        print("BENCH swift view execute round trip: \(Int(best.view)) ns/call (best batch of 2000, \(total) calls)")
    }
}
