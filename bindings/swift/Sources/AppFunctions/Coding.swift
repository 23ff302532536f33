import Foundation

// The binding's own JSON Codable coder: what crosses the C ABI is JSON text, and Foundation's
// JSONDecoder/JSONEncoder (a Data copy, a tree of `Any`, a second pass) cost more than the
// rest of a call together (issue 30). Decoding reads the UTF-8 bytes the core lends once,
// into a flat list of their values (`JSONTape`: no tree, no String per key), and converts a
// scalar only when a `Decodable` asks for it; encoding writes straight into a String. It
// follows JSONDecoder/JSONEncoder's default behaviour, with the binding's date convention
// (ISO 8601, `AppJSON`): `Data` as base64, `URL` as its absolute string, `Decimal` as a
// number, non-finite floats refused, keys as the Codable keys are spelled.

// MARK: Decoding

/// One JSON value of a `JSONTape`: its kind, where its text is, and where the values after
/// it start (past its members or elements), so a container steps from one member to the next
/// without reading what is inside them.
struct JSONToken {
    enum Kind: UInt8 {
        case null, bool, number
        /// A string without escapes (its bytes are its text), or with some.
        case string, escapedString
        case array, object
    }
    var kind: Kind
    /// A bool's value.
    var isTrue: Bool
    /// The value's bytes: a string's between its quotes, a container's from its bracket.
    var start: Int32
    var end: Int32
    /// The index of the token after this value and everything in it.
    var next: Int32
    /// A container's members or elements.
    var count: Int32

    var kindName: String {
        switch kind {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string, .escapedString: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// JSON text (RFC 8259: one value, surrounding whitespace), checked and read in one pass into
/// its values in document order: an object's token is followed by its members' keys (string
/// tokens), each followed by its value; an array's by its elements.
final class JSONTape: @unchecked Sendable { // one decode at a time: see `decode`
    /// The text, copied into the tape's own storage: a decoder kept past `init(from:)` still
    /// reads bytes of its own (such a tape is never reused).
    @exclusivity(unchecked) private(set) var u = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    @exclusivity(unchecked) private var storage = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    /// The tokens (plain values in memory of the tape's own: read without reference counting).
    @exclusivity(unchecked) private var tokens = UnsafeMutablePointer<JSONToken>.allocate(capacity: 16)
    @exclusivity(unchecked) private var capacity = 16
    @exclusivity(unchecked) private(set) var count = 0

    deinit {
        storage.deallocate()
        tokens.deallocate()
    }

    /// Token `i` (the first is the whole value).
    @inline(__always) subscript(i: Int) -> JSONToken { tokens[i] }

    /// Checks `text` and reads it into this tape (copied once it is known to be JSON).
    func read(_ text: UnsafeBufferPointer<UInt8>) throws {
        var p = JSONTapeParser(u: text, tokens: tokens, capacity: capacity)
        // (the parser may move the tokens to a larger block: taken back even when it throws)
        defer {
            tokens = p.tokens
            capacity = p.capacity
            count = p.count
        }
        guard text.count < Int(Int32.max) else { throw p.error("the text is too long") }
        p.ws()
        try p.value()
        p.ws()
        guard p.i == text.count else { throw p.error("unexpected text after the JSON value") }
        if storage.count < text.count {
            storage.deallocate()
            storage = .allocate(capacity: max(text.count, 64))
        }
        if let from = text.baseAddress, let to = storage.baseAddress { to.update(from: from, count: text.count) }
        u = UnsafeBufferPointer(start: storage.baseAddress, count: text.count)
    }

    /// Decodes a value from `text` on a tape of this thread's: the one kept from the thread's
    /// last decode when no decoder of it outlived that (no allocation in the steady state),
    /// else a new one. The kept tape stays in its slot while in use (`busy`: a decode inside
    /// this one, on this thread, gets a tape of its own); only this thread ever reads it there.
    static func decode<T: Decodable>(_ type: T.Type, _ text: UnsafeBufferPointer<UInt8>) throws -> T {
        guard let kept = pthread_getspecific(tapeKey) else {
            // (none kept yet: this one is, when no decoder outlives the decode)
            var tape = JSONTape()
            defer {
                if isKnownUniquelyReferenced(&tape), tape.keepable, pthread_getspecific(tapeKey) == nil {
                    pthread_setspecific(tapeKey, Unmanaged.passRetained(tape).toOpaque())
                }
            }
            try tape.read(text)
            return try TapeDecoder.value(type, tape, 0, [])
        }
        let slot = Unmanaged<JSONTape>.fromOpaque(kept)
        if slot.takeUnretainedValue().busy {
            let tape = JSONTape()
            try tape.read(text)
            return try TapeDecoder.value(type, tape, 0, [])
        }
        // The slot's reference, taken for the decode: given back when no decoder holds the
        // tape any more, else the slot is emptied and the decoders keep it.
        var tape = slot.takeRetainedValue()
        tape.busy = true
        defer {
            tape.busy = false
            if isKnownUniquelyReferenced(&tape), tape.keepable {
                _ = Unmanaged.passRetained(tape)
            } else {
                pthread_setspecific(tapeKey, nil)
            }
        }
        try tape.read(text)
        return try TapeDecoder.value(type, tape, 0, [])
    }

    /// True while a decode on this thread uses the tape in its slot.
    @exclusivity(unchecked) private var busy = false

    /// Small enough to keep for the next decode.
    private var keepable: Bool { storage.count <= 1 << 16 && capacity <= 1 << 12 }

    /// A string token's value (`.string` or `.escapedString`).
    func string(_ t: JSONToken) -> String {
        let bytes = UnsafeBufferPointer(rebasing: u[Int(t.start)..<Int(t.end)])
        if t.kind == .string { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: JSONTape.unescaped(bytes), as: UTF8.self)
    }

    /// The text of a number token.
    func text(_ t: JSONToken) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: u[Int(t.start)..<Int(t.end)]), as: UTF8.self)
    }

