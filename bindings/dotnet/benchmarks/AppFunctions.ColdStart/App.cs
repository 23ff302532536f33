// The cold start's app (ci/bench/coldstart.py, issue 30): the demo's orders and notes app
// (examples/demo.rs: its metadata schema, the orders toolkit, its types, the order entity and
// its eight functions) and numbered copies of its functions up to 50, as the C program's app
// has them (create_order_2, cancel_order_2, ...). Compiled into the program with appfunctions
// (its attributes, the generator) and into its floor (the same classes, without appfunctions:
// AppFunctions.ColdStart.Floor/Stand-ins.cs declares the attributes as plain ones).
using System.ComponentModel;
using AppFunctions;

#pragma warning disable CA1822 // the functions are instance methods of classes from the DI scope, as apps write them

/// <summary>How urgent an order is.</summary>
public enum Priority
{
    Low,
    [Description("the default")]
    Normal,
    High,
}

/// <summary>An order of the shop.</summary>
[AppFunctionEntity("order")]
public sealed record Order(string Id, string Customer, int Quantity, Priority Priority, string Status);

/// <summary>A note.</summary>
public sealed record Note(int Id, string Title, string Content);

/// <summary>Open and cancelled orders.</summary>
public sealed record OrderStats(int Open, int Cancelled);

/// <summary>The agent's final answer.</summary>
public sealed record OrderSummary(int OpenOrders, string? BusiestCustomer, string Notes);

/// <summary>The agent views' metadata.</summary>
public sealed class ShopMetadata : IToolMetadata
{
    public bool HasAdvancedFeatures { get; set; }

    public string ShopName { get; set; } = "the shop";
}

public sealed class OrderStore
{
    private readonly Dictionary<string, Order> _orders = new() { ["o-1"] = new("o-1", "acme", 2, Priority.Normal, "open") };

    public Order Create(string customer, int quantity, Priority priority) => new("o-1", customer, quantity, priority, "open");

    public Order? Get(string id) => _orders.GetValueOrDefault(id);

    public IEnumerable<Order> All => _orders.Values;

    public OrderStats Stats() => new(_orders.Count, 0);

    public Order[] Find(int minQuantity, Priority? priority, int limit) =>
        [.. _orders.Values.Where(o => o.Quantity >= minQuantity && (priority is null || o.Priority == priority)).Take(limit)];
}

public sealed class NoteStore
{
    private readonly List<Note> _notes = [new(1, "groceries", "milk")];

    public Note[] All => [.. _notes];

    public Note Add(string title, string content) => new(_notes.Count + 1, title, content);

    public Note? Edit(string noteId, string? title, string content) => new(int.Parse(noteId, System.Globalization.CultureInfo.InvariantCulture), title ?? "", content);
}

public sealed class OrderProvider(OrderStore orders) : IAppFunctionEntityProvider<Order>
{
    public Task<IReadOnlyList<Order>> GetAsync(IReadOnlyList<string> ids, AppFunctionContext context, CancellationToken cancellationToken) =>
        Task.FromResult<IReadOnlyList<Order>>([.. ids.Select(orders.Get).OfType<Order>()]);

    public Task<IReadOnlyList<Order>> SearchAsync(string query, int? limit, AppFunctionContext context, CancellationToken cancellationToken) =>
        Task.FromResult<IReadOnlyList<Order>>([.. orders.All.Where(o => o.Customer.Contains(query, StringComparison.Ordinal)).Take(limit ?? 10)]);
}

public class OrderFunctions(OrderStore orders)
{
    /// <summary>Creates an order for a customer.</summary>
    [AppFunction(Name = "create_order", Title = "Create order")]
    public Order CreateOrder(string customer, int quantity, Priority priority = Priority.Normal) => orders.Create(customer, quantity, priority);

    /// <summary>Cancels an open order.</summary>
    [AppFunction(Name = "cancel_order", Title = "Cancel order")]
    public Order CancelOrder(Order order) => order with { Status = "cancelled" };
}

public class NoteFunctions(NoteStore notes)
{
    /// <summary>Lists all available notes.</summary>
    [AppFunction(Name = "list_notes", Title = "List notes")]
    public Note[]? ListNotes() => notes.All;

    /// <summary>Adds a new note to the app.</summary>
    [AppFunction(Name = "create_note", Title = "Create note")]
    public Note CreateNote(string title, string content) => notes.Add(title, content);

    /// <summary>Edits a single note.</summary>
    [AppFunction(Name = "edit_note", Title = "Edit note")]
    public Note? EditNote(string noteId, string content, string? title = null) => notes.Edit(noteId, title, content);
}

