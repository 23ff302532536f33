//! The debug page and its JSON API (docs/http.md, "The debug page API"), served by the
//! same exchange under `HttpConfig::debug_path`, off unless the host sets it.
//!
//! - `GET {base}` or `{base}/`: the page. Its HTML already lists the functions (it reads
//!   without JavaScript); its one inline script (allowed by a per-response nonce, no
//!   other source) makes it live through the API below. No external resources.
//! - `GET {base}/api/registry`: the registry (declared, then generated functions, with
//!   `enabled`; toolkits; types; entities) and the export formats this build has.
//! - `GET {base}/api/function?id=ID`: one function's parameters and result schemas and
//!   its exports (`mcp` tool, the Android XML element, the Swift intent where the
//!   build has a Swift export).
//! - `POST {base}/api/execute` `{"function", "arguments", "platform", "foreground",
//!   "caller", "timeoutMs"}`: runs the call through the full pipeline; the outcome.
//! - `POST {base}/api/view` `{"metadata"}`: the tool list (MCP) and instructions an agent
//!   would see with that metadata.
//! - `GET {base}/api/events`: an SSE feed of every call's outcome (whoever made it) and
//!   of the dispatcher's log lines.

use super::stream::{EventStream, Sender};
use super::{HttpServer, Request, Response};
use crate::engine::call::{Call, Delegate, Invocation, Platform};
use crate::engine::dispatcher::Dispatcher;
use crate::engine::log::LogLevel;
use crate::model::outcome::Outcome;
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::sync::{Arc, Weak};
use std::time::Duration;

const PAGE: &str = include_str!("debug_page.html");

/// The feed's listeners.
#[derive(Default)]
struct Feed {
    listeners: Mutex<Vec<Sender>>,
}

impl Feed {
    fn publish(&self, event: &Value) {
        let text = event.to_string();
        self.listeners.lock().retain(|s| s.send(&text));
    }
}

/// Sees every outcome for the feed; lets every call through.
struct FeedDelegate(Weak<Feed>);