    /// True when the key token `t` is `name` (UTF-8).
    @inline(__always)
    func keyEquals(_ t: JSONToken, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        if t.kind == .escapedString { return JSONTape.unescaped(UnsafeBufferPointer(rebasing: u[Int(t.start)..<Int(t.end)])).elementsEqual(name) }
        let n = Int(t.end - t.start)
        guard n == name.count else { return false }
        return n == 0 || memcmp(u.baseAddress! + Int(t.start), name.baseAddress!, n) == 0
    }

    /// The bytes a string's escapes stand for (the escapes were checked by the parser, so
    /// RawJSON's unescaper never answers nil here).
    static func unescaped(_ u: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        RawJSON.unescaped(u) ?? []
    }
}

/// Builds a tape's tokens (a struct with its cursor: closures over a captured index would
/// check exclusive access on every step).
struct JSONTapeParser {
    let u: UnsafeBufferPointer<UInt8>
    var i = 0
    var depth = 0
    /// The tokens so far: `count` of `capacity` (the block is the tape's; grown here).
    var tokens: UnsafeMutablePointer<JSONToken>
    var capacity: Int
    var count = 0

    init(u: UnsafeBufferPointer<UInt8>, tokens: UnsafeMutablePointer<JSONToken>, capacity: Int) {
        self.u = u
        self.tokens = tokens
        self.capacity = capacity
    }

    func error(_ what: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON: \(what) at byte \(i)."))
    }

    @inline(__always) mutating func ws() {
        while i < u.count, u[i] == 0x20 || u[i] == 0x0A || u[i] == 0x0D || u[i] == 0x09 { i += 1 }
    }

