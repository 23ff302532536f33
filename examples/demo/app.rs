//! The seeds' sample apps on the public Rust API: an orders app (create_order,
//! cancel_order, the order entity) and a notes app (list_notes, create_note, edit_note),
//! with the seed's SignInDelegate and TelemetryDelegate. Shared by the demo and the
//! tests that need a realistic app (golden exports, MCP).

#![allow(dead_code)]

use appfunctions::{
    sync_handler, Call, Delegate, Dispatcher, ErrorCode, Gate, HandlerResult, Outcome,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Whether the user is signed in (the seed's SignInState).
#[derive(Default)]
pub struct SignInState(AtomicBool);

impl SignInState {
    pub fn is_signed_in(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
    pub fn set(&self, v: bool) {
        self.0.store(v, Ordering::SeqCst)
    }
}

/// The seed's SignInDelegate: cancelling orders needs a signed-in user.
pub struct SignInDelegate(pub Arc<SignInState>);

impl Delegate for SignInDelegate {
    fn on_invoking(&self, call: &Arc<Call>, gate: Gate) {
        let _ = if call.function_id() == "cancel_order" && !self.0.is_signed_in() {
            gate.open_app("Sign in to cancel orders.")
        } else {
            gate.allow()
        };
    }
    fn has_on_invoked(&self) -> bool {
        false
    }
}

/// The seed's TelemetryDelegate: one line per call ("create_order from other: ok").
pub struct TelemetryDelegate(pub Arc<Mutex<Vec<String>>>);

impl Delegate for TelemetryDelegate {
    fn on_invoked(&self, call: &Arc<Call>, outcome: &Outcome, _json: &str) {
        // on every call's path: the line is put together in one string of the right
        // size, no formatting machinery, no intermediate strings
        let id = call.function_id();
        let platform = call.platform().as_str();
        let (what, message) = match (&outcome.error_code, &outcome.message) {
            (Some(c), Some(m)) => (c.as_str(), Some(m.as_str())),
            _ if outcome.status == appfunctions::Status::OpenApp => {
                ("openApp", Some(outcome.message.as_deref().unwrap_or("")))
            }
            _ => ("ok", None),
        };
        let mut line = String::with_capacity(
            id.len() + platform.len() + what.len() + message.map_or(0, |m| m.len() + 2) + 8,
        );
        line.push_str(id);
        line.push_str(" from ");
        line.push_str(platform);
        line.push_str(": ");
        line.push_str(what);
        if let Some(m) = message {
            line.push_str(": ");
            line.push_str(m);
        }
        self.0.lock().unwrap().push(line);
    }
    fn has_on_invoking(&self) -> bool {
        false
    }
}

/// The `Priority` enum of [`TYPES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Priority {
    Low,
    #[default]
    Normal,
    High,
}

impl Priority {
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "Low",
            Priority::Normal => "Normal",
            Priority::High => "High",
        }
    }
}

/// An order's status: "open" or "cancelled".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Open,
    Cancelled,
}

/// The `Order` record of [`TYPES`] (and the `order` entity): serde writes its fields in
/// this order, the record's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub id: String,
    pub customer: String,
    pub quantity: i32,
    pub priority: Priority,
    pub status: Status,
}

/// The arguments of `create_order`, as the core hands them over: validated against the
/// descriptor (quantity ≥ 1, a known priority), the default priority filled in.
#[derive(Deserialize)]
struct CreateOrderArgs<'a> {
    #[serde(borrow)]
    customer: Cow<'a, str>,
    quantity: i32,
    #[serde(default)]
    priority: Priority,
}

/// The app's state, for the demo to show.
pub struct DemoApp {
    pub dispatcher: Dispatcher,
    pub sign_in: Arc<SignInState>,
    pub telemetry: Arc<Mutex<Vec<String>>>,
    pub orders: Arc<Mutex<Vec<Order>>>,
    pub notes: Arc<Mutex<Vec<Value>>>,
}

fn args(call: &Call) -> Value {
    call.args()
        .and_then(|a| serde_json::from_str(a).ok())
        .unwrap_or(Value::Null)
}

fn ok(v: Value) -> HandlerResult {
    Ok(Some(v.to_string()))
}

/// A handler's result written straight from a typed value (no tree in between).
fn ok_json<T: Serialize + ?Sized>(v: &T) -> HandlerResult {
    serde_json::to_string(v)
        .map(Some)
        .map_err(|e| (ErrorCode::HandlerFailed, e.to_string()))
}

