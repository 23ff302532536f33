//! MCP over Streamable HTTP through the transport-neutral exchange (`appfunctions::http`):
//! both eras, streams, and every security bound; and the debug page's API.

#[path = "../examples/demo/app.rs"]
mod app;

use appfunctions::http::{Body, EventStream, HttpConfig, HttpServer, Next, Request, Response};
use appfunctions::{sync_handler, Dispatcher};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("Content-Type", "application/json");

fn server(config: HttpConfig) -> (app::DemoApp, HttpServer) {
    let a = app::build();
    let s = HttpServer::new(&a.dispatcher, config).unwrap();
    (a, s)
}

fn send(s: &HttpServer, method: &str, headers: &[(&str, &str)], body: &str) -> Response {
    s.handle(&Request {
        method,
        path: "/mcp",
        query: "",
        headers: headers.to_vec(),
        body: body.as_bytes(),
    })
}

/// The GET of a session's event stream (`Accept: text/event-stream`, its `Mcp-Session-Id`).
fn get_stream(s: &HttpServer, sid: &str) -> Response {
    send(
        s,
        "GET",
        &[("Accept", "text/event-stream"), ("Mcp-Session-Id", sid)],
        "",
    )
}

/// A POST to /mcp as a client sends it (Accept and Content-Type set), with these headers more.
fn post(s: &HttpServer, headers: &[(&str, &str)], body: &str) -> Response {
    let mut all = vec![ACCEPT, JSON];
    all.extend_from_slice(headers);
    send(s, "POST", &all, body)
}

fn body(r: &Response) -> Value {
    serde_json::from_str(&r.text()).unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", r.body))
}

/// The events of a stream until it ends (or `max` of them).
fn events(r: Response, max: usize) -> Vec<Value> {
    let Body::Stream(st) = r.body else {
        panic!("not a stream: {:?}", r.body)
    };
    drain(&st, max)
}

fn drain(st: &EventStream, max: usize) -> Vec<Value> {
    let mut out = Vec::new();
    while out.len() < max {
        match st.next(Duration::from_secs(10)) {
            Next::Event(f) => {
                let data = f
                    .strip_prefix("event: message\ndata: ")
                    .and_then(|d| d.strip_suffix("\n\n"))
                    .expect("one data line per frame");
                out.push(serde_json::from_str(data).unwrap());
            }
            Next::Idle => panic!("no event within 10 s (got {out:?})"),
            Next::End => break,
        }
    }
    out
}

fn init(s: &HttpServer, version: &str) -> String {
    let r = post(
        s,
        &[],
        &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":version,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string(),
    );
    assert_eq!(r.status, 200, "{:?}", r.body);
    let b = body(&r);
    assert_eq!(b["result"]["protocolVersion"], version);
    // the handshake era advertises tools.listChanged: the GET stream carries it
    assert_eq!(b["result"]["capabilities"]["tools"]["listChanged"], true);
    let sid = r.header("Mcp-Session-Id").expect("a session id").to_owned();
    let n = post(
        s,
        &[("Mcp-Session-Id", &sid), ("MCP-Protocol-Version", version)],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!((n.status, n.text().len()), (202, 0));
    sid
}

fn in_session(s: &HttpServer, sid: &str, body: Value) -> Response {
    post(
        s,
        &[
            ("Mcp-Session-Id", sid),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        &body.to_string(),
    )
}

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn modern(s: &HttpServer, method: &str, name: Option<&str>, params: Value) -> Response {
    let mut p = params;
    p["_meta"] = serde_json::from_str(META).unwrap();
    let mut h = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    if let Some(n) = name {
        h.push(("Mcp-Name", n));
    }
    post(
        s,
        &h,
        &json!({"jsonrpc":"2.0","id":7,"method":method,"params":p}).to_string(),
    )
}

#[test]
fn a_handshake_session_lists_calls_streams_and_ends() {
    let (_a, s) = server(HttpConfig::default());
    let sid = init(&s, "2025-11-25");
    let r = in_session(
        &s,
        &sid,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let names: Vec<String> = body(&r)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        names.contains(&"create_order".to_owned()) && names.contains(&"orders".to_owned()),
        "{names:?}"
    );

    // a tools/call answers an SSE stream whose one event is the response
    let r = in_session(
        &s,
        &sid,
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"a","quantity":2}}}),
    );
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert_eq!(r.header("x-accel-buffering"), Some("no"));
    let ev = events(r, 5);
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(ev[0]["id"], 2);
    assert_eq!(ev[0]["result"]["isError"], false);

    // the GET stream carries list_changed when a toolkit expands (a call of its container)
    let g = get_stream(&s, &sid);
    assert_eq!(g.status, 200);
    let Body::Stream(gs) = g.body else { panic!() };
    assert_eq!(
        gs.next(Duration::from_millis(20)),
        Next::Idle,
        "nothing before a change"
    );
    let r = in_session(
        &s,
        &sid,
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"orders","arguments":{}}}),
    );
    assert_eq!(events(r, 5)[0]["result"]["isError"], false);
    let n = drain(&gs, 1);
    assert_eq!(n[0]["method"], "notifications/tools/list_changed");
    // a second GET stream on the same session is refused while the first is open
    let g2 = get_stream(&s, &sid);
    assert_eq!(g2.status, 409);

    // DELETE ends the session (and its stream); the id is unknown afterwards
    let d = send(&s, "DELETE", &[("Mcp-Session-Id", &sid)], "");
    assert_eq!(d.status, 204);
    assert_eq!(gs.next(Duration::from_secs(5)), Next::End);
    let r = in_session(
        &s,
        &sid,
        json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}),
    );
    assert_eq!(r.status, 404);
    assert_eq!(s.sessions(), 0);
}

