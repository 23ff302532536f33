import AppFunctions
import Foundation
import XCTest

/// Warmed-up loops of one round trip with a trivial handler: `execute` on the dispatcher, and
/// the same call through an agent view (the model's tool call). Time-boxed (about half a
/// second each) so the lane stays fast; run them alone in release for the README figures:
///   SWIFT_TEST_ARGS="-c release --filter BenchTests" ci/lanes/swift.sh
final class BenchTests: XCTestCase {
    struct Echo: Codable { var text: String }

    private func dispatcher() throws -> AppFunctionDispatcher {
        let d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("echo") {
            AppFunctionParameter("text", String.self)
        }) { (_, args: Echo) -> String in args.text }
        return d
    }

    /// The best ns/call of 2000-call batches over about half a second, after a warm-up.
    private func measure(_ call: () async -> AppFunctionOutcome) async -> (best: Int, total: Int) {
        for _ in 0..<2_000 { _ = await call() } // warm-up
        var best = Double.infinity
        var total = 0
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(500)
        while clock.now < deadline {
            let n = 2_000
            let start = clock.now
            for _ in 0..<n {
                let o = await call()
                precondition(o.status == .success)
            }
            let elapsed = clock.now - start
            let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
            best = min(best, ns / Double(n))
            total += n
        }
        return (Int(best), total)
    }

    func testBenchExecuteRoundTrip() async throws {
        let d = try dispatcher()
        let invocation = AppFunctionInvocation("echo")
        let r = await measure { await d.execute(invocation, arguments: #"{"text":"hi"}"#) }
        print("BENCH swift execute round trip: \(r.best) ns/call (best batch of 2000, \(r.total) calls)")
    }

    func testBenchViewExecuteRoundTrip() async throws {
        let d = try dispatcher()
        let view = try d.makeView()
        let invocation = AppFunctionInvocation("echo")
        let r = await measure { await view.execute(invocation, arguments: #"{"text":"hi"}"#) }
        print("BENCH swift view execute round trip: \(r.best) ns/call (best batch of 2000, \(r.total) calls)")
    }
}
