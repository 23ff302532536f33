// swift-tools-version:6.0
// Benchmark programs of the Swift binding, kept out of the binding's own package (no
// product of it, nothing an app builds). ci/bench/coldstart-swift.sh builds them in release.
//   ColdStart       the demo app of 50 functions registered through the Swift API, then its
//                   first call; prints `coldstart main=NS load=NS register=NS call=NS`
//                   (CLOCK_MONOTONIC, ci/bench/coldstart.py's protocol).
//   ColdStartFloor  the same program without appfunctions: `coldstart main=NS done=NS`.
//   DemoApp         the demo app written with the Swift API (what ColdStart registers)
//   RegisterOnly    its registration alone, with a synchronous main (for callgrind)
//   RoundTrip       CALLS (env ROUNDTRIP_CALLS) round trips of a trivial inline handler,
//                   for a profiler (perf; callgrind: its main thread never parks in dispatch).
import PackageDescription

let package = Package(
    name: "AppFunctionsBenchmarks",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "DemoApp", dependencies: [.product(name: "AppFunctions", package: "swift")]),
        .executableTarget(name: "ColdStart", dependencies: ["DemoApp", .product(name: "AppFunctions", package: "swift")]),
        .executableTarget(name: "RegisterOnly", dependencies: ["DemoApp", .product(name: "AppFunctions", package: "swift")]),
        .executableTarget(name: "ColdStartFloor"),
        .executableTarget(name: "RoundTrip", dependencies: [.product(name: "AppFunctions", package: "swift")]),
    ],
    swiftLanguageModes: [.v6]
)
