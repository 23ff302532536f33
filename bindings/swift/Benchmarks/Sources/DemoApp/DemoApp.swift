// The demo app of examples/demo.rs (`demo bundle`) written with the Swift API: its types, its
// entity, toolkit and metadata schema, and its functions with numbered copies (ColdStart,
// RegisterOnly).
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

// MARK: The demo app's types (examples/demo.rs, `demo bundle`)

public enum Priority: String, AppFunctionEnum {
    case low = "Low", normal = "Normal", high = "High"
    public static let typeDescription: String? = "How urgent an order is."
    public static let memberDescriptions = ["Normal": "the default"]
}

public struct Order: AppFunctionRecord {
    public var id: String
    public var customer: String
    public var quantity: Int32
    public var priority: Priority
    public var status: String
    public static let typeDescription: String? = "An order of the shop."
    @AppFunctionFieldsBuilder public static var fields: [AppFunctionField] {
        AppFunctionField("id", String.self, description: "The order's id.")
        AppFunctionField("customer", String.self, description: "Who ordered.")
        AppFunctionField("quantity", Int32.self, description: "How many items.", constraints: .init(minimum: 1))
        AppFunctionField("priority", Priority.self)
        AppFunctionField("status", String.self, description: "open or cancelled.")
    }
}

public struct OrderEntity: AppFunctionEntity {
    public var id: String
    public var customer: String
    public var quantity: Int32
    public var priority: Priority
    public var status: String
    public static let entityName = "order"
    public static let entityTitle: String? = "Order"
    public static let typeDescription: String? = "An order of the shop"
    @AppFunctionFieldsBuilder public static var fields: [AppFunctionField] {
        AppFunctionField("id", String.self)
        AppFunctionField("customer", String.self)
        AppFunctionField("quantity", Int32.self)
        AppFunctionField("priority", Priority.self)
        AppFunctionField("status", String.self)
    }
}

public struct Note: AppFunctionRecord {
    public var id: Int32
    public var title: String
    public var content: String
    public static let typeDescription: String? = "A note."
    @AppFunctionFieldsBuilder public static var fields: [AppFunctionField] {
        AppFunctionField("id", Int32.self, description: "The note's ID.")
        AppFunctionField("title", String.self, description: "The note's title.")
        AppFunctionField("content", String.self, description: "The note's content.")
    }
}

public struct OrderStats: AppFunctionRecord {
    public var open: Int32
    public var cancelled: Int32
    @AppFunctionFieldsBuilder public static var fields: [AppFunctionField] {
        AppFunctionField("open", Int32.self)
        AppFunctionField("cancelled", Int32.self)
    }
}

/// The output tool's result: in the Swift API an output tool is shaped as a record.
public struct OrderSummary: AppFunctionRecord {
    public var openOrders: Int32
    public var busiestCustomer: String?
    public var notes: String
    @AppFunctionFieldsBuilder public static var fields: [AppFunctionField] {
        AppFunctionField("openOrders", Int32.self)
        AppFunctionField("busiestCustomer", String?.self)
        AppFunctionField("notes", String.self)
    }
}

public struct CreateOrder: Codable {
    public var customer: String
    public var quantity: Int32
    public var priority: Priority
}

public struct CancelOrder: Codable { public var order: OrderEntity }
public struct CreateNote: Codable { public var title: String; public var content: String }
public struct EditNote: Codable { public var noteId: String; public var title: String?; public var content: String }
public struct FindOrders: Codable { public var minQuantity: Int32?; public var priority: Priority?; public var limit: Int32 }

// MARK: Registration

/// The demo's functions in its order; copy `n` > 1 is numbered (`create_order_2`, "Create
/// order 2"). Registers the first `count` of them; returns how many it registered.
func registerFunctions(_ d: AppFunctionDispatcher, copy n: Int, count: Int) throws -> Int {
    func id(_ base: String) -> String { n > 1 ? "\(base)_\(n)" : base }
    func title(_ base: String) -> String { n > 1 ? "\(base) \(n)" : base }
    var registered = 0
    let trace = n == 1 && getenv("COLDSTART_TRACE") != nil
    var t = now()
    func more() -> Bool {
        registered += 1
        if trace {
            let t1 = now()
            print("  function \(registered): \((t1 - t) / 1000) us")
            t = t1
        }
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
public func registerApp(_ d: AppFunctionDispatcher, functions: Int) throws {
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

