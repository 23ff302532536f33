// Round trips of a trivial handler for a profiler (perf, callgrind): ROUNDTRIP_CALLS calls
// (default 100,000) of one form, ROUNDTRIP_MODE:
//   typed         `await execute`, a Codable handler without `await` (the default)
//   raw           `await execute`, a raw JSON handler (no Codable: what the C figure's does)
//   async         `await execute`, the Codable handler written `async` (its own task)
//   blocking      `executeBlocking`, the Codable handler
//   blocking-raw  `executeBlocking`, the raw JSON handler
//   delegate      `await execute`, the Codable handler, one AppFunctionSynchronousDelegate
//                 allowing (inline, on the calling thread)
//   async-delegate  the same with an AppFunctionDelegate allowing (its `onInvoking` on a task)
// The calls run on a task off any actor; the main thread waits on a semaphore instead of
// parking in dispatch (valgrind cannot follow the latter). Instructions per call: the
// difference of two callgrind runs of different ROUNDTRIP_CALLS, over their difference.
import AppFunctions
import Dispatch
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

func now() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}

struct Echo: Codable { var text: String }
let args = #"{"text":"hi"}"#

func check(_ o: AppFunctionOutcome) {
    guard o.isSuccess else { fatalError("round trip: \(o)") }
}

/// `calls` blocking round trips (a synchronous function: executeBlocking is not for async code).
func blockingRoundTrips(_ d: AppFunctionDispatcher, _ invocation: AppFunctionInvocation, _ calls: Int) {
    for _ in 0..<calls { check(d.executeBlocking(invocation, arguments: args)) }
}

let calls = getenv("ROUNDTRIP_CALLS").flatMap { Int(String(cString: $0)) } ?? 100_000
let mode = getenv("ROUNDTRIP_MODE").map { String(cString: $0) } ?? "typed"
let d = AppFunctionDispatcher()
try d.register(AppFunctionDescriptor("echo") { AppFunctionParameter("text", String.self) }) { (_, a: Echo) -> String in a.text }
try d.register(AppFunctionDescriptor("echo_async") { AppFunctionParameter("text", String.self) }) {
    (_, a: Echo) async -> String in a.text
}
try d.register(descriptorJSON: #"{"id":"echo_raw","parameters":[{"name":"text","type":"string"}],"result":"string"}"#) {
    _, _ in #""hi""#
}
/// Allows every call without `await` (inline).
struct Allow: AppFunctionSynchronousDelegate {}
/// Allows every call from its `async` `onInvoking` (a task per call).
struct AllowLater: AppFunctionDelegate {}
if mode == "delegate" { try d.addDelegate(Allow()) }
if mode == "async-delegate" { try d.addDelegate(AllowLater()) }
let invocation = AppFunctionInvocation(mode.hasSuffix("raw") ? "echo_raw" : mode == "async" ? "echo_async" : "echo")
let done = DispatchSemaphore(value: 0)
let t0 = now()
if mode.hasPrefix("blocking") {
    blockingRoundTrips(d, invocation, calls)
    done.signal()
} else {
    Task.detached {
        for _ in 0..<calls { check(await d.execute(invocation, arguments: args)) }
        done.signal()
    }
}
done.wait()
print("roundtrip \(mode): \((now() - t0) / Int64(max(1, calls))) ns/call (\(calls) calls)")
