import XCTest
@testable import AppFunctions

/// The JSON the binding writes for the core (descriptors, types, entities, toolkits) straight
/// into bytes (issue 30's cold start): the same text, byte for byte, as the JSONValue tree it
/// replaced wrote, kept in descriptor-text.golden beside this file (written by that tree), and
/// the same registry in the core: every export of a dispatcher registered with the fixture.
final class DescriptorTextTests: XCTestCase {
    /// What the binding writes and what the core exports of it, one item a line (`D` a
    /// descriptor, `S` one with a symbol, `E` an entity, `K` a toolkit, `T` the types'
    /// document, `Y` a type's description, `X` an export).
    func written() throws -> String {
        var lines: [String] = []
        for (d, r) in fixtureDescriptors { lines.append("D " + d.json(result: r, symbol: nil)) }
        lines.append("S " + fixtureDescriptors[1].0.json(result: .string, symbol: "sym\"1"))
        lines.append("E " + FixtureItem.entityDescriptorJSON)
        lines.append("E " + FixtureBare.entityDescriptorJSON)
        for t in fixtureToolkits { lines.append("K " + t.json) }
        var c = AppFunctionTypeCollector()
        for (d, _) in fixtureDescriptors { d.collectNamedTypes(result: nil, into: &c) }
        lines.append("T " + (c.document() ?? "<none>"))
        for t: AppFunctionType in [.array(.nullable(.record("R"))), .enumeration("E\"")] { lines.append("Y " + t.description) }
        let d = AppFunctionDispatcher()
        try d.setMetadataSchema(json: #"{"properties":{"A":{},"B":{},"Name":{"default":"x"}}}"#)
        try d.registerEntity(FixtureItem.self) { _, _ in [] }
        try d.registerEntity(FixtureBare.self) { _, _ in [] }
        for t in fixtureToolkits { try d.defineToolkit(t) }
        for (desc, _) in fixtureDescriptors {
            var x = desc
            x.kind = .function
            switch x.id {
            case "plain": try d.register(x) { (_, _: NoArguments) in }
            case "everything":
                x.resultConstraints = .init(minItems: 1, maxItems: 5, uniqueItems: true)
                try d.registerOutput(x, result: [FixtureOrder].self)
            case "void_constrained":
                x.resultConstraints = .init(minimum: 1, maximum: 10.5)
                try d.register(x) { (_, _: NoArguments) -> Int32 in 1 }
            case "nullable_result": try d.register(x) { (_, _: NoArguments) -> FixtureItem? in nil }
            case "unconstrained_result": try d.register(x) { (_, _: NoArguments) -> String in "" }
            default: XCTFail("no registration for \(x.id)")
            }
        }
        for f in ["mcp", "openai", "anthropic", "gemini", "android-xml"] {
            lines.append("X \(f) " + ((try? d.export(format: f)) ?? "<unsupported>"))
        }
        return lines.joined(separator: "\n")
    }

    /// The binding's own lines (all but the exports, `X`) must stay as the tree wrote them.
    /// The exports are the core's: when the core changes how it exports, and only then, run
    /// this test once with AF_WRITE_DESCRIPTOR_GOLDEN=1 to write them anew (in the swift lane,
    /// `AF_WRITE_DESCRIPTOR_GOLDEN=1 swift test --filter DescriptorTextTests` in its shell,
    /// `SWIFT_LANE_SHELL=1 ci/lanes/swift.sh`; it writes them
    /// only while the binding's lines still match).
    func testTheTextIsTheTreesByteForByte() throws {
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("descriptor-text.golden")
        let text = try String(contentsOf: golden, encoding: .utf8)
        let want = text.split(separator: "\n", omittingEmptySubsequences: false)
        let written = try written()
        let got = written.split(separator: "\n", omittingEmptySubsequences: false)
        // the binding's lines come first, the exports (which span lines) after them
        let ours = want.prefix { !$0.hasPrefix("X ") }
        XCTAssertEqual(Array(got.prefix(ours.count)), Array(ours), "the binding's text changed")
        if ProcessInfo.processInfo.environment["AF_WRITE_DESCRIPTOR_GOLDEN"] == "1",
           Array(got.prefix(ours.count)) == Array(ours) {
            try written.write(to: golden, atomically: true, encoding: .utf8)
            return
        }
        XCTAssertEqual(got.count, want.count)
        for (i, (g, w)) in zip(got, want).enumerated() where g != w {
            XCTFail("line \(i + 1) differs:\n got  \(g)\n want \(w)")
        }
        // the fixture reaches every export (none unsupported) and every character class
        XCTAssertFalse(want.contains { $0.hasSuffix("<unsupported>") })
        XCTAssertTrue(want.contains { $0.contains(#"\u0000\u0001"#) && $0.contains(#"\u001f\"\\/\#u{7F} plain é\#u{2028}😀 end"#) })
    }

    func testEveryCharacterClassIsEscapedAsJSONAsks() {
        var out = JSONOut()
        out.string(everyCharacter)
        var want = "\""
        for c in 0..<0x20 {
            switch c {
            case 0x09: want += "\\t"
            case 0x0A: want += "\\n"
            case 0x0D: want += "\\r"
            default: want += "\\u00" + String(c >> 4, radix: 16) + String(c & 0xF, radix: 16)
            }
        }
        want += "\\\"\\\\/\u{7F} plain é\u{2028}😀 end\""
        XCTAssertEqual(out.text, want)
        // and what it writes reads back as the string it was
        let back = try? JSONSerialization.jsonObject(with: Data(out.bytes), options: [.fragmentsAllowed]) as? String
        XCTAssertEqual(back, everyCharacter)
    }

    /// The writer takes eight bytes (or four) at a time while none needs an escape, the last
    /// ones as a word overlapping the one before: every length from 0 to 40, with one byte to
    /// escape at every position (and none), against escaping byte by byte.
    func testEveryLengthAndEveryPlaceOfAnEscape() {
        func reference(_ s: String) -> String {
            var r: [UInt8] = [0x22]
            for b in s.utf8 {
                switch b {
                case 0x22, 0x5C: r += [0x5C, b]
                case 0x0A: r += Array("\\n".utf8)
                case 0x0D: r += Array("\\r".utf8)
                case 0x09: r += Array("\\t".utf8)
                case 0..<0x20: r += Array(("\\u00" + String(b >> 4, radix: 16) + String(b & 0xF, radix: 16)).utf8)
                default: r.append(b)
                }
            }
            r.append(0x22)
            return String(decoding: r, as: UTF8.self)
        }
        for n in 0...40 {
            let plain = String((0..<n).map { Character(Unicode.Scalar(UInt8(0x61 + $0 % 26))) })
            var cases = [plain, String(repeating: "é", count: n / 2)]
            for at in 0..<n {
                for special in ["\"", "\\", "\u{1F}", "\n", "\u{0}"] {
                    var chars = Array(plain)
                    chars[at] = Character(special)
                    cases.append(String(chars))
                }
            }
            for s in cases {
                var out = JSONOut(capacity: 16)
                out.string(s)
                XCTAssertEqual(out.text, reference(s), "length \(n): \(s.debugDescription)")
            }
        }
    }

    func testNumbersAndTheCString() {
        var out = JSONOut()
        for v in [0, 7, -7, 10, 1_234_567_890, Int.max, Int.min] {
            out.int(v)
            out.byte(0x20)
        }
        for d in [1.0, -0.0, 99.5, 1e300, -9_007_199_254_740_992, 9_007_199_254_740_991] {
            out.number(d)
            out.byte(0x20)
        }
        XCTAssertEqual(out.text, "0 7 -7 10 1234567890 \(Int.max) \(Int.min) 1 0 99.5 1e+300 -9007199254740992.0 9007199254740991 ")
        let n = out.bytes.count
        XCTAssertEqual(out.withCString { String(cString: $0) }, out.text)
        XCTAssertEqual(out.bytes.count, n, "the NUL is taken off again")
    }
}
