// swift-tools-version:6.0
// A host package that takes AppFunctions from the release layout, as a user would. The
// dist lane copies this folder to target/dist-build/swift-check/, puts the Swift README's
// first program into Sources/ReadmeExample/main.swift, and runs `swift test` (through
// ci/lanes/swift.sh, linking the release's libappfunctions.so.1): the test runs that
// program and checks what it prints.
import PackageDescription

let package = Package(
    name: "ReadmeExample",
    dependencies: [.package(path: "../../dist/swift/AppFunctions")],
    targets: [
        .executableTarget(
            name: "ReadmeExample",
            dependencies: [.product(name: "AppFunctions", package: "AppFunctions")]),
        .testTarget(name: "ReadmeExampleTests", dependencies: ["ReadmeExample"]),
    ],
    swiftLanguageModes: [.v6]
)
