//! An MCP server for tools, over any transport: one JSON-RPC message in, at most one out.
//!
//! - Connection: `initialize` (revisions 2024-11-05 … 2025-11-25, negotiated: the
//!   client's revision when we speak it, else our newest), `notifications/initialized`,
//!   `ping`; and the 2026-07-28 revision's `server/discover` with its stateless
//!   per-request envelope (`params._meta`). The first request picks the era.
//! - Tools: `tools/list` (opaque cursors, configurable page size), `tools/call` through
//!   the full pipeline with platform `other`, through the session's agent view. In the
//!   handshake era a collapsed toolkit expands when called (the list is per session); in
//!   the 2026-07-28 revision the list is fixed and a container routes calls to its
//!   members instead (docs/mcp-notes.md, "Toolkits in the stateless revision").
//! - Errors: a failed call is an `isError` result whose text lets a model correct
//!   itself; a tool the client cannot see, malformed requests are JSON-RPC errors.
//! - `notifications/cancelled` cancels the running call (and suppresses its response)
//!   or ends a `subscriptions/listen` stream.
//! - `notifications/tools/list_changed` goes to the host's transport when the registry
//!   or the view changes: to the session in the handshake era, on each
//!   `subscriptions/listen` stream that asked for it in 2026-07-28. Without a transport
//!   for notifications (`set_notify`), `listChanged` is `false`.
//! - Input is bounded: a message over `max_message_bytes` is refused before it is
//!   parsed, and messages are parsed without building a tree of the whole text
//!   (docs/robustness.md, "Input limits").
//!
//! One [`Session`] type, its methods by responsibility, one file each: `framing`
//! (messages and batches in, responses out, each request routed to its method),
//! `message` (reading a message without a tree), `negotiation` (the handshake, the
//! 2026-07-28 envelope, what the server says of itself), `tools` (`tools/list`,
//! `tools/call`), `subscriptions` (where notifications go, `list_changed`,
//! `subscriptions/listen`), `config` (its settings, kept by the C ABI in every build). This
//! file holds the session's state.

mod config;
mod framing;
mod message;
mod negotiation;
pub mod stdio;
mod subscriptions;
mod tools;

pub use config::{McpConfig, Notify};
use message::*;
use negotiation::*;

use crate::engine::call::Invocation;

use crate::engine::cancel::CancelToken;

use crate::engine::dispatcher::Dispatcher;

use crate::view::{ToolkitMode, View};

use parking_lot::Mutex;

use serde::de::{self, IgnoredAny};

use serde::Deserialize;

use serde_json::value::RawValue;

use serde_json::{json, Value};

use std::borrow::Cow;

use std::collections::HashMap;

use std::sync::Arc;

/// The revisions with the `initialize` handshake, newest first.
pub const HANDSHAKE_REVISIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The stateless revision.
pub const MODERN_REVISION: &str = "2026-07-28";

const META_SERVER: &str = "io.modelcontextprotocol/serverInfo";

const META_SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";

pub(crate) const PARSE_ERROR: i64 = -32700;

pub(crate) const INVALID_REQUEST: i64 = -32600;

pub(crate) const METHOD_NOT_FOUND: i64 = -32601;

pub(crate) const INVALID_PARAMS: i64 = -32602;

pub(crate) const UNSUPPORTED_VERSION: i64 = -32022;

/// The most messages one JSON-RPC batch (2025-03-26) may hold.
pub(crate) const MAX_BATCH: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Era {
    Unknown,
    Handshake,
    Modern,
}

/// One open `subscriptions/listen` stream.
struct Subscription {
    /// The listen request's id (canonical JSON text), the stream's subscription id.
    id: String,
    /// The client asked for `notifications/tools/list_changed` (the only kind we honor).
    tools: bool,
    /// The acknowledgment has been sent: notifications may follow.
    acked: bool,
    /// A change came before the acknowledgment went out: send it right after.
    pending: bool,
}

struct SessionState {
    era: Era,
    version: &'static str,
    initialized: bool,
    /// The tool list changed after `initialize` and before `notifications/initialized`
    /// (a transport handling messages concurrently may take them in either order): the
    /// `list_changed` goes out when the client says it is initialized.
    changed_before_initialized: bool,
    in_flight: HashMap<String, CancelToken>,
    cancelled: std::collections::HashSet<String>,
    subscriptions: Vec<Subscription>,
}

/// One MCP session: its negotiation state, its agent view, the calls in flight, the
/// open subscription streams.
pub struct Session {
    dispatcher: Dispatcher,
    view: Arc<View>,
    config: McpConfig,
    state: Mutex<SessionState>,
    notify: Mutex<Option<Notify>>,
    subscription: Mutex<Option<u64>>,
}

