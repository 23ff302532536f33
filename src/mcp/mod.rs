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

pub mod stdio;

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

/// Server settings.
#[derive(Clone, Debug)]
pub struct McpConfig {
    /// `serverInfo.name`.
    pub server_name: String,
    /// `serverInfo.version`.
    pub server_version: String,
    /// `serverInfo.title`.
    pub server_title: Option<String>,
    /// Instructions returned by `initialize` and `server/discover` (in the handshake era
    /// the view's expanded toolkits' prompts are appended).
    pub instructions: Option<String>,
    /// Tools per `tools/list` page; 0 is everything in one page.
    pub page_size: usize,
    /// Largest accepted message, in bytes (default 8 MiB). A transport stops reading a
    /// longer one at this size and skips the rest.
    pub max_message_bytes: usize,
    /// Most `subscriptions/listen` streams open at once on a session (default 16).
    pub max_subscriptions: usize,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            server_name: "appfunctions".into(),
            server_version: env!("CARGO_PKG_VERSION").into(),
            server_title: None,
            instructions: None,
            page_size: 0,
            max_message_bytes: 8 << 20,
            max_subscriptions: 16,
        }
    }
}

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
    in_flight: HashMap<String, CancelToken>,
    cancelled: std::collections::HashSet<String>,
    subscriptions: Vec<Subscription>,
}

/// Sends a server-initiated message (a notification) to the transport.
pub type Notify = Arc<dyn Fn(&str) + Send + Sync>;

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
    match id {
        Some(i) => format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},"),
        None if null_id => "{\"jsonrpc\":\"2.0\",\"id\":null,".into(),
        None => "{\"jsonrpc\":\"2.0\",".into(),
    }
}

fn result_response(id: &str, result: Value) -> String {
    let mut out = response_head(Some(id), false);
    out.push_str("\"result\":");
    out.push_str(&result.to_string());
    out.push('}');
    out
}

/// Whether `rev` (a handshake revision) has a feature introduced in `since`.
fn at_least(rev: &str, since: &str) -> bool {
    rev == MODERN_REVISION || rev >= since
}

/// Reads the members named in `$field => "$key"` of a JSON object as raw text borrowed
/// from the input; other members are skipped without allocating, and of a repeated
/// member the last one counts (as a JSON parser building an object keeps it).
macro_rules! raw_members {
    ($(#[$doc:meta])* $name:ident { $($field:ident => $key:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Default)]
        struct $name<'a> {
            $($field: Option<&'a RawValue>,)*
        }
        impl<'de: 'a, 'a> Deserialize<'de> for $name<'a> {
            fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $name<'de>;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a JSON object")
                    }
                    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                        let mut out = $name::default();
                        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                            match &*key {
                                $($key => out.$field = Some(map.next_value::<&'de RawValue>()?),)*
                                _ => {
                                    map.next_value::<IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(out)
                    }
                }
                d.deserialize_map(V)
            }
        }
    };
}

raw_members!(
    /// The members of a JSON-RPC message we read.
    Message {
        jsonrpc => "jsonrpc",
        id => "id",
        method => "method",
        params => "params",
        result => "result",
        error => "error",
    }
);

raw_members!(
    /// The params members any method of ours reads.
    RawParams {
        meta => "_meta",
        protocol_version => "protocolVersion",
        cursor => "cursor",
        name => "name",
        arguments => "arguments",
        request_id => "requestId",
        notifications => "notifications",
    }
);

/// A request's params: what [`RawParams`] read, and whether they were an object at all
/// (anything else reads as no params).
#[derive(Default)]
struct Params<'a> {
    raw: RawParams<'a>,
    object: bool,
}

impl<'a> std::ops::Deref for Params<'a> {
    type Target = RawParams<'a>;
    fn deref(&self) -> &RawParams<'a> {
        &self.raw
    }
}

raw_members!(
    /// The request envelope of 2026-07-28.
    Meta {
        version => "io.modelcontextprotocol/protocolVersion",
        capabilities => "io.modelcontextprotocol/clientCapabilities",
    }
);

#[derive(Deserialize, Default)]
struct Filter {
    #[serde(rename = "toolsListChanged", default)]
    tools_list_changed: Option<IgnoredValueOr<bool>>,
}

/// A value of type `T`, or anything else (ignored): a filter field of the wrong type
/// subscribes to nothing rather than failing the request.
enum IgnoredValueOr<T> {
    Value(T),
    Other,
}

impl<'de> Deserialize<'de> for IgnoredValueOr<bool> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&RawValue>::deserialize(d)?;
        Ok(match raw.get() {
            "true" => IgnoredValueOr::Value(true),
            "false" => IgnoredValueOr::Value(false),
            _ => IgnoredValueOr::Other,
        })
    }
}

