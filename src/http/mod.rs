//! MCP over Streamable HTTP, both eras, and the debug page's JSON API, as a
//! transport-neutral exchange: a request's method, path, headers and body in; a status,
//! headers and a body or an event stream out. A host's web server (ASP.NET Core, a C
//! program's own server) carries the bytes; every rule of the transport lives here.
//!
//! - Handshake era (2025-03-26 … 2025-11-25): `POST` carries one message (a batch in
//!   2025-03-26) and answers JSON, or an SSE stream for a `tools/call`; `initialize` mints
//!   an `Mcp-Session-Id` that every later request must carry; `GET` opens the session's
//!   server stream (`notifications/tools/list_changed`); `DELETE` ends the session;
//!   `MCP-Protocol-Version` is checked against the negotiated revision.
//! - 2026-07-28: stateless; each `POST` stands alone (its envelope in `params._meta`, its
//!   headers checked against its body); `subscriptions/listen` answers a long-lived SSE
//!   stream; closing a stream cancels its request.
//! - Security from the start: `Origin` validated, an authorization hook (a bearer token
//!   at least), bodies bounded (413), sessions bounded (the oldest idle one is evicted,
//!   else the new one is refused), long-lived streams and calls bounded, idle sessions
//!   expired. See docs/http.md.
//!
//! The spec text quoted in comments is from the 2026-07-28 pages
//! (`basic/transports/streamable-http.mdx`, `basic/versioning.mdx`) unless it names
//! the 2025-11-25 transport page.

pub mod debug;
pub mod stream;
mod types;

use crate::engine::dispatcher::Dispatcher;
use crate::engine::threads::{Pool, MCP_WORKERS_MAX};
use crate::engine::timer::{self, Expire};
use crate::mcp::{Reply, Session, HANDSHAKE_REVISIONS, MODERN_REVISION};
use parking_lot::{Mutex, RwLock};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

pub use stream::{EventStream, Next};
pub use types::{Authorize, Body, HttpConfig, Request, Response};

/// JSON-RPC error codes the transport answers with.
const INVALID_REQUEST: i64 = -32600;
const PARSE_ERROR: i64 = -32700;
const HEADER_MISMATCH: i64 = -32020;
const UNSUPPORTED_VERSION: i64 = -32022;
/// What the official SDKs answer for an unknown session (implementation-defined range).
const SESSION_NOT_FOUND: i64 = -32001;

/// A JSON-RPC error response; `id` is raw JSON text or none (an error that concerns no
/// request, which the transport pages allow to have no `id`).
fn rpc_error(id: Option<&str>, code: i64, message: &str, data: Option<Value>) -> String {
    let mut e = json!({"code": code, "message": message});
    if let Some(d) = data {
        e["data"] = d;
    }
    let mut o = json!({"jsonrpc": "2.0", "error": e});
    if let Some(i) = id.and_then(|i| serde_json::from_str::<Value>(i).ok()) {
        o["id"] = i;
    }
    o.to_string()
}

/// One handshake-era session.
struct Entry {
    session: Arc<Session>,
    /// The negotiated revision.
    version: Mutex<String>,
    last_used: Mutex<Instant>,
    /// The open `GET` stream, where server-initiated messages go.
    server_stream: Arc<Mutex<Option<stream::Sender>>>,
    /// Tool calls of this session in flight.
    calls: AtomicUsize,
}

impl Entry {
    /// Since when the session has been idle: its last request, its last tool call's end
    /// or its server stream's close, whichever came last; `None` while a call or the
    /// server stream is open (the session is in use).
    fn idle_since(&self) -> Option<Instant> {
        // a call's end marks the session used before it stops counting (`done` in
        // `post_in_session`), so a count of 0 read here finds that use in `last_used`
        if self.calls.load(Ordering::Acquire) > 0 {
            return None;
        }
        let used = *self.last_used.lock();
        match self.server_stream.lock().as_ref() {
            // the stream's close time is set in the step that closes it, so a stream
            // never reads as closed with its end unknown
            Some(s) => s.closed_at().map(|closed| closed.max(used)),
            None => Some(used),
        }
    }
}

pub(crate) struct Inner {
    pub(crate) dispatcher: Dispatcher,
    pub(crate) config: HttpConfig,
    sessions: Mutex<HashMap<String, Arc<Entry>>>,
    /// Long-lived streams open now.
    streams: AtomicUsize,
    /// Tool calls in flight now.
    calls: AtomicUsize,
    workers: Arc<Pool>,
    authorize: RwLock<Option<Authorize>>,
    /// What the core's timer holds (weakly) for the sweep of idle sessions.
    sweeper: Arc<Sweeper>,
    /// The sweep on the timer now, if any: its deadline and number. Held while a sweep
    /// runs, so a session made meanwhile is either seen by the sweep or schedules after it.
    next_sweep: Mutex<Option<(Instant, u64)>>,
    pub(crate) debug: Option<debug::Debug>,
}

/// The sweep of idle sessions, on the core's timer (`engine::timer`): no request needs to
/// come for an expired session to end. The timer thread runs no host code and must return
/// at once, and the sweep may drop the last reference to a session or to the server (whose
/// dispatcher may hold the host's data), so the timer only hands the sweep to the server's
/// workers, the threads that run its tool calls. It holds the server weakly: a server
/// freed meanwhile is not kept, and its drop takes the timer entry off.
struct Sweeper {
    server: Weak<Inner>,
    workers: Arc<Pool>,
}

impl Expire for Sweeper {
    fn expire(self: Arc<Self>) {
        let server = self.server.clone();
        self.workers.submit(Box::new(move |_| {
            if let Some(inner) = server.upgrade() {
                HttpServer { inner }.sweep();
            }
        }));
    }
}

/// The shortest time between two sweeps of one server (or its idle time, when shorter):
/// sessions whose idle times run out close together end in one sweep, a second apart at
/// most.
const SWEEP_GAP: Duration = Duration::from_secs(1);

