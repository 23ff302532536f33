//! The MCP adapter through its Rust API: the handshake and the stateless revision,
//! listing with cursors, calls, errors, cancellation, list_changed, and a barrage of
//! malformed and hostile messages after which the server still answers correctly.

#[path = "../examples/demo/app.rs"]
mod app;

use appfunctions::mcp::{McpConfig, Reply, Session};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

fn session(page_size: usize) -> (app::DemoApp, Arc<Session>, Arc<Mutex<Vec<String>>>) {
    let a = app::build();
    let s = Session::new(
        &a.dispatcher,
        McpConfig {
            page_size,
            ..Default::default()
        },
        json!({}),
    )
    .unwrap();
    let sent = Arc::new(Mutex::new(Vec::new()));
    let sink = sent.clone();
    s.set_notify(Some(Arc::new(move |m: &str| {
        sink.lock().unwrap().push(m.to_owned())
    })));
    (a, s, sent)
}

fn req(s: &Session, v: Value) -> Value {
    serde_json::from_str(&s.handle(&v.to_string()).expect("a response")).unwrap()
}

fn init(s: &Session, version: &str) -> Value {
    let r = req(
        s,
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":version,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
    );
    assert!(s
        .handle(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .is_none());
    r
}

#[test]
fn initialize_negotiates_the_revision() {
    for (asked, got) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let (_a, s, _) = session(0);
        let r = init(&s, asked);
        assert_eq!(r["result"]["protocolVersion"], got);
        assert_eq!(r["result"]["capabilities"]["tools"]["listChanged"], true);
    }
    let (_a, s, _) = session(0);
    init(&s, "2024-11-05");
    let tools = req(&s, json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}));
    let t = &tools["result"]["tools"][0];
    assert!(
        t.get("outputSchema").is_none() && t.get("annotations").is_none(),
        "2024-11-05 has neither: {t}"
    );
}

#[test]
fn the_stateless_revision_answers_discover_and_enveloped_requests() {
    let (_a, s, _) = session(0);
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}});
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":meta}}),
    );
    assert_eq!(r["result"]["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(r["result"]["resultType"], "complete");
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"a","quantity":1},"_meta":meta}}),
    );
    assert_eq!(r["result"]["isError"], false);
    assert_eq!(r["result"]["structuredContent"]["customer"], "a");
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}),
    );
    assert_eq!(r["error"]["code"], -32022);
    let bad = json!({"io.modelcontextprotocol/protocolVersion":"2030-01-01","io.modelcontextprotocol/clientCapabilities":{}});
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":bad}}),
    );
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(r["error"]["data"]["supported"], json!(["2026-07-28"]));
}

#[test]
fn discover_before_initialize_falls_back_cleanly() {
    // the Python SDK's probe without an envelope would be method-not-found; with one it is answered
    let (_a, s, _) = session(0);
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":1,"method":"server/discover"}),
    );
    assert_eq!(r["error"]["code"], -32601);
    assert_eq!(
        init(&s, "2025-11-25")["result"]["protocolVersion"],
        "2025-11-25"
    );
}

#[test]
fn tools_list_pages_with_opaque_cursors() {
    let (_a, s, _) = session(3);
    init(&s, "2025-11-25");
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut params = json!({});
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let r = req(
            &s,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":params}),
        );
        for t in r["result"]["tools"].as_array().unwrap() {
            names.push(t["name"].as_str().unwrap().to_owned());
        }
        match r["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(
        names,
        [
            "create_order",
            "cancel_order",
            "list_notes",
            "create_note",
            "edit_note",
            "orders",
            "report_order_summary",
            "search_order"
        ]
    );
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"garbage"}}),
    );
    assert_eq!(r["error"]["code"], -32602);
}

#[test]
fn calls_succeed_fail_as_tool_errors_and_unknown_tools_are_protocol_errors() {
    let (a, s, _) = session(0);
    init(&s, "2025-11-25");
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"acme","quantity":2}}}),
    );
    let res = &r["result"];
    assert_eq!(res["isError"], false);
    assert_eq!(res["structuredContent"]["priority"], "Normal");
    let text: Value = serde_json::from_str(res["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, res["structuredContent"]);
    assert_eq!(res["content"][1]["text"], "Order o-3 created for acme.");

    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"acme","quantity":"two"}}}),
    );
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("quantity: expected int32, got string \"two\""));

    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"cancel_order","arguments":{"order":"o-1"}}}),
    );
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Sign in to cancel orders."));
    a.sign_in.set(true);
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"cancel_order","arguments":{"order":"o-1"}}}),
    );
    assert_eq!(r["result"]["structuredContent"]["status"], "cancelled");

    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"nope","arguments":{}}}),
    );
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!("x"), json!(-32602))
    );

    // a nullable result is wrapped so structuredContent stays an object
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_notes"}}),
    );
    assert!(r["result"]["structuredContent"]["result"].is_array(), "{r}");
}

