//! Every export, and an agent view's tool list, as `export::text` writes them straight from the
//! descriptors, against what `export` makes of the same functions' JSON Schemas and
//! registry document through its public functions (`export::tools_value`,
//! `export::android_xml`): byte for byte, in every format, for descriptors that use every
//! type, constraint, default, nullable form, named type and text the core accepts, with
//! the metadata schema's defaults and with a view's metadata, before and after the
//! entries keep their tool objects.

use appfunctions::export::{self, ExportError, Format, ToolSpec};
use appfunctions::internals::condition;
use appfunctions::view::View;
use appfunctions::{sync_handler, Dispatcher};
use serde_json::{json, Value};

const TYPES: &str = r#"{
  "enums": [
    {"name": "Priority", "description": "How urgent", "members": ["Low", {"name": "Normal", "description": "the default"}, {"name": "High", "description": "today"}]},
    {"name": "Color", "members": ["Red", "Green"]},
    {"name": "Size", "description": "Sizes at {metadata.Shop}.", "members": [{"name": "S", "description": "small in {metadata.Unit}"}, "L"]},
    {"name": "Mood", "description": "  ", "members": [{"name": "A", "description": "  "}, {"name": "B", "description": "b"}]},
    {"name": "Blank", "description": "", "members": ["X"]},
    {"name": "Esc", "description": "quote \" back\\slash \n tab\t ctrl \u0001 <&> é 😀 {not.meta}", "members": ["Plain", {"name": "Odd", "description": "a < b & c"}]}
  ],
  "records": [
    {"name": "Geo", "fields": [{"name": "lat", "type": "double"}, {"name": "lon", "type": "double", "minimum": -180, "maximum": 180}, {"name": "label", "type": {"nullable": "string"}, "maxLength": 20}]},
    {"name": "Address", "description": "Where.", "fields": [
      {"name": "street", "type": "string", "description": "Street", "minLength": 1, "maxLength": 80, "pattern": "^[A-Z]\\w*$"},
      {"name": "geo", "type": {"record": "Geo"}, "description": "Position"},
      {"name": "tags", "type": {"array": "string"}, "minItems": 1, "maxItems": 5, "uniqueItems": true},
      {"name": "zip", "type": {"nullable": "string"}, "description": "Postal code"},
      {"name": "color", "type": {"nullable": {"enum": "Color"}}}]},
    {"name": "Note", "description": "A note", "fields": [
      {"name": "id", "type": "int32", "minimum": 1, "description": "Id"},
      {"name": "title", "type": "string"},
      {"name": "priority", "type": {"enum": "Priority"}, "description": "Urgency"},
      {"name": "when", "type": {"nullable": "dateTime"}},
      {"name": "due", "type": "date", "optional": true},
      {"name": "ref", "type": "uuid", "description": "Reference"},
      {"name": "geo", "type": {"nullable": {"record": "Geo"}}, "description": "Where it was written"}]},
    {"name": "Opt", "fields": [{"name": "a", "type": "string", "optional": true}]},
    {"name": "Empty", "description": "Nothing", "fields": []},
    {"name": "Tree", "fields": [{"name": "label", "type": "string"}, {"name": "kids", "type": {"array": {"record": "Tree"}}}]},
    {"name": "Item", "description": "An item of {metadata.Shop}", "fields": [{"name": "weight", "type": "double", "description": "in {metadata.Unit}", "exclusiveMinimum": 0, "maximum": 1000.5}, {"name": "size", "type": {"enum": "Size"}}]},
    {"name": "Deep", "fields": [{"name": "x", "type": {"array": {"array": {"array": {"array": {"array": {"array": {"array": {"array": {"array": {"array": "string"}}}}}}}}}}}]},
    {"name": "Nine", "fields": [{"name": "x", "type": {"array": {"array": {"array": {"array": {"array": {"array": {"array": {"array": {"array": "int32"}}}}}}}}}}]},
    {"name": "Nums", "fields": [
      {"name": "a", "type": "int32", "exclusiveMinimum": 0, "exclusiveMaximum": 100},
      {"name": "b", "type": "int64", "minimum": -5},
      {"name": "c", "type": "double", "exclusiveMinimum": 0.5, "exclusiveMaximum": 1e300},
      {"name": "d", "type": "int32", "minimum": 1.5, "maximum": 7},
      {"name": "e", "type": "int64", "exclusiveMaximum": 9007199254740993, "minimum": 0},
      {"name": "f", "type": "int32", "minimum": 2, "exclusiveMinimum": 3},
      {"name": "g", "type": "int32", "maximum": 2147483647, "minimum": -2147483648},
      {"name": "h", "type": {"nullable": "int64"}, "maximum": 10},
      {"name": "i", "type": {"nullable": "double"}}]}
  ]}"#;

