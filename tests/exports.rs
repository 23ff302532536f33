//! Golden files of every export format from the demo app, and the vendors' documented
//! constraints checked on each (export::check). AF_BLESS=1 rewrites the golden files.

#[path = "../examples/demo/app.rs"]
mod app;

use appfunctions::export::{check, Format};
use std::path::Path;

#[test]
fn every_format_matches_its_golden_file_and_the_vendor_rules() {
    let a = app::build();
    for format in Format::ALL {
        let text = a
            .dispatcher
            .export(format)
            .unwrap_or_else(|e| panic!("{format}: {e}"));
        check(format, &text).unwrap_or_else(|e| panic!("{format} breaks its vendor's rules: {e}"));
        let ext = match format {
            Format::AndroidXml => "xml",
            Format::SwiftAppIntents => "swift",
            Format::AndroidLegacyXml | Format::AndroidManifest => "xml",
            Format::AndroidSchema => "xsd",
            _ => "json",
        };
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/golden/demo.{}.{ext}", format.name()));
        if std::env::var_os("AF_BLESS").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        let golden = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            golden == text,
            "{} differs from {}: run AF_BLESS=1 cargo test --test exports and review the diff",
            format.name(),
            path.display()
        );
    }
}

#[test]
fn openai_strict_is_set_only_where_strict_mode_holds() {
    let a = app::build();
    let tools: serde_json::Value =
        serde_json::from_str(&a.dispatcher.export(Format::OpenAi).unwrap()).unwrap();
    let strict = |name: &str| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["strict"]
            .clone()
    };
    // priority is optional with a non-null default: not expressible in strict mode
    assert_eq!(strict("create_order"), false);
    // every parameter required (or optional and nullable without a default)
    assert_eq!(strict("create_note"), true);
}

#[test]
fn disabled_functions_leave_tool_lists_but_stay_in_the_android_schema() {
    let a = app::build();
    a.dispatcher.set_enabled("create_note", false).unwrap();
    assert!(!a
        .dispatcher
        .export(Format::Mcp)
        .unwrap()
        .contains("\"create_note\""));
    let xml = a.dispatcher.export(Format::AndroidXml).unwrap();
    assert!(xml.contains("create_note"));
}

/// The registry's Android XML, made from the elements each entry keeps, is the document
/// `export::android_xml` makes of the registry JSON: for disabled functions, templated
/// texts, entities and record types, before and after the elements are kept, and after a
/// function is disabled.
#[test]
fn android_xml_from_kept_elements_is_the_registry_documents() {
    use appfunctions::export::android_xml;
    use appfunctions::{sync_handler, Dispatcher};
    let d = Dispatcher::new();
    d.set_metadata_schema(r#"{"properties":{"shop":{"type":"string","default":"the shop"}}}"#)
        .unwrap();
    d.define_types(r#"{"enums":[{"name":"Priority","description":"How urgent","members":["Low",{"name":"High","description":"now"}]}],
        "records":[{"name":"Line","fields":[{"name":"sku","type":"string","minLength":1},{"name":"qty","type":"int32","optional":true}]},
                   {"name":"Order","fields":[{"name":"id","type":"string"},{"name":"lines","type":{"array":{"record":"Line"}}}]}]}"#)
        .unwrap();
    let h = || Some(sync_handler(|_| Ok(None)));
    d.register_entity(
        r#"{"name":"customer","title":"Customer","fields":[{"name":"id","type":"string"},{"name":"name","type":"string"}]}"#,
        sync_handler(|_| Ok(Some("[]".into()))),
    )
    .unwrap();
    d.register_function(r#"{"id":"create_order","description":"Orders from {metadata.shop}.","parameters":[{"name":"customer","type":{"entity":"customer"}},{"name":"priority","type":{"enum":"Priority"},"default":"Low"},{"name":"lines","type":{"array":{"record":"Line"}},"maxItems":10}],"result":{"record":"Order"}}"#, h()).unwrap();
    d.register_function(r#"{"id":"old_thing","deprecated":true,"parameters":[{"name":"n","type":{"nullable":"int64"}}]}"#, h()).unwrap();
    d.register_function(
        r#"{"id":"hidden","enabled":false,"result":{"nullable":"string"}}"#,
        h(),
    )
    .unwrap();
    let reference = |d: &Dispatcher| {
        let mut v = d.registry_value();
        // placeholders render with the metadata schema's defaults, as in every export
        let s = v.to_string().replace("{metadata.shop}", "the shop");
        v = serde_json::from_str(&s).unwrap();
        android_xml(&v).unwrap()
    };
    let first = d.export(Format::AndroidXml).unwrap();
    assert_eq!(first, reference(&d));
    assert!(first.contains("Orders from the shop."), "{first}");
    assert_eq!(
        d.export(Format::AndroidXml).unwrap(),
        first,
        "kept elements"
    );
    d.set_enabled("old_thing", false).unwrap();
    let after = d.export(Format::AndroidXml).unwrap();
    assert_eq!(after, reference(&d));
    assert_ne!(after, first);
    appfunctions::export::check(Format::AndroidXml, &after).unwrap();
}
