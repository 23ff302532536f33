#!/usr/bin/env bash
# Self-test of ci/lanes/swift.sh on a throwaway package (never inside the repo).
#
# Usage: ci/swift/selftest.sh [WORKDIR]      (default WORKDIR: /tmp/swift-lane-selftest)
#
# It writes a Swift package whose layout is the one the appfunctions binding should copy:
#   native/        tiny C library (greet.h + libgreet.so, built here with gcc)
#   pkg/           Swift package, tools 6.0, Swift 6 language mode
#     Sources/CGreet/module.modulemap   system-library target: header "../../../native/greet.h", link "greet"
#     Sources/Greeter/Greeter.swift     async wrapper: withCheckedContinuation + @convention(c) callback
#                                       + Unmanaged user data; Foundation JSON/ISO 8601
#     Tests/GreeterTests/               XCTest (and one Swift Testing test)
# and runs the lane three times:
#   1. as written                          -> must exit 0
#   2. with a deliberately failing XCTest  -> must exit 1
#   3. with no test at all                 -> must exit 1 (Swift Testing's "0 tests passed" is not a pass)
set -euo pipefail

LANE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../lanes" && pwd)/swift.sh"
W="${1:-/tmp/swift-lane-selftest}"
case "$W" in /tmp/*|/var/tmp/*) ;; *) echo "selftest: WORKDIR must be under /tmp or /var/tmp" >&2; exit 2 ;; esac
rm -rf "$W"
mkdir -p "$W/native" "$W/pkg/Sources/CGreet" "$W/pkg/Sources/Greeter" "$W/pkg/Tests/GreeterTests"

# ------------------------------------------------------------------ the C library
cat >"$W/native/greet.h" <<'EOF'
#ifndef GREET_H
#define GREET_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Called exactly once, possibly on another thread. `json` is only valid during the call. */
typedef void (*greet_callback)(void *user_data, int32_t status, const char *json);

int32_t greet_add(int32_t a, int32_t b);
/* Returns a malloc'd string; free it with greet_free. */
char *greet_hello(const char *name);
void greet_free(char *s);
/* Answers on a new thread: status 0 and {"greeting":"Hello, NAME!"}, or status 1 when name is empty. */
void greet_async(const char *name, greet_callback cb, void *user_data);

#ifdef __cplusplus
}
#endif
#endif
EOF

cat >"$W/native/greet.c" <<'EOF'
#include "greet.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int32_t greet_add(int32_t a, int32_t b) { return a + b; }

char *greet_hello(const char *name) {
    size_t n = strlen(name) + 16;
    char *s = malloc(n);
    snprintf(s, n, "Hello, %s!", name);
    return s;
}

void greet_free(char *s) { free(s); }

struct job { char *name; greet_callback cb; void *user_data; };

static void *run(void *arg) {
    struct job *j = arg;
    if (j->name[0] == '\0') {
        j->cb(j->user_data, 1, "{\"error\":\"empty name\"}");
    } else {
        char buf[256];
        snprintf(buf, sizeof buf, "{\"greeting\":\"Hello, %s!\"}", j->name);
        j->cb(j->user_data, 0, buf);
    }
    free(j->name);
    free(j);
    return NULL;
}

void greet_async(const char *name, greet_callback cb, void *user_data) {
    struct job *j = malloc(sizeof *j);
    j->name = strdup(name);
    j->cb = cb;
    j->user_data = user_data;
    pthread_t t;
    pthread_create(&t, NULL, run, j);
    pthread_detach(t);
}
EOF
gcc -shared -fPIC -O2 -Wall -o "$W/native/libgreet.so" "$W/native/greet.c" -lpthread

# ------------------------------------------------------------------ the Swift package
cat >"$W/pkg/Package.swift" <<'EOF'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Greeter",
    products: [.library(name: "Greeter", targets: ["Greeter"])],
    targets: [
        // Module map over the C header; `link "greet"` makes every client link -lgreet.
        // The -L / -rpath for the library come from the lane (-Xlinker flags), not from here.
        .systemLibrary(name: "CGreet", path: "Sources/CGreet"),
        .target(name: "Greeter", dependencies: ["CGreet"]),
        .testTarget(name: "GreeterTests", dependencies: ["Greeter"]),
    ],
    swiftLanguageModes: [.v6]
)
EOF

cat >"$W/pkg/Sources/CGreet/module.modulemap" <<'EOF'
module CGreet [system] {
    header "../../../native/greet.h"
    link "greet"
    export *
}
EOF

cat >"$W/pkg/Sources/Greeter/Greeter.swift" <<'EOF'
import CGreet
import Foundation

public struct Greeting: Codable, Sendable, Equatable {
    public var greeting: String
    public var at: Date?
    public init(greeting: String, at: Date? = nil) {
        self.greeting = greeting
        self.at = at
    }
}

public enum GreeterError: Error, Equatable {
    case native(status: Int32, message: String)
}

public func add(_ a: Int32, _ b: Int32) -> Int32 { greet_add(a, b) }

public func hello(_ name: String) -> String {
    guard let p = greet_hello(name) else { return "" }
    defer { greet_free(p) }
    return String(cString: p)
}