/// A transport that handles messages concurrently may take `notifications/initialized`
/// after a request that changed the tool list: the change is told then, not lost (the
/// Kotlin README's session saw it lost once under load).
#[test]
fn a_change_before_notifications_initialized_is_told_when_it_arrives() {
    let (_a, s, sent) = session(0);
    req(
        &s,
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
    );
    req(
        &s,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"orders"}}),
    );
    assert!(
        sent.lock().unwrap().is_empty(),
        "nothing before initialized"
    );
    assert!(s
        .handle(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .is_none());
    let list_changed = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
    assert_eq!(sent.lock().unwrap().as_slice(), [list_changed]);
    // told once: a second initialized (a confused client) sends nothing more
    assert!(s
        .handle(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .is_none());
    assert_eq!(sent.lock().unwrap().len(), 1);
    // and a later change is told at once, as usual
    s.view().set_metadata(json!({})).unwrap();
    assert_eq!(
        sent.lock().unwrap().as_slice(),
        [list_changed, list_changed]
    );
}

#[test]
fn expanding_a_toolkit_sends_list_changed_and_returns_its_instructions() {
    let (_a, s, sent) = session(0);
    init(&s, "2025-11-25");
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"orders"}}),
    );
    let texts: Vec<&str> = r["result"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert!(texts[0].starts_with("Order analytics is ready: use order_stats"));
    assert!(texts[1].starts_with("CRITICAL"));
    assert_eq!(
        sent.lock().unwrap().as_slice(),
        [r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#]
    );
    let tools = req(&s, json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"order_stats")
            && !names.contains(&"orders")
            && !names.contains(&"find_orders")
    );
    // a metadata change through the host API also notifies
    s.view()
        .set_metadata(json!({"HasAdvancedFeatures": true}))
        .unwrap();
    assert_eq!(sent.lock().unwrap().len(), 2);
}

#[test]
fn registry_changes_reach_the_transport() {
    let (a, s, sent) = session(0);
    init(&s, "2025-11-25");
    a.dispatcher
        .register_function(r#"{"id":"late","kind":"output"}"#, None)
        .unwrap();
    assert_eq!(sent.lock().unwrap().len(), 1);
}

#[test]
fn cancelled_calls_get_no_response() {
    let a = app::build();
    let (tx, rx) = std::sync::mpsc::channel::<Arc<appfunctions::Call>>();
    let tx = Mutex::new(tx);
    a.dispatcher
        .register_function(
            r#"{"id":"slow","result":"string"}"#,
            Some(Arc::new(move |c: &Arc<appfunctions::Call>| {
                tx.lock().unwrap().send(c.clone()).unwrap()
            })),
        )
        .unwrap();
    let s = Session::new(&a.dispatcher, McpConfig::default(), json!({})).unwrap();
    init(&s, "2025-11-25");
    let Reply::Call(call) = s.handle_message(
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}"#,
    ) else {
        panic!("a call")
    };
    let s2 = s.clone();
    let worker = std::thread::spawn(move || s2.run_call(call));
    let running = rx.recv().unwrap();
    assert!(s
        .handle(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#)
        .is_none());
    assert!(
        worker.join().unwrap().is_none(),
        "no response for a cancelled request"
    );
    assert!(
        running.complete(Ok(Some("\"late\"".into()))).is_err(),
        "the late completion is refused"
    );
}

#[test]
fn a_thousand_hostile_messages_get_errors_and_the_server_keeps_serving() {
    let (_a, s, _) = session(0);
    let mut messages: Vec<String> = vec![
        String::new(),
        "{".into(),
        "}".into(),
        "null".into(),
        "42".into(),
        "\"x\"".into(),
        "[]".into(),
        "[1,2]".into(),
        "{}".into(),
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#.into(),
        r#"{"jsonrpc":"2.0","id":1}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":7}"#.into(),
        r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#.into(),
        r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#.into(),
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.into(), // before initialize
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_order"}}"#.into(),
        r#"{"jsonrpc":"2.0","id":99999999999999999999999999,"method":"ping"}"#.into(),
        format!(
            r#"{{"jsonrpc":"2.0","id":"{}","method":"ping"}}"#,
            "x".repeat(100_000)
        ),
        format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}"#,
            "{\"a\":".repeat(200) + "1" + &"}".repeat(200)
        ),
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}"#.into(),
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#.into(),
        "\u{0}\u{1}".into(),
    ];
    let methods = [
        "ping",
        "tools/list",
        "tools/call",
        "initialize",
        "resources/list",
        "prompts/get",
        "nope",
        "",
        "notifications/cancelled",
        "server/discover",
    ];
    let params = [
        json!(null),
        json!(1),
        json!("s"),
        json!([]),
        json!({}),
        json!({"name": 5}),
        json!({"name": "create_order", "arguments": []}),
        json!({"name": "create_order", "arguments": {"customer": {"x": [1, 2, {"y": null}]}, "quantity": 1e300}}),
        json!({"name": "cancel_order", "arguments": {"order": "\u{fffd}"}}),
        json!({"cursor": 12}),
        json!({"requestId": {"a": 1}}),
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": 1}}),
    ];
    let ids = [
        json!(1),
        json!("a"),
        json!(-1),
        json!(i64::MAX),
        json!(null),
        json!(true),
        json!(u64::MAX),
    ];
    let mut n = 0u64;
    while messages.len() < 1200 {
        n = n
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let m = methods[(n >> 33) as usize % methods.len()];
        let p = &params[(n >> 40) as usize % params.len()];
        let id = &ids[(n >> 50) as usize % ids.len()];
        let mut v = json!({"jsonrpc": "2.0", "method": m, "params": p});
        if (n >> 20) % 5 != 0 {
            v["id"] = id.clone();
        }
        messages.push(v.to_string());
    }
    for m in &messages {
        if let Some(r) = s.handle(m) {
            let v: Value = serde_json::from_str(&r)
                .unwrap_or_else(|e| panic!("not JSON ({e}) for {m:.80}: {r:.200}"));
            assert_eq!(v["jsonrpc"], "2.0");
            assert!(
                v.get("result").is_some() ^ v.get("error").is_some(),
                "{r:.200}"
            );
            if let Some(e) = v.get("error") {
                assert!(e["code"].is_i64() && e["message"].is_string());
            }
        }
    }
    // still serving correct answers
    let (_a2, s2, _) = session(0);
    for m in &messages {
        let _ = s2.handle(m);
    }
    for s in [&s, &s2] {
        assert_eq!(
            req(s, json!({"jsonrpc":"2.0","id":"p","method":"ping"}))["result"],
            json!({})
        );
    }
}

