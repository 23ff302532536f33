// The Swift cold start's registration alone, with a synchronous main (for callgrind, which
// cannot follow a main thread parked in dispatch): the demo app of 50 functions
// (COLDSTART_FUNCTIONS) registered through the Swift API on a fresh dispatcher, then exit.
import AppFunctions
import DemoApp
#if canImport(Glibc)
import Glibc
#endif

let functions = getenv("COLDSTART_FUNCTIONS").flatMap { Int(String(cString: $0)) } ?? 50
let dispatcher = AppFunctionDispatcher()
try registerApp(dispatcher, functions: functions)
