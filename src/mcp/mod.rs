//! An MCP server for tools, over any transport: one JSON-RPC message in, at most one out.
//!
//! - Connection: `initialize` (revisions 2024-11-05 … 2025-11-25, negotiated: the
//!   client's revision when we speak it, else our newest), `notifications/initialized`,
//!   `ping`; and the 2026-07-28 revision's `server/discover` with its stateless
//!   per-request envelope (`params._meta`). The first request picks the era.
//! - Tools: `tools/list` (opaque cursors, configurable page size), `tools/call` through
//!   the full pipeline with platform `other`, through the session's agent view
//!   (collapsed toolkits, conditions, templated descriptions).
//! - Errors: a failed call is an `isError` result whose text lets a model correct
//!   itself; unknown tools and malformed requests are JSON-RPC errors.
//! - `notifications/cancelled` cancels the running call (and suppresses its response).
//! - `notifications/tools/list_changed` goes to the host's transport when the registry
//!   or the view changes.

pub mod stdio;

use crate::call::Invocation;
use crate::cancel::CancelToken;
use crate::dispatcher::Dispatcher;

use crate::view::View;
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The revisions with the `initialize` handshake, newest first.
pub const HANDSHAKE_REVISIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The stateless revision.
pub const MODERN_REVISION: &str = "2026-07-28";

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER: &str = "io.modelcontextprotocol/serverInfo";

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// Server settings.
#[derive(Clone, Debug)]
pub struct McpConfig {
    pub server_name: String,
    pub server_version: String,
    pub server_title: Option<String>,
    /// Instructions returned by `initialize` (the view's expanded toolkits' prompts are
    /// appended).
    pub instructions: Option<String>,
    /// Tools per `tools/list` page; 0 is everything in one page.
    pub page_size: usize,
    /// Largest accepted message, in bytes.
    pub max_message_bytes: usize,
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
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Era {
    Unknown,
    Handshake,
    Modern,
}

struct SessionState {
    era: Era,
    version: &'static str,
    initialized: bool,
    in_flight: HashMap<String, CancelToken>,
    cancelled: std::collections::HashSet<String>,
}

/// Sends a server-initiated message (a notification) to the transport.
pub type Notify = Arc<dyn Fn(&str) + Send + Sync>;

/// One MCP session: its negotiation state, its agent view, the calls in flight.
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
    /// Nothing to send (a notification, a response, an ignored message).
    Nothing,
    /// A tool call: run it with [`Session::run_call`] (possibly on a worker) and send
    /// what it returns, if anything.
    Call(PendingCall),
}

/// A `tools/call` ready to run.
pub struct PendingCall {
    id: Value,
    key: String,
    name: String,
    args: Option<String>,
    token: CancelToken,
    modern: bool,
    version: &'static str,
}

