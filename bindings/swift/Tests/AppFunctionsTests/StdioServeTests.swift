import AppFunctions
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `serveMCPStdio()` serves the process's own stdin and stdout: the test puts pipes in their
/// place (fds 0 and 1) for its duration and speaks MCP over them, as a desktop client does.
final class StdioServeTests: XCTestCase {
    func testServeMCPStdioServesStdinAndStdoutUntilStdinEnds() throws {
        let dispatcher = AppFunctionDispatcher()
        try registerShop(on: dispatcher, store: ShopStore())
        var toServer: [Int32] = [0, 0]
        var fromServer: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&toServer), 0)
        XCTAssertEqual(pipe(&fromServer), 0)
        fflush(nil)  // every C stream (naming `stdout` is not concurrency-safe in Swift 6)
        let savedIn = dup(0)
        let savedOut = dup(1)
        dup2(toServer[0], 0)
        dup2(fromServer[1], 1)
        close(toServer[0])
        close(fromServer[1])
        func restore() {
            fflush(nil)  // every C stream (naming `stdout` is not concurrency-safe in Swift 6)
            dup2(savedIn, 0)
            dup2(savedOut, 1)
            close(savedIn)
            close(savedOut)
        }
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            try? dispatcher.serveMCPStdio()
            done.signal()
        }
        thread.start()

        let reader = fromServer[0]
        var buffer = [UInt8]()
        func readLine() -> String? {
            while true {
                if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<nl], as: UTF8.self)
                    buffer.removeSubrange(...nl)
                    return line
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = read(reader, &chunk, chunk.count)
                if n <= 0 { return nil }
                buffer.append(contentsOf: chunk[..<n])
            }
        }
        func send(_ message: String) {
            let bytes = Array((message + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(toServer[1], $0.baseAddress, $0.count) }
        }

        send(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"swift-test","version":"1"}}}"#)
        let initialize = readLine() ?? ""
        XCTAssertTrue(initialize.contains(#""protocolVersion":"2025-11-25""#), initialize)
        send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        send(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        let list = readLine() ?? ""
        XCTAssertTrue(list.contains(#""create_order""#) && list.contains(#""id":2"#), list)
        send(#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#)
        let unknown = readLine() ?? ""
        XCTAssertTrue(unknown.contains("-32602"), unknown)
        close(toServer[1]) // stdin ends: the server returns
        let returned = done.wait(timeout: .now() + 30)
        restore() // also closes the pipe's last write end: the reader sees its end
        XCTAssertEqual(returned, .success, "the server did not return when stdin ended")
        if returned == .success {
            XCTAssertNil(readLine(), "nothing but MCP messages on stdout")
        }
        close(reader)
    }
}
