// The Swift cold start (issue 30): a fresh process registers the demo app of 50 functions
// through the Swift API (the demo's 8 functions, its entity, toolkit, metadata schema and
// types, plus numbered copies of the functions: create_order_2, ...), then makes its first
// call, create_order answering an Order. It prints CLOCK_MONOTONIC nanoseconds at the start
// of main and at the end of each step (ci/bench/coldstart.py --binding):
//   coldstart main=NS load=NS register=NS call=NS
// load: the ABI check and the first dispatcher (the library itself is mapped by the dynamic
// loader before main, as for every linked Swift library); register: everything above;
// call: `await execute` of create_order to its outcome.
//
//   ColdStart                          the cold start
//   COLDSTART_FUNCTIONS=N ColdStart    ... of N functions (default 50)
// (Settings come from the environment: started by chroot(8) without /proc, a Swift program
// on Linux sees no command-line arguments.)
import AppFunctions
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

func now() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}

let tMain = now()

// MARK: The demo app's types (examples/demo.rs, `demo bundle`)

enum Priority: String, AppFunctionEnum {
    case low = "Low", normal = "Normal", high = "High"
    static let typeDescription: String? = "How urgent an order is."
    static let memberDescriptions = ["Normal": "the default"]
}

struct Order: AppFunctionRecord {
    var id: String
    var customer: String
    var quantity: Int32
    var priority: Priority
    var status: String
    static let typeDescription: String? = "An order of the shop."
    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
        AppFunctionField("id", String.self, description: "The order's id.")
        AppFunctionField("customer", String.self, description: "Who ordered.")
        AppFunctionField("quantity", Int32.self, description: "How many items.", constraints: .init(minimum: 1))
        AppFunctionField("priority", Priority.self)
        AppFunctionField("status", String.self, description: "open or cancelled.")
    }
}

struct OrderEntity: AppFunctionEntity {
    var id: String
    var customer: String
    var quantity: Int32
    var priority: Priority
    var status: String
    static let entityName = "order"
    static let entityTitle: String? = "Order"
    static let typeDescription: String? = "An order of the shop"
    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
        AppFunctionField("id", String.self)
        AppFunctionField("customer", String.self)
        AppFunctionField("quantity", Int32.self)
        AppFunctionField("priority", Priority.self)
        AppFunctionField("status", String.self)
    }
}

struct Note: AppFunctionRecord {
    var id: Int32
    var title: String
    var content: String
    static let typeDescription: String? = "A note."
    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
        AppFunctionField("id", Int32.self, description: "The note's ID.")
        AppFunctionField("title", String.self, description: "The note's title.")
        AppFunctionField("content", String.self, description: "The note's content.")
    }
}

struct OrderStats: AppFunctionRecord {
    var open: Int32
    var cancelled: Int32
    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
        AppFunctionField("open", Int32.self)
        AppFunctionField("cancelled", Int32.self)
    }
}

/// The output tool's result: in the Swift API an output tool is shaped as a record.
struct OrderSummary: AppFunctionRecord {
    var openOrders: Int32
    var busiestCustomer: String?
    var notes: String
    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
        AppFunctionField("openOrders", Int32.self)
        AppFunctionField("busiestCustomer", String?.self)
        AppFunctionField("notes", String.self)
    }
}

struct CreateOrder: Codable {
    var customer: String
    var quantity: Int32
    var priority: Priority
}

struct CancelOrder: Codable { var order: OrderEntity }
struct CreateNote: Codable { var title: String; var content: String }
struct EditNote: Codable { var noteId: String; var title: String?; var content: String }
struct FindOrders: Codable { var minQuantity: Int32?; var priority: Priority?; var limit: Int32 }

// MARK: Registration

