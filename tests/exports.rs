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
        let ext = if format == Format::AndroidXml {
            "xml"
        } else {
            "json"
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
