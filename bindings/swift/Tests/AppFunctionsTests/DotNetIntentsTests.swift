import AppFunctions
import AppFunctionsIntents
@testable import DotNetIntents
import Foundation
import XCTest
#if canImport(AppIntents)
import AppIntents
#else
import AppIntentsStandIn
#endif

/// What a .NET (MAUI) app's build writes for the Swift side (Tests/DotNetIntents: the .NET test
/// app's generated intents and the NuGet package's glue, kept identical to the build's output by
/// bindings/dotnet's BuildStepTests): it compiles against the runtime, and its intents run against
/// the published dispatcher. The shop of ShopApps.swift stands in for the app's C# dispatcher: it
/// offers the same create_order (customer, quantity, priority) and order entity.
final class DotNetIntentsTests: XCTestCase {
    override func tearDown() async throws {
        AppFunctionsDotNet.use() // the defaults again
    }

    func testTheGluesDefaultsAreTheDotNetOptionsDefaults() {
        XCTAssertEqual(AppFunctionsDotNet.defaultPublishedName, "default")
        XCTAssertEqual(AppFunctionsDotNet.defaultTimeout, .seconds(10))
        AppFunctionsDotNet.use()
        XCTAssertEqual(AppIntentRuntime.dispatcherName, "default")
        XCTAssertEqual(AppIntentRuntime.timeout, .seconds(10))
    }

    func testTheGluePointsTheIntentsAtAnotherPublication() {
        AppFunctionsDotNet.use(publishedName: "orders-app", timeout: .seconds(30))
        XCTAssertEqual(AppIntentRuntime.dispatcherName, "orders-app")
        XCTAssertEqual(AppIntentRuntime.timeout, .seconds(30))
    }

    func testADotNetAppsIntentRunsAgainstThePublishedDispatcher() async throws {
        let dispatcher = AppFunctionDispatcher()
        let store = ShopStore()
        try registerShop(on: dispatcher, store: store)
        let name = "dotnet-\(UUID().uuidString)"
        try dispatcher.publish(as: name)
        defer { AppFunctionDispatcher.unpublish(name) }
        AppFunctionsDotNet.use(publishedName: name, timeout: .seconds(5))

        let intent = DotNetIntents.CreateOrderIntent()
        intent.customer = "acme"
        intent.quantity = 2
        intent.priority = .high
        let result = try await intent.perform()

        let order = try valueOf(result)
        XCTAssertEqual(order.customer, "acme")
        XCTAssertEqual(order.quantity, 2)
        XCTAssertEqual(order.priority, .high)
        XCTAssertEqual(dialogOf(result), "Order \(order.id) for acme is placed (none).")
    }

    func testTheDotNetAppsIntentsCarryItsDeclarations() {
        XCTAssertEqual(DotNetIntents.CreateOrderIntent.appFunctionsId, "create_order")
        XCTAssertEqual(DotNetIntents.CancelOrderIntent.appFunctionsId, "cancel_order")
        XCTAssertEqual(DotNetIntents.OrderEntity.appFunctionsSearchFunction, "search_order")
    }
}
