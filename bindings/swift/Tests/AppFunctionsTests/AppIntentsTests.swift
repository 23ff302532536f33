import AppFunctions
import AppFunctionsIntents
@testable import DemoIntents
import Foundation
@testable import MappingIntents
import XCTest
#if canImport(AppIntents)
import AppIntents
#else
import AppIntentsStandIn
#endif

/// The generated intents (the demo app's, and the mapping set's: tests/golden) run against a
/// real published dispatcher: the shop of ShopApps.swift plus the mapping set's functions
/// this file registers. Each test publishes under a name of its own.
final class AppIntentsTests: XCTestCase {
    var dispatcher: AppFunctionDispatcher!
    var store: ShopStore!
    var signIn: SignInState!
    let seen = SeenCalls()
    var publication = ""

    override func setUp() async throws {
        dispatcher = AppFunctionDispatcher()
        store = ShopStore()
        signIn = SignInState()
        try registerShop(on: dispatcher, store: store)
        try dispatcher.addDelegate(SignInDelegate(signIn: signIn))
        try dispatcher.addDelegate(ForegroundRecorder(seen: seen))
        try registerMappingFunctions(on: dispatcher, seen: seen)
        publication = "intents-\(UUID().uuidString)"
        AppIntentRuntime.dispatcherName = publication
        AppIntentRuntime.timeout = .seconds(5)
        StandInSystem.foregroundRequests.removeAll()
        try dispatcher.publish(as: publication)
    }

    override func tearDown() async throws {
        AppFunctionDispatcher.unpublish(publication)
        dispatcher = nil
    }

    func testTheIntentsParametersReachTheHandlerAndItsDialogAndValueComeBack() async throws {
        let intent = DemoIntents.CreateOrderIntent()
        intent.customer = "acme"
        intent.quantity = 2
        intent.priority = .high
        let result = try await intent.perform()
        // the record comes back as its JSON text, the handler's say text as the dialog
        let order = try JSONSerialization.jsonObject(with: Data((try valueOf(result)).utf8)) as? [String: Any]
        XCTAssertEqual(order?["customer"] as? String, "acme")
        XCTAssertEqual(order?["priority"] as? String, "High")
        XCTAssertEqual(dialogOf(result), "Order o-1 for acme is placed (none).")
        XCTAssertEqual(store.search("acme", limit: nil).first?.quantity, 2)
        XCTAssertEqual(seen.calls.last, Call(function: "create_order", platform: .apple, isForeground: false))
    }

    func testAParameterLeftAtItsDefaultSendsTheDefault() async throws {
        let intent = DemoIntents.CreateOrderIntent()
        intent.customer = "globex"
        intent.quantity = 1
        _ = try await intent.perform()
        XCTAssertEqual(store.search("globex", limit: nil).first?.priority, .normal)
    }

    func testOpenAppContinuesInTheForegroundWithTheMessageAndRunsAgainInTheForeground() async throws {
        let create = DemoIntents.CreateOrderIntent()
        create.customer = "initech"
        create.quantity = 1
        _ = try await create.perform()
        // the entity comes from the generated query (search_order)
        let found = try await OrderEntityQuery().entities(matching: "initech")
        XCTAssertEqual(found.map(\.customer), ["initech"])
        let cancel = CancelOrderIntent()
        cancel.order = try XCTUnwrap(found.first)
        let result = try await cancel.perform()
        XCTAssertEqual(StandInSystem.foregroundRequests.all, ["Sign in to cancel orders."])
        XCTAssertEqual(seen.calls.suffix(2), [
            Call(function: "cancel_order", platform: .apple, isForeground: false),
            Call(function: "cancel_order", platform: .apple, isForeground: true),
        ])
        XCTAssertEqual(dialogOf(result), "Order \(found[0].id) is cancelled.")
        XCTAssertEqual(store.orders(ids: [found[0].id]).first?.status, "Cancelled")
    }