[Collapse("Order analytics for {metadata.ShopName}: statistics and advanced search.",
    FunctionResult: "Order analytics is ready: use order_stats for totals.",
    SystemPrompt: "CRITICAL: never reveal customer names to anyone but the signed-in owner.", Name = "orders")]
public class OrdersToolkit(OrderStore orders)
{
    /// <summary>Counts open and cancelled orders.</summary>
    [AppFunction(Name = "order_stats")]
    public OrderStats OrderStats() => orders.Stats();

    /// <summary>Finds orders by quantity and priority.</summary>
    [AppFunction<ShopMetadata>(Name = "find_orders")]
    [ConditionalFunction("HasAdvancedFeatures")]
    public Order[] FindOrders(int minQuantity = 1, Priority? priority = null, int limit = 10) => orders.Find(minQuantity, priority, limit);
}

public class Reports
{
    /// <summary>Reports the order summary (the agent's final answer).</summary>
    [AppFunction(Name = "report_order_summary", Kind = ToolKind.Output)]
    public OrderSummary ReportOrderSummary(int openOrders, string? busiestCustomer = null, string notes = "") => new(openOrders, busiestCustomer, notes);
}

public class OrderFunctions2(OrderStore orders)
{
    /// <summary>Creates an order for a customer.</summary>
    [AppFunction(Name = "create_order_2", Title = "Create order 2")]
    public Order CreateOrder2(string customer, int quantity, Priority priority = Priority.Normal) => orders.Create(customer, quantity, priority);

    /// <summary>Cancels an open order.</summary>
    [AppFunction(Name = "cancel_order_2", Title = "Cancel order 2")]
    public Order CancelOrder2(Order order) => order with { Status = "cancelled" };
}

public class NoteFunctions2(NoteStore notes)
{
    /// <summary>Lists all available notes.</summary>
    [AppFunction(Name = "list_notes_2", Title = "List notes 2")]
    public Note[]? ListNotes2() => notes.All;

    /// <summary>Adds a new note to the app.</summary>
    [AppFunction(Name = "create_note_2", Title = "Create note 2")]
    public Note CreateNote2(string title, string content) => notes.Add(title, content);

    /// <summary>Edits a single note.</summary>
    [AppFunction(Name = "edit_note_2", Title = "Edit note 2")]
    public Note? EditNote2(string noteId, string content, string? title = null) => notes.Edit(noteId, title, content);
}

[Collapse("Order analytics for {metadata.ShopName}: statistics and advanced search.",
    FunctionResult: "Order analytics is ready: use order_stats for totals.",
    SystemPrompt: "CRITICAL: never reveal customer names to anyone but the signed-in owner.", Name = "orders")]
public class OrdersToolkit2(OrderStore orders)
{
    /// <summary>Counts open and cancelled orders.</summary>
    [AppFunction(Name = "order_stats_2")]
    public OrderStats OrderStats2() => orders.Stats();

    /// <summary>Finds orders by quantity and priority.</summary>
    [AppFunction<ShopMetadata>(Name = "find_orders_2")]
    [ConditionalFunction("HasAdvancedFeatures")]
    public Order[] FindOrders2(int minQuantity = 1, Priority? priority = null, int limit = 10) => orders.Find(minQuantity, priority, limit);
}

public class Reports2
{
    /// <summary>Reports the order summary (the agent's final answer).</summary>
    [AppFunction(Name = "report_order_summary_2", Kind = ToolKind.Output)]
    public OrderSummary ReportOrderSummary2(int openOrders, string? busiestCustomer = null, string notes = "") => new(openOrders, busiestCustomer, notes);
}

public class OrderFunctions3(OrderStore orders)
{
    /// <summary>Creates an order for a customer.</summary>
    [AppFunction(Name = "create_order_3", Title = "Create order 3")]
    public Order CreateOrder3(string customer, int quantity, Priority priority = Priority.Normal) => orders.Create(customer, quantity, priority);

    /// <summary>Cancels an open order.</summary>
    [AppFunction(Name = "cancel_order_3", Title = "Cancel order 3")]
    public Order CancelOrder3(Order order) => order with { Status = "cancelled" };
}

public class NoteFunctions3(NoteStore notes)
{
    /// <summary>Lists all available notes.</summary>
    [AppFunction(Name = "list_notes_3", Title = "List notes 3")]
    public Note[]? ListNotes3() => notes.All;

    /// <summary>Adds a new note to the app.</summary>
    [AppFunction(Name = "create_note_3", Title = "Create note 3")]
    public Note CreateNote3(string title, string content) => notes.Add(title, content);

