// The descriptor writer's fixture (DescriptorTextTests): every key and every character class
// the binding writes into a descriptor.
import Foundation
@testable import AppFunctions

/// Every character class a JSON string can hold: each control character, `"`, `\`, `/`, DEL,
/// two-, three- and four-byte UTF-8 (é, U+2028, an emoji).
let everyCharacter: String = {
    var s = ""
    for c in 0..<0x20 { s.unicodeScalars.append(Unicode.Scalar(UInt8(c))) }
    return s + "\"\\/\u{7F} plain é\u{2028}😀 end"
}()

enum FixtureLevel: String, AppFunctionEnum {
    case low = "Low", normal = "Normal", high = "High"
    static let typeDescription: String? = "How \"urgent\"\tit is."
    static let memberDescriptions = ["Normal": "the default", "High": everyCharacter]
}

enum FixturePlain: String, AppFunctionEnum { case a, b }

struct FixtureLine: AppFunctionRecord {
    var sku: String
    var count: Int32
    static var fields: [AppFunctionField] {
        AppFunctionField("sku", String.self, constraints: .init(minLength: 1, maxLength: 12, pattern: #"^[A-Z]{2}\d+"$"#))
        AppFunctionField("count", Int32.self, description: "How many.", constraints: .init(minimum: 1, maximum: 99.5))
    }
}

struct FixtureOrder: AppFunctionRecord {
    var id: String
    var lines: [FixtureLine]
    var level: FixtureLevel?
    var at: Date
    var day: AppFunctionDate
    var ref: UUID?
    var score: Double
    var big: Int64
    var flag: Bool
    var tags: [String]?
    static let typeDescription: String? = everyCharacter
    static var fields: [AppFunctionField] {
        AppFunctionField("id", String.self, description: "The id.")
        AppFunctionField("lines", [FixtureLine].self, constraints: .init(minItems: 1, maxItems: 5, uniqueItems: true))
        AppFunctionField("level", FixtureLevel?.self)
        AppFunctionField("at", Date.self)
        AppFunctionField("day", AppFunctionDate.self)
        AppFunctionField("ref", UUID?.self)
        AppFunctionField("score", Double.self, constraints: .init(exclusiveMinimum: -0.25, exclusiveMaximum: 1e300))
        AppFunctionField("big", Int64.self, constraints: .init(minimum: -9_007_199_254_740_992))
        AppFunctionField("flag", Bool.self)
        AppFunctionField("tags", [String]?.self)
    }
}

struct FixtureItem: AppFunctionEntity {
    var key: String
    var plain: FixturePlain
    static let entityName = "item"
    static let entityTitle: String? = "Item \"one\""
    static let typeDescription: String? = "An item."
    static let idField = "key"
    static var fields: [AppFunctionField] {
        AppFunctionField("key", String.self)
        AppFunctionField("plain", FixturePlain.self)
    }
}

struct FixtureBare: AppFunctionEntity {
    var id: String
    static let entityName = "bare"
    static var fields: [AppFunctionField] { AppFunctionField("id", String.self) }
}

/// Descriptors covering every key the binding writes.
let fixtureDescriptors: [(AppFunctionDescriptor, AppFunctionType)] = [
    (AppFunctionDescriptor("plain"), .void),
    (AppFunctionDescriptor("everything", title: everyCharacter, description: "Says \"hi\" to {metadata.Name}.",
                           opensApp: true, requiresPermission: true, enabled: false, toolkit: "kit_1",
                           condition: "A && !B", kind: .output,
                           resultConstraints: .init(minimum: 0, maximum: 10.75, exclusiveMinimum: -1, exclusiveMaximum: 11,
                                                    minLength: 2, maxLength: 3, pattern: "^a\"b\\c$", minItems: 4, maxItems: 5,
                                                    uniqueItems: false),
                           allowedCallers: ["com.example.a", "com.example.\"b\""]) {
        AppFunctionParameter("order", FixtureOrder.self, description: everyCharacter)
        AppFunctionParameter("level", FixtureLevel.self, description: "How urgent.", default: .normal)
        AppFunctionParameter("maybe", FixtureLevel?.self)
        AppFunctionParameter("item", FixtureItem.self)
        AppFunctionParameter("count", Int32.self, default: 20, constraints: .init(minimum: 1, maximum: 100))
        AppFunctionParameter("ratio", Double?.self, constraints: .init(minimum: 0.5))
        AppFunctionParameter("names", [String].self, default: ["a", "b\n"], constraints: .init(maxItems: 3))
        AppFunctionParameter("when", Date?.self)
    }, .array(.record("FixtureOrder"))),
    (AppFunctionDescriptor("unconstrained_result", resultConstraints: .init()), .string),
    (AppFunctionDescriptor("void_constrained", resultConstraints: .init(minimum: 1)), .void),
    (AppFunctionDescriptor("nullable_result"), .nullable(.entity("item"))),
]

let fixtureToolkits = [
    AppFunctionToolkit("kit_1", description: everyCharacter, functionResult: "Ready.", systemPrompt: "Be \"kind\"."),
    AppFunctionToolkit("bare"),
]
