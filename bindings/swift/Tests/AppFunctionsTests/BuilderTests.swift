@testable import AppFunctions
import XCTest

/// The result builders gather lines, `if`, `if`/`else`, `switch` and `for` into one array in
/// their order (they append in place since issue 30's cold start work), and value constraints
/// keep value semantics while they are held by reference.
final class BuilderTests: XCTestCase {
    func names(_ d: AppFunctionDescriptor) -> [String] { d.parameters.map(\.name) }

    func testEveryFormOfBlockKeepsItsOrder() {
        for withExtra in [false, true] {
            let d = AppFunctionDescriptor("f") {
                AppFunctionParameter("a", String.self)
                if withExtra {
                    AppFunctionParameter("b", Int32.self)
                }
                if withExtra {
                    AppFunctionParameter("c", Bool.self)
                } else {
                    AppFunctionParameter("c2", Bool.self)
                    AppFunctionParameter("c3", Bool.self)
                }
                for i in 0..<3 {
                    AppFunctionParameter("d\(i)", Double.self)
                }
                switch withExtra {
                case true: AppFunctionParameter("e", String.self)
                case false: AppFunctionParameter("e2", String.self)
                }
                AppFunctionParameter("z", String.self)
            }
            XCTAssertEqual(names(d), withExtra ? ["a", "b", "c", "d0", "d1", "d2", "e", "z"]
                                               : ["a", "c2", "c3", "d0", "d1", "d2", "e2", "z"])
        }
    }

    func testABlockMayStartWithControlFlowOrBeEmpty() {
        let startsWithIf = AppFunctionDescriptor("f") {
            if true {
                AppFunctionParameter("a", String.self)
            }
            AppFunctionParameter("b", String.self)
        }
        XCTAssertEqual(names(startsWithIf), ["a", "b"])
        let startsWithFor = AppFunctionDescriptor("f") {
            for n in ["x", "y"] {
                AppFunctionParameter(n, String.self)
            }
        }
        XCTAssertEqual(names(startsWithFor), ["x", "y"])
        XCTAssertEqual(names(AppFunctionDescriptor("f") {}), [])
        XCTAssertEqual(names(AppFunctionDescriptor("f")), [])
        // more lines than the room the first one makes
        let many = AppFunctionDescriptor("f") {
            AppFunctionParameter("p0", String.self)
            AppFunctionParameter("p1", String.self)
            AppFunctionParameter("p2", String.self)
            AppFunctionParameter("p3", String.self)
            AppFunctionParameter("p4", String.self)
            AppFunctionParameter("p5", String.self)
        }
        XCTAssertEqual(names(many), (0..<6).map { "p\($0)" })
    }

    @AppFunctionFieldsBuilder static func fields(_ extra: Bool) -> [AppFunctionField] {
        AppFunctionField("a", String.self)
        if extra {
            AppFunctionField("b", Int32.self)
        }
        for i in 0..<9 {
            AppFunctionField("n\(i)", Int64.self)
        }
        if extra {
            AppFunctionField("c", String?.self)
        } else {
            AppFunctionField("c2", String?.self)
        }
    }

    func testTheFieldsBuilderToo() {
        XCTAssertEqual(Self.fields(true).map(\.name), ["a", "b"] + (0..<9).map { "n\($0)" } + ["c"])
        XCTAssertEqual(Self.fields(false).map(\.name), ["a"] + (0..<9).map { "n\($0)" } + ["c2"])
    }

    func testConstraintsAreValues() {
        var a = AppFunctionConstraints(minimum: 1, pattern: "^x$")
        let b = a
        a.minimum = nil
        a.maxItems = 3
        XCTAssertEqual(b.minimum, 1)
        XCTAssertNil(b.maxItems)
        XCTAssertNil(a.minimum)
        XCTAssertEqual(a.maxItems, 3)
        XCTAssertEqual(a.pattern, "^x$")
        XCTAssertNotEqual(a, b)
        var c = b
        XCTAssertEqual(c, b)
        c.uniqueItems = false
        XCTAssertNotEqual(c, b)
        c.uniqueItems = nil
        XCTAssertEqual(c, b, "equal by value, not by reference")
        XCTAssertEqual(AppFunctionConstraints(), AppFunctionConstraints())
        XCTAssertTrue(AppFunctionConstraints().isEmpty)
        XCTAssertFalse(AppFunctionConstraints(uniqueItems: false).isEmpty)
        // what a parameter writes follows the value it was given
        var p = AppFunctionConstraints(minLength: 2)
        let param = AppFunctionParameter("s", String.self, constraints: p)
        p.minLength = 5
        XCTAssertEqual(param.jsonText, #"{"name":"s","type":"string","minLength":2}"#)
        XCTAssertEqual(param.constraints?.minLength, 2)
    }
}