impl Drop for Inner {
    fn drop(&mut self) {
        // no timer entry outlives the server, and its sessions end with it (their server
        // streams end, their subscriptions go)
        if let Some((at, n)) = self.next_sweep.get_mut().take() {
            timer::unschedule(at, n);
        }
        for (_, e) in self.sessions.get_mut().drain() {
            end_session(&e);
        }
    }
}

/// The exchange: one per endpoint set (an MCP endpoint and, when on, a debug page) over
/// one dispatcher. Thread-safe; cheap to clone.
#[derive(Clone)]
pub struct HttpServer {
    inner: Arc<Inner>,
}

/// A fresh unguessable session id: SipHash under a per-process random key (the
/// standard library's, drawn from the OS) of a counter and the time, twice.
fn new_session_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    static KEY: std::sync::OnceLock<std::collections::hash_map::RandomState> =
        std::sync::OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let key = KEY.get_or_init(Default::default);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut out = String::with_capacity(32);
    for half in 0..2u8 {
        let mut h = key.build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.write_u128(now);
        h.write_u8(half);
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

/// Whether `origin` is a loopback origin (`http://localhost:5000`, `http://[::1]`).
fn loopback_origin(origin: &str) -> bool {
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = if let Some(r) = rest.strip_prefix('[') {
        match r.split_once(']') {
            Some((h, tail)) if tail.is_empty() || tail.starts_with(':') => {
                return h == "::1" && port_ok(tail)
            }
            _ => return false,
        }
    } else {
        rest
    };
    let (name, tail) = match host.find(':') {
        Some(i) => (&host[..i], &host[i..]),
        None => (host, ""),
    };
    (name.eq_ignore_ascii_case("localhost") || name == "127.0.0.1") && port_ok(tail)
}

fn port_ok(tail: &str) -> bool {
    match tail.strip_prefix(':') {
        None => tail.is_empty(),
        Some(p) => !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()),
    }
}

/// Constant-time comparison (a token check that leaks no prefix length by its timing).
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether an `Accept` header lists `media` (or a wildcard that covers it).
fn accepts(accept: Option<&str>, media: &str) -> bool {
    let Some(a) = accept else { return true };
    let major = media.split('/').next().unwrap_or("");
    a.split(',').any(|part| {
        let m = part.split(';').next().unwrap_or("").trim();
        m.eq_ignore_ascii_case(media) || m == "*/*" || m.eq_ignore_ascii_case(&format!("{major}/*"))
    })
}

