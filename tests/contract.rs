//! What the model sees is what the core enforces (issue 13): value constraints in the
//! descriptor, the JSON Schema, every export and the binder, for arguments and results.

use appfunctions::export::Format;
use appfunctions::*;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

fn echo() -> Arc<dyn Handler> {
    sync_handler(|call| Ok(Some(call.args().unwrap_or("{}").to_owned())))
}

fn run(d: &Dispatcher, id: &str, args: &str) -> Outcome {
    d.execute_outcome(&Invocation::new(id), Some(args))
}

fn refused(o: &Outcome) -> &str {
    assert_eq!(o.error_code, Some(ErrorCode::InvalidArgument), "{o:?}");
    o.message.as_deref().unwrap()
}

const ORDER: &str = r#"{"id": "create_order", "parameters": [
    {"name": "quantity", "type": "int32", "minimum": 1},
    {"name": "code", "type": "string", "optional": true, "minLength": 2, "maxLength": 4, "pattern": "^[A-Z]+$"},
    {"name": "tags", "type": {"array": "string"}, "optional": true, "maxItems": 2, "uniqueItems": true},
    {"name": "ratio", "type": "double", "optional": true, "exclusiveMinimum": 0, "exclusiveMaximum": 1}
  ], "result": {"type": {"array": "int32"}, "uniqueItems": true}}"#;