/// Functions over every shape the schemas take.
fn functions() -> Vec<serde_json::Value> {
    vec![
        json!({"id": "create_order", "title": "Create order", "description": "Creates an order for a customer.",
            "hints": {"readOnly": false, "destructive": false},
            "parameters": [
                {"name": "customer", "type": "string", "description": "Customer name"},
                {"name": "quantity", "type": "int32", "minimum": 1},
                {"name": "priority", "type": {"enum": "Priority"}, "default": "Normal", "description": "How urgent the order is."},
                {"name": "maybe", "type": {"nullable": {"enum": "Priority"}}, "optional": true},
                {"name": "note", "type": {"nullable": "string"}},
                {"name": "when", "type": {"nullable": "dateTime"}},
                {"name": "due", "type": "date", "optional": true},
                {"name": "ref", "type": "uuid", "description": "Order reference"},
                {"name": "address", "type": {"record": "Address"}},
                {"name": "notes", "type": {"array": {"record": "Note"}}},
                {"name": "total", "type": "int64"},
                {"name": "price", "type": "double"}],
            "result": {"record": "Note"}}),
        json!({"id": "set_priority", "title": "Set priority", "description": "Sets it",
            "parameters": [
                {"name": "level", "type": {"enum": "Priority"}},
                {"name": "maybe", "type": {"nullable": {"enum": "Priority"}}, "default": null},
                {"name": "comment", "type": {"nullable": "string"}, "minLength": 2, "maxLength": 10},
                {"name": "shout", "type": {"nullable": "string"}, "description": "Loud", "maxLength": 3, "default": null},
                {"name": "tags", "type": {"nullable": {"array": "string"}}, "uniqueItems": true, "minItems": 1},
                {"name": "codes", "type": {"array": "string"}, "uniqueItems": true, "description": "Codes."},
                {"name": "name", "type": "string", "minLength": 1, "pattern": "^a"},
                {"name": "geo", "type": {"nullable": {"record": "Geo"}}},
                {"name": "when", "type": {"nullable": "dateTime"}}],
            "result": {"array": {"record": "Note"}}}),
        json!({"id": "ping", "description": "Checks that the app answers.", "result": "string", "deprecated": true}),
        json!({"id": "ping_void", "title": "  Ping  ", "description": "   ", "hints": {"idempotent": true, "openWorld": false}}),
        json!({"id": "untitled", "deprecated": true}),
        json!({"id": "blank_deprecated", "title": "", "description": "", "deprecated": true, "result": "boolean"}),
        json!({"id": "remember", "kind": "output", "description": "Remembers",
            "parameters": [
                {"name": "text", "type": "string"},
                {"name": "count", "type": "int32", "default": 2},
                {"name": "maybe", "type": {"nullable": "string"}},
                {"name": "opt", "type": "string", "optional": true},
                {"name": "order", "type": {"entity": "order"}},
                {"name": "color", "type": {"enum": "Color"}, "default": "Red"}]}),
        json!({"id": "remember_nothing", "kind": "output"}),
        json!({"id": "cancel_order", "title": "Cancel order", "description": "Cancels an open order.",
            "parameters": [
                {"name": "order", "type": {"entity": "order"}, "description": "The order to cancel."},
                {"name": "other", "type": {"entity": "order"}},
                {"name": "maybe", "type": {"nullable": {"entity": "order"}}},
                {"name": "maybeDescribed", "type": {"nullable": {"entity": "order"}}, "description": "Or this"},
                {"name": "many", "type": {"array": {"entity": "thing"}}},
                {"name": "product", "type": {"entity": "product"}}],
            "result": {"entity": "order"}}),
        json!({"id": "maybe_note", "result": {"nullable": {"record": "Note"}}}),
        json!({"id": "pick_color", "result": {"enum": "Color"}}),
        json!({"id": "maybe_color", "result": {"nullable": {"enum": "Color"}}}),
        json!({"id": "grid", "result": {"array": {"array": "int32"}}}),
        json!({"id": "count", "result": {"type": "int32", "minimum": 0}}),
        json!({"id": "code", "result": {"type": "string", "pattern": "^[0-9]+$", "maxLength": 8}}),
        json!({"id": "uid", "result": "uuid"}),
        json!({"id": "maybe_text", "result": {"nullable": "string"}}),
        json!({"id": "things", "result": {"array": {"entity": "thing"}}}),
        json!({"id": "weigh", "title": "Weigh at {metadata.Shop}", "description": "Weighs in {metadata.Unit}.",
            "parameters": [
                {"name": "item", "type": {"record": "Item"}, "description": "What {metadata.Shop} sells"},
                {"name": "size", "type": {"enum": "Size"}},
                {"name": "product", "type": {"entity": "product"}},
                {"name": "n", "type": "int32", "description": "{metadata.N} of them"}],
            "result": {"record": "Item"}}),
        json!({"id": "gone", "description": "{metadata.Unit}", "title": "Gone"}),
        json!({"id": "walk_tree", "parameters": [{"name": "root", "type": {"record": "Tree"}}], "result": {"record": "Tree"}}),
        json!({"id": "nothing", "parameters": [{"name": "e", "type": {"record": "Empty"}, "description": "Empty"}]}),
        json!({"id": "optional_record", "parameters": [{"name": "o", "type": {"record": "Opt"}}]}),
        json!({"id": "deep", "parameters": [{"name": "d", "type": {"record": "Deep"}}, {"name": "nine", "type": {"record": "Nine"}}]}),
        json!({"id": "nine", "parameters": [{"name": "nine", "type": {"record": "Nine"}}, {"name": "x", "type": {"array": {"array": {"array": {"array": {"array": {"array": {"array": {"array": {"array": "string"}}}}}}}}}}]}),
        json!({"id": "ten", "parameters": [{"name": "x", "type": {"array": {"array": {"array": {"array": {"array": {"array": {"array": {"array": {"array": {"array": "string"}}}}}}}}}}}]}),
        json!({"id": "numbers", "parameters": [
                {"name": "nums", "type": {"record": "Nums"}},
                {"name": "a", "type": "int32", "exclusiveMinimum": 0, "exclusiveMaximum": 100, "description": "A."},
                {"name": "c", "type": "double", "exclusiveMinimum": 0.5, "maximum": 2},
                {"name": "h", "type": {"nullable": "int64"}, "maximum": 10, "default": 3},
                {"name": "d", "type": "double", "default": 1.25}],
            "result": {"record": "Nums"}}),
        json!({"id": "escapes", "title": "Say \"hi\" <now> & then", "description": "Line one\nline two\ttab \u{7} bell \\ é 😀",
            "parameters": [
                {"name": "text", "type": "string", "description": "quote \" and\r\nnew line \u{1f}"},
                {"name": "esc", "type": {"enum": "Esc"}, "default": "Plain"},
                {"name": "obj", "type": {"record": "Geo"}, "default": {"lat": 1.5, "lon": -2, "label": "a \"b\""}},
                {"name": "mood", "type": {"enum": "Mood"}, "description": "Mood."},
                {"name": "blank", "type": {"nullable": {"enum": "Blank"}}, "description": "  "}]}),
        json!({"id": "arrays", "parameters": [
                {"name": "colors", "type": {"array": {"nullable": {"enum": "Color"}}}},
                {"name": "geos", "type": {"nullable": {"array": {"record": "Geo"}}}, "minItems": 0},
                {"name": "maybeInts", "type": {"array": {"nullable": "int32"}}, "maxItems": 3},
                {"name": "dates", "type": {"array": "date"}}],
            "result": {"array": {"nullable": {"record": "Geo"}}}}),
    ]
}

