import AppFunctions
import Foundation
import XCTest

/// The shared scenario (the seeds' orders and notes apps), one test per sentence of behaviour.
final class ScenarioTests: XCTestCase {
    var dispatcher: AppFunctionDispatcher!
    var store: ShopStore!
    var signIn: SignInState!
    var telemetry: TelemetryDelegate!

    override func setUp() async throws {
        dispatcher = AppFunctionDispatcher()
        store = ShopStore()
        signIn = SignInState()
        telemetry = TelemetryDelegate()
        try registerShop(on: dispatcher, store: store)
        try dispatcher.addDelegate(SignInDelegate(signIn: signIn))
        try dispatcher.addDelegate(telemetry)
    }

    override func tearDown() async throws {
        dispatcher = nil
    }

    func testTheLibraryHasTheExpectedABI() {
        XCTAssertEqual(AppFunctionsLibrary.abiVersion, AppFunctionsLibrary.expectedABIVersion)
        XCTAssertEqual(AppFunctionsLibrary.version, AppFunctionsLibrary.packageVersion,
                       "the lane links the library built from the same tree")
    }

    func testArgumentsAreBoundAndTheResultDecodes() async throws {
        let outcome = await dispatcher.execute(
            AppFunctionInvocation("create_order"),
            arguments: #"{"customer":"acme","quantity":2,"priority":"High"}"#)
        XCTAssertEqual(outcome.status, .success, "\(outcome)")
        let order = try outcome.result(as: Order.self)
        XCTAssertEqual(order.customer, "acme")
        XCTAssertEqual(order.quantity, 2)
        XCTAssertEqual(order.priority, .high)
    }

    func testAnOmittedEnumTakesItsDefault() async throws {
        let outcome = await dispatcher.execute("create_order", arguments: #"{"customer":"acme","quantity":1}"#)
        XCTAssertEqual(try outcome.result(as: Order.self).priority, .normal)
    }

    func testArgumentsCanBeEncodedFromAValue() async throws {
        let outcome = await dispatcher.execute(
            AppFunctionInvocation("create_order"),
            encoding: CreateOrder(customer: "globex", quantity: 3, priority: .low))
        XCTAssertEqual(try outcome.result(as: Order.self).priority, .low)
    }

    func testAnUnknownEnumMemberIsAnInvalidArgumentNamingTheParameter() async {
        let outcome = await dispatcher.execute(
            "create_order", arguments: #"{"customer":"acme","quantity":1,"priority":"Urgent"}"#)
        XCTAssertEqual(outcome.status, .error)
        XCTAssertEqual(outcome.errorCode, .invalidArgument)
        XCTAssertTrue(outcome.message?.contains("priority") ?? false, outcome.message ?? "")
    }

    func testAMissingRequiredParameterIsAnInvalidArgument() async {
        let outcome = await dispatcher.execute("create_order", arguments: #"{"customer":"acme"}"#)
        XCTAssertEqual(outcome.errorCode, .invalidArgument)
        XCTAssertTrue(outcome.message?.contains("quantity") ?? false, outcome.message ?? "")
    }

    func testAnUnknownFunctionIsFunctionNotFound() async {
        let outcome = await dispatcher.execute("delete_everything")
        XCTAssertEqual(outcome.errorCode, .functionNotFound)
    }

    func testDatesTravelAsISO8601() async throws {
        let when = Date(timeIntervalSince1970: 1_748_790_000) // 2025-06-01T15:00:00Z
        let outcome = await dispatcher.execute(
            "create_note", arguments: #"{"title":"Parcel","content":"Pick it up","remindAt":"2025-06-01T17:00:00+02:00"}"#)
        XCTAssertEqual(outcome.status, .success, "\(outcome)")
        XCTAssertEqual(try outcome.result(as: Note.self).remindAt, when)

        let encoded = await dispatcher.execute(
            AppFunctionInvocation("create_note"),
            encoding: CreateNote(title: "Mum", content: "Birthday", remindAt: when))
        XCTAssertTrue(encoded.resultJSON?.contains("2025-06-01T15:00:00Z") ?? false, "\(encoded)")

        let bad = await dispatcher.execute(
            "create_note", arguments: #"{"title":"x","content":"y","remindAt":"next Monday"}"#)
        XCTAssertEqual(bad.errorCode, .invalidArgument)
        XCTAssertTrue(bad.message?.contains("remindAt") ?? false, bad.message ?? "")
    }

    func testOptionalsAreOptionalParametersAndNullableResults() async throws {
        let empty = await dispatcher.execute("list_notes")
        XCTAssertEqual(empty.status, .success)
        XCTAssertNil(empty.resultJSON)

        _ = await dispatcher.execute("create_note", arguments: #"{"title":"A","content":"a"}"#)
        let edited = await dispatcher.execute("edit_note", arguments: #"{"noteId":1,"content":"b"}"#)
        XCTAssertEqual(try edited.result(as: Note.self), Note(id: 1, title: "A", content: "b", remindAt: nil))
        let missing = await dispatcher.execute("edit_note", arguments: #"{"noteId":9,"title":null,"content":"b"}"#)
        XCTAssertEqual(missing.status, .success)
        XCTAssertNil(missing.resultJSON)
        let listed = try await dispatcher.execute("list_notes").result(as: [Note].self)
        XCTAssertEqual(listed.count, 1)
    }

    // MARK: The sign-in gate on apple

    func testCancelOrderInTheBackgroundAsksToOpenTheApp() async throws {
        let order = store.createOrder(CreateOrder(customer: "acme", quantity: 1, priority: .normal))
        let outcome = await dispatcher.execute(
            AppFunctionInvocation("cancel_order", platform: .apple, isForeground: false),
            arguments: #"{"order":"\#(order.id)"}"#)
        XCTAssertEqual(outcome.status, .openApp, "\(outcome)")
        XCTAssertTrue(outcome.appRequested)
        XCTAssertEqual(outcome.dialog ?? outcome.message, "Sign in to cancel orders.")
        XCTAssertEqual(store.orders(ids: [order.id]).first?.status, "Open")
        // onInvoked is told the app was asked for, not that the call was refused
        let invoked = telemetry.seen.filter { $0.function == "cancel_order" }.map(\.outcome)
        XCTAssertEqual(invoked.map(\.appRequested), [true])
        XCTAssertNil(invoked.first?.errorCode)
    }

    func testTheRerunInTheForegroundSucceeds() async throws {
        let order = store.createOrder(CreateOrder(customer: "acme", quantity: 1, priority: .normal))
        let args = #"{"order":"\#(order.id)"}"#
        let first = await dispatcher.execute(AppFunctionInvocation("cancel_order", platform: .apple), arguments: args)
        XCTAssertEqual(first.status, .openApp)

        let rerun = await dispatcher.execute(
            AppFunctionInvocation("cancel_order", platform: .apple, isForeground: true), arguments: args)
        XCTAssertEqual(rerun.status, .success, "\(rerun)")
        XCTAssertEqual(try rerun.result(as: Order.self).status, "Cancelled")
        XCTAssertEqual(rerun.dialog, "Order \(order.id) is cancelled.")
    }

    func testTheOpenAppGateIsRefusedOnAndroidAndOtherNotInTheForeground() async {
        let order = store.createOrder(CreateOrder(customer: "acme", quantity: 1, priority: .normal))
        for platform in [AppFunctionPlatform.android, .other] {
            let outcome = await dispatcher.execute(
                AppFunctionInvocation("cancel_order", platform: platform), arguments: #"{"order":"\#(order.id)"}"#)
            XCTAssertEqual(outcome.errorCode, .denied, "\(platform): \(outcome)")
            XCTAssertEqual(outcome.message, "Sign in to cancel orders.")
            XCTAssertFalse(outcome.appRequested)
        }
    }

    func testInTheForegroundTheOpenAppGatePassesOnEveryPlatform() async throws {
        for platform in [AppFunctionPlatform.apple, .android, .other] {
            let order = store.createOrder(CreateOrder(customer: "acme", quantity: 1, priority: .normal))
            let outcome = await dispatcher.execute(
                AppFunctionInvocation("cancel_order", platform: platform, isForeground: true),
                arguments: #"{"order":"\#(order.id)"}"#)
            XCTAssertEqual(outcome.status, .success, "\(platform): \(outcome)")
        }
    }

    func testTheAppsOwnViewCallsInTheForegroundUnlessToldOtherwise() async throws {
        let view = try dispatcher.makeView()
        let order = store.createOrder(CreateOrder(customer: "acme", quantity: 1, priority: .normal))
        let inApp = await view.execute("cancel_order", arguments: #"{"order":"\#(order.id)"}"#)
        XCTAssertEqual(inApp.status, .success, "\(inApp)")
        let other = store.createOrder(CreateOrder(customer: "acme", quantity: 1, priority: .normal))
        let outside = await view.execute("cancel_order", arguments: #"{"order":"\#(other.id)"}"#, isForeground: false)
        XCTAssertEqual(outside.errorCode, .denied, "\(outside)")
    }

    func testOnceSignedInTheBackgroundCallSucceeds() async {
        signIn.isSignedIn = true
        let order = store.createOrder(CreateOrder(customer: "acme", quantity: 1, priority: .normal))
        let outcome = await dispatcher.execute(
            AppFunctionInvocation("cancel_order", platform: .apple), arguments: #"{"order":"\#(order.id)"}"#)
        XCTAssertEqual(outcome.status, .success, "\(outcome)")
    }

    // MARK: Items, dialog, delegates

    func testDelegatesShareItemsWithTheHandlerAndTheHandlerSetsTheDialog() async {
        let outcome = await dispatcher.execute("create_order", arguments: #"{"customer":"acme","quantity":2}"#)
        XCTAssertEqual(outcome.dialog, "Order o-1 for acme is placed (trace-create_order).")
    }

    func testOnInvokedSeesEveryOutcomeRefusalsIncluded() async {
        _ = await dispatcher.execute("create_order", arguments: #"{"customer":"acme","quantity":2}"#)
        let order = store.createOrder(CreateOrder(customer: "acme", quantity: 1, priority: .normal))
        _ = await dispatcher.execute("cancel_order", arguments: #"{"order":"\#(order.id)"}"#)
        let seen = telemetry.seen.filter { !$0.function.hasPrefix("search_") }
        XCTAssertEqual(seen.map(\.function), ["create_order", "cancel_order"])
        XCTAssertEqual(seen.map(\.outcome.status), [.success, .error])
        XCTAssertEqual(seen.last?.outcome.errorCode, .denied)
    }

    func testADenyingDelegateRefusesTheCall() async throws {
        struct ReadOnly: AppFunctionDelegate {
            func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate {
                context.functionId.hasPrefix("create_") ? .deny("The shop is read-only.") : .allow
            }
        }
        let d = AppFunctionDispatcher()
        try registerShop(on: d, store: ShopStore())
        try d.addDelegate(ReadOnly())
        let outcome = await d.execute("create_order", arguments: #"{"customer":"acme","quantity":2}"#)
        XCTAssertEqual(outcome.errorCode, .denied)
        XCTAssertEqual(outcome.message, "The shop is read-only.")
    }

    func testContextDialogShowsWhatAnyLayerSaidSoFar() async throws {
        struct Checker: AppFunctionDelegate {
            let before: Shared<String?>
            func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate {
                before.value = context.dialog
                context.say("Checked your sign-in.")
                return .allow
            }
        }
        let before = Shared<String?>("unset")
        let inHandler = Shared<String?>("unset")
        let descriptor = Shared<String?>(nil)
        let d = AppFunctionDispatcher()
        try d.register(descriptorJSON: #"{"id":"greet","result":"string"}"#) { context, _ in
            inHandler.value = context.dialog
            descriptor.value = context.descriptorJSON
            context.say("Hello.")
            return "\"\(context.dialog ?? "nil")\""
        }
        try d.addDelegate(Checker(before: before))
        let outcome = await d.execute("greet")
        XCTAssertNil(before.value, "nothing said yet")
        XCTAssertEqual(inHandler.value, "Checked your sign-in.", "the delegate's text, seen by the handler")
        XCTAssertEqual(try outcome.result(as: String.self), "Hello.", "the last one wins")
        XCTAssertEqual(outcome.dialog, "Hello.")
        // the descriptor as the registry has it
        let registered = try XCTUnwrap(descriptor.value)
        XCTAssertTrue(registered.contains(#""id":"greet""#), registered)
        XCTAssertTrue(registered.contains(#""result":"string""#) && registered.contains(#""enabled":true"#), registered)
    }

    func testASynchronousDelegateDecidesInlineOnTheCallingThread() async throws {
        /// The threads the delegate and the handler ran on.
        final class Threads: @unchecked Sendable {
            private let lock = NSLock()
            private var seen: [String: pthread_t] = [:]
            func note(_ what: String) { lock.lock(); seen[what] = pthread_self(); lock.unlock() }
            func thread(_ what: String) -> pthread_t? { lock.lock(); defer { lock.unlock() }; return seen[what] }
        }
        struct Flags: AppFunctionSynchronousDelegate {
            let threads: Threads
            func onInvokingNow(_ context: AppFunctionContext) -> AppFunctionGate {
                threads.note("delegate")
                return context.functionId == "archive" ? .deny("Archiving is off.") : .allow
            }
        }
        /// Telemetry: only `onInvoked` (the default `onInvokingNow` allows, inline too).
        final class Outcomes: AppFunctionSynchronousDelegate, @unchecked Sendable {
            private let lock = NSLock()
            private var seen: [String] = []
            var functions: [String] { lock.lock(); defer { lock.unlock() }; return seen }
            func onInvoked(_ context: AppFunctionContext, outcome: AppFunctionOutcome) {
                lock.lock(); seen.append(context.functionId); lock.unlock()
            }
        }
        struct Echo: Codable { var text: String }
        let threads = Threads()
        let d = AppFunctionDispatcher()
        try d.register(AppFunctionDescriptor("echo") { AppFunctionParameter("text", String.self) }) {
            (_, a: Echo) -> String in
            threads.note("handler")
            return a.text
        }
        try d.register(AppFunctionDescriptor("archive") { AppFunctionParameter("text", String.self) }) {
            (_, a: Echo) -> String in a.text
        }
        let telemetry = Outcomes()
        try d.addDelegate(Flags(threads: threads))
        try d.addDelegate(telemetry)

        // (a nonisolated async function calling another does not change threads)
        let caller = pthread_self()
        let outcome = await d.execute("echo", arguments: #"{"text":"hi"}"#)
        XCTAssertEqual(try outcome.result(as: String.self), "hi")
        // the gate was answered inline: the call went on to the handler on the same thread
        let delegate = try XCTUnwrap(threads.thread("delegate"))
        let handler = try XCTUnwrap(threads.thread("handler"))
        XCTAssertNotEqual(pthread_equal(delegate, caller), 0, "onInvokingNow ran on the calling thread")
        XCTAssertNotEqual(pthread_equal(handler, caller), 0, "the inline handler ran on the calling thread")

        let refused = await d.execute("archive", arguments: #"{"text":"hi"}"#)
        XCTAssertEqual(refused.errorCode, .denied)
        XCTAssertEqual(refused.message, "Archiving is off.")
        XCTAssertEqual(telemetry.functions, ["echo", "archive"])
    }

    func testAFunctionsCallerPolicyRefusesCallersOfThatFunctionOnly() async throws {
        try dispatcher.setCallerPolicy("create_order", deny: ["com.evil"])
        let evil = await dispatcher.execute(
            AppFunctionInvocation("create_order", platform: .android, callerPackage: "com.evil"),
            arguments: #"{"customer":"acme","quantity":2}"#)
        XCTAssertEqual(evil.errorCode, .denied, "\(evil)")
        let other = await dispatcher.execute(
            AppFunctionInvocation("list_notes", platform: .android, callerPackage: "com.evil"))
        XCTAssertEqual(other.status, .success, "\(other)")
        XCTAssertThrowsError(try dispatcher.setCallerPolicy("nope", deny: ["x"])) { error in
            XCTAssertTrue("\(error)".contains("nope"), "\(error)")
        }
    }

    func testLimitsBoundTheArgumentsSizeAndDepth() async throws {
        try dispatcher.setLimits(maxInputBytes: 48, maxDepth: 4)
        let big = await dispatcher.execute(
            "create_order", arguments: #"{"customer":"a customer whose name is too long","quantity":2}"#)
        XCTAssertEqual(big.errorCode, .invalidArgument, "\(big)")
        let small = await dispatcher.execute("create_order", arguments: #"{"customer":"a","quantity":2}"#)
        XCTAssertEqual(small.status, .success, "\(small)")
        try dispatcher.setLimits(maxInputBytes: 1 << 20, maxDepth: 1)
        let deep = await dispatcher.execute("create_order", arguments: #"{"customer":[["acme"]],"quantity":2}"#)
        XCTAssertEqual(deep.errorCode, .invalidArgument, "\(deep)")
        XCTAssertThrowsError(try dispatcher.setLimits(maxInputBytes: 0, maxDepth: 4))
    }

    // MARK: Entities

    func testAnEntityParameterReceivesTheWholeEntity() async throws {
        signIn.isSignedIn = true
        let order = store.createOrder(CreateOrder(customer: "initech", quantity: 7, priority: .high))
        let outcome = await dispatcher.execute("cancel_order", arguments: #"{"order":"\#(order.id)"}"#)
        let cancelled = try outcome.result(as: Order.self)
        XCTAssertEqual(cancelled.customer, "initech")
        XCTAssertEqual(cancelled.quantity, 7)
        XCTAssertEqual(cancelled.status, "Cancelled")
    }

    func testAnUnknownEntityIdIsEntityNotFound() async {
        signIn.isSignedIn = true
        let outcome = await dispatcher.execute("cancel_order", arguments: #"{"order":"o-404"}"#)
        XCTAssertEqual(outcome.errorCode, .entityNotFound, "\(outcome)")
    }

    func testLookupEntitiesAnswersInTheOrderOfTheIdsThroughTheLookup() async throws {
        let a = store.createOrder(CreateOrder(customer: "acme", quantity: 1, priority: .low))
        let b = store.createOrder(CreateOrder(customer: "globex", quantity: 2, priority: .high))
        let outcome = await dispatcher.lookupEntities("order", ids: [b.id, "o-404", a.id, b.id])
        XCTAssertEqual(outcome.status, .success, "\(outcome)")
        XCTAssertEqual(try outcome.result(as: [Order].self).map(\.id), [b.id, a.id])
        let unknown = await dispatcher.lookupEntities("ordr", ids: [a.id])
        XCTAssertEqual(unknown.errorCode, .invalidArgument)
        XCTAssertEqual(unknown.message, #"no entity named "ordr" (did you mean "order"?)"#)
        let none = await dispatcher.lookupEntities("order", ids: [])
        XCTAssertEqual(none.resultJSON, "[]")
    }

    func testSearchOrderFindsOrdersByQuery() async throws {
        for c in ["acme", "globex", "acme west"] {
            _ = store.createOrder(CreateOrder(customer: c, quantity: 1, priority: .normal))
        }
        let found = try await dispatcher.execute("search_order", arguments: #"{"query":"acme"}"#).result(as: [Order].self)
        XCTAssertEqual(found.map(\.customer), ["acme", "acme west"])
        let limited = try await dispatcher.execute("search_order", arguments: #"{"query":"","limit":1}"#)
            .result(as: [Order].self)
        XCTAssertEqual(limited.count, 1)
    }

    // MARK: Failures, cancellation, concurrency

    func testAThrowingHandlerIsHandlerFailed() async {
        let outcome = await dispatcher.execute("fail_order")
        XCTAssertEqual(outcome.status, .error)
        XCTAssertEqual(outcome.errorCode, .handlerFailed)
        XCTAssertEqual(outcome.message, "the warehouse is on fire")
    }

    func testContextLogReachesTheDispatchersLogHandler() async throws {
        let seen = Flag()
        try dispatcher.setLogHandler { level, message in
            if message == "noisy_report: from the host" && level == .warn { seen.set() }
        }
        try dispatcher.register(AppFunctionDescriptor("noisy_report")) { (ctx, _: NoArguments) -> String in
            ctx.log("from the host")
            return "ok"
        }
        let outcome = await dispatcher.execute("noisy_report")
        XCTAssertEqual(outcome.status, .success, outcome.json)
        try await seen.wait()
    }

    func testTaskCancellationReachesTheCoreAndTheHandler() async throws {
        let started = Flag(), handlerSawCancellation = Flag()
        try dispatcher.register(AppFunctionDescriptor("slow_report")) { (_, _: NoArguments) -> String in
            started.set()
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                handlerSawCancellation.set()
                throw error
            }
            return "done"
        }
        let d = dispatcher!
        let task = Task { await d.execute("slow_report") }
        try await started.wait()
        task.cancel()
        let outcome = await task.value
        XCTAssertEqual(outcome.errorCode, .cancelled, "\(outcome)")
        try await handlerSawCancellation.wait()
    }

    func testAnAlreadyCancelledTaskGetsCancelled() async {
        let d = dispatcher!
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await d.execute("create_order", arguments: #"{"customer":"a","quantity":1}"#)
        }
        let outcome = await task.value
        XCTAssertEqual(outcome.errorCode, .cancelled, "\(outcome)")
    }

    func testATimeoutIsTimedOut() async throws {
        try dispatcher.register(AppFunctionDescriptor("stuck")) { (_, _: NoArguments) -> String in
            try await Task.sleep(for: .seconds(30))
            return "never"
        }
        let outcome = await dispatcher.execute(AppFunctionInvocation("stuck", timeout: .milliseconds(50)))
        XCTAssertEqual(outcome.errorCode, .timedOut, "\(outcome)")
    }

    func testTheDispatchersDefaultTimeoutEndsAStuckHandler() async throws {
        try dispatcher.register(AppFunctionDescriptor("stuck")) { (_, _: NoArguments) -> String in
            try await Task.sleep(for: .seconds(30))
            return "never"
        }
        let warnings = Counter()
        try dispatcher.setLogHandler { level, message in
            if level == .warn && message.contains("stuck timed out after 50 ms") { warnings.increment() }
        }
        try dispatcher.setDefaultTimeout(.milliseconds(50))
        let outcome = await dispatcher.execute("stuck") // no timeout of its own: the default
        XCTAssertEqual(outcome.errorCode, .timedOut, "\(outcome)")
        XCTAssertEqual(warnings.value, 1)
        // an invocation's own timeout wins; noTimeout is none at all
        try dispatcher.setDefaultTimeout(.milliseconds(10))
        try dispatcher.register(AppFunctionDescriptor("brief")) { (_, _: NoArguments) -> String in
            try await Task.sleep(for: .milliseconds(60))
            return "done"
        }
        let done = await dispatcher.execute(AppFunctionInvocation("brief", timeout: AppFunctionInvocation.noTimeout))
        XCTAssertEqual(try done.result(as: String.self), "done")
        try dispatcher.setDefaultTimeout(nil)
        let again = await dispatcher.execute("brief")
        XCTAssertEqual(again.status, .success, "\(again)")
    }

    func testShutdownDrainsTheCallsInFlightAndRefusesNewOnes() async throws {
        let started = Flag(), release = Flag()
        try dispatcher.register(AppFunctionDescriptor("long_job")) { (_, _: NoArguments) -> String in
            started.set()
            try await release.wait()
            return "finished"
        }
        let d = dispatcher!
        let running = Task { await d.execute("long_job") }
        try await started.wait()
        XCTAssertEqual(d.inFlight, 1)
        XCTAssertEqual(d.shutdown(timeout: .zero), 1, "one call still runs")
        let refused = await d.execute("create_order", arguments: #"{"customer":"a","quantity":1}"#)
        XCTAssertEqual(refused.errorCode, .limitExceeded, "\(refused)")
        XCTAssertTrue(refused.message?.contains("shutting down") ?? false, "\(refused)")
        release.set()
        let left = await Task.detached { d.shutdown(timeout: .seconds(10)) }.value
        XCTAssertEqual(left, 0)
        let finished = await running.value
        XCTAssertEqual(try finished.result(as: String.self), "finished")
        XCTAssertEqual(d.inFlight, 0)
    }

    func testOneHundredConcurrentTasks() async throws {
        let d = dispatcher!
        let outcomes = await withTaskGroup(of: AppFunctionOutcome.self) { group in
            for i in 0..<100 {
                group.addTask {
                    await d.execute("create_order", arguments: #"{"customer":"c\#(i)","quantity":\#(i + 1)}"#)
                }
            }
            var all: [AppFunctionOutcome] = []
            for await o in group { all.append(o) }
            return all
        }
        XCTAssertEqual(outcomes.count, 100)
        XCTAssertTrue(outcomes.allSatisfy(\.isSuccess), "\(outcomes.filter { !$0.isSuccess })")
        let ids = Set(try outcomes.map { try $0.result(as: Order.self).id })
        XCTAssertEqual(ids.count, 100)
        XCTAssertEqual(store.search("", limit: nil).count, 100)
    }

    // MARK: Registry

    func testTheRegistryListsDeclaredFunctionsThenGeneratedOnes() throws {
        let functions = dispatcher.registry.functions
        XCTAssertEqual(functions.map(\.id),
                       ["create_order", "cancel_order", "fail_order", "create_note", "edit_note", "list_notes",
                        "search_order"])
        XCTAssertEqual(functions.last?.isGenerated, true)
        let create = try XCTUnwrap(dispatcher.registry["create_order"])
        XCTAssertEqual(create.description, "Creates an order for a customer.")
        XCTAssertEqual(create.parameters.map(\.name), ["customer", "quantity", "priority"])
        XCTAssertEqual(create.parameters[2].type, .enumeration("Priority"))
        XCTAssertEqual(create.parameters[2].defaultJSON, #""Normal""#)
        XCTAssertTrue(create.parameters[2].isOptional)
        XCTAssertEqual(create.resultType, .entity("order"))
        XCTAssertEqual(dispatcher.registry["edit_note"]?.parameters[1].isOptional, true)
    }

    func testParametersJSONSchemaIsDraft2020_12() throws {
        let schema = try XCTUnwrap(dispatcher.registry["create_order"]).parametersJSONSchema()
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(schema.utf8)) as? [String: Any])
        XCTAssertEqual(o["type"] as? String, "object")
        let props = try XCTUnwrap(o["properties"] as? [String: Any])
        XCTAssertEqual(Set(props.keys), ["customer", "quantity", "priority"])
        XCTAssertEqual(Set(o["required"] as? [String] ?? []), ["customer", "quantity"])
        XCTAssertTrue(schema.contains("Normal") && schema.contains("High"), schema)
        let remind = try XCTUnwrap(dispatcher.registry["create_note"]).parametersJSONSchema()
        XCTAssertTrue(remind.contains("date-time"), remind)
    }

    // MARK: Scopes and permission

    func testTheHostScopeIsSeenByTheHandlerAndEndedOnce() async throws {
        final class Scope: Sendable { let id = UUID() }
        let ended = Counter()
        let d = AppFunctionDispatcher()
        try d.setScopeHooks(begin: { _ in Scope() }, end: { _, scope in
            if scope is Scope { ended.increment() }
        })
        try d.register(AppFunctionDescriptor("scope_id")) { (context, _: NoArguments) -> String in
            context.hostScope(as: Scope.self)?.id.uuidString ?? "none"
        }
        let a = try await d.execute("scope_id").result(as: String.self)
        let b = try await d.execute("scope_id").result(as: String.self)
        XCTAssertNotEqual(a, "none")
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(ended.value, 2)
    }

    func testAPermissionFunctionAsksTheUser() async throws {
        let d = AppFunctionDispatcher()
        let approve = Flag()
        try d.setPermissionHandler { _ in approve.isSet }
        try d.register(AppFunctionDescriptor("wipe_cart", requiresPermission: true)) { (_, _: NoArguments) in }
        let refused = await d.execute("wipe_cart")
        XCTAssertEqual(refused.errorCode, .permissionDenied, "\(refused)")
        approve.set()
        let allowed = await d.execute("wipe_cart")
        XCTAssertEqual(allowed.status, .success, "\(allowed)")
    }

    func testABadDescriptorIsRefusedWithItsPath() throws {
        XCTAssertThrowsError(try dispatcher.register(AppFunctionDescriptor("Bad-Id")) { (_, _: NoArguments) in }) {
            XCTAssertTrue("\($0)".contains("id"), "\($0)")
        }
        XCTAssertThrowsError(try dispatcher.register(descriptorJSON: #"{"id":"x","colour":"red"}"#) { _, _ in nil })
    }
}

/// Memory: what the core holds is released with the dispatcher.
final class LifetimeTests: XCTestCase {
    func testADuplicateIdIsReportedAsADuplicate() throws {
        let d = AppFunctionDispatcher()
        try d.register(descriptorJSON: #"{"id":"twice"}"#) { _, _ in nil }
        XCTAssertThrowsError(try d.register(descriptorJSON: #"{"id":"twice"}"#) { _, _ in nil }) { error in
            let e = error as? AppFunctionError
            XCTAssertEqual(e?.status, "AF_ERR_DUPLICATE", "\(error)")
            XCTAssertTrue(e?.isDuplicate == true)
            XCTAssertTrue(e?.message.contains("(AF_ERR_DUPLICATE)") == true, "\(error)")
        }
        XCTAssertThrowsError(try d.register(descriptorJSON: #"{"id":"Bad Id"}"#) { _, _ in nil }) { error in
            XCTAssertEqual((error as? AppFunctionError)?.status, "AF_ERR_INVALID", "\(error)")
        }
    }

    func testAReleasedDispatcherLeaksNoUserData() async throws {
        let before = AppFunctionsLibrary.liveUserDataCount
        weak var weakDispatcher: AppFunctionDispatcher?
        do {
            let d = AppFunctionDispatcher()
            weakDispatcher = d
            try registerShop(on: d, store: ShopStore())           // 1 entity + 6 functions
            try d.addDelegate(SignInDelegate(signIn: SignInState()))
            try d.addDelegate(TelemetryDelegate())
            try d.setScopeHooks(begin: { _ in nil })
            try d.setPermissionHandler { _ in true }
            try d.setLogHandler { _, _ in }
            XCTAssertEqual(AppFunctionsLibrary.liveUserDataCount - before, 12)

            // A replaced hook releases the previous one at once (no call uses it).
            try d.setLogHandler { _, _ in }
            XCTAssertEqual(AppFunctionsLibrary.liveUserDataCount - before, 12)
            // A failed registration releases its box too.
            XCTAssertThrowsError(try d.register(AppFunctionDescriptor("create_order")) { (_, _: NoArguments) in })
            XCTAssertEqual(AppFunctionsLibrary.liveUserDataCount - before, 12)

            _ = await d.execute("create_order", arguments: #"{"customer":"a","quantity":1}"#)
            _ = await d.execute(AppFunctionInvocation("cancel_order", platform: .apple), arguments: #"{"order":"o-1"}"#)
            _ = await d.execute("fail_order")
            _ = await d.execute("search_order", arguments: #"{"query":"a"}"#)
        }
        XCTAssertNil(weakDispatcher, "something keeps the dispatcher alive")
        // The outcome reaches us just before the core's thread lets go of the call (and with
        // it the registrations' user data), so allow it a moment.
        try await waitUntil { AppFunctionsLibrary.liveUserDataCount == before }
        XCTAssertEqual(AppFunctionsLibrary.liveUserDataCount, before, "user data leaked")
    }

    func testAHandlerCallingBackIntoItsDispatcherDoesNotKeepItAlive() async throws {
        let before = AppFunctionsLibrary.liveUserDataCount
        weak var weakDispatcher: AppFunctionDispatcher?
        do {
            let d = AppFunctionDispatcher()
            weakDispatcher = d
            try registerShop(on: d, store: ShopStore())
            try d.register(AppFunctionDescriptor("reorder")) { [weak d] (_, _: NoArguments) -> Order in
                guard let d else { throw AppFunctionError(.internalError, "gone") }
                return try await d.execute("create_order", arguments: #"{"customer":"again","quantity":1}"#)
                    .result(as: Order.self)
            }
            let outcome = await d.execute("reorder")
            XCTAssertEqual(try outcome.result(as: Order.self).customer, "again")
        }
        // The handler's task holds its strong `d` until the task itself is torn down, which
        // on a loaded machine can come just after the outer outcome reached us: wait for
        // that, not for the dispatcher to be released at once. Kept alive, it would never be.
        try await waitUntil { weakDispatcher == nil }
        XCTAssertNil(weakDispatcher, "something keeps the dispatcher alive")
        try await waitUntil { AppFunctionsLibrary.liveUserDataCount == before }
        XCTAssertEqual(AppFunctionsLibrary.liveUserDataCount, before)
    }
}

// MARK: Test helpers

/// Polls `condition` (tests only) until it holds or `timeout` passes. Releases that the
/// core runs on another thread after a call ends arrive late on a loaded machine, so the
/// bound is generous; a passing condition returns at once.
func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws {
    let clock = ContinuousClock(), end = clock.now + timeout
    while !condition() && clock.now < end { try await Task.sleep(for: .milliseconds(1)) }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
    /// Polls until set (tests only), failing after `timeout`.
    func wait(timeout: Duration = .seconds(10)) async throws {
        let clock = ContinuousClock(), end = clock.now + timeout
        while !isSet {
            if clock.now > end { throw AppFunctionError(.timedOut, "flag never set") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
    func increment() { lock.lock(); n += 1; lock.unlock() }
}

/// The same functions offered to MCP clients.
final class MCPTests: XCTestCase {
    func testToolsListAndToolsCallGoThroughTheDispatcher() async throws {
        let d = AppFunctionDispatcher()
        let store = ShopStore()
        try registerShop(on: d, store: store)
        let initialize = await d.mcpHandle(#"""
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}
            """#)
        XCTAssertTrue(initialize?.contains("\"result\"") ?? false, initialize ?? "nil")
        let none = await d.mcpHandle(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        XCTAssertNil(none)
        let list = await d.mcpHandle(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#) ?? ""
        XCTAssertTrue(list.contains("create_order") && list.contains("search_order"), list)
        let call = await d.mcpHandle(#"""
            {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"acme","quantity":2}}}
            """#) ?? ""
        XCTAssertTrue(call.contains("acme") && call.contains("\"isError\":false"), call)
        XCTAssertEqual(store.search("acme", limit: nil).count, 1)
        let tools = try d.export(format: "openai")
        XCTAssertTrue(tools.contains("create_order"), tools)
    }
}
