//! Android AppFunctions calls through the Rust API (`Dispatcher::execute_android`): the
//! request's parameters document (its neutral image) into arguments by the descriptor, the
//! outcome into the response document or an `AppFunctionException` code — one test per rule
//! of docs/android.md's tables, the demo app's functions first.

#[path = "../examples/demo/app.rs"]
mod app;

use appfunctions::android::{DIALOG_EXTRA, RETURN_VALUE_PROPERTY};
use appfunctions::{sync_handler, CancelToken, Dispatcher, ErrorCode, Invocation, Platform};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A document image with these properties.
fn doc(properties: Value) -> String {
    json!({"namespace": "", "id": "", "schemaType": "", "properties": properties}).to_string()
}

/// The image `cmd app_function execute-app-function --parameters JSON` makes of a JSON
/// object: strings, longs (JSON integers), doubles, booleans, nested objects as documents,
/// arrays by their first element, empty arrays left out (AppSearchDataJsonConverter).
fn shell(parameters: Value) -> String {
    fn property(v: &Value) -> Option<Value> {
        Some(match v {
            Value::String(_) => json!({"strings": [v]}),
            Value::Bool(_) => json!({"booleans": [v]}),
            Value::Number(n) if n.is_i64() => json!({"longs": [v]}),
            Value::Number(_) => json!({"doubles": [v]}),
            Value::Object(_) => json!({"documents": [image(v)]}),
            Value::Array(a) => {
                let kind = match a.first()? {
                    Value::String(_) => "strings",
                    Value::Bool(_) => "booleans",
                    Value::Number(n) if n.is_i64() => "longs",
                    Value::Number(_) => "doubles",
                    Value::Object(_) => "documents",
                    _ => return None,
                };
                let items: Vec<Value> = if kind == "documents" {
                    a.iter().map(image).collect()
                } else {
                    a.clone()
                };
                json!({ kind: items })
            }
            Value::Null => return None,
        })
    }
    fn image(v: &Value) -> Value {
        let mut props = serde_json::Map::new();
        for (k, p) in v.as_object().unwrap() {
            if let Some(p) = property(p) {
                props.insert(k.clone(), p);
            }
        }
        json!({"namespace": "", "id": "", "schemaType": "", "properties": props})
    }
    image(&parameters).to_string()
}

fn call(d: &Dispatcher, id: &str, parameters: &str) -> Value {
    let inv = Invocation::new(id).caller("com.google.android.apps.gemini");
    serde_json::from_str(&d.execute_android(&inv, Some(parameters))).unwrap()
}

fn error(r: &Value) -> (i64, String) {
    assert!(r.get("result").is_none(), "expected an error, got {r}");
    (
        r["errorCode"].as_i64().unwrap(),
        r["message"].as_str().unwrap().to_owned(),
    )
}

fn returned(r: &Value) -> &Value {
    assert!(r.get("errorCode").is_none(), "expected a result, got {r}");
    &r["result"]["properties"][RETURN_VALUE_PROPERTY]
}

#[test]
fn create_order_answers_the_order_as_a_nested_document_and_its_dialog_in_the_extras() {
    let a = app::build();
    let r = call(
        &a.dispatcher,
        "create_order",
        &doc(
            json!({"customer": {"strings": ["acme"]}, "quantity": {"longs": [3]},
                    "priority": {"strings": ["High"]}}),
        ),
    );
    let order = &returned(&r)["documents"][0];
    assert_eq!(order["schemaType"], "Order");
    assert_eq!(
        order["properties"]["customer"],
        json!({"strings": ["acme"]})
    );
    assert_eq!(order["properties"]["quantity"], json!({"longs": [3]}));
    assert_eq!(
        order["properties"]["priority"],
        json!({"strings": ["High"]})
    );
    assert_eq!(order["id"], "");
    assert_eq!(
        r["extras"][DIALOG_EXTRA], "Order o-3 created for acme.",
        "the dialog travels in the extras: {r}"
    );
    assert_eq!(
        a.telemetry.lock().unwrap().last().unwrap(),
        "create_order from android: ok",
        "the call ran as an android call through the delegates"
    );
}

#[test]
fn what_the_platform_shell_sends_binds_like_a_json_call() {
    let a = app::build();
    let r = call(
        &a.dispatcher,
        "create_order",
        &shell(json!({"customer": "acme", "quantity": 2})),
    );
    let order = &returned(&r)["documents"][0]["properties"];
    assert_eq!(order["quantity"], json!({"longs": [2]}));
    // priority was omitted: the descriptor's default
    assert_eq!(order["priority"], json!({"strings": ["Normal"]}));
}

