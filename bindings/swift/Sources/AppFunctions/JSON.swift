import Foundation

/// The JSON conventions of the core: dates as ISO 8601 / RFC 3339 strings with an offset.
enum AppJSON {
    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(formatDate(date))
        }
        return e
    }

    static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            guard let date = parseDate(text) else {
                throw DecodingError.dataCorruptedError(
                    in: c, debugDescription: "expected an ISO 8601 date-time, got \"\(text)\"")
            }
            return date
        }
        return d
    }

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

    // One shared encoder and decoder: they are configured once here and never mutated, and
    // their encode/decode are safe to call concurrently (each call keeps its own state).
    private static let sharedEncoder = encoder()
    private static let sharedDecoder = decoder()

    static func encode<T: Encodable>(_ value: T) throws -> String {
        let data = try sharedEncoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try sharedDecoder.decode(type, from: Data(text.utf8))
    }
}

/// A small JSON tree for descriptors (keys keep their order; `raw` embeds encoded text).
indirect enum JSONValue: Sendable {
    case string(String)
    case bool(Bool)
    case int(Int)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])
    case raw(String)

    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .null: out += "null"
        case .raw(let r): out += r
        case .array(let items):
            out += "["
            for (i, v) in items.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (k, v)) in members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(k, to: &out)
                out += ":"
                v.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                out += "\\u" + String(repeating: "0", count: 4 - String(u.value, radix: 16).count)
                    + String(u.value, radix: 16)
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}

/// Finds the raw text of each top-level member of a JSON object without building a tree
/// (the outcome's `result` is handed to the host as the text the core wrote). Works on the
/// UTF-8 bytes; the input is the core's own well-formed output.
enum RawJSON {
    static func topLevelMembers(of text: String) -> [String: [UInt8]]? {
        let u = Array(text.utf8)
        var i = 0
        var out: [String: [UInt8]] = [:]
        @inline(__always) func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
        func ws() { while i < u.count, isSpace(u[i]) { i += 1 } }
        func skipString() -> Bool { // at the opening quote
            i += 1
            while i < u.count {
                if u[i] == 0x5C { i += 2; continue }
                if u[i] == 0x22 { i += 1; return true }
                i += 1
            }
            return false
        }
        func skipValue() -> Bool {
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
                while i < u.count, u[i] != 0x2C, u[i] != 0x7D, u[i] != 0x5D, !isSpace(u[i]) { i += 1 }
                return true
            }
        }
        ws()
        guard i < u.count, u[i] == 0x7B else { return nil }
        i += 1
        ws()
        if i < u.count, u[i] == 0x7D { return out }
        while i < u.count {
            ws()
            guard i < u.count, u[i] == 0x22 else { return nil }
            let ks = i
            guard skipString(), let key = string(u[ks..<i]) else { return nil }
            ws()
            guard i < u.count, u[i] == 0x3A else { return nil }
            i += 1
            ws()
            let vs = i
            guard skipValue() else { return nil }
            out[key] = Array(u[vs..<i])
            ws()
            guard i < u.count else { return nil }
            if u[i] == 0x2C { i += 1; continue }
            if u[i] == 0x7D { return out }
            return nil
        }
        return nil
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count)
        var i = body.startIndex
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= body.endIndex else { return nil }
            return UInt32(String(decoding: body[at..<at + 4], as: UTF8.self), radix: 16)
        }
        while i < body.endIndex {
            let c = body[i]
            guard c == 0x5C, i + 1 < body.endIndex else { bytes.append(c); i += 1; continue }
            let e = body[i + 1]
            i += 2
            switch e {
            case 0x6E: bytes.append(0x0A)
            case 0x72: bytes.append(0x0D)
            case 0x74: bytes.append(0x09)
            case 0x62: bytes.append(0x08)
            case 0x66: bytes.append(0x0C)
            case 0x75:
                guard var v = hex4(i) else { return nil }
                i += 4
                if (0xD800..<0xDC00).contains(v), i + 6 <= body.endIndex, body[i] == 0x5C, body[i + 1] == 0x75,
                   let lo = hex4(i + 2), (0xDC00..<0xE000).contains(lo) {
                    v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
                    i += 6
                }
                bytes.append(contentsOf: Array(String(Unicode.Scalar(v) ?? "\u{FFFD}").utf8))
            default: bytes.append(e) // \" \\ \/
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
