//! Prints every schema the core emits for the demo app, a kitchen-sink function and the
//! corpus functions below, plus argument documents (and handler results) with the core's
//! verdict on each, as one JSON document. The `schema` lane (ci/lanes/schema.sh) feeds it
//! to an independent validator (Python `jsonschema`, ECMA-262 patterns through node): every
//! schema must pass the draft 2020-12 meta-schema check, and the validator and our binder
//! must agree on every document. Documents travel as the exact JSON text the binder saw, so
//! numbers are judged as written (`-9223372036854775809`, `2.0`, `1e2`).

#[path = "demo/app.rs"]
mod app;
#[path = "common/patterns.rs"]
mod patterns;

use appfunctions::{sync_handler, ErrorCode, Invocation};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

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

/// Argument texts for `numbers` (int32 `small`, int64 `big`, double `ratio`, all
/// optional): both ends of every width, numbers past them that a float cannot tell from
/// them, and integers written as `2.0` or `1e2`.
fn number_cases() -> Vec<String> {
    let mut out = Vec::new();
    for (key, values) in [
        (
            "small",
            &[
                "-2147483648",
                "2147483647",
                "-2147483649",
                "2147483648",
                "2.0",
                "1e2",
                "-0",
                "-0.0",
                "1e-1",
                "2147483647.0",
                "2147483647.5",
                "21474836.48e2",
                "1e400",
                "-1e400",
            ][..],
        ),
        (
            "big",
            &[
                "-9223372036854775808",
                "9223372036854775807",
                "-9223372036854775809",
                "9223372036854775808",
                "-9223372036854776000",
                "9223372036854776000",
                "-9223372036854775808.0",
                "-9.223372036854775808e18",
                "9.223372036854775808e18",
                "9007199254740993",
                "9007199254740993.0",
                "18446744073709551616",
                "-18446744073709551616",
                "1e19",
                "100e-2",
                "0.5e1",
                "1.5",
            ][..],
        ),
        (
            "ratio",
            &["0", "-0", "1e-7", "2.5", "1E+2", "-1.5e300", "1e-400"][..],
        ),
    ] {
        for v in values {
            out.push(format!("{{\"{key}\": {v}}}"));
        }
    }
    out
}

/// Result texts, each checked against the result schema of the function named.
fn result_cases() -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for v in [
        "-9223372036854775808",
        "9223372036854775807",
        "-9223372036854775809",
        "9223372036854775808",
        "-9223372036854776000",
        "3.0",
        "1e3",
        "0.5",
        "\"1\"",
        "null",
    ] {
        out.push(("result_int64", v.to_string()));
    }
    for v in [
        "-2147483648",
        "2147483647",
        "-2147483649",
        "2147483648",
        "7e0",
    ] {
        out.push(("result_int32", v.to_string()));
    }
    for v in ["0", "10", "-1", "11", "5.0", "null"] {
        out.push(("result_bounded", v.to_string()));
    }
    for v in ["[1,2]", "[1,1]", "[1,2,3]", "[]"] {
        out.push(("result_unique", v.to_string()));
    }
    for v in [
        r#"{"sku":"abc","qty":1}"#,
        r#"{"sku":"abc","qty":0}"#,
        r#"{"sku":"a1","qty":1}"#,
    ] {
        out.push(("result_line", v.to_string()));
    }
    for v in [
        r#"{"text":"x"}"#,
        r#"{"text":"x","title":null,"tags":["a"]}"#,
        r#"{"title":"t"}"#,
        r#"{"text":"x","tags":"a"}"#,
    ] {
        out.push(("result_memo", v.to_string()));
    }
    out
}

/// Every constraint, on parameters and on record fields.
const CONSTRAINED_TYPES: &str = r#"{"records": [
  {"name": "Point", "fields": [{"name": "x", "type": "double"}, {"name": "y", "type": "double"}]},
  {"name": "Line", "fields": [
    {"name": "sku", "type": "string", "pattern": "^[a-z]+$"},
    {"name": "qty", "type": "int32", "minimum": 1},
    {"name": "note", "type": "string", "nullable": true, "optional": true, "maxLength": 5}]}]}"#;