/// What kind of JSON value `text` (valid JSON) is, for messages.
fn json_kind(text: &str) -> &'static str {
    match text.as_bytes().first() {
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// The members every method shares: `_meta`, when present, is an object (the request
/// envelope of 2026-07-28 lives there).
fn validate_params(p: &Params<'_>) -> Result<(), String> {
    match p.meta {
        Some(m) if !is_object(m) => Err(format!(
            "params._meta must be an object, not {}",
            json_kind(m.get())
        )),
        _ => Ok(()),
    }
}

fn is_object(raw: &RawValue) -> bool {
    raw.get().starts_with('{')
}

fn as_string<'a>(raw: &'a RawValue) -> Option<Cow<'a, str>> {
    if raw.get().starts_with('"') {
        serde_json::from_str::<Cow<'a, str>>(raw.get()).ok()
    } else {
        None
    }
}

/// A request id as canonical JSON text: a string or an integer; `None` for anything else.
fn canonical_id(raw: &RawValue) -> Option<String> {
    let t = raw.get();
    if t.starts_with('"') {
        let s: String = serde_json::from_str(t).ok()?;
        return serde_json::to_string(&s).ok();
    }
    if t.starts_with(|c: char| c == '-' || c.is_ascii_digit())
        && t.bytes().all(|b| b == b'-' || b.is_ascii_digit())
    {
        if let Ok(n) = t.parse::<i64>() {
            return Some(n.to_string());
        }
        if let Ok(n) = t.parse::<u64>() {
            return Some(n.to_string());
        }
    }
    None
}

/// A batch's items, at most [`MAX_BATCH`] of them, borrowed.
struct Batch<'a>(Vec<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for Batch<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = Batch<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "an array of at most {MAX_BATCH} messages")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<&'de RawValue>()? {
                    if items.len() == MAX_BATCH {
                        return Err(de::Error::custom(format!(
                            "a batch holds at most {MAX_BATCH} messages"
                        )));
                    }
                    items.push(item);
                }
                Ok(Batch(items))
            }
        }
        d.deserialize_seq(V)
    }
}

/// Whether `text` is well-formed JSON (checked without building anything).
fn well_formed(text: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<IgnoredAny>(text).map(|_| ())
}

/// The deepest nesting of arrays and objects an MCP message may have: checked over the
/// whole message before it is parsed, so it holds for members the server skips as well.
pub(crate) const MAX_NESTING: usize = 128;