/// What handling one message asks the transport to do.
pub enum Reply {
    /// Send this response now.
    Now(String),
    /// Nothing to send (a notification, a response, an ignored message, an open
    /// subscription stream).
    Nothing,
    /// A tool call: run it with [`Session::run_call`] (possibly on a worker) and send
    /// what it returns, if anything.
    Call(PendingCall),
}

/// A `tools/call` ready to run.
pub struct PendingCall {
    /// The request id, as canonical JSON text (also the in-flight key).
    id: String,
    name: String,
    args: Option<String>,
    token: CancelToken,
    modern: bool,
    version: &'static str,
}

impl PendingCall {
    /// Bytes this call holds (its arguments and name), for a transport's queue budget.
    pub fn size(&self) -> usize {
        self.args.as_ref().map_or(0, String::len) + self.name.len() + self.id.len()
    }
}

fn response_head(id: Option<&str>, null_id: bool) -> String {
    let mut out = String::new();
    push_response_head(&mut out, id, null_id);
    out
}

/// [`response_head`] written into `out` (a `tools/call` answer's own buffer: no `format!`
/// and no second string per call).
fn push_response_head(out: &mut String, id: Option<&str>, null_id: bool) {
    out.push_str("{\"jsonrpc\":\"2.0\",");
    match id {
        Some(i) => {
            out.push_str("\"id\":");
            out.push_str(i);
            out.push(',');
        }
        None if null_id => out.push_str("\"id\":null,"),
        None => {}
    }
}

fn result_response(id: &str, result: Value) -> String {
    let mut out = response_head(Some(id), false);
    out.push_str("\"result\":");
    out.push_str(&result.to_string());
    out.push('}');
    out
}

impl Session {
    /// A session over `dispatcher` with an agent view of `metadata`.
    ///
    /// ```
    /// use appfunctions::mcp::{McpConfig, Session};
    /// use appfunctions::{sync_handler, Dispatcher};
    /// let d = Dispatcher::new();
    /// d.register_function(r#"{"id": "ping", "result": "string"}"#, Some(sync_handler(|_| Ok(Some("\"pong\"".into())))))?;
    /// let s = Session::new(&d, McpConfig::default(), serde_json::json!({})).unwrap();
    /// s.handle(r#"{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    ///     "protocolVersion": "2025-06-18", "capabilities": {},
    ///     "clientInfo": {"name": "doc", "version": "1"}}}"#).unwrap();
    /// assert_eq!(s.handle(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#), None);
    /// let list = s.handle(r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#).unwrap();
    /// assert!(list.contains(r#""name":"ping""#), "{list}");
    /// let call = s.handle(r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
    ///                        "params": {"name": "ping", "arguments": {}}}"#).unwrap();
    /// assert!(call.contains("pong"), "{call}");
    /// # Ok::<(), appfunctions::Error>(())
    /// ```
    pub fn new(
        dispatcher: &Dispatcher,
        config: McpConfig,
        metadata: Value,
    ) -> Result<Arc<Session>, String> {
        let view = Arc::new(View::new(dispatcher, metadata)?);
        let s = Arc::new(Session {
            dispatcher: dispatcher.clone(),
            view: view.clone(),
            config,
            state: Mutex::new(SessionState {
                era: Era::Unknown,
                version: HANDSHAKE_REVISIONS[0],
                initialized: false,
                changed_before_initialized: false,
                in_flight: HashMap::new(),
                cancelled: Default::default(),
                subscriptions: Vec::new(),
            }),
            notify: Mutex::new(None),
            subscription: Mutex::new(None),
        });
        let weak = Arc::downgrade(&s);
        let changed: Arc<dyn Fn() + Send + Sync> = Arc::new(move || {
            if let Some(s) = weak.upgrade() {
                s.list_changed();
            }
        });
        view.subscribe(changed.clone());
        *s.subscription.lock() = Some(dispatcher.subscribe_changes(changed));
        Ok(s)
    }

    /// The session's agent view (its metadata can be changed through it).
    pub fn view(&self) -> &Arc<View> {
        &self.view
    }

    /// Writes a warning to the dispatcher's log.
    pub(crate) fn log_warn(&self, msg: &str) {
        self.dispatcher.log(crate::engine::log::LogLevel::Warn, msg);
    }

    /// The session's settings.
    pub fn config(&self) -> &McpConfig {
        &self.config
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(id) = self.subscription.lock().take() {
            self.dispatcher.unsubscribe(id);
        }
    }
}
