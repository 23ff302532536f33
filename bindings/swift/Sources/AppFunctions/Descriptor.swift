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
        AppFunctionConstraints.write(constraints, to: &out)
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
    public let constraints: AppFunctionConstraints?
    let valueType: any AppFunctionValue.Type

    public init<T: AppFunctionValue>(
        _ name: String, _ type: T.Type, description: String? = nil, constraints: AppFunctionConstraints? = nil
    ) {
        self.init(name, T.appFunctionType, type, description, constraints, defaultJSON: nil)
    }

    /// A parameter the caller may omit; the core then passes `defaultValue`.
    public init<T: AppFunctionValue & Encodable>(
        _ name: String, _ type: T.Type, description: String? = nil, default defaultValue: T,
        constraints: AppFunctionConstraints? = nil
    ) {
        self.init(name, T.appFunctionType, type, description, constraints,
                  defaultJSON: (try? AppJSON.encode(defaultValue)) ?? "null")
    }

    /// What the generic initializers share, not generic (written once, not per `T`). A
    /// default makes the parameter optional; a nullable type makes it optional and nullable.
    private init(
        _ name: String, _ t: AppFunctionType, _ valueType: any AppFunctionValue.Type, _ description: String?,
        _ constraints: AppFunctionConstraints?, defaultJSON: String?
    ) {
        self.name = name
        self.description = description
        self.constraints = constraints
        self.valueType = valueType
        self.defaultJSON = defaultJSON
        if case .nullable(let inner) = t {
            self.type = inner
            self.isNullable = true
        } else {
            self.type = t
            self.isNullable = false
        }
        self.isOptional = isNullable || defaultJSON != nil
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
        AppFunctionConstraints.write(constraints, to: &out)
        out.byte(0x7D)
    }
}

// The builders take each parameter or field as it is and gather them into one array, grown in
// place (issue 30: the one-element array per line and the array of those arrays a
// `buildBlock` takes were a third of building a descriptor, and each new array type's
// metadata is made at its first use). A block's first line starts the array with room for a
// few more; the lines after it, and what `if`, `switch` and `for` give (arrays), are appended.

@resultBuilder
public enum AppFunctionParametersBuilder {
    public static func buildExpression(_ p: AppFunctionParameter) -> AppFunctionParameter { p }
    public static func buildPartialBlock(first p: AppFunctionParameter) -> [AppFunctionParameter] {
        var all: [AppFunctionParameter] = []
        all.reserveCapacity(4)
        all.append(p)
        return all
    }
    public static func buildPartialBlock(first ps: [AppFunctionParameter]) -> [AppFunctionParameter] { ps }
    public static func buildPartialBlock(
        accumulated: consuming [AppFunctionParameter], next p: AppFunctionParameter
    ) -> [AppFunctionParameter] {
        var all = accumulated
        all.append(p)
        return all
    }
    public static func buildPartialBlock(
        accumulated: consuming [AppFunctionParameter], next ps: [AppFunctionParameter]
    ) -> [AppFunctionParameter] {
        var all = accumulated
        all.append(contentsOf: ps)
        return all
    }
    /// An empty block.
    public static func buildBlock() -> [AppFunctionParameter] { [] }
    public static func buildOptional(_ p: [AppFunctionParameter]?) -> [AppFunctionParameter] { p ?? [] }
    public static func buildEither(first p: [AppFunctionParameter]) -> [AppFunctionParameter] { p }
    public static func buildEither(second p: [AppFunctionParameter]) -> [AppFunctionParameter] { p }
    public static func buildArray(_ parts: [[AppFunctionParameter]]) -> [AppFunctionParameter] { parts.flatMap { $0 } }
}