/// Lines fed to `stdio::serve` one at a time; the input ends when the sender is dropped.
struct Lines(std::sync::mpsc::Receiver<String>, std::io::Cursor<Vec<u8>>);
impl std::io::Read for Lines {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let n = self.1.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            match self.0.recv() {
                Ok(line) => self.1 = std::io::Cursor::new((line + "\n").into_bytes()),
                Err(_) => return Ok(0),
            }
        }
    }
}

/// What `stdio::serve` writes, line by line.
struct Out(std::sync::mpsc::Sender<Value>);
impl std::io::Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let _ = self.0.send(serde_json::from_str(line).unwrap());
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn stdio_blocked_host_code_holds_up_neither_other_calls_nor_the_reader() {
    use std::sync::Condvar;
    use std::time::Duration;
    let a = app::build();
    let latch: Arc<(Mutex<bool>, Condvar)> = Arc::default();
    let wait = {
        let latch = latch.clone();
        move || {
            let g = latch.0.lock().unwrap();
            let _ = latch
                .1
                .wait_timeout_while(g, Duration::from_secs(30), |open| !*open)
                .unwrap();
        }
    };
    // handlers that block in host code until the test opens the latch
    let w = wait.clone();
    a.dispatcher
        .register_function(
            r#"{"id":"blocks","result":"string"}"#,
            Some(appfunctions::sync_handler(move |_| {
                w();
                Ok(Some("\"done\"".into()))
            })),
        )
        .unwrap();
    // a call that never answers, whose telemetry blocks when it is cancelled
    let kept: Mutex<Vec<Arc<appfunctions::Call>>> = Mutex::default();
    a.dispatcher
        .register_function(
            r#"{"id":"waits","result":"string"}"#,
            Some(Arc::new(move |c: &Arc<appfunctions::Call>| {
                kept.lock().unwrap().push(c.clone())
            })),
        )
        .unwrap();
    struct SlowTelemetry<F>(F);
    impl<F: Fn() + Send + Sync> appfunctions::Delegate for SlowTelemetry<F> {
        fn has_on_invoking(&self) -> bool {
            false
        }
        fn on_invoked(&self, c: &Arc<appfunctions::Call>, _: &appfunctions::Outcome, _: &str) {
            if c.function_id() == "waits" {
                (self.0)()
            }
        }
    }
    a.dispatcher
        .add_delegate(Arc::new(SlowTelemetry(wait.clone())));
    let s = Session::new(&a.dispatcher, McpConfig::default(), json!({})).unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let (otx, orx) = std::sync::mpsc::channel::<Value>();
    let server = std::thread::spawn(move || {
        appfunctions::mcp::stdio::serve(
            s,
            std::io::BufReader::new(Lines(rx, std::io::Cursor::new(Vec::new()))),
            Out(otx),
        )
    });
    let next = |id: i64| loop {
        let v = orx
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("no response to {id} within 10 s"));
        if v["id"] == json!(id) {
            return v;
        }
        assert!(v["id"].as_i64().is_some_and(|i| i < 100), "{v}");
    };
    let send = |v: Value| tx.send(v.to_string()).unwrap();
    send(
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
    );
    next(0);
    send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    // more blocked calls than the transport once had workers
    for id in 1..=6 {
        send(json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"blocks"}}));
    }
    send(json!({"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"list_notes"}}));
    assert_eq!(next(100)["result"]["isError"], json!(false));
    // a cancelled call's on_invoked blocks: the reader goes on answering
    send(json!({"jsonrpc":"2.0","id":200,"method":"tools/call","params":{"name":"waits"}}));
    std::thread::sleep(Duration::from_millis(50));
    send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":200}}));
    send(json!({"jsonrpc":"2.0","id":300,"method":"ping"}));
    assert_eq!(next(300)["result"], json!({}));
    *latch.0.lock().unwrap() = true;
    latch.1.notify_all();
    drop(tx);
    server.join().unwrap().unwrap();
    let rest: Vec<Value> = orx.try_iter().collect();
    let mut ids: Vec<i64> = rest.iter().filter_map(|v| v["id"].as_i64()).collect();
    ids.sort();
    assert_eq!(
        ids,
        vec![1, 2, 3, 4, 5, 6],
        "no response for the cancelled call: {rest:?}"
    );
}

const ENVELOPE: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn modern(s: &Session, id: Value, method: &str, mut params: Value) -> Option<Value> {
    params["_meta"] = serde_json::from_str(ENVELOPE).unwrap();
    s.handle(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string())
        .map(|r| serde_json::from_str(&r).unwrap())
}

fn names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

fn sent_values(sent: &Mutex<Vec<String>>) -> Vec<Value> {
    sent.lock()
        .unwrap()
        .iter()
        .map(|m| serde_json::from_str(m).unwrap())
        .collect()
}

#[test]
fn discover_leaves_out_instructions_when_there_are_none() {
    let (_a, s, _) = session(0);
    let r = modern(&s, json!(1), "server/discover", json!({})).unwrap();
    assert!(r["result"].get("instructions").is_none(), "{r}");
    assert_eq!(r["result"]["capabilities"]["tools"]["listChanged"], true);
    let a = app::build();
    let s = Session::new(
        &a.dispatcher,
        McpConfig {
            instructions: Some("Shop tools.".into()),
            ..Default::default()
        },
        json!({}),
    )
    .unwrap();
    let r = modern(&s, json!(1), "server/discover", json!({})).unwrap();
    assert_eq!(r["result"]["instructions"], "Shop tools.");
}

#[test]
fn list_changed_is_false_where_no_notification_can_be_delivered() {
    let a = app::build();
    let s = Session::new(&a.dispatcher, McpConfig::default(), json!({})).unwrap();
    let r = modern(&s, json!(1), "server/discover", json!({})).unwrap();
    assert_eq!(r["result"]["capabilities"]["tools"]["listChanged"], false);
    let r = modern(
        &s,
        json!(2),
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    )
    .unwrap();
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let s = Session::new(&a.dispatcher, McpConfig::default(), json!({})).unwrap();
    assert_eq!(
        init(&s, "2025-11-25")["result"]["capabilities"]["tools"]["listChanged"],
        false
    );
}

#[test]
fn subscriptions_listen_acknowledges_first_then_delivers_list_changed_until_cancelled() {
    let (a, s, sent) = session(0);
    assert!(modern(
        &s,
        json!("sub-1"),
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}})
    )
    .is_none());
    // a stream that asked for nothing we have is acknowledged with an empty filter
    assert!(modern(
        &s,
        json!(9),
        "subscriptions/listen",
        json!({"notifications": {"resourcesListChanged": true}})
    )
    .is_none());
    assert_eq!(
        sent_values(&sent),
        [
            json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"},"notifications":{"toolsListChanged":true}}}),
            json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":9},"notifications":{}}}),
        ]
    );
    let changed = json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}});
    a.dispatcher
        .register_function(r#"{"id":"late","kind":"output"}"#, None)
        .unwrap();
    assert_eq!(&sent_values(&sent)[2..], std::slice::from_ref(&changed));
    // what the client may see changes with the host's metadata
    s.view()
        .set_metadata(json!({"HasAdvancedFeatures": true}))
        .unwrap();
    assert_eq!(sent_values(&sent)[2..], [changed.clone(), changed]);
    // the client cancels: no further message for that stream
    assert!(s
        .handle(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub-1"}}"#
        )
        .is_none());
    assert_eq!(s.subscriptions(), 1);
    a.dispatcher
        .register_function(r#"{"id":"later","kind":"output"}"#, None)
        .unwrap();
    assert_eq!(sent_values(&sent).len(), 4);
    // a reused id and a missing filter are refused
    modern(
        &s,
        json!(9),
        "subscriptions/listen",
        json!({"notifications": {}}),
    )
    .map(|r| assert_eq!(r["error"]["code"], -32600))
    .unwrap();
    modern(&s, json!(10), "subscriptions/listen", json!({}))
        .map(|r| assert_eq!(r["error"]["code"], -32602))
        .unwrap();
    // the server's own teardown answers the open stream
    s.close_subscriptions();
    let last = sent_values(&sent).pop().unwrap();
    assert_eq!(last["id"], 9);
    assert_eq!(last["result"]["resultType"], "complete");
    assert_eq!(
        last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        9
    );
    assert_eq!(s.subscriptions(), 0);
}

#[test]
fn subscriptions_are_limited_and_the_handshake_era_has_none() {
    let (_a, s, _) = session(0);
    for i in 0..16 {
        assert!(modern(
            &s,
            json!(i),
            "subscriptions/listen",
            json!({"notifications": {}})
        )
        .is_none());
    }
    let r = modern(
        &s,
        json!(16),
        "subscriptions/listen",
        json!({"notifications": {}}),
    )
    .unwrap();
    assert_eq!(r["error"]["code"], -32600);
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("at most 16"));
    let (_a, s, _) = session(0);
    init(&s, "2025-11-25");
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}),
    );
    assert_eq!(r["error"]["code"], -32601);
}