/// Decodes a header value that may use the Base64 sentinel (`=?base64?…?=`).
fn decode_header_value(v: &str) -> Option<String> {
    match v
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(b) => String::from_utf8(base64_decode(b)?).ok(),
        None => Some(v.to_owned()),
    }
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// What the transport reads of a message before the session does.
#[derive(Default)]
struct Peek {
    /// The raw id text (a request), none for a notification.
    id: Option<String>,
    method: Option<String>,
    /// `params.name` (tools/call).
    name: Option<String>,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`, when present.
    envelope: Option<String>,
    /// The body was a JSON array (a 2025-03-26 batch).
    batch: bool,
    /// The body was a JSON object we could read.
    readable: bool,
}

fn peek(text: &str) -> Peek {
    #[derive(Deserialize)]
    struct Msg<'a> {
        #[serde(borrow, default)]
        id: Option<&'a RawValue>,
        #[serde(borrow, default)]
        method: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        params: Option<&'a RawValue>,
    }
    #[derive(Deserialize, Default)]
    struct Params<'a> {
        #[serde(borrow, default)]
        name: Option<&'a RawValue>,
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<&'a RawValue>,
    }
    #[derive(Deserialize, Default)]
    struct Meta<'a> {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
        version: Option<&'a RawValue>,
    }
    let t = text.trim_start();
    if t.starts_with('[') {
        return Peek {
            batch: true,
            ..Default::default()
        };
    }
    let Ok(m) = serde_json::from_str::<Msg<'_>>(t) else {
        return Peek::default();
    };
    let string = |r: &RawValue| serde_json::from_str::<String>(r.get()).ok();
    let params: Params<'_> = m
        .params
        .filter(|p| p.get().starts_with('{'))
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or_default();
    let meta: Meta<'_> = params
        .meta
        .filter(|p| p.get().starts_with('{'))
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or_default();
    Peek {
        id: m
            .id
            .filter(|i| i.get() != "null")
            .map(|i| i.get().to_owned()),
        method: m.method.map(Cow::into_owned),
        name: params.name.and_then(string),
        envelope: meta
            .version
            .map(|v| string(v).unwrap_or_else(|| v.get().to_owned())),
        batch: false,
        readable: true,
    }
}

/// The error code of a JSON-RPC error response we made, if it is one.
fn error_code(response: &str) -> Option<i64> {
    #[derive(Deserialize)]
    struct E {
        code: i64,
    }
    #[derive(Deserialize)]
    struct R {
        #[serde(default)]
        error: Option<E>,
    }
    serde_json::from_str::<R>(response)
        .ok()?
        .error
        .map(|e| e.code)
}

impl HttpServer {
    /// An exchange over `dispatcher`.
    pub fn new(dispatcher: &Dispatcher, mut config: HttpConfig) -> Result<HttpServer, String> {
        for (what, p) in [
            ("mcpPath", config.mcp_path.as_ref()),
            ("debugPath", config.debug_path.as_ref()),
        ] {
            if let Some(p) = p {
                if !p.starts_with('/') {
                    return Err(format!(
                        "{what}: a path starts with '/', got {}",
                        crate::model::types::quote_short(p)
                    ));
                }
            }
        }
        if let Some(p) = &mut config.debug_path {
            while p.len() > 1 && p.ends_with('/') {
                p.pop();
            }
        }
        if !config.metadata.is_object() {
            return Err("metadata: expected a JSON object".into());
        }
        // a view of this metadata must be valid before any request needs one
        crate::view::View::new(dispatcher, config.metadata.clone())?;
        let debug = config
            .debug_path
            .as_ref()
            .map(|_| debug::Debug::new(dispatcher));
        let workers = Arc::new(Pool::new("appfunctions-http", MCP_WORKERS_MAX));
        Ok(HttpServer {
            inner: Arc::new_cyclic(|server| Inner {
                dispatcher: dispatcher.clone(),
                config,
                sessions: Mutex::new(HashMap::new()),
                streams: AtomicUsize::new(0),
                calls: AtomicUsize::new(0),
                workers: workers.clone(),
                authorize: RwLock::new(None),
                sweeper: Arc::new(Sweeper {
                    server: server.clone(),
                    workers,
                }),
                next_sweep: Mutex::new(None),
                debug,
            }),
        })
    }

    /// The settings in force.
    pub fn config(&self) -> &HttpConfig {
        &self.inner.config
    }

    /// Sets the host's authorization hook (after the bearer token check, if any).
    pub fn set_authorize(&self, hook: Option<Authorize>) {
        *self.inner.authorize.write() = hook;
    }

    /// Handshake-era sessions alive now.
    pub fn sessions(&self) -> usize {
        self.inner.sessions.lock().len()
    }

    /// Long-lived streams open now.
    pub fn streams(&self) -> usize {
        self.inner.streams.load(Ordering::Acquire)
    }

    /// Ends the sessions idle longer than the configured time now. Returns how many ended.
    /// The server does it by itself too, on the core's timer, within a second after a
    /// session's idle time has run out: no request needs to come.
    pub fn expire_idle(&self) -> usize {
        self.expire(Instant::now()).0
    }

    /// Ends the sessions idle at `now`: how many ended, and when the next one can (a
    /// session with a stream or a call is idle no sooner than its idle time from now,
    /// since its end of use is its last use).
    fn expire(&self, now: Instant) -> (usize, Option<Instant>) {
        let idle = self.inner.config.session_idle;
        let mut gone = Vec::new();
        let mut next: Option<Instant> = None;
        {
            let mut s = self.inner.sessions.lock();
            s.retain(|_, e| {
                let until = e.idle_since().map_or(now + idle, |t| t + idle);
                let keep = until > now;
                if keep {
                    next = Some(next.map_or(until, |n| n.min(until)));
                } else {
                    gone.push(e.clone());
                }
                keep
            });
        }
        for e in &gone {
            end_session(e);
        }
        (gone.len(), next)
    }

    /// The timer's sweep (on a worker): ends the idle sessions and schedules the next
    /// sweep for when the next one can end, if any session is left.
    fn sweep(&self) {
        let inner = &self.inner;
        let mut next = inner.next_sweep.lock();
        let now = Instant::now();
        let (_, due) = self.expire(now);
        // (a deadline that fired is off the timer already: taking it off again is a no-op)
        if let Some((at, n)) = next.take() {
            timer::unschedule(at, n);
        }
        if let Some(at) = due {
            let at = at.max(now + SWEEP_GAP.min(inner.config.session_idle));
            *next = Some((at, timer::schedule(at, self.sweeper_target())));
        }
    }

    /// Makes sure a sweep is on the timer by `at` (a new session's end if nobody uses it).
    fn sweep_by(&self, at: Instant) {
        let mut next = self.inner.next_sweep.lock();
        match *next {
            Some((d, _)) if d <= at => {}
            _ => {
                if let Some((d, n)) = next.take() {
                    timer::unschedule(d, n);
                }
                *next = Some((at, timer::schedule(at, self.sweeper_target())));
            }
        }
    }

    fn sweeper_target(&self) -> Weak<dyn Expire> {
        let w: Weak<Sweeper> = Arc::downgrade(&self.inner.sweeper);
        w
    }

    /// Handles one request.
    pub fn handle(&self, req: &Request<'_>) -> Response {
        let inner = &self.inner;
        let path = req.path;
        let route = if inner.config.mcp_path.as_deref() == Some(path) {
            Route::Mcp
        } else if let Some(base) = inner.config.debug_path.as_deref().filter(|b| {
            path == *b || path.strip_prefix(b).is_some_and(|r| r.starts_with('/')) || *b == "/"
        }) {
            Route::Debug(&path[base.len().min(path.len())..])
        } else {
            return Response::typed(404, "text/plain; charset=utf-8", b"not found".to_vec());
        };
        if let Some(r) = self.guard(req) {
            return r;
        }
        match route {
            Route::Mcp => self.mcp(req),
            Route::Debug(rest) => match &inner.debug {
                Some(d) => d.handle(self, req, rest),
                None => Response::empty(404),
            },
        }
    }

    /// The checks every request passes first: Origin, authorization, body size.
    fn guard(&self, req: &Request<'_>) -> Option<Response> {
        let c = &self.inner.config;
        // streamable-http.mdx, Security: "Servers MUST validate the `Origin` header on all
        // incoming connections to prevent DNS rebinding attacks. If the `Origin` header is
        // present and invalid, servers MUST respond with HTTP 403 Forbidden. The HTTP
        // response body MAY comprise a JSON-RPC error response that has no `id`."
        if let Some(o) = req.header("origin") {
            let ok = loopback_origin(o)
                || c.allowed_origins
                    .iter()
                    .any(|a| a == "*" || a.eq_ignore_ascii_case(o));
            if !ok {
                return Some(Response::json(
                    403,
                    rpc_error(
                        None,
                        INVALID_REQUEST,
                        &format!(
                            "forbidden: origin {} is not allowed",
                            crate::model::types::quote_short(o)
                        ),
                        None,
                    ),
                ));
            }
        }
        if let Some(token) = &c.bearer_token {
            let given = req.header("authorization").and_then(|a| {
                let (scheme, rest) = a.split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
            });
            if !given.is_some_and(|g| same_secret(g.as_bytes(), token.as_bytes())) {
                return Some(
                    Response::json(
                        401,
                        rpc_error(
                            None,
                            INVALID_REQUEST,
                            "unauthorized: a valid bearer token is required",
                            None,
                        ),
                    )
                    .with("WWW-Authenticate", "Bearer"),
                );
            }
        }
        let hook = self.inner.authorize.read().clone();
        if let Some(h) = hook {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h(req)))
                .unwrap_or(Err(500));
            if let Err(status) = r {
                let status = if (400..600).contains(&status) {
                    status
                } else {
                    403
                };
                let mut resp = Response::json(
                    status,
                    rpc_error(
                        None,
                        INVALID_REQUEST,
                        "the host's authorization refused the request",
                        None,
                    ),
                );
                if status == 401 {
                    resp = resp.with("WWW-Authenticate", "Bearer");
                }
                return Some(resp);
            }
        }
        let declared = req
            .header("content-length")
            .and_then(|l| l.parse::<u64>().ok())
            .unwrap_or(0);
        let max = c.max_body_bytes as u64;
        if req.body.len() as u64 > max || declared > max {
            let n = declared.max(req.body.len() as u64);
            return Some(Response::json(
                413,
                rpc_error(
                    None,
                    INVALID_REQUEST,
                    &format!("the request body is {n} bytes or more, more than the limit of {max}"),
                    None,
                ),
            ));
        }
        None
    }

    fn mcp(&self, req: &Request<'_>) -> Response {
        match req.method {
            "POST" => self.post(req),
            "GET" => self.get(req),
            "DELETE" => self.delete(req),
            _ => Response::empty(405).with("Allow", "GET, POST, DELETE"),
        }
    }

    fn bad(status: u16, code: i64, id: Option<&str>, msg: &str) -> Response {
        Response::json(status, rpc_error(id, code, msg, None))
    }

    fn session_of(&self, req: &Request<'_>) -> Result<(String, Arc<Entry>), Response> {
        let Some(sid) = req.header("mcp-session-id") else {
            // 2025-11-25 transport, Session Management: "Servers that require a session
            // ID SHOULD respond to requests without an `Mcp-Session-Id` header (other than
            // initialization) with HTTP 400 Bad Request."
            return Err(Self::bad(
                400,
                INVALID_REQUEST,
                None,
                "bad request: no Mcp-Session-Id header; send initialize first (or use the 2026-07-28 request envelope)",
            ));
        };
        let found = {
            let mut sessions = self.inner.sessions.lock();
            match sessions.get(sid) {
                Some(e) => {
                    let now = Instant::now();
                    // idle past its time, not swept yet (the sweep comes within a second)
                    let expired = e
                        .idle_since()
                        .is_some_and(|t| now.duration_since(t) >= self.inner.config.session_idle);
                    if expired {
                        Err(sessions.remove(sid))
                    } else {
                        *e.last_used.lock() = now;
                        Ok(e.clone())
                    }
                }
                None => Err(None),
            }
        };
        match found {
            Ok(e) => Ok((sid.to_owned(), e)),
            // 2025-11-25 transport: "The server MAY terminate the session at any time,
            // after which it MUST respond to requests containing that session ID with
            // HTTP 404 Not Found."
            Err(expired) => {
                if let Some(e) = expired {
                    end_session(&e);
                }
                Err(Self::bad(
                    404,
                    SESSION_NOT_FOUND,
                    None,
                    "session not found: it ended or never existed; initialize a new one",
                ))
            }
        }
    }

    /// 2025-11-25 transport: "If the server receives a request with an invalid or
    /// unsupported `MCP-Protocol-Version`, it MUST respond with `400 Bad Request`." A
    /// request without the header is taken as the negotiated revision (the page lets a
    /// server assume 2025-03-26, which a 2025-03-26 client negotiated anyway).
    fn check_version(req: &Request<'_>, e: &Entry) -> Result<(), Response> {
        let Some(v) = req.header("mcp-protocol-version") else {
            return Ok(());
        };
        let negotiated = e.version.lock().clone();
        if v == negotiated {
            return Ok(());
        }
        let known = HANDSHAKE_REVISIONS.contains(&v) || v == MODERN_REVISION;
        Err(Self::bad(
            400,
            INVALID_REQUEST,
            None,
            &if known {
                format!("bad request: MCP-Protocol-Version {v} is not the revision this session negotiated ({negotiated})")
            } else {
                format!(
                    "bad request: unsupported MCP-Protocol-Version {}",
                    crate::model::types::quote_short(v)
                )
            },
        ))
    }

    fn post(&self, req: &Request<'_>) -> Response {
        if let Some(ct) = req.header("content-type") {
            if !ct
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case("application/json")
            {
                return Self::bad(
                    415,
                    INVALID_REQUEST,
                    None,
                    "unsupported media type: the body must be application/json",
                );
            }
        }
        let accept = req.header("accept");
        // streamable-http.mdx, Sending Messages: "The client MUST include an `Accept`
        // header listing both `application/json` and `text/event-stream`"; we answer
        // with either, so a client that accepts neither gets 406.
        if !accepts(accept, "application/json") && !accepts(accept, "text/event-stream") {
            return Self::bad(
                406,
                INVALID_REQUEST,
                None,
                "not acceptable: accept application/json and text/event-stream",
            );
        }
        let Ok(text) = std::str::from_utf8(req.body) else {
            return Self::bad(
                400,
                PARSE_ERROR,
                None,
                "parse error: the body is not valid UTF-8",
            );
        };
        let p = peek(text);
        let header_version = req.header("mcp-protocol-version");
        let modern = p.envelope.is_some() || header_version == Some(MODERN_REVISION);
        if modern && !p.batch {
            return self.post_modern(req, text, &p, accepts(accept, "text/event-stream"));
        }
        if p.method.as_deref() == Some("initialize") && p.id.is_some() {
            return self.initialize(text);
        }
        let (_, e) = match self.session_of(req) {
            Ok(x) => x,
            Err(r) => return r,
        };
        if let Err(r) = Self::check_version(req, &e) {
            return r;
        }
        self.post_in_session(&e, text, &p, accepts(accept, "text/event-stream"))
    }

    fn initialize(&self, text: &str) -> Response {
        let inner = &self.inner;
        // room for one more session: evict the oldest idle one, else refuse
        {
            let mut s = inner.sessions.lock();
            if s.len() >= inner.config.max_sessions {
                let oldest = s
                    .iter()
                    .filter_map(|(k, e)| e.idle_since().map(|t| (t, k)))
                    .min()
                    .map(|(_, k)| k.clone());
                match oldest {
                    Some(k) => {
                        if let Some(e) = s.remove(&k) {
                            drop(s);
                            end_session(&e);
                            inner.dispatcher.log(
                                crate::engine::log::LogLevel::Info,
                                &format!(
                                    "MCP over HTTP: the session limit ({}) was reached; the session idle longest was ended for a new one",
                                    inner.config.max_sessions
                                ),
                            );
                        }
                    }
                    None => {
                        return Self::bad(
                            503,
                            INVALID_REQUEST,
                            None,
                            &format!(
                                "service unavailable: {} sessions are open and none is idle; end one (DELETE) or retry later",
                                inner.config.max_sessions
                            ),
                        )
                        .with("Retry-After", "5")
                    }
                }
            }
        }
        let session = match Session::new(
            &inner.dispatcher,
            inner.config.mcp.clone(),
            inner.config.metadata.clone(),
        ) {
            Ok(s) => s,
            Err(e) => return Self::bad(500, -32603, None, &e),
        };
        let slot: Arc<Mutex<Option<stream::Sender>>> = Arc::new(Mutex::new(None));
        {
            let slot = slot.clone();
            // server-initiated messages of the session go on its GET stream, if one is
            // open (else they are dropped: the client re-lists when it reconnects)
            session.set_notify(Some(Arc::new(move |m: &str| {
                if let Some(s) = &*slot.lock() {
                    s.send(m);
                }
            })));
        }
        let out = session.handle(text).unwrap_or_default();
        let version: Option<String> = serde_json::from_str::<Value>(&out)
            .ok()
            .and_then(|v| v["result"]["protocolVersion"].as_str().map(str::to_owned));
        let Some(version) = version else {
            return Response::json(200, out);
        };
        let id = new_session_id();
        let now = Instant::now();
        let e = Arc::new(Entry {
            session,
            version: Mutex::new(version),
            last_used: Mutex::new(now),
            server_stream: slot,
            calls: AtomicUsize::new(0),
        });
        inner.sessions.lock().insert(id.clone(), e);
        // after the insertion: a sweep running now either sees this session or is over
        // before this schedules
        self.sweep_by(now + inner.config.session_idle);
        // 2025-11-25 transport: the server assigns the session id "by including it in an
        // `Mcp-Session-Id` header on the HTTP response containing the `InitializeResult`"
        Response::json(200, out).with("Mcp-Session-Id", &id)
    }

    fn post_in_session(&self, e: &Arc<Entry>, text: &str, p: &Peek, sse: bool) -> Response {
        let s = &e.session;
        match s.handle_message(text) {
            // 2025-11-25 transport: for a notification or response the server "MUST return
            // HTTP status code 202 Accepted with no body"
            Reply::Nothing => Response::empty(202),
            Reply::Now(r) => {
                let status = match (error_code(&r), p.id.is_some() || p.batch) {
                    (Some(PARSE_ERROR), _) | (Some(_), false) => 400,
                    _ => 200,
                };
                Response::json(status, r)
            }
            Reply::Call(c) => {
                let inner = self.inner.clone();
                if inner.calls.fetch_add(1, Ordering::AcqRel) >= inner.config.max_calls {
                    inner.calls.fetch_sub(1, Ordering::AcqRel);
                    let r = s.refuse_call(c, &format!("too many tool calls are in flight (the limit is {}); try again when some have finished", inner.config.max_calls));
                    return Response::json(200, r);
                }
                e.calls.fetch_add(1, Ordering::AcqRel);
                let entry = e.clone();
                let done = move || {
                    // used until now: so before it stops counting as busy
                    *entry.last_used.lock() = Instant::now();
                    entry.calls.fetch_sub(1, Ordering::AcqRel);
                };
                self.run_call(s.clone(), c, sse, None, done)
            }
        }
    }

    /// Runs a call on a worker: an SSE stream whose one event is the response (headers
    /// out now), or, for a client that takes no stream, JSON once it ends. `cancel_on_close`:
    /// the request's raw id, cancelled when the host closes the stream (2026-07-28).
    fn run_call(
        &self,
        session: Arc<Session>,
        c: crate::mcp::PendingCall,
        sse: bool,
        cancel_on_close: Option<String>,
        done: impl FnOnce() + Send + 'static,
    ) -> Response {
        let inner = self.inner.clone();
        if !sse {
            let r = session.run_call(c);
            inner.calls.fetch_sub(1, Ordering::AcqRel);
            done();
            return match r {
                Some(r) => Response::json(200, r),
                None => Response::empty(202),
            };
        }
        let on_close: Option<Box<dyn FnOnce() + Send>> = cancel_on_close.map(|id| {
            let s = Arc::downgrade(&session);
            Box::new(move || {
                if let Some(s) = s.upgrade() {
                    // streamable-http.mdx, Cancellation: "Closing the SSE response stream
                    // MUST be treated by the server as cancellation of that request. […]
                    // MUST NOT send any further messages for it." The session suppresses
                    // the cancelled call's response.
                    s.handle(&format!(
                        "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id},\"reason\":\"the client closed the stream\"}}}}"
                    ));
                }
            }) as Box<dyn FnOnce() + Send>
        });
        let (stream, tx) = EventStream::new(on_close);
        let inner2 = inner.clone();
        inner.workers.submit(Box::new(move |_| {
            if let Some(r) = session.run_call(c) {
                tx.send(&r);
            }
            tx.end();
            inner2.calls.fetch_sub(1, Ordering::AcqRel);
            done();
        }));
        Response::stream(stream)
    }

    /// Takes a slot for a long-lived stream, or answers 503.
    fn take_stream_slot(&self) -> Result<(), Response> {
        let inner = &self.inner;
        if inner.streams.fetch_add(1, Ordering::AcqRel) >= inner.config.max_streams {
            inner.streams.fetch_sub(1, Ordering::AcqRel);
            return Err(Self::bad(
                503,
                INVALID_REQUEST,
                None,
                &format!(
                    "service unavailable: {} streams are open (the limit); close one or retry later",
                    inner.config.max_streams
                ),
            )
            .with("Retry-After", "5"));
        }
        Ok(())
    }

    fn release_slot(inner: &Weak<Inner>) {
        if let Some(i) = inner.upgrade() {
            i.streams.fetch_sub(1, Ordering::AcqRel);
        }
    }

    fn get(&self, req: &Request<'_>) -> Response {
        // 2026-07-28 has no GET stream: "HTTP GET or DELETE to the MCP endpoint: respond
        // with `405 Method Not Allowed`" (Backward Compatibility)
        if req.header("mcp-protocol-version") == Some(MODERN_REVISION) {
            return Response::empty(405).with("Allow", "POST");
        }
        // 2025-11-25 transport: "The client MUST include an `Accept` header, listing
        // `text/event-stream` as a supported content type."
        if !req
            .header("accept")
            .is_some_and(|a| accepts(Some(a), "text/event-stream"))
        {
            return Self::bad(
                406,
                INVALID_REQUEST,
                None,
                "not acceptable: a GET stream needs Accept: text/event-stream",
            );
        }
        let (_, e) = match self.session_of(req) {
            Ok(x) => x,
            Err(r) => return r,
        };
        if let Err(r) = Self::check_version(req, &e) {
            return r;
        }
        let mut slot = e.server_stream.lock();
        if slot.as_ref().is_some_and(|s| !s.is_closed()) {
            return Self::bad(
                409,
                INVALID_REQUEST,
                None,
                "conflict: this session's server stream is already open",
            );
        }
        if let Err(r) = self.take_stream_slot() {
            return r;
        }
        let weak = Arc::downgrade(&self.inner);
        // (the session's idle time counts from the stream's close: `Entry::idle_since`)
        let (stream, tx) = EventStream::new(Some(Box::new(move || Self::release_slot(&weak))));
        *slot = Some(tx);
        Response::stream(stream)
    }

    fn delete(&self, req: &Request<'_>) -> Response {
        if req.header("mcp-protocol-version") == Some(MODERN_REVISION)
            && req.header("mcp-session-id").is_none()
        {
            return Response::empty(405).with("Allow", "POST");
        }
        let (id, _) = match self.session_of(req) {
            Ok(x) => x,
            Err(r) => return r,
        };
        let e = self.inner.sessions.lock().remove(&id);
        if let Some(e) = e {
            end_session(&e);
        }
        Response::empty(204)
    }

    /// A 2026-07-28 request: no session; the headers must agree with the body.
    fn post_modern(&self, req: &Request<'_>, text: &str, p: &Peek, sse: bool) -> Response {
        let id = p.id.as_deref();
        let mismatch =
            |msg: String| Self::bad(400, HEADER_MISMATCH, id, &format!("header mismatch: {msg}"));
        if !p.readable {
            return Self::bad(
                400,
                PARSE_ERROR,
                None,
                "parse error: the body is not a JSON-RPC message",
            );
        }
        // streamable-http.mdx, Protocol Version Header: "Every POST request to the MCP
        // endpoint MUST include an `MCP-Protocol-Version` header. The header value MUST
        // match the `io.modelcontextprotocol/protocolVersion` field carried in the request
        // body's `_meta`. If the values do not match, the server MUST reject the request
        // with `400 Bad Request` and a `HeaderMismatch` JSON-RPC error"
        let hv = req.header("mcp-protocol-version");
        match (hv, p.envelope.as_deref()) {
            (None, _) => return mismatch("the MCP-Protocol-Version header is missing".into()),
            (Some(h), Some(b)) if h != b => {
                return mismatch(format!(
                    "MCP-Protocol-Version header {} does not match the body's {}",
                    crate::model::types::quote_short(h),
                    crate::model::types::quote_short(b)
                ))
            }
            (Some(_), None) if p.id.is_some() => {
                return mismatch(
                    "the body has no io.modelcontextprotocol/protocolVersion in params._meta"
                        .into(),
                )
            }
            _ => {}
        }
        // "If the server does not implement the requested protocol version […] it MUST
        // respond with `400 Bad Request` and an `UnsupportedProtocolVersionError` listing
        // its supported versions."
        if let Some(v) = hv.filter(|v| *v != MODERN_REVISION) {
            return Response::json(
                400,
                rpc_error(
                    id,
                    UNSUPPORTED_VERSION,
                    "unsupported protocol version",
                    Some(json!({"supported": [MODERN_REVISION], "requested": v})),
                ),
            );
        }
        let Some(method) = p.method.as_deref() else {
            return Self::bad(400, INVALID_REQUEST, id, "invalid request: no method");
        };
        // Standard Request Headers: `Mcp-Method` for all requests, `Mcp-Name` for
        // `tools/call`; "Servers that process the request body MUST reject requests where
        // the values specified in the headers do not match the corresponding values in the
        // request body", with 400 and -32020; "servers MUST decode an encoded `Mcp-Name`
        // […] before comparing it".
        if p.id.is_some() {
            match req.header("mcp-method") {
                None => return mismatch("the Mcp-Method header is missing".into()),
                Some(m) if m != method => {
                    return mismatch(format!(
                        "Mcp-Method header {} does not match the body's {}",
                        crate::model::types::quote_short(m),
                        crate::model::types::quote_short(method)
                    ))
                }
                _ => {}
            }
            if method == "tools/call" {
                let body = p.name.as_deref().unwrap_or("");
                match req.header("mcp-name").map(decode_header_value) {
                    None => return mismatch("the Mcp-Name header is missing".into()),
                    Some(None) => {
                        return mismatch("the Mcp-Name header is not valid Base64 UTF-8".into())
                    }
                    Some(Some(n)) if n != body => {
                        return mismatch(format!(
                            "Mcp-Name header {} does not match the body's {}",
                            crate::model::types::quote_short(&n),
                            crate::model::types::quote_short(body)
                        ))
                    }
                    _ => {}
                }
            }
        }
        let inner = &self.inner;
        let session = match Session::new(
            &inner.dispatcher,
            inner.config.mcp.clone(),
            inner.config.metadata.clone(),
        ) {
            Ok(s) => s,
            Err(e) => return Self::bad(500, -32603, id, &e),
        };
        if method == "subscriptions/listen" && p.id.is_some() {
            if !sse {
                return Self::bad(
                    406,
                    INVALID_REQUEST,
                    id,
                    "not acceptable: subscriptions/listen answers a text/event-stream",
                );
            }
            if let Err(r) = self.take_stream_slot() {
                return r;
            }
            let weak = Arc::downgrade(&self.inner);
            let keep = session.clone();
            let (stream, tx) = EventStream::new(Some(Box::new(move || {
                // the transport closed: the stream's subscription ends silently
                keep.set_notify(None);
                Self::release_slot(&weak);
            })));
            let sink = tx.clone();
            session.set_notify(Some(Arc::new(move |m: &str| {
                sink.send(m);
            })));
            return match session.handle_message(text) {
                Reply::Nothing => Response::stream(stream),
                Reply::Now(r) => {
                    drop(stream);
                    Self::modern_json(r)
                }
                Reply::Call(_) => Self::bad(500, -32603, id, "internal error"),
            };
        }
        // a sink, so the session advertises what a listen stream would deliver
        session.set_notify(Some(Arc::new(|_: &str| {})));
        match session.handle_message(text) {
            Reply::Nothing => Response::empty(202),
            Reply::Now(r) => Self::modern_json(r),
            Reply::Call(c) => {
                if inner.calls.fetch_add(1, Ordering::AcqRel) >= inner.config.max_calls {
                    inner.calls.fetch_sub(1, Ordering::AcqRel);
                    let r = session.refuse_call(c, &format!("too many tool calls are in flight (the limit is {}); try again when some have finished", inner.config.max_calls));
                    return Response::json(200, r);
                }
                self.run_call(session.clone(), c, sse, p.id.clone(), || {})
            }
        }
    }

    fn modern_json(r: String) -> Response {
        let status = match error_code(&r) {
            // "If the server does not implement the requested RPC method, it MUST respond
            // with `404 Not Found` and a JSON-RPC error with code `-32601`"
            Some(-32601) => 404,
            Some(PARSE_ERROR | INVALID_REQUEST | HEADER_MISMATCH | UNSUPPORTED_VERSION) => 400,
            _ => 200,
        };
        Response::json(status, r)
    }

    pub(crate) fn inner(&self) -> &Arc<Inner> {
        &self.inner
    }
}

impl Inner {
    pub(crate) fn take_stream_slot(self: &Arc<Self>) -> Option<Box<dyn FnOnce() + Send>> {
        if self.streams.fetch_add(1, Ordering::AcqRel) >= self.config.max_streams {
            self.streams.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        let weak = Arc::downgrade(self);
        Some(Box::new(move || HttpServer::release_slot(&weak)))
    }
}

/// Ends a session: its server stream ends, its calls finish on their own.
fn end_session(e: &Entry) {
    if let Some(s) = e.server_stream.lock().take() {
        s.end();
    }
    e.session.set_notify(None);
}

enum Route<'a> {
    Mcp,
    Debug(&'a str),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins_are_recognised_and_lookalikes_are_not() {
        for o in [
            "http://localhost",
            "http://localhost:5000",
            "https://127.0.0.1:1",
            "http://[::1]:8080",
            "http://LOCALHOST",
        ] {
            assert!(loopback_origin(o), "{o}");
        }
        for o in [
            "http://localhost.evil.com",
            "http://127.0.0.1.nip.io",
            "http://evil.com",
            "null",
            "http://[::2]",
            "http://localhost:",
            "file://",
            "http://localhost:80x",
        ] {
            assert!(!loopback_origin(o), "{o}");
        }
    }

    #[test]
    fn accept_lists_and_wildcards() {
        assert!(accepts(
            Some("application/json, text/event-stream"),
            "text/event-stream"
        ));
        assert!(accepts(Some("*/*"), "application/json"));
        assert!(accepts(Some("text/*;q=0.5"), "text/event-stream"));
        assert!(!accepts(Some("text/html"), "application/json"));
        assert!(accepts(None, "application/json"));
    }

    #[test]
    fn base64_sentinel_values_decode() {
        assert_eq!(
            decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, 世界")
        );
        assert_eq!(decode_header_value("plain").as_deref(), Some("plain"));
        assert_eq!(decode_header_value("=?base64?***?="), None);
    }

    #[test]
    fn session_ids_are_long_and_distinct() {
        let a = new_session_id();
        let b = new_session_id();
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }

    fn initialize(s: &HttpServer) -> String {
        let r = s.handle(&Request {
            method: "POST",
            path: "/mcp",
            query: "",
            headers: vec![
                ("Accept", "application/json, text/event-stream"),
                ("Content-Type", "application/json"),
            ],
            body: br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        });
        assert_eq!(r.status, 200);
        r.header("Mcp-Session-Id").expect("a session id").to_owned()
    }

    /// The session's `GET` stream (handshake era).
    fn get_stream(s: &HttpServer, sid: &str) -> EventStream {
        let g = s.handle(&Request {
            method: "GET",
            path: "/mcp",
            query: "",
            headers: vec![("Accept", "text/event-stream"), ("Mcp-Session-Id", sid)],
            body: b"",
        });
        let Body::Stream(stream) = g.body else {
            panic!("not a stream")
        };
        stream
    }

    #[test]
    fn freeing_the_server_takes_its_sweep_off_the_timer_and_ends_its_sessions() {
        let d = Dispatcher::new();
        let s = HttpServer::new(&d, HttpConfig::default()).unwrap();
        assert!(s.inner.next_sweep.lock().is_none(), "no session, no sweep");
        let before = Instant::now();
        let sid = initialize(&s);
        initialize(&s);
        let stream = get_stream(&s, &sid);
        let (at, n) = s.inner.next_sweep.lock().expect("a sweep on the timer");
        assert!(timer::is_scheduled(at, n));
        assert!(
            at >= before + s.config().session_idle,
            "due when the first session can end"
        );
        let server = Arc::downgrade(&s.inner);
        let sweeper = Arc::downgrade(&s.inner.sweeper);
        drop(s);
        assert!(
            !timer::is_scheduled(at, n),
            "no timer entry outlives the server"
        );
        assert!(server.upgrade().is_none() && sweeper.upgrade().is_none());
        assert_eq!(stream.next(Duration::from_secs(5)), Next::End);
    }

    #[test]
    fn freeing_the_server_lets_its_workers_go_at_once() {
        let d = Dispatcher::new();
        let s = HttpServer::new(
            &d,
            HttpConfig {
                session_idle: Duration::from_millis(20),
                ..Default::default()
            },
        )
        .unwrap();
        let workers = s.inner.workers.watch();
        initialize(&s);
        let until = Instant::now() + Duration::from_secs(10);
        while s.sessions() > 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(s.sessions(), 0, "swept on a worker of the server");
        let swept = Instant::now();
        drop(s);
        assert!(
            workers.gone_before(swept + crate::engine::threads::IDLE_EXIT / 2),
            "the worker that swept left with the server, not a second after its sweep"
        );
    }

    #[test]
    fn the_last_session_swept_leaves_no_sweep_on_the_timer() {
        let d = Dispatcher::new();
        let s = HttpServer::new(
            &d,
            HttpConfig {
                session_idle: Duration::from_millis(50),
                ..Default::default()
            },
        )
        .unwrap();
        initialize(&s);
        let until = Instant::now() + Duration::from_secs(10);
        while (s.sessions() > 0 || s.inner.next_sweep.lock().is_some()) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(s.sessions(), 0, "swept by the timer");
        assert!(
            s.inner.next_sweep.lock().is_none(),
            "nothing left to sweep: the timer is let go"
        );
        // a new session schedules again
        initialize(&s);
        assert!(s.inner.next_sweep.lock().is_some());
    }

    #[test]
    fn a_session_whose_stream_outlived_its_idle_time_is_idle_from_the_streams_close() {
        let d = Dispatcher::new();
        let s = HttpServer::new(&d, HttpConfig::default()).unwrap();
        let idle = s.config().session_idle;
        let sid = initialize(&s);
        let stream = get_stream(&s, &sid);
        let e = s.inner.sessions.lock()[&sid].clone();
        let opened = *e.last_used.lock();
        assert_eq!(e.idle_since(), None, "an open stream is a use");
        // however long the stream stays open (here: a sweep as if hours later), it is kept
        assert_eq!(s.expire(opened + idle * 100).0, 0);
        std::thread::sleep(Duration::from_millis(2));
        drop(stream);
        let closed = e.server_stream.lock().as_ref().and_then(|t| t.closed_at());
        let closed = closed.expect("the close is timed in the step that closes the stream");
        assert!(closed > opened);
        // the idle time counts from the close (the last use), not from the stream's opening
        assert_eq!(e.idle_since(), Some(closed));
        assert_eq!(
            s.expire(opened + idle).0,
            0,
            "idle since its close, not since it opened"
        );
        assert_eq!(s.expire(closed + idle - Duration::from_millis(1)).0, 0);
        assert_eq!(s.expire(closed + idle).0, 1);
        assert_eq!(s.sessions(), 0);
    }

    #[test]
    fn a_call_in_flight_keeps_its_session_and_its_end_is_its_last_use() {
        let d = Dispatcher::new();
        let s = HttpServer::new(&d, HttpConfig::default()).unwrap();
        let idle = s.config().session_idle;
        let sid = initialize(&s);
        let e = s.inner.sessions.lock()[&sid].clone();
        let started = *e.last_used.lock();
        e.calls.fetch_add(1, Ordering::AcqRel);
        assert_eq!(e.idle_since(), None);
        assert_eq!(s.expire(started + idle * 100).0, 0);
        // what a call's end does (`done` in `post_in_session`)
        std::thread::sleep(Duration::from_millis(2));
        let ended = Instant::now();
        *e.last_used.lock() = ended;
        e.calls.fetch_sub(1, Ordering::AcqRel);
        assert_eq!(e.idle_since(), Some(ended));
        assert_eq!(s.expire(started + idle).0, 0);
        assert_eq!(s.expire(ended + idle).0, 1);
    }

    #[test]
    fn header_blocks_parse_with_either_line_ending() {
        let h = Request::parse_headers("Accept: a\r\nX-Y:  b \nbroken\n: nameless\n");
        assert_eq!(h, vec![("Accept", "a"), ("X-Y", "b")]);
    }
}
