import Foundation

/// The JSON conventions of the core: dates as ISO 8601 / RFC 3339 strings with an offset.
enum AppJSON {
    /// "2025-06-01T15:00:00Z", with milliseconds only when the date has a fraction.
    static func formatDate(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        let t = date.timeIntervalSince1970
        if t != t.rounded(.down) {
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        }
        return f.string(from: date)
    }

    /// Accepts what the core accepts: an optional fraction and `Z` or `±hh:mm`.
    static func parseDate(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text)
    }

    // The binding's own coder (Coding.swift), not Foundation's JSONEncoder/JSONDecoder.
    static func encode<T: Encodable>(_ value: T) throws -> String {
        try JSONWriter.text(value)
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        var text = text
        return try text.withUTF8 { try decode(type, from: $0) }
    }

    /// Decodes from UTF-8 bytes the core lends (no String made first).
    @inline(__always)
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeBufferPointer<UInt8>) throws -> T {
        try JSONTape.decode(type, bytes)
    }
}

/// A small JSON tree (keys keep their order; `raw` embeds encoded text), for JSON built off the
/// registration path; registration writes its JSON straight into a `JSONOut`.
indirect enum JSONValue: Sendable {
    case string(String)
    case bool(Bool)
    case int(Int)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])
    case raw(String)

    var text: String {
        var out = JSONOut()
        write(to: &out)
        return out.text
    }

    func write(to out: inout JSONOut) {
        switch self {
        case .string(let s): out.string(s)
        case .bool(let b): out.ascii(b ? "true" : "false")
        case .int(let i): out.raw(String(i))
        case .null: out.ascii("null")
        case .raw(let r): out.raw(r)
        case .array(let items):
            out.byte(0x5B)
            for (i, v) in items.enumerated() {
                if i > 0 { out.byte(0x2C) }
                v.write(to: &out)
            }
            out.byte(0x5D)
        case .object(let members):
            out.byte(0x7B)
            for (i, (k, v)) in members.enumerated() {
                if i > 0 { out.byte(0x2C) }
                out.string(k)
                out.byte(0x3A)
                v.write(to: &out)
            }
            out.byte(0x7D)
        }
    }
}