#[test]
fn a_stream_ends_cleanly_when_the_stdio_transport_closes() {
    let (a, s, _) = session(0);
    let input = format!(
        "{}\n{}\n",
        json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":serde_json::from_str::<Value>(ENVELOPE).unwrap()}}),
        json!({"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"_meta":serde_json::from_str::<Value>(ENVELOPE).unwrap(),"notifications":{"toolsListChanged":true}}})
    );
    let out = SharedBuf::default();
    appfunctions::mcp::stdio::serve(s.clone(), input.as_bytes(), out.clone()).unwrap();
    let lines = out.lines();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["id"], 1);
    assert_eq!(
        lines[1]["method"],
        "notifications/subscriptions/acknowledged"
    );
    assert_eq!(s.subscriptions(), 0);
    a.dispatcher
        .register_function(r#"{"id":"late","kind":"output"}"#, None)
        .unwrap();
    assert_eq!(
        out.lines().len(),
        2,
        "nothing is written after the transport closed"
    );
}

#[derive(Clone, Default)]
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SharedBuf {
    fn lines(&self) -> Vec<Value> {
        String::from_utf8(self.0.lock().unwrap().clone())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

#[test]
fn the_stateless_tool_list_is_the_same_before_and_after_calls() {
    let (_a, s, sent) = session(0);
    let list =
        |id| modern(&s, json!(id), "tools/list", json!({})).unwrap()["result"]["tools"].clone();
    let before = list(1);
    let names: Vec<&str> = before
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"orders") && !names.contains(&"order_stats"),
        "{names:?}"
    );
    let orders = before
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "orders")
        .unwrap();
    // the container routes to the members the metadata shows, and only to those
    assert_eq!(
        orders["inputSchema"]["properties"]["tool"]["enum"],
        json!(["order_stats"])
    );
    assert!(orders.get("outputSchema").is_none());
    // called without arguments, the container describes its tools; nothing changes
    let menu = modern(&s, json!(2), "tools/call", json!({"name": "orders"})).unwrap();
    let text = menu["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Order analytics is ready") && text.contains("\"name\":\"order_stats\""),
        "{text}"
    );
    assert!(!text.contains("find_orders"), "{text}");
    assert!(menu["result"]["content"][1]["text"]
        .as_str()
        .unwrap()
        .starts_with("CRITICAL"));
    assert_eq!(list(3), before);
    // a member runs through its container
    let r = modern(
        &s,
        json!(4),
        "tools/call",
        json!({"name": "orders", "arguments": {"tool": "order_stats", "arguments": {}}}),
    )
    .unwrap();
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert!(r["result"]["structuredContent"]["open"].is_number(), "{r}");
    assert_eq!(list(5), before);
    // a member called by name is not a tool of this list
    let r = modern(&s, json!(6), "tools/call", json!({"name": "order_stats"})).unwrap();
    assert_eq!(r["error"]["code"], -32602);
    // a member the metadata hides answers exactly like one that does not exist
    let route = |id, tool: &str| {
        let r = modern(
            &s,
            json!(id),
            "tools/call",
            json!({"name": "orders", "arguments": {"tool": tool}}),
        )
        .unwrap();
        assert_eq!(r["result"]["isError"], true);
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .replace(tool, "X")
    };
    assert_eq!(route(7, "find_orders"), route(8, "no_such_tool"));
    assert!(
        sent.lock().unwrap().is_empty(),
        "no notification: nothing changed"
    );
}