    @inline(__always) private mutating func token(_ kind: JSONToken.Kind, _ start: Int, _ end: Int, isTrue: Bool = false) {
        if count == capacity {
            let larger = UnsafeMutablePointer<JSONToken>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: tokens, count: count)
            tokens.deallocate()
            tokens = larger
            capacity *= 2
        }
        (tokens + count).initialize(to: JSONToken(kind: kind, isTrue: isTrue, start: Int32(start), end: Int32(end),
                                                  next: Int32(count + 1), count: 0))
        count += 1
    }

    private mutating func literal(_ word: StaticString, _ kind: JSONToken.Kind, isTrue: Bool = false) throws {
        let n = word.utf8CodeUnitCount
        guard i + n <= u.count else { throw error("unexpected end") }
        guard memcmp(u.baseAddress! + i, word.utf8Start, n) == 0 else { throw error("unexpected character") }
        token(kind, i, i + n, isTrue: isTrue)
        i += n
    }

    mutating func value() throws {
        guard i < u.count else { throw error("unexpected end") }
        switch u[i] {
        case 0x22: try string()
        case 0x7B: try container(close: 0x7D, .object)
        case 0x5B: try container(close: 0x5D, .array)
        case 0x74: try literal("true", .bool, isTrue: true)
        case 0x66: try literal("false", .bool)
        case 0x6E: try literal("null", .null)
        case 0x2D, 0x30...0x39: try number()
        default: throw error("unexpected character")
        }
    }

    /// An object (each member a key token and its value) or an array.
    private mutating func container(close: UInt8, _ kind: JSONToken.Kind) throws {
        depth += 1
        if depth > 512 { throw error("too deeply nested") }
        defer { depth -= 1 }
        let at = count
        token(kind, i, i)
        i += 1
        var members: Int32 = 0
        ws()
        if i < u.count, u[i] == close {
            i += 1
        } else {
            while true {
                ws()
                if kind == .object {
                    guard i < u.count, u[i] == 0x22 else { throw error("expected a key") }
                    try string()
                    ws()
                    guard i < u.count, u[i] == 0x3A else { throw error("expected ':'") }
                    i += 1
                    ws()
                }
                try value()
                members += 1
                ws()
                guard i < u.count else { throw error("unexpected end") }
                if u[i] == 0x2C { i += 1; continue }
                if u[i] == close { i += 1; break }
                throw error(kind == .object ? "expected ',' or '}'" : "expected ',' or ']'")
            }
        }
        tokens[at].end = Int32(i)
        tokens[at].next = Int32(self.count)
        tokens[at].count = members
    }

    private mutating func digits() -> Int {
        let s = i
        while i < u.count, u[i] >= 0x30, u[i] <= 0x39 { i += 1 }
        return i - s
    }

    private mutating func number() throws {
        let start = i
        if u[i] == 0x2D { i += 1 }
        guard i < u.count else { throw error("bad number") }
        if u[i] == 0x30 { i += 1 } else if digits() == 0 { throw error("bad number") }
        if i < u.count, u[i] == 0x2E {
            i += 1
            if digits() == 0 { throw error("bad number") }
        }
        if i < u.count, u[i] == 0x65 || u[i] == 0x45 {
            i += 1
            if i < u.count, u[i] == 0x2B || u[i] == 0x2D { i += 1 }
            if digits() == 0 { throw error("bad number") }
        }
        token(.number, start, i)
    }

    /// At the opening quote: a string token of the bytes between the quotes, its escapes checked.
    private mutating func string() throws {
        i += 1
        let start = i
        var escaped = false
        while i < u.count {
            let c = u[i]
            if c == 0x22 {
                token(escaped ? .escapedString : .string, start, i)
                i += 1
                return
            }
            if c < 0x20 { throw error("a control character in a string") }
            if c == 0x5C {
                escaped = true
                i += 1
                guard i < u.count else { break }
                switch u[i] {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: i += 1
                case 0x75:
                    i += 1
                    guard i + 4 <= u.count else { throw error("bad \\u escape") }
                    for _ in 0..<4 {
                        switch u[i] {
                        case 0x30...0x39, 0x41...0x46, 0x61...0x66: i += 1
                        default: throw error("bad \\u escape")
                        }
                    }
                default: throw error("bad escape")
                }
                continue
            }
            i += 1
        }
        throw error("unterminated string")
    }
}

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