/// JSON text written as UTF-8 bytes into memory of its own (one `malloc`'d buffer, grown by
/// `realloc` when a text outgrows it, freed with the writer): each piece is copied in with a
/// bounds check and `memcpy`, no `Array` between (issue 30: a descriptor's JSON was most of
/// what registering a function cost in Swift, and `Array`'s appends were most of that).
/// Not copyable: one owner, one buffer.
struct JSONOut: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    /// The bytes written so far.
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        base = malloc(self.capacity)!.assumingMemoryBound(to: UInt8.self)
    }

    deinit { free(base) }

    /// The bytes written, lent to `body`.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    var text: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }

    /// A copy of the bytes written.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The bytes as a NUL-terminated C string for the length of `body`: what the core reads,
    /// handed over without a `String` made and copied again for C (issue 30). The NUL is
    /// written past the text, which stays as it was.
    mutating func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        reserve(1)
        base[count] = 0
        return try body(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self))
    }

    /// Room for `n` more bytes.
    @inline(__always) private mutating func reserve(_ n: Int) {
        if n > capacity &- count { grow(count + n) }
    }

    @inline(never) private mutating func grow(_ needed: Int) {
        var c = capacity * 2
        while c < needed { c *= 2 }
        base = realloc(base, c)!.assumingMemoryBound(to: UInt8.self)
        capacity = c
    }

    /// `n` bytes from `p`.
    @inline(__always) private mutating func copy(_ p: UnsafePointer<UInt8>, _ n: Int) {
        reserve(n)
        memcpy(base + count, p, n)
        count &+= n
    }

    /// Text written already (a type's definition, written once).
    mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) {
        if let p = b.baseAddress { copy(p, b.count) }
    }

    /// A decimal integer.
    mutating func int(_ v: Int) {
        reserve(20)
        if v < 0 {
            base[count] = 0x2D
            count &+= 1
        }
        // the digits of the magnitude (Int.min's too: UInt), least significant first, then
        // turned around
        var m = v.magnitude
        var a = count
        repeat {
            base[count] = UInt8(truncatingIfNeeded: m % 10) &+ 0x30
            m /= 10
            count &+= 1
        } while m > 0
        var b = count &- 1
        while a < b {
            let t = base[a]
            base[a] = base[b]
            base[b] = t
            a &+= 1
            b &-= 1
        }
    }

    /// A bound of a value constraint: an integral value as an integer (exact up to 2^53),
    /// any other as Swift prints a `Double`.
    mutating func number(_ d: Double) {
        if d == d.rounded() && abs(d) < 9_007_199_254_740_992 {
            int(Int(d))
        } else {
            raw(String(d))
        }
    }

    @inline(__always) mutating func bool(_ b: Bool) { b ? ascii("true") : ascii("false") }

    @inline(__always) mutating func byte(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count &+= 1
    }

    @inline(__always) mutating func ascii(_ s: StaticString) {
        copy(s.utf8Start, s.utf8CodeUnitCount)
    }

    // The optional members are functions of their own, not inlined: an optional read from a
    // descriptor's field and unwrapped where it is stored is copied twice through its type's
    // value witnesses (an outlined copy that looks its metadata up each time, some 170
    // instructions a member); passed as an argument it arrives in registers.

    /// An optional member: `key` (its `,"name":` bytes) and the value, or nothing when the
    /// value is nil (a descriptor leaves out what the app did not set).
    @inline(never) mutating func member(_ key: StaticString, string v: String?) {
        guard let v else { return }
        ascii(key)
        string(v)
    }

    /// An optional member whose value is JSON text already (a default).
    @inline(never) mutating func member(_ key: StaticString, raw v: String?) {
        guard let v else { return }
        ascii(key)
        raw(v)
    }

    /// An optional member whose value is a number (a bound of a constraint).
    @inline(never) mutating func member(_ key: StaticString, number v: Double?) {
        guard let v else { return }
        ascii(key)
        number(v)
    }

    /// An optional member whose value is an integer (a length or count bound).
    @inline(never) mutating func member(_ key: StaticString, int v: Int?) {
        guard let v else { return }
        ascii(key)
        int(v)
    }

    /// Text that is JSON already.
    mutating func raw(_ s: String) {
        var s = s
        s.withUTF8 { if let p = $0.baseAddress { copy(p, $0.count) } }
    }

    /// A JSON string literal: `"`, `\` and control characters escaped.
    mutating func string(_ s: String) {
        // (the string's own bytes where it has them, native or small; `withUTF8` only for
        // one that has none, which it copies)
        if s.utf8.withContiguousStorageIfAvailable({ quoted($0) }) != nil { return }
        var s = s
        s.withUTF8 { quoted($0) }
    }

    /// UTF-8 bytes as a JSON string literal: eight bytes (or four) at a time while none of
    /// them needs an escape (most text), the last ones as a word overlapping the one before;
    /// from a byte that needs one, byte by byte.
    mutating func quoted(_ u: UnsafeBufferPointer<UInt8>) {
        let n = u.count
        reserve(n &+ 2)
        base[count] = 0x22
        let o = count &+ 1
        var i = 0
        if let src = u.baseAddress {
            let from = UnsafeRawPointer(src)
            let to = UnsafeMutableRawPointer(base + o)
            if n >= 8 {
                while i &+ 8 <= n {
                    let w = from.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    if Self.needsEscape(w) { break }
                    to.storeBytes(of: w, toByteOffset: i, as: UInt64.self)
                    i &+= 8
                }
                if i < n && i &+ 8 > n {
                    let w = from.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
                    if !Self.needsEscape(w) {
                        to.storeBytes(of: w, toByteOffset: n &- 8, as: UInt64.self)
                        i = n
                    }
                }
            } else if n >= 4 {
                let a = from.loadUnaligned(as: UInt32.self)
                let b = from.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
                if !Self.needsEscape(a) && !Self.needsEscape(b) {
                    to.storeBytes(of: a, as: UInt32.self)
                    to.storeBytes(of: b, toByteOffset: n &- 4, as: UInt32.self)
                    i = n
                }
            }
            while i < n {
                let c = src[i]
                if c < 0x20 || c == 0x22 || c == 0x5C {
                    count = o &+ i
                    escaped(src + i, n &- i)
                    return
                }
                base[o &+ i] = c
                i &+= 1
            }
        }
        base[o &+ n] = 0x22
        count = o &+ n &+ 1
    }

    /// True when one of the bytes of `w` is below 0x20, `"` or `\` (exact: a borrow from a
    /// lower byte can mark a higher one only when the lower one matched).
    @inline(__always) private static func needsEscape<W: FixedWidthInteger & UnsignedInteger>(_ w: W) -> Bool {
        let ones = W.max / 0xFF
        let high = ones &* 0x80
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        let below = (w &- ones &* 0x20) & ~w
        let isQuote = (quote &- ones) & ~quote
        let isBackslash = (backslash &- ones) & ~backslash
        return (below | isQuote | isBackslash) & high != 0
    }

    /// The rest of a string literal from its first byte that needs an escape, and its closing
    /// quote.
    @inline(never) private mutating func escaped(_ p: UnsafePointer<UInt8>, _ n: Int) {
        let hex: StaticString = "0123456789abcdef"
        for i in 0..<n {
            let c = p[i]
            guard c < 0x20 || c == 0x22 || c == 0x5C else {
                byte(c)
                continue
            }
            reserve(6)
            base[count] = 0x5C
            switch c {
            case 0x22, 0x5C: base[count &+ 1] = c; count &+= 2
            case 0x0A: base[count &+ 1] = 0x6E; count &+= 2
            case 0x0D: base[count &+ 1] = 0x72; count &+= 2
            case 0x09: base[count &+ 1] = 0x74; count &+= 2
            default:
                base[count &+ 1] = 0x75
                base[count &+ 2] = 0x30
                base[count &+ 3] = 0x30
                base[count &+ 4] = hex.utf8Start[Int(c >> 4)]
                base[count &+ 5] = hex.utf8Start[Int(c & 0xF)]
                count &+= 6
            }
        }
        byte(0x22)
    }
}

