// The floor of the Swift cold start: the same program as ColdStart (Swift and Foundation
// loaded, the clock read, the line printed) without appfunctions.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

func now() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}

let tMain = now()
// what ColdStart does besides appfunctions: read its settings
let mode = getenv("COLDSTART_ROUNDTRIP")
let tDone = now()
print("coldstart main=\(tMain) done=\(tDone)" + (mode == nil ? "" : " (no round trips here)"))
