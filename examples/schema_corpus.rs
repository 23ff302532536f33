//! Prints every schema the core emits for the demo app and a kitchen-sink function,
//! plus argument documents with the core's verdict on each, as one JSON document. The
//! `schema` lane (ci/lanes/schema.sh) feeds it to an independent validator (Python
//! `jsonschema`): every schema must pass the draft 2020-12 meta-schema check, and the
//! validator and our binder must agree on every argument document.

#[path = "demo/app.rs"]
mod app;

use appfunctions::{sync_handler, ErrorCode, Invocation};
use serde_json::{json, Value};

fn base() -> Value {
    json!({
        "text": "hello", "flag": true, "small": 7, "big": 9007199254740993i64, "ratio": 0.5,
        "when": "2025-06-01T17:00:00+02:00", "day": "2025-06-01", "key": "123e4567-e89b-12d3-a456-426614174000",
        "priority": "High", "note": {"id": 1, "title": "t", "content": "c"}
    })
}

/// Argument documents for kitchen_sink: the valid base, then one change each.
fn sink_cases() -> Vec<Value> {
    let mut out = vec![base()];
    let changes: Vec<(&str, Option<Value>)> = vec![
        ("text", Some(json!(1))),
        ("text", Some(json!(null))),
        ("text", None),
        ("text", Some(json!("ünïcødé \u{1F600}"))),
        ("flag", Some(json!("true"))),
        ("flag", Some(json!(0))),
        ("small", Some(json!(2147483647))),
        ("small", Some(json!(2147483648i64))),
        ("small", Some(json!(-2147483648i64))),
        ("small", Some(json!(-2147483649i64))),
        ("small", Some(json!(2.0))),
        ("small", Some(json!(2.5))),
        ("small", Some(json!("2"))),
        ("big", Some(json!(i64::MAX))),
        ("big", Some(json!(i64::MIN))),
        ("big", Some(json!(u64::MAX))),
        ("big", Some(json!(1e3))),
        ("ratio", Some(json!(1))),
        ("ratio", Some(json!(-1.5e300))),
        ("ratio", Some(json!("0.5"))),
        ("when", Some(json!("2025-06-01T17:00:00Z"))),
        ("when", Some(json!("2025-06-01t17:00:00.123z"))),
        ("when", Some(json!("2025-06-01T17:00:00"))),
        ("when", Some(json!("2025-02-30T10:00:00Z"))),
        ("when", Some(json!("2024-02-29T23:59:59-08:00"))),
        ("when", Some(json!("2025-06-01 17:00:00Z"))),
        ("when", Some(json!("tomorrow"))),
        ("when", Some(json!("2025-06-01T25:00:00Z"))),
        ("day", Some(json!("2025-12-31"))),
        ("day", Some(json!("2025-13-01"))),
        ("day", Some(json!("2023-02-29"))),
        ("day", Some(json!("2025-6-1"))),
        ("key", Some(json!("123E4567-E89B-12D3-A456-426614174000"))),
        ("key", Some(json!("123e4567e89b12d3a456426614174000"))),
        ("key", Some(json!("not-a-uuid"))),
        ("priority", Some(json!("Normal"))),
        ("priority", Some(json!("normal"))),
        ("priority", Some(json!(1))),
        ("priority", Some(json!(null))),
        ("note", Some(json!({"id": 1, "title": "t"}))),
        (
            "note",
            Some(json!({"id": 1, "title": "t", "content": "c", "extra": 1})),
        ),
        (
            "note",
            Some(json!({"id": "1", "title": "t", "content": "c"})),
        ),
        ("note", Some(json!([]))),
        ("notes", Some(json!([]))),
        (
            "notes",
            Some(
                json!([{"id": 1, "title": "a", "content": "b"}, {"id": 2, "title": "c", "content": "d"}]),
            ),
        ),
        (
            "notes",
            Some(json!([{"id": 1, "title": "a", "content": "b"}, 3])),
        ),
        ("notes", Some(json!(null))),
        ("maybe", Some(json!(null))),
        ("maybe", Some(json!("Low"))),
        ("maybe", Some(json!("Medium"))),
        ("maybeText", Some(json!(null))),
        ("maybeText", Some(json!("x"))),
        ("maybeText", Some(json!(5))),
        ("order", Some(json!("o-1"))),
        ("order", Some(json!(1))),
        ("matrix", Some(json!([[1, 2], [3]]))),
        ("matrix", Some(json!([1, 2]))),
        ("matrix", Some(json!([[1.5]]))),
        ("unknownKey", Some(json!(1))),
    ];
    for (key, value) in changes {
        let mut v = base();
        match value {
            Some(x) => v[key] = x,
            None => {
                v.as_object_mut().unwrap().remove(key);
            }
        }
        out.push(v);
    }
    out.push(json!([]));
    out.push(json!("text"));
    out.push(json!(null));
    out
}

fn demo_cases() -> Vec<(&'static str, Value)> {
    vec![
        (
            "create_order",
            json!({"customer": "acme", "quantity": 2, "priority": "Normal"}),
        ),
        ("create_order", json!({"customer": "acme", "quantity": 2})),
        (
            "create_order",
            json!({"customer": "acme", "quantity": "two"}),
        ),
        ("create_order", json!({"customer": "acme"})),
        (
            "create_order",
            json!({"customer": "acme", "quantity": 1, "priority": "Urgent"}),
        ),
        (
            "create_order",
            json!({"customer": "acme", "quantity": 1, "Priority": "Low"}),
        ),
        (
            "edit_note",
            json!({"noteId": "1", "title": null, "content": "x"}),
        ),
        ("edit_note", json!({"noteId": "1", "content": "x"})),
        (
            "edit_note",
            json!({"noteId": 1, "title": "t", "content": "x"}),
        ),
        ("list_notes", json!({})),
        ("list_notes", json!({"x": 1})),
        ("search_order", json!({"query": "a"})),
        ("search_order", json!({"query": "a", "limit": 3})),
        ("search_order", json!({"limit": 3})),
        ("cancel_order", json!({"order": "o-1"})),
        ("cancel_order", json!({"order": {"id": "o-1"}})),
    ]
}

fn main() {
    let app = app::build();
    let d = &app.dispatcher;
    d.register_function(
        app::KITCHEN_SINK,
        Some(sync_handler(|_| Ok(Some("[]".into())))),
    )
    .expect("kitchen_sink");
    d.register_function(
        r#"{"id": "report", "kind": "output", "parameters": [{"name": "summary", "type": "string"}, {"name": "count", "type": "int32", "optional": true}]}"#,
        None,
    )
    .expect("report");

    let registry: Value = serde_json::from_str(&d.registry_json()).unwrap();
    let mut functions = Vec::new();
    for f in registry["functions"].as_array().unwrap() {
        let id = f["id"].as_str().unwrap();
        functions.push(json!({
            "id": id,
            "parameters": d.parameters_schema(id).unwrap(),
            "result": d.result_schema(id).unwrap(),
        }));
    }

    let mut cases: Vec<(&str, Value)> = demo_cases();
    cases.extend(sink_cases().into_iter().map(|v| ("kitchen_sink", v)));
    let verdicts: Vec<Value> = cases
        .into_iter()
        .map(|(id, args)| {
            let o = d.execute_outcome(&Invocation::new(id), Some(&args.to_string()));
            // the binder's verdict: anything but InvalidArgument got past binding
            let bound = o.error_code != Some(ErrorCode::InvalidArgument);
            json!({"function": id, "args": args, "bound": bound, "message": o.message})
        })
        .collect();

    println!("{}", json!({"functions": functions, "cases": verdicts}));
}