/// Finds the raw text of each top-level member of a JSON object without building a tree
/// (the outcome's `result` is handed to the host as the text the core wrote). Works on the
/// UTF-8 bytes; the input is the core's own well-formed output.
enum RawJSON {
    /// Calls `body` with each member's key (the bytes between its quotes, escapes left as
    /// they are) and raw value, in order; false when `u` is not an object.
    static func forEachMember(
        of u: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void
    ) -> Bool {
        var s = Scanner(u: u)
        s.ws()
        guard s.at(0x7B) else { return false }
        s.i += 1
        s.ws()
        if s.at(0x7D) { return true }
        while s.i < u.count {
            s.ws()
            guard s.at(0x22) else { return false }
            let ks = s.i
            guard s.skipString(), s.i - ks >= 2 else { return false }
            let key = UnsafeBufferPointer(rebasing: u[(ks + 1)..<(s.i - 1)])
            s.ws()
            guard s.at(0x3A) else { return false }
            s.i += 1
            s.ws()
            let vs = s.i
            guard s.skipValue() else { return false }
            body(key, UnsafeBufferPointer(rebasing: u[vs..<s.i]))
            s.ws()
            if s.at(0x2C) { s.i += 1; continue }
            return s.at(0x7D)
        }
        return false
    }

    /// A cursor over the bytes (a struct, not closures over a captured index: those check
    /// exclusive access on every step).
    private struct Scanner {
        let u: UnsafeBufferPointer<UInt8>
        var i = 0

        @inline(__always) func at(_ c: UInt8) -> Bool { i < u.count && u[i] == c }

        @inline(__always) static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

        mutating func ws() { while i < u.count, Self.isSpace(u[i]) { i += 1 } }

        /// At the opening quote.
        mutating func skipString() -> Bool {
            i += 1
            while i < u.count {
                if u[i] == 0x5C { i += 2; continue }
                if u[i] == 0x22 { i += 1; return true }
                i += 1
            }
            return false
        }

