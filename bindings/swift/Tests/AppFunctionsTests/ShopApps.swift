import AppFunctions
import Foundation

// The seeds' orders app and notes app, built once per test on a fresh dispatcher.

enum Priority: String, AppFunctionEnum {
    case low = "Low", normal = "Normal", high = "High"
    static let typeDescription: String? = "How urgent an order is"
    static let memberDescriptions = ["Normal": "The default"]
}

struct Order: AppFunctionEntity, Equatable {
    var id: String
    var customer: String
    var quantity: Int32
    var priority: Priority
    var status: String

    static let entityName = "order"
    static let entityTitle: String? = "Order"
    static let typeDescription: String? = "An order of the shop"

    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
        AppFunctionField("id", String.self, description: "The order number")
        AppFunctionField("customer", String.self)
        AppFunctionField("quantity", Int32.self)
        AppFunctionField("priority", Priority.self)
        AppFunctionField("status", String.self, description: "Open or Cancelled")
    }
}

struct Note: AppFunctionRecord, Equatable {
    var id: Int32
    var title: String
    var content: String
    var remindAt: Date?

    static let typeDescription: String? = "A note."

    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
        AppFunctionField("id", Int32.self, description: "The note's ID.")
        AppFunctionField("title", String.self, description: "The note's title.")
        AppFunctionField("content", String.self, description: "The note's content.")
        AppFunctionField("remindAt", Date?.self, description: "When to remind the user.")
    }
}

struct CreateOrder: Codable {
    var customer: String
    var quantity: Int32
    var priority: Priority
}

struct CancelOrder: Codable {
    var order: Order
}

struct CreateNote: Codable {
    var title: String
    var content: String
    var remindAt: Date?
}

struct EditNote: Codable {
    var noteId: Int32
    var title: String?
    var content: String
}

/// The shop's data: orders and notes.
final class ShopStore: @unchecked Sendable {
    private let lock = NSLock()
    private var orders: [String: Order] = [:]
    private var notes: [Int32: Note] = [:]
    private var nextOrder = 1
    private var nextNote: Int32 = 1

    func createOrder(_ a: CreateOrder) -> Order {
        lock.lock(); defer { lock.unlock() }
        let o = Order(id: "o-\(nextOrder)", customer: a.customer, quantity: a.quantity, priority: a.priority, status: "Open")
        nextOrder += 1
        orders[o.id] = o
        return o
    }

    func cancel(_ id: String) -> Order? {
        lock.lock(); defer { lock.unlock() }
        orders[id]?.status = "Cancelled"
        return orders[id]
    }

    func orders(ids: [String]) -> [Order] {
        lock.lock(); defer { lock.unlock() }
        return ids.compactMap { orders[$0] }
    }

    func search(_ q: String, limit: Int?) -> [Order] {
        lock.lock(); defer { lock.unlock() }
        let all = orders.values.filter { q.isEmpty || $0.customer.localizedCaseInsensitiveContains(q) }
            .sorted { $0.id < $1.id }
        return Array(all.prefix(limit ?? all.count))
    }

    func createNote(_ a: CreateNote) -> Note {
        lock.lock(); defer { lock.unlock() }
        let n = Note(id: nextNote, title: a.title, content: a.content, remindAt: a.remindAt)
        nextNote += 1
        notes[n.id] = n
        return n
    }

    func editNote(_ a: EditNote) -> Note? {
        lock.lock(); defer { lock.unlock() }
        guard var n = notes[a.noteId] else { return nil }
        if let t = a.title { n.title = t }
        n.content = a.content
        notes[n.id] = n
        return n
    }

    func listNotes() -> [Note]? {
        lock.lock(); defer { lock.unlock() }
        return notes.isEmpty ? nil : notes.values.sorted { $0.id < $1.id }
    }
}