#[test]
fn the_handshake_era_keeps_one_view_per_session() {
    let a = app::build();
    let s1 = Session::new(&a.dispatcher, McpConfig::default(), json!({})).unwrap();
    let s2 = Session::new(&a.dispatcher, McpConfig::default(), json!({})).unwrap();
    init(&s1, "2025-11-25");
    init(&s2, "2025-11-25");
    let list = |s: &Session| {
        names(&req(
            s,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        ))
    };
    let before = list(&s2);
    req(
        &s1,
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"orders"}}),
    );
    assert!(list(&s1).contains(&"order_stats".to_owned()));
    assert_eq!(list(&s2), before);
}

#[test]
fn tools_the_client_cannot_see_are_unknown_tools_and_nothing_says_why() {
    let (a, s, _) = session(0);
    init(&s, "2025-11-25");
    let call = |id: i64, name: &str| {
        req(
            &s,
            json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":{}}}),
        )
    };
    let unknown = |r: Value, name: &str| {
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert_eq!(
            r["error"]["message"],
            format!("unknown tool: \"{name}\""),
            "the message says nothing but the name it was given"
        );
    };
    unknown(call(1, "order_stats"), "order_stats"); // in the collapsed toolkit
    unknown(call(2, "find_orders"), "find_orders"); // hidden by its condition
    unknown(call(3, "no_such_tool"), "no_such_tool");
    assert_eq!(call(4, "orders")["result"]["isError"], false);
    unknown(call(5, "orders"), "orders"); // expanded: no longer listed
    assert_eq!(call(6, "order_stats")["result"]["isError"], false);
    unknown(call(7, "find_orders"), "find_orders"); // still hidden by its condition
    a.dispatcher.set_enabled("create_note", false).unwrap();
    unknown(call(8, "create_note"), "create_note");
}

#[test]
fn error_responses_without_an_id_leave_it_out_since_2025_11_25() {
    let (_a, s, _) = session(0);
    init(&s, "2025-11-25");
    let r: Value = serde_json::from_str(&s.handle("{").unwrap()).unwrap();
    assert_eq!(r["error"]["code"], -32700);
    assert!(r.get("id").is_none(), "{r}");
    let (_a, s, _) = session(0);
    init(&s, "2025-06-18");
    let r: Value = serde_json::from_str(&s.handle("{").unwrap()).unwrap();
    assert!(
        r["id"].is_null() && r.get("id").is_some(),
        "JSON-RPC 2.0 says null: {r}"
    );
}