const CONSTRAINED: &str = r#"{"id": "constrained", "parameters": [
  {"name": "quantity", "type": "int32", "optional": true, "minimum": 1},
  {"name": "limit", "type": "int32", "optional": true, "minimum": 1, "maximum": 100},
  {"name": "above", "type": "int64", "optional": true, "exclusiveMinimum": 0, "exclusiveMaximum": 10},
  {"name": "ratio", "type": "double", "optional": true, "minimum": -1.5, "exclusiveMaximum": 0.1},
  {"name": "frac", "type": "int32", "optional": true, "minimum": 0.5, "maximum": 2.5},
  {"name": "code", "type": "string", "optional": true, "minLength": 2, "maxLength": 4},
  {"name": "sku", "type": "string", "optional": true, "pattern": "^[A-Z]{2}-\\d{3}$"},
  {"name": "word", "type": "string", "optional": true, "pattern": "\\bcat\\b"},
  {"name": "spaced", "type": "string", "optional": true, "pattern": "^\\S+\\s\\S+$"},
  {"name": "dotted", "type": "string", "optional": true, "pattern": "^.$"},
  {"name": "classy", "type": "string", "optional": true, "pattern": "^[\\w.-]+@[^\\s@]+$"},
  {"name": "tags", "type": {"array": "string"}, "optional": true, "minItems": 1, "maxItems": 3, "uniqueItems": true},
  {"name": "numbers", "type": {"array": "double"}, "optional": true, "uniqueItems": true},
  {"name": "ints", "type": {"array": "int64"}, "optional": true, "uniqueItems": true},
  {"name": "points", "type": {"array": {"record": "Point"}}, "optional": true, "uniqueItems": true},
  {"name": "maybeCode", "type": "string", "nullable": true, "optional": true, "minLength": 3},
  {"name": "maybeTags", "type": {"array": "int32"}, "nullable": true, "optional": true, "maxItems": 1},
  {"name": "line", "type": {"record": "Line"}, "optional": true}
]}"#;