/// Decodes one value of a tape (a struct of three words: passed as `any Decoder` it needs no
/// allocation); the entry point is `value(_:_:_:_:)`.
struct TapeDecoder: Decoder, SingleValueDecodingContainer {
    let tape: JSONTape
    let index: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ tape: JSONTape, _ index: Int, _ codingPath: [any CodingKey]) {
        self.tape = tape
        self.index = index
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let t = tape[index]
        guard t.kind == .object else { throw Self.mismatch([String: Any].self, t, codingPath) }
        return KeyedDecodingContainer(TapeKeyedDecoder<Key>(tape, index, codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let t = tape[index]
        guard t.kind == .array else { throw Self.mismatch([Any].self, t, codingPath) }
        return TapeUnkeyedDecoder(tape, index, codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { tape[index].kind == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Self.value(type, tape, index, codingPath) }

    static func mismatch(_ type: Any.Type, _ t: JSONToken, _ path: [any CodingKey]) -> DecodingError {
        if t.kind == .null {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(t.kindName) instead."))
    }

    static func corrupted(_ path: [any CodingKey], _ what: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: what))
    }

    /// A value of `type` at token `index`: the scalars directly, dates by the binding's
    /// convention, everything else through its `init(from:)`.
    static func value<T: Decodable>(_ type: T.Type, _ tape: JSONTape, _ index: Int, _ path: [any CodingKey]) throws -> T {
        // (unsafeBitCast once the types are known equal: `as! T` would be a dynamic cast)
        if T.self == String.self { return unsafeBitCast(try string(tape, index, path), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self, tape, index, path), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try bool(tape, index, path), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try double(tape, index, path), to: T.self) }
        if T.self == Int32.self { return unsafeBitCast(try integer(Int32.self, tape, index, path), to: T.self) }
        if T.self == Int64.self { return unsafeBitCast(try integer(Int64.self, tape, index, path), to: T.self) }
        if T.self == Date.self {
            let text = try string(tape, index, path)
            guard let date = AppJSON.parseDate(text) else {
                throw corrupted(path, "Expected an ISO 8601 date-time, got \"\(text)\".")
            }
            return date as! T
        }
        if T.self == Float.self {
            let d = try double(tape, index, path)
            guard let f = Float(exactly: d) ?? (d.isFinite && abs(d) <= Double(Float.greatestFiniteMagnitude) ? Float(d) : nil) else {
                throw corrupted(path, "Parsed JSON number <\(d)> does not fit in Float.")
            }
            return f as! T
        }
        if T.self == URL.self {
            let text = try string(tape, index, path)
            guard let url = URL(string: text) else { throw corrupted(path, "Invalid URL string.") }
            return url as! T
        }
        if T.self == Data.self {
            let text = try string(tape, index, path)
            guard let data = Data(base64Encoded: text) else {
                throw corrupted(path, "Encountered Data is not valid Base64.")
            }
            return data as! T
        }
        if T.self == Decimal.self {
            let t = tape[index]
            guard t.kind == .number, let d = Decimal(string: tape.text(t), locale: Locale(identifier: "en_US_POSIX")) else {
                throw mismatch(type, t, path)
            }
            return d as! T
        }
        // the other integers (the generic `decode` witnesses their requirements too: without
        // these their `init(from:)` would come back here)
        if T.self == UInt.self { return unsafeBitCast(try integer(UInt.self, tape, index, path), to: T.self) }
        if T.self == UInt64.self { return unsafeBitCast(try integer(UInt64.self, tape, index, path), to: T.self) }
        if T.self == UInt32.self { return unsafeBitCast(try integer(UInt32.self, tape, index, path), to: T.self) }
        if T.self == UInt16.self { return unsafeBitCast(try integer(UInt16.self, tape, index, path), to: T.self) }
        if T.self == UInt8.self { return unsafeBitCast(try integer(UInt8.self, tape, index, path), to: T.self) }
        if T.self == Int16.self { return unsafeBitCast(try integer(Int16.self, tape, index, path), to: T.self) }
        if T.self == Int8.self { return unsafeBitCast(try integer(Int8.self, tape, index, path), to: T.self) }
        return try T(from: TapeDecoder(tape, index, path))
    }

    static func string(_ tape: JSONTape, _ index: Int, _ path: [any CodingKey]) throws -> String {
        let t = tape[index]
        guard t.kind == .string || t.kind == .escapedString else { throw mismatch(String.self, t, path) }
        return tape.string(t)
    }

    static func bool(_ tape: JSONTape, _ index: Int, _ path: [any CodingKey]) throws -> Bool {
        let t = tape[index]
        guard t.kind == .bool else { throw mismatch(Bool.self, t, path) }
        return t.isTrue
    }

    static func double(_ tape: JSONTape, _ index: Int, _ path: [any CodingKey]) throws -> Double {
        let t = tape[index]
        guard t.kind == .number, let d = Double(tape.text(t)) else { throw mismatch(Double.self, t, path) }
        return d
    }

    /// An integer: read from the digits when it is written as one, else as JSONDecoder does
    /// (`1e2` and `100.0` are 100; a fraction or a value out of range is refused).
    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ tape: JSONTape, _ index: Int, _ path: [any CodingKey]) throws -> I {
        let t = tape[index]
        guard t.kind == .number else { throw mismatch(type, t, path) }
        let u = tape.u
        var k = Int(t.start)
        let end = Int(t.end)
        let negative = u[k] == 0x2D
        if negative { k += 1 }
        var v: I = 0
        var plain = true
        while k < end {
            let c = u[k]
            guard c >= 0x30, c <= 0x39 else { plain = false; break }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(I(c - 0x30)) : m.addingReportingOverflow(I(c - 0x30))
            if o1 || o2 { plain = false; break }
            v = s
            k += 1
        }
        if plain { return v }
        let text = tape.text(t)
        if let d = Double(text), d == d.rounded(.towardZero), let i = I(exactly: d) { return i }
        throw corrupted(path, "Parsed JSON number <\(text)> does not fit in \(type).")
    }
}

