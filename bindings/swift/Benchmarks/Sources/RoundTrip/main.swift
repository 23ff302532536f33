// Round trips of a trivial handler for a profiler (perf, callgrind): ROUNDTRIP_CALLS calls
// (default 100,000) of one form, ROUNDTRIP_MODE:
//   typed         `await execute`, a Codable handler without `await` (the default)
//   raw           `await execute`, a raw JSON handler (no Codable: what the C figure's does)
//   async         `await execute`, the Codable handler written `async` (its own task)
//   blocking      `executeBlocking`, the Codable handler
//   blocking-raw  `executeBlocking`, the raw JSON handler
//   delegate      `await execute`, the Codable handler, one AppFunctionSynchronousDelegate
//                 allowing (inline, on the calling thread)
//   async-delegate  the same with an AppFunctionDelegate implementing `onInvoking` to allow
//                 (on a task of its own)
//   telemetry     the same with the seed's telemetry written the obvious way: a plain
//                 AppFunctionDelegate implementing only `onInvoked` (its default `onInvoking`
//                 learned at the first call and answered inline from then on)
//   figure        `await execute` of the C figure's call (benches/execute.rs `plain`): create_order
//                 with its three arguments, declared through the Swift API, and a handler
//                 that takes no arguments (nothing decoded) answering "ok", as the C one does
//   realistic     the seed's app as a call feels: scope hooks opening a store the handler
//                 reads, the sign-in check as an AppFunctionSynchronousDelegate reading the
//                 function id, and the telemetry above reading the id, the platform and
//                 the outcome
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
enum Priority: String, AppFunctionEnum { case low = "Low", normal = "Normal", high = "High" }

func check(_ o: AppFunctionOutcome) {
    guard o.isSuccess else { fatalError("round trip: \(o)") }
}

/// `calls` blocking round trips (a synchronous function: executeBlocking is not for async code).
func blockingRoundTrips(_ d: AppFunctionDispatcher, _ invocation: AppFunctionInvocation, _ calls: Int) {
    for _ in 0..<calls { check(d.executeBlocking(invocation, arguments: args)) }
}

let mode = getenv("ROUNDTRIP_MODE").map { String(cString: $0) } ?? "typed"
/// The call's arguments: the C figure's for `figure`, the echo's otherwise.
let args = mode == "figure" ? #"{"customer":"acme","quantity":2,"priority":"Normal"}"# : #"{"text":"hi"}"#
let calls = getenv("ROUNDTRIP_CALLS").flatMap { Int(String(cString: $0)) } ?? 100_000
let d = AppFunctionDispatcher()
try d.register(AppFunctionDescriptor("echo") { AppFunctionParameter("text", String.self) }) { (_, a: Echo) -> String in a.text }
try d.register(AppFunctionDescriptor("echo_async") { AppFunctionParameter("text", String.self) }) {
    (_, a: Echo) async -> String in a.text
}
try d.register(AppFunctionDescriptor("create_order") {
    AppFunctionParameter("customer", String.self)
    AppFunctionParameter("quantity", Int32.self)
    AppFunctionParameter("priority", Priority.self)
}) { _ -> String in "ok" }
try d.register(descriptorJSON: #"{"id":"echo_raw","parameters":[{"name":"text","type":"string"}],"result":"string"}"#) {
    _, _ in #""hi""#
}
/// Allows every call without `await` (inline).
struct Allow: AppFunctionSynchronousDelegate {}
/// Allows every call from its `async` `onInvoking` (a task per call).
struct AllowLater: AppFunctionDelegate {
    func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate { .allow }
}
/// What the delegates and the handler read, kept so the optimizer cannot drop the reads (the
/// calls run one at a time, on the calling task).
final class Sink: @unchecked Sendable {
    var count = 0
}
let sink = Sink()
/// The seed's telemetry: sees every outcome (the id, the platform, whether it succeeded).
struct Telemetry: AppFunctionDelegate {
    func onInvoked(_ context: AppFunctionContext, outcome: AppFunctionOutcome) {
        sink.count &+= context.functionId.utf8.count &+ Int(context.platform.rawValue) &+ (outcome.isSuccess ? 1 : 0)
    }
}
/// The seed's sign-in check: decides from the function id, inline.
struct SignIn: AppFunctionSynchronousDelegate {
    func onInvokingNow(_ context: AppFunctionContext) -> AppFunctionGate {
        context.functionId == "cancel_order" ? .openApp("Sign in to cancel orders.") : .allow
    }
}
/// The call's store, opened by the scope hooks.
final class Store: Sendable {
    let name = "orders"
}
if mode == "delegate" { try d.addDelegate(Allow()) }
if mode == "async-delegate" { try d.addDelegate(AllowLater()) }
if mode == "telemetry" { try d.addDelegate(Telemetry()) }
if mode == "realistic" {
    try d.setScopeHooks(begin: { _ in Store() }, end: { _, store in sink.count &+= store == nil ? 0 : 1 })
    try d.addDelegate(SignIn())
    try d.addDelegate(Telemetry())
    try d.register(AppFunctionDescriptor("echo_scoped") { AppFunctionParameter("text", String.self) }) {
        (context, a: Echo) -> String in
        guard let store = context.hostScope(as: Store.self) else { fatalError("no store") }
        return a.text + store.name
    }
}
let invocation = AppFunctionInvocation(
    mode.hasSuffix("raw") ? "echo_raw" : mode == "figure" ? "create_order" : mode == "async" ? "echo_async" : mode == "realistic" ? "echo_scoped" : "echo")
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