/// The corpus, without the functions `skip` names.
fn dispatcher(skip: &[&str]) -> Dispatcher {
    let d = Dispatcher::new();
    d.set_metadata_schema(
        r#"{"type": "object", "properties": {"Shop": {"type": "string", "default": "the shop"}, "Unit": {"type": "string"}, "N": {"type": "integer", "default": 3}}}"#,
    )
    .unwrap();
    d.define_types(TYPES).unwrap();
    let lookup = || sync_handler(|_| Ok(Some("[]".into())));
    d.register_entity(
        r#"{"name": "order", "title": "Order", "description": "An order.", "fields": [{"name": "id", "type": "string"}, {"name": "customer", "type": "string", "description": "Who"}, {"name": "notes", "type": {"array": {"record": "Note"}}, "optional": true}]}"#,
        lookup(),
    )
    .unwrap();
    d.register_entity(
        r#"{"name": "product", "title": "Product of {metadata.Shop}", "description": "Sold at {metadata.Shop}", "fields": [{"name": "id", "type": "string"}]}"#,
        lookup(),
    )
    .unwrap();
    d.register_entity(
        r#"{"name": "thing", "title": "  ", "fields": [{"name": "id", "type": "string"}, {"name": "count", "type": "int32", "optional": true}]}"#,
        lookup(),
    )
    .unwrap();
    let h = sync_handler(|_| Ok(None));
    for f in functions()
        .into_iter()
        .filter(|f| !skip.contains(&f["id"].as_str().unwrap()))
    {
        let output = f["kind"] == "output";
        d.register_function(&f.to_string(), (!output).then(|| h.clone()))
            .unwrap_or_else(|e| panic!("{e}: {f}"));
    }
    d.set_enabled("gone", false).unwrap();
    d
}