#[test]
fn a_long_for_an_int32_parameter_beyond_its_range_is_refused_naming_it() {
    let a = app::build();
    let (code, msg) = error(&call(
        &a.dispatcher,
        "create_order",
        &doc(json!({"customer": {"strings": ["acme"]}, "quantity": {"longs": [3_000_000_000i64]}})),
    ));
    assert_eq!(code, 1001, "{msg}");
    assert!(msg.contains("quantity"), "{msg}");
    // and a value constraint is the binder's too (minimum 1)
    let (code, msg) = error(&call(
        &a.dispatcher,
        "create_order",
        &doc(json!({"customer": {"strings": ["acme"]}, "quantity": {"longs": [0]}})),
    ));
    assert_eq!(code, 1001);
    assert!(msg.contains("quantity"), "{msg}");
}

/// A dispatcher whose `echo` keeps its bound arguments (and answers them when it declares a
/// `result`), for the conversion rules.
fn echo(params: &str, result: &str) -> (Dispatcher, Arc<Mutex<Vec<String>>>) {
    let d = Dispatcher::new();
    d.define_types(app::TYPES).unwrap();
    d.register_entity(
        app::ORDER_ENTITY,
        sync_handler(|_| {
            Ok(Some(
                r#"[{"id":"o-1","customer":"acme","quantity":1,"priority":"Low","status":"open"}]"#
                    .into(),
            ))
        }),
    )
    .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    d.register_function(
        &if result.is_empty() {
            format!(r#"{{"id":"echo","parameters":{params}}}"#)
        } else {
            format!(r#"{{"id":"echo","parameters":{params},"result":{result}}}"#)
        },
        Some(sync_handler(move |call| {
            let args = call.args().unwrap_or("{}").to_owned();
            s.lock().unwrap().push(args.clone());
            Ok(None)
        })),
    )
    .unwrap();
    (d, seen)
}

#[test]
fn a_long_where_a_double_is_declared_is_widened() {
    let (d, seen) = echo(
        r#"[{"name":"ratio","type":"double"},{"name":"exact","type":"double"}]"#,
        "",
    );
    let _ = call(&d, "echo", &shell(json!({"ratio": 2, "exact": 2.5})));
    let args: Value = serde_json::from_str(&seen.lock().unwrap()[0]).unwrap();
    assert_eq!(args["ratio"].as_f64(), Some(2.0));
    assert!(args["ratio"].is_f64(), "widened to a double: {args}");
    assert_eq!(args["exact"].as_f64(), Some(2.5));
}

#[test]
fn one_value_for_a_scalar_and_every_value_for_an_array() {
    let (d, seen) = echo(
        r#"[{"name":"tags","type":{"array":"string"},"optional":true},{"name":"name","type":"string","optional":true}]"#,
        "",
    );
    call(
        &d,
        "echo",
        &doc(json!({"tags": {"strings": ["a", "b", "c"]}, "name": {"strings": ["x"]}})),
    );
    call(&d, "echo", &doc(json!({"tags": {"strings": ["only"]}})));
    call(&d, "echo", &doc(json!({"tags": {"strings": []}})));
    let seen: Vec<Value> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|s| serde_json::from_str(s).unwrap())
        .collect();
    assert_eq!(seen[0]["tags"], json!(["a", "b", "c"]));
    assert_eq!(seen[0]["name"], "x");
    assert_eq!(
        seen[1]["tags"],
        json!(["only"]),
        "one value is an array of one"
    );
    assert_eq!(seen[2]["tags"], json!([]));
    let (code, msg) = error(&call(
        &d,
        "echo",
        &doc(json!({"name": {"strings": ["x", "y"]}})),
    ));
    assert_eq!(code, 1001);
    assert!(
        msg.contains("`name` takes one value") && msg.contains("2 strings"),
        "{msg}"
    );
}

#[test]
fn records_travel_as_nested_documents_both_ways() {
    let (d, seen) = echo(r#"[{"name":"note","type":{"record":"Note"}}]"#, "");
    call(
        &d,
        "echo",
        &doc(
            json!({"note": {"documents": [{"namespace": "", "id": "", "schemaType": "Note",
            "properties": {"id": {"longs": [7]}, "title": {"strings": ["Milk"]}, "content": {"strings": ["2 l"]}}}]}}),
        ),
    );
    let args: Value = serde_json::from_str(&seen.lock().unwrap()[0]).unwrap();
    assert_eq!(
        args["note"],
        json!({"id": 7, "title": "Milk", "content": "2 l"})
    );
    let (code, msg) = error(&call(
        &d,
        "echo",
        &doc(
            json!({"note": {"documents": [{"properties": {"id": {"longs": [7]}, "colour": {"strings": ["red"]}}}]}}),
        ),
    ));
    assert_eq!(code, 1001);
    assert!(
        msg.contains("`note.colour`") && msg.contains("Note has id, title, content"),
        "{msg}"
    );
}

#[test]
fn a_record_result_is_a_nested_document_and_an_array_result_holds_every_item() {
    let a = app::build();
    let r = call(&a.dispatcher, "list_notes", &doc(json!({})));
    let notes = &returned(&r)["documents"];
    assert_eq!(notes.as_array().unwrap().len(), 1);
    assert_eq!(notes[0]["schemaType"], "Note");
    assert_eq!(notes[0]["properties"]["id"], json!({"longs": [1]}));
    assert_eq!(
        notes[0]["properties"]["title"],
        json!({"strings": ["Shopping"]})
    );
}

#[test]
fn enums_dates_uuids_and_entity_ids_travel_as_strings() {
    let (d, seen) = echo(
        r#"[{"name":"priority","type":{"enum":"Priority"}},{"name":"when","type":"dateTime"},
            {"name":"day","type":"date"},{"name":"key","type":"uuid"},{"name":"order","type":{"entity":"order"}}]"#,
        "",
    );
    let r = call(
        &d,
        "echo",
        &shell(
            json!({"priority": "High", "when": "2026-12-01T10:00:00Z", "day": "2026-12-01",
                      "key": "6f1c1e9e-0b7e-4c1a-9a55-2f4f7d0f2b11", "order": "o-1"}),
        ),
    );
    assert!(r.get("errorCode").is_none(), "{r}");
    let args: Value = serde_json::from_str(&seen.lock().unwrap()[0]).unwrap();
    assert_eq!(args["priority"], "High");
    assert_eq!(args["day"], "2026-12-01");
    assert_eq!(args["key"], "6f1c1e9e-0b7e-4c1a-9a55-2f4f7d0f2b11");
    assert_eq!(
        args["order"]["id"], "o-1",
        "the entity id was resolved: {args}"
    );
    // a string the enum does not know is the binder's refusal, naming the parameter
    let (code, msg) = error(&call(
        &d,
        "echo",
        &shell(json!({"priority": "Urgent", "when": "2026-12-01T10:00:00Z",
        "day": "2026-12-01", "key": "6f1c1e9e-0b7e-4c1a-9a55-2f4f7d0f2b11", "order": "o-1"})),
    ));
    assert_eq!(code, 1001);
    assert!(msg.contains("priority") && msg.contains("Urgent"), "{msg}");
}

#[test]
fn a_missing_property_is_an_omitted_argument() {
    let a = app::build();
    // edit_note's title is nullable: omitted, it binds as null and the title stays
    let r = call(
        &a.dispatcher,
        "edit_note",
        &shell(json!({"noteId": "1", "content": "Milk, eggs, bread"})),
    );
    let note = &returned(&r)["documents"][0]["properties"];
    assert_eq!(note["title"], json!({"strings": ["Shopping"]}));
    assert_eq!(note["content"], json!({"strings": ["Milk, eggs, bread"]}));
    // a required one omitted is the binder's refusal
    let (code, msg) = error(&call(
        &a.dispatcher,
        "create_note",
        &shell(json!({"title": "x"})),
    ));
    assert_eq!(code, 1001);
    assert!(msg.contains("content"), "{msg}");
}

#[test]
fn an_unknown_property_is_refused_naming_it() {
    let a = app::build();
    let (code, msg) = error(&call(
        &a.dispatcher,
        "create_note",
        &shell(json!({"title": "x", "content": "y", "colour": "red"})),
    ));
    assert_eq!(code, 1001);
    assert!(
        msg.contains("`colour`") && msg.contains("create_note takes title, content"),
        "{msg}"
    );
}

#[test]
fn a_null_result_and_a_void_function_answer_an_empty_document() {
    let a = app::build();
    let r = call(
        &a.dispatcher,
        "edit_note",
        &shell(json!({"noteId": "99", "content": "y"})),
    );
    assert_eq!(r["result"]["properties"], json!({}), "{r}");
    assert_eq!(r["extras"], json!({}));
    let d = Dispatcher::new();
    d.register_function(r#"{"id":"ping"}"#, Some(sync_handler(|_| Ok(None))))
        .unwrap();
    let r = call(&d, "ping", &doc(json!({})));
    assert_eq!(
        r,
        json!({"result": {"namespace": "", "id": "", "schemaType": "", "properties": {}}, "extras": {}})
    );
}

#[test]
fn malformed_images_are_refused_naming_what_is_wrong() {
    let a = app::build();
    for (image, says) in [
        ("not json".to_owned(), "not JSON"),
        ("[1]".to_owned(), "must be a JSON object"),
        (
            doc(json!({"title": {"strings": ["x"], "longs": [1]}})),
            "exactly one typed array",
        ),
        (
            doc(json!({"title": {"texts": ["x"]}})),
            "exactly one typed array",
        ),
        (doc(json!({"title": {"strings": "x"}})), "must be an array"),
        (
            doc(json!({"title": {"strings": [1]}, "content": {"strings": ["y"]}})),
            "not a string",
        ),
        (
            doc(json!({"title": {"bytes": ["AAE="]}, "content": {"strings": ["y"]}})),
            "bytes bind to no parameter type",
        ),
        (
            doc(json!({"title": {"documents": [{}]}, "content": {"strings": ["y"]}})),
            "not a record",
        ),
    ] {
        let (code, msg) = error(&call(&a.dispatcher, "create_note", &image));
        assert_eq!(code, 1001, "{image}: {msg}");
        assert!(msg.contains(says), "{image}: {msg}");
    }
}

#[test]
fn outcomes_map_onto_app_function_exception_codes() {
    let a = app::build();
    let d = &a.dispatcher;
    let codes = |id: &str, params: Value| error(&call(d, id, &shell(params))).0;
    assert_eq!(
        codes("no_such_function", json!({})),
        1003,
        "FunctionNotFound"
    );
    d.set_enabled("create_note", false).unwrap();
    assert_eq!(
        codes("create_note", json!({"colour": "ignored"})),
        1002,
        "Disabled before the arguments"
    );
    // the sign-in gate asks for the app: on android that is a refusal
    let (code, msg) = error(&call(d, "cancel_order", &shell(json!({"order": "o-1"}))));
    assert_eq!((code, msg.as_str()), (1000, "Sign in to cancel orders."));
    a.sign_in.set(true);
    assert_eq!(
        codes("cancel_order", json!({"order": "o-9"})),
        1500,
        "EntityNotFound"
    );
    assert_eq!(
        codes("create_order", json!({"customer": "acme"})),
        1001,
        "InvalidArgument"
    );
    // one per remaining ErrorCode, from a handler that fails with it
    let d = Dispatcher::new();
    for code in ErrorCode::ALL {
        let id = format!("fails_{}", code.as_str().to_lowercase());
        d.register_function(
            &format!(r#"{{"id":"{id}"}}"#),
            Some(sync_handler(move |_| {
                Err((code, format!("failed with {code}")))
            })),
        )
        .unwrap();
        let (got, msg) = error(&call(&d, &id, &doc(json!({}))));
        assert_eq!(got, code.android_code() as i64, "{code}: {msg}");
        assert_eq!(msg, format!("failed with {code}"));
    }
}

#[test]
fn a_cancelled_call_answers_the_cancelled_code() {
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id":"slow"}"#,
        Some(Arc::new(|_call: &Arc<appfunctions::Call>| {
            // never completes: only the cancel ends it
        })),
    )
    .unwrap();
    let token = CancelToken::new();
    let (tx, rx) = std::sync::mpsc::channel();
    d.execute_android_async(
        &Invocation::new("slow").cancel_token(&token),
        Some(&doc(json!({}))),
        move |r| tx.send(r.to_owned()).unwrap(),
    );
    assert!(rx.try_recv().is_err(), "still running");
    token.cancel();
    let r: Value = serde_json::from_str(&rx.recv_timeout(Duration::from_secs(5)).unwrap()).unwrap();
    assert_eq!(r["errorCode"], 2001, "{r}");
    assert!(
        rx.recv_timeout(Duration::from_millis(100)).is_err(),
        "answered once"
    );
    // and a timeout is the same code
    let r: Value = serde_json::from_str(&d.execute_android(
        &Invocation::new("slow").timeout(Duration::from_millis(50)),
        None,
    ))
    .unwrap();
    assert_eq!(r["errorCode"], 2001, "{r}");
}

#[test]
fn an_android_call_runs_as_android_whatever_the_invocation_says() {
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id":"who","result":"string"}"#,
        Some(sync_handler(|call| {
            Ok(Some(
                json!(format!(
                    "{} {}",
                    call.platform().as_str(),
                    call.caller_package()
                ))
                .to_string(),
            ))
        })),
    )
    .unwrap();
    let inv = Invocation::new("who")
        .platform(Platform::Apple)
        .caller("com.example.agent");
    let r: Value = serde_json::from_str(&d.execute_android(&inv, None)).unwrap();
    assert_eq!(
        returned(&r),
        &json!({"strings": ["android com.example.agent"]})
    );
}

#[test]
fn a_result_a_document_cannot_hold_is_an_app_error() {
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id":"grid","result":{"array":{"array":"int32"}}}"#,
        Some(sync_handler(|_| Ok(Some("[[1,2],[3]]".into())))),
    )
    .unwrap();
    let (code, msg) = error(&call(&d, "grid", &doc(json!({}))));
    assert_eq!(code, 3000);
    assert!(msg.contains("array of arrays"), "{msg}");
}