        mutating func skipValue() -> Bool {
            guard i < u.count else { return false }
            switch u[i] {
            case 0x22: return skipString()
            case 0x7B, 0x5B:
                var depth = 0
                while i < u.count {
                    switch u[i] {
                    case 0x22: if !skipString() { return false }; continue
                    case 0x7B, 0x5B: depth += 1
                    case 0x7D, 0x5D:
                        depth -= 1
                        if depth == 0 { i += 1; return true }
                    default: break
                    }
                    i += 1
                }
                return false
            default:
                while i < u.count, u[i] != 0x2C, u[i] != 0x7D, u[i] != 0x5D, !Self.isSpace(u[i]) { i += 1 }
                return true
            }
        }
    }

    /// True when the bytes are exactly `word` (ASCII).
    @inline(__always)
    static func equals(_ b: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard b.count == word.utf8CodeUnitCount else { return false }
        let w = word.utf8Start
        for k in 0..<b.count where b[k] != w[k] { return false }
        return true
    }

    static func string(_ raw: UnsafeBufferPointer<UInt8>?) -> String? {
        guard let raw, raw.count >= 2, raw[0] == 0x22, raw[raw.count - 1] == 0x22 else { return nil }
        let body = UnsafeBufferPointer(rebasing: raw[1..<(raw.count - 1)])
        if !body.contains(0x5C) { return String(decoding: body, as: UTF8.self) }
        return string(ArraySlice(raw))
    }

    /// A JSON string literal's value (nil for anything else, `null` included).
    static func string(_ raw: [UInt8]?) -> String? {
        raw.flatMap { string($0[...]) }
    }

    static func string(_ raw: ArraySlice<UInt8>?) -> String? {
        guard let raw, raw.count >= 2, raw.first == 0x22, raw[raw.index(before: raw.endIndex)] == 0x22 else {
            return nil
        }
        let body = raw[raw.index(after: raw.startIndex)..<raw.index(before: raw.endIndex)]
        if !body.contains(0x5C) { return String(decoding: body, as: UTF8.self) }
        return body.withUnsafeBufferPointer { unescaped($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes a JSON string's body (between its quotes) stands for, its escapes replaced; nil
    /// for a broken escape (a lone backslash, `\u` without four hex digits). A lone surrogate
    /// becomes U+FFFD. The one unescaper of the binding: the outcome's reader and the Codable
    /// tape (whose parser has checked the escapes already) both use it.
    static func unescaped(_ u: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(u.count)
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= u.count else { return nil }
            var v: UInt32 = 0
            for k in at..<(at + 4) {
                let c = u[k]
                let d: UInt8
                switch c {
                case 0x30...0x39: d = c - 0x30
                case 0x41...0x46, 0x61...0x66: d = (c | 0x20) - 0x61 + 10
                default: return nil
                }
                v = v << 4 | UInt32(d)
            }
            return v
        }
        var i = 0
        while i < u.count {
            let c = u[i]
            if c != 0x5C {
                bytes.append(c)
                i += 1
                continue
            }
            guard i + 1 < u.count else { return nil }
            let e = u[i + 1]
            i += 2
            switch e {
            case 0x62: bytes.append(0x08)
            case 0x66: bytes.append(0x0C)
            case 0x6E: bytes.append(0x0A)
            case 0x72: bytes.append(0x0D)
            case 0x74: bytes.append(0x09)
            case 0x75:
                guard var v = hex4(i) else { return nil }
                i += 4
                if (0xD800..<0xDC00).contains(v), i + 6 <= u.count, u[i] == 0x5C, u[i + 1] == 0x75,
                   let lo = hex4(i + 2), (0xDC00..<0xE000).contains(lo) {
                    v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
                    i += 6
                }
                bytes.append(contentsOf: String(Unicode.Scalar(v) ?? "\u{FFFD}").utf8)
            case 0x22, 0x5C, 0x2F: bytes.append(e)
            default: return nil
            }
        }
        return bytes
    }
}