/// What the C side gets as `user_data`: retained once, released in the callback.
private final class Pending: Sendable {
    let continuation: CheckedContinuation<(Int32, String), Never>
    init(_ continuation: CheckedContinuation<(Int32, String), Never>) { self.continuation = continuation }
}

/// A C function pointer: no captures; all state travels through `user_data`.
private let onDone: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = {
    userData, status, json in
    let pending = Unmanaged<Pending>.fromOpaque(userData!).takeRetainedValue()
    pending.continuation.resume(returning: (status, json.map { String(cString: $0) } ?? ""))
}

/// Calls the C API that answers on another thread.
public func helloAsync(_ name: String) async throws -> Greeting {
    let (status, json) = await withCheckedContinuation { (c: CheckedContinuation<(Int32, String), Never>) in
        let userData = Unmanaged.passRetained(Pending(c)).toOpaque()
        greet_async(name, onDone, userData)
    }
    guard status == 0 else { throw GreeterError.native(status: status, message: json) }
    return try JSONDecoder().decode(Greeting.self, from: Data(json.utf8))
}

public func encode(_ g: Greeting) throws -> String {
    let e = JSONEncoder()
    e.dateEncodingStrategy = .iso8601
    e.outputFormatting = [.sortedKeys]
    return String(decoding: try e.encode(g), as: UTF8.self)
}

public func decode(_ s: String) throws -> Greeting {
    let d = JSONDecoder()
    d.dateDecodingStrategy = .iso8601
    return try d.decode(Greeting.self, from: Data(s.utf8))
}
EOF

cat >"$W/pkg/Tests/GreeterTests/GreeterTests.swift" <<'EOF'
import Foundation
import XCTest
@testable import Greeter

final class GreeterTests: XCTestCase {
    func testSyncCalls() {
        XCTAssertEqual(add(2, 40), 42)
        XCTAssertEqual(hello("Swift"), "Hello, Swift!")
    }

    func testAsyncCallbackFromAnotherThread() async throws {
        let g = try await helloAsync("Linux")
        XCTAssertEqual(g.greeting, "Hello, Linux!")
        do {
            _ = try await helloAsync("")
            XCTFail("expected an error")
        } catch GreeterError.native(let status, let message) {
            XCTAssertEqual(status, 1)
            XCTAssertTrue(message.contains("empty name"))
        }
    }

    func testManyConcurrentCalls() async throws {
        let names = (0..<50).map { "n\($0)" }
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for n in names { group.addTask { try await helloAsync(n).greeting } }
            var out: [String] = []
            for try await r in group { out.append(r) }
            return out
        }
        XCTAssertEqual(Set(results), Set(names.map { "Hello, \($0)!" }))
    }

    func testFoundationJSONAndISO8601() throws {
        let f = ISO8601DateFormatter()
        let date = try XCTUnwrap(f.date(from: "2025-05-20T12:34:56Z"))
        XCTAssertEqual(f.string(from: date), "2025-05-20T12:34:56Z")
        let s = try encode(Greeting(greeting: "hi", at: date))
        XCTAssertEqual(s, #"{"at":"2025-05-20T12:34:56Z","greeting":"hi"}"#)
        XCTAssertEqual(try decode(s), Greeting(greeting: "hi", at: date))
        XCTAssertNotNil(TimeZone(identifier: "Europe/Paris"))
    }
}
EOF

cat >"$W/pkg/Tests/GreeterTests/SwiftTestingTests.swift" <<'EOF'
import Testing
@testable import Greeter

@Test func addWorksUnderSwiftTesting() {
    #expect(add(1, 2) == 3)
}
EOF

# ------------------------------------------------------------------ run the lane
run_lane() { # run_lane LABEL EXPECTED_EXIT
    local label="$1" want="$2" rc t0=$SECONDS
    echo "===== selftest: $label (want exit $want)"
    set +e
    "$LANE" "$W/pkg" "$W/native"
    rc=$?
    set -e
    echo "===== selftest: $label -> exit $rc in $((SECONDS - t0)) s"
    if [[ $rc -ne $want ]]; then
        echo "selftest: FAIL: $label exited $rc, expected $want" >&2
        exit 1
    fi
}

run_lane "passing package" 0

cat >"$W/pkg/Tests/GreeterTests/DeliberatelyFailingTests.swift" <<'EOF'
import XCTest
@testable import Greeter

final class DeliberatelyFailingTests: XCTestCase {
    func testFailsOnPurpose() {
        XCTAssertEqual(add(2, 2), 5, "deliberate failure")
    }
}
EOF
run_lane "deliberately failing XCTest" 1
rm "$W/pkg/Tests/GreeterTests/DeliberatelyFailingTests.swift"

# No test at all: XCTest says "Executed 0 tests", Swift Testing says "0 tests passed".
rm "$W/pkg/Tests/GreeterTests/GreeterTests.swift" "$W/pkg/Tests/GreeterTests/SwiftTestingTests.swift"
cat >"$W/pkg/Tests/GreeterTests/Empty.swift" <<'EOF'
import XCTest
final class EmptyTests: XCTestCase {}
EOF
run_lane "no tests at all" 1

echo "selftest: all lane checks behaved as expected"