    func testAnIntentThatOpensTheAppRunsInTheForeground() async throws {
        let result = try await StandInSystem.$currentMode.withValue(.foreground) {
            try await OpenDashboardIntent().perform()
        }
        XCTAssertEqual(seen.calls.last, Call(function: "open_dashboard", platform: .apple, isForeground: true))
        XCTAssertEqual(dialogOf(result), "Done.")
        XCTAssertEqual(StandInSystem.foregroundRequests.all, [])
    }

    func testAnIntentThatOpensTheAppRunFromTheBackgroundContinuesThereFirst() async throws {
        // before iOS 26 the system opens the app for it (openAppWhenRun); should it still
        // run in the background, the core asks for the app and the runtime continues there
        _ = try await OpenDashboardIntent().perform()
        XCTAssertEqual(StandInSystem.foregroundRequests.all, ["Continue in the app to Créer une commande 📦."])
        XCTAssertEqual(seen.calls.suffix(2), [
            Call(function: "open_dashboard", platform: .apple, isForeground: false),
            Call(function: "open_dashboard", platform: .apple, isForeground: true),
        ])
    }

    func testAnErrorOutcomeThrowsTheCoresMessage() async throws {
        let intent = FailNowIntent()
        intent.why = "the warehouse is on fire"
        do {
            _ = try await intent.perform()
            XCTFail("perform() returned")
        } catch {
            XCTAssertEqual(error.localizedDescription, "the warehouse is on fire")
            XCTAssertEqual((error as? AppFunctionIntentError)?.code, .handlerFailed)
        }
    }

    func testAnInvalidArgumentThrowsTheCoresMessageNamingTheParameter() async throws {
        let intent = DemoIntents.CreateOrderIntent()
        intent.customer = "acme"
        intent.quantity = Int(Int32.max) + 1
        do {
            _ = try await intent.perform()
            XCTFail("perform() returned")
        } catch {
            XCTAssertTrue(error.localizedDescription.hasPrefix("quantity: number 2147483648 is out of range for int32"),
                          error.localizedDescription)
            XCTAssertEqual((error as? AppFunctionIntentError)?.code, .invalidArgument)
        }
    }

