import AppFunctions
import Foundation
import XCTest

/// A record whose fields carry value constraints.
struct OrderLine: AppFunctionRecord {
    var sku: String
    var quantity: Int32

    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
        AppFunctionField("sku", String.self, constraints: .init(pattern: #"^[A-Z]{2}-\d{3}$"#))
        AppFunctionField("quantity", Int32.self, constraints: .init(minimum: 1, maximum: 99))
    }
}

struct PlaceOrder: Codable {
    var customer: String
    var lines: [OrderLine]
    var discount: Double
}

/// Value constraints (docs/descriptors.md) declared from Swift: stated in the schema, enforced
/// by the core with messages naming the parameter and the rule.
final class ConstraintsTests: XCTestCase {
    var dispatcher: AppFunctionDispatcher!

    override func setUp() async throws {
        dispatcher = AppFunctionDispatcher()
        try dispatcher.register(AppFunctionDescriptor("place_order", description: "Orders some lines") {
            AppFunctionParameter("customer", String.self, constraints: .init(minLength: 2, maxLength: 40))
            AppFunctionParameter("lines", [OrderLine].self, constraints: .init(minItems: 1, maxItems: 3))
            AppFunctionParameter("discount", Double.self, default: 0.1, constraints: .init(maximum: 0.5, exclusiveMinimum: 0))
        }) { (_, a: PlaceOrder) -> String in "\(a.customer) ordered \(a.lines.count) lines" }
        try dispatcher.register(AppFunctionDescriptor("count_too_far", resultConstraints: .init(maximum: 10))) {
            (_, _: NoArguments) -> Int32 in 11
        }
    }

    override func tearDown() async throws {
        dispatcher = nil
    }

    func testTheSchemaStatesThem() throws {
        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(dispatcher.parametersJSONSchema("place_order").utf8)) as? [String: Any])
        let props = try XCTUnwrap(schema["properties"] as? [String: [String: Any]])
        XCTAssertEqual(props["customer"]?["minLength"] as? Int, 2)
        XCTAssertEqual(props["lines"]?["maxItems"] as? Int, 3)
        XCTAssertEqual(props["discount"]?["maximum"] as? Double, 0.5)
        let line = ((schema["$defs"] as? [String: Any])?["OrderLine"] as? [String: Any])?["properties"] as? [String: [String: Any]]
        XCTAssertEqual(line?["sku"]?["pattern"] as? String, #"^[A-Z]{2}-\d{3}$"#)
        XCTAssertEqual(line?["quantity"]?["minimum"] as? Int, 1)
        XCTAssertTrue(try dispatcher.resultJSONSchema("count_too_far").contains("10"))
    }

    func testTheCoreEnforcesThemNamingTheParameterAndTheRule() async throws {
        let ok = await dispatcher.execute("place_order", arguments: #"{"customer":"acme","lines":[{"sku":"AB-123","quantity":2}]}"#)
        XCTAssertTrue(ok.isSuccess, "\(ok)")
        let cases: [(String, [String])] = [
            (#"{"customer":"a","lines":[{"sku":"AB-123","quantity":2}]}"#, ["customer", "minLength 2"]),
            (#"{"customer":"acme","lines":[]}"#, ["lines", "minItems 1"]),
            (#"{"customer":"acme","lines":[{"sku":"ab-1","quantity":2}]}"#, ["sku", "pattern"]),
            (#"{"customer":"acme","lines":[{"sku":"AB-123","quantity":0}]}"#, ["quantity", "minimum 1"]),
            (#"{"customer":"acme","lines":[{"sku":"AB-123","quantity":1}],"discount":0}"#, ["discount", "exclusiveMinimum"]),
        ]
        for (args, words) in cases {
            let o = await dispatcher.execute("place_order", arguments: args)
            XCTAssertEqual(o.errorCode, .invalidArgument, "\(o)")
            for w in words { XCTAssertTrue(o.message?.contains(w) ?? false, "\(w) in \(o)") }
        }
        let tooFar = await dispatcher.execute("count_too_far")
        XCTAssertEqual(tooFar.errorCode, .handlerFailed, "\(tooFar)")
    }

    func testADefaultThatBreaksThemIsRefusedAtRegistration() {
        XCTAssertThrowsError(try dispatcher.register(AppFunctionDescriptor("bad") {
            AppFunctionParameter("n", Int32.self, default: 0, constraints: .init(minimum: 1))
        }) { (_, _: NoArguments) in }) { error in
            XCTAssertTrue("\(error)".contains("bad.parameters.n"), "\(error)")
        }
    }
}
