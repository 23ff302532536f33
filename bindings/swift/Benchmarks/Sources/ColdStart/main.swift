// The Swift cold start (issue 30): a fresh process registers the demo app of 50 functions
// through the Swift API (the demo's 8 functions, its entity, toolkit, metadata schema and
// types, plus numbered copies of the functions: create_order_2, ...), then makes its first
// call, create_order answering an Order. It prints CLOCK_MONOTONIC nanoseconds at the start
// of main and at the end of each step (ci/bench/coldstart.py --binding):
//   coldstart main=NS load=NS register=NS call=NS
// load: the ABI check and the first dispatcher (the library itself is mapped by the dynamic
// loader before main, as for every linked Swift library); register: everything above;
// call: `await execute` of create_order to its outcome.
//
//   ColdStart                          the cold start
//   COLDSTART_FUNCTIONS=N ColdStart    ... of N functions (default 50)
// (Settings come from the environment: started by chroot(8) without /proc, a Swift program
// on Linux sees no command-line arguments.)
import AppFunctions
import DemoApp
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

let tMain = now()

// MARK: Main

let functions = getenv("COLDSTART_FUNCTIONS").flatMap { Int(String(cString: $0)) } ?? 50

guard AppFunctionsLibrary.abiVersion == AppFunctionsLibrary.expectedABIVersion else {
    fatalError("the library has ABI \(AppFunctionsLibrary.abiVersion)")
}
/// Minor page faults so far (COLDSTART_TRACE: where the cold part of a step goes).
func faults() -> Int {
    var u = rusage()
    #if os(Linux)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
    #else
    getrusage(RUSAGE_SELF, &u)
    #endif
    return u.ru_minflt
}
let trace = getenv("COLDSTART_TRACE") != nil
let f0 = trace ? faults() : 0
let dispatcher = AppFunctionDispatcher() // checks the ABI and the error codes' names once
let tLoad = now()
let f1 = trace ? faults() : 0
try registerApp(dispatcher, functions: functions)
let tRegister = now()
if trace { print("minor page faults: load \(f1 - f0), register \(faults() - f1)") }
let outcome = await dispatcher.execute("create_order", arguments: #"{"customer":"acme","quantity":2}"#)
let tCall = now()
guard outcome.isSuccess, (try? outcome.result(as: Order.self))?.id == "o-1" else {
    fatalError("the first call failed: \(outcome)")
}
print("coldstart main=\(tMain) load=\(tLoad) register=\(tRegister) call=\(tCall)")