#[test]
fn session_ids_and_protocol_versions_are_required_and_checked() {
    let (_a, s) = server(HttpConfig::default());
    let sid = init(&s, "2025-06-18");
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}).to_string();
    let r = post(&s, &[], &list);
    assert_eq!(r.status, 400, "no session id");
    assert!(body(&r)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Mcp-Session-Id"));
    let r = post(&s, &[("Mcp-Session-Id", "nope")], &list);
    assert_eq!(r.status, 404, "unknown session");
    let r = post(
        &s,
        &[
            ("Mcp-Session-Id", &sid),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        &list,
    );
    assert_eq!(r.status, 400, "not the negotiated revision");
    let r = post(
        &s,
        &[
            ("Mcp-Session-Id", &sid),
            ("MCP-Protocol-Version", "1999-01-01"),
        ],
        &list,
    );
    assert_eq!(r.status, 400, "unknown revision");
    // without the header: the negotiated revision
    let r = post(&s, &[("Mcp-Session-Id", &sid)], &list);
    assert_eq!(r.status, 200);
    let r = send(
        &s,
        "POST",
        &[("Accept", "text/html"), JSON, ("Mcp-Session-Id", &sid)],
        &list,
    );
    assert_eq!(r.status, 406);
    let r = send(
        &s,
        "POST",
        &[
            ACCEPT,
            ("Content-Type", "text/plain"),
            ("Mcp-Session-Id", &sid),
        ],
        &list,
    );
    assert_eq!(r.status, 415);
    let r = send(&s, "GET", &[("Accept", "text/event-stream")], "");
    assert_eq!(r.status, 400, "GET without a session");
    let r = send(&s, "PUT", &[], "");
    assert_eq!(r.status, 405);
    // a malformed body in a session: a JSON-RPC parse error with 400
    let r = post(&s, &[("Mcp-Session-Id", &sid)], "{nope");
    assert_eq!(r.status, 400);
    assert_eq!(body(&r)["error"]["code"], -32700);
    // still serving
    let r = post(&s, &[("Mcp-Session-Id", &sid)], &list);
    assert_eq!(r.status, 200);
}

#[test]
fn a_batch_is_served_in_a_2025_03_26_session() {
    let (_a, s) = server(HttpConfig::default());
    let sid = init(&s, "2025-03-26");
    let r = post(
        &s,
        &[("Mcp-Session-Id", &sid)],
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]"#,
    );
    assert_eq!(r.status, 200);
    assert_eq!(body(&r).as_array().unwrap().len(), 2);
}