/// Is the user signed in? (Changed by "the app" between the background run and the rerun.)
final class SignInState: @unchecked Sendable {
    private let lock = NSLock()
    private var signedIn = false
    var isSignedIn: Bool {
        get { lock.lock(); defer { lock.unlock() }; return signedIn }
        set { lock.lock(); signedIn = newValue; lock.unlock() }
    }
}

/// The seed's sign-in delegate.
struct SignInDelegate: AppFunctionDelegate {
    let signIn: SignInState

    func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate {
        context.functionId == "cancel_order" && !signIn.isSignedIn
            ? .openApp("Sign in to cancel orders.")
            : .allow
    }
}

/// Records every outcome (the seed's telemetry delegate) and puts a trace id into the items.
final class TelemetryDelegate: AppFunctionDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var _seen: [(String, AppFunctionOutcome)] = []
    var seen: [(function: String, outcome: AppFunctionOutcome)] {
        lock.lock(); defer { lock.unlock() }
        return _seen
    }

    func onInvoking(_ context: AppFunctionContext) async -> AppFunctionGate {
        try? context.items.set("traceId", "trace-\(context.functionId)")
        return .allow
    }

    func onInvoked(_ context: AppFunctionContext, outcome: AppFunctionOutcome) {
        lock.lock(); _seen.append((context.functionId, outcome)); lock.unlock()
    }
}

struct Boom: Error, CustomStringConvertible {
    var description: String { "the warehouse is on fire" }
}

/// Builds the orders + notes app on `d`.
func registerShop(on d: AppFunctionDispatcher, store: ShopStore) throws {
    try d.registerEntity(Order.self) { _, request in
        switch request {
        case .ids(let ids): return store.orders(ids: ids)
        case .query(let q, let limit): return store.search(q, limit: limit)
        }
    }

    try d.register(AppFunctionDescriptor("create_order", title: "Create order",
                                         description: "Creates an order for a customer.") {
        AppFunctionParameter("customer", String.self, description: "Customer name")
        AppFunctionParameter("quantity", Int32.self, description: "How many items")
        AppFunctionParameter("priority", Priority.self, description: "How urgent", default: .normal)
    }) { (context, args: CreateOrder) -> Order in
        let order = store.createOrder(args)
        let trace = context.items.get("traceId", as: String.self) ?? "none"
        context.say("Order \(order.id) for \(args.customer) is placed (\(trace)).")
        return order
    }

    try d.register(AppFunctionDescriptor("cancel_order", title: "Cancel order",
                                         description: "Cancels an order.") {
        AppFunctionParameter("order", Order.self, description: "The order to cancel")
    }) { (context, args: CancelOrder) -> Order in
        guard let cancelled = store.cancel(args.order.id) else {
            throw AppFunctionError(.entityNotFound, "no order \(args.order.id)")
        }
        context.say("Order \(cancelled.id) is cancelled.")
        return cancelled
    }

    try d.register(AppFunctionDescriptor("fail_order", description: "Always throws.")) {
        (_: AppFunctionContext, _: NoArguments) async throws -> Order in
        throw Boom()
    }

    try d.register(AppFunctionDescriptor("create_note", description: "Adds a new note to the app.") {
        AppFunctionParameter("title", String.self, description: "The title of the note.")
        AppFunctionParameter("content", String.self, description: "The note's content.")
        AppFunctionParameter("remindAt", Date?.self, description: "When to remind the user.")
    }) { (_, args: CreateNote) -> Note in
        store.createNote(args)
    }

    try d.register(AppFunctionDescriptor("edit_note", description: "Edits a single note.") {
        AppFunctionParameter("noteId", Int32.self, description: "The target note's ID.")
        AppFunctionParameter("title", String?.self, description: "The new title if it should be updated.")
        AppFunctionParameter("content", String.self, description: "The note's content.")
    }) { (_, args: EditNote) -> Note? in
        store.editNote(args)
    }

    try d.register(AppFunctionDescriptor("list_notes", description: "Lists all available notes.")) {
        (_, _: NoArguments) -> [Note]? in
        store.listNotes()
    }
}
