//! What the exchange takes and gives (its settings, a request, a response) and the host's
//! authorization hook: the C ABI's `af_http_*` functions use them in every build, the `http`
//! cargo feature's or not.

use super::EventStream;
use crate::mcp::McpConfig;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

/// The exchange's settings. Every bound has a default; see docs/http.md.
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// The MCP server's own settings (name, page size, message limit).
    pub mcp: McpConfig,
    /// The MCP endpoint's path (default `/mcp`; `None`: no MCP endpoint, e.g. an exchange
    /// that serves only the debug page).
    pub mcp_path: Option<String>,
    /// Where the debug page is served (`None`, the default: off).
    pub debug_path: Option<String>,
    /// Origins allowed besides loopback ones (`http(s)://localhost|127.0.0.1|[::1]`, any
    /// port), exactly as browsers send them (`https://app.example.com`). `"*"` allows all.
    pub allowed_origins: Vec<String>,
    /// When set, every request needs `Authorization: Bearer <token>`.
    pub bearer_token: Option<String>,
    /// Largest request body (default 8 MiB, the stdio transport's message limit).
    pub max_body_bytes: usize,
    /// Most handshake-era sessions at once (default 100).
    pub max_sessions: usize,
    /// Most long-lived streams open at once across the server: handshake `GET` streams,
    /// `subscriptions/listen` streams and the debug feed (default 32).
    pub max_streams: usize,
    /// Most tool calls in flight at once (default 64); past it a call is answered with a
    /// `LimitExceeded` tool error.
    pub max_calls: usize,
    /// A session unused this long, with no stream open and no call running, is ended
    /// (default 30 minutes).
    pub session_idle: Duration,
    /// The agent view's metadata, the same for every session and request (a signed-in
    /// user, feature flags): 2026-07-28 lists may vary over time, never per connection.
    pub metadata: Value,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            mcp: McpConfig::default(),
            mcp_path: Some("/mcp".into()),
            debug_path: None,
            allowed_origins: Vec::new(),
            bearer_token: None,
            max_body_bytes: 8 << 20,
            max_sessions: 100,
            max_streams: 32,
            max_calls: 64,
            session_idle: Duration::from_secs(30 * 60),
            metadata: Value::Object(Default::default()),
        }
    }
}

/// One HTTP request, borrowed from the host.
#[derive(Clone, Debug, Default)]
pub struct Request<'a> {
    /// `GET`, `POST`, `DELETE`, … (compared case-sensitively, as HTTP does).
    pub method: &'a str,
    /// The path, without the query (`/mcp`, `/appfunctions/api/registry`).
    pub path: &'a str,
    /// The query string without `?` (empty when there is none).
    pub query: &'a str,
    /// Header names and values; names compare case-insensitively.
    pub headers: Vec<(&'a str, &'a str)>,
    /// The body (the host stops reading past [`HttpConfig::max_body_bytes`] + 1).
    pub body: &'a [u8],
}

impl<'a> Request<'a> {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&'a str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    }

    /// Reads headers from `Name: value` lines (`\n` or `\r\n`); a line without a colon is
    /// skipped.
    pub fn parse_headers(block: &'a str) -> Vec<(&'a str, &'a str)> {
        block
            .split('\n')
            .filter_map(|l| {
                let l = l.strip_suffix('\r').unwrap_or(l);
                let (n, v) = l.split_once(':')?;
                let n = n.trim();
                (!n.is_empty()).then(|| (n, v.trim()))
            })
            .collect()
    }
}

/// What the host sends back.
pub enum Body {
    /// No body (202, 204, 405, …).
    Empty,
    /// A complete body (JSON, HTML).
    Bytes(Vec<u8>),
    /// An SSE stream: send the status and headers now, then each frame as it comes.
    Stream(EventStream),
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Body::Empty => f.write_str("Empty"),
            Body::Bytes(b) => write!(f, "Bytes({})", String::from_utf8_lossy(b)),
            Body::Stream(_) => f.write_str("Stream"),
        }
    }
}

/// A response: status, headers, body.
#[derive(Debug)]
pub struct Response {
    /// The HTTP status.
    pub status: u16,
    /// The headers to send, in order.
    pub headers: Vec<(String, String)>,
    /// The body or the stream.
    pub body: Body,
}

#[cfg_attr(not(feature = "http"), allow(dead_code))] // only the exchange makes responses
impl Response {
    pub(crate) fn empty(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Body::Empty,
        }
    }

    pub(crate) fn json(status: u16, text: String) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: Body::Bytes(text.into_bytes()),
        }
    }

    pub(crate) fn typed(status: u16, content_type: &str, body: Vec<u8>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: Body::Bytes(body),
        }
    }

    pub(crate) fn stream(s: EventStream) -> Response {
        Response {
            status: 200,
            headers: vec![
                ("Content-Type".into(), "text/event-stream".into()),
                ("Cache-Control".into(), "no-cache".into()),
                // streamable-http.mdx: "servers SHOULD include the `X-Accel-Buffering: no`
                // header" when initiating an SSE stream
                ("X-Accel-Buffering".into(), "no".into()),
            ],
            body: Body::Stream(s),
        }
    }

    pub(crate) fn with(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (empty for a stream).
    pub fn text(&self) -> Cow<'_, str> {
        match &self.body {
            Body::Bytes(b) => String::from_utf8_lossy(b),
            _ => Cow::Borrowed(""),
        }
    }
}

/// The host's authorization hook: `Ok` lets the request through, `Err(status)` refuses
/// it with that status (401 or 403).
pub type Authorize = Arc<dyn Fn(&Request<'_>) -> Result<(), u16> + Send + Sync>;
