import Foundation

/// A type in the descriptor format (docs/descriptors.md, "Types").
public indirect enum AppFunctionType: Sendable, Hashable, CustomStringConvertible {
    case string, boolean, int32, int64, double, dateTime, date, uuid
    /// A named enum, defined with `AppFunctionEnum`.
    case enumeration(String)
    /// A named record, defined with `AppFunctionRecord`.
    case record(String)
    /// An entity: its id as a parameter, the full entity as a value (`AppFunctionEntity`).
    case entity(String)
    case array(AppFunctionType)
    case nullable(AppFunctionType)
    /// Results only: no value.
    case void

    var json: JSONValue {
        switch self {
        case .string: return .string("string")
        case .boolean: return .string("boolean")
        case .int32: return .string("int32")
        case .int64: return .string("int64")
        case .double: return .string("double")
        case .dateTime: return .string("dateTime")
        case .date: return .string("date")
        case .uuid: return .string("uuid")
        case .void: return .string("void")
        case .enumeration(let n): return .object([("enum", .string(n))])
        case .record(let n): return .object([("record", .string(n))])
        case .entity(let n): return .object([("entity", .string(n))])
        case .array(let t): return .object([("array", t.json)])
        case .nullable(let t): return .object([("nullable", t.json)])
        }
    }

    /// The descriptor JSON of this type, e.g. `{"array":"string"}`.
    public var description: String { json.text }

    /// Reads a type from the registry's JSON form (a name or a one-key object).
    init?(jsonObject v: Any) {
        if let s = v as? String {
            switch s {
            case "string": self = .string
            case "boolean": self = .boolean
            case "int32": self = .int32
            case "int64": self = .int64
            case "double": self = .double
            case "dateTime": self = .dateTime
            case "date": self = .date
            case "uuid": self = .uuid
            case "void": self = .void
            default: return nil
            }
            return
        }
        guard let o = v as? [String: Any], o.count == 1, let (k, inner) = o.first else { return nil }
        switch k {
        case "enum": guard let n = inner as? String else { return nil }; self = .enumeration(n)
        case "record": guard let n = inner as? String else { return nil }; self = .record(n)
        case "entity": guard let n = inner as? String else { return nil }; self = .entity(n)
        case "array": guard let t = AppFunctionType(jsonObject: inner) else { return nil }; self = .array(t)
        case "nullable": guard let t = AppFunctionType(jsonObject: inner) else { return nil }; self = .nullable(t)
        default: return nil
        }
    }
}

/// A Swift type that has a descriptor type. Conformances exist for `String`, `Bool`,
/// `Int32`, `Int64`, `Int` (int64), `Double`, `Date` (ISO 8601 date-time), `UUID`,
/// `Optional` (nullable, and an optional parameter), `Array`, and every `AppFunctionEnum`,
/// `AppFunctionRecord` and `AppFunctionEntity`.
public protocol AppFunctionValue {
    /// The descriptor type of this Swift type.
    static var appFunctionType: AppFunctionType { get }
    /// Adds the named enums and records this type needs (default: none).
    static func collectNamedTypes(into collector: inout AppFunctionTypeCollector)
}

extension AppFunctionValue {
    public static func collectNamedTypes(into collector: inout AppFunctionTypeCollector) {}
}

extension String: AppFunctionValue { public static var appFunctionType: AppFunctionType { .string } }
extension Bool: AppFunctionValue { public static var appFunctionType: AppFunctionType { .boolean } }
extension Int32: AppFunctionValue { public static var appFunctionType: AppFunctionType { .int32 } }
extension Int64: AppFunctionValue { public static var appFunctionType: AppFunctionType { .int64 } }
extension Int: AppFunctionValue { public static var appFunctionType: AppFunctionType { .int64 } }
extension Double: AppFunctionValue { public static var appFunctionType: AppFunctionType { .double } }
extension Date: AppFunctionValue { public static var appFunctionType: AppFunctionType { .dateTime } }
extension UUID: AppFunctionValue { public static var appFunctionType: AppFunctionType { .uuid } }

extension Optional: AppFunctionValue where Wrapped: AppFunctionValue {
    public static var appFunctionType: AppFunctionType {
        if case .nullable = Wrapped.appFunctionType { return Wrapped.appFunctionType }
        return .nullable(Wrapped.appFunctionType)
    }
    public static func collectNamedTypes(into collector: inout AppFunctionTypeCollector) {
        Wrapped.collectNamedTypes(into: &collector)
    }
}

extension Array: AppFunctionValue where Element: AppFunctionValue {
    public static var appFunctionType: AppFunctionType { .array(Element.appFunctionType) }
    public static func collectNamedTypes(into collector: inout AppFunctionTypeCollector) {
        Element.collectNamedTypes(into: &collector)
    }
}

