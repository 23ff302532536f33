import Foundation

/// A field of a record or entity.
public struct AppFunctionField: Sendable {
    public let name: String
    public let type: AppFunctionType
    public let description: String?
    /// True for `Optional` Swift types: the field is nullable, so by the core's one nullable
    /// rule it may be absent (and then binds as null).
    public let isOptional: Bool
    /// Value constraints the core states in the schema and enforces (docs/descriptors.md).
    public let constraints: AppFunctionConstraints?
    let valueType: any AppFunctionValue.Type

    /// A field of Swift type `T`; an `Optional` type makes the field optional and nullable.
    public init<T: AppFunctionValue>(
        _ name: String, _ type: T.Type, description: String? = nil, constraints: AppFunctionConstraints? = nil
    ) {
        self.name = name
        self.description = description
        self.constraints = constraints
        self.valueType = type
        if case .nullable(let inner) = T.appFunctionType {
            self.type = inner
            self.isOptional = true
        } else {
            self.type = T.appFunctionType
            self.isOptional = false
        }
    }

    var json: JSONValue {
        var o: [(String, JSONValue)] = [("name", .string(name)), ("type", type.json)]
        if let d = description { o.append(("description", .string(d))) }
        // nullable is enough: the core's one nullable rule makes the field optional
        if isOptional { o.append(("nullable", .bool(true))) }
        if let c = constraints { o += c.members }
        return .object(o)
    }
}

/// A parameter of a function. `Optional` Swift types become nullable parameters, which the
/// caller may omit (the core's one nullable rule: omitted binds as null, like an explicit
/// null); a `default` makes a parameter optional with that value filled in by the core.
public struct AppFunctionParameter: Sendable {
    public let name: String
    public let type: AppFunctionType
    public let description: String?
    public let isOptional: Bool
    public let isNullable: Bool
    /// The default's JSON text, when there is one.
    public let defaultJSON: String?
    /// Value constraints the core states in the schema and enforces (docs/descriptors.md).
    public let constraints: AppFunctionConstraints?
    let valueType: any AppFunctionValue.Type

    public init<T: AppFunctionValue>(
        _ name: String, _ type: T.Type, description: String? = nil, constraints: AppFunctionConstraints? = nil
    ) {
        self.name = name
        self.description = description
        self.constraints = constraints
        self.valueType = type
        self.defaultJSON = nil
        if case .nullable(let inner) = T.appFunctionType {
            self.type = inner
            self.isOptional = true
            self.isNullable = true
        } else {
            self.type = T.appFunctionType
            self.isOptional = false
            self.isNullable = false
        }
    }

    /// A parameter the caller may omit; the core then passes `defaultValue`.
    public init<T: AppFunctionValue & Encodable>(
        _ name: String, _ type: T.Type, description: String? = nil, default defaultValue: T,
        constraints: AppFunctionConstraints? = nil
    ) {
        self.init(name, type, description: description, constraints: constraints)
        self = AppFunctionParameter(copying: self, defaultJSON: (try? AppJSON.encode(defaultValue)) ?? "null")
    }

    private init(copying p: AppFunctionParameter, defaultJSON: String) {
        name = p.name
        type = p.type
        description = p.description
        isOptional = true
        isNullable = p.isNullable
        self.defaultJSON = defaultJSON
        constraints = p.constraints
        valueType = p.valueType
    }

    var json: JSONValue {
        var o: [(String, JSONValue)] = [("name", .string(name)), ("type", type.json)]
        if let d = description { o.append(("description", .string(d))) }
        // no "optional": nullable parameters are optional by the core's one nullable rule,
        // and a default makes a parameter optional
        if isNullable { o.append(("nullable", .bool(true))) }
        if let d = defaultJSON { o.append(("default", .raw(d))) }
        if let c = constraints { o += c.members }
        return .object(o)
    }