#[test]
fn arguments_are_refused_naming_the_parameter_and_the_rule() {
    let d = Dispatcher::new();
    d.register_function(ORDER, Some(sync_handler(|_| Ok(Some("[1]".into())))))
        .unwrap();
    assert!(run(&d, "create_order", r#"{"quantity": 1}"#).is_success());
    for (args, message) in [
        (r#"{"quantity": 0}"#, "quantity: 0 is below the minimum 1"),
        (
            r#"{"quantity": -0.0}"#,
            "quantity: -0.0 is below the minimum 1",
        ),
        (
            r#"{"quantity": 1, "code": "A"}"#,
            r#"code: string "A" has 1 character, fewer than the minLength 2"#,
        ),
        (
            r#"{"quantity": 1, "code": "ABCDE"}"#,
            r#"code: string "ABCDE" has 5 characters, more than the maxLength 4"#,
        ),
        (
            r#"{"quantity": 1, "code": "ab"}"#,
            r#"code: string "ab" does not match the pattern ^[A-Z]+$"#,
        ),
        (
            r#"{"quantity": 1, "tags": ["a", "b", "c"]}"#,
            "tags: 3 items, more than the maxItems 2",
        ),
        (
            r#"{"quantity": 1, "tags": ["a", "a"]}"#,
            "tags: items [0] and [1] are equal, but the items must be unique (uniqueItems)",
        ),
        (
            r#"{"quantity": 1, "ratio": 0}"#,
            "ratio: 0 is not above the exclusiveMinimum 0",
        ),
        (
            r#"{"quantity": 1, "ratio": 1.0}"#,
            "ratio: 1.0 is not below the exclusiveMaximum 1",
        ),
    ] {
        assert_eq!(refused(&run(&d, "create_order", args)), message, "{args}");
    }
}

#[test]
fn results_are_checked_against_their_constraints() {
    let d = Dispatcher::new();
    d.define_types(r#"{"records": [{"name": "Line", "fields": [{"name": "qty", "type": "int32", "minimum": 1}]}]}"#)
        .unwrap();
    let next: Arc<Mutex<String>> = Arc::default();
    let n = next.clone();
    d.register_function(
        r#"{"id": "lines", "result": {"type": {"array": {"record": "Line"}}, "maxItems": 2}}"#,
        Some(sync_handler(move |_| Ok(Some(n.lock().unwrap().clone())))),
    )
    .unwrap();
    for (result, ok) in [
        (r#"[{"qty": 1}]"#, None),
        (
            r#"[{"qty": 1}, {"qty": 0}]"#,
            Some("the result of lines does not match its declared type array of record Line at [1].qty: 0 is below the minimum 1"),
        ),
        (
            r#"[{"qty": 1}, {"qty": 2}, {"qty": 3}]"#,
            Some("the result of lines does not match its declared type array of record Line: 3 items, more than the maxItems 2"),
        ),
    ] {
        *next.lock().unwrap() = result.into();
        let o = run(&d, "lines", "{}");
        match ok {
            None => assert!(o.is_success(), "{o:?}"),
            Some(m) => {
                assert_eq!(o.error_code, Some(ErrorCode::HandlerFailed));
                assert_eq!(o.message.as_deref(), Some(m));
            }
        }
    }
}

#[test]
fn descriptors_with_constraints_that_cannot_hold_are_refused_at_registration() {
    let d = Dispatcher::new();
    d.define_types(r#"{"enums": [{"name": "Priority", "members": ["Low", "High"]}]}"#)
        .unwrap();
    for (desc, message) in [
        (
            json!({"id": "f", "parameters": [{"name": "n", "type": "int32", "minimum": 1, "default": 0}]}),
            "f.parameters.n.default: 0 is below the minimum 1",
        ),
        (
            json!({"id": "f", "parameters": [{"name": "n", "type": "string", "minimum": 1}]}),
            "f.parameters.n.minimum: minimum applies to int32, int64 and double, not to string",
        ),
        (
            json!({"id": "f", "parameters": [{"name": "p", "type": {"enum": "Priority"}, "maxLength": 3}]}),
            "f.parameters.p.maxLength: maxLength applies to string, not to an enum",
        ),
        (
            json!({"id": "f", "parameters": [{"name": "n", "type": "int32", "maximum": 1e10}]}),
            "f.parameters.n.maximum: 10000000000.0 is outside the range of int32 (-2147483648 to 2147483647)",
        ),
        (
            json!({"id": "f", "parameters": [{"name": "n", "type": "int64", "minimum": 5, "exclusiveMaximum": 5}]}),
            "f.parameters.n: no value can satisfy the constraints: minimum 5 and exclusiveMaximum 5",
        ),
        (
            json!({"id": "f", "parameters": [{"name": "s", "type": "string", "pattern": "^(?!x)"}]}),
            "f.parameters.s.pattern: the pattern \"^(?!x)\": negative lookahead \"(?!\" at position 1 is not supported: the core's matcher has no lookaround, so it could not enforce what the pattern says",
        ),
        (
            json!({"id": "f", "parameters": [{"name": "s", "type": "string", "pattern": "(a)\\1"}]}),
            "f.parameters.s.pattern: the pattern \"(a)\\\\1\": the backreference \"\\1\" at position 3 is not supported: the core's matcher has no backreferences",
        ),
        (
            json!({"id": "f", "result": {"type": "string", "minItems": 1}}),
            "f.result.minItems: minItems applies to arrays, not to string",
        ),
        (
            json!({"id": "f", "result": {"type": "string", "min": 1}}),
            "f.result.min: unknown field (did you mean \"minimum\"?); allowed: type, nullable, minimum, exclusiveMinimum, maximum, exclusiveMaximum, minLength, maxLength, pattern, minItems, maxItems, uniqueItems",
        ),
    ] {
        let e = d
            .register_function(&desc.to_string(), Some(echo()))
            .unwrap_err();
        assert_eq!(e.to_string(), message, "{desc}");
    }
    let e = d
        .define_types(r#"{"records": [{"name": "R", "fields": [{"name": "x", "type": {"array": "int32"}, "minItems": 3, "maxItems": 2}]}]}"#)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "R.fields.x: no value can satisfy the constraints: minItems 3 is more than maxItems 2"
    );
}

#[test]
fn schemas_and_the_registry_state_the_constraints() {
    let d = Dispatcher::new();
    d.register_function(ORDER, Some(sync_handler(|_| Ok(Some("[1]".into())))))
        .unwrap();
    let s = d.parameters_schema("create_order").unwrap();
    assert_eq!(
        s["properties"]["quantity"],
        json!({"type": "integer", "minimum": 1, "maximum": 2147483647})
    );
    assert_eq!(
        s["properties"]["code"],
        json!({"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[A-Z]+$"})
    );
    assert_eq!(
        s["properties"]["tags"],
        json!({"type": "array", "items": {"type": "string"}, "maxItems": 2, "uniqueItems": true})
    );
    assert_eq!(
        s["properties"]["ratio"],
        json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1})
    );
    let r = d.result_schema("create_order").unwrap().unwrap();
    assert_eq!(r["uniqueItems"], json!(true));
    let reg: Value = serde_json::from_str(&d.registry_json()).unwrap();
    let f = &reg["functions"][0];
    assert_eq!(f["parameters"][0]["minimum"], json!(1));
    assert_eq!(f["parameters"][1]["pattern"], json!("^[A-Z]+$"));
    assert_eq!(f["result"], json!({"array": "int32"}));
    assert_eq!(f["resultConstraints"], json!({"uniqueItems": true}));
}

#[test]
fn each_export_keeps_what_its_vendor_accepts_and_states_the_rest() {
    let d = Dispatcher::new();
    d.register_function(ORDER, Some(sync_handler(|_| Ok(Some("[1]".into())))))
        .unwrap();
    let tools = |f: Format| -> Value { serde_json::from_str(&d.export(f).unwrap()).unwrap() };
    // MCP and Anthropic: the JSON Schema as is
    let mcp = tools(Format::Mcp);
    assert_eq!(
        mcp[0]["inputSchema"]["properties"]["code"]["minLength"],
        json!(2)
    );
    let anthropic = tools(Format::Anthropic);
    assert_eq!(
        anthropic[0]["input_schema"]["properties"]["tags"]["uniqueItems"],
        json!(true)
    );
    // OpenAI: strict mode keeps bounds, pattern and item counts; lengths and uniqueness move
    // into the description
    let openai = tools(Format::OpenAi);
    let p = &openai[0]["parameters"]["properties"];
    assert_eq!(
        openai[0]["strict"],
        json!(false),
        "optional non-nullable parameters"
    );
    assert_eq!(p["code"]["minLength"], json!(2), "not strict: sent as is");
    let strict_one = Dispatcher::new();
    strict_one
        .register_function(
            r#"{"id": "tag", "parameters": [{"name": "code", "type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[A-Z]+$", "description": "A code"},
                {"name": "tags", "type": {"array": "string"}, "maxItems": 2, "uniqueItems": true},
                {"name": "n", "type": "int32", "exclusiveMinimum": 0}]}"#,
            Some(echo()),
        )
        .unwrap();
    let o: Value = serde_json::from_str(&strict_one.export(Format::OpenAi).unwrap()).unwrap();
    assert_eq!(o[0]["strict"], json!(true));
    let p = &o[0]["parameters"]["properties"];
    assert_eq!(
        p["code"],
        json!({"type": "string", "pattern": "^[A-Z]+$", "description": "A code. At least 2 characters. At most 4 characters."})
    );
    assert_eq!(
        p["tags"],
        json!({"type": "array", "items": {"type": "string"}, "maxItems": 2, "description": "Items must be unique."})
    );
    assert_eq!(p["n"]["exclusiveMinimum"], json!(0));
    // Gemini: min/max, lengths, pattern and item counts kept; an exclusive integer bound
    // becomes the inclusive one it means; uniqueness and exclusive number bounds are stated
    let g: Value = serde_json::from_str(&strict_one.export(Format::Gemini).unwrap()).unwrap();
    let p = &g[0]["functionDeclarations"][0]["parameters"]["properties"];
    assert_eq!(
        p["code"],
        json!({"type": "STRING", "description": "A code", "minLength": 2, "maxLength": 4, "pattern": "^[A-Z]+$"})
    );
    assert_eq!(
        p["n"],
        json!({"type": "INTEGER", "minimum": 1, "maximum": 2147483647})
    );
    assert_eq!(p["tags"]["description"], json!("Items must be unique."));
    assert_eq!(p["tags"]["maxItems"], json!(2));
    let g: Value = serde_json::from_str(&d.export(Format::Gemini).unwrap()).unwrap();
    assert_eq!(
        g[0]["functionDeclarations"][0]["parameters"]["properties"]["ratio"],
        json!({"type": "NUMBER", "description": "Greater than 0. Less than 1."})
    );
    // Android XML: stated after the description
    let xml = strict_one.export(Format::AndroidXml).unwrap();
    assert!(
        xml.contains("<description>A code. At least 2 characters. At most 4 characters. Must match the regular expression ^[A-Z]+$.</description>"),
        "{xml}"
    );
    for f in Format::ALL {
        export::check(f, &d.export(f).unwrap()).unwrap();
        export::check(f, &strict_one.export(f).unwrap()).unwrap();
    }
}

#[test]
fn the_demo_enforces_its_constraints() {
    #[path = "../examples/demo/app.rs"]
    mod app;
    let a = app::build();
    let o = run(
        &a.dispatcher,
        "create_order",
        r#"{"customer": "acme", "quantity": 0}"#,
    );
    assert_eq!(refused(&o), "quantity: 0 is below the minimum 1");
    a.dispatcher.set_enabled("find_orders", true).unwrap();
    let o = run(&a.dispatcher, "find_orders", r#"{"limit": 101}"#);
    assert_eq!(refused(&o), "limit: 101 is above the maximum 100");
    let o = run(&a.dispatcher, "find_orders", r#"{"limit": 1}"#);
    assert_eq!(
        o.result.as_deref().map(|r| r.matches("\"id\"").count()),
        Some(1)
    );
}

#[test]
fn descriptors_fail_early_and_say_what_to_write() {
    let d = Dispatcher::new();
    let e = d
        .register_function(
            r#"{"id": "f", "parameters": [{"name": "n", "type": "in32"}]}"#,
            Some(echo()),
        )
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("f.parameters.n.type: unknown type \"in32\" (did you mean \"int32\"?)"),
        "{e}"
    );
    let e = d
        .register_function(r#"{"id": "f", "result": "date-time"}"#, Some(echo()))
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "f.result: unknown type \"date-time\" (write \"dateTime\": the core accepts one spelling per type, no aliases)"
        ),
        "{e}"
    );
    let e = d
        .define_types(r#"{"records": [{"name": "R", "fields": [{"name": "n", "type": "long"}]}]}"#)
        .unwrap_err();
    assert!(e.to_string().contains("(write \"int64\""), "{e}");
}

#[test]
fn a_date_time_without_an_offset_is_told_so() {
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id": "remind", "parameters": [{"name": "at", "type": "dateTime"}]}"#,
        Some(sync_handler(|_| Ok(None))),
    )
    .unwrap();
    assert_eq!(
        refused(&run(&d, "remind", r#"{"at": "2025-06-01T17:00:00"}"#)),
        "at: \"2025-06-01T17:00:00\" is not a date-time: the offset is missing: add Z for UTC or the local offset such as +02:00 (a date-time is ISO 8601 with an offset, such as \"2025-06-01T17:00:00+02:00\")"
    );
    assert!(run(&d, "remind", r#"{"at": "2025-06-01T17:00:00Z"}"#).is_success());
}

/// A dispatcher whose every kind of text holds a placeholder.
fn templated() -> Dispatcher {
    let d = Dispatcher::new();
    d.set_metadata_schema(
        r#"{"type": "object", "properties": {"Shop": {"type": "string", "default": "the shop"}, "Unit": {"type": "string"}}}"#,
    )
    .unwrap();
    d.define_types(
        r#"{"enums": [{"name": "Size", "description": "Sizes at {metadata.Shop}", "members": [{"name": "S", "description": "small in {metadata.Unit}"}, "L"]}],
            "records": [{"name": "Item", "description": "An item of {metadata.Shop}", "fields": [{"name": "weight", "type": "double", "description": "in {metadata.Unit}"}]}]}"#,
    )
    .unwrap();
    d.register_entity(
        r#"{"name": "product", "title": "Product of {metadata.Shop}", "description": "Sold at {metadata.Shop}", "fields": [{"name": "id", "type": "string"}]}"#,
        sync_handler(|_| Ok(Some("[]".into()))),
    )
    .unwrap();
    d.register_function(
        r#"{"id": "weigh", "title": "Weigh at {metadata.Shop}", "description": "Weighs in {metadata.Unit}.",
            "parameters": [{"name": "item", "type": {"record": "Item"}, "description": "What {metadata.Shop} sells"},
                           {"name": "size", "type": {"enum": "Size"}}],
            "result": {"record": "Item"}}"#,
        Some(echo()),
    )
    .unwrap();
    d
}

#[test]
fn no_unrendered_template_reaches_a_model() {
    let d = templated();
    // a view: every text rendered with its metadata (defaults fill what it lacks)
    let v = view::View::new(&d, json!({"Unit": "kg"})).unwrap();
    for f in Format::ALL.into_iter().filter(|f| f.is_json()) {
        let t = v.tools(f).unwrap();
        assert!(!t.contains("{metadata."), "{f}: {t}");
        assert!(t.contains("Weighs in kg."), "{f}: {t}");
        assert!(t.contains("What the shop sells"), "{f}: {t}");
        if f != Format::Gemini {
            assert!(
                t.contains("Weigh at the shop"),
                "{f}: the schema's title: {t}"
            );
        }
    }
    let mcp = serde_json::to_string(&v.mcp_tools()).unwrap();
    assert!(
        !mcp.contains("{metadata.") && mcp.contains("in kg"),
        "{mcp}"
    );
    v.set_metadata(json!({"Unit": "lb", "Shop": "Acme"}))
        .unwrap();
    let t = v.tools(Format::Mcp).unwrap();
    assert!(
        t.contains("Weighs in lb.") && t.contains("Weigh at Acme") && t.contains("small in lb"),
        "{t}"
    );
    // outside views (exports, schemas): the metadata schema's defaults, missing as empty
    for f in Format::ALL {
        let t = d.export(f).unwrap();
        assert!(!t.contains("{metadata."), "{f}: {t}");
        if matches!(
            f,
            Format::AndroidLegacyXml | Format::AndroidSchema | Format::AndroidManifest
        ) {
            // ids and flags, no texts (the legacy file, the schema file, the manifest)
        } else if f == Format::SwiftAppIntents {
            // weigh takes a record, which App Intents cannot: its intent is left out
            assert!(t.contains("\"Product of the shop\""), "{f}: {t}");
        } else {
            assert!(t.contains("What the shop sells"), "{f}: {t}");
        }
        export::check(f, &t).unwrap();
    }
    let s = d.parameters_schema("weigh").unwrap().to_string();
    assert!(
        !s.contains("{metadata.") && s.contains("Weigh at the shop"),
        "{s}"
    );
    let r = d
        .result_schema("search_product")
        .unwrap()
        .unwrap()
        .to_string();
    assert!(
        !r.contains("{metadata.") && r.contains("Sold at the shop"),
        "{r}"
    );
    // the registry is the descriptors as registered, placeholders included
    assert!(d.registry_json().contains("Weighs in {metadata.Unit}."));
}

#[test]
fn with_a_metadata_schema_registration_refuses_placeholders_naming_undeclared_metadata() {
    let d = templated();
    for (desc, path) in [
        (r#"{"id": "a", "title": "{metadata.Shopp}"}"#, "a.title"),
        (
            r#"{"id": "a", "parameters": [{"name": "x", "type": "string", "description": "in {metadata.Currency}"}]}"#,
            "a.parameters.x.description",
        ),
    ] {
        let e = d
            .register_function(desc, Some(echo()))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!("{path}: placeholder {{metadata."))
                && e.contains("known: Shop, Unit"),
            "{e}"
        );
    }
    let e = d
        .define_types(r#"{"records": [{"name": "R", "fields": [{"name": "x", "type": "string", "description": "{metadata.Nope}"}]}]}"#)
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("R.fields.x.description: placeholder {metadata.Nope}"),
        "{e}"
    );
    let e = d
        .define_types(r#"{"enums": [{"name": "E", "members": [{"name": "A", "description": "{metadata.Nope}"}]}]}"#)
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("E.members[0].description: placeholder"),
        "{e}"
    );
    let e = d
        .register_entity(
            r#"{"name": "thing", "description": "{metadata.Nope}", "fields": [{"name": "id", "type": "string"}]}"#,
            sync_handler(|_| Ok(Some("[]".into()))),
        )
        .unwrap_err();
    assert!(
        e.to_string().starts_with("thing.description: placeholder"),
        "{e}"
    );
    // a malformed placeholder is refused whether a schema is declared or not
    let bare = Dispatcher::new();
    let e = bare
        .register_function(
            r#"{"id": "a", "description": "for {metadata.Sh op}"}"#,
            Some(echo()),
        )
        .unwrap_err();
    assert!(e.to_string().contains("must name one property"), "{e}");
}

#[test]
fn the_plain_form_without_a_metadata_schema_renders_run_time_metadata_and_logs_a_missing_key_once()
{
    // seed 004: "Plain form — no metadata type checking"
    let d = Dispatcher::new();
    let logged: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = logged.clone();
    d.set_log_sink(Some(Arc::new(move |_, m: &str| {
        sink.lock().unwrap().push(m.to_owned())
    })));
    d.register_function(
        r#"{"id": "search", "description": "Search with {metadata.ProviderName}.",
            "parameters": [{"name": "q", "type": "string", "description": "Words for {metadata.ProviderName}"}]}"#,
        Some(echo()),
    )
    .unwrap();
    d.define_toolkit(
        r#"{"name": "web", "systemPrompt": "Results come from {metadata.ProviderName} in {metadata.Region}."}"#,
        None,
    )
    .unwrap();
    let tools =
        |v: &view::View| -> Value { serde_json::from_str(&v.tools(Format::Mcp).unwrap()).unwrap() };
    let bing = view::View::new(&d, json!({"ProviderName": "Bing", "Region": "EU"})).unwrap();
    let t = tools(&bing);
    assert_eq!(t[0]["description"], "Search with Bing.");
    assert_eq!(
        t[0]["inputSchema"]["properties"]["q"]["description"],
        "Words for Bing"
    );
    assert!(
        logged.lock().unwrap().is_empty(),
        "{:?}",
        logged.lock().unwrap()
    );
    // a key the metadata lacks renders as empty text, and is logged once per name
    let none = view::View::new(&d, json!({"Region": "EU"})).unwrap();
    assert_eq!(tools(&none)[0]["description"], "Search with .");
    let again = view::View::new(&d, json!({})).unwrap();
    again.set_metadata(json!({})).unwrap();
    let lines = logged.lock().unwrap().clone();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0]
            .starts_with("{metadata.ProviderName}: the view's metadata has no \"ProviderName\""),
        "{lines:?}"
    );
    assert!(lines[1].starts_with("{metadata.Region}:"), "{lines:?}");
    // the registry keeps the placeholders as registered
    assert!(d
        .registry_json()
        .contains("Search with {metadata.ProviderName}."));
}

