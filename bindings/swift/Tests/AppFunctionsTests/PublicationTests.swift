import AppFunctions
import Foundation
import XCTest

/// Published dispatchers (an App Intent during a cold start waits for the app) and bundles.
final class PublicationTests: XCTestCase {
    private func shop() throws -> AppFunctionDispatcher {
        let d = AppFunctionDispatcher()
        try registerShop(on: d, store: ShopStore())
        return d
    }

    private func uniqueName() -> String { "swift-tests-\(UUID().uuidString)" }

    func testACallBeforeTheAppPublishesWaitsThenRunsTheAppsHandler() async throws {
        let name = uniqueName()
        let waiting = Task { try await AppFunctionDispatcher.waitForPublished(name, timeout: .seconds(10)) }
        try await Task.sleep(for: .milliseconds(30))
        let app = try shop()
        try app.publish(as: name)
        let published = try await waiting.value
        let outcome = await published.execute(
            AppFunctionInvocation("create_order", platform: .apple),
            arguments: #"{"customer":"acme","quantity":2}"#)
        XCTAssertEqual(outcome.status, .success, "\(outcome)")
        XCTAssertEqual(try published.export(format: "mcp"), try app.export(format: "mcp"))
        XCTAssertTrue(AppFunctionDispatcher.unpublish(name))
        XCTAssertFalse(AppFunctionDispatcher.unpublish(name))
    }

    func testNothingPublishedTimesOutNamingWhatWasNotReady() {
        let name = uniqueName()
        XCTAssertThrowsError(try AppFunctionDispatcher.published(name, timeout: .milliseconds(20))) { error in
            guard let e = error as? AppFunctionError else { return XCTFail("\(error)") }
            XCTAssertEqual(e.code, .timedOut)
            XCTAssertTrue(e.message.contains(name) && e.message.contains("20 ms"), e.message)
        }
    }

    func testReleasingThePublisherWithdrawsItButASecondHandleDoesNot() throws {
        let name = uniqueName()
        var app: AppFunctionDispatcher? = try shop()
        try app!.publish(as: name)
        var second: AppFunctionDispatcher? = try AppFunctionDispatcher.published(name, timeout: .zero)
        second = nil
        XCTAssertNil(second)
        XCTAssertNoThrow(try AppFunctionDispatcher.published(name, timeout: .zero))
        app = nil
        XCTAssertThrowsError(try AppFunctionDispatcher.published(name, timeout: .zero))
    }

    func testABundleExportsWhatTheDispatcherExports() throws {
        let app = try shop()
        let bundle = app.bundleJSON()
        for format in ["mcp", "openai", "openai-chat", "anthropic", "gemini", "android-xml"] {
            XCTAssertEqual(try AppFunctionDispatcher.exportBundle(bundle, format: format), try app.export(format: format), format)
        }
        XCTAssertThrowsError(try AppFunctionDispatcher.exportBundle(#"{"functions":[{"id":"Bad"}]}"#, format: "mcp")) { error in
            XCTAssertTrue("\(error)".contains("functions[0]"), "\(error)")
        }
    }
}