    /// `json`, written straight into `out` (no tree: registering a function writes one per
    /// parameter).
    func write(to out: inout JSONOut) {
        out.ascii(#"{"name":"#)
        out.string(name)
        out.ascii(#","type":"#)
        type.write(to: &out)
        if let d = description {
            out.ascii(#","description":"#)
            out.string(d)
        }
        if isNullable { out.ascii(#","nullable":true"#) }
        if let d = defaultJSON {
            out.ascii(#","default":"#)
            out.raw(d)
        }
        if let c = constraints { c.write(to: &out) }
        out.byte(0x7D)
    }
}

@resultBuilder
public enum AppFunctionParametersBuilder {
    public static func buildExpression(_ p: AppFunctionParameter) -> [AppFunctionParameter] { [p] }
    public static func buildBlock(_ parts: [AppFunctionParameter]...) -> [AppFunctionParameter] { parts.flatMap { $0 } }
    public static func buildOptional(_ p: [AppFunctionParameter]?) -> [AppFunctionParameter] { p ?? [] }
    public static func buildEither(first p: [AppFunctionParameter]) -> [AppFunctionParameter] { p }
    public static func buildEither(second p: [AppFunctionParameter]) -> [AppFunctionParameter] { p }
    public static func buildArray(_ parts: [[AppFunctionParameter]]) -> [AppFunctionParameter] { parts.flatMap { $0 } }
}

@resultBuilder
public enum AppFunctionFieldsBuilder {
    public static func buildExpression(_ f: AppFunctionField) -> [AppFunctionField] { [f] }
    public static func buildBlock(_ parts: [AppFunctionField]...) -> [AppFunctionField] { parts.flatMap { $0 } }
    public static func buildOptional(_ f: [AppFunctionField]?) -> [AppFunctionField] { f ?? [] }
    public static func buildEither(first f: [AppFunctionField]) -> [AppFunctionField] { f }
    public static func buildEither(second f: [AppFunctionField]) -> [AppFunctionField] { f }
    public static func buildArray(_ parts: [[AppFunctionField]]) -> [AppFunctionField] { parts.flatMap { $0 } }
}

/// Describes a function: its id, what assistants read about it, and its parameters.
/// The result type comes from the handler given to `AppFunctionDispatcher.register`.
///
/// ```swift
/// let createOrder = AppFunctionDescriptor("create_order", title: "Create order",
///                                         description: "Creates an order for a customer.") {
///     AppFunctionParameter("customer", String.self, description: "Customer name")
///     AppFunctionParameter("quantity", Int32.self)
///     AppFunctionParameter("priority", Priority.self, default: .normal)
/// }
/// ```
public struct AppFunctionDescriptor: Sendable {
    public var id: String
    public var title: String?
    public var description: String?
    public var parameters: [AppFunctionParameter]
    /// On apple, not in the foreground, the call asks to continue in the app.
    public var opensApp: Bool
    /// The host's permission handler must approve each call.
    public var requiresPermission: Bool
    public var enabled: Bool
    /// The toolkit the function belongs to (`defineToolkit`); a toolkit with a description
    /// collapses in agent views into one container tool.
    public var toolkit: String?
    /// Agent views show the function only while this condition over their metadata holds
    /// (`"HasAdvancedFeatures && !ReadOnly"`).
    public var condition: String?
    /// `.output`: calling it ends the agent's run and its arguments are the result
    /// (register it with `registerOutput`).
    public var kind: AppFunctionKind
    /// Value constraints the core checks the handler's result against (`HandlerFailed`).
    public var resultConstraints: AppFunctionConstraints?
    /// Android callers allowed (empty: everyone) — the descriptor's `callers.allow`.
    public var allowedCallers: [String]

    public init(
        _ id: String,
        title: String? = nil,
        description: String? = nil,
        opensApp: Bool = false,
        requiresPermission: Bool = false,
        enabled: Bool = true,
        toolkit: String? = nil,
        condition: String? = nil,
        kind: AppFunctionKind = .function,
        resultConstraints: AppFunctionConstraints? = nil,
        allowedCallers: [String] = [],
        @AppFunctionParametersBuilder parameters: () -> [AppFunctionParameter] = { [] }
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.opensApp = opensApp
        self.requiresPermission = requiresPermission
        self.enabled = enabled
        self.toolkit = toolkit
        self.condition = condition
        self.kind = kind
        self.resultConstraints = resultConstraints
        self.allowedCallers = allowedCallers
        self.parameters = parameters()
    }

    func json(result: AppFunctionType, symbol: String?) -> String {
        // written straight into bytes, not through a JSONValue tree (issue 30: the tree was
        // most of what registering a function cost in Swift)
        var out = JSONOut()
        out.ascii(#"{"id":"#)
        out.string(id)
        if let t = title {
            out.ascii(#","title":"#)
            out.string(t)
        }
        if let d = description {
            out.ascii(#","description":"#)
            out.string(d)
        }
        if let s = symbol {
            out.ascii(#","symbol":"#)
            out.string(s)
        }
        out.ascii(#","parameters":["#)
        for (i, p) in parameters.enumerated() {
            if i > 0 { out.byte(0x2C) }
            p.write(to: &out)
        }
        out.ascii(#"],"result":"#)
        if let c = resultConstraints, !c.members.isEmpty, result != .void {
            out.ascii(#"{"type":"#)
            result.write(to: &out)
            c.write(to: &out)
            out.byte(0x7D)
        } else {
            result.write(to: &out)
        }
        if opensApp { out.ascii(#","opensApp":true"#) }
        if requiresPermission { out.ascii(#","requiresPermission":true"#) }
        if !enabled { out.ascii(#","enabled":false"#) }
        if let t = toolkit {
            out.ascii(#","toolkit":"#)
            out.string(t)
        }
        if let c = condition {
            out.ascii(#","condition":"#)
            out.string(c)
        }
        if kind == .output { out.ascii(#","kind":"output""#) }
        if !allowedCallers.isEmpty {
            out.ascii(#","callers":{"allow":["#)
            for (i, c) in allowedCallers.enumerated() {
                if i > 0 { out.byte(0x2C) }
                out.string(c)
            }
            out.ascii("]}")
        }
        out.byte(0x7D)
        return out.text
    }

    func collectNamedTypes(result: (any AppFunctionValue.Type)?, into c: inout AppFunctionTypeCollector) {
        for p in parameters { c.visit(p.valueType) }
        if let result { c.visit(result) }
    }
}

/// Value constraints of a parameter, a field or a result (docs/descriptors.md, "Value
/// constraints"): the JSON Schema carries them and the core enforces them exactly — a
/// violating argument is `InvalidArgument` naming the parameter and the rule, a violating
/// result `HandlerFailed`. nil: none. An integral bound is written as an integer (exact up to
/// 2^53).
public struct AppFunctionConstraints: Sendable, Equatable {
    public var minimum: Double?
    public var maximum: Double?
    public var exclusiveMinimum: Double?
    public var exclusiveMaximum: Double?
    public var minLength: Int?
    public var maxLength: Int?
    /// An ECMA-262 regular expression the string must match somewhere (anchor it: `^...$`).
    public var pattern: String?
    public var minItems: Int?
    public var maxItems: Int?
    public var uniqueItems: Bool?

    public init(
        minimum: Double? = nil, maximum: Double? = nil,
        exclusiveMinimum: Double? = nil, exclusiveMaximum: Double? = nil,
        minLength: Int? = nil, maxLength: Int? = nil, pattern: String? = nil,
        minItems: Int? = nil, maxItems: Int? = nil, uniqueItems: Bool? = nil
    ) {
        self.minimum = minimum
        self.maximum = maximum
        self.exclusiveMinimum = exclusiveMinimum
        self.exclusiveMaximum = exclusiveMaximum
        self.minLength = minLength
        self.maxLength = maxLength
        self.pattern = pattern
        self.minItems = minItems
        self.maxItems = maxItems
        self.uniqueItems = uniqueItems
    }

    /// `members` written into an object being written (each with its leading comma).
    func write(to out: inout JSONOut) {
        for (k, v) in members {
            out.byte(0x2C)
            out.string(k)
            out.byte(0x3A)
            v.write(to: &out)
        }
    }

    /// The descriptor keys, in the order docs/descriptors.md lists them.
    var members: [(String, JSONValue)] {
        func number(_ d: Double) -> JSONValue {
            d == d.rounded() && abs(d) < 9_007_199_254_740_992 ? .int(Int(d)) : .raw(String(d))
        }
        var o: [(String, JSONValue)] = []
        if let v = minimum { o.append(("minimum", number(v))) }
        if let v = maximum { o.append(("maximum", number(v))) }
        if let v = exclusiveMinimum { o.append(("exclusiveMinimum", number(v))) }
        if let v = exclusiveMaximum { o.append(("exclusiveMaximum", number(v))) }
        if let v = minLength { o.append(("minLength", .int(v))) }
        if let v = maxLength { o.append(("maxLength", .int(v))) }
        if let v = pattern { o.append(("pattern", .string(v))) }
        if let v = minItems { o.append(("minItems", .int(v))) }
        if let v = maxItems { o.append(("maxItems", .int(v))) }
        if let v = uniqueItems { o.append(("uniqueItems", .bool(v))) }
        return o
    }
}

/// How the core treats a call (seed 004's `ToolKind`).
public enum AppFunctionKind: String, Sendable {
    /// A normal tool: executed, its result returned to the model.
    case function
    /// An output tool: the model's arguments are the structured, final result; nothing runs.
    case output
}

/// The arguments of a function without parameters.
public struct NoArguments: Codable, Sendable {
    public init() {}
}