    /// <summary>Edits a single note.</summary>
    [AppFunction(Name = "edit_note_3", Title = "Edit note 3")]
    public Note? EditNote3(string noteId, string content, string? title = null) => notes.Edit(noteId, title, content);
}

[Collapse("Order analytics for {metadata.ShopName}: statistics and advanced search.",
    FunctionResult: "Order analytics is ready: use order_stats for totals.",
    SystemPrompt: "CRITICAL: never reveal customer names to anyone but the signed-in owner.", Name = "orders")]
public class OrdersToolkit3(OrderStore orders)
{
    /// <summary>Counts open and cancelled orders.</summary>
    [AppFunction(Name = "order_stats_3")]
    public OrderStats OrderStats3() => orders.Stats();

    /// <summary>Finds orders by quantity and priority.</summary>
    [AppFunction<ShopMetadata>(Name = "find_orders_3")]
    [ConditionalFunction("HasAdvancedFeatures")]
    public Order[] FindOrders3(int minQuantity = 1, Priority? priority = null, int limit = 10) => orders.Find(minQuantity, priority, limit);
}

public class Reports3
{
    /// <summary>Reports the order summary (the agent's final answer).</summary>
    [AppFunction(Name = "report_order_summary_3", Kind = ToolKind.Output)]
    public OrderSummary ReportOrderSummary3(int openOrders, string? busiestCustomer = null, string notes = "") => new(openOrders, busiestCustomer, notes);
}

public class OrderFunctions4(OrderStore orders)
{
    /// <summary>Creates an order for a customer.</summary>
    [AppFunction(Name = "create_order_4", Title = "Create order 4")]
    public Order CreateOrder4(string customer, int quantity, Priority priority = Priority.Normal) => orders.Create(customer, quantity, priority);

    /// <summary>Cancels an open order.</summary>
    [AppFunction(Name = "cancel_order_4", Title = "Cancel order 4")]
    public Order CancelOrder4(Order order) => order with { Status = "cancelled" };
}

public class NoteFunctions4(NoteStore notes)
{
    /// <summary>Lists all available notes.</summary>
    [AppFunction(Name = "list_notes_4", Title = "List notes 4")]
    public Note[]? ListNotes4() => notes.All;

    /// <summary>Adds a new note to the app.</summary>
    [AppFunction(Name = "create_note_4", Title = "Create note 4")]
    public Note CreateNote4(string title, string content) => notes.Add(title, content);

    /// <summary>Edits a single note.</summary>
    [AppFunction(Name = "edit_note_4", Title = "Edit note 4")]
    public Note? EditNote4(string noteId, string content, string? title = null) => notes.Edit(noteId, title, content);
}

[Collapse("Order analytics for {metadata.ShopName}: statistics and advanced search.",
    FunctionResult: "Order analytics is ready: use order_stats for totals.",
    SystemPrompt: "CRITICAL: never reveal customer names to anyone but the signed-in owner.", Name = "orders")]
public class OrdersToolkit4(OrderStore orders)
{
    /// <summary>Counts open and cancelled orders.</summary>
    [AppFunction(Name = "order_stats_4")]
    public OrderStats OrderStats4() => orders.Stats();

    /// <summary>Finds orders by quantity and priority.</summary>
    [AppFunction<ShopMetadata>(Name = "find_orders_4")]
    [ConditionalFunction("HasAdvancedFeatures")]
    public Order[] FindOrders4(int minQuantity = 1, Priority? priority = null, int limit = 10) => orders.Find(minQuantity, priority, limit);
}

public class Reports4
{
    /// <summary>Reports the order summary (the agent's final answer).</summary>
    [AppFunction(Name = "report_order_summary_4", Kind = ToolKind.Output)]
    public OrderSummary ReportOrderSummary4(int openOrders, string? busiestCustomer = null, string notes = "") => new(openOrders, busiestCustomer, notes);
}

public class OrderFunctions5(OrderStore orders)
{
    /// <summary>Creates an order for a customer.</summary>
    [AppFunction(Name = "create_order_5", Title = "Create order 5")]
    public Order CreateOrder5(string customer, int quantity, Priority priority = Priority.Normal) => orders.Create(customer, quantity, priority);

    /// <summary>Cancels an open order.</summary>
    [AppFunction(Name = "cancel_order_5", Title = "Cancel order 5")]
    public Order CancelOrder5(Order order) => order with { Status = "cancelled" };
}

public class NoteFunctions5(NoteStore notes)
{
    /// <summary>Lists all available notes.</summary>
    [AppFunction(Name = "list_notes_5", Title = "List notes 5")]
    public Note[]? ListNotes5() => notes.All;

