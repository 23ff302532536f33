@testable import AppFunctions
import Foundation
import XCTest

/// A record with a nullable field, for the nullable rule.
struct Memo: AppFunctionRecord, Equatable {
    var text: String
    var title: String?

    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
        AppFunctionField("text", String.self)
        AppFunctionField("title", String?.self)
    }
}

struct SaveMemo: Codable {
    var memo: Memo
    var title: String?
}

/// Thread-safe box for what a handler saw.
final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var _title: String?? = .none
    var title: String?? {
        get { lock.lock(); defer { lock.unlock() }; return _title }
        set { lock.lock(); _title = newValue; lock.unlock() }
    }
}

/// The core's one nullable rule (seed 002's `editNote(title: String?)`), as Swift hosts see it.
final class NullableRuleTests: XCTestCase {
    func testANullableParameterIsDescribedWithoutOptionalAndTheCoreMakesItOptional() throws {
        let title = AppFunctionParameter("title", String?.self, description: "The new title if it should be updated.")
        XCTAssertEqual(title.jsonText, #"{"name":"title","type":"string","description":"The new title if it should be updated.","nullable":true}"#)
        XCTAssertEqual(AppFunctionField("title", String?.self).jsonText, #"{"name":"title","type":"string","nullable":true}"#)

        let d = AppFunctionDispatcher()
        try registerShop(on: d, store: ShopStore())
        let edit = try XCTUnwrap(d.registry["edit_note"])
        XCTAssertEqual(edit.parameters.map(\.isOptional), [false, true, false])
        let schema = try JSONSerialization.jsonObject(with: Data(edit.parametersJSONSchema().utf8)) as? [String: Any]
        XCTAssertEqual(schema?["required"] as? [String], ["noteId", "content"])
    }

    func testAnOmittedNullableParameterBindsAsNullLikeAnExplicitNull() async throws {
        let d = AppFunctionDispatcher()
        let seen = Seen()
        try d.register(AppFunctionDescriptor("save_memo", description: "Saves a memo") {
            AppFunctionParameter("memo", Memo.self)
            AppFunctionParameter("title", String?.self)
        }) { (_, args: SaveMemo) -> Memo in
            seen.title = .some(args.title)
            return args.memo
        }
        for args in [#"{"memo":{"text":"a"}}"#, #"{"memo":{"text":"a","title":null},"title":null}"#] {
            seen.title = .none
            let outcome = await d.execute("save_memo", arguments: args)
            XCTAssertEqual(outcome.status, .success, "\(outcome)")
            XCTAssertEqual(seen.title, .some(nil), args)
            // a nullable record field likewise: omitted, it binds (and comes back) as null
            XCTAssertEqual(try outcome.result(as: Memo.self), Memo(text: "a", title: nil))
            XCTAssertTrue(outcome.resultJSON?.contains(#""title":null"#) ?? false, "\(outcome)")
        }
        let schema = try JSONSerialization.jsonObject(with: Data(d.parametersJSONSchema("save_memo").utf8)) as? [String: Any]
        XCTAssertEqual(schema?["required"] as? [String], ["memo"])
        let memo = (schema?["$defs"] as? [String: Any])?["Memo"] as? [String: Any]
        XCTAssertEqual(memo?["required"] as? [String], ["text"])
    }
}