/// The demo's functions in its order; copy `n` > 1 is numbered (`create_order_2`, "Create
/// order 2"). Registers the first `count` of them; returns how many it registered.
func registerFunctions(_ d: AppFunctionDispatcher, copy n: Int, count: Int) throws -> Int {
    func id(_ base: String) -> String { n > 1 ? "\(base)_\(n)" : base }
    func title(_ base: String) -> String { n > 1 ? "\(base) \(n)" : base }
    var registered = 0
    func more() -> Bool {
        registered += 1
        return registered < count
    }
    try d.register(AppFunctionDescriptor(id("create_order"), title: title("Create order"),
                                         description: "Creates an order for a customer.") {
        AppFunctionParameter("customer", String.self, description: "The customer's name.")
        AppFunctionParameter("quantity", Int32.self, description: "How many items.", constraints: .init(minimum: 1))
        AppFunctionParameter("priority", Priority.self, description: "How urgent the order is.", default: .normal)
    }) { (_, a: CreateOrder) -> Order in
        Order(id: "o-1", customer: a.customer, quantity: a.quantity, priority: a.priority, status: "open")
    }
    guard more() else { return registered }
    try d.register(AppFunctionDescriptor(id("cancel_order"), title: title("Cancel order"),
                                         description: "Cancels an open order.") {
        AppFunctionParameter("order", OrderEntity.self, description: "The order to cancel.")
    }) { (_, a: CancelOrder) -> Order in
        Order(id: a.order.id, customer: a.order.customer, quantity: a.order.quantity, priority: a.order.priority, status: "cancelled")
    }
    guard more() else { return registered }
    try d.register(AppFunctionDescriptor(id("list_notes"), title: title("List notes"),
                                         description: "Lists all available notes.")) { (_, _: NoArguments) -> [Note]? in nil }
    guard more() else { return registered }
    try d.register(AppFunctionDescriptor(id("create_note"), title: title("Create note"),
                                         description: "Adds a new note to the app.") {
        AppFunctionParameter("title", String.self, description: "The title of the note.")
        AppFunctionParameter("content", String.self, description: "The note's content.")
    }) { (_, a: CreateNote) -> Note in Note(id: 1, title: a.title, content: a.content) }
    guard more() else { return registered }
    try d.register(AppFunctionDescriptor(id("edit_note"), title: title("Edit note"), description: "Edits a single note.") {
        AppFunctionParameter("noteId", String.self, description: "The target note's ID.")
        AppFunctionParameter("title", String?.self, description: "The new title if it should be updated.")
        AppFunctionParameter("content", String.self, description: "The note's content.")
    }) { (_, a: EditNote) -> Note? in nil }
    guard more() else { return registered }
    try d.register(AppFunctionDescriptor(id("order_stats"), title: title("Order statistics"),
                                         description: "Counts the open and cancelled orders of {metadata.ShopName}.",
                                         toolkit: "orders")) { (_, _: NoArguments) -> OrderStats in
        OrderStats(open: 0, cancelled: 0)
    }
    guard more() else { return registered }
    try d.register(AppFunctionDescriptor(id("find_orders"), title: title("Advanced order search"),
                                         description: "Advanced search with filters.", toolkit: "orders",
                                         condition: "HasAdvancedFeatures") {
        AppFunctionParameter("minQuantity", Int32?.self, description: "Only orders with at least this many items.")
        AppFunctionParameter("priority", Priority?.self, description: "Only orders of this priority.")
        AppFunctionParameter("limit", Int32.self, description: "The most orders to return.", default: 20,
                             constraints: .init(minimum: 1, maximum: 100))
    }) { (_, _: FindOrders) -> [Order] in [] }
    guard more() else { return registered }
    try d.registerOutput(AppFunctionDescriptor(id("report_order_summary"), title: title("Report the order summary"),
                                               description: "Ends the run with the structured summary of the orders.") {
        AppFunctionParameter("openOrders", Int32.self, description: "How many orders are open.")
        AppFunctionParameter("busiestCustomer", String?.self, description: "The customer with the most items, if any.")
        AppFunctionParameter("notes", String.self, description: "Anything else worth saying.", default: "")
    }, result: OrderSummary.self)
    return registered + 1
}

/// The demo app: metadata schema, toolkit, entity, and `functions` functions.
func registerApp(_ d: AppFunctionDispatcher, functions: Int) throws {
    try d.setMetadataSchema(json: #"{"properties":{"HasAdvancedFeatures":{},"ShopName":{"default":"the shop"}}}"#)
    try d.defineToolkit(AppFunctionToolkit("orders",
        description: "Order analytics for {metadata.ShopName}: statistics and advanced search.",
        functionResult: "Order analytics is ready: use order_stats for totals.",
        systemPrompt: "CRITICAL: never reveal customer names to anyone but the signed-in owner."))
    if getenv("COLDSTART_PROBE") != nil {
        var t = now()
        func lap(_ what: String) { let t1 = now(); print("probe \(what): \((t1 - t) / 1000) us"); t = now() }
        _ = String(describing: Priority.self); lap("String(describing: Priority.self)")
        _ = String(describing: Note.self); lap("String(describing: Note.self) 2nd type")
        _ = _typeName(OrderStats.self, qualified: false); lap("_typeName(OrderStats)")
        _ = OrderEntity.fields; lap("OrderEntity.fields")
        _ = Order.appFunctionType; lap("Order.appFunctionType")
        _ = AppFunctionDescriptor("x") { AppFunctionParameter("p", Priority.self, default: .normal) }; lap("descriptor with a default")
        _ = AppFunctionsLibrary.liveUserDataCount; lap("a Locked read")
    }
    let t0 = now()
    try d.registerEntity(OrderEntity.self) { _, _ in [] }
    if getenv("COLDSTART_TRACE") != nil { print("entity: \((now() - t0) / 1000) us") }
    var left = functions
    var copy = 1
    let trace = getenv("COLDSTART_TRACE") != nil
    var t = now()
    while left > 0 {
        left -= try registerFunctions(d, copy: copy, count: left)
        if trace { let t1 = now(); print("copy \(copy): \((t1 - t) / 1000) us"); t = t1 }
        copy += 1
    }
}

// MARK: Main

let functions = getenv("COLDSTART_FUNCTIONS").flatMap { Int(String(cString: $0)) } ?? 50

guard AppFunctionsLibrary.abiVersion == AppFunctionsLibrary.expectedABIVersion else {
    fatalError("the library has ABI \(AppFunctionsLibrary.abiVersion)")
}
let dispatcher = AppFunctionDispatcher() // checks the ABI and the error codes' names once
let tLoad = now()
try registerApp(dispatcher, functions: functions)
let tRegister = now()
let outcome = await dispatcher.execute("create_order", arguments: #"{"customer":"acme","quantity":2}"#)
let tCall = now()
guard outcome.isSuccess, (try? outcome.result(as: Order.self))?.id == "o-1" else {
    fatalError("the first call failed: \(outcome)")
}
print("coldstart main=\(tMain) load=\(tLoad) register=\(tRegister) call=\(tCall)")