/// Argument texts for `constrained`: each constraint at and past its boundaries.
fn constrained_cases() -> Vec<String> {
    let cases: &[(&str, &[&str])] = &[
        ("quantity", &["0", "1", "1.0", "-5", "2147483647", "0.5"]),
        ("limit", &["0", "1", "100", "101", "1e2", "100.0", "1.01e2"]),
        ("above", &["0", "1", "9", "10", "-1", "0.0"]),
        (
            "ratio",
            &[
                "-1.5",
                "-1.5000001",
                "-1.4999999",
                "0.1",
                "0.09999999999999999",
                "0.1000000000000000055511151231257827",
                "1e-1",
                "1e-400",
                "0",
            ],
        ),
        ("frac", &["0", "1", "2", "3"]),
        (
            "code",
            &[
                r#""a""#,
                r#""ab""#,
                r#""abcd""#,
                r#""abcde""#,
                r#""😀😀""#,
                r#""😀😀😀😀""#,
                r#""😀😀😀😀😀""#,
                r#""\ud83d\ude00\ud83d\ude00""#,
                r#""é́é́""#,
                r#""""#,
            ],
        ),
        (
            "sku",
            &[
                r#""AB-123""#,
                r#""AB-12""#,
                r#""ab-123""#,
                r#""AB-١٢٣""#,
                r#""xAB-123""#,
                r#""AB-123\n""#,
                r#""AB-1234""#,
            ],
        ),
        (
            "word",
            &[
                r#""a cat sat""#,
                r#""concat""#,
                r#""écat""#,
                r#""cat""#,
                r#""cats""#,
            ],
        ),
        (
            "spaced",
            &[
                r#""a b""#,
                r#""a\u00a0b""#,
                r#""a\u0085b""#,
                r#""a\ufeffb""#,
                r#""a\u2028b""#,
                r#""ab""#,
                r#""a  b""#,
            ],
        ),
        (
            "dotted",
            &[
                r#""😀""#,
                r#""\n""#,
                r#""\r""#,
                r#""\u2028""#,
                r#""ab""#,
                r#""é""#,
            ],
        ),
        (
            "classy",
            &[r#""a.b-c_d@x""#, r#""a b@x""#, r#""é@x""#, r#""a@b@c""#],
        ),
        (
            "tags",
            &[
                "[]",
                r#"["a"]"#,
                r#"["a","b","c"]"#,
                r#"["a","b","c","d"]"#,
                r#"["a","a"]"#,
                r#"["a","A"]"#,
            ],
        ),
        (
            "numbers",
            &[
                "[1, 2]",
                "[1, 1.0]",
                "[0.1, 0.10]",
                "[1e2, 100]",
                "[-0, 0]",
                "[0.5, 0.25]",
            ],
        ),
        (
            "ints",
            &[
                "[1, 2]",
                "[1, 1.0]",
                "[10, 1e1]",
                "[-9223372036854775808, 9223372036854775807]",
            ],
        ),
        (
            "points",
            &[
                r#"[{"x":1,"y":2},{"y":2,"x":1}]"#,
                r#"[{"x":1,"y":2},{"x":1,"y":2.5}]"#,
                r#"[{"x":1,"y":2},{"x":1.0,"y":2e0}]"#,
            ],
        ),
        ("maybeCode", &["null", r#""ab""#, r#""abc""#]),
        ("maybeTags", &["null", "[]", "[1]", "[1,2]"]),
        (
            "line",
            &[
                r#"{"sku":"abc","qty":1}"#,
                r#"{"sku":"abc","qty":0}"#,
                r#"{"sku":"ABC","qty":1}"#,
                r#"{"sku":"abc","qty":1,"note":"123456"}"#,
                r#"{"sku":"abc","qty":1,"note":"12345"}"#,
                r#"{"sku":"abc","qty":1,"note":null}"#,
            ],
        ),
    ];
    let mut out = Vec::new();
    for (key, values) in cases {
        for v in *values {
            out.push(format!("{{\"{key}\": {v}}}"));
        }
    }
    out
}

/// Descriptors the core refuses for reasons the descriptor schema states as well.
fn refused_descriptors() -> Vec<Value> {
    vec![
        json!({"id": "f", "parameters": [{"name": "n", "type": "in32"}]}),
        json!({"id": "f", "parameters": [{"name": "n", "type": "int"}]}),
        json!({"id": "f", "parameters": [{"name": "n", "type": "long"}]}),
        json!({"id": "f", "parameters": [{"name": "n", "type": "date-time"}]}),
        json!({"id": "f", "parameters": [{"name": "n", "type": "int32", "minimum": "1"}]}),
        json!({"id": "f", "parameters": [{"name": "s", "type": "string", "minLength": -1}]}),
        json!({"id": "f", "parameters": [{"name": "s", "type": "string", "pattern": 5}]}),
        json!({"id": "f", "parameters": [{"name": "a", "type": {"array": "string"}, "uniqueItems": "yes"}]}),
        json!({"id": "f", "parameters": [{"name": "n", "type": "int32", "min": 1}]}),
        json!({"id": "f", "result": {"type": "int32", "minimum": 1, "extra": true}}),
        json!({"id": "f", "result": {"type": "dateTime "}}),
        json!({"id": "f", "parameters": [{"name": "t", "type": "string", "nullable": true, "optional": "no"}]}),
    ]
}

/// One nullable rule (seed 002's editNote(title: String?)): nullable parameters and fields
/// may be omitted (they bind as null) and are not required by the schema.
const NULLABLE_TYPES: &str = r#"{"records": [
  {"name": "Memo", "fields": [
    {"name": "text", "type": "string"},
    {"name": "title", "type": "string", "nullable": true},
    {"name": "tags", "type": {"nullable": {"array": "string"}}}]}]}"#;

const NULLABLE: &str = r#"{"id": "edit_memo", "parameters": [
  {"name": "memoId", "type": "string"},
  {"name": "title", "type": "string", "nullable": true, "description": "The new title if it should be updated."},
  {"name": "count", "type": {"nullable": "int32"}},
  {"name": "priority", "type": {"nullable": {"enum": "Priority"}}},
  {"name": "memo", "type": {"record": "Memo"}, "nullable": true},
  {"name": "labels", "type": {"array": "string"}, "nullable": true, "default": ["a"]}
], "result": {"record": "Memo"}}"#;

