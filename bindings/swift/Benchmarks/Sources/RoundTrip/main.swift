// Round trips of a trivial inline handler for a profiler: ROUNDTRIP_CALLS calls (default
// 100,000) of `await execute` off any actor, then from the main actor. The main thread waits
// on a semaphore instead of parking in dispatch (valgrind cannot follow the latter).
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

/// `calls` round trips, in ns per call.
func roundTrips(_ d: AppFunctionDispatcher, _ calls: Int) async -> Int64 {
    let invocation = AppFunctionInvocation("echo")
    let args = #"{"text":"hi"}"#
    let t0 = now()
    for _ in 0..<calls {
        let o = await d.execute(invocation, arguments: args)
        guard o.isSuccess else { fatalError("round trip: \(o)") }
    }
    return (now() - t0) / Int64(max(1, calls))
}

let calls = getenv("ROUNDTRIP_CALLS").flatMap { Int(String(cString: $0)) } ?? 100_000
let d = AppFunctionDispatcher()
try d.register(AppFunctionDescriptor("echo") { AppFunctionParameter("text", String.self) }) { (_, a: Echo) -> String in a.text }
let done = DispatchSemaphore(value: 0)
Task.detached {
    let ns = await roundTrips(d, calls)
    print("roundtrip \(ns) ns/call off any actor (\(calls) calls)")
    done.signal()
}
done.wait()
