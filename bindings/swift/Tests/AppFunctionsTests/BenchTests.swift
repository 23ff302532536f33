import AppFunctions
import Foundation
import XCTest

/// A warmed-up loop of one `execute` round trip with a trivial handler. Time-boxed (about
/// half a second) so the lane stays fast; run it alone in release for the README figure:
///   SWIFT_TEST_ARGS="-c release --filter BenchTests" ci/lanes/swift.sh
final class BenchTests: XCTestCase {
    struct Echo: Codable { var text: String }

    func testBenchExecuteRoundTrip() async throws {
        let d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("echo") {
            AppFunctionParameter("text", String.self)
        }) { (_, args: Echo) -> String in args.text }
        let args = #"{"text":"hi"}"#
        let invocation = AppFunctionInvocation("echo")

        for _ in 0..<2_000 { _ = await d.execute(invocation, arguments: args) } // warm-up

        var best = Double.infinity
        var total = 0
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(500)
        while clock.now < deadline {
            let n = 2_000
            let start = clock.now
            for _ in 0..<n {
                let o = await d.execute(invocation, arguments: args)
                precondition(o.status == .success)
            }
            let elapsed = clock.now - start
            let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
            best = min(best, ns / Double(n))
            total += n
        }
        print("BENCH swift execute round trip: \(Int(best)) ns/call (best batch of 2000, \(total) calls)")
    }
}
