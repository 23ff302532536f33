import Foundation

// The binding's own JSON Codable coder: what crosses the C ABI is JSON text, and Foundation's
// JSONDecoder/JSONEncoder (a Data copy, a tree of `Any`, a second pass) cost more than the
// rest of a call together (issue 30). This one reads the UTF-8 bytes the core lends into a
// small tree and writes straight into a String. It follows JSONDecoder/JSONEncoder's default
// behaviour, with the binding's date convention (ISO 8601, `AppJSON`): `Data` as base64,
// `URL` as its absolute string, `Decimal` as a number, non-finite floats refused, keys as
// the Codable keys are spelled.

/// A parsed JSON value. Numbers keep their text, so integers convert exactly. (Not
/// `indirect`: arrays already hold their elements apart, and a scalar needs no box.)
enum JSONNode {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONNode])
    case object([(key: String, value: JSONNode)])

    var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A strict JSON parser over UTF-8 bytes (RFC 8259, one value, surrounding whitespace).
struct JSONParser {
    private let u: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var depth = 0

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONNode {
        var p = JSONParser(u: bytes)
        p.ws()
        let v = try p.value()
        p.ws()
        guard p.i == bytes.count else { throw p.error("unexpected text after the JSON value") }
        return v
    }

    static func parse(_ text: String) throws -> JSONNode {
        var text = text
        return try text.withUTF8 { try parse($0) }
    }

    private init(u: UnsafeBufferPointer<UInt8>) { self.u = u }

    private func error(_ what: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON: \(what) at byte \(i)."))
    }

    @inline(__always) private mutating func ws() {
        while i < u.count, u[i] == 0x20 || u[i] == 0x0A || u[i] == 0x0D || u[i] == 0x09 { i += 1 }
    }

    private mutating func literal(_ word: StaticString, _ v: JSONNode) throws -> JSONNode {
        let n = word.utf8CodeUnitCount
        guard i + n <= u.count else { throw error("unexpected end") }
        for k in 0..<n where u[i + k] != word.utf8Start[k] { throw error("unexpected character") }
        i += n
        return v
    }

    private mutating func value() throws -> JSONNode {
        guard i < u.count else { throw error("unexpected end") }
        switch u[i] {
        case 0x22: return .string(try string())
        case 0x7B: return try object()
        case 0x5B: return try array()
        case 0x74: return try literal("true", .bool(true))
        case 0x66: return try literal("false", .bool(false))
        case 0x6E: return try literal("null", .null)
        case 0x2D, 0x30...0x39: return try number()
        default: throw error("unexpected character")
        }
    }

    private mutating func nest() throws {
        depth += 1
        if depth > 512 { throw error("too deeply nested") }
    }

    private mutating func object() throws -> JSONNode {
        try nest()
        defer { depth -= 1 }
        i += 1
        var members: [(key: String, value: JSONNode)] = []
        ws()
        if i < u.count, u[i] == 0x7D { i += 1; return .object(members) }
        while true {
            ws()
            guard i < u.count, u[i] == 0x22 else { throw error("expected a key") }
            let key = try string()
            ws()
            guard i < u.count, u[i] == 0x3A else { throw error("expected ':'") }
            i += 1
            ws()
            members.append((key, try value()))
            ws()
            guard i < u.count else { throw error("unexpected end") }
            if u[i] == 0x2C { i += 1; continue }
            if u[i] == 0x7D { i += 1; return .object(members) }
            throw error("expected ',' or '}'")
        }
    }

    private mutating func array() throws -> JSONNode {
        try nest()
        defer { depth -= 1 }
        i += 1
        var items: [JSONNode] = []
        ws()
        if i < u.count, u[i] == 0x5D { i += 1; return .array(items) }
        while true {
            ws()
            items.append(try value())
            ws()
            guard i < u.count else { throw error("unexpected end") }
            if u[i] == 0x2C { i += 1; continue }
            if u[i] == 0x5D { i += 1; return .array(items) }
            throw error("expected ',' or ']'")
        }
    }