#[test]
fn oversized_messages_are_refused_before_they_are_read() {
    let a = app::build();
    let s = Session::new(
        &a.dispatcher,
        McpConfig {
            max_message_bytes: 100,
            ..Default::default()
        },
        json!({}),
    )
    .unwrap();
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "y".repeat(200)
    );
    let mut bytes = big.clone().into_bytes();
    bytes.push(0xff); // invalid UTF-8 past the limit is never looked at
    for r in [s.handle(&big).unwrap(), s.handle_bytes(&bytes).unwrap()] {
        let v: Value = serde_json::from_str(&r).unwrap();
        assert_eq!(v["error"]["code"], -32600);
        assert!(v["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("more than the limit of 100"));
    }
    let r: Value = serde_json::from_str(&s.handle_bytes(b"{\"a\":\xff}").unwrap()).unwrap();
    assert_eq!(r["error"]["code"], -32700);
}

#[test]
fn the_apps_own_view_calls_in_the_foreground_and_an_mcp_client_does_not() {
    // the sign-in gate asks for the app: the in-app assistant's view is the app, so it
    // passes; an MCP client is outside the app, so it is refused with the gate's message
    let (a, s, _) = session(0);
    assert!(!a.sign_in.is_signed_in());
    let id = a.orders.lock().unwrap()[0].id.clone();
    let args = json!({ "order": id }).to_string();
    init(&s, "2025-11-25");
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cancel_order","arguments":{"order": id}}}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(
        r["result"]["content"][0]["text"],
        "Denied: Sign in to cancel orders."
    );
    let view = appfunctions::view::View::new(&a.dispatcher, json!({})).unwrap();
    let vo = view.execute("cancel_order", Some(&args));
    assert!(vo.outcome.is_success(), "{}", vo.outcome.to_json());
    // configurable: a host whose view serves a caller outside the app says so
    let vo = view.execute_with(
        "cancel_order",
        Some(&args),
        &appfunctions::Invocation::new("cancel_order").foreground(false),
    );
    assert_eq!(
        vo.outcome.error_code,
        Some(appfunctions::ErrorCode::Denied),
        "{}",
        vo.outcome.to_json()
    );
}

/// The published JSON schema of MCP revision `rev` (`$AF_SHARED/specs/mcp`, the offline
/// copy beside the repository that the lanes point at).
fn revision_schema(rev: &str) -> Value {
    let shared = std::env::var("AF_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let path = shared.join("specs/mcp").join(rev).join("schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "the MCP {rev} schema is missing at {} ({e}): set AF_SHARED",
            path.display()
        )
    });
    serde_json::from_str(&text).unwrap()
}

/// What in `v` breaks the schema's `def` (the keywords these schemas use for messages:
/// `$ref`, `allOf`, `anyOf`, `type`, `const`, `required`, `properties`, `items`).
fn schema_errors(root: &Value, def: &Value, v: &Value, at: &str, out: &mut Vec<String>) {
    if let Some(r) = def["$ref"].as_str() {
        let name = r.rsplit('/').next().unwrap();
        schema_errors(root, &root["$defs"][name], v, at, out);
    }
    for d in def["allOf"].as_array().into_iter().flatten() {
        schema_errors(root, d, v, at, out);
    }
    if let Some(any) = def["anyOf"].as_array() {
        let ok = any.iter().any(|d| {
            let mut e = Vec::new();
            schema_errors(root, d, v, at, &mut e);
            e.is_empty()
        });
        if !ok {
            out.push(format!("{at}: matches none of anyOf"));
        }
    }
    if let Some(c) = def.get("const") {
        if c != v {
            out.push(format!("{at}: {v} is not {c}"));
        }
    }
    let kind_ok = |t: &str| match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => true,
    };
    match &def["type"] {
        Value::String(t) if !kind_ok(t) => out.push(format!("{at}: {v} is not of type {t}")),
        Value::Array(ts) if !ts.iter().any(|t| kind_ok(t.as_str().unwrap_or(""))) => {
            out.push(format!("{at}: {v} is not of types {ts:?}"))
        }
        _ => {}
    }
    if let Some(obj) = v.as_object() {
        for k in def["required"].as_array().into_iter().flatten() {
            if !obj.contains_key(k.as_str().unwrap()) {
                out.push(format!("{at}: {k} is required"));
            }
        }
        for (k, d) in def["properties"].as_object().into_iter().flatten() {
            if let Some(x) = obj.get(k) {
                schema_errors(root, d, x, &format!("{at}/{k}"), out);
            }
        }
    }
    if let (Some(items), Some(a)) = (def.get("items"), v.as_array()) {
        for (i, x) in a.iter().enumerate() {
            schema_errors(root, items, x, &format!("{at}/{i}"), out);
        }
    }
}

/// Asserts `v` is a `def` of revision `rev`'s schema.
fn assert_schema(rev: &str, def: &str, v: &Value) {
    let root = revision_schema(rev);
    assert!(root["$defs"].get(def).is_some(), "{rev} has no {def}");
    let mut out = Vec::new();
    schema_errors(&root, &root["$defs"][def], v, "", &mut out);
    assert!(out.is_empty(), "not a {rev} {def}: {out:?} in {v}");
}

#[test]
fn the_schema_check_itself_catches_a_missing_required_member() {
    let root = revision_schema("2026-07-28");
    let mut out = Vec::new();
    let v = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m","data":{"supported":["2026-07-28"]}}});
    schema_errors(
        &root,
        &root["$defs"]["UnsupportedProtocolVersionError"],
        &v,
        "",
        &mut out,
    );
    assert_eq!(out, vec!["/error/data: \"requested\" is required"]);
}