#[test]
fn a_stream_s_headers_come_before_its_first_event() {
    let a = app::build();
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let rx = std::sync::Mutex::new(rx);
    a.dispatcher
        .register_function(
            r#"{"id":"slow","description":"Waits for the test.","result":"string"}"#,
            Some(sync_handler(move |_| {
                rx.lock()
                    .unwrap()
                    .recv_timeout(Duration::from_secs(10))
                    .ok();
                Ok(Some("\"done\"".into()))
            })),
        )
        .unwrap();
    let s = HttpServer::new(&a.dispatcher, HttpConfig::default()).unwrap();
    let sid = init(&s, "2025-11-25");
    // handle() returns the stream while the handler still waits: the host sends the
    // status and headers at once
    let r = in_session(
        &s,
        &sid,
        json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{}}}),
    );
    assert_eq!(
        (r.status, r.header("content-type")),
        (200, Some("text/event-stream"))
    );
    let Body::Stream(st) = r.body else { panic!() };
    assert_eq!(st.next(Duration::from_millis(50)), Next::Idle);
    tx.send(()).unwrap();
    let ev = drain(&st, 2);
    assert_eq!(ev[0]["result"]["content"][0]["text"], "done");
}

#[test]
fn the_stateless_revision_checks_headers_against_the_body() {
    let (_a, s) = server(HttpConfig::default());
    let r = modern(&s, "server/discover", None, json!({}));
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(
        r.header("Mcp-Session-Id").is_none(),
        "2026-07-28 mints no session"
    );
    assert_eq!(
        body(&r)["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );

    let discover = json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":serde_json::from_str::<Value>(META).unwrap()}}).to_string();
    let code = |r: &Response| body(r)["error"]["code"].as_i64();
    let r = post(&s, &[("Mcp-Method", "server/discover")], &discover);
    assert_eq!(
        (r.status, code(&r)),
        (400, Some(-32020)),
        "no MCP-Protocol-Version"
    );
    let r = post(&s, &[("MCP-Protocol-Version", "2026-07-28")], &discover);
    assert_eq!((r.status, code(&r)), (400, Some(-32020)), "no Mcp-Method");
    let r = post(
        &s,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/list"),
        ],
        &discover,
    );
    assert_eq!(
        (r.status, code(&r)),
        (400, Some(-32020)),
        "Mcp-Method disagrees"
    );
    let r = post(
        &s,
        &[
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Method", "server/discover"),
        ],
        &discover,
    );
    assert_eq!(
        (r.status, code(&r)),
        (400, Some(-32020)),
        "version header disagrees with the body"
    );
    let old = discover.replace("\"2026-07-28\"", "\"2027-01-01\"");
    let r = post(
        &s,
        &[
            ("MCP-Protocol-Version", "2027-01-01"),
            ("Mcp-Method", "server/discover"),
        ],
        &old,
    );
    assert_eq!(
        (r.status, code(&r)),
        (400, Some(-32022)),
        "unsupported version"
    );
    assert_eq!(
        body(&r)["error"]["data"]["supported"],
        json!(["2026-07-28"])
    );

    let r = modern(&s, "nope/nothing", None, json!({}));
    assert_eq!((r.status, code(&r)), (404, Some(-32601)));

    // tools/call needs Mcp-Name equal to params.name, Base64 sentinel decoded
    let call = json!({"name":"create_order","arguments":{"customer":"b","quantity":1}});
    let r = modern(&s, "tools/call", Some("cancel_order"), call.clone());
    assert_eq!((r.status, code(&r)), (400, Some(-32020)));
    let r = modern(&s, "tools/call", None, call.clone());
    assert_eq!((r.status, code(&r)), (400, Some(-32020)));
    let r = modern(
        &s,
        "tools/call",
        Some("=?base64?Y3JlYXRlX29yZGVy?="),
        call.clone(),
    );
    let ev = events(r, 3);
    assert_eq!(ev[0]["result"]["isError"], false, "{ev:?}");
    assert_eq!(ev[0]["result"]["resultType"], "complete");

    // no GET stream or DELETE in 2026-07-28
    let r = send(
        &s,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
        ],
        "",
    );
    assert_eq!(r.status, 405);
    let r = send(&s, "DELETE", &[("MCP-Protocol-Version", "2026-07-28")], "");
    assert_eq!(r.status, 405);
    assert_eq!(s.sessions(), 0);
}