/// The byte offset where `text` nests arrays and objects deeper than `limit`, if it does
/// (brackets inside strings do not count; the text need not be valid JSON).
fn nests_deeper(text: &str, limit: usize) -> Option<usize> {
    let b = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() {
                    match b[i] {
                        b'\\' => i += 1,
                        b'"' => break,
                        _ => {}
                    }
                    i += 1;
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// `T` read from a JSON object only: serde's derived structs also take an array,
/// positionally, which no JSON-RPC message or MCP params may be.
struct ObjectOnly<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> de::Visitor<'de> for V<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
            .map(ObjectOnly)
    }
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

    /// Where server-initiated notifications go. `None` also ends every open
    /// `subscriptions/listen` stream silently (nothing can reach the client any more).
    pub fn set_notify(&self, n: Option<Notify>) {
        let none = n.is_none();
        *self.notify.lock() = n;
        if none {
            self.state.lock().subscriptions.clear();
        }
    }

    /// Ends every open `subscriptions/listen` stream, as a transport does when it closes:
    /// nothing more is sent for them.
    pub fn end_subscriptions(&self) {
        self.state.lock().subscriptions.clear();
    }

    /// Ends every open `subscriptions/listen` stream on the server's initiative (a
    /// shutdown that keeps the transport open): each gets its graceful closing result.
    pub fn close_subscriptions(&self) {
        let ids: Vec<String> = std::mem::take(&mut self.state.lock().subscriptions)
            .into_iter()
            .map(|s| s.id)
            .collect();
        let n = self.notify.lock().clone();
        if let Some(n) = n {
            for id in ids {
                let mut meta = json!({ META_SERVER: self.server_info() });
                meta[META_SUBSCRIPTION] = serde_json::from_str(&id).unwrap_or(Value::Null);
                n(&result_response(
                    &id,
                    json!({"resultType": "complete", "_meta": meta}),
                ));
            }
        }
    }

    /// How many `subscriptions/listen` streams are open.
    pub fn subscriptions(&self) -> usize {
        self.state.lock().subscriptions.len()
    }

    fn list_changed(&self) {
        let n = self.notify.lock().clone();
        let Some(n) = n else { return };
        let targets: Vec<String> = {
            let mut st = self.state.lock();
            match st.era {
                Era::Handshake if st.initialized => vec![String::new()],
                Era::Modern => {
                    let mut out = Vec::new();
                    for s in st.subscriptions.iter_mut().filter(|s| s.tools) {
                        if s.acked {
                            out.push(s.id.clone());
                        } else {
                            s.pending = true;
                        }
                    }
                    out
                }
                _ => Vec::new(),
            }
        };
        for t in targets {
            n(&list_changed_message(&t));
        }
    }

    /// Handles one message and blocks for a tool call's outcome. `None`: no response.
    pub fn handle(&self, message: &str) -> Option<String> {
        self.finish(self.handle_message(message))
    }

    /// [`Session::handle`] for a message as bytes: the length is checked before
    /// anything else (a message over the limit is neither validated nor parsed), then
    /// UTF-8 (invalid text is a parse error).
    pub fn handle_bytes(&self, message: &[u8]) -> Option<String> {
        self.finish(self.handle_message_bytes(message))
    }

    fn finish(&self, r: Reply) -> Option<String> {
        match r {
            Reply::Now(s) => Some(s),
            Reply::Nothing => None,
            Reply::Call(c) => self.run_call(c),
        }
    }

    /// [`Session::handle_message`] for bytes, checked as [`Session::handle_bytes`].
    pub fn handle_message_bytes(&self, message: &[u8]) -> Reply {
        if message.len() > self.config.max_message_bytes {
            return Reply::Now(self.oversize_error(message.len() as u64));
        }
        match std::str::from_utf8(message) {
            Ok(m) => self.handle_message(m),
            Err(e) => Reply::Now(self.error_response(
                None,
                PARSE_ERROR,
                &format!(
                    "parse error: the message is not valid UTF-8 (at byte {})",
                    e.valid_up_to()
                ),
                None,
            )),
        }
    }

    /// The error for a message of `len` bytes over the limit (also what a transport
    /// answers for a message it stopped reading).
    pub fn oversize_error(&self, len: u64) -> String {
        self.error_response(
            None,
            INVALID_REQUEST,
            &format!(
                "the message is {len} bytes, more than the limit of {}",
                self.config.max_message_bytes
            ),
            None,
        )
    }

    /// An error response with no request id (a message whose id could not be read): the
    /// revisions since 2025-11-25 leave `id` out; older ones (JSON-RPC 2.0) say `null`.
    pub fn error_without_id(&self, code: i64, message: &str) -> String {
        self.error_response(None, code, message, None)
    }

    fn error_response(
        &self,
        id: Option<&str>,
        code: i64,
        message: &str,
        data: Option<Value>,
    ) -> String {
        let null_id = {
            let st = self.state.lock();
            st.era == Era::Handshake && st.version < "2025-11-25"
        };
        let mut e = json!({"code": code, "message": message});
        if let Some(d) = data {
            e["data"] = d;
        }
        let mut out = response_head(id, null_id);
        out.push_str("\"error\":");
        out.push_str(&e.to_string());
        out.push('}');
        out
    }

    /// Handles one message; a tool call is returned to run (so a transport can keep
    /// reading while it runs).
    pub fn handle_message(&self, message: &str) -> Reply {
        if message.len() > self.config.max_message_bytes {
            return Reply::Now(self.oversize_error(message.len() as u64));
        }
        if let Some(at) = nests_deeper(message, MAX_NESTING) {
            return Reply::Now(self.error_response(
                None,
                INVALID_REQUEST,
                &format!(
                    "the message nests arrays and objects more than {MAX_NESTING} levels deep (at byte {at})"
                ),
                None,
            ));
        }
        if let Some(r) = self.fast_tools_call(message) {
            return r;
        }
        match message.trim_start().as_bytes().first() {
            Some(b'[') => self.batch(message),
            Some(b'{') => self.one(message),
            _ => Reply::Now(match well_formed(message) {
                Err(e) => {
                    self.error_response(None, PARSE_ERROR, &format!("parse error: {e}"), None)
                }
                Ok(()) => self.error_response(
                    None,
                    INVALID_REQUEST,
                    "a JSON-RPC message must be an object",
                    None,
                ),
            }),
        }
    }

    /// The hot path: a plain `tools/call` of an initialized handshake session, parsed
    /// without building a tree (the arguments stay raw text for the binder). Anything
    /// unusual returns `None` and takes the general path.
    fn fast_tools_call(&self, message: &str) -> Option<Reply> {
        #[derive(Deserialize)]
        struct FastParams<'a> {
            name: &'a str,
            #[serde(borrow, default)]
            arguments: Option<&'a RawValue>,
            #[serde(rename = "_meta", borrow, default)]
            meta: Option<&'a RawValue>,
        }
        #[derive(Deserialize)]
        struct Call<'a> {
            jsonrpc: &'a str,
            #[serde(borrow)]
            id: &'a RawValue,
            method: &'a str,
            #[serde(borrow)]
            params: ObjectOnly<FastParams<'a>>,
        }
        let ObjectOnly(c) = serde_json::from_str::<ObjectOnly<Call<'_>>>(message).ok()?;
        let ObjectOnly(p) = c.params;
        if c.jsonrpc != "2.0" || c.method != "tools/call" || p.meta.is_some() {
            return None;
        }
        let version = {
            let st = self.state.lock();
            if st.era != Era::Handshake {
                return None;
            }
            st.version
        };
        let id = canonical_id(c.id)?;
        let args = match p.arguments.map(RawValue::get) {
            None | Some("null") => None,
            Some(a) if a.starts_with('{') => Some(a.to_owned()),
            Some(_) => return None,
        };
        Some(self.start_call(id, p.name, args, false, version))
    }

    fn batch(&self, message: &str) -> Reply {
        let version = self.state.lock().version;
        let allowed = version == "2025-03-26" && self.state.lock().era == Era::Handshake;
        if !allowed {
            return Reply::Now(match well_formed(message) {
                Err(e) => {
                    self.error_response(None, PARSE_ERROR, &format!("parse error: {e}"), None)
                }
                Ok(()) => self.error_response(
                    None,
                    INVALID_REQUEST,
                    "JSON-RPC batches are not supported in this protocol revision",
                    None,
                ),
            });
        }
        let items = match serde_json::from_str::<Batch<'_>>(message) {
            Ok(b) => b.0,
            Err(e) if e.is_data() => {
                return Reply::Now(self.error_response(None, INVALID_REQUEST, &e.to_string(), None))
            }
            Err(e) => {
                return Reply::Now(self.error_response(
                    None,
                    PARSE_ERROR,
                    &format!("parse error: {e}"),
                    None,
                ))
            }
        };
        if items.is_empty() {
            return Reply::Now(self.error_response(
                None,
                INVALID_REQUEST,
                "an empty batch is not a valid request",
                None,
            ));
        }
        let out: Vec<String> = items
            .into_iter()
            .filter_map(|m| {
                let r = if m.get().starts_with('{') {
                    self.one(m.get())
                } else {
                    Reply::Now(self.error_response(
                        None,
                        INVALID_REQUEST,
                        "a JSON-RPC message must be an object",
                        None,
                    ))
                };
                self.finish(r)
            })
            .collect();
        if out.is_empty() {
            Reply::Nothing
        } else {
            Reply::Now(format!("[{}]", out.join(",")))
        }
    }

    /// One message that starts with `{`.
    fn one(&self, text: &str) -> Reply {
        let msg: Message<'_> = match serde_json::from_str(text) {
            Ok(m) => m,
            Err(e) if e.is_data() => {
                return Reply::Now(self.error_response(
                    None,
                    INVALID_REQUEST,
                    &format!("invalid request: {e}"),
                    None,
                ))
            }
            Err(e) => {
                return Reply::Now(self.error_response(
                    None,
                    PARSE_ERROR,
                    &format!("parse error: {e}"),
                    None,
                ))
            }
        };
        let id: Option<Option<String>> = msg.id.map(canonical_id);
        // the id to answer with: the request's when it is valid, else none
        let rid: Option<&str> = id.as_ref().and_then(|i| i.as_deref());
        if msg.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
            return match id {
                None if msg.method.is_some() => Reply::Nothing,
                _ => Reply::Now(self.error_response(
                    rid,
                    INVALID_REQUEST,
                    "\"jsonrpc\" must be \"2.0\"",
                    None,
                )),
            };
        }
        let method = match msg.method {
            Some(m) => match as_string(m) {
                Some(m) => m,
                None => {
                    return Reply::Now(self.error_response(
                        rid,
                        INVALID_REQUEST,
                        "\"method\" must be a string",
                        None,
                    ))
                }
            },
            None => {
                // a response or an error from the client: we send no requests, ignore it
                if msg.result.is_some() || msg.error.is_some() {
                    return Reply::Nothing;
                }
                return Reply::Now(self.error_response(
                    rid,
                    INVALID_REQUEST,
                    "a request needs a \"method\"",
                    None,
                ));
            }
        };
        let params = match msg.params {
            Some(p) if is_object(p) => serde_json::from_str::<RawParams<'_>>(p.get())
                .map(|raw| Params { raw, object: true })
                .map_err(|e| format!("invalid params: {e}")),
            // JSON-RPC allows an array; every MCP method's params are an object
            Some(p) if p.get() != "null" => Err(format!(
                "\"params\" must be an object, not {}",
                json_kind(p.get())
            )),
            _ => Ok(Params::default()),
        };
        let params = match params.and_then(|p| validate_params(&p).map(|()| p)) {
            Ok(p) => p,
            Err(why) => {
                return match rid {
                    Some(rid) => {
                        Reply::Now(self.error_response(Some(rid), INVALID_PARAMS, &why, None))
                    }
                    None if id.is_none() => Reply::Nothing,
                    None => Reply::Now(self.error_response(
                        None,
                        INVALID_REQUEST,
                        "\"id\" must be a string or an integer",
                        None,
                    )),
                }
            }
        };
        match id {
            None => {
                self.notification(&method, &params);
                Reply::Nothing
            }
            Some(None) => Reply::Now(self.error_response(
                None,
                INVALID_REQUEST,
                "\"id\" must be a string or an integer",
                None,
            )),
            Some(Some(id)) => self.request(id, &method, &params),
        }
    }

    fn notification(&self, method: &str, params: &Params<'_>) {
        match method {
            "notifications/initialized" => {
                let mut st = self.state.lock();
                if st.era == Era::Handshake {
                    st.initialized = true;
                }
            }
            "notifications/cancelled" => {
                let Some(key) = params.request_id.and_then(canonical_id) else {
                    return;
                };
                let token = {
                    let mut st = self.state.lock();
                    // a subscription stream ends: nothing more is sent for it
                    st.subscriptions.retain(|s| s.id != key);
                    let t = st.in_flight.get(&key).cloned();
                    if t.is_some() {
                        st.cancelled.insert(key);
                    }
                    t
                };
                if let Some(t) = token {
                    // the call ends on the completion pool: the thread that reads messages
                    // runs no host code for it
                    t.cancel_detached();
                }
            }
            // other notifications (progress, roots changed, ...) need nothing from us
            _ => {}
        }
    }

    fn envelope_version(params: &Params<'_>) -> Option<Result<String, &'static str>> {
        let meta = params.meta.filter(|m| is_object(m))?;
        let meta: Meta<'_> = serde_json::from_str(meta.get()).unwrap_or_default();
        let v = meta.version?;
        Some(match as_string(v) {
            Some(s) if meta.capabilities.is_some_and(is_object) => Ok(s.into_owned()),
            Some(_) => Err("the request envelope lacks io.modelcontextprotocol/clientCapabilities"),
            None => Err("io.modelcontextprotocol/protocolVersion must be a string"),
        })
    }

    fn server_info(&self) -> Value {
        let mut o = json!({"name": self.config.server_name, "version": self.config.server_version});
        if let Some(t) = &self.config.server_title {
            o["title"] = json!(t);
        }
        o
    }

    /// `listChanged` only when a change can reach the client: a transport for
    /// notifications is set.
    fn capabilities(&self) -> Value {
        json!({"tools": {"listChanged": self.notify.lock().is_some()}})
    }

    fn modern_result(&self, mut result: Value) -> Value {
        if let Value::Object(o) = &mut result {
            o.insert("resultType".into(), json!("complete"));
            let meta = o.entry("_meta").or_insert_with(|| json!({}));
            meta[META_SERVER] = self.server_info();
        }
        result
    }

    fn request(&self, id: String, method: &str, params: &Params<'_>) -> Reply {
        let envelope = Self::envelope_version(params);
        let era = self.state.lock().era;

        // the first request picks the era
        match (&envelope, era) {
            (Some(Err(why)), _) => {
                return Reply::Now(self.error_response(Some(&id), INVALID_PARAMS, why, None))
            }
            (Some(Ok(v)), _) if v != MODERN_REVISION => {
                return Reply::Now(self.error_response(
                    Some(&id),
                    UNSUPPORTED_VERSION,
                    &format!("protocol version {} is not supported", crate::model::types::quote_short(v)),
                    Some(json!({"supported": [MODERN_REVISION], "requested": v})),
                ))
            }
            (Some(Ok(_)), Era::Handshake) => {
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_REQUEST,
                    "this connection was initialized with the initialize handshake; send requests without the 2026-07-28 envelope",
                    None,
                ))
            }
            (Some(Ok(_)), Era::Unknown) if method != "initialize" => {
                let mut st = self.state.lock();
                st.era = Era::Modern;
                st.version = MODERN_REVISION;
            }
            (None, Era::Modern) if method != "initialize" => {
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_PARAMS,
                    "this connection uses the stateless 2026-07-28 revision: every request carries params._meta with io.modelcontextprotocol/protocolVersion \"2026-07-28\" and io.modelcontextprotocol/clientCapabilities (there is no initialize handshake)",
                    None,
                ))
            }
            _ => {}
        }
        let modern = matches!(envelope, Some(Ok(_)));

        match method {
            "ping" => Reply::Now(result_response(
                &id,
                if modern {
                    self.modern_result(json!({}))
                } else {
                    json!({})
                },
            )),
            "initialize" => self.initialize(id, params),
            "server/discover" if modern => {
                let mut r = json!({
                    "supportedVersions": [MODERN_REVISION],
                    "capabilities": self.capabilities(),
                    "ttlMs": 0,
                    "cacheScope": "private",
                });
                if let Some(i) = self.instructions() {
                    r["instructions"] = json!(i);
                }
                Reply::Now(result_response(&id, self.modern_result(r)))
            }
            "subscriptions/listen" if modern => self.listen(id, params),
            "tools/list" | "tools/call" => {
                if !modern {
                    let era = self.state.lock().era;
                    if era != Era::Handshake {
                        return Reply::Now(self.error_response(
                            Some(&id),
                            INVALID_REQUEST,
                            "the session is not initialized: send initialize first (or use the 2026-07-28 request envelope)",
                            None,
                        ));
                    }
                }
                let version = if modern {
                    MODERN_REVISION
                } else {
                    self.state.lock().version
                };
                if method == "tools/list" {
                    Reply::Now(self.tools_list(&id, params, modern, version))
                } else {
                    self.tools_call(id, params, modern, version)
                }
            }
            _ => Reply::Now(self.error_response(
                Some(&id),
                METHOD_NOT_FOUND,
                &format!(
                    "method not found: {}",
                    crate::model::types::quote_short(method)
                ),
                None,
            )),
        }
    }

    /// `subscriptions/listen` (2026-07-28): acknowledges first, then sends
    /// `notifications/tools/list_changed` on the stream until the client cancels it or
    /// the transport closes. No response now: the response ends the stream.
    fn listen(&self, id: String, params: &Params<'_>) -> Reply {
        let Some(n) = self.notify.lock().clone() else {
            return Reply::Now(self.error_response(
                Some(&id),
                METHOD_NOT_FOUND,
                "subscriptions/listen is not available: this server's host has no way to send notifications (tools.listChanged is false)",
                None,
            ));
        };
        let Some(filter) = params.notifications.filter(|f| is_object(f)) else {
            return Reply::Now(self.error_response(
                Some(&id),
                INVALID_PARAMS,
                "subscriptions/listen needs params.notifications (an object)",
                None,
            ));
        };
        let filter: Filter = match serde_json::from_str(filter.get()) {
            Ok(f) => f,
            Err(e) => {
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_PARAMS,
                    &format!("params.notifications: {e}"),
                    None,
                ))
            }
        };
        let tools = matches!(filter.tools_list_changed, Some(IgnoredValueOr::Value(true)));
        {
            let mut st = self.state.lock();
            if st.in_flight.contains_key(&id) || st.subscriptions.iter().any(|s| s.id == id) {
                drop(st);
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_REQUEST,
                    "a request with this id is already in flight",
                    None,
                ));
            }
            if st.subscriptions.len() >= self.config.max_subscriptions {
                drop(st);
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_REQUEST,
                    &format!(
                        "too many subscriptions: at most {} streams may be open at once",
                        self.config.max_subscriptions
                    ),
                    None,
                ));
            }
            st.subscriptions.push(Subscription {
                id: id.clone(),
                tools,
                acked: false,
                pending: false,
            });
        }
        let honored = if tools {
            "{\"toolsListChanged\":true}"
        } else {
            "{}"
        };
        n(&format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{{\"_meta\":{{\"{META_SUBSCRIPTION}\":{id}}},\"notifications\":{honored}}}}}"
        ));
        let pending = {
            let mut st = self.state.lock();
            match st.subscriptions.iter_mut().find(|s| s.id == id) {
                Some(s) => {
                    s.acked = true;
                    std::mem::take(&mut s.pending)
                }
                None => false,
            }
        };
        if pending {
            n(&list_changed_message(&id));
        }
        Reply::Nothing
    }

    fn instructions(&self) -> Option<String> {
        let view = self.view.instructions();
        match (&self.config.instructions, view.is_empty()) {
            (Some(a), false) => Some(format!("{a}\n\n{view}")),
            (Some(a), true) => Some(a.clone()),
            (None, false) => Some(view),
            (None, true) => None,
        }
    }

    fn initialize(&self, id: String, params: &Params<'_>) -> Reply {
        let requested = params.protocol_version.and_then(as_string);
        let mut st = self.state.lock();
        match st.era {
            Era::Modern => {
                drop(st);
                // the revision's UnsupportedProtocolVersionError names what was asked for
                let asked = requested.as_deref().unwrap_or("");
                return Reply::Now(self.error_response(
                    Some(&id),
                    UNSUPPORTED_VERSION,
                    &format!(
                        "this connection uses the stateless 2026-07-28 revision; initialize (protocol version {}) is not used",
                        crate::model::types::quote_short(asked)
                    ),
                    Some(json!({"supported": [MODERN_REVISION], "requested": asked})),
                ));
            }
            Era::Handshake => {
                let version = st.version;
                drop(st);
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_REQUEST,
                    &format!(
                        "this connection is already initialized (protocol version {version}): initialize is sent once per connection"
                    ),
                    None,
                ));
            }
            Era::Unknown => {}
        }
        let Some(requested) = requested else {
            drop(st);
            return Reply::Now(self.error_response(
                Some(&id),
                INVALID_PARAMS,
                "initialize needs params.protocolVersion (a string)",
                None,
            ));
        };
        let version = HANDSHAKE_REVISIONS
            .iter()
            .find(|v| **v == requested)
            .copied()
            .unwrap_or(HANDSHAKE_REVISIONS[0]);
        st.era = Era::Handshake;
        st.version = version;
        drop(st);
        let mut server_info = self.server_info();
        if !at_least(version, "2025-06-18") {
            if let Value::Object(o) = &mut server_info {
                o.remove("title");
            }
        }
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": self.capabilities(),
            "serverInfo": server_info,
        });
        if let Some(i) = self.instructions() {
            result["instructions"] = json!(i);
        }
        Reply::Now(result_response(&id, result))
    }

    fn mode(modern: bool) -> ToolkitMode {
        if modern {
            ToolkitMode::Routing
        } else {
            ToolkitMode::Expanding
        }
    }

    fn tools_list(&self, id: &str, params: &Params<'_>, modern: bool, version: &str) -> String {
        let tools = self.view.mcp_tools_in(Self::mode(modern));
        let start = match params.cursor {
            None => 0,
            Some(c) if c.get() == "null" => 0,
            Some(c) => match as_string(c) {
                Some(c) => match decode_cursor(&c) {
                    Some(n) if n <= tools.len() => n,
                    _ => {
                        return self.error_response(
                            Some(id),
                            INVALID_PARAMS,
                            "invalid cursor",
                            None,
                        )
                    }
                },
                None => {
                    return self.error_response(
                        Some(id),
                        INVALID_PARAMS,
                        "the cursor must be a string",
                        None,
                    )
                }
            },
        };
        let end = if self.config.page_size == 0 {
            tools.len()
        } else {
            (start + self.config.page_size).min(tools.len())
        };
        let page: Vec<Value> = tools[start..end]
            .iter()
            .map(|t| trim_tool(t.clone(), version))
            .collect();
        let mut result = json!({"tools": page});
        if end < tools.len() {
            result["nextCursor"] = json!(encode_cursor(end));
        }
        if modern {
            result["ttlMs"] = json!(0);
            result["cacheScope"] = json!("private");
            result = self.modern_result(result);
        }
        result_response(id, result)
    }

    fn tools_call(
        &self,
        id: String,
        params: &Params<'_>,
        modern: bool,
        version: &'static str,
    ) -> Reply {
        if !params.object {
            return Reply::Now(self.error_response(
                Some(&id),
                INVALID_PARAMS,
                "tools/call needs params {\"name\", \"arguments\"}",
                None,
            ));
        }
        let Some(name) = params.name.and_then(as_string) else {
            return Reply::Now(self.error_response(
                Some(&id),
                INVALID_PARAMS,
                "tools/call needs params.name (a string)",
                None,
            ));
        };
        let args = match params.arguments.map(RawValue::get) {
            None | Some("null") => None,
            Some(a) if a.starts_with('{') => Some(a.to_owned()),
            Some(_) => {
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_PARAMS,
                    "params.arguments must be an object",
                    None,
                ))
            }
        };
        self.start_call(id, &name, args, modern, version)
    }

    fn unknown_tool(&self, id: &str, name: &str) -> String {
        self.error_response(
            Some(id),
            INVALID_PARAMS,
            &format!("unknown tool: {}", crate::model::types::quote_short(name)),
            None,
        )
    }

    /// The common part of a tools/call: the tool must be one the client can see now
    /// (else it is unknown, whatever the reason), the id must not be in flight.
    fn start_call(
        &self,
        id: String,
        name: &str,
        args: Option<String>,
        modern: bool,
        version: &'static str,
    ) -> Reply {
        if !self.visible(name, modern) {
            return Reply::Now(self.unknown_tool(&id, name));
        }
        let token = CancelToken::new();
        {
            let mut st = self.state.lock();
            if st.in_flight.contains_key(&id) || st.subscriptions.iter().any(|s| s.id == id) {
                drop(st);
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_REQUEST,
                    "a request with this id is already in flight",
                    None,
                ));
            }
            st.in_flight.insert(id.clone(), token.clone());
        }
        Reply::Call(PendingCall {
            id,
            name: name.to_owned(),
            args,
            token,
            modern,
            version,
        })
    }

    /// Whether `name` is in the tool list the client would get now.
    fn visible(&self, name: &str, modern: bool) -> bool {
        self.view.shows(name, Self::mode(modern))
    }

    /// Answers a call the transport will not run (its queue is full) with a tool error,
    /// and forgets it.
    pub fn refuse_call(&self, c: PendingCall, why: &str) -> String {
        {
            let mut st = self.state.lock();
            st.in_flight.remove(&c.id);
            st.cancelled.remove(&c.id);
        }
        let mut out = response_head(Some(&c.id), false);
        out.push_str("\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
        crate::model::binding::write_json_str(&mut out, &format!("LimitExceeded: {why}"));
        out.push_str("}],\"isError\":true");
        self.push_modern_tail(&mut out, c.modern);
        out.push_str("}}");
        out
    }

    fn push_modern_tail(&self, out: &mut String, modern: bool) {
        if modern {
            out.push_str(",\"resultType\":\"complete\",\"_meta\":{\"");
            out.push_str(META_SERVER);
            out.push_str("\":");
            out.push_str(&self.server_info().to_string());
            out.push('}');
        }
    }

    /// Runs a tool call (blocking) and returns its response, or `None` when the client
    /// cancelled it.
    pub fn run_call(&self, c: PendingCall) -> Option<String> {
        let inv = Invocation::new(&c.name).cancel_token(&c.token);
        let vo = self
            .view
            .execute_tool(&c.name, c.args.as_deref(), &inv, Self::mode(c.modern));
        let cancelled = {
            let mut st = self.state.lock();
            st.in_flight.remove(&c.id);
            st.cancelled.remove(&c.id)
        };
        if cancelled {
            return None;
        }
        // the tool stopped being visible between the request and its turn
        let Some(vo) = vo else {
            return Some(self.unknown_tool(&c.id, &c.name));
        };
        let o = &vo.outcome;
        // written straight around the result JSON, as the outcome is: no tree
        let mut texts: Vec<Cow<'_, str>> = Vec::with_capacity(3);
        let mut structured: Option<(bool, &str)> = None;
        let ok = o.is_success();
        if ok {
            let raw = o.result.as_deref().unwrap_or("null");
            if vo.void_result {
                texts.push(self.view.confirmation().into());
            } else if raw.starts_with('"') {
                texts.push(
                    serde_json::from_str::<String>(raw)
                        .map(Into::into)
                        .unwrap_or_else(|_| raw.into()),
                );
            } else {
                texts.push(raw.into());
            }
            if let Some(d) = &o.dialog {
                if !vo.void_result || *d != self.view.confirmation() {
                    texts.push(d.as_str().into());
                }
            }
            if let Some(i) = &vo.instructions {
                texts.push(i.as_str().into());
            }
            if at_least(c.version, "2025-06-18") {
                let snap = self.dispatcher.snapshot();
                match vo.ran.as_deref().and_then(|f| snap.find(f)) {
                    Some(e) => {
                        if let Some(wrap) = e.mcp_wraps(&snap.types) {
                            structured = Some((wrap, raw));
                        }
                    }
                    // an expanding container's output schema is a string: wrapped; a
                    // routing container has none
                    None if !c.modern && snap.toolkit(&c.name).is_some() => {
                        structured = Some((true, raw))
                    }
                    None => {}
                }
            }
        } else {
            let code = o.error_code.map(|c| c.as_str()).unwrap_or("openApp");
            let msg = o.message.as_deref().unwrap_or("");
            let hint = match o.error_code {
                Some(crate::model::error::ErrorCode::InvalidArgument) => {
                    " Fix the arguments and call the tool again."
                }
                Some(crate::model::error::ErrorCode::EntityNotFound) => {
                    " Use the matching search tool to find a valid id."
                }
                _ => "",
            };
            texts.push(format!("{code}: {msg}{hint}").into());
            if let Some(d) = &o.dialog {
                texts.push(d.as_str().into());
            }
        }
        let mut out =
            String::with_capacity(128 + texts.iter().map(|t| t.len() + 32).sum::<usize>() * 2);
        out.push_str(&response_head(Some(&c.id), false));
        out.push_str("\"result\":{\"content\":[");
        for (i, t) in texts.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"type\":\"text\",\"text\":");
            crate::model::binding::write_json_str(&mut out, t);
            out.push('}');
        }
        out.push(']');
        if let Some((wrap, raw)) = structured {
            out.push_str(",\"structuredContent\":");
            if wrap {
                out.push_str("{\"result\":");
                out.push_str(raw);
                out.push('}');
            } else {
                out.push_str(raw);
            }
        }
        out.push_str(if ok {
            ",\"isError\":false"
        } else {
            ",\"isError\":true"
        });
        self.push_modern_tail(&mut out, c.modern);
        out.push_str("}}");
        Some(out)
    }
}

/// `notifications/tools/list_changed`: plain (handshake era, `subscription` empty) or on
/// the `subscriptions/listen` stream whose id is `subscription`.
fn list_changed_message(subscription: &str) -> String {
    if subscription.is_empty() {
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.into()
    } else {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{{\"_meta\":{{\"{META_SUBSCRIPTION}\":{subscription}}}}}}}"
        )
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(id) = self.subscription.lock().take() {
            self.dispatcher.unsubscribe(id);
        }
    }
}

/// Drops the fields a revision does not know.
fn trim_tool(mut t: Value, version: &str) -> Value {
    if let Value::Object(o) = &mut t {
        if !at_least(version, "2025-06-18") {
            o.remove("title");
            o.remove("outputSchema");
        }
        if !at_least(version, "2025-03-26") {
            o.remove("annotations");
        }
    }
    t
}

fn encode_cursor(n: usize) -> String {
    format!("af1:{n:x}")
}

fn decode_cursor(c: &str) -> Option<usize> {
    usize::from_str_radix(c.strip_prefix("af1:")?, 16).ok()
}