fn error_response(id: &Value, code: i64, message: &str, data: Option<Value>) -> String {
    let mut e = json!({"code": code, "message": message});
    if let Some(d) = data {
        e["data"] = d;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": e}).to_string()
}

fn result_response(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

/// Whether `rev` (a handshake revision) has a feature introduced in `since`.
fn at_least(rev: &str, since: &str) -> bool {
    rev == MODERN_REVISION || rev >= since
}

impl Session {
    /// A session over `dispatcher` with an agent view of `metadata`.
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
        self.dispatcher.log(crate::log::LogLevel::Warn, msg);
    }

    /// Where server-initiated notifications go.
    pub fn set_notify(&self, n: Option<Notify>) {
        *self.notify.lock() = n;
    }

    fn list_changed(&self) {
        let ok = {
            let st = self.state.lock();
            st.era == Era::Handshake && st.initialized
        };
        if !ok {
            return;
        }
        let n = self.notify.lock().clone();
        if let Some(n) = n {
            n(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#);
        }
    }

    /// Handles one message and blocks for a tool call's outcome. `None`: no response.
    pub fn handle(&self, message: &str) -> Option<String> {
        match self.handle_message(message) {
            Reply::Now(s) => Some(s),
            Reply::Nothing => None,
            Reply::Call(c) => self.run_call(c),
        }
    }

    /// Handles one message; a tool call is returned to run (so a transport can keep
    /// reading while it runs).
    pub fn handle_message(&self, message: &str) -> Reply {
        if message.len() > self.config.max_message_bytes {
            return Reply::Now(error_response(
                &Value::Null,
                INVALID_REQUEST,
                &format!(
                    "the message is {} bytes, more than the limit of {}",
                    message.len(),
                    self.config.max_message_bytes
                ),
                None,
            ));
        }
        if let Some(r) = self.fast_tools_call(message) {
            return r;
        }
        let v: Value = match serde_json::from_str(message) {
            Ok(v) => v,
            Err(e) => {
                return Reply::Now(error_response(
                    &Value::Null,
                    PARSE_ERROR,
                    &format!("parse error: {e}"),
                    None,
                ))
            }
        };
        match v {
            Value::Array(items) => self.batch(items),
            other => self.one(other),
        }
    }

    /// The hot path: a plain `tools/call` of an initialized handshake session, parsed
    /// without building a tree (the arguments stay raw text for the binder). Anything
    /// unusual returns `None` and takes the general path.
    fn fast_tools_call(&self, message: &str) -> Option<Reply> {
        use serde_json::value::RawValue;
        #[derive(serde::Deserialize)]
        struct Params<'a> {
            name: &'a str,
            #[serde(borrow, default)]
            arguments: Option<&'a RawValue>,
            #[serde(rename = "_meta", borrow, default)]
            meta: Option<&'a RawValue>,
        }
        #[derive(serde::Deserialize)]
        struct Call<'a> {
            jsonrpc: &'a str,
            #[serde(borrow)]
            id: &'a RawValue,
            method: &'a str,
            #[serde(borrow)]
            params: Params<'a>,
        }
        let c: Call<'_> = serde_json::from_str(message).ok()?;
        if c.jsonrpc != "2.0" || c.method != "tools/call" || c.params.meta.is_some() {
            return None;
        }
        let version = {
            let st = self.state.lock();
            if st.era != Era::Handshake {
                return None;
            }
            st.version
        };
        let id_text = c.id.get();
        let integer =
            id_text.bytes().all(|b| b.is_ascii_digit() || b == b'-') && !id_text.is_empty();
        if !(id_text.starts_with('"') || integer) {
            return None;
        }
        let id: Value = serde_json::from_str(id_text).ok()?;
        if matches!(&id, Value::Number(n) if !(n.is_i64() || n.is_u64())) {
            return None;
        }
        let args = match c.params.arguments.map(RawValue::get) {
            None | Some("null") => None,
            Some(a) if a.starts_with('{') => Some(a.to_owned()),
            Some(_) => return None,
        };
        Some(self.start_call(id, c.params.name, args, false, version))
    }

    fn batch(&self, items: Vec<Value>) -> Reply {
        let version = self.state.lock().version;
        if version != "2025-03-26" || items.is_empty() {
            return Reply::Now(error_response(
                &Value::Null,
                INVALID_REQUEST,
                "JSON-RPC batches are not supported in this protocol revision",
                None,
            ));
        }
        let out: Vec<Value> = items
            .into_iter()
            .filter_map(|m| {
                let r = match self.one(m) {
                    Reply::Now(s) => Some(s),
                    Reply::Nothing => None,
                    Reply::Call(c) => self.run_call(c),
                };
                r.and_then(|s| serde_json::from_str(&s).ok())
            })
            .collect();
        if out.is_empty() {
            Reply::Nothing
        } else {
            Reply::Now(Value::Array(out).to_string())
        }
    }

    fn one(&self, v: Value) -> Reply {
        let Value::Object(mut msg) = v else {
            return Reply::Now(error_response(
                &Value::Null,
                INVALID_REQUEST,
                "a JSON-RPC message must be an object",
                None,
            ));
        };
        let id = msg.remove("id");
        let valid_id = match &id {
            None => true,
            Some(Value::String(_)) => true,
            Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
            _ => false,
        };
        if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            let rid = if valid_id {
                id.clone().unwrap_or(Value::Null)
            } else {
                Value::Null
            };
            return match &id {
                None if msg.contains_key("method") => Reply::Nothing,
                _ => Reply::Now(error_response(
                    &rid,
                    INVALID_REQUEST,
                    "\"jsonrpc\" must be \"2.0\"",
                    None,
                )),
            };
        }
        let method = match msg.get("method") {
            Some(Value::String(m)) => m.clone(),
            Some(_) => {
                return Reply::Now(error_response(
                    &if valid_id {
                        id.unwrap_or(Value::Null)
                    } else {
                        Value::Null
                    },
                    INVALID_REQUEST,
                    "\"method\" must be a string",
                    None,
                ))
            }
            None => {
                // a response or an error from the client: we send no requests, ignore it
                if msg.contains_key("result") || msg.contains_key("error") {
                    return Reply::Nothing;
                }
                return Reply::Now(error_response(
                    &if valid_id {
                        id.unwrap_or(Value::Null)
                    } else {
                        Value::Null
                    },
                    INVALID_REQUEST,
                    "a request needs a \"method\"",
                    None,
                ));
            }
        };
        if !valid_id {
            return Reply::Now(error_response(
                &Value::Null,
                INVALID_REQUEST,
                "\"id\" must be a string or an integer",
                None,
            ));
        }
        let params = msg.remove("params");
        match id {
            None => {
                self.notification(&method, params.as_ref());
                Reply::Nothing
            }
            Some(id) => self.request(id, &method, params),
        }
    }

    fn notification(&self, method: &str, params: Option<&Value>) {
        match method {
            "notifications/initialized" => {
                let mut st = self.state.lock();
                if st.era == Era::Handshake {
                    st.initialized = true;
                }
            }
            "notifications/cancelled" => {
                let Some(rid) = params.and_then(|p| p.get("requestId")) else {
                    return;
                };
                let key = id_key(rid);
                let token = {
                    let mut st = self.state.lock();
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

    fn envelope_version(params: Option<&Value>) -> Option<Result<String, &'static str>> {
        let meta = params?.get("_meta")?.as_object()?;
        let v = meta.get(META_VERSION)?;
        Some(match v.as_str() {
            Some(s) if meta.get(META_CAPS).is_some_and(Value::is_object) => Ok(s.to_owned()),
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

    fn capabilities(&self) -> Value {
        json!({"tools": {"listChanged": true}})
    }

    fn modern_result(&self, mut result: Value) -> Value {
        if let Value::Object(o) = &mut result {
            o.insert("resultType".into(), json!("complete"));
            let meta = o.entry("_meta").or_insert_with(|| json!({}));
            meta[META_SERVER] = self.server_info();
        }
        result
    }

    fn request(&self, id: Value, method: &str, params: Option<Value>) -> Reply {
        let envelope = Self::envelope_version(params.as_ref());
        let era = self.state.lock().era;

        // the first request picks the era
        match (&envelope, era) {
            (Some(Err(why)), _) => return Reply::Now(error_response(&id, INVALID_PARAMS, why, None)),
            (Some(Ok(v)), _) if v != MODERN_REVISION => {
                return Reply::Now(error_response(
                    &id,
                    UNSUPPORTED_VERSION,
                    &format!("protocol version {v} is not supported"),
                    Some(json!({"supported": [MODERN_REVISION], "requested": v})),
                ))
            }
            (Some(Ok(_)), Era::Handshake) => {
                return Reply::Now(error_response(
                    &id,
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
            "initialize" => self.initialize(id, params.as_ref()),
            "server/discover" if modern => Reply::Now(result_response(
                &id,
                self.modern_result(json!({
                    "supportedVersions": [MODERN_REVISION],
                    "capabilities": self.capabilities(),
                    "instructions": self.instructions(),
                    "ttlMs": 0,
                    "cacheScope": "private",
                })),
            )),
            "tools/list" | "tools/call" => {
                if !modern {
                    let st = self.state.lock();
                    if st.era != Era::Handshake {
                        return Reply::Now(error_response(
                            &id,
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
                    Reply::Now(self.tools_list(&id, params.as_ref(), modern, version))
                } else {
                    self.tools_call(id, params, modern, version)
                }
            }
            _ => Reply::Now(error_response(
                &id,
                METHOD_NOT_FOUND,
                &format!("method not found: {method}"),
                None,
            )),
        }
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

    fn initialize(&self, id: Value, params: Option<&Value>) -> Reply {
        let mut st = self.state.lock();
        if st.era == Era::Modern {
            return Reply::Now(error_response(
                &id,
                UNSUPPORTED_VERSION,
                "this connection uses the stateless 2026-07-28 revision; initialize is not used",
                Some(json!({"supported": [MODERN_REVISION]})),
            ));
        }
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str);
        let Some(requested) = requested else {
            return Reply::Now(error_response(
                &id,
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

    fn tools_list(
        &self,
        id: &Value,
        params: Option<&Value>,
        modern: bool,
        version: &str,
    ) -> String {
        let tools = self.view.mcp_tools();
        let start = match params.and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => match decode_cursor(c) {
                Some(n) if n <= tools.len() => n,
                _ => return error_response(id, INVALID_PARAMS, "invalid cursor", None),
            },
            Some(_) => {
                return error_response(id, INVALID_PARAMS, "the cursor must be a string", None)
            }
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
        id: Value,
        params: Option<Value>,
        modern: bool,
        version: &'static str,
    ) -> Reply {
        let Some(Value::Object(p)) = params else {
            return Reply::Now(error_response(
                &id,
                INVALID_PARAMS,
                "tools/call needs params {\"name\", \"arguments\"}",
                None,
            ));
        };
        let Some(name) = p.get("name").and_then(Value::as_str) else {
            return Reply::Now(error_response(
                &id,
                INVALID_PARAMS,
                "tools/call needs params.name (a string)",
                None,
            ));
        };
        let args = match p.get("arguments") {
            None | Some(Value::Null) => None,
            Some(a @ Value::Object(_)) => Some(a.to_string()),
            Some(_) => {
                return Reply::Now(error_response(
                    &id,
                    INVALID_PARAMS,
                    "params.arguments must be an object",
                    None,
                ))
            }
        };
        self.start_call(id, name, args, modern, version)
    }

    /// The common part of a tools/call: the tool must exist, the id must not be in
    /// flight.
    fn start_call(
        &self,
        id: Value,
        name: &str,
        args: Option<String>,
        modern: bool,
        version: &'static str,
    ) -> Reply {
        let snap = self.dispatcher.snapshot();
        if snap.find(name).is_none() && snap.toolkit(name).is_none() {
            return Reply::Now(error_response(
                &id,
                INVALID_PARAMS,
                &format!("unknown tool: {}", crate::types::quote_short(name)),
                None,
            ));
        }
        let key = id_key(&id);
        let token = CancelToken::new();
        {
            let mut st = self.state.lock();
            if st.in_flight.contains_key(&key) {
                return Reply::Now(error_response(
                    &id,
                    INVALID_REQUEST,
                    "a request with this id is already in flight",
                    None,
                ));
            }
            st.in_flight.insert(key.clone(), token.clone());
        }
        Reply::Call(PendingCall {
            id,
            key,
            name: name.to_owned(),
            args,
            token,
            modern,
            version,
        })
    }

    /// Runs a tool call (blocking) and returns its response, or `None` when the client
    /// cancelled it.
    pub fn run_call(&self, c: PendingCall) -> Option<String> {
        let inv = Invocation::new(&c.name).cancel_token(&c.token);
        let vo = self.view.execute_with(&c.name, c.args.as_deref(), &inv);
        let cancelled = {
            let mut st = self.state.lock();
            st.in_flight.remove(&c.key);
            st.cancelled.remove(&c.key)
        };
        if cancelled {
            return None;
        }
        let o = &vo.outcome;
        // written straight around the result JSON, as the outcome is: no tree
        let mut texts: Vec<std::borrow::Cow<'_, str>> = Vec::with_capacity(3);
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
                match snap.find(&c.name) {
                    Some(e) => {
                        if let Some(wrap) = e.mcp_wraps(&snap.types) {
                            structured = Some((wrap, raw));
                        }
                    }
                    // a container's output schema is a string: wrapped
                    None if snap.toolkit(&c.name).is_some() => structured = Some((true, raw)),
                    None => {}
                }
            }
        } else {
            let code = o.error_code.map(|c| c.as_str()).unwrap_or("openApp");
            let msg = o.message.as_deref().unwrap_or("");
            let hint = match o.error_code {
                Some(crate::error::ErrorCode::InvalidArgument) => {
                    " Fix the arguments and call the tool again."
                }
                Some(crate::error::ErrorCode::EntityNotFound) => {
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
        out.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
        out.push_str(&c.id.to_string());
        out.push_str(",\"result\":{\"content\":[");
        for (i, t) in texts.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"type\":\"text\",\"text\":");
            crate::binding::write_json_str(&mut out, t);
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
        if c.modern {
            out.push_str(",\"resultType\":\"complete\",\"_meta\":{\"");
            out.push_str(META_SERVER);
            out.push_str("\":");
            out.push_str(&self.server_info().to_string());
            out.push('}');
        }
        out.push_str("}}");
        Some(out)
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