@resultBuilder
public enum AppFunctionFieldsBuilder {
    public static func buildExpression(_ f: AppFunctionField) -> AppFunctionField { f }
    public static func buildPartialBlock(first f: AppFunctionField) -> [AppFunctionField] {
        var all: [AppFunctionField] = []
        all.reserveCapacity(8)
        all.append(f)
        return all
    }
    public static func buildPartialBlock(first fs: [AppFunctionField]) -> [AppFunctionField] { fs }
    public static func buildPartialBlock(accumulated: consuming [AppFunctionField], next f: AppFunctionField) -> [AppFunctionField] {
        var all = accumulated
        all.append(f)
        return all
    }
    public static func buildPartialBlock(
        accumulated: consuming [AppFunctionField], next fs: [AppFunctionField]
    ) -> [AppFunctionField] {
        var all = accumulated
        all.append(contentsOf: fs)
        return all
    }
    /// An empty block.
    public static func buildBlock() -> [AppFunctionField] { [] }
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
        if result != .void && AppFunctionConstraints.isSet(resultConstraints) {
            out.ascii(#"{"type":"#)
            result.write(to: &out)
            AppFunctionConstraints.write(resultConstraints, to: &out)
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
    // The values are held by reference (copied on write), as plain numbers and a mask of the
    // ones set: a parameter, a field and a descriptor hold `AppFunctionConstraints?`, which is
    // then one word. Held inline, the struct of ten optionals was copied through its value
    // witnesses each time a parameter or field was made or written, its metadata and each
    // optional's made at first use (about 32,000 instructions, issue 30).
    private var values: Values

    public var minimum: Double? {
        get { values.has(.minimum) ? values.minimum : nil }
        set { unique().minimum = newValue ?? 0; values.mark(.minimum, newValue != nil) }
    }
    public var maximum: Double? {
        get { values.has(.maximum) ? values.maximum : nil }
        set { unique().maximum = newValue ?? 0; values.mark(.maximum, newValue != nil) }
    }
    public var exclusiveMinimum: Double? {
        get { values.has(.exclusiveMinimum) ? values.exclusiveMinimum : nil }
        set { unique().exclusiveMinimum = newValue ?? 0; values.mark(.exclusiveMinimum, newValue != nil) }
    }
    public var exclusiveMaximum: Double? {
        get { values.has(.exclusiveMaximum) ? values.exclusiveMaximum : nil }
        set { unique().exclusiveMaximum = newValue ?? 0; values.mark(.exclusiveMaximum, newValue != nil) }
    }
    public var minLength: Int? {
        get { values.has(.minLength) ? values.minLength : nil }
        set { unique().minLength = newValue ?? 0; values.mark(.minLength, newValue != nil) }
    }
    public var maxLength: Int? {
        get { values.has(.maxLength) ? values.maxLength : nil }
        set { unique().maxLength = newValue ?? 0; values.mark(.maxLength, newValue != nil) }
    }
    /// An ECMA-262 regular expression the string must match somewhere (anchor it: `^...$`).
    public var pattern: String? {
        get { values.has(.pattern) ? values.pattern : nil }
        set { unique().pattern = newValue ?? ""; values.mark(.pattern, newValue != nil) }
    }
    public var minItems: Int? {
        get { values.has(.minItems) ? values.minItems : nil }
        set { unique().minItems = newValue ?? 0; values.mark(.minItems, newValue != nil) }
    }
    public var maxItems: Int? {
        get { values.has(.maxItems) ? values.maxItems : nil }
        set { unique().maxItems = newValue ?? 0; values.mark(.maxItems, newValue != nil) }
    }
    public var uniqueItems: Bool? {
        get { values.has(.uniqueItems) ? values.uniqueItems : nil }
        set { unique().uniqueItems = newValue ?? false; values.mark(.uniqueItems, newValue != nil) }
    }

    public init(
        minimum: Double? = nil, maximum: Double? = nil,
        exclusiveMinimum: Double? = nil, exclusiveMaximum: Double? = nil,
        minLength: Int? = nil, maxLength: Int? = nil, pattern: String? = nil,
        minItems: Int? = nil, maxItems: Int? = nil, uniqueItems: Bool? = nil
    ) {
        values = Values()
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

    /// The values, mutated only while one struct holds the one reference to them.
    private final class Values: @unchecked Sendable {
        struct Key: OptionSet {
            let rawValue: UInt16
            static let minimum = Key(rawValue: 1 << 0)
            static let maximum = Key(rawValue: 1 << 1)
            static let exclusiveMinimum = Key(rawValue: 1 << 2)
            static let exclusiveMaximum = Key(rawValue: 1 << 3)
            static let minLength = Key(rawValue: 1 << 4)
            static let maxLength = Key(rawValue: 1 << 5)
            static let pattern = Key(rawValue: 1 << 6)
            static let minItems = Key(rawValue: 1 << 7)
            static let maxItems = Key(rawValue: 1 << 8)
            static let uniqueItems = Key(rawValue: 1 << 9)
        }

        /// The values set.
        var set: Key = []
        var minimum = 0.0, maximum = 0.0, exclusiveMinimum = 0.0, exclusiveMaximum = 0.0
        var minLength = 0, maxLength = 0, minItems = 0, maxItems = 0
        var pattern = ""
        var uniqueItems = false

        init() {}

        func has(_ k: Key) -> Bool { set.contains(k) }

        func mark(_ k: Key, _ isSet: Bool) {
            if isSet { set.insert(k) } else { set.remove(k) }
        }

        func copy() -> Values {
            let c = Values()
            c.set = set
            c.minimum = minimum
            c.maximum = maximum
            c.exclusiveMinimum = exclusiveMinimum
            c.exclusiveMaximum = exclusiveMaximum
            c.minLength = minLength
            c.maxLength = maxLength
            c.pattern = pattern
            c.minItems = minItems
            c.maxItems = maxItems
            c.uniqueItems = uniqueItems
            return c
        }
    }

    private mutating func unique() -> Values {
        if !isKnownUniquelyReferenced(&values) { values = values.copy() }
        return values
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.values === b.values
            || (a.minimum == b.minimum && a.maximum == b.maximum && a.exclusiveMinimum == b.exclusiveMinimum
                && a.exclusiveMaximum == b.exclusiveMaximum && a.minLength == b.minLength
                && a.maxLength == b.maxLength && a.pattern == b.pattern && a.minItems == b.minItems
                && a.maxItems == b.maxItems && a.uniqueItems == b.uniqueItems)
    }

    /// True when no constraint is set.
    var isEmpty: Bool { values.set.isEmpty }

    /// The descriptor keys of `c` written into an object being written (each with its leading
    /// comma), in the order docs/descriptors.md lists them; nothing for nil. (Given the
    /// optional as an argument: unwrapped where a parameter or field holds it, it is copied
    /// through its type's value witnesses.)
    @inline(never) static func write(_ c: AppFunctionConstraints?, to out: inout JSONOut) {
        guard let v = c?.values, !v.set.isEmpty else { return }
        if v.has(.minimum) { out.ascii(#","minimum":"#); out.number(v.minimum) }
        if v.has(.maximum) { out.ascii(#","maximum":"#); out.number(v.maximum) }
        if v.has(.exclusiveMinimum) { out.ascii(#","exclusiveMinimum":"#); out.number(v.exclusiveMinimum) }
        if v.has(.exclusiveMaximum) { out.ascii(#","exclusiveMaximum":"#); out.number(v.exclusiveMaximum) }
        if v.has(.minLength) { out.ascii(#","minLength":"#); out.int(v.minLength) }
        if v.has(.maxLength) { out.ascii(#","maxLength":"#); out.int(v.maxLength) }
        if v.has(.pattern) { out.ascii(#","pattern":"#); out.string(v.pattern) }
        if v.has(.minItems) { out.ascii(#","minItems":"#); out.int(v.minItems) }
        if v.has(.maxItems) { out.ascii(#","maxItems":"#); out.int(v.maxItems) }
        if v.has(.uniqueItems) { out.ascii(#","uniqueItems":"#); out.bool(v.uniqueItems) }
    }

    /// True when `c` holds a constraint (as `write`, given the optional as an argument).
    @inline(never) static func isSet(_ c: AppFunctionConstraints?) -> Bool {
        guard let c else { return false }
        return !c.isEmpty
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
