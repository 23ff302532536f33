import Foundation
import XCTest

/// Runs the Swift README's first program (built beside this test bundle) and checks its output.
final class ReadmeExampleTests: XCTestCase {
    func testTheReadmeProgramRunsAsWritten() throws {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [here, Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("ReadmeExample") }
        guard let program = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            return XCTFail("the ReadmeExample program was not built (looked at \(candidates.map(\.path)))")
        }
        let process = Process()
        process.executableURL = program
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, printed)
        XCTAssertEqual(printed, "success: \"Hello, Ada!\" (Greeted Ada.)\n")
    }
}