#[test]
fn subscriptions_listen_is_a_stream_acknowledged_first_then_list_changed() {
    let (a, s) = server(HttpConfig::default());
    let r = modern(
        &s,
        "subscriptions/listen",
        None,
        json!({"notifications":{"toolsListChanged":true}}),
    );
    assert_eq!(
        (r.status, r.header("content-type")),
        (200, Some("text/event-stream"))
    );
    let Body::Stream(st) = r.body else { panic!() };
    let ack = drain(&st, 1);
    assert_eq!(ack[0]["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    assert_eq!(s.streams(), 1);
    a.dispatcher.set_enabled("create_note", false).unwrap();
    let n = drain(&st, 1);
    assert_eq!(n[0]["method"], "notifications/tools/list_changed");
    assert_eq!(
        n[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    drop(st);
    assert_eq!(s.streams(), 0, "closing the stream frees its slot");
}

#[test]
fn closing_a_call_s_stream_cancels_the_call() {
    let a = app::build();
    let (seen_tx, seen_rx) = std::sync::mpsc::channel::<bool>();
    let seen_tx = std::sync::Mutex::new(seen_tx);
    a.dispatcher
        .register_function(
            r#"{"id":"wait_for_cancel","description":"Runs until cancelled.","result":"string"}"#,
            Some(Arc::new(move |call: &Arc<appfunctions::Call>| {
                let tx = seen_tx.lock().unwrap().clone();
                let c = call.clone();
                call.on_cancel(Box::new(move || {
                    let _ = tx.send(c.is_cancelled());
                }));
            })),
        )
        .unwrap();
    let s = HttpServer::new(&a.dispatcher, HttpConfig::default()).unwrap();
    let r = modern(
        &s,
        "tools/call",
        Some("wait_for_cancel"),
        json!({"name":"wait_for_cancel","arguments":{}}),
    );
    let Body::Stream(st) = r.body else {
        panic!("{:?}", r.body)
    };
    assert_eq!(st.next(Duration::from_millis(50)), Next::Idle);
    drop(st); // the client went away
    assert_eq!(
        seen_rx.recv_timeout(Duration::from_secs(10)),
        Ok(true),
        "the handler saw the cancellation"
    );
}

#[test]
fn a_foreign_origin_is_forbidden_and_loopback_ones_pass() {
    let (_a, s) = server(HttpConfig {
        allowed_origins: vec!["https://app.example.com".into()],
        ..Default::default()
    });
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string();
    let r = post(&s, &[("Origin", "http://evil.example")], &init);
    assert_eq!(r.status, 403);
    assert!(body(&r).get("id").is_none(), "the error names no request");
    assert_eq!(s.sessions(), 0);
    for o in [
        "http://localhost:6274",
        "http://127.0.0.1:5000",
        "https://app.example.com",
    ] {
        let r = post(&s, &[("Origin", o)], &init);
        assert_eq!(r.status, 200, "{o}");
    }
}

#[test]
fn a_bearer_token_and_the_host_s_hook_authorize_requests() {
    let (_a, s) = server(HttpConfig {
        bearer_token: Some("s3cret".into()),
        ..Default::default()
    });
    let ping = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string();
    let r = post(&s, &[], &ping);
    assert_eq!(
        (r.status, r.header("www-authenticate")),
        (401, Some("Bearer"))
    );
    let r = post(&s, &[("Authorization", "Bearer wrong")], &ping);
    assert_eq!(r.status, 401);
    let r = post(&s, &[("Authorization", "Bearer s3cret")], &ping);
    assert_eq!(r.status, 200);
    s.set_authorize(Some(Arc::new(|req: &Request<'_>| {
        if req.header("x-user") == Some("alice") {
            Ok(())
        } else {
            Err(403)
        }
    })));
    let r = post(&s, &[("Authorization", "Bearer s3cret")], &ping);
    assert_eq!(r.status, 403);
    let r = post(
        &s,
        &[("Authorization", "bearer s3cret"), ("X-User", "alice")],
        &ping,
    );
    assert_eq!(r.status, 200);
}

#[test]
fn an_oversized_body_is_refused_with_413_and_the_server_keeps_serving() {
    let (_a, s) = server(HttpConfig {
        max_body_bytes: 1000,
        ..Default::default()
    });
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}",
        "a".repeat(2000)
    );
    let r = post(&s, &[], &big);
    assert_eq!(r.status, 413);
    // a declared length over the limit is refused before the body is read
    let r = post(&s, &[("Content-Length", "9999999999")], "");
    assert_eq!(r.status, 413);
    assert_eq!(HttpConfig::default().max_body_bytes, 8 << 20);
    init(&s, "2025-11-25");
}

#[test]
fn sessions_are_bounded_the_oldest_idle_one_evicted_else_the_new_one_refused() {
    assert_eq!(HttpConfig::default().max_sessions, 100);
    let (_a, s) = server(HttpConfig {
        max_sessions: 3,
        ..Default::default()
    });
    let ids: Vec<String> = (0..3).map(|_| init(&s, "2025-11-25")).collect();
    // the first is used again: the second is now the one idle longest
    std::thread::sleep(Duration::from_millis(5));
    in_session(&s, &ids[0], json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    let fourth = init(&s, "2025-11-25");
    assert_eq!(s.sessions(), 3);
    assert_eq!(
        in_session(&s, &ids[1], json!({"jsonrpc":"2.0","id":1,"method":"ping"})).status,
        404
    );
    assert_eq!(
        in_session(&s, &ids[0], json!({"jsonrpc":"2.0","id":1,"method":"ping"})).status,
        200
    );
    // every session busy (a stream open): the new one is refused with 503
    let streams: Vec<Response> = [&ids[0], &ids[2], &fourth]
        .iter()
        .map(|id| get_stream(&s, id))
        .collect();
    assert!(streams.iter().all(|r| r.status == 200));
    let r = post(
        &s,
        &[],
        &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string(),
    );
    assert_eq!((r.status, r.header("retry-after").is_some()), (503, true));
    drop(streams);
    init(&s, "2025-11-25");
}

#[test]
fn streams_are_bounded_and_a_closed_one_frees_its_slot() {
    let (_a, s) = server(HttpConfig {
        max_streams: 2,
        ..Default::default()
    });
    let ids: Vec<String> = (0..3).map(|_| init(&s, "2025-11-25")).collect();
    let a = get_stream(&s, &ids[0]);
    let b = get_stream(&s, &ids[1]);
    assert_eq!((a.status, b.status), (200, 200));
    assert_eq!(get_stream(&s, &ids[2]).status, 503);
    let listen = modern(
        &s,
        "subscriptions/listen",
        None,
        json!({"notifications":{"toolsListChanged":true}}),
    );
    assert_eq!(listen.status, 503, "listen streams count too");
    drop(a);
    assert_eq!(get_stream(&s, &ids[2]).status, 200);
}

/// Whether `f` holds within `within` (polled every 10 ms).
fn eventually(within: Duration, f: impl Fn() -> bool) -> bool {
    let until = std::time::Instant::now() + within;
    loop {
        if f() {
            return true;
        }
        if std::time::Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn ping(s: &HttpServer, sid: &str) -> u16 {
    in_session(s, sid, json!({"jsonrpc":"2.0","id":1,"method":"ping"})).status
}

#[test]
fn idle_sessions_expire_with_no_request_coming() {
    assert_eq!(
        HttpConfig::default().session_idle,
        Duration::from_secs(1800)
    );
    let (_a, s) = server(HttpConfig {
        session_idle: Duration::from_millis(100),
        ..Default::default()
    });
    let idle = init(&s, "2025-11-25");
    let streaming = init(&s, "2025-11-25");
    let g = get_stream(&s, &streaming);
    assert_eq!((g.status, s.sessions()), (200, 2));
    // nobody calls the server: its own timer ends the idle session
    assert!(
        eventually(Duration::from_secs(10), || s.sessions() == 1),
        "the idle session was not swept without a request: {} sessions",
        s.sessions()
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(s.sessions(), 1, "a session with an open stream is not idle");
    assert_eq!(s.expire_idle(), 0, "the timer swept already");
    assert_eq!(ping(&s, &idle), 404);
    assert_eq!(ping(&s, &streaming), 200);
    // its stream closed, the other session is idle from then on, and ends too
    drop(g);
    assert!(eventually(Duration::from_secs(10), || s.sessions() == 0));
    assert_eq!(ping(&s, &streaming), 404);
}

#[test]
fn a_session_used_within_its_idle_time_is_kept() {
    // an idle time far above a loaded machine's scheduling noise, pings ten times as often
    let (_a, s) = server(HttpConfig {
        session_idle: Duration::from_secs(1),
        ..Default::default()
    });
    let used = init(&s, "2025-11-25");
    let unused = init(&s, "2025-11-25");
    let start = std::time::Instant::now();
    // used throughout: past twice its idle time and until the unused one has been swept
    while start.elapsed() < Duration::from_millis(2500) || s.sessions() == 2 {
        assert_eq!(ping(&s, &used), 200, "after {:?}", start.elapsed());
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "the unused session was never swept"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(s.sessions(), 1);
    assert_eq!(ping(&s, &unused), 404);
    assert_eq!(ping(&s, &used), 200);
    // no longer used, it ends in its turn
    assert!(eventually(Duration::from_secs(10), || s.sessions() == 0));
}

#[test]
fn freeing_the_server_with_sessions_pending_leaks_nothing() {
    // the dispatcher's handler holds `marker`: once the dispatcher is gone, only a session,
    // the server or a sweep it left behind could still hold it
    let marker = Arc::new(());
    let d = Dispatcher::new();
    let m = marker.clone();
    d.register_function(
        r#"{"id":"ping","result":"string"}"#,
        Some(sync_handler(move |_| {
            let _ = &m;
            Ok(Some("\"pong\"".into()))
        })),
    )
    .unwrap();
    let s = HttpServer::new(
        &d,
        HttpConfig {
            session_idle: Duration::from_secs(3600),
            ..Default::default()
        },
    )
    .unwrap();
    let streaming = init(&s, "2025-11-25");
    let calling = init(&s, "2025-11-25");
    let g = get_stream(&s, &streaming);
    assert_eq!(g.status, 200);
    let call = in_session(
        &s,
        &calling,
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping","arguments":{}}}),
    );
    assert!(events(call, 1)[0]["result"].to_string().contains("pong"));
    assert_eq!(s.sessions(), 2);
    drop(s);
    let Body::Stream(st) = g.body else {
        panic!("not a stream")
    };
    assert_eq!(
        st.next(Duration::from_secs(10)),
        Next::End,
        "the session's server stream ends with the server"
    );
    drop(st);
    drop(d);
    // (a worker may still be letting go of the call it ran)
    assert!(
        eventually(Duration::from_secs(10), || Arc::strong_count(&marker) == 1),
        "something the server made outlives it"
    );
}

#[test]
fn a_flood_of_sessions_and_streams_leaves_the_server_serving() {
    let (_a, s) = server(HttpConfig::default());
    let mut held = Vec::new();
    for _ in 0..150 {
        let id = init(&s, "2025-11-25");
        let g = get_stream(&s, &id);
        if g.status == 200 {
            held.push(g);
        } else {
            assert_eq!(g.status, 503);
        }
    }
    assert_eq!(held.len(), 32, "the default stream bound");
    assert!(s.sessions() <= 100);
    let fresh = init(&s, "2025-11-25");
    assert_eq!(
        in_session(
            &s,
            &fresh,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"})
        )
        .status,
        200
    );
}

#[test]
fn an_unknown_path_is_404_and_the_debug_page_is_off_by_default() {
    let (_a, s) = server(HttpConfig::default());
    for p in ["/", "/appfunctions", "/mcp/x"] {
        let r = s.handle(&Request {
            method: "GET",
            path: p,
            ..Default::default()
        });
        assert_eq!(r.status, 404, "{p}");
    }
}

fn debug_server() -> (app::DemoApp, HttpServer) {
    server(HttpConfig {
        debug_path: Some("/appfunctions".into()),
        ..Default::default()
    })
}

fn dget(s: &HttpServer, path: &str, query: &str) -> Response {
    s.handle(&Request {
        method: "GET",
        path,
        query,
        ..Default::default()
    })
}

fn dpost(s: &HttpServer, path: &str, v: Value) -> Response {
    let b = v.to_string();
    s.handle(&Request {
        method: "POST",
        path,
        headers: vec![JSON],
        body: b.as_bytes(),
        ..Default::default()
    })
}

#[test]
fn the_debug_page_lists_the_functions_without_script() {
    let (_a, s) = debug_server();
    let r = dget(&s, "/appfunctions", "");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    let html = r.text();
    assert!(
        html.contains("<code>create_order</code>") && html.contains("<code>search_order</code>"),
        "{html}"
    );
    let csp = r.header("content-security-policy").unwrap();
    let nonce = csp
        .split("'nonce-")
        .nth(1)
        .unwrap()
        .split('\'')
        .next()
        .unwrap();
    assert!(html.contains(&format!("<script nonce=\"{nonce}\">")));
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "no external resources"
    );
    assert_eq!(dget(&s, "/appfunctions/", "").status, 200);
}

#[test]
fn the_debug_api_shows_schemas_exports_and_runs_calls() {
    let (_a, s) = debug_server();
    let reg = body(&dget(&s, "/appfunctions/api/registry", ""));
    assert!(reg["functions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["id"] == "create_order"));
    assert!(reg["formats"].as_array().unwrap().contains(&json!("mcp")));
    let f = body(&dget(&s, "/appfunctions/api/function", "id=create_order"));
    assert_eq!(
        f["parametersSchema"]["properties"]["quantity"]["minimum"],
        1
    );
    assert_eq!(f["exports"]["mcp"]["name"], "create_order");
    assert!(f["exports"]["android-xml"]
        .as_str()
        .unwrap()
        .contains("<id>create_order</id>"));
    assert_eq!(
        dget(&s, "/appfunctions/api/function", "id=nope").status,
        404
    );

    let o = body(&dpost(
        &s,
        "/appfunctions/api/execute",
        json!({"function":"create_order","arguments":{"customer":"zed","quantity":3},"platform":"android","caller":"com.example.agent","timeoutMs":5000}),
    ));
    assert_eq!(o["outcome"]["status"], "success", "{o}");
    assert_eq!(o["outcome"]["dialog"], "Order o-3 created for zed.");
    let o = body(&dpost(
        &s,
        "/appfunctions/api/execute",
        json!({"function":"cancel_order","arguments":{"order":"o-1"}}),
    ));
    assert_eq!(
        o["outcome"]["errorCode"], "Denied",
        "the sign-in delegate refuses: {o}"
    );
    assert_eq!(
        dpost(
            &s,
            "/appfunctions/api/execute",
            json!({"function":"x","platform":"moon"})
        )
        .status,
        400
    );

    let v = body(&dpost(
        &s,
        "/appfunctions/api/view",
        json!({"metadata":{"ShopName":"Zed's"}}),
    ));
    assert!(v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "orders"));
}

#[test]
fn the_debug_feed_shows_calls_made_elsewhere_and_log_lines() {
    let (a, s) = server(HttpConfig {
        debug_path: Some("/appfunctions".into()),
        max_sessions: 1,
        ..Default::default()
    });
    let r = dget(&s, "/appfunctions/api/events", "");
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let Body::Stream(st) = r.body else { panic!() };
    assert_eq!(drain(&st, 1)[0]["type"], "hello");
    // a call that is not the page's
    a.dispatcher
        .execute(&appfunctions::Invocation::new("list_notes"), None);
    let ev = drain(&st, 1);
    assert_eq!(
        (ev[0]["type"].as_str(), ev[0]["function"].as_str()),
        (Some("outcome"), Some("list_notes"))
    );
    assert_eq!(ev[0]["outcome"]["status"], "success");
    a.dispatcher
        .execute(&appfunctions::Invocation::new("no_such_function"), None);
    let ev = drain(&st, 1);
    assert_eq!(ev[0]["outcome"]["errorCode"], "FunctionNotFound");
    // a log line: the session bound (1 here) evicts the first session, and says so
    init(&s, "2025-11-25");
    init(&s, "2025-11-25");
    let ev = drain(&st, 1);
    assert_eq!(
        (ev[0]["type"].as_str(), ev[0]["level"].as_str()),
        (Some("log"), Some("info")),
        "{ev:?}"
    );
    assert!(ev[0]["message"].as_str().unwrap().contains("session limit"));
    drop(st);
    assert_eq!(s.streams(), 0);
}

#[test]
fn a_bad_configuration_is_refused_with_a_reason() {
    let d = Dispatcher::new();
    let e = HttpServer::new(
        &d,
        HttpConfig {
            mcp_path: Some("mcp".into()),
            ..Default::default()
        },
    )
    .err()
    .unwrap();
    assert!(e.contains("mcpPath"), "{e}");
    let e = HttpServer::new(
        &d,
        HttpConfig {
            metadata: json!([1]),
            ..Default::default()
        },
    )
    .err()
    .unwrap();
    assert!(e.contains("metadata"), "{e}");
}
