@testable import AppFunctions
import Foundation
import XCTest

/// How an inline handler's answer reaches the core (Trampolines.swift's `InlineReply`,
/// Coding.swift's `JSONWriter.answer`): a String without escapes quoted into a buffer on the
/// stack, any other result written as bytes, no String made for either; a throw, a result that
/// does not encode or a cancelled call end the call as they did through a String.
final class InlineAnswerTests: XCTestCase {
    struct Echo: Codable { var text: String }

    struct Point: AppFunctionRecord, Equatable {
        var x: Int32
        var label: String?
        @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
            AppFunctionField("x", Int32.self)
            AppFunctionField("label", String?.self)
        }
    }

    struct Shape: AppFunctionRecord, Equatable {
        var name: String
        var origin: Point
        var points: [Point]
        @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
            AppFunctionField("name", String.self)
            AppFunctionField("origin", Point.self)
            AppFunctionField("points", [Point].self)
        }
    }

    enum Size: String, AppFunctionEnum { case small, large }

    private func echo() throws -> AppFunctionDispatcher {
        let d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("echo") { AppFunctionParameter("text", String.self) }) {
            (_, a: Echo) -> String in a.text
        }
        return d
    }

    /// Every kind of text, through the arguments' tape and back as the result: plain (the
    /// stack buffer), with the characters JSON escapes (written with its escapes), not ASCII,
    /// and around the stack buffer's limit of 1,024 bytes.
    func testAStringResultOfEveryKindComesBackWhole() async throws {
        let d = try echo()
        let texts = ["hi", "", "say \"hi\"", "back\\slash", "line\nbreak\ttab\r", "\u{01}control\u{1F}", "a/b",
                     "é, 😀 and ß", String(repeating: "x", count: 1023), String(repeating: "y", count: 1024),
                     String(repeating: "z", count: 1025), String(repeating: "é\"", count: 3000)]
        for text in texts {
            let arguments = try AppJSON.encode(Echo(text: text))
            let outcome = await d.execute("echo", arguments: arguments)
            XCTAssertEqual(try outcome.result(as: String.self), text, "\(text.prefix(40))")
            XCTAssertEqual(outcome.resultJSON.map { try? AppJSON.decode(String.self, from: $0) }, text)
        }
        // the plain ones are the text between quotes, as JSON writes it
        let plain = await d.execute("echo", arguments: #"{"text":"plain text"}"#)
        XCTAssertEqual(plain.resultJSON, #""plain text""#)
    }

    /// A result of each Codable shape, answered inline: scalars, an optional left out, a list,
    /// an enum, a record with a nested record, a list of records and an optional field, void.
    func testAResultOfEachShapeComesBackAsJSON() async throws {
        let d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("int")) { (_, _: NoArguments) -> Int in -42 }
        try d.register(AppFunctionDescriptor("int32")) { (_, _: NoArguments) -> Int32 in 7 }
        try d.register(AppFunctionDescriptor("bool")) { (_, _: NoArguments) -> Bool in true }
        try d.register(AppFunctionDescriptor("double")) { (_, _: NoArguments) -> Double in 2.5 }
        try d.register(AppFunctionDescriptor("nothing")) { (_, _: NoArguments) -> String? in nil }
        try d.register(AppFunctionDescriptor("something")) { (_, _: NoArguments) -> String? in "some" }
        try d.register(AppFunctionDescriptor("list")) { (_, _: NoArguments) -> [String] in ["a", "b\"c"] }
        try d.register(AppFunctionDescriptor("size")) { (_, _: NoArguments) -> Size in .large }
        let shape = Shape(name: "tri", origin: Point(x: 0, label: "o"),
                          points: [Point(x: 1, label: nil), Point(x: -2, label: "é")])
        try d.register(AppFunctionDescriptor("shape")) { (_, _: NoArguments) -> Shape in shape }
        let ran = Counter()
        try d.register(AppFunctionDescriptor("void")) { (_, _: NoArguments) in ran.increment() }

        let int = await d.execute("int"), int32 = await d.execute("int32"), bool = await d.execute("bool")
        XCTAssertEqual(try int.result(as: Int.self), -42)
        XCTAssertEqual(int.resultJSON, "-42")
        XCTAssertEqual(try int32.result(as: Int32.self), 7)
        XCTAssertEqual(try bool.result(as: Bool.self), true)
        let double = await d.execute("double")
        XCTAssertEqual(try double.result(as: Double.self), 2.5)
        let nothing = await d.execute("nothing")
        XCTAssertTrue(nothing.isSuccess, "\(nothing)")
        XCTAssertNil(nothing.resultJSON)
        let something = await d.execute("something"), list = await d.execute("list"), size = await d.execute("size")
        XCTAssertEqual(try something.result(as: String.self), "some")
        XCTAssertEqual(try list.result(as: [String].self), ["a", "b\"c"])
        XCTAssertEqual(try size.result(as: Size.self), .large)
        let shaped = await d.execute("shape")
        XCTAssertEqual(try shaped.result(as: Shape.self), shape, "\(shaped)")
        let void = await d.execute("void")
        XCTAssertTrue(void.isSuccess, "\(void)")
        XCTAssertNil(void.resultJSON)
        XCTAssertEqual(ran.value, 1)
    }

    /// Errors are outcomes: a thrown AppFunctionError keeps its code and message, any other
    /// error is HandlerFailed, and so is a result that does not encode (nothing is answered).
    func testAnInlineHandlerThatThrowsOrCannotEncodeEndsTheCallWithAnError() async throws {
        struct Odd: Error, CustomStringConvertible { var description: String { "odd" } }
        let d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("missing")) { (_, _: NoArguments) -> String in
            throw AppFunctionError(.entityNotFound, "no such order")
        }
        try d.register(AppFunctionDescriptor("odd")) { (_, _: NoArguments) -> String in throw Odd() }
        try d.register(AppFunctionDescriptor("infinite")) { (_, _: NoArguments) -> Double in .infinity }
        let missing = await d.execute("missing")
        XCTAssertEqual(missing.errorCode, .entityNotFound)
        XCTAssertEqual(missing.message, "no such order")
        let odd = await d.execute("odd")
        XCTAssertEqual(odd.errorCode, .handlerFailed)
        XCTAssertEqual(odd.message, "odd")
        let infinite = await d.execute("infinite")
        XCTAssertEqual(infinite.errorCode, .handlerFailed, "\(infinite)")
        XCTAssertTrue(infinite.message?.contains("Unable to encode inf directly in JSON") ?? false, "\(infinite)")
        XCTAssertEqual(d.inFlight, 0)
    }

    /// A raw inline handler's text is answered as it is (through a C string), nil as no result.
    func testARawInlineHandlerAnswersItsText() async throws {
        let d = AppFunctionDispatcher()
        try d.register(descriptorJSON: #"{"id":"raw","parameters":[{"name":"text","type":"string"}],"result":"string"}"#) {
            (_, arguments: String) -> String? in
            let text = try AppJSON.decode(Echo.self, from: arguments).text
            return try AppJSON.encode(text + "!")
        }
        try d.register(descriptorJSON: #"{"id":"raw_void","parameters":[]}"#) { (_, _: String) -> String? in nil }
        let raw = await d.execute("raw", arguments: #"{"text":"a \"b\""}"#)
        XCTAssertEqual(try raw.result(as: String.self), "a \"b\"!")
        let void = await d.execute("raw_void")
        XCTAssertTrue(void.isSuccess, "\(void)")
        XCTAssertNil(void.resultJSON)
    }

    /// The answer of an inline handler whose call was cancelled while it ran is left to the
    /// core, which ends the call `Cancelled`, for a result written as bytes as for a string
    /// (ExecutePathTests has the string's).
    func testAnAnswerAfterTheCallWasCancelledIsLeftToTheCore() async throws {
        let d = AppFunctionDispatcher()
        let answered = Counter()
        try d.register(AppFunctionDescriptor("cancel_me")) { (context, _: NoArguments) -> Point in
            // what another thread's `task.cancel()` does while this handler runs
            withUnsafeCurrentTask { $0?.cancel() }
            if context.isCancelled { answered.increment() }
            return Point(x: 1, label: "too late")
        }
        let outcome = await Task { await d.execute("cancel_me") }.value
        XCTAssertEqual(outcome.errorCode, .cancelled, "\(outcome)")
        XCTAssertNil(outcome.resultJSON)
        XCTAssertEqual(answered.value, 1, "the handler saw its call cancelled")
        try await waitUntil { d.inFlight == 0 }
        XCTAssertEqual(d.inFlight, 0)
    }
}
