//! Writes the seed corpora of the fuzz targets (fuzz/, run by ci/fuzz.sh) from the demo
//! app's descriptors and arguments and the MCP conversations of tests/mcp.rs:
//!
//! `cargo run --example fuzz_seeds -- fuzz/corpus`
//!
//! - `descriptors/`: `types \0 entity \0 function... \0 args` documents;
//! - `mcp/`: JSON-RPC conversations, one message per line;
//! - `binding/`, `roundtrip/`: byte strings for the structure-aware generators.

#[path = "demo/app.rs"]
mod app;

use serde_json::json;
use std::path::Path;

const SINK_ARGS: &str = r#"{"text": "hello", "flag": true, "small": 7, "big": 9007199254740993,
  "ratio": 0.5, "when": "2025-06-01T17:00:00+02:00", "day": "2025-06-01",
  "key": "123e4567-e89b-12d3-a456-426614174000", "priority": "High",
  "note": {"id": 1, "title": "t", "content": "c"}, "maybe": null, "order": "o-1",
  "matrix": [[1, 2], [3]]}"#;

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir).expect("corpus directory");
    std::fs::write(dir.join(name), bytes).expect("seed file");
}

fn descriptors(dir: &Path) {
    let functions = [
        (app::CREATE_ORDER, r#"{"customer": "acme", "quantity": 2}"#),
        (
            app::CREATE_ORDER,
            r#"{"customer": "acme", "quantity": "two", "prio": 1}"#,
        ),
        (app::CANCEL_ORDER, r#"{"order": "o-1"}"#),
        (app::LIST_NOTES, "{}"),
        (app::CREATE_NOTE, r#"{"title": "t", "content": "c"}"#),
        (
            app::EDIT_NOTE,
            r#"{"noteId": "1", "title": null, "content": "c"}"#,
        ),
        (
            app::FIND_ORDERS,
            r#"{"minQuantity": 1, "priority": "High"}"#,
        ),
        (
            app::REPORT_ORDER_SUMMARY,
            r#"{"openOrders": 1, "busiestCustomer": null}"#,
        ),
        (app::KITCHEN_SINK, SINK_ARGS),
        // the same with every flag set
        (
            &app::KITCHEN_SINK.replacen(
                "\"result\"",
                r#""opensApp": true, "requiresPermission": true, "toolkit": "orders", "deprecated": true,
  "callers": {"allow": ["com.google.android.apps.gemini"], "deny": []}, "result""#,
                1,
            ),
            SINK_ARGS,
        ),
        // near misses for the format checks (a multi-byte character at byte 10)
        (
            app::KITCHEN_SINK,
            &SINK_ARGS.replace("2025-06-01T17", "2025-06-0\u{e9}T17"),
        ),
        (
            r#"{"id": "bad", "parameters": [{"name": "p", "type": {"enum": "Priorty"}}]}"#,
            "{}",
        ),
        (r#"{"id": "Bad-Id", "unknownField": 1}"#, "[]"),
        // pattern constraints: ASCII \b, \w, \d, \s, classes, groups and quantifiers, and a
        // construct the core refuses (\B), for the fuzzer to mutate
        (
            r#"{"id": "patterns", "parameters": [
  {"name": "word", "type": "string", "pattern": "\\bcat\\b"},
  {"name": "sku", "type": "string", "pattern": "^[A-Z]{2}-\\d{3}$"},
  {"name": "mail", "type": "string", "pattern": "^[\\w.-]+@[^\\s@]+$"},
  {"name": "any", "type": "string", "pattern": "^(?:\\u{1F600}|.){1,3}?(?<tail>\\S)$"}]}"#,
            r#"{"word": "a cat", "sku": "AB-123", "mail": "a@b", "any": "😀x"}"#,
        ),
        // a string long enough for the matcher's Pike VM (2,400 bytes times a program of
        // more than 109 steps is past the backtracker's 262,144 bits)
        (
            r#"{"id": "long", "parameters": [{"name": "s", "type": "string", "pattern": "^(?:[a-z]{1,3}\\d?|\\s){1,20}(?:\\w+\\b.)*$"}]}"#,
            &format!(r#"{{"s": "{}"}}"#, "ab1 cd ".repeat(343)),
        ),
        (
            r#"{"id": "refused", "parameters": [{"name": "s", "type": "string", "pattern": "a\\Bb"}]}"#,
            r#"{"s": "ab"}"#,
        ),
    ];
    for (i, (f, args)) in functions.iter().enumerate() {
        let doc = [app::TYPES, app::ORDER_ENTITY, f, args].join("\0");
        write(dir, &format!("seed-{i:02}"), doc.as_bytes());
    }
    let all = [
        app::TYPES,
        app::ORDER_ENTITY,
        app::CREATE_ORDER,
        app::CANCEL_ORDER,
        app::EDIT_NOTE,
        app::FIND_ORDERS,
        r#"{"order": "o-2", "customer": "x", "quantity": 1}"#,
    ]
    .join("\0");
    write(dir, "seed-all", all.as_bytes());
    write(dir, "seed-empty", b"{}\0{}\0{}\0{}");
}

fn mcp(dir: &Path) {
    let init = |v: &str| {
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":v,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string()
    };
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string();
    let calls = [
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"garbage"}}),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"acme","quantity":2}}}),
        json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"acme","quantity":"two"}}}),
        json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"cancel_order","arguments":{"order":"o-1"}}}),
        json!({"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"nope","arguments":{}}}),
        json!({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_notes"}}),
        json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"orders"}}),
        json!({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"report_order_summary","arguments":{"openOrders":1,"busiestCustomer":null}}}),
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}),
        json!({"jsonrpc":"2.0","id":9,"method":"ping"}),
    ];
    for (i, v) in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2099-01-01",
    ]
    .iter()
    .enumerate()
    {
        let mut lines = vec![init(v), initialized.clone()];
        lines.extend(calls.iter().map(|c| c.to_string()));
        write(
            dir,
            &format!("seed-handshake-{i}"),
            lines.join("\n").as_bytes(),
        );
    }
    // the 2025-03-26 batches
    let batch = format!(
        "{}\n{}\n[{},{}]\n[]",
        init("2025-03-26"),
        initialized,
        calls[0],
        calls[2]
    );
    write(dir, "seed-batch", batch.as_bytes());
    // the stateless revision
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}});
    let modern = [
        json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":meta}}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":meta}}),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"a","quantity":1},"_meta":meta}}),
        json!({"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01"}}}),
        json!({"jsonrpc":"2.0","id":"s","method":"subscriptions/listen","params":{"_meta":meta,"notifications":{"toolsListChanged":true}}}),
        json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"orders","_meta":meta}}),
        json!({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"orders","arguments":{"tool":"order_stats","arguments":{}},"_meta":meta}}),
        json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"order_stats","_meta":meta}}),
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s"}}),
    ];
    let lines: Vec<String> = modern.iter().map(|v| v.to_string()).collect();
    write(dir, "seed-modern", lines.join("\n").as_bytes());
    // tests/mcp.rs's hostile messages
    let hostile = [
        "{",
        "null",
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
        r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_order"}}"#,
        r#"{"jsonrpc":"2.0","id":99999999999999999999999999,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":{"x":[1,2,{"y":null}]},"quantity":1e300}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"cancel_order","arguments":{"order":"\ufffd"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":12}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"a":1}}}"#,
    ];
    write(dir, "seed-hostile", hostile.join("\n").as_bytes());
}

fn main() {
    let root = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fuzz/corpus".into());
    let root = Path::new(&root);
    descriptors(&root.join("descriptors"));
    mcp(&root.join("mcp"));
    for target in ["binding", "roundtrip"] {
        let dir = root.join(target);
        // a few fixed byte strings: the generators make valid documents from any bytes
        for (i, seed) in [
            &b"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"[..],
            &[0xff; 64][..],
            &[0x00; 64][..],
            &b"appfunctions fuzz seed: {\"customer\": \"acme\", \"quantity\": 2}"[..],
        ]
        .iter()
        .enumerate()
        {
            write(&dir, &format!("seed-{i}"), seed);
        }
    }
    println!("fuzz seeds written under {}", root.display());
}
