import Foundation

/// A type in the descriptor format (docs/descriptors.md, "Types").
public enum AppFunctionType: Sendable, Hashable, CustomStringConvertible {
    case string, boolean, int32, int64, double, dateTime, date, uuid
    /// A named enum, defined with `AppFunctionEnum`.
    case enumeration(String)
    /// A named record, defined with `AppFunctionRecord`.
    case record(String)
    /// An entity: its id as a parameter, the full entity as a value (`AppFunctionEntity`).
    case entity(String)
    // (only these two are boxed: a named type's case holds its name inline, no allocation
    // each time a parameter asks its type, issue 30)
    indirect case array(AppFunctionType)
    indirect case nullable(AppFunctionType)
    /// Results only: no value.
    case void

    /// The type's descriptor JSON, written straight into `out`.
    func write(to out: inout JSONOut) {
        switch self {
        case .string: out.ascii(#""string""#)
        case .boolean: out.ascii(#""boolean""#)
        case .int32: out.ascii(#""int32""#)
        case .int64: out.ascii(#""int64""#)
        case .double: out.ascii(#""double""#)
        case .dateTime: out.ascii(#""dateTime""#)
        case .date: out.ascii(#""date""#)
        case .uuid: out.ascii(#""uuid""#)
        case .void: out.ascii(#""void""#)
        case .enumeration(let n):
            out.ascii(#"{"enum":"#)
            out.string(n)
            out.byte(0x7D)
        case .record(let n):
            out.ascii(#"{"record":"#)
            out.string(n)
            out.byte(0x7D)
        case .entity(let n):
            out.ascii(#"{"entity":"#)
            out.string(n)
            out.byte(0x7D)
        case .array(let t):
            out.ascii(#"{"array":"#)
            t.write(to: &out)
            out.byte(0x7D)
        case .nullable(let t):
            out.ascii(#"{"nullable":"#)
            t.write(to: &out)
            out.byte(0x7D)
        }
    }

    /// The descriptor JSON of this type, e.g. `{"array":"string"}`.
    public var description: String {
        var out = JSONOut(capacity: 32)
        write(to: &out)
        return out.text
    }

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
    // `_typeName` is what `String(describing:)` prints for a type, without first looking
    // for conformances to the printing protocols (about 50 µs per new type at cold start,
    // for each of an app's enums and records; issue 30).
    public static var typeName: String { _typeName(Self.self, qualified: false) }
    public static var typeDescription: String? { nil }
    public static var memberDescriptions: [String: String] { [:] }
    public static var appFunctionType: AppFunctionType { .enumeration(typeName) }

    // Inlinable, so that it is specialized where the enum conforms: there `allCases` is read
    // as the enum's own collection, not through `CaseIterable`'s associated types and
    // conformances looked up at run time (about 40,000 instructions at first use, issue 30);
    // the definition is written by the collector, in code that is not generic.
    @inlinable
    public static func collectNamedTypes(into collector: inout AppFunctionTypeCollector) {
        let name = typeName
        guard collector.begin(name) else { return }
        collector.addEnum(name, description: typeDescription, members: allCases.map { $0.rawValue },
                          memberDescriptions: memberDescriptions)
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
    public static var typeName: String { _typeName(Self.self, qualified: false) }
    public static var typeDescription: String? { nil }
    public static var appFunctionType: AppFunctionType { .record(typeName) }

    public static func collectNamedTypes(into collector: inout AppFunctionTypeCollector) {
        let name = typeName
        guard collector.begin(name) else { return }
        let fs = fields
        var out = JSONOut(capacity: 512)
        out.ascii(#"{"name":"#)
        out.string(name)
        out.member(#","description":"#, string: typeDescription)
        out.ascii(#","fields":"#)
        AppFunctionField.write(fs, to: &out)
        out.byte(0x7D)
        collector.records.add(name, out)
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

    /// The entity's descriptor (`af_register_entity`), its `fields` given (asked once by
    /// `registerEntity`).
    static func writeEntityDescriptor(fields: [AppFunctionField], to out: inout JSONOut) {
        out.ascii(#"{"name":"#)
        out.string(entityName)
        out.member(#","title":"#, string: entityTitle)
        out.member(#","description":"#, string: typeDescription)
        out.ascii(#","idField":"#)
        out.string(idField)
        out.ascii(#","fields":"#)
        AppFunctionField.write(fields, to: &out)
        out.byte(0x7D)
    }

    /// `writeEntityDescriptor`'s text.
    static var entityDescriptorJSON: String {
        var out = JSONOut()
        writeEntityDescriptor(fields: fields, to: &out)
        return out.text
    }
}

/// Gathers the named enums and records a descriptor needs, each once.
public struct AppFunctionTypeCollector {
    var seen: Set<String> = []
    /// Each type's definition, written once, in the order visited.
    var enums = CollectedTypes()
    var records = CollectedTypes()

    public init() {}

    /// False when `name` was already visited (which also stops recursive records).
    public mutating func begin(_ name: String) -> Bool {
        // (contains first: an insert copies a shared set even when the name is in it)
        if seen.contains(name) { return false }
        return seen.insert(name).inserted
    }

    mutating func visit(_ t: any AppFunctionValue.Type) {
        t.collectNamedTypes(into: &self)
    }

    /// An enum's definition (`AppFunctionEnum.collectNamedTypes`), written straight into
    /// bytes once per type.
    @usableFromInline
    mutating func addEnum(_ name: String, description: String?, members: [String], memberDescriptions: [String: String]) {
        var out = JSONOut(capacity: 256)
        out.ascii(#"{"name":"#)
        out.string(name)
        out.member(#","description":"#, string: description)
        out.ascii(#","members":["#)
        var first = true
        for member in members {
            if !first { out.byte(0x2C) }
            first = false
            if !memberDescriptions.isEmpty, let d = memberDescriptions[member] {
                out.ascii(#"{"name":"#)
                out.string(member)
                out.ascii(#","description":"#)
                out.string(d)
                out.byte(0x7D)
            } else {
                out.string(member)
            }
        }
        out.ascii("]}")
        enums.add(name, out)
    }

    /// `af_define_types`'s document, `{"enums":[...],"records":[...]}`, of the collected
    /// types less those `skip` holds, written into `out`; false when that leaves none.
    func document(skipping skip: Set<String> = [], into out: inout JSONOut) -> Bool {
        var any = false
        out.ascii(#"{"enums":["#)
        enums.write(skipping: skip, into: &out, any: &any)
        out.ascii(#"],"records":["#)
        records.write(skipping: skip, into: &out, any: &any)
        out.ascii("]}")
        return any
    }

    /// `document`'s text, nil when it has no type.
    func document(skipping skip: Set<String> = []) -> String? {
        var out = JSONOut(capacity: 1024)
        return document(skipping: skip, into: &out) ? out.text : nil
    }
}

/// Named types' definitions as a list of their own, newest first, each definition's bytes in
/// memory of its own (no array nor `String`: a new array type's metadata is made at its first
/// use, and so is what the first heap `String` released needs, issue 30).
struct CollectedTypes {
    final class Node {
        let name: String
        /// The definition's JSON, UTF-8.
        let json: UnsafeMutablePointer<UInt8>
        let count: Int
        let next: Node?
        init(_ name: String, _ out: borrowing JSONOut, _ next: Node?) {
            self.name = name
            let n = out.count
            let p = malloc(max(n, 1))!.assumingMemoryBound(to: UInt8.self)
            out.withBytes { if let b = $0.baseAddress { memcpy(p, b, n) } }
            count = n
            json = p
            self.next = next
        }
        deinit { free(json) }
    }

    private(set) var newest: Node?

    var isEmpty: Bool { newest == nil }

    mutating func add(_ name: String, _ definition: borrowing JSONOut) { newest = Node(name, definition, newest) }

    /// Each definition's name, in the order added.
    func forEachName(_ body: (String) -> Void) {
        func visit(_ n: Node?) {
            guard let n else { return }
            visit(n.next)
            body(n.name)
        }
        visit(newest)
    }

    /// The definitions less those `skip` holds, comma-separated, in the order added.
    func write(skipping skip: Set<String>, into out: inout JSONOut, any: inout Bool) {
        var first = true
        func visit(_ n: Node?, _ out: inout JSONOut) {
            guard let n else { return }
            visit(n.next, &out)
            if skip.contains(n.name) { return }
            if !first { out.byte(0x2C) }
            first = false
            any = true
            out.bytes(UnsafeBufferPointer(start: n.json, count: n.count))
        }
        visit(newest, &out)
    }
}

/// A calendar date without a time or a time zone: the core's `date` type, written
/// `YYYY-MM-DD` (ISO 8601, as docs/descriptors.md defines it). Swift's `Date` is an instant
/// (the core's `dateTime`); convert between the two in a time zone with `init(_:in:)` and
/// `date(in:)`.
///
/// ```swift
/// struct Trip: Codable { var departure: AppFunctionDate }   // {"departure":"2025-06-01"}
/// AppFunctionParameter("departure", AppFunctionDate.self)
/// let day = AppFunctionDate(Date(), in: .current)          // today, where the user is
/// ```
public struct AppFunctionDate: AppFunctionValue, Codable, Hashable, Comparable, Sendable,
    CustomStringConvertible, LosslessStringConvertible
{
    public let year: Int
    public let month: Int
    public let day: Int

    public static var appFunctionType: AppFunctionType { .date }

    /// A date; nil when it does not exist in the Gregorian calendar (`2025-02-30`) or the year
    /// is outside 1...9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
              day <= AppFunctionDate.days(inMonth: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The calendar day `date` falls on in `timeZone`.
    public init(_ date: Date, in timeZone: TimeZone = .current) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        year = c.year ?? 1
        month = c.month ?? 1
        day = c.day ?? 1
    }

    /// Parses `YYYY-MM-DD` exactly (four-digit year, two-digit month and day).
    public init?(_ text: String) {
        let u = Array(text.utf8)
        guard u.count == 10, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-") else { return nil }
        func number(_ r: Range<Int>) -> Int? {
            var n = 0
            for i in r {
                guard u[i] >= UInt8(ascii: "0"), u[i] <= UInt8(ascii: "9") else { return nil }
                n = n * 10 + Int(u[i] - UInt8(ascii: "0"))
            }
            return n
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// The start of this day in `timeZone`.
    public func date(in timeZone: TimeZone = .current) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: year, month: month, day: day))!
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        func pad(_ n: Int, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (a: Self, b: Self) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let d = AppFunctionDate(text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected a date YYYY-MM-DD, got \"\(text)\"")
        }
        self = d
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    private static func days(inMonth m: Int, year y: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