fn nullable_cases() -> Vec<String> {
    [
        r#"{"memoId": "m"}"#,
        r#"{"memoId": "m", "title": null, "count": null, "priority": null, "memo": null, "labels": null}"#,
        r#"{"memoId": "m", "title": "t", "count": 2, "priority": "High", "labels": ["x"]}"#,
        r#"{"title": "t"}"#,
        r#"{"memoId": null}"#,
        r#"{"memoId": "m", "count": "2"}"#,
        r#"{"memoId": "m", "memo": {"text": "x"}}"#,
        r#"{"memoId": "m", "memo": {"text": "x", "title": null, "tags": null}}"#,
        r#"{"memoId": "m", "memo": {"title": "t"}}"#,
        r#"{"memoId": "m", "memo": {"text": "x", "tags": [1]}}"#,
        r#"{"memoId": "m", "priority": "Medium"}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Generated patterns (examples/common/patterns.rs): each accepted one is registered as a
/// function `pattern_N` with the parameter `s` and judged by node on every string of
/// `patterns::TEXTS`; each refused one is listed with the core's message, which the judge
/// checks (node refuses it too, or it names a construct docs/descriptors.md says the core
/// refuses; never the engine's own error).
fn generated_patterns() -> (Vec<String>, Vec<(String, String)>) {
    let (mut accepted, mut refused) = (Vec::new(), Vec::new());
    let mut seen = std::collections::HashSet::new();
    for p in patterns::draw(0x2545_F491_4F6C_DD1D) {
        if accepted.len() >= 150 && refused.len() >= 80 {
            break;
        }
        if !seen.insert(p.clone()) {
            continue;
        }
        let doc = json!({"id": "p", "parameters": [{"name": "s", "type": "string", "pattern": p}]});
        match appfunctions::Dispatcher::new()
            .register_function(&doc.to_string(), Some(sync_handler(|_| Ok(None))))
        {
            Ok(()) if accepted.len() < 150 => accepted.push(p),
            Err(e) if refused.len() < 80 => refused.push((p, e.to_string())),
            _ => {}
        }
    }
    (accepted, refused)
}

const NUMBERS: &str = r#"{"id": "numbers", "parameters": [
  {"name": "small", "type": "int32", "optional": true},
  {"name": "big", "type": "int64", "optional": true},
  {"name": "ratio", "type": "double", "optional": true}]}"#;

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
    d.register_function(NUMBERS, Some(sync_handler(|_| Ok(None))))
        .expect("numbers");
    // result functions answer whatever text the case puts here
    let next_result: Arc<Mutex<String>> = Arc::default();
    d.define_types(CONSTRAINED_TYPES)
        .expect("constrained types");
    d.define_types(NULLABLE_TYPES).expect("nullable types");
    d.register_function(
        NULLABLE,
        Some(sync_handler(|_| Ok(Some(r#"{"text":"x"}"#.into())))),
    )
    .expect("edit_memo");
    d.register_function(CONSTRAINED, Some(sync_handler(|_| Ok(None))))
        .expect("constrained");
    let (patterns, refused_patterns) = generated_patterns();
    for (i, p) in patterns.iter().enumerate() {
        let doc = json!({"id": format!("pattern_{i}"), "parameters": [{"name": "s", "type": "string", "pattern": p}]});
        d.register_function(&doc.to_string(), Some(sync_handler(|_| Ok(None))))
            .expect("a generated pattern accepted once");
    }
    for (id, ty) in [
        ("result_int64", "\"int64\""),
        ("result_int32", "\"int32\""),
        (
            "result_bounded",
            r#"{"type": "int32", "nullable": true, "minimum": 0, "maximum": 10}"#,
        ),
        (
            "result_unique",
            r#"{"type": {"array": "int32"}, "uniqueItems": true, "maxItems": 2, "minItems": 1}"#,
        ),
        ("result_line", r#"{"record": "Line"}"#),
        ("result_memo", r#"{"record": "Memo"}"#),
    ] {
        let r = next_result.clone();
        d.register_function(
            &format!(r#"{{"id": "{id}", "result": {ty}}}"#),
            Some(sync_handler(move |_| Ok(Some(r.lock().unwrap().clone())))),
        )
        .expect(id);
    }

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

    let mut cases: Vec<(&str, String)> = demo_cases()
        .into_iter()
        .map(|(id, v)| (id, v.to_string()))
        .collect();
    cases.extend(
        sink_cases()
            .into_iter()
            .map(|v| ("kitchen_sink", v.to_string())),
    );
    cases.extend(number_cases().into_iter().map(|t| ("numbers", t)));
    cases.extend(constrained_cases().into_iter().map(|t| ("constrained", t)));
    cases.extend(nullable_cases().into_iter().map(|t| ("edit_memo", t)));
    let pattern_ids: Vec<String> = (0..patterns.len())
        .map(|i| format!("pattern_{i}"))
        .collect();
    for id in &pattern_ids {
        for t in patterns::TEXTS {
            cases.push((id.as_str(), json!({ "s": t }).to_string()));
        }
    }
    let mut verdicts: Vec<Value> = cases
        .into_iter()
        .map(|(id, text)| {
            let o = d.execute_outcome(&Invocation::new(id), Some(&text));
            // the binder's verdict: anything but InvalidArgument got past binding
            let bound = o.error_code != Some(ErrorCode::InvalidArgument);
            json!({"function": id, "text": text, "bound": bound, "message": o.message})
        })
        .collect();
    for (id, text) in result_cases() {
        *next_result.lock().unwrap() = text.clone();
        let o = d.execute_outcome(&Invocation::new(id), None);
        // the result check's verdict: a refused result is HandlerFailed
        let bound = o.error_code != Some(ErrorCode::HandlerFailed);
        verdicts.push(json!({"function": id, "against": "result", "text": text, "bound": bound, "message": o.message}));
    }

    // descriptors: every one the corpus registered must be valid against the published
    // descriptor schema (include/appfunctions.descriptor.schema.json)
    let mut descriptors: Vec<Value> = [
        app::TYPES,
        app::ORDER_ENTITY,
        app::CREATE_ORDER,
        app::CANCEL_ORDER,
        app::LIST_NOTES,
        app::CREATE_NOTE,
        app::EDIT_NOTE,
        app::ORDER_STATS,
        app::FIND_ORDERS,
        app::REPORT_ORDER_SUMMARY,
        app::KITCHEN_SINK,
        NUMBERS,
        CONSTRAINED_TYPES,
        CONSTRAINED,
        NULLABLE_TYPES,
        NULLABLE,
    ]
    .iter()
    .map(|t| json!({"doc": serde_json::from_str::<Value>(t).unwrap(), "accepted": true}))
    .collect();
    // and what the core refuses for a reason the schema states too is refused by both
    for doc in refused_descriptors() {
        let accepted = appfunctions::Dispatcher::new()
            .register_function(&doc.to_string(), Some(sync_handler(|_| Ok(None))))
            .is_ok();
        descriptors.push(json!({"doc": doc, "accepted": accepted}));
    }

    println!(
        "{}",
        json!({
            "functions": functions,
            "cases": verdicts,
            "descriptor_schema": appfunctions::descriptor_schema(),
            "descriptors": descriptors,
            "refused_patterns": refused_patterns
                .iter()
                .map(|(p, m)| json!({"pattern": p, "message": m}))
                .collect::<Vec<_>>(),
        })
    );
}
