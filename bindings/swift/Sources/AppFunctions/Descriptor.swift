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
    public var constraints: AppFunctionConstraints? { constraintsBox?.value }
    let constraintsBox: AppFunctionConstraints.Box?
    let valueType: any AppFunctionValue.Type

    /// A field of Swift type `T`; an `Optional` type makes the field optional and nullable.
    public init<T: AppFunctionValue>(
        _ name: String, _ type: T.Type, description: String? = nil, constraints: AppFunctionConstraints? = nil
    ) {
        self.name = name
        self.description = description
        self.constraintsBox = AppFunctionConstraints.Box(constraints)
        self.valueType = type
        // (asked once: a record's or an enum's type names it, a runtime call)
        let t = T.appFunctionType
        if case .nullable(let inner) = t {
            self.type = inner
            self.isOptional = true
        } else {
            self.type = t
            self.isOptional = false
        }
    }

    /// The field's descriptor JSON, written into `out` (a record's or an entity's `fields`).
    func write(to out: inout JSONOut) {
        out.ascii(#"{"name":"#)
        out.string(name)
        out.ascii(#","type":"#)
        type.write(to: &out)
        out.member(#","description":"#, string: description)
        // nullable is enough: the core's one nullable rule makes the field optional
        if isOptional { out.ascii(#","nullable":true"#) }
        if let c = constraintsBox { c.value.write(to: &out) }
        out.byte(0x7D)
    }

    /// `write(to:)`'s text.
    var jsonText: String {
        var out = JSONOut(capacity: 128)
        write(to: &out)
        return out.text
    }

    /// A JSON array of fields (a record's or an entity's `fields`).
    static func write(_ fields: [AppFunctionField], to out: inout JSONOut) {
        out.byte(0x5B)
        for (i, f) in fields.enumerated() {
            if i > 0 { out.byte(0x2C) }
            f.write(to: &out)
        }
        out.byte(0x5D)
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
    public var constraints: AppFunctionConstraints? { constraintsBox?.value }
    let constraintsBox: AppFunctionConstraints.Box?
    let valueType: any AppFunctionValue.Type

    public init<T: AppFunctionValue>(
        _ name: String, _ type: T.Type, description: String? = nil, constraints: AppFunctionConstraints? = nil
    ) {
        self.name = name
        self.description = description
        self.constraintsBox = AppFunctionConstraints.Box(constraints)
        self.valueType = type
        self.defaultJSON = nil
        let t = T.appFunctionType
        if case .nullable(let inner) = t {
            self.type = inner
            self.isOptional = true
            self.isNullable = true
        } else {
            self.type = t
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
        constraintsBox = p.constraintsBox
        valueType = p.valueType
    }

    /// `write(to:)`'s text.
    var jsonText: String {
        var out = JSONOut(capacity: 128)
        write(to: &out)
        return out.text
    }

    /// The parameter's descriptor JSON, written straight into `out` (no tree: registering a
    /// function writes one per parameter). No "optional": nullable parameters are optional by
    /// the core's one nullable rule, and a default makes a parameter optional.
    func write(to out: inout JSONOut) {
        out.ascii(#"{"name":"#)
        out.string(name)
        out.ascii(#","type":"#)
        type.write(to: &out)
        out.member(#","description":"#, string: description)
        if isNullable { out.ascii(#","nullable":true"#) }
        out.member(#","default":"#, raw: defaultJSON)
        if let c = constraintsBox { c.value.write(to: &out) }
        out.byte(0x7D)
    }
}

@resultBuilder
public enum AppFunctionParametersBuilder {
    public static func buildExpression(_ p: AppFunctionParameter) -> [AppFunctionParameter] { [p] }
    public static func buildBlock(_ parts: [AppFunctionParameter]...) -> [AppFunctionParameter] {
        // (one array of the parts' size, not flatMap's growing one: a descriptor is built per
        // registration)
        if parts.count == 1 { return parts[0] }
        var all: [AppFunctionParameter] = []
        all.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for p in parts { all.append(contentsOf: p) }
        return all
    }
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
    public var resultConstraints: AppFunctionConstraints? {
        get { resultConstraintsBox?.value }
        set { resultConstraintsBox = AppFunctionConstraints.Box(newValue) }
    }
    /// (held by reference, as a parameter's: a descriptor is copied on its way to the core)
    private var resultConstraintsBox: AppFunctionConstraints.Box?
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
        self.resultConstraintsBox = AppFunctionConstraints.Box(resultConstraints)
        self.allowedCallers = allowedCallers
        self.parameters = parameters()
    }

    /// The descriptor's JSON text (`write(result:symbol:to:)`'s).
    func json(result: AppFunctionType, symbol: String?) -> String {
        var out = JSONOut(capacity: textCapacity)
        write(result: result, symbol: symbol, to: &out)
        return out.text
    }

    /// Room for most descriptors' JSON at once (a larger one grows its buffer); with the
    /// array's header still a size glibc's malloc serves from its per-thread cache.
    var textCapacity: Int { 960 }

    /// The descriptor's JSON, written straight into bytes, not through a JSONValue tree (issue
    /// 30: the tree was most of what registering a function cost in Swift), and handed to the
    /// core as those bytes (`JSONOut.withCString`).
    func write(result: AppFunctionType, symbol: String?, to out: inout JSONOut) {
        out.ascii(#"{"id":"#)
        out.string(id)
        out.member(#","title":"#, string: title)
        out.member(#","description":"#, string: description)
        out.member(#","symbol":"#, string: symbol)
        out.ascii(#","parameters":["#)
        for (i, p) in parameters.enumerated() {
            if i > 0 { out.byte(0x2C) }
            p.write(to: &out)
        }
        out.ascii(#"],"result":"#)
        if let c = resultConstraintsBox?.value, !c.isEmpty, result != .void {
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
        out.member(#","toolkit":"#, string: toolkit)
        out.member(#","condition":"#, string: condition)
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

    /// Constraints held by reference in a parameter or a field: those are copied several
    /// times while a descriptor is built (the result builders' arrays), and a reference is
    /// one word where the optional struct is some 150 bytes copied through its generic
    /// value witness each time (issue 30: registering a function).
    final class Box: Sendable {
        let value: AppFunctionConstraints

        init(_ value: AppFunctionConstraints) { self.value = value }

        /// nil for no constraints.
        convenience init?(_ value: AppFunctionConstraints?) {
            guard let value else { return nil }
            self.init(value)
        }
    }

    /// True when no constraint is set.
    var isEmpty: Bool {
        minimum == nil && maximum == nil && exclusiveMinimum == nil && exclusiveMaximum == nil
            && minLength == nil && maxLength == nil && pattern == nil && minItems == nil && maxItems == nil
            && uniqueItems == nil
    }

    /// The descriptor keys written into an object being written (each with its leading
    /// comma), in the order docs/descriptors.md lists them.
    func write(to out: inout JSONOut) {
        out.member(#","minimum":"#, number: minimum)
        out.member(#","maximum":"#, number: maximum)
        out.member(#","exclusiveMinimum":"#, number: exclusiveMinimum)
        out.member(#","exclusiveMaximum":"#, number: exclusiveMaximum)
        out.member(#","minLength":"#, int: minLength)
        out.member(#","maxLength":"#, int: maxLength)
        out.member(#","pattern":"#, string: pattern)
        out.member(#","minItems":"#, int: minItems)
        out.member(#","maxItems":"#, int: maxItems)
        if let v = uniqueItems {
            out.ascii(#","uniqueItems":"#)
            out.bool(v)
        }
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