fn order(id: &str, customer: &str, quantity: i32, priority: Priority) -> Order {
    Order {
        id: id.into(),
        customer: customer.into(),
        quantity,
        priority,
        status: Status::Open,
    }
}

pub const TYPES: &str = r#"{
  "enums": [
    {"name": "Priority", "description": "How urgent an order is.",
     "members": ["Low", {"name": "Normal", "description": "the default"}, "High"]}
  ],
  "records": [
    {"name": "Order", "description": "An order of the shop.",
     "fields": [
       {"name": "id", "type": "string", "description": "The order's id."},
       {"name": "customer", "type": "string", "description": "Who ordered."},
       {"name": "quantity", "type": "int32", "minimum": 1, "description": "How many items."},
       {"name": "priority", "type": {"enum": "Priority"}},
       {"name": "status", "type": "string", "description": "open or cancelled."}
     ]},
    {"name": "Note", "description": "A note.",
     "fields": [
       {"name": "id", "type": "int32", "description": "The note's ID."},
       {"name": "title", "type": "string", "description": "The note's title."},
       {"name": "content", "type": "string", "description": "The note's content."}
     ]}
  ]
}"#;

pub const ORDER_ENTITY: &str = r#"{"name": "order", "title": "Order", "description": "An order of the shop",
  "idField": "id",
  "fields": [
    {"name": "id", "type": "string"}, {"name": "customer", "type": "string"},
    {"name": "quantity", "type": "int32"}, {"name": "priority", "type": {"enum": "Priority"}},
    {"name": "status", "type": "string"}
  ]}"#;

pub const CREATE_ORDER: &str = r#"{
  "id": "create_order", "title": "Create order", "symbol": "CreateOrder",
  "description": "Creates an order for a customer.",
  "parameters": [
    {"name": "customer", "type": "string", "description": "The customer's name."},
    {"name": "quantity", "type": "int32", "minimum": 1, "description": "How many items."},
    {"name": "priority", "type": {"enum": "Priority"}, "default": "Normal", "description": "How urgent the order is."}
  ],
  "result": {"record": "Order"},
  "hints": {"readOnly": false, "destructive": false, "idempotent": false, "openWorld": false}
}"#;

pub const CANCEL_ORDER: &str = r#"{
  "id": "cancel_order", "title": "Cancel order", "symbol": "CancelOrder",
  "description": "Cancels an open order.",
  "parameters": [{"name": "order", "type": {"entity": "order"}, "description": "The order to cancel."}],
  "result": {"record": "Order"},
  "hints": {"destructive": true, "idempotent": true, "openWorld": false}
}"#;

pub const LIST_NOTES: &str = r#"{
  "id": "list_notes", "title": "List notes", "symbol": "listNotes",
  "description": "Lists all available notes.",
  "result": {"nullable": {"array": {"record": "Note"}}},
  "hints": {"readOnly": true, "openWorld": false}
}"#;

pub const CREATE_NOTE: &str = r#"{
  "id": "create_note", "title": "Create note", "symbol": "createNote",
  "description": "Adds a new note to the app.",
  "parameters": [
    {"name": "title", "type": "string", "description": "The title of the note."},
    {"name": "content", "type": "string", "description": "The note's content."}
  ],
  "result": {"record": "Note"},
  "hints": {"destructive": false, "openWorld": false}
}"#;

pub const EDIT_NOTE: &str = r#"{
  "id": "edit_note", "title": "Edit note", "symbol": "editNote",
  "description": "Edits a single note.",
  "parameters": [
    {"name": "noteId", "type": "string", "description": "The target note's ID."},
    {"name": "title", "type": "string", "nullable": true, "description": "The new title if it should be updated."},
    {"name": "content", "type": "string", "description": "The note's content."}
  ],
  "result": {"nullable": {"record": "Note"}},
  "hints": {"destructive": false, "idempotent": true, "openWorld": false}
}"#;

pub const METADATA_SCHEMA: &str = r#"{"type": "object", "properties": {
  "HasAdvancedFeatures": {"type": "boolean"}, "ShopName": {"type": "string", "default": "the shop"}}}"#;

pub const ORDERS_TOOLKIT: &str = r#"{
  "name": "orders",
  "description": "Order analytics for {metadata.ShopName}: statistics and advanced search.",
  "functionResult": "Order analytics is ready: use order_stats for totals.",
  "systemPrompt": "CRITICAL: never reveal customer names to anyone but the signed-in owner."
}"#;