/// An enum offered to assistants: its cases' raw values are the member names.
///
/// ```swift
/// enum Priority: String, AppFunctionEnum {
///     case low = "Low", normal = "Normal", high = "High"
///     static let typeDescription: String? = "How urgent an order is"
/// }
/// ```
public protocol AppFunctionEnum: AppFunctionValue, CaseIterable, Codable, Sendable, RawRepresentable
where RawValue == String {
    /// The enum's name in descriptors (default: the Swift type name).
    static var typeName: String { get }
    static var typeDescription: String? { get }
    /// Descriptions of members, keyed by raw value (default: none).
    static var memberDescriptions: [String: String] { get }
}

extension AppFunctionEnum {
    public static var typeName: String { String(describing: Self.self) }
    public static var typeDescription: String? { nil }
    public static var memberDescriptions: [String: String] { [:] }
    public static var appFunctionType: AppFunctionType { .enumeration(typeName) }

    public static func collectNamedTypes(into collector: inout AppFunctionTypeCollector) {
        guard collector.begin(typeName) else { return }
        let members: [JSONValue] = allCases.map { c in
            if let d = memberDescriptions[c.rawValue] {
                return .object([("name", .string(c.rawValue)), ("description", .string(d))])
            }
            return .string(c.rawValue)
        }
        var def: [(String, JSONValue)] = [("name", .string(typeName))]
        if let d = typeDescription { def.append(("description", .string(d))) }
        def.append(("members", .array(members)))
        collector.enums.append((typeName, .object(def)))
    }
}

/// A record (a structured argument or result). Its fields are described with the same
/// builder as parameters; the Codable keys must match the field names.
///
/// ```swift
/// struct Note: AppFunctionRecord {
///     var id: Int32
///     var title: String
///     static var fields: [AppFunctionField] {
///         AppFunctionField("id", Int32.self, description: "The note's ID.")
///         AppFunctionField("title", String.self)
///     }
/// }
/// ```
public protocol AppFunctionRecord: AppFunctionValue, Codable, Sendable {
    static var typeName: String { get }
    static var typeDescription: String? { get }
    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] { get }
}

extension AppFunctionRecord {
    public static var typeName: String { String(describing: Self.self) }
    public static var typeDescription: String? { nil }
    public static var appFunctionType: AppFunctionType { .record(typeName) }

    public static func collectNamedTypes(into collector: inout AppFunctionTypeCollector) {
        guard collector.begin(typeName) else { return }
        let fs = fields
        var def: [(String, JSONValue)] = [("name", .string(typeName))]
        if let d = typeDescription { def.append(("description", .string(d))) }
        def.append(("fields", .array(fs.map(\.json))))
        collector.records.append((typeName, .object(def)))
        for f in fs { f.valueType.collectNamedTypes(into: &collector) }
    }
}

/// An entity: app data an assistant refers to by id (an order, a note). Registering it
/// with `AppFunctionDispatcher.registerEntity` generates `search_{entityName}`; a
/// parameter of this type takes the id and the handler receives the whole entity.
public protocol AppFunctionEntity: AppFunctionRecord {
    /// The entity's name (lower case, it becomes part of `search_{entityName}`).
    static var entityName: String { get }
    /// The field holding the id (default "id").
    static var idField: String { get }
    static var entityTitle: String? { get }
}

extension AppFunctionEntity {
    public static var idField: String { "id" }
    public static var entityTitle: String? { nil }
    public static var typeName: String { entityName }
    public static var appFunctionType: AppFunctionType { .entity(entityName) }

    /// The entity's own record is defined by `registerEntity`; only its fields' types are
    /// collected here.
    public static func collectNamedTypes(into collector: inout AppFunctionTypeCollector) {
        guard collector.begin(entityName) else { return }
        for f in fields { f.valueType.collectNamedTypes(into: &collector) }
    }

    static var entityDescriptorJSON: JSONValue {
        var o: [(String, JSONValue)] = [("name", .string(entityName))]
        if let t = entityTitle { o.append(("title", .string(t))) }
        if let d = typeDescription { o.append(("description", .string(d))) }
        o.append(("idField", .string(idField)))
        o.append(("fields", .array(fields.map(\.json))))
        return .object(o)
    }
}

/// Gathers the named enums and records a descriptor needs, each once.
public struct AppFunctionTypeCollector {
    var seen: Set<String> = []
    var enums: [(name: String, json: JSONValue)] = []
    var records: [(name: String, json: JSONValue)] = []

    public init() {}

    /// False when `name` was already visited (which also stops recursive records).
    public mutating func begin(_ name: String) -> Bool {
        seen.insert(name).inserted
    }

    mutating func visit(_ t: any AppFunctionValue.Type) {
        t.collectNamedTypes(into: &self)
    }
}