#[test]
fn one_nullable_rule_a_nullable_parameter_may_be_omitted_and_binds_as_null() {
    // seed 002: editNote(noteId: String, title: String?, content: String)
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id": "edit_note", "parameters": [
            {"name": "noteId", "type": "string"},
            {"name": "title", "type": "string", "nullable": true, "description": "The new title if it should be updated."},
            {"name": "content", "type": "string"}], "result": "string"}"#,
        Some(sync_handler(|call| {
            Ok(Some(serde_json::to_string(call.args().unwrap()).unwrap()))
        })),
    )
    .unwrap();
    // omitted and null bind the same
    for args in [
        r#"{"noteId": "1", "content": "c"}"#,
        r#"{"noteId": "1", "title": null, "content": "c"}"#,
    ] {
        let o = run(&d, "edit_note", args);
        let bound: String = serde_json::from_str(o.result.as_deref().unwrap()).unwrap();
        let bound: Value = serde_json::from_str(&bound).unwrap();
        assert_eq!(
            bound,
            json!({"noteId": "1", "title": null, "content": "c"}),
            "{args}"
        );
    }
    // the schema does not require it; the registry lists it as optional
    let s = d.parameters_schema("edit_note").unwrap();
    assert_eq!(s["required"], json!(["noteId", "content"]));
    assert_eq!(s["properties"]["title"]["type"], json!(["string", "null"]));
    let reg: Value = serde_json::from_str(&d.registry_json()).unwrap();
    assert_eq!(
        reg["functions"][0]["parameters"][1]["optional"],
        json!(true)
    );
    assert_eq!(
        reg["functions"][0]["parameters"][1]["nullable"],
        json!(true)
    );
    // formats that require every property list it as required with a null type
    let o: Value = serde_json::from_str(&d.export(Format::OpenAi).unwrap()).unwrap();
    assert_eq!(o[0]["strict"], json!(true));
    assert_eq!(
        o[0]["parameters"]["required"],
        json!(["noteId", "content", "title"])
    );
    assert_eq!(
        o[0]["parameters"]["properties"]["title"]["type"],
        json!(["string", "null"])
    );
    let g: Value = serde_json::from_str(&d.export(Format::Gemini).unwrap()).unwrap();
    let p = &g[0]["functionDeclarations"][0]["parameters"];
    assert_eq!(p["required"], json!(["noteId", "content"]));
    assert_eq!(p["properties"]["title"]["nullable"], json!(true));
    assert!(d
        .export(Format::AndroidXml)
        .unwrap()
        .contains("<isRequired>false</isRequired>\n            <name>title</name>"));
    // a nullable parameter that says it may not be omitted contradicts the rule
    let e = d
        .register_function(
            r#"{"id": "f", "parameters": [{"name": "t", "type": "string", "nullable": true, "optional": false}]}"#,
            Some(echo()),
        )
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "f.parameters.t.optional: a nullable value may always be omitted (it then binds as null); remove \"optional\": false, or make the type non-nullable"
    );
}