pub const ORDER_STATS: &str = r#"{
  "id": "order_stats", "title": "Order statistics", "toolkit": "orders",
  "description": "Counts the open and cancelled orders of {metadata.ShopName}.",
  "result": {"record": "OrderStats"},
  "hints": {"readOnly": true, "openWorld": false}
}"#;

pub const FIND_ORDERS: &str = r#"{
  "id": "find_orders", "title": "Advanced order search", "toolkit": "orders",
  "condition": "HasAdvancedFeatures",
  "description": "Advanced search with filters.",
  "parameters": [
    {"name": "minQuantity", "type": "int32", "optional": true, "description": "Only orders with at least this many items."},
    {"name": "priority", "type": {"enum": "Priority"}, "nullable": true, "optional": true, "description": "Only orders of this priority."},
    {"name": "limit", "type": "int32", "minimum": 1, "maximum": 100, "default": 20, "description": "The most orders to return."}
  ],
  "result": {"array": {"record": "Order"}},
  "hints": {"readOnly": true, "openWorld": false}
}"#;

pub const REPORT_ORDER_SUMMARY: &str = r#"{
  "id": "report_order_summary", "title": "Report the order summary", "kind": "output",
  "description": "Ends the run with the structured summary of the orders.",
  "parameters": [
    {"name": "openOrders", "type": "int32", "description": "How many orders are open."},
    {"name": "busiestCustomer", "type": "string", "nullable": true, "description": "The customer with the most items, if any."},
    {"name": "notes", "type": "string", "optional": true, "description": "Anything else worth saying."}
  ]
}"#;