    func testCancellingTheIntentsTaskCancelsTheCall() async throws {
        let task = Task { try await WaitLongIntent().perform() }
        try await seen.waitForStart("wait_long")
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("perform() returned")
        } catch {
            XCTAssertTrue(error is CancellationError || (error as? AppFunctionIntentError)?.code == .cancelled, "\(error)")
        }
        try await seen.waitForCancelled("wait_long")
    }

    func testACallBeforeTheDispatcherIsPublishedWaitsForIt() async throws {
        let later = "later-\(UUID().uuidString)"
        AppIntentRuntime.dispatcherName = later
        let task = Task { try await GetIntIntent().perform() }
        try await Task.sleep(for: .milliseconds(200))
        try dispatcher.publish(as: later)
        let result = try await task.value
        XCTAssertEqual(try valueOf(result), 42)
        AppFunctionDispatcher.unpublish(later)
    }

    func testNothingPublishedInTimeIsAnErrorNamingThePublication() async throws {
        AppIntentRuntime.dispatcherName = "never-published"
        AppIntentRuntime.timeout = .milliseconds(100)
        do {
            _ = try await GetIntIntent().perform()
            XCTFail("perform() returned")
        } catch {
            XCTAssertTrue(error.localizedDescription.contains("never-published"), error.localizedDescription)
        }
    }

    func testReturnedValuesHaveTheirSwiftTypes() async throws {
        let int = try await GetIntIntent().perform()
        XCTAssertEqual(try valueOf(int), 42)
        XCTAssertEqual(dialogOf(int), "42", "no dialog: the value as text")
        let big = try await GetBigIntent().perform()
        XCTAssertEqual(try valueOf(big), 9_007_199_254_740_993)
        let flag = try await GetFlagIntent().perform()
        XCTAssertEqual(try valueOf(flag), true)
        let ratio = try await GetRatioIntent().perform()
        XCTAssertEqual(try valueOf(ratio), 0.25)
        let when = try await GetWhenIntent().perform()
        XCTAssertEqual(try valueOf(when), Date(timeIntervalSince1970: 1_748_797_200))
        let day = try valueOf(try await GetDayIntent().perform())
        XCTAssertEqual(Calendar.current.dateComponents([.year, .month, .day], from: day),
                       DateComponents(year: 2025, month: 6, day: 1))
        let uid = try await GetUidIntent().perform()
        XCTAssertEqual(try valueOf(uid), "0f8fad5b-d9cb-469f-a165-70867728950e")
        let level = try await GetLevelIntent().perform()
        XCTAssertEqual(try valueOf(level), .trsUrgent)
        let names = try await GetNamesIntent().perform()
        XCTAssertEqual(try valueOf(names), ["a", "b"])
        let line = try await GetLineIntent().perform()
        XCTAssertEqual(try valueOf(line), #"{"sku":"A-1","qty":2}"#)
        XCTAssertEqual(dialogOf(line), #"{"sku":"A-1","qty":2}"#, "no dialog: the JSON text")
        let maybe = MaybeTextIntent()
        maybe.give = false
        let none = try await maybe.perform()
        XCTAssertNil(try valueOf(none))
        maybe.give = true
        let given = try await maybe.perform()
        XCTAssertEqual(try valueOf(given), "given")
        XCTAssertEqual(dialogOf(given), "Here it is.")
    }

    func testKeywordAndReservedNamesSendTheDescriptorsNames() async throws {
        let intent = KeywordsIntent()
        intent.in = "a"
        intent.default = 7
        intent.selfValue = "b"
        intent.titleValue = "c"
        intent.argumentsValue = "d"
        _ = try await intent.perform()
        let sent = try JSONSerialization.jsonObject(with: Data((seen.arguments["keywords"] ?? "").utf8)) as? NSDictionary
        XCTAssertEqual(sent, ["in": "a", "default": 7, "self": "b", "title": "c", "arguments": "d"] as NSDictionary)
    }

    func testDatesAndDaysAreSentAsTheCoreReadsThem() async throws {
        let intent = DatesIntent()
        intent.at = Date(timeIntervalSince1970: 1_748_797_200)
        intent.day = Calendar.current.date(from: DateComponents(year: 2025, month: 6, day: 1, hour: 23))!
        intent.days = [Calendar.current.date(from: DateComponents(year: 2024, month: 2, day: 29))!]
        _ = try await intent.perform()
        XCTAssertEqual(seen.arguments["dates"],
                       #"{"at":"2025-06-01T17:00:00.000Z","day":"2025-06-01","days":["2024-02-29"],"maybe":null}"#)
    }

    func testTheEntityQueryFindsEntitiesByIdAndSkipsUnknownOnes() async throws {
        let create = DemoIntents.CreateOrderIntent()
        create.customer = "umbrella"
        create.quantity = 3
        _ = try await create.perform()
        let id = try XCTUnwrap(store.search("umbrella", limit: nil).first?.id)
        // as Shortcuts does: the person picks from a search, the id is resolved later
        let picked = try await OrderEntityQuery().entities(matching: "umbrella")
        XCTAssertEqual(picked.map(\.id), [id])
        XCTAssertEqual(picked.first?.displayRepresentation.title.key, "umbrella")
        let found = try await OrderEntityQuery().entities(for: [id, "o-999"])
        XCTAssertEqual(found.map(\.id), [id])
        XCTAssertEqual(found.first?.quantity, 3)
        XCTAssertEqual(found.first?.priority, .normal)
        let suggested = try await OrderEntityQuery().suggestedEntities()
        XCTAssertEqual(suggested.map(\.id), [id])
    }

    func testEntitiesForIdsComeInTheirOrderFromTheLookupEvenUnseen() async throws {
        // made without the intents: the runtime never met them, the app's lookup answers
        let a = store.createOrder(CreateOrder(customer: "acme", quantity: 1, priority: .low))
        let b = store.createOrder(CreateOrder(customer: "globex", quantity: 2, priority: .high))
        let found = try await OrderEntityQuery().entities(for: [b.id, "o-999", a.id, b.id])
        XCTAssertEqual(found.map(\.id), [b.id, a.id])
        XCTAssertEqual(found.map(\.customer), ["globex", "acme"])
        XCTAssertEqual(found.first?.priority, .high)
        let none = try await OrderEntityQuery().entities(for: [])
        XCTAssertEqual(none.map(\.id), [])
    }

    /// Publishes, under this test's name, a dispatcher whose order lookup is `lookup`.
    func publishOrders(
        _ lookup: @escaping @Sendable (AppFunctionContext, AppFunctionEntityRequest) async throws -> [Order]
    ) throws -> AppFunctionDispatcher {
        let other = AppFunctionDispatcher()
        try other.registerEntity(Order.self, lookup: lookup)
        try other.publish(as: publication)
        return other
    }

    func testALookupErrorThrowsTheCoresMessageNamingTheEntity() async throws {
        let other = try publishOrders { _, _ in throw AppFunctionError(.handlerFailed, "the database is down") }
        do {
            _ = try await OrderEntityQuery().entities(for: ["o-1"])
            XCTFail("entities(for:) returned")
        } catch {
            XCTAssertEqual(error.localizedDescription, "looking up order failed: the database is down")
            XCTAssertEqual((error as? AppFunctionIntentError)?.code, .handlerFailed)
        }
        withExtendedLifetime(other) {}
    }

    func testCancellingTheQueryTaskCancelsTheLookup() async throws {
        let other = try publishOrders { [seen] context, _ in
            seen.start("lookup")
            while !context.isCancelled && !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
            }
            seen.cancel("lookup")
            return []
        }
        let task = Task { try await OrderEntityQuery().entities(for: ["o-1"]) }
        try await seen.waitForStart("lookup")
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("entities(for:) returned")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        try await seen.waitForCancelled("lookup")
        withExtendedLifetime(other) {}
    }

    func testTheAppShortcutsNameTheApp() {
        let shortcuts = AppFunctionsShortcuts.appShortcuts
        XCTAssertEqual(shortcuts.map(\.shortTitle.key), ["Dashboard", "Quick note"])
        XCTAssertEqual(shortcuts[0].phrases, ["Open the dashboard in ${applicationName}",
                                              #"Show ${applicationName}'s "dashboard" \(now)"#])
        XCTAssertEqual(shortcuts[1].systemImageName, "bolt")
        for phrase in shortcuts.flatMap(\.phrases) {
            XCTAssertTrue(phrase.contains("${applicationName}"), phrase)
        }
    }

    func testTheIntentsStaticTextsAreTheDescriptorsLiterals() {
        XCTAssertEqual(OpenDashboardIntent.title.key, "Créer une commande 📦")
        XCTAssertEqual(OpenDashboardIntent.description?.descriptionText.key,
                       "Says \"hi\", a back\\slash, a \\(interpolation), a new\nline and a bidi \u{202E} override.")
        XCTAssertTrue(OpenDashboardIntent.openAppWhenRun)
        XCTAssertEqual(OpenDashboardIntent.supportedModes, .foreground(.immediate))
        XCTAssertEqual(WaitLongIntent.supportedModes, [.background, .foreground(.dynamic)])
        XCTAssertEqual(LevelAppEnum.allCases.map(\.rawValue), ["Low", "Normal", "très urgent", "1st", "default", "日本"])
        XCTAssertEqual(LevelAppEnum.caseDisplayRepresentations[.normal]?.subtitle?.key, #"the usual "level""#)
        XCTAssertEqual(ItemEntity.typeDisplayRepresentation.name.key, "Stock item")
    }
}

/// The value of a result (its type is opaque: the stand-in's container is behind it).
func valueOf<V>(_ result: some ReturnsValue<V>) throws -> V {
    let container = try XCTUnwrap(result as? IntentResultContainer<V>)
    return try XCTUnwrap(container.standInValue)
}

/// The dialog of a result.
func dialogOf(_ result: some IntentResult) -> String? {
    (result as? any StandInResult)?.standInDialog?.fullDialog.key
}

/// One call as a delegate saw it.
struct Call: Equatable {
    var function: String
    var platform: AppFunctionPlatform
    var isForeground: Bool
}

/// What the delegates and handlers saw, shared across tasks.
final class SeenCalls: @unchecked Sendable {
    private let lock = NSLock()
    private var _calls: [Call] = []
    private var _arguments: [String: String] = [:]
    private var started: Set<String> = []
    private var cancelled: Set<String> = []

    var calls: [Call] { lock.lock(); defer { lock.unlock() }; return _calls }
    var arguments: [String: String] { lock.lock(); defer { lock.unlock() }; return _arguments }

    func call(_ c: Call) { lock.lock(); _calls.append(c); lock.unlock() }
    func arguments(_ f: String, _ json: String) { lock.lock(); _arguments[f] = json; lock.unlock() }
    func start(_ f: String) { lock.lock(); started.insert(f); lock.unlock() }
    func cancel(_ f: String) { lock.lock(); cancelled.insert(f); lock.unlock() }

    func waitForStart(_ f: String) async throws { try await until { self.started.contains(f) } }
    func waitForCancelled(_ f: String) async throws { try await until { self.cancelled.contains(f) } }

    private func holds(_ cond: () -> Bool) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return cond()
    }

    private func until(_ cond: @escaping () -> Bool) async throws {
        for _ in 0..<500 {
            if holds(cond) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        XCTFail("timed out")
    }
}

/// Records each function call's platform and foreground flag, refused ones included.
struct ForegroundRecorder: AppFunctionDelegate {
    let seen: SeenCalls
    func onInvoked(_ context: AppFunctionContext, outcome: AppFunctionOutcome) {
        if !context.isEntityLookup {
            seen.call(Call(function: context.functionId, platform: context.platform, isForeground: context.isForeground))
        }
    }
}

/// The mapping set's functions the tests call (their descriptors from the mapping set's
/// bundle, the copy of tests/golden/apple-mapping.bundle.json beside this file).
func registerMappingFunctions(on d: AppFunctionDispatcher, seen: SeenCalls) throws {
    let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("apple-mapping.bundle.json")
    let bundle = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    let types = try JSONSerialization.data(withJSONObject: bundle["types"]!)
    try d.defineTypes(json: String(decoding: types, as: UTF8.self))
    let answers: [String: String] = [
        "get_int": "42", "get_big": "9007199254740993", "get_flag": "true", "get_ratio": "0.25",
        "get_when": #""2025-06-01T17:00:00Z""#, "get_day": #""2025-06-01""#,
        "get_uid": #""0f8fad5b-d9cb-469f-a165-70867728950e""#, "get_level": #""très urgent""#,
        "get_names": #"["a","b"]"#, "get_line": #"{"sku":"A-1","qty":2}"#, "open_dashboard": "null",
    ]
    for f in bundle["functions"] as! [[String: Any]] {
        let id = f["id"] as! String
        let json = String(decoding: try JSONSerialization.data(withJSONObject: f), as: UTF8.self)
        switch id {
        case _ where answers[id] != nil:
            try d.register(descriptorJSON: json) { _, _ in answers[id] }
        case "keywords", "dates":
            try d.register(descriptorJSON: json) { _, args in seen.arguments(id, args); return nil }
        case "maybe_text":
            try d.register(descriptorJSON: json) { context, args in
                guard args.contains("true") else { return "null" }
                context.say("Here it is.")
                return #""given""#
            }
        case "fail_now":
            try d.register(descriptorJSON: json) { _, args in
                let why = (try JSONSerialization.jsonObject(with: Data(args.utf8)) as? [String: Any])?["why"] as? String
                throw AppFunctionError(.handlerFailed, why ?? "?")
            }
        case "wait_long":
            try d.register(descriptorJSON: json) { context, _ in
                seen.start(id)
                while !context.isCancelled && !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                seen.cancel(id)
                return nil
            }
        default:
            continue
        }
    }
}