#[test]
fn one_nullable_rule_holds_for_record_fields_too() {
    let d = Dispatcher::new();
    d.define_types(r#"{"records": [{"name": "Note", "fields": [{"name": "id", "type": "int32"}, {"name": "title", "type": {"nullable": "string"}}]}]}"#)
        .unwrap();
    d.register_function(
        r#"{"id": "save", "parameters": [{"name": "note", "type": {"record": "Note"}}], "result": {"record": "Note"}}"#,
        Some(sync_handler(|_| Ok(Some(r#"{"id": 2}"#.into())))),
    )
    .unwrap();
    let o = run(&d, "save", r#"{"note": {"id": 1}}"#);
    assert_eq!(o.result.as_deref(), Some(r#"{"id":2,"title":null}"#));
    let s = d.parameters_schema("save").unwrap();
    assert_eq!(s["$defs"]["Note"]["required"], json!(["id"]));
}

#[test]
fn enum_members_keep_their_descriptions_in_every_export() {
    let d = Dispatcher::new();
    d.define_types(
        r#"{"enums": [{"name": "Priority", "description": "How urgent", "members": ["Low", {"name": "Normal", "description": "The default"}, "High"]}]}"#,
    )
    .unwrap();
    d.register_function(
        r#"{"id": "set_priority", "parameters": [{"name": "level", "type": {"enum": "Priority"}, "description": "The new level"}]}"#,
        Some(sync_handler(|_| Ok(None))),
    )
    .unwrap();
    for f in Format::ALL {
        let t = d.export(f).unwrap();
        if matches!(
            f,
            Format::AndroidLegacyXml | Format::AndroidSchema | Format::AndroidManifest
        ) {
            continue; // no texts: the legacy file, the schema file, the manifest
        }
        if f == Format::SwiftAppIntents {
            // the member's display representation
            assert!(t.contains("subtitle: \"The default\""), "{f}: {t}");
        } else {
            assert!(t.contains("Normal: The default"), "{f}: {t}");
        }
        assert!(t.contains("The new level"), "{f}: {t}");
    }
    let g: Value = serde_json::from_str(&d.export(Format::Gemini).unwrap()).unwrap();
    assert_eq!(
        g[0]["functionDeclarations"][0]["parameters"]["properties"]["level"]["description"],
        json!("The new level. How urgent. Normal: The default")
    );
}
