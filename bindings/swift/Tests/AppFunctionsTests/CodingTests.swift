@testable import AppFunctions
import Foundation
import XCTest

/// The binding's JSON decoder (Coding.swift: the text read once into a tape of its values,
/// no tree), as handlers' arguments and `outcome.result(as:)` use it: every JSON scalar kind,
/// nested and optional fields, what JSONDecoder accepts and refuses, and errors that say what
/// is wrong and where.
final class CodingTests: XCTestCase {
    struct Scalars: Codable, Equatable {
        var text: String
        var flag: Bool
        var off: Bool
        var int: Int
        var int8: Int8
        var int32: Int32
        var int64: Int64
        var uint: UInt
        var uint16: UInt16
        var double: Double
        var float: Float
        var date: Date
        var url: URL
        var data: Data
        var decimal: Decimal
        var uuid: UUID
        var none: String?
    }

    func testEveryScalarKindDecodes() throws {
        let json = #"""
            { "text" : "caf\u00e9 \"q\" \\ \/ \n\t\ud83d\ude00é", "flag": true, "off": false,
              "int": -9223372036854775808, "int8": 127, "int32": -2147483648, "int64": 9223372036854775807,
              "uint": 18446744073709551615, "uint16": 1e2, "double": -1.5e-3, "float": 0.25,
              "date": "2025-06-01T15:00:00Z", "url": "https://example.com/a?b=c", "data": "aGk=",
              "decimal": 12.50, "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "none": null }
            """#
        let s = try AppJSON.decode(Scalars.self, from: json)
        XCTAssertEqual(s.text, "café \"q\" \\ / \n\t😀é")
        XCTAssertTrue(s.flag)
        XCTAssertFalse(s.off)
        XCTAssertEqual(s.int, Int.min)
        XCTAssertEqual(s.int8, 127)
        XCTAssertEqual(s.int32, Int32.min)
        XCTAssertEqual(s.int64, Int64.max)
        XCTAssertEqual(s.uint, UInt.max)
        XCTAssertEqual(s.uint16, 100, "an integer written with an exponent, as JSONDecoder reads it")
        XCTAssertEqual(s.double, -0.0015)
        XCTAssertEqual(s.float, 0.25)
        XCTAssertEqual(s.date, Date(timeIntervalSince1970: 1_748_790_000))
        XCTAssertEqual(s.url, URL(string: "https://example.com/a?b=c"))
        XCTAssertEqual(s.data, Data("hi".utf8))
        XCTAssertEqual(s.decimal, Decimal(string: "12.5"))
        XCTAssertEqual(s.uuid, UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        XCTAssertNil(s.none)
        // and back: what the encoder writes decodes to the same value
        XCTAssertEqual(try AppJSON.decode(Scalars.self, from: AppJSON.encode(s)), s)
        // top-level scalars
        XCTAssertEqual(try AppJSON.decode(String.self, from: #""hi""#), "hi")
        XCTAssertEqual(try AppJSON.decode(Int.self, from: " 42 "), 42)
        XCTAssertEqual(try AppJSON.decode(Double.self, from: "3"), 3)
        XCTAssertEqual(try AppJSON.decode(Bool.self, from: "true"), true)
        XCTAssertEqual(try AppJSON.decode(Int?.self, from: "null"), nil)
        XCTAssertEqual(try AppJSON.decode([Int?].self, from: "[1,null,3]"), [1, nil, 3])
    }

    struct Address: Codable, Equatable {
        var city: String
        var zip: String?
    }
    struct Line: Codable, Equatable {
        var sku: String
        var quantity: Int32
    }
    struct Customer: Codable, Equatable {
        var name: String
        var address: Address
        var billing: Address?
        var lines: [Line]
        var tags: [String: Int]
        var note: String?
        var matrix: [[Int]]
    }

    func testNestedAndOptionalFieldsDecode() throws {
        let json = #"""
            {"name":"acme","address":{"city":"Lyon","zip":null},"lines":[{"sku":"a","quantity":1},
             {"quantity":2,"sku":"b","extra":{"ignored":[1,{"x":"}"}]}}],"tags":{"x":1,"y":2},
             "matrix":[[],[1],[2,3]],"billing":{"city":"Nice","zip":"06000"}}
            """#
        let c = try AppJSON.decode(Customer.self, from: json)
        XCTAssertEqual(c, Customer(name: "acme", address: Address(city: "Lyon", zip: nil),
                                   billing: Address(city: "Nice", zip: "06000"),
                                   lines: [Line(sku: "a", quantity: 1), Line(sku: "b", quantity: 2)],
                                   tags: ["x": 1, "y": 2], note: nil, matrix: [[], [1], [2, 3]]))
        // an optional member omitted, or null, is nil
        let bare = try AppJSON.decode(Customer.self, from: #"{"name":"n","address":{"city":"c"},"billing":null,"lines":[],"tags":{},"matrix":[]}"#)
        XCTAssertNil(bare.billing)
        XCTAssertNil(bare.address.zip)
        XCTAssertEqual(bare.lines, [])
        XCTAssertEqual(bare.tags, [:])
        // a key written with escapes is the same key; a repeated key: the last one wins
        XCTAssertEqual(try AppJSON.decode(Address.self, from: #"{"c\u0069ty":"Lyon"}"#).city, "Lyon")
        XCTAssertEqual(try AppJSON.decode(Address.self, from: #"{"city":"a","city":"b"}"#).city, "b")
    }

    /// What a failed decode says: the error, and where it is (members by key, elements by index).
    private func failure<T: Decodable>(_ type: T.Type, _ json: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try AppJSON.decode(type, from: json)
            XCTFail("\(json) decoded as \(type)", file: file, line: line)
            return ""
        } catch {
            return describeDecoding(error)
        }
    }

    func testBadValuesAreRefusedNamingWhatIsWrongAndWhere() {
        let customer = #""name":"n","address":{"city":"c"},"tags":{},"matrix":[]"#
        XCTAssertEqual(failure(Customer.self, #"{\#(customer),"lines":[{"sku":"a","quantity":1},{"sku":7,"quantity":1}]}"#),
                       "at `lines[1].sku`: Expected to decode String but found a number instead.")
        XCTAssertEqual(failure(Customer.self, #"{\#(customer),"lines":[{"sku":"a"}]}"#),
                       "at `lines[0].quantity`: No value associated with key \"quantity\".")
        XCTAssertEqual(failure(Customer.self, #"{"name":"n","address":{"city":null},"lines":[],"tags":{},"matrix":[]}"#),
                       "at `address.city`: Expected String value but found null instead.")
        XCTAssertEqual(failure(Customer.self, #"{"name":"n","address":[],"lines":[],"tags":{},"matrix":[]}"#),
                       "at `address`: Expected to decode Dictionary<String, Any> but found an array instead.")
        XCTAssertEqual(failure(Customer.self, #"{"name":"n","address":{"city":"c"},"lines":[],"tags":{"a":"1"},"matrix":[]}"#),
                       "at `tags.a`: Expected to decode Int but found a string instead.")
        XCTAssertEqual(failure(Customer.self, #"{"name":"n","address":{"city":"c"},"lines":[],"tags":{},"matrix":[[1,true]]}"#),
                       "at `matrix[0][1]`: Expected to decode Int but found a boolean instead.")
        // integers: out of range, or with a fraction
        XCTAssertEqual(failure(Line.self, #"{"sku":"a","quantity":2147483648}"#),
                       "at `quantity`: Parsed JSON number <2147483648> does not fit in Int32.")
        XCTAssertEqual(failure(Line.self, #"{"sku":"a","quantity":1.5}"#),
                       "at `quantity`: Parsed JSON number <1.5> does not fit in Int32.")
        XCTAssertEqual(failure(UInt8.self, "-1"), "Parsed JSON number <-1> does not fit in UInt8.")
        XCTAssertEqual(failure([Date].self, #"["yesterday"]"#),
                       "at `[0]`: Expected an ISO 8601 date-time, got \"yesterday\".")
        XCTAssertEqual(failure([Int].self, "[1,2]x"), "The given data was not valid JSON: unexpected text after the JSON value at byte 5.")
    }

    func testTextThatIsNotJSONIsRefused() {
        for bad in ["", "{", #"{"a"}"#, #"{"a":}"#, "{a:1}", "[1,]", "[1 2]", "01", "1.", "-", "1e", "tru",
                    #""a"#, "\"\u{1}\"", #""\x""#, #""\u12G4""#, "nul", "{\"a\":1,}", "[", "]"] {
            XCTAssertThrowsError(try AppJSON.decode([String: Int].self, from: bad), bad) { error in
                XCTAssertTrue(describeDecoding(error).hasPrefix("The given data was not valid JSON"), "\(bad): \(error)")
            }
        }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        XCTAssertThrowsError(try AppJSON.decode([Int].self, from: deep)) { error in
            XCTAssertTrue(describeDecoding(error).contains("too deeply nested"), "\(error)")
        }
    }

    /// A Decodable reading its members in its own way: single values, keys in any order,
    /// `allKeys`, `contains`, nested containers by key and by index, a super decoder.
    struct Custom: Decodable {
        var keys: [String]
        var first: Int
        var pair: [String]
        var inner: String
        var parent: String?

        enum K: String, CodingKey { case pair, inner, missing, list, `super` }
        enum Inner: String, CodingKey { case value }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: K.self)
            keys = c.allKeys.map(\.stringValue).sorted()
            XCTAssertFalse(c.contains(.missing))
            var list = try c.nestedUnkeyedContainer(forKey: .list)
            XCTAssertEqual(list.count, 3)
            first = try list.decode(Int.self)
            XCTAssertTrue(try list.decodeNil())
            let nested = try list.nestedContainer(keyedBy: Inner.self)
            XCTAssertEqual(try nested.decode(Int.self, forKey: .value), 3)
            XCTAssertTrue(list.isAtEnd)
            XCTAssertThrowsError(try list.decode(Int.self))
            var pairs = try c.nestedUnkeyedContainer(forKey: .pair)
            pair = [try pairs.decode(String.self), try pairs.decode(String.self)]
            inner = try c.nestedContainer(keyedBy: Inner.self, forKey: .inner).decode(String.self, forKey: .value)
            parent = try String?(from: c.superDecoder())
        }
    }

    func testContainersDecodeByKeyAndByIndex() throws {
        let c = try AppJSON.decode(Custom.self, from: #"{"list":[1,null,{"value":3}],"pair":["a","b"],"inner":{"value":"v"},"unknown":{}}"#)
        XCTAssertEqual(c.keys, ["inner", "list", "pair"])
        XCTAssertEqual(c.first, 1)
        XCTAssertEqual(c.pair, ["a", "b"])
        XCTAssertEqual(c.inner, "v")
        XCTAssertNil(c.parent)
        let withSuper = try AppJSON.decode(Custom.self, from: #"{"list":[1,null,{"value":3}],"pair":["a","b"],"inner":{"value":"v"},"super":"p"}"#)
        XCTAssertEqual(withSuper.parent, "p")
    }

    func testADecoderKeptPastTheDecodeStillReadsItsOwnCopy() throws {
        struct Keeper: Decodable {
            let decoder: any Decoder
            init(from decoder: any Decoder) throws { self.decoder = decoder }
        }
        var json = #"{"city":"Lyon"}"#
        let kept = try AppJSON.decode(Keeper.self, from: json)
        json = "overwritten"
        XCTAssertEqual(try Address(from: kept.decoder), Address(city: "Lyon", zip: nil))
    }

    /// A decode inside another one on the same thread (an `init(from:)` decoding text of its
    /// own) gets a tape of its own: the outer decode's tape, in use, is not read over.
    func testADecodeInsideADecodeGetsATapeOfItsOwn() throws {
        struct Outer: Decodable {
            var name: String
            var inner: Address
            var after: Int
            enum K: String, CodingKey { case name, after }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: K.self)
                name = try c.decode(String.self, forKey: .name)
                inner = try AppJSON.decode(Address.self, from: #"{"city":"Nice","zip":"06000"}"#)
                after = try c.decode(Int.self, forKey: .after)
            }
        }
        let outer = try AppJSON.decode(Outer.self, from: #"{"name":"outer","after":3}"#)
        XCTAssertEqual(outer.name, "outer")
        XCTAssertEqual(outer.inner, Address(city: "Nice", zip: "06000"))
        XCTAssertEqual(outer.after, 3)
        // and the thread's tape serves the next decode
        XCTAssertEqual(try AppJSON.decode(Address.self, from: #"{"city":"Lyon"}"#), Address(city: "Lyon", zip: nil))
    }

    /// A decoder kept past its decode keeps its tape: the decodes after it, on this thread, read
    /// theirs into another one.
    func testAKeptDecoderKeepsItsTapeWhileLaterDecodesUseAnother() throws {
        struct Keeper: Decodable {
            let decoder: any Decoder
            init(from decoder: any Decoder) throws { self.decoder = decoder }
        }
        let kept = try AppJSON.decode(Keeper.self, from: #"{"city":"Lyon","zip":"69000"}"#)
        for i in 0..<3 {
            XCTAssertEqual(try AppJSON.decode(Address.self, from: #"{"city":"c\#(i)"}"#).city, "c\(i)")
        }
        XCTAssertEqual(try Address(from: kept.decoder), Address(city: "Lyon", zip: "69000"))
        let again = try AppJSON.decode(Keeper.self, from: #"{"city":"Metz"}"#)
        XCTAssertEqual(try Address(from: again.decoder), Address(city: "Metz", zip: nil))
        XCTAssertEqual(try Address(from: kept.decoder), Address(city: "Lyon", zip: "69000"))
    }

    /// The binding's one unescaper, as the outcome's reader uses it (RawJSON.string) and as the
    /// Codable tape does: every escape, a surrogate pair, a lone surrogate, broken escapes.
    func testTheOutcomeReaderAndTheTapeUnescapeAlike() throws {
        let literal = #""a\"b\\c\/d\b\f\n\r\t \u00e9 \ud83d\ude00 \ud800!""#
        let expected = "a\"b\\c/d\u{08}\u{0C}\n\r\t é 😀 \u{FFFD}!"
        XCTAssertEqual(RawJSON.string(Array(literal.utf8)), expected)
        XCTAssertEqual(try AppJSON.decode(String.self, from: literal), expected)
        XCTAssertEqual(RawJSON.string(Array(#""plain""#.utf8)), "plain")
        for broken in [#""\u12""#, #""\uZZZZ""#, #""\x""#, #""ends\""#] {
            XCTAssertNil(RawJSON.string(Array(broken.utf8)), broken)
            XCTAssertThrowsError(try AppJSON.decode(String.self, from: broken), broken)
        }
        XCTAssertNil(RawJSON.string(Array("null".utf8)))
    }
}
