import Foundation

/// A field of a record or entity.
public struct AppFunctionField: Sendable {
    public let name: String
    public let type: AppFunctionType
    public let description: String?
    /// True for `Optional` Swift types: the field is nullable, so by the core's one nullable
    /// rule it may be absent (and then binds as null).
    public let isOptional: Bool
    let valueType: any AppFunctionValue.Type

    /// A field of Swift type `T`; an `Optional` type makes the field optional and nullable.
    public init<T: AppFunctionValue>(_ name: String, _ type: T.Type, description: String? = nil) {
        self.name = name
        self.description = description
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
    let valueType: any AppFunctionValue.Type

    public init<T: AppFunctionValue>(_ name: String, _ type: T.Type, description: String? = nil) {
        self.name = name
        self.description = description
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
        _ name: String, _ type: T.Type, description: String? = nil, default defaultValue: T
    ) {
        self.init(name, type, description: description)
        self = AppFunctionParameter(copying: self, defaultJSON: (try? AppJSON.encode(defaultValue)) ?? "null")
    }

    private init(copying p: AppFunctionParameter, defaultJSON: String) {
        name = p.name
        type = p.type
        description = p.description
        isOptional = true
        isNullable = p.isNullable
        self.defaultJSON = defaultJSON
        valueType = p.valueType
    }

    var json: JSONValue {
        var o: [(String, JSONValue)] = [("name", .string(name)), ("type", type.json)]
        if let d = description { o.append(("description", .string(d))) }
        // no "optional": nullable parameters are optional by the core's one nullable rule,
        // and a default makes a parameter optional
        if isNullable { o.append(("nullable", .bool(true))) }
        if let d = defaultJSON { o.append(("default", .raw(d))) }
        return .object(o)
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
    /// Collapsible toolkit name for agent views.
    public var toolkit: String?
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
        self.allowedCallers = allowedCallers
        self.parameters = parameters()
    }

    func json(result: AppFunctionType, symbol: String?) -> String {
        var o: [(String, JSONValue)] = [("id", .string(id))]
        if let t = title { o.append(("title", .string(t))) }
        if let d = description { o.append(("description", .string(d))) }
        if let s = symbol { o.append(("symbol", .string(s))) }
        o.append(("parameters", .array(parameters.map(\.json))))
        o.append(("result", result.json))
        if opensApp { o.append(("opensApp", .bool(true))) }
        if requiresPermission { o.append(("requiresPermission", .bool(true))) }
        if !enabled { o.append(("enabled", .bool(false))) }
        if let t = toolkit { o.append(("toolkit", .string(t))) }
        if !allowedCallers.isEmpty {
            o.append(("callers", .object([("allow", .array(allowedCallers.map { .string($0) }))])))
        }
        return JSONValue.object(o).text
    }

    func collectNamedTypes(result: (any AppFunctionValue.Type)?, into c: inout AppFunctionTypeCollector) {
        for p in parameters { c.visit(p.valueType) }
        if let result { c.visit(result) }
    }
}

/// The arguments of a function without parameters.
public struct NoArguments: Codable, Sendable {
    public init() {}
}