impl Delegate for FeedDelegate {
    fn has_on_invoking(&self) -> bool {
        false
    }
    fn on_invoked(&self, call: &Arc<Call>, _outcome: &Outcome, outcome_json: &str) {
        let Some(feed) = self.0.upgrade() else { return };
        if feed.listeners.lock().is_empty() {
            return;
        }
        let outcome: Value = serde_json::from_str(outcome_json).unwrap_or(Value::Null);
        feed.publish(&json!({
            "type": "outcome",
            "function": call.function_id(),
            "platform": call.platform().as_str(),
            "foreground": call.is_foreground(),
            "caller": call.caller_package(),
            "outcome": outcome,
            "at": now_ms(),
        }));
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// The debug page's state: its feed, wired into the dispatcher.
pub(crate) struct Debug {
    dispatcher: Dispatcher,
    feed: Arc<Feed>,
    tap: u64,
}

impl Debug {
    pub(crate) fn new(d: &Dispatcher) -> Debug {
        let feed = Arc::new(Feed::default());
        d.add_delegate(Arc::new(FeedDelegate(Arc::downgrade(&feed))));
        let weak = Arc::downgrade(&feed);
        let tap = d.add_log_tap(Arc::new(move |level: LogLevel, msg: &str| {
            if let Some(f) = weak.upgrade() {
                if !f.listeners.lock().is_empty() {
                    let level = match level {
                        LogLevel::Debug => "debug",
                        LogLevel::Info => "info",
                        LogLevel::Warn => "warn",
                        LogLevel::Error => "error",
                    };
                    f.publish(
                        &json!({"type": "log", "level": level, "message": msg, "at": now_ms()}),
                    );
                }
            }
        }));
        Debug {
            dispatcher: d.clone(),
            feed,
            tap,
        }
    }

    pub(crate) fn handle(&self, server: &HttpServer, req: &Request<'_>, rest: &str) -> Response {
        let base = server.config().debug_path.as_deref().unwrap_or("");
        match (req.method, rest) {
            ("GET" | "HEAD", "" | "/") => self.page(base),
            ("GET", "/api/registry") => ok(self.registry()),
            ("GET", "/api/function") => {
                let id = query_param(req.query, "id").unwrap_or_default();
                match self.function(&id) {
                    Some(v) => ok(v),
                    None => err(
                        404,
                        &format!("no function {}", crate::model::types::quote_short(&id)),
                    ),
                }
            }
            ("POST", "/api/execute") => match body_json(req) {
                Ok(v) => self.execute(&v),
                Err(r) => r,
            },
            ("POST", "/api/view") => match body_json(req) {
                Ok(v) => self.view(&v),
                Err(r) => r,
            },
            ("GET", "/api/events") => self.events(server),
            (
                _,
                "" | "/" | "/api/registry" | "/api/function" | "/api/execute" | "/api/view"
                | "/api/events",
            ) => err(405, "method not allowed"),
            _ => err(404, "not found"),
        }
    }

    fn registry(&self) -> Value {
        let mut r = self.dispatcher.registry_value();
        r["formats"] = json!(crate::export::Format::NAMES);
        r
    }

    /// One function's schemas and exports; `None` when there is no such function.
    pub(crate) fn function(&self, id: &str) -> Option<Value> {
        let d = &self.dispatcher;
        let parameters = d.parameters_schema(id).ok()?;
        let result = d.result_schema(id).ok().flatten();
        let mut exports = serde_json::Map::new();
        for f in crate::export::Format::ALL {
            let Ok(text) = d.export(f) else { continue };
            let name = f.name();
            if name == "mcp" {
                if let Ok(Value::Array(tools)) = serde_json::from_str::<Value>(&text) {
                    if let Some(t) = tools.into_iter().find(|t| t["name"] == id) {
                        exports.insert(name.into(), t);
                    }
                }
            } else if text.trim_start().starts_with('<') {
                if let Some(x) = xml_element_for(&text, id) {
                    exports.insert(name.into(), Value::String(x));
                }
            } else if name.contains("swift") || text.contains("AppIntent") {
                if let Some(x) = swift_decl_for(&text, id) {
                    exports.insert(name.into(), Value::String(x));
                }
            }
        }
        Some(json!({
            "id": id,
            "parametersSchema": parameters,
            "resultSchema": result,
            "exports": exports,
        }))
    }

    fn execute(&self, v: &Value) -> Response {
        let Some(function) = v["function"].as_str() else {
            return err(400, "execute needs \"function\" (a string)");
        };
        let platform = match v["platform"].as_str().unwrap_or("other") {
            "other" => Platform::Other,
            "apple" => Platform::Apple,
            "android" => Platform::Android,
            p => {
                return err(
                    400,
                    &format!(
                        "platform: {} is not one of other, apple, android",
                        crate::model::types::quote_short(p)
                    ),
                )
            }
        };
        let mut inv = Invocation::new(function)
            .platform(platform)
            .foreground(v["foreground"].as_bool().unwrap_or(false));
        if let Some(c) = v["caller"].as_str().filter(|c| !c.is_empty()) {
            inv = inv.caller(c);
        }
        match &v["timeoutMs"] {
            Value::Null => {}
            t => match t.as_u64() {
                Some(0) => {}
                Some(ms) => inv = inv.timeout(Duration::from_millis(ms)),
                None => return err(400, "timeoutMs: a whole number of milliseconds"),
            },
        }
        let args = match &v["arguments"] {
            Value::Null => None,
            a @ Value::Object(_) => Some(a.to_string()),
            _ => return err(400, "arguments: a JSON object"),
        };
        let outcome = self.dispatcher.execute(&inv, args.as_deref());
        let outcome: Value = serde_json::from_str(&outcome).unwrap_or(Value::Null);
        ok(json!({"outcome": outcome}))
    }

    fn view(&self, v: &Value) -> Response {
        let metadata = match &v["metadata"] {
            Value::Null => json!({}),
            m @ Value::Object(_) => m.clone(),
            _ => return err(400, "metadata: a JSON object"),
        };
        match crate::view::View::new(&self.dispatcher, metadata) {
            Ok(view) => ok(json!({"tools": view.mcp_tools(), "instructions": view.instructions()})),
            Err(e) => err(400, &format!("metadata: {e}")),
        }
    }

    fn events(&self, server: &HttpServer) -> Response {
        let Some(release) = server.inner().take_stream_slot() else {
            return err(503, "too many streams are open; close one or retry later");
        };
        let (stream, tx) = EventStream::new(Some(release));
        tx.send(&json!({"type": "hello", "at": now_ms()}).to_string());
        self.feed.listeners.lock().push(tx);
        Response::stream_of(stream)
    }

    fn page(&self, base: &str) -> Response {
        let nonce = super::new_session_id();
        let reg = self.dispatcher.registry_value();
        let mut list = String::new();
        for f in reg["functions"].as_array().into_iter().flatten() {
            let id = f["id"].as_str().unwrap_or("");
            let enabled = f["enabled"].as_bool().unwrap_or(true);
            list.push_str("<li data-id=\"");
            list.push_str(&escape(id));
            list.push_str("\"><code>");
            list.push_str(&escape(id));
            list.push_str("</code>");
            if let Some(t) = f["title"].as_str() {
                list.push_str(" <b>");
                list.push_str(&escape(t));
                list.push_str("</b>");
            }
            if !enabled {
                list.push_str(" <em class=\"off\">disabled</em>");
            }
            if let Some(t) = f["toolkit"].as_str() {
                list.push_str(" <span class=\"tag\">toolkit ");
                list.push_str(&escape(t));
                list.push_str("</span>");
            }
            if let Some(t) = f["description"].as_str() {
                list.push_str("<br><small>");
                list.push_str(&escape(t));
                list.push_str("</small>");
            }
            list.push_str("</li>\n");
        }
        let html = PAGE
            .replace("{{NONCE}}", &nonce)
            .replace("{{BASE}}", &escape(base))
            .replace("{{FUNCTIONS}}", &list);
        let mut r = Response::typed(200, "text/html; charset=utf-8", html.into_bytes());
        r.headers.push((
            "Content-Security-Policy".into(),
            format!("default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ));
        r.headers
            .push(("X-Content-Type-Options".into(), "nosniff".into()));
        r.headers.push(("Cache-Control".into(), "no-store".into()));
        r
    }
}

impl Drop for Debug {
    fn drop(&mut self) {
        self.dispatcher.remove_log_tap(self.tap);
        for s in self.feed.listeners.lock().drain(..) {
            s.end();
        }
    }
}

fn ok(v: Value) -> Response {
    Response::typed(200, "application/json", v.to_string().into_bytes())
}

fn err(status: u16, message: &str) -> Response {
    Response::typed(
        status,
        "application/json",
        json!({"error": message}).to_string().into_bytes(),
    )
}

fn body_json(req: &Request<'_>) -> Result<Value, Response> {
    if !req.header("content-type").is_some_and(|c| {
        c.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .eq_ignore_ascii_case("application/json")
    }) {
        return Err(err(415, "the body must be application/json"));
    }
    serde_json::from_slice::<Value>(req.body)
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| err(400, "the body must be a JSON object"))
}

/// The value of `name` in a query string (`a=1&id=x%20y`), percent-decoded.
fn query_param(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k == name).then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |j: usize| b.get(j).and_then(|c| (*c as char).to_digit(16));
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => match (hex(i + 1), hex(i + 2)) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(crate) fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// The XML element (`<appfunction>…</appfunction>`, any case) whose `<id>` is `id`.
fn xml_element_for(xml: &str, id: &str) -> Option<String> {
    let lower = xml.to_ascii_lowercase();
    let want = format!("<id>{}</id>", escape(id).to_ascii_lowercase());
    let mut at = 0;
    while let Some(start) = lower[at..].find("<appfunction").map(|i| i + at) {
        let after = lower[start + 1..].find(['>', ' ']).map(|i| i + start + 1)?;
        let tag = &lower[start + 1..after];
        if tag != "appfunction" {
            at = after;
            continue;
        }
        let close = format!("</{tag}>");
        let end = lower[start..]
            .find(&close)
            .map(|i| i + start + close.len())?;
        if lower[start..end].contains(&want) {
            return Some(xml[start..end].to_owned());
        }
        at = end;
    }
    None
}

/// The top-level Swift declaration (from its line to the closing brace at column 0)
/// that mentions `id` in a string literal.
fn swift_decl_for(src: &str, id: &str) -> Option<String> {
    let quoted = format!("\"{id}\"");
    let mut decl_start: Option<usize> = None;
    let mut offset = 0;
    for line in src.split_inclusive('\n') {
        let starts_decl = !line.starts_with([' ', '\t', '}', '\n', '/', '@']) && line.contains('{');
        if starts_decl {
            decl_start = Some(offset);
        }
        offset += line.len();
        if line.starts_with('}') {
            if let Some(s) = decl_start.take() {
                let block = &src[s..offset];
                if block.contains(&quoted) {
                    return Some(block.to_owned());
                }
            }
        }
    }
    None
}

impl Response {
    pub(crate) fn stream_of(s: EventStream) -> Response {
        Response::stream(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_percent_decoded() {
        assert_eq!(
            query_param("a=1&id=create%5Forder", "id").as_deref(),
            Some("create_order")
        );
        assert_eq!(query_param("id=a+b%", "id").as_deref(), Some("a b%"));
        assert_eq!(query_param("x=1", "id"), None);
    }

    #[test]
    fn the_xml_element_of_one_function_is_found() {
        let xml = "<appfunctions>\n<appfunction>\n<id>a</id>\n</appfunction>\n<appfunction>\n<id>b</id>\n</appfunction>\n</appfunctions>";
        assert_eq!(
            xml_element_for(xml, "b").as_deref(),
            Some("<appfunction>\n<id>b</id>\n</appfunction>")
        );
        assert_eq!(xml_element_for(xml, "c"), None);
    }

    #[test]
    fn the_swift_declaration_naming_a_function_is_found() {
        let src = "import AppIntents\n\nstruct A: AppIntent {\n    static let id = \"a\"\n}\n\nstruct B: AppIntent {\n    static let id = \"b\"\n}\n";
        assert_eq!(
            swift_decl_for(src, "b").as_deref(),
            Some("struct B: AppIntent {\n    static let id = \"b\"\n}\n")
        );
    }
}