#[test]
fn a_tools_call_whose_params_are_an_array_is_refused_on_every_path() {
    let (a, s, _) = session(0);
    init(&s, "2025-11-25");
    let before = a.orders.lock().unwrap().len();
    for m in [
        // positional params: the hot path's reader must not take them as fields
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":["create_order",{"customer":"a","quantity":1}]}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":["create_order",{"customer":"a","quantity":1},null]}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":[]}"#,
    ] {
        let r: Value = serde_json::from_str(&s.handle(m).unwrap()).unwrap();
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert!(r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"params\" must be an object, not an array"));
        assert_schema("2025-11-25", "JSONRPCErrorResponse", &r);
    }
    // a whole message that is an array is a batch, which this revision does not have
    let r: Value = serde_json::from_str(
        &s.handle(r#"["2.0",5,"tools/call",{"name":"create_order","arguments":{"customer":"a","quantity":1}}]"#)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert_eq!(a.orders.lock().unwrap().len(), before, "no tool ran");
    // the object form still runs
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"a","quantity":1}}}),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
}

#[test]
fn initialize_on_a_stateless_connection_names_the_version_it_was_asked_for() {
    let (_a, s, _) = session(0);
    assert!(modern(&s, json!(1), "server/discover", json!({})).unwrap()["result"].is_object());
    for (params, asked) in [
        (
            json!({"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}),
            "2025-11-25",
        ),
        (json!({}), ""),
    ] {
        // with and without the envelope: either way the connection is in 2026-07-28
        let plain = req(
            &s,
            json!({"jsonrpc":"2.0","id":2,"method":"initialize","params":params}),
        );
        let enveloped = modern(&s, json!(3), "initialize", params).unwrap();
        for r in [plain, enveloped] {
            assert_eq!(r["error"]["code"], -32022, "{r}");
            assert_eq!(r["error"]["data"]["requested"], asked, "{r}");
            assert_eq!(r["error"]["data"]["supported"], json!(["2026-07-28"]));
            assert_schema("2026-07-28", "UnsupportedProtocolVersionError", &r);
        }
    }
    // an enveloped request of an unsupported version says the same
    let bad = json!({"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01","io.modelcontextprotocol/clientCapabilities":{}}}});
    assert_schema(
        "2026-07-28",
        "UnsupportedProtocolVersionError",
        &req(&s, bad),
    );
}

#[test]
fn a_second_initialize_is_refused_and_the_negotiated_revision_stays() {
    let (_a, s, _) = session(0);
    assert_eq!(
        init(&s, "2025-11-25")["result"]["protocolVersion"],
        "2025-11-25"
    );
    let r = req(
        &s,
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
    );
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("already initialized (protocol version 2025-11-25)"));
    assert_schema("2025-11-25", "JSONRPCErrorResponse", &r);
    // still 2025-11-25: tools keep their 2025-06-18-and-later members
    let tools = req(&s, json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}));
    assert!(
        tools["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t.get("outputSchema").is_some()),
        "{tools}"
    );
    // before notifications/initialized as well: one initialize per connection
    let (_a, s, _) = session(0);
    let first = req(
        &s,
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
    );
    assert_eq!(first["result"]["protocolVersion"], "2025-06-18");
    let again = req(
        &s,
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
    );
    assert_eq!(again["error"]["code"], -32600, "{again}");
}

#[test]
fn params_must_be_an_object_for_every_method() {
    let (_a, s, _) = session(0);
    init(&s, "2025-11-25");
    for method in [
        "ping",
        "tools/list",
        "tools/call",
        "initialize",
        "resources/list",
    ] {
        for (params, kind) in [
            (json!(7), "a number"),
            (json!([]), "an array"),
            (json!("x"), "a string"),
            (json!(true), "a boolean"),
        ] {
            let r = req(
                &s,
                json!({"jsonrpc":"2.0","id":1,"method":method,"params":params}),
            );
            assert_eq!(r["error"]["code"], -32602, "{method} {params}: {r}");
            assert_eq!(
                r["error"]["message"],
                format!("\"params\" must be an object, not {kind}")
            );
            assert_schema("2025-11-25", "JSONRPCErrorResponse", &r);
        }
        let r = req(
            &s,
            json!({"jsonrpc":"2.0","id":1,"method":method,"params":{"_meta":5}}),
        );
        assert_eq!(r["error"]["code"], -32602, "{method}: {r}");
    }
    // a notification with bad params gets no answer, and the session goes on
    assert!(s
        .handle(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}"#)
        .is_none());
    for ok in [json!({}), json!(null), json!({"_meta": {}})] {
        let r = req(
            &s,
            json!({"jsonrpc":"2.0","id":2,"method":"ping","params":ok}),
        );
        assert_eq!(r["result"], json!({}), "{ok}: {r}");
        assert_schema("2025-11-25", "JSONRPCResultResponse", &r);
    }
    let r = req(&s, json!({"jsonrpc":"2.0","id":3,"method":"ping"}));
    assert_eq!(r["result"], json!({}));
}