/// Builds the demo app on a new dispatcher.
pub fn build() -> DemoApp {
    let d = Dispatcher::new();
    let sign_in = Arc::new(SignInState::default());
    let telemetry = Arc::new(Mutex::new(Vec::new()));
    let orders = Arc::new(Mutex::new(vec![
        order("o-1", "acme", 2, Priority::Normal),
        order("o-2", "globex", 10, Priority::High),
    ]));
    let notes: Arc<Mutex<Vec<Value>>> = Arc::new(Mutex::new(vec![
        json!({"id": 1, "title": "Shopping", "content": "Milk, eggs"}),
    ]));

    d.define_types(TYPES).expect("types");
    d.define_types(
        r#"{"records": [{"name": "OrderStats", "fields": [
        {"name": "open", "type": "int32"}, {"name": "cancelled", "type": "int32"}]}]}"#,
    )
    .expect("stats type");
    d.set_metadata_schema(METADATA_SCHEMA)
        .expect("metadata schema");
    d.define_toolkit(ORDERS_TOOLKIT, None)
        .expect("orders toolkit");

    let o = orders.clone();
    d.register_entity(
        ORDER_ENTITY,
        sync_handler(move |call| {
            let req: Value =
                serde_json::from_str(call.lookup_request().unwrap_or("{}")).unwrap_or_default();
            let all = o.lock().unwrap();
            let found: Vec<&Order> = match req.get("ids").and_then(Value::as_array) {
                Some(ids) => all
                    .iter()
                    .filter(|x| ids.iter().any(|i| i.as_str() == Some(x.id.as_str())))
                    .collect(),
                None => {
                    let q = req["query"].as_str().unwrap_or("").to_lowercase();
                    all.iter()
                        .filter(|x| {
                            q.is_empty() || x.customer.to_lowercase().contains(&q) || x.id == q
                        })
                        .collect()
                }
            };
            ok_json(&found)
        }),
    )
    .expect("order entity");

    let o = orders.clone();
    d.register_function(
        CREATE_ORDER,
        Some(sync_handler(move |call| {
            // the core has checked the arguments against the descriptor (quantity >= 1,
            // a known priority) and filled in the default priority: serde reads them
            // straight into a struct, borrowing the customer's name from the text
            let a: CreateOrderArgs<'_> = serde_json::from_str(call.args().unwrap_or("{}"))
                .map_err(|e| (ErrorCode::HandlerFailed, e.to_string()))?;
            let mut all = o.lock().unwrap();
            let order = Order {
                id: format!("o-{}", all.len() + 1),
                customer: a.customer.into_owned(),
                quantity: a.quantity,
                priority: a.priority,
                status: Status::Open,
            };
            let result = ok_json(&order);
            call.say(&format!(
                "Order {} created for {}.",
                order.id, order.customer
            ));
            all.push(order);
            result
        })),
    )
    .expect("create_order");

    let o = orders.clone();
    d.register_function(
        CANCEL_ORDER,
        Some(sync_handler(move |call| {
            let a = args(call);
            let id = a["order"]["id"].as_str().unwrap_or("").to_owned();
            let mut all = o.lock().unwrap();
            let order = all.iter_mut().find(|x| x.id == id).ok_or((
                ErrorCode::EntityNotFound,
                format!("order: no order with id \"{id}\""),
            ))?;
            order.status = Status::Cancelled;
            call.say(&format!("Order {id} cancelled."));
            ok_json(order)
        })),
    )
    .expect("cancel_order");

    let n = notes.clone();
    d.register_function(
        LIST_NOTES,
        Some(sync_handler(move |_| {
            let all = n.lock().unwrap();
            Ok(Some(if all.is_empty() {
                "null".into()
            } else {
                json!(*all).to_string()
            }))
        })),
    )
    .expect("list_notes");

    let n = notes.clone();
    d.register_function(
        CREATE_NOTE,
        Some(sync_handler(move |call| {
            let a = args(call);
            let mut all = n.lock().unwrap();
            let note =
                json!({"id": all.len() as i64 + 1, "title": a["title"], "content": a["content"]});
            all.push(note.clone());
            ok(note)
        })),
    )
    .expect("create_note");

    let n = notes.clone();
    d.register_function(
        EDIT_NOTE,
        Some(sync_handler(move |call| {
            let a = args(call);
            let mut all = n.lock().unwrap();
            let id: i64 = a["noteId"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or(-1);
            match all.iter_mut().find(|x| x["id"] == id) {
                None => Ok(Some("null".into())),
                Some(note) => {
                    if let Some(t) = a["title"].as_str() {
                        note["title"] = json!(t);
                    }
                    note["content"] = a["content"].clone();
                    ok(note.clone())
                }
            }
        })),
    )
    .expect("edit_note");

    let o = orders.clone();
    d.register_function(
        ORDER_STATS,
        Some(sync_handler(move |_| {
            let all = o.lock().unwrap();
            let open = all.iter().filter(|x| x.status == Status::Open).count();
            ok(json!({"open": open, "cancelled": all.len() - open}))
        })),
    )
    .expect("order_stats");

    let o = orders.clone();
    d.register_function(
        FIND_ORDERS,
        Some(sync_handler(move |call| {
            let a = args(call);
            let min = a["minQuantity"].as_i64().unwrap_or(0);
            let all = o.lock().unwrap();
            let limit = a["limit"].as_u64().unwrap_or(20) as usize;
            let found: Vec<&Order> = all
                .iter()
                .filter(|x| i64::from(x.quantity) >= min)
                .filter(|x| a["priority"].is_null() || a["priority"] == x.priority.as_str())
                .take(limit)
                .collect();
            ok_json(&found)
        })),
    )
    .expect("find_orders");

    d.register_function(REPORT_ORDER_SUMMARY, None)
        .expect("report_order_summary");

    d.add_delegate(Arc::new(SignInDelegate(sign_in.clone())));
    d.add_delegate(Arc::new(TelemetryDelegate(telemetry.clone())));

    DemoApp {
        dispatcher: d,
        sign_in,
        telemetry,
        orders,
        notes,
    }
}

/// A function with every type once (the schema lane's corpus and the fuzz seeds use it;
/// the demo itself does not register it).
pub const KITCHEN_SINK: &str = r#"{
  "id": "kitchen_sink", "description": "Every type once.",
  "parameters": [
    {"name": "text", "type": "string"},
    {"name": "flag", "type": "boolean"},
    {"name": "small", "type": "int32"},
    {"name": "big", "type": "int64"},
    {"name": "ratio", "type": "double"},
    {"name": "when", "type": "dateTime"},
    {"name": "day", "type": "date"},
    {"name": "key", "type": "uuid"},
    {"name": "priority", "type": {"enum": "Priority"}},
    {"name": "note", "type": {"record": "Note"}},
    {"name": "notes", "type": {"array": {"record": "Note"}}, "optional": true},
    {"name": "maybe", "type": {"nullable": {"enum": "Priority"}}, "optional": true},
    {"name": "maybeText", "type": "string", "nullable": true, "optional": true, "default": null},
    {"name": "order", "type": {"entity": "order"}, "optional": true},
    {"name": "matrix", "type": {"array": {"array": "int32"}}, "optional": true, "default": [[1]]}
  ],
  "result": {"array": {"nullable": {"record": "Order"}}}
}"#;