    private mutating func number() throws -> JSONNode {
        let start = i
        if u[i] == 0x2D { i += 1 }
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.i
            while p.i < p.u.count, (0x30...0x39).contains(p.u[p.i]) { p.i += 1 }
            return p.i - s
        }
        guard i < u.count else { throw error("bad number") }
        if u[i] == 0x30 { i += 1 } else if digits(&self) == 0 { throw error("bad number") }
        if i < u.count, u[i] == 0x2E {
            i += 1
            if digits(&self) == 0 { throw error("bad number") }
        }
        if i < u.count, u[i] == 0x65 || u[i] == 0x45 {
            i += 1
            if i < u.count, u[i] == 0x2B || u[i] == 0x2D { i += 1 }
            if digits(&self) == 0 { throw error("bad number") }
        }
        return .number(String(decoding: UnsafeBufferPointer(rebasing: u[start..<i]), as: UTF8.self))
    }

    private mutating func hex4() throws -> UInt32 {
        guard i + 4 <= u.count else { throw error("bad \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = u[i]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw error("bad \\u escape")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    /// At the opening quote.
    private mutating func string() throws -> String {
        i += 1
        let start = i
        while i < u.count {
            let c = u[i]
            if c == 0x22 {
                let s = String(decoding: UnsafeBufferPointer(rebasing: u[start..<i]), as: UTF8.self)
                i += 1
                return s
            }
            if c == 0x5C { break }
            if c < 0x20 { throw error("a control character in a string") }
            i += 1
        }
        // escapes: decode into bytes from here
        var bytes = Array(u[start..<i])
        while i < u.count {
            let c = u[i]
            if c == 0x22 {
                i += 1
                return String(decoding: bytes, as: UTF8.self)
            }
            if c < 0x20 { throw error("a control character in a string") }
            if c != 0x5C {
                bytes.append(c)
                i += 1
                continue
            }
            i += 1
            guard i < u.count else { break }
            let e = u[i]
            i += 1
            switch e {
            case 0x22, 0x5C, 0x2F: bytes.append(e)
            case 0x62: bytes.append(0x08)
            case 0x66: bytes.append(0x0C)
            case 0x6E: bytes.append(0x0A)
            case 0x72: bytes.append(0x0D)
            case 0x74: bytes.append(0x09)
            case 0x75:
                var v = try hex4()
                if (0xD800..<0xDC00).contains(v), i + 6 <= u.count, u[i] == 0x5C, u[i + 1] == 0x75 {
                    let save = i
                    i += 2
                    let lo = try hex4()
                    if (0xDC00..<0xE000).contains(lo) {
                        v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
                    } else {
                        i = save
                    }
                }
                bytes.append(contentsOf: String(Unicode.Scalar(v) ?? "\u{FFFD}").utf8)
            default: throw error("bad escape")
            }
        }
        throw error("unterminated string")
    }
}

// MARK: Decoding

struct JSONCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
}

/// Decodes one value of the tree; the entry point is `decode(_:)`.
final class NodeDecoder: Decoder, SingleValueDecodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ node: JSONNode, _ codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = node else {
            throw Self.mismatch([String: Any].self, node, codingPath)
        }
        return KeyedDecodingContainer(NodeKeyedDecoder<Key>(members, codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = node else { throw Self.mismatch([Any].self, node, codingPath) }
        return NodeUnkeyedDecoder(items, codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool {
        if case .null = node { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Self.value(type, node, codingPath) }

    static func mismatch(_ type: Any.Type, _ node: JSONNode, _ path: [any CodingKey]) -> DecodingError {
        if case .null = node {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(node.kind) instead."))
    }

    static func corrupted(_ path: [any CodingKey], _ what: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: what))
    }

    /// A value of `type` at `node`: the scalars directly, dates by the binding's convention,
    /// everything else through its `init(from:)`.
    static func value<T: Decodable>(_ type: T.Type, _ node: JSONNode, _ path: [any CodingKey]) throws -> T {
        // (unsafeBitCast once the types are known equal: `as! T` would be a dynamic cast)
        if T.self == String.self { return unsafeBitCast(try string(node, path), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self, node, path), to: T.self) }
        if T.self == Bool.self {
            guard case .bool(let b) = node else { throw mismatch(type, node, path) }
            return unsafeBitCast(b, to: T.self)
        }
        if T.self == Double.self { return unsafeBitCast(try double(node, path), to: T.self) }
        if T.self == Int32.self { return unsafeBitCast(try integer(Int32.self, node, path), to: T.self) }
        if T.self == Int64.self { return unsafeBitCast(try integer(Int64.self, node, path), to: T.self) }
        if T.self == Date.self {
            let text = try string(node, path)
            guard let date = AppJSON.parseDate(text) else {
                throw corrupted(path, "expected an ISO 8601 date-time, got \"\(text)\"")
            }
            return date as! T
        }
        if T.self == Float.self {
            let d = try double(node, path)
            guard let f = Float(exactly: d) ?? (d.isFinite && abs(d) <= Double(Float.greatestFiniteMagnitude) ? Float(d) : nil) else {
                throw corrupted(path, "Parsed JSON number <\(d)> does not fit in Float.")
            }
            return f as! T
        }
        if T.self == URL.self {
            let text = try string(node, path)
            guard let url = URL(string: text) else { throw corrupted(path, "Invalid URL string.") }
            return url as! T
        }
        if T.self == Data.self {
            let text = try string(node, path)
            guard let data = Data(base64Encoded: text) else {
                throw corrupted(path, "Encountered Data is not valid Base64.")
            }
            return data as! T
        }
        if T.self == Decimal.self {
            guard case .number(let text) = node, let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw mismatch(type, node, path)
            }
            return d as! T
        }
        return try T(from: NodeDecoder(node, path))
    }

    static func string(_ node: JSONNode, _ path: [any CodingKey]) throws -> String {
        guard case .string(let s) = node else { throw mismatch(String.self, node, path) }
        return s
    }

    static func double(_ node: JSONNode, _ path: [any CodingKey]) throws -> Double {
        guard case .number(let text) = node, let d = Double(text) else { throw mismatch(Double.self, node, path) }
        return d
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ node: JSONNode, _ path: [any CodingKey]) throws -> I {
        guard case .number(let text) = node else { throw mismatch(type, node, path) }
        if let i = I(text) { return i }
        if let d = Double(text), d == d.rounded(.towardZero), let i = I(exactly: d) { return i }
        throw corrupted(path, "Parsed JSON number <\(text)> does not fit in \(type).")
    }
}

struct NodeKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(key: String, value: JSONNode)]
    let codingPath: [any CodingKey]

    init(_ members: [(key: String, value: JSONNode)], _ codingPath: [any CodingKey]) {
        self.members = members
        self.codingPath = codingPath
    }

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    /// The last member with the key (JSON objects with a repeated key: the last wins).
    private func find(_ key: Key) -> JSONNode? { find(key.stringValue) }

    private func find(_ name: String) -> JSONNode? {
        var k = members.count
        while k > 0 {
            k -= 1
            if members[k].key == name { return members[k].value }
        }
        return nil
    }

    private func node(_ key: Key) throws -> JSONNode {
        guard let n = find(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath,
                debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return n
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try node(key) { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try NodeDecoder.value(type, try node(key), codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let n = find(key) else { return nil }
        if case .null = n { return nil }
        return try NodeDecoder.value(type, n, codingPath + [key])
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let n = try node(key)
        if case .string(let s) = n { return s }
        throw NodeDecoder.mismatch(type, n, codingPath + [key])
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let n = try node(key)
        if case .bool(let b) = n { return b }
        throw NodeDecoder.mismatch(type, n, codingPath + [key])
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try NodeDecoder.integer(type, try node(key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try NodeDecoder.integer(type, try node(key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try NodeDecoder.integer(type, try node(key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try NodeDecoder.double(try node(key), codingPath + [key]) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        try NodeDecoder(try node(key), codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try NodeDecoder(try node(key), codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = JSONCodingKey(stringValue: "super")
        return NodeDecoder(find("super") ?? .null, codingPath + [key])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoder(find(key) ?? .null, codingPath + [key])
    }
}

struct NodeUnkeyedDecoder: UnkeyedDecodingContainer {
    let items: [JSONNode]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(_ items: [JSONNode], _ codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private var path: [any CodingKey] { codingPath + [JSONCodingKey(index: currentIndex)] }

    private func next<T>(_ type: T.Type) throws -> JSONNode {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
        }
        return items[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        if case .null = try next(Never.self) {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let v = try NodeDecoder.value(type, try next(type), path)
        currentIndex += 1
        return v
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let c = try NodeDecoder(try next(type), path).container(keyedBy: type)
        currentIndex += 1
        return c
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let c = try NodeDecoder(try next([Any].self), path).unkeyedContainer()
        currentIndex += 1
        return c
    }

    mutating func superDecoder() throws -> any Decoder {
        let d = NodeDecoder(try next(Any.self), path)
        currentIndex += 1
        return d
    }
}

// MARK: Encoding

/// What an encoder built: a finished JSON text, or a container still being filled.
enum EncodedNode {
    case text(String)
    case object(EncodedObject)
    case array(EncodedArray)
    /// A super encoder's value, read when written.
    case deferred(NodeEncoder)

    func write(to out: inout JSONOut) {
        switch self {
        case .text(let t): out.raw(t)
        case .object(let o):
            out.byte(0x7B)
            for (k, (key, value)) in o.members.enumerated() {
                if k > 0 { out.byte(0x2C) }
                out.string(key)
                out.byte(0x3A)
                value.write(to: &out)
            }
            out.byte(0x7D)
        case .array(let a):
            out.byte(0x5B)
            for (k, v) in a.items.enumerated() {
                if k > 0 { out.byte(0x2C) }
                v.write(to: &out)
            }
            out.byte(0x5D)
        case .deferred(let e): (e.result ?? .text("{}")).write(to: &out)
        }
    }
}

final class EncodedObject { var members: [(String, EncodedNode)] = [] }
final class EncodedArray { var items: [EncodedNode] = [] }

enum JSONWriter {
    /// A JSON string literal (control characters, `"` and `\` escaped).
    static func quoted(_ s: String) -> String {
        var s = s
        let plain = s.withUTF8 { u in !u.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } }
        if plain {
            // nothing to escape (most text): written once, straight into the string
            return s.withUTF8 { u in
                String(unsafeUninitializedCapacity: u.count + 2) { out in
                    out[0] = 0x22
                    _ = UnsafeMutableBufferPointer(rebasing: out[1...]).initialize(fromContentsOf: u)
                    out[u.count + 1] = 0x22
                    return u.count + 2
                }
            }
        }
        var out = JSONOut(capacity: s.utf8.count + 8)
        out.string(s)
        return out.text
    }

    static func double(_ d: Double, _ path: [any CodingKey]) throws -> String {
        guard d.isFinite else {
            throw EncodingError.invalidValue(d, .init(codingPath: path, debugDescription: "Unable to encode \(d) directly in JSON."))
        }
        var s = d.description
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }

    /// A value as JSON: the scalars directly, dates by the binding's convention, everything
    /// else through its `encode(to:)`.
    static func node<T: Encodable>(_ value: T, _ path: [any CodingKey]) throws -> EncodedNode {
        // the scalars and the types with a JSON convention by their type (a metatype
        // comparison is cheap; a dynamic cast to each candidate is not)
        if T.self == String.self { return .text(quoted(unsafeBitCast(value, to: String.self))) }
        if T.self == Int32.self { return .text(String(unsafeBitCast(value, to: Int32.self))) }
        if T.self == Int.self { return .text(String(unsafeBitCast(value, to: Int.self))) }
        if T.self == Bool.self { return .text(unsafeBitCast(value, to: Bool.self) ? "true" : "false") }
        if T.self == Int64.self { return .text(String(unsafeBitCast(value, to: Int64.self))) }
        if T.self == Double.self { return .text(try double(unsafeBitCast(value, to: Double.self), path)) }
        if T.self == Date.self { return .text(quoted(AppJSON.formatDate(unsafeBitCast(value, to: Date.self)))) }
        if T.self == Float.self {
            let f = unsafeBitCast(value, to: Float.self)
            guard f.isFinite else {
                throw EncodingError.invalidValue(f, .init(codingPath: path, debugDescription: "Unable to encode \(f) directly in JSON."))
            }
            var s = f.description
            if s.hasSuffix(".0") { s.removeLast(2) }
            return .text(s)
        }
        if T.self == URL.self { return .text(quoted((value as! URL).absoluteString)) }
        if T.self == Data.self { return .text(quoted((value as! Data).base64EncodedString())) }
        if T.self == Decimal.self { return .text((value as! Decimal).description) }
        let e = NodeEncoder(path)
        try value.encode(to: e)
        return e.result ?? .text("{}")
    }

    static func text<T: Encodable>(_ value: T) throws -> String {
        // the common results without building anything
        if T.self == String.self { return quoted(unsafeBitCast(value, to: String.self)) }
        var out = JSONOut()
        try node(value, []).write(to: &out)
        return out.text
    }
}

final class NodeEncoder: Encoder, SingleValueEncodingContainer {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var result: EncodedNode?

    init(_ codingPath: [any CodingKey]) { self.codingPath = codingPath }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let o: EncodedObject
        if case .object(let existing) = result { o = existing } else {
            o = EncodedObject()
            result = .object(o)
        }
        return KeyedEncodingContainer(NodeKeyedEncoder<Key>(o, codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let a: EncodedArray
        if case .array(let existing) = result { a = existing } else {
            a = EncodedArray()
            result = .array(a)
        }
        return NodeUnkeyedEncoder(a, codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { result = .text("null") }
    func encode<T: Encodable>(_ value: T) throws { result = try JSONWriter.node(value, codingPath) }
}

struct NodeKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: EncodedObject
    let codingPath: [any CodingKey]

    init(_ object: EncodedObject, _ codingPath: [any CodingKey]) {
        self.object = object
        self.codingPath = codingPath
    }

    mutating func encodeNil(forKey key: Key) throws { object.members.append((key.stringValue, .text("null"))) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.members.append((key.stringValue, try JSONWriter.node(value, codingPath + [key])))
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        object.members.append((key.stringValue, .text(JSONWriter.quoted(value))))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey> {
        let o = EncodedObject()
        object.members.append((key.stringValue, .object(o)))
        return KeyedEncodingContainer(NodeKeyedEncoder<NestedKey>(o, codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let a = EncodedArray()
        object.members.append((key.stringValue, .array(a)))
        return NodeUnkeyedEncoder(a, codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: JSONCodingKey(stringValue: "super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key) }

    private func superEncoder(named key: any CodingKey) -> any Encoder {
        let e = NodeEncoder(codingPath + [key])
        object.members.append((key.stringValue, .deferred(e)))
        return e
    }
}

struct NodeUnkeyedEncoder: UnkeyedEncodingContainer {
    let array: EncodedArray
    let codingPath: [any CodingKey]
    var count: Int { array.items.count }

    init(_ array: EncodedArray, _ codingPath: [any CodingKey]) {
        self.array = array
        self.codingPath = codingPath
    }

    private var path: [any CodingKey] { codingPath + [JSONCodingKey(index: count)] }

    mutating func encodeNil() throws { array.items.append(.text("null")) }

    mutating func encode<T: Encodable>(_ value: T) throws { array.items.append(try JSONWriter.node(value, path)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let o = EncodedObject()
        let p = path
        array.items.append(.object(o))
        return KeyedEncodingContainer(NodeKeyedEncoder<NestedKey>(o, p))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let a = EncodedArray()
        let p = path
        array.items.append(.array(a))
        return NodeUnkeyedEncoder(a, p)
    }

    mutating func superEncoder() -> any Encoder {
        let e = NodeEncoder(path)
        array.items.append(.deferred(e))
        return e
    }
}