#[test]
fn no_member_of_a_message_may_nest_deeper_than_the_limit_even_one_the_server_skips() {
    let (_a, s, _) = session(0);
    init(&s, "2025-11-25");
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for m in [
        // params the server skips, a member it never reads, a tools/call's id and name
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}}}}}"#,
            deep(20_000)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","extra":{}}}"#,
            deep(200)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"create_order","arguments":{{"customer":"a","quantity":1}},"x":{}}}}}"#,
            deep(129)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized","params":{{"x":{}}}}}"#,
            deep(129)
        ),
    ] {
        let r: Value = serde_json::from_str(&s.handle(&m).expect("an answer")).unwrap();
        assert_eq!(r["error"]["code"], -32600, "{r}");
        assert!(r["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("the message nests arrays and objects more than 128 levels deep"));
        assert_schema("2025-11-25", "JSONRPCErrorResponse", &r);
    }
    // 127 levels below params (128 with the message itself) are read as usual; brackets in
    // strings do not count
    let m = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"x":{},"s":"{}"}}}}"#,
        deep(126),
        "[".repeat(500)
    );
    let r: Value = serde_json::from_str(&s.handle(&m).unwrap()).unwrap();
    assert_eq!(r["result"], json!({}), "{r}");
}

#[test]
fn a_stateless_connection_names_the_envelope_rule_for_a_request_without_it() {
    let (_a, s, _) = session(0);
    assert!(modern(&s, json!(1), "tools/list", json!({})).unwrap()["result"]["tools"].is_array());
    for (method, params) in [
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name":"create_order","arguments":{"customer":"a","quantity":1}}),
        ),
        ("ping", json!({})),
        ("server/discover", json!({})),
    ] {
        let r = req(
            &s,
            json!({"jsonrpc":"2.0","id":2,"method":method,"params":params}),
        );
        assert_eq!(r["error"]["code"], -32602, "{method}: {r}");
        let msg = r["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains(
                "every request carries params._meta with io.modelcontextprotocol/protocolVersion"
            ) && !msg.contains("send initialize"),
            "{msg}"
        );
        assert_schema("2026-07-28", "JSONRPCErrorResponse", &r);
    }
}

/// The C ABI's host-driven session: a `subscriptions/listen` stream's acknowledgment and
/// notifications go to the session's notification callback; the call that opened it
/// returns NULL (no response yet).
mod through_the_c_abi {
    use appfunctions::ffi::*;
    use serde_json::Value;
    use std::ffi::{c_char, c_void, CStr, CString};
    use std::sync::Mutex;

    unsafe extern "C" fn collect(user_data: *mut c_void, message: *const c_char) {
        // SAFETY: user_data is the test's Mutex; message is borrowed for the call.
        let sink = unsafe { &*(user_data as *const Mutex<Vec<Value>>) };
        let text = unsafe { CStr::from_ptr(message) }.to_str().unwrap();
        sink.lock()
            .unwrap()
            .push(serde_json::from_str(text).unwrap());
    }

    #[test]
    fn a_host_driven_session_serves_subscriptions_through_its_notification_callback() {
        let sink: Mutex<Vec<Value>> = Mutex::new(Vec::new());
        let env = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        // SAFETY: live handles and NUL-terminated strings, as the header requires; the
        // sink outlives the session.
        unsafe {
            let d = af_dispatcher_new();
            let f = CString::new(r#"{"id":"ping_me","kind":"output"}"#).unwrap();
            assert_eq!(
                af_register_function(d, f.as_ptr(), None, std::ptr::null_mut(), None),
                AF_OK
            );
            let s = af_mcp_session_new(d, std::ptr::null());
            let handle = |m: String| {
                let c = CString::new(m).unwrap();
                let r = af_mcp_session_handle_json(s, c.as_ptr());
                (!r.is_null()).then(|| {
                    let v: Value =
                        serde_json::from_str(CStr::from_ptr(r).to_str().unwrap()).unwrap();
                    af_string_free(r);
                    v
                })
            };
            // no sink yet: nothing can be delivered, so nothing is advertised
            let r = handle(format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{env}}}}}"#
            ))
            .unwrap();
            assert_eq!(r["result"]["capabilities"]["tools"]["listChanged"], false);
            let r = handle(format!(r#"{{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{{{env},"notifications":{{"toolsListChanged":true}}}}}}"#)).unwrap();
            assert_eq!(r["error"]["code"], -32601);
            assert_eq!(
                af_mcp_session_set_notify(s, Some(collect), &sink as *const _ as *mut c_void, None),
                AF_OK
            );
            let r = handle(format!(
                r#"{{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{{{env}}}}}"#
            ))
            .unwrap();
            assert_eq!(r["result"]["capabilities"]["tools"]["listChanged"], true);
            assert!(handle(format!(r#"{{"jsonrpc":"2.0","id":4,"method":"subscriptions/listen","params":{{{env},"notifications":{{"toolsListChanged":true}}}}}}"#)).is_none());
            {
                let got = sink.lock().unwrap();
                assert_eq!(got.len(), 1);
                assert_eq!(got[0]["method"], "notifications/subscriptions/acknowledged");
                assert_eq!(
                    got[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
                    4
                );
            }
            let meta = CString::new(r#"{"Plan": "pro"}"#).unwrap();
            assert_eq!(af_mcp_session_set_metadata(s, meta.as_ptr()), AF_OK);
            {
                let got = sink.lock().unwrap();
                assert_eq!(got.len(), 2);
                assert_eq!(got[1]["method"], "notifications/tools/list_changed");
                assert_eq!(
                    got[1]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
                    4
                );
            }
            // the client cancels: the stream ends, nothing more is sent for it
            assert!(handle(
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}"#
                    .into()
            )
            .is_none());
            assert_eq!(af_mcp_session_set_metadata(s, meta.as_ptr()), AF_OK);
            assert_eq!(sink.lock().unwrap().len(), 2);
            af_mcp_session_free(s);
            af_dispatcher_free(d);
        }
    }
}