/// An object's members, found by key in the tape (the last member with a key wins, as
/// JSONDecoder's).
struct TapeKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let tape: JSONTape
    /// The object's token.
    let index: Int
    let codingPath: [any CodingKey]

    init(_ tape: JSONTape, _ index: Int, _ codingPath: [any CodingKey]) {
        self.tape = tape
        self.index = index
        self.codingPath = codingPath
    }

    var allKeys: [Key] {
        var keys: [Key] = []
        var k = index + 1
        let stop = Int(tape[index].next)
        while k < stop {
            if let key = Key(stringValue: tape.string(tape[k])) { keys.append(key) }
            k = Int(tape[k + 1].next)
        }
        return keys
    }

    /// The token of the member's value, or nil.
    private func find(_ key: Key) -> Int? { find(key.stringValue) }

    private func find(_ name: String) -> Int? {
        var name = name
        return name.withUTF8 { name in
            var found: Int?
            var k = index + 1
            let stop = Int(tape[index].next)
            while k < stop {
                if tape.keyEquals(tape[k], name) { found = k + 1 }
                k = Int(tape[k + 1].next)
            }
            return found
        }
    }

    private func node(_ key: Key) throws -> Int {
        guard let n = find(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath,
                debugDescription: "No value associated with key \"\(key.stringValue)\"."))
        }
        return n
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        let n = try node(key)
        return tape[n].kind == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try TapeDecoder.value(type, tape, try node(key), codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let n = find(key), tape[n].kind != .null else { return nil }
        return try TapeDecoder.value(type, tape, n, codingPath + [key])
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let n = try node(key)
        let t = tape[n]
        if t.kind == .string || t.kind == .escapedString { return tape.string(t) }
        throw TapeDecoder.mismatch(type, t, codingPath + [key])
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let n = try node(key)
        let t = tape[n]
        if t.kind == .bool { return t.isTrue }
        throw TapeDecoder.mismatch(type, t, codingPath + [key])
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try TapeDecoder.integer(type, tape, try node(key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try TapeDecoder.integer(type, tape, try node(key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try TapeDecoder.integer(type, tape, try node(key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try TapeDecoder.double(tape, try node(key), codingPath + [key]) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        try TapeDecoder(tape, try node(key), codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TapeDecoder(tape, try node(key), codingPath + [key]).unkeyedContainer()
    }

    /// A decoder of the member `super`, or of null when there is none.
    func superDecoder() throws -> any Decoder {
        let key = JSONCodingKey(stringValue: "super")
        return try memberDecoder(find("super"), codingPath + [key])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try memberDecoder(find(key), codingPath + [key])
    }

    private func memberDecoder(_ n: Int?, _ path: [any CodingKey]) throws -> any Decoder {
        if let n { return TapeDecoder(tape, n, path) }
        return TapeDecoder(nullTape, 0, path)
    }
}

/// A tape of the one value `null` (a missing super member decodes as null), never reused.
let nullTape: JSONTape = {
    let null: StaticString = "null", tape = JSONTape()
    try! tape.read(UnsafeBufferPointer(start: null.utf8Start, count: null.utf8CodeUnitCount))
    return tape
}()

/// Each thread's spare tape (released with its thread).
let tapeKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { p in releaseTape(p) }
    return key
}()

private func releaseTape(_ p: UnsafeMutableRawPointer?) {
    if let p { Unmanaged<JSONTape>.fromOpaque(p).release() }
}

struct TapeUnkeyedDecoder: UnkeyedDecodingContainer {
    let tape: JSONTape
    let codingPath: [any CodingKey]
    let count: Int?
    var currentIndex = 0
    /// The token of the element at `currentIndex` (the array's end once at end).
    private var cursor: Int

    init(_ tape: JSONTape, _ index: Int, _ codingPath: [any CodingKey]) {
        self.tape = tape
        self.codingPath = codingPath
        count = Int(tape[index].count)
        cursor = index + 1
    }

    var isAtEnd: Bool { currentIndex >= count! }

    private var path: [any CodingKey] { codingPath + [JSONCodingKey(index: currentIndex)] }

    private func next<T>(_ type: T.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
        }
        return cursor
    }

    private mutating func advance() {
        cursor = Int(tape[cursor].next)
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool {
        if tape[try next(Never.self)].kind == .null {
            advance()
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let v = try TapeDecoder.value(type, tape, try next(type), path)
        advance()
        return v
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let c = try TapeDecoder(tape, try next(type), path).container(keyedBy: type)
        advance()
        return c
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let c = try TapeDecoder(tape, try next([Any].self), path).unkeyedContainer()
        advance()
        return c
    }

    mutating func superDecoder() throws -> any Decoder {
        let d = TapeDecoder(tape, try next(Any.self), path)
        advance()
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
        // the other integers (as when decoding: the generic `encode` witnesses them too)
        if T.self == UInt.self { return .text(String(unsafeBitCast(value, to: UInt.self))) }
        if T.self == UInt64.self { return .text(String(unsafeBitCast(value, to: UInt64.self))) }
        if T.self == UInt32.self { return .text(String(unsafeBitCast(value, to: UInt32.self))) }
        if T.self == UInt16.self { return .text(String(unsafeBitCast(value, to: UInt16.self))) }
        if T.self == UInt8.self { return .text(String(unsafeBitCast(value, to: UInt8.self))) }
        if T.self == Int16.self { return .text(String(unsafeBitCast(value, to: Int16.self))) }
        if T.self == Int8.self { return .text(String(unsafeBitCast(value, to: Int8.self))) }
        let e = NodeEncoder(path)
        try value.encode(to: e)
        return e.result ?? .text("{}")
    }

    /// `value` as JSON, NUL-terminated, lent to `reply` (an inline handler's result on its way
    /// to `af_call_return`): a String without escapes straight into a buffer on the stack, any
    /// other value written as bytes; no String is made for either.
    static func answer<T: Encodable>(_ value: T, _ reply: InlineReply) throws -> InlineReply.Answered {
        if T.self == String.self, let answered = answerPlain(unsafeBitCast(value, to: String.self), reply) {
            return answered
        }
        var out = JSONOut()
        try node(value, []).write(to: &out)
        return out.withCString { reply.answer($0) }
    }

    /// A string with nothing to escape (most text) quoted into a buffer on the stack and
    /// answered; nil for any other (`answer` writes it with its escapes).
    private static func answerPlain(_ s: String, _ reply: InlineReply) -> InlineReply.Answered? {
        var s = s
        return s.withUTF8 { u -> InlineReply.Answered? in
            guard u.count <= 1024 else { return nil }
            for c in u where c < 0x20 || c == 0x22 || c == 0x5C { return nil }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: u.count + 3) { out -> InlineReply.Answered in
                let p = out.baseAddress!
                p[0] = 0x22
                if let from = u.baseAddress { (p + 1).initialize(from: from, count: u.count) }
                p[u.count + 1] = 0x22
                p[u.count + 2] = 0
                return reply.answer(UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self))
            }
        }
    }

    static func text<T: Encodable>(_ value: T) throws -> String {
        // the common results without building anything
        if T.self == String.self { return quoted(unsafeBitCast(value, to: String.self)) }
        let node = try node(value, [])
        // a scalar (or what encodes as one, an enum's raw value) is its text already
        if case .text(let t) = node { return t }
        var out = JSONOut()
        node.write(to: &out)
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