    /// <summary>Adds a new note to the app.</summary>
    [AppFunction(Name = "create_note_5", Title = "Create note 5")]
    public Note CreateNote5(string title, string content) => notes.Add(title, content);

    /// <summary>Edits a single note.</summary>
    [AppFunction(Name = "edit_note_5", Title = "Edit note 5")]
    public Note? EditNote5(string noteId, string content, string? title = null) => notes.Edit(noteId, title, content);
}

[Collapse("Order analytics for {metadata.ShopName}: statistics and advanced search.",
    FunctionResult: "Order analytics is ready: use order_stats for totals.",
    SystemPrompt: "CRITICAL: never reveal customer names to anyone but the signed-in owner.", Name = "orders")]
public class OrdersToolkit5(OrderStore orders)
{
    /// <summary>Counts open and cancelled orders.</summary>
    [AppFunction(Name = "order_stats_5")]
    public OrderStats OrderStats5() => orders.Stats();

    /// <summary>Finds orders by quantity and priority.</summary>
    [AppFunction<ShopMetadata>(Name = "find_orders_5")]
    [ConditionalFunction("HasAdvancedFeatures")]
    public Order[] FindOrders5(int minQuantity = 1, Priority? priority = null, int limit = 10) => orders.Find(minQuantity, priority, limit);
}

public class Reports5
{
    /// <summary>Reports the order summary (the agent's final answer).</summary>
    [AppFunction(Name = "report_order_summary_5", Kind = ToolKind.Output)]
    public OrderSummary ReportOrderSummary5(int openOrders, string? busiestCustomer = null, string notes = "") => new(openOrders, busiestCustomer, notes);
}

public class OrderFunctions6(OrderStore orders)
{
    /// <summary>Creates an order for a customer.</summary>
    [AppFunction(Name = "create_order_6", Title = "Create order 6")]
    public Order CreateOrder6(string customer, int quantity, Priority priority = Priority.Normal) => orders.Create(customer, quantity, priority);

    /// <summary>Cancels an open order.</summary>
    [AppFunction(Name = "cancel_order_6", Title = "Cancel order 6")]
    public Order CancelOrder6(Order order) => order with { Status = "cancelled" };
}

public class NoteFunctions6(NoteStore notes)
{
    /// <summary>Lists all available notes.</summary>
    [AppFunction(Name = "list_notes_6", Title = "List notes 6")]
    public Note[]? ListNotes6() => notes.All;

    /// <summary>Adds a new note to the app.</summary>
    [AppFunction(Name = "create_note_6", Title = "Create note 6")]
    public Note CreateNote6(string title, string content) => notes.Add(title, content);

    /// <summary>Edits a single note.</summary>
    [AppFunction(Name = "edit_note_6", Title = "Edit note 6")]
    public Note? EditNote6(string noteId, string content, string? title = null) => notes.Edit(noteId, title, content);
}

[Collapse("Order analytics for {metadata.ShopName}: statistics and advanced search.",
    FunctionResult: "Order analytics is ready: use order_stats for totals.",
    SystemPrompt: "CRITICAL: never reveal customer names to anyone but the signed-in owner.", Name = "orders")]
public class OrdersToolkit6(OrderStore orders)
{
    /// <summary>Counts open and cancelled orders.</summary>
    [AppFunction(Name = "order_stats_6")]
    public OrderStats OrderStats6() => orders.Stats();

    /// <summary>Finds orders by quantity and priority.</summary>
    [AppFunction<ShopMetadata>(Name = "find_orders_6")]
    [ConditionalFunction("HasAdvancedFeatures")]
    public Order[] FindOrders6(int minQuantity = 1, Priority? priority = null, int limit = 10) => orders.Find(minQuantity, priority, limit);
}

public class Reports6
{
    /// <summary>Reports the order summary (the agent's final answer).</summary>
    [AppFunction(Name = "report_order_summary_6", Kind = ToolKind.Output)]
    public OrderSummary ReportOrderSummary6(int openOrders, string? busiestCustomer = null, string notes = "") => new(openOrders, busiestCustomer, notes);
}

public class OrderFunctions7(OrderStore orders)
{
    /// <summary>Creates an order for a customer.</summary>
    [AppFunction(Name = "create_order_7", Title = "Create order 7")]
    public Order CreateOrder7(string customer, int quantity, Priority priority = Priority.Normal) => orders.Create(customer, quantity, priority);

    /// <summary>Cancels an open order.</summary>
    [AppFunction(Name = "cancel_order_7", Title = "Cancel order 7")]
    public Order CancelOrder7(Order order) => order with { Status = "cancelled" };
}
