import Foundation

/// How a value is written as an argument: `date` parameters send their calendar day.
public enum AppIntentValueFormat: Sendable {
    /// As the descriptor's type reads it (a `Date` as an ISO 8601 date-time with offset).
    case standard
    /// A `Date` as its calendar day, `YYYY-MM-DD`, in the current calendar's time zone.
    case day
}

/// A value an intent sends as an argument or receives as a result or entity property:
/// text, numbers, booleans, dates, the generated enums and entities, arrays and optionals
/// of them (docs/apple.md has the mapping).
public protocol AppFunctionsValue: Sendable {
    /// Reads the value from a JSON value (as `JSONSerialization` gives it).
    init(appFunctionsJSON json: Any) throws
    /// The value as a JSON value for `JSONSerialization`.
    func appFunctionsJSON(_ format: AppIntentValueFormat) -> Any
}

/// Why a result or an entity does not read as the intent's type.
func mismatch(_ want: String, _ got: Any) -> AppFunctionIntentError {
    AppFunctionIntentError(code: .internalError,
                           message: "the app answered \(String(describing: got)) where the intent expects \(want) (do the generated intents match the app's descriptors?)")
}

extension String: AppFunctionsValue {
    public init(appFunctionsJSON json: Any) throws {
        guard let s = json as? String else { throw mismatch("text", json) }
        self = s
    }
    public func appFunctionsJSON(_ format: AppIntentValueFormat) -> Any { self }
}

extension Bool: AppFunctionsValue {
    public init(appFunctionsJSON json: Any) throws {
        if let b = json as? Bool { self = b; return }
        throw mismatch("a boolean", json)
    }
    public func appFunctionsJSON(_ format: AppIntentValueFormat) -> Any { self }
}

extension Int: AppFunctionsValue {
    public init(appFunctionsJSON json: Any) throws {
        if let i = json as? Int { self = i; return }
        if let n = json as? NSNumber, let i = Int(exactly: n.doubleValue) { self = i; return }
        throw mismatch("an integer", json)
    }
    public func appFunctionsJSON(_ format: AppIntentValueFormat) -> Any { self }
}

extension Double: AppFunctionsValue {
    public init(appFunctionsJSON json: Any) throws {
        if let d = json as? Double { self = d; return }
        if let n = json as? NSNumber { self = n.doubleValue; return }
        throw mismatch("a number", json)
    }
    public func appFunctionsJSON(_ format: AppIntentValueFormat) -> Any { self }
}

extension Date: AppFunctionsValue {
    /// An ISO 8601 date-time (with or without fractional seconds), or a calendar day
    /// (`YYYY-MM-DD`, its start in the current calendar).
    public init(appFunctionsJSON json: Any) throws {
        guard let text = json as? String, let date = DateText.parse(text) else { throw mismatch("a date", json) }
        self = date
    }
    public func appFunctionsJSON(_ format: AppIntentValueFormat) -> Any {
        format == .day ? DateText.day(self) : DateText.dateTime(self)
    }
}

enum DateText {
    static func dateTime(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }

    static func day(_ d: Date) -> String {
        let c = Calendar.current.dateComponents([.year, .month, .day], from: d)
        return String(format: "%04d-%02d-%02d", c.year ?? 1, c.month ?? 1, c.day ?? 1)
    }

    static func parse(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime]
        if let d = f.date(from: text) { return d }
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard text.count == 10, parts.count == 3 else { return nil }
        return Calendar.current.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
    }
}

extension Optional: AppFunctionsValue where Wrapped: AppFunctionsValue {
    public init(appFunctionsJSON json: Any) throws {
        self = json is NSNull ? nil : try Wrapped(appFunctionsJSON: json)
    }
    public func appFunctionsJSON(_ format: AppIntentValueFormat) -> Any {
        map { $0.appFunctionsJSON(format) } ?? NSNull()
    }
}

extension Array: AppFunctionsValue where Element: AppFunctionsValue {
    public init(appFunctionsJSON json: Any) throws {
        guard let items = json as? [Any] else { throw mismatch("a list", json) }
        self = try items.map { try Element(appFunctionsJSON: $0) }
    }
    public func appFunctionsJSON(_ format: AppIntentValueFormat) -> Any {
        map { $0.appFunctionsJSON(format) }
    }
}

/// A generated `AppEnum`: its raw value is the member's name.
public protocol AppFunctionsEnum: AppFunctionsValue, RawRepresentable where RawValue == String {}

extension AppFunctionsEnum {
    public init(appFunctionsJSON json: Any) throws {
        guard let name = json as? String, let value = Self(rawValue: name) else {
            throw mismatch("a member of \(Self.self)", json)
        }
        self = value
    }
    public func appFunctionsJSON(_ format: AppIntentValueFormat) -> Any { rawValue }
}

/// A generated `AppEntity`: sent as its id, received whole (its fields), looked up and
/// searched through the app's entity lookup.
public protocol AppFunctionsEntity: AppFunctionsValue {
    /// The entity's name in its descriptor.
    static var appFunctionsEntityName: String { get }
    /// Its generated search function, `search_{entity}`.
    static var appFunctionsSearchFunction: String { get }
    var id: String { get }
    init(appFunctionsFields fields: AppIntentFields) throws
}

extension AppFunctionsEntity {
    public init(appFunctionsJSON json: Any) throws {
        guard let object = json as? [String: Any] else { throw mismatch("an entity \(Self.appFunctionsEntityName)", json) }
        try self.init(appFunctionsFields: AppIntentFields(object))
    }
    public func appFunctionsJSON(_ format: AppIntentValueFormat) -> Any { id }
}

/// An entity's fields as the app's lookup returned them.
public struct AppIntentFields: @unchecked Sendable {
    let object: [String: Any]
    init(_ object: [String: Any]) { self.object = object }

    /// The field `name` (an absent field reads as null: nil for optionals, an error otherwise).
    public func value<T: AppFunctionsValue>(_ name: String, _ type: T.Type) throws -> T {
        do {
            return try T(appFunctionsJSON: object[name] ?? NSNull())
        } catch let e as AppFunctionIntentError {
            throw AppFunctionIntentError(code: e.code, message: "field \(name): \(e.message)")
        }
    }
}

/// The arguments an intent sends: a JSON object keyed by the parameters' names. A nil
/// value is left out (the core then applies the parameter's default, or binds null).
public struct AppIntentArguments: @unchecked Sendable {
    private var object: [String: Any] = [:]

    public init() {}

    public mutating func set<T: AppFunctionsValue>(_ name: String, _ value: T?, as format: AppIntentValueFormat = .standard) {
        guard let value else { return }
        object[name] = value.appFunctionsJSON(format)
    }

    /// The JSON text.
    public var json: String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