fn json_formats() -> impl Iterator<Item = Format> {
    Format::ALL.into_iter().filter(|f| f.is_json())
}

/// Gemini's subset cannot express these (a record that refers to itself, one without
/// fields).
const NOT_GEMINI: [&str; 2] = ["walk_tree", "nothing"];

/// What `export` makes of the enabled functions (but `skip`) with their texts rendered for
/// `metadata`: the tools array as compact JSON.
fn reference(
    d: &Dispatcher,
    format: Format,
    metadata: &Value,
    skip: &[&str],
) -> Result<String, ExportError> {
    let infos: Vec<_> = d
        .functions()
        .into_iter()
        .filter(|i| i.enabled && !skip.contains(&i.desc.id.as_str()))
        .map(|i| {
            let mut p = i.parameters_schema.clone();
            condition::render_json(&mut p, metadata);
            let r = i.result_schema.clone().map(|mut r| {
                condition::render_json(&mut r, metadata);
                r
            });
            let title = i
                .desc
                .title
                .as_deref()
                .map(|t| condition::render(t, metadata));
            let desc = condition::render(i.desc.description.as_deref().unwrap_or(""), metadata);
            (i, p, r, title, desc)
        })
        .collect();
    let specs: Vec<ToolSpec> = infos
        .iter()
        .map(|(i, p, r, title, desc)| ToolSpec {
            name: &i.desc.id,
            title: title.as_deref(),
            description: desc,
            input_schema: p,
            output_schema: r.as_ref(),
            hints: i.desc.hints,
            deprecated: i.desc.deprecated,
        })
        .collect();
    export::tools_value(format, &specs).map(|v| serde_json::to_string(&v).unwrap())
}

fn defaults() -> Value {
    json!({"Shop": "the shop", "N": 3})
}

fn other_metadata() -> Value {
    json!({"Shop": "Acme \"& Co\" <x>", "Unit": "kg\n", "N": 7})
}

/// The exports and a view's lists against `export`'s (Gemini without what it refuses).
fn check_lists(d: &Dispatcher, g: &Dispatcher) {
    for f in json_formats() {
        let (d, skip) = if f == Format::Gemini {
            (g, &NOT_GEMINI[..])
        } else {
            (d, &[][..])
        };
        let expected = reference(d, f, &defaults(), skip).unwrap();
        assert_eq!(d.export(f).unwrap(), expected, "{f}");
        let v = View::new(d, other_metadata()).unwrap();
        let expected = reference(d, f, &other_metadata(), skip).unwrap();
        assert_eq!(v.tools(f).unwrap(), expected, "{f} in a view");
    }
}

#[test]
fn every_export_is_the_bytes_export_makes_of_the_schemas() {
    let d = dispatcher(&[]);
    let g = dispatcher(&NOT_GEMINI);
    // nothing kept yet, then joined from what the entries keep
    check_lists(&d, &g);
    check_lists(&d, &g);
    // a view first (its metadata renders templated entries; the others are kept), then
    // the exports
    let (d, g) = (dispatcher(&[]), dispatcher(&NOT_GEMINI));
    for f in json_formats() {
        let (d, skip) = if f == Format::Gemini {
            (&g, &NOT_GEMINI[..])
        } else {
            (&d, &[][..])
        };
        let v = View::new(d, other_metadata()).unwrap();
        let expected = reference(d, f, &other_metadata(), skip).unwrap();
        assert_eq!(v.tools(f).unwrap(), expected, "{f} in a view");
    }
    check_lists(&d, &g);
}

#[test]
fn what_gemini_refuses_is_refused_as_export_refuses_it() {
    let d = dispatcher(&[]);
    let err = d.export(Format::Gemini).unwrap_err().to_string();
    assert_eq!(
        err,
        reference(&d, Format::Gemini, &defaults(), &[])
            .unwrap_err()
            .to_string()
    );
    assert!(
        err.contains("walk_tree") && err.contains("refers to itself"),
        "{err}"
    );
    let only_empty = dispatcher(&["walk_tree"]);
    let err = only_empty.export(Format::Gemini).unwrap_err().to_string();
    assert_eq!(
        err,
        reference(&only_empty, Format::Gemini, &defaults(), &[])
            .unwrap_err()
            .to_string()
    );
}

#[test]
fn the_android_xml_is_the_document_export_makes_of_the_registry() {
    let d = dispatcher(&[]);
    let mut doc = d.registry_value();
    condition::render_json(&mut doc, &defaults());
    let expected = export::android_xml(&doc).unwrap();
    assert!(expected.contains("<enabledByDefault>false</enabledByDefault>"));
    assert_eq!(d.export(Format::AndroidXml).unwrap(), expected);
    // again, from the elements the entries keep
    assert_eq!(d.export(Format::AndroidXml).unwrap(), expected);
}
