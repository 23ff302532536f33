// swift-tools-version:6.0
// The Swift binding of appfunctions: a C module over include/appfunctions.h and the
// `AppFunctions` library on top of it.
//
// By default the C module is a system library linking `libappfunctions` from the host's
// library path (ci/lanes/swift.sh passes -L/-rpath to target/release). For Apple
// platforms, set APPFUNCTIONS_XCFRAMEWORK to the path of the XCFramework built by
// scripts/build-xcframework.sh (or APPFUNCTIONS_XCFRAMEWORK_URL + _CHECKSUM for a
// released zip) and the same module comes from a binaryTarget instead (README.md,
// "Packaging").
import PackageDescription

let environment = Context.environment
let cModule: Target
if let path = environment["APPFUNCTIONS_XCFRAMEWORK"], !path.isEmpty {
    cModule = .binaryTarget(name: "CAppFunctions", path: path)
} else if let url = environment["APPFUNCTIONS_XCFRAMEWORK_URL"], !url.isEmpty,
          let checksum = environment["APPFUNCTIONS_XCFRAMEWORK_CHECKSUM"] {
    cModule = .binaryTarget(name: "CAppFunctions", url: url, checksum: checksum)
} else {
    cModule = .systemLibrary(name: "CAppFunctions", path: "Sources/CAppFunctions")
}

// The App Intents stand-in (Sources/AppIntentsStandIn) is linked only where Apple's
// AppIntents framework does not exist; on Apple platforms `import AppIntents` is the real one.
let withoutAppIntents: [Platform] = [.linux, .windows, .android]
let standIn: Target.Dependency = .target(name: "AppIntentsStandIn", condition: .when(platforms: withoutAppIntents))

let package = Package(
    name: "AppFunctions",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "AppFunctions", targets: ["AppFunctions"]),
        // what the generated App Intents (export format swift-app-intents) call
        .library(name: "AppFunctionsIntents", targets: ["AppFunctionsIntents"]),
    ],
    targets: [
        cModule,
        .target(name: "AppFunctions", dependencies: ["CAppFunctions"]),
        .target(name: "AppIntentsStandIn"),
        .target(name: "AppFunctionsIntents", dependencies: ["AppFunctions", standIn]),
        // the generated intents of the demo app and of the mapping set, compiled here as an app
        // target would compile them: links to tests/apple.rs's golden files (ci/dist.sh copies
        // their text into the released package)
        .target(name: "DemoIntents", dependencies: ["AppFunctionsIntents", standIn], path: "Tests/DemoIntents"),
        .target(name: "MappingIntents", dependencies: ["AppFunctionsIntents", standIn], path: "Tests/MappingIntents"),
        // what a .NET (MAUI) app's build writes: its generated intents (a copy of the test app's
        // build output, which its tests keep identical) and the NuGet package's Swift glue (a
        // link to bindings/dotnet/src/AppFunctions.Build/Swift/AppFunctionsDotNet.swift)
        .target(name: "DotNetIntents", dependencies: ["AppFunctionsIntents", standIn], path: "Tests/DotNetIntents"),
        .testTarget(name: "AppFunctionsTests",
                    dependencies: ["AppFunctions", "AppFunctionsIntents", "DemoIntents", "MappingIntents", "DotNetIntents", standIn],
                    // read by AppIntentsTests beside its source (a link to tests/golden's), and
                    // by DescriptorTextTests
                    exclude: ["apple-mapping.bundle.json", "descriptor-text.golden"]),
    ],
    swiftLanguageModes: [.v6]
)
