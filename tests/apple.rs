//! The `swift-app-intents` export end to end: the demo app's and the mapping set's Swift
//! (golden files, which the Swift package compiles and runs: bindings/swift/Tests), the
//! refusals in the header and the log, the App Shortcut descriptor key through
//! registration, and the format through the C ABI. AF_BLESS=1 rewrites the golden files.

#[path = "../examples/demo/app.rs"]
mod app;

use appfunctions::export::{check, Format};
use appfunctions::{sync_handler, Dispatcher, LogLevel};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The golden file and the Swift package's copy of it hold `text`.
fn golden(text: &str, paths: &[&str]) {
    for p in paths {
        let path = root().join(p);
        if std::env::var_os("AF_BLESS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            want == text,
            "{} differs from the export: run AF_BLESS=1 cargo test --test apple and review the diff",
            path.display()
        );
    }
}

/// A dispatcher with the registrations of a descriptor bundle (every handler answers null).
fn from_bundle(path: &Path) -> (Dispatcher, Arc<Mutex<Vec<String>>>) {
    let bundle: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let d = Dispatcher::new();
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    d.set_log_sink(Some(Arc::new(move |level, msg: &str| {
        if level == LogLevel::Warn {
            l.lock().unwrap().push(msg.to_owned());
        }
    })));
    d.define_types(&bundle["types"].to_string()).unwrap();
    for e in bundle["entities"].as_array().unwrap() {
        d.register_entity(&e.to_string(), sync_handler(|_| Ok(Some("[]".into()))))
            .unwrap();
    }
    for f in bundle["functions"].as_array().unwrap() {
        let handler = (f["kind"] != "output").then(|| sync_handler(|_| Ok(None)));
        d.register_function(&f.to_string(), handler)
            .unwrap_or_else(|e| panic!("{}: {e}", f["id"]));
    }
    (d, log)
}

#[test]
fn the_demo_apps_intents_are_the_golden_file_the_swift_package_compiles() {
    let a = app::build();
    let text = a.dispatcher.export(Format::SwiftAppIntents).unwrap();
    check(Format::SwiftAppIntents, &text).unwrap();
    golden(&text, &["tests/golden/demo.swift-app-intents.swift"]);
    // an intent per declared function but the output one; no intent for search_order
    for intent in [
        "struct CreateOrderIntent: AppIntent, AppFunctionsIntent",
        "struct CancelOrderIntent: AppIntent, AppFunctionsIntent",
        "struct EditNoteIntent: AppIntent, AppFunctionsIntent",
        "struct OrderEntityQuery: EntityStringQuery",
        "enum PriorityAppEnum: String, AppEnum, AppFunctionsEnum",
    ] {
        assert!(text.contains(intent), "{intent}");
    }
    assert!(!text.contains("SearchOrderIntent"));
    assert!(text.contains("// - report_order_summary: an output function has no handler"));
}

#[test]
fn every_mapping_rule_is_the_golden_file_the_swift_package_compiles() {
    let (d, log) = from_bundle(&root().join("tests/golden/apple-mapping.bundle.json"));
    let text = d.export(Format::SwiftAppIntents).unwrap();
    check(Format::SwiftAppIntents, &text).unwrap();
    golden(
        &text,
        &["tests/golden/apple-mapping.swift-app-intents.swift"],
    );
    // the refusals: in the header, and each a warning through the dispatcher's log
    let header: Vec<&str> = text.lines().take_while(|l| l.starts_with("//")).collect();
    let refused = [
        (
            "add_line",
            "parameter \"line\" is the record Line (App Intents takes no record values",
        ),
        ("matrix", "parameter \"rows\" is an array of arrays"),
        ("sparse", "parameter \"xs\" is an array with null items"),
        ("report", "an output function has no handler"),
    ];
    for (id, why) in refused {
        assert!(
            header
                .iter()
                .any(|l| l.starts_with(&format!("// - {id}: {why}"))),
            "{id}: {header:#?}"
        );
        assert!(
            log.lock().unwrap().iter().any(|m| m.starts_with(&format!(
                "swift-app-intents: function {id} is left out: {why}"
            ))),
            "{id}: {:?}",
            log.lock().unwrap()
        );
        assert!(!text.contains(&format!("static let appFunctionsId = \"{id}\"")));
    }
    assert!(log.lock().unwrap().iter().any(|m| m.starts_with(
        "swift-app-intents: entity item: field \"line\" is not a property Shortcuts shows: it is the record Line"
    )));
}

/// The Swift package compiles and reads the golden files themselves, and the .NET build
/// step's Swift glue itself: its files are links to them, not copies to keep equal
/// (ci/dist.sh copies what they point to into the released package, which is built without
/// this repository around it).
#[test]
fn the_swift_package_links_the_golden_files_it_compiles() {
    for (link, target) in [
        (
            "bindings/swift/Tests/DemoIntents/DemoIntents.swift",
            "tests/golden/demo.swift-app-intents.swift",
        ),
        (
            "bindings/swift/Tests/MappingIntents/MappingIntents.swift",
            "tests/golden/apple-mapping.swift-app-intents.swift",
        ),
        (
            "bindings/swift/Tests/AppFunctionsTests/apple-mapping.bundle.json",
            "tests/golden/apple-mapping.bundle.json",
        ),
        (
            "bindings/swift/Tests/DotNetIntents/AppFunctionsDotNet.swift",
            "bindings/dotnet/src/AppFunctions.Build/Swift/AppFunctionsDotNet.swift",
        ),
    ] {
        let path = root().join(link);
        let meta = std::fs::symlink_metadata(&path).unwrap_or_else(|e| panic!("{link}: {e}"));
        assert!(
            meta.file_type().is_symlink(),
            "{link} is a copy: make it a relative link to {target}"
        );
        assert_eq!(
            std::fs::canonicalize(&path).unwrap(),
            std::fs::canonicalize(root().join(target)).unwrap(),
            "{link} links to something else than {target}"
        );
    }
}

#[test]
fn an_app_shortcut_phrase_without_the_application_name_is_refused_at_registration() {
    let d = Dispatcher::new();
    let e = d
        .register_function(
            r#"{"id": "create_order", "appShortcut": {"phrases": ["Create an order"]}}"#,
            Some(sync_handler(|_| Ok(None))),
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("create_order.appShortcut.phrases[0]: the phrase \"Create an order\" does not contain the application-name token ${applicationName}"),
        "{e}"
    );
    d.register_function(
        r#"{"id": "create_order", "appShortcut": {"phrases": ["Create an order in ${applicationName}"]}}"#,
        Some(sync_handler(|_| Ok(None))),
    )
    .unwrap();
    let registry = d.registry_value();
    assert_eq!(
        registry["functions"][0]["appShortcut"]["phrases"][0],
        "Create an order in ${applicationName}"
    );
    let text = d.export(Format::SwiftAppIntents).unwrap();
    assert!(
        text.contains("\"Create an order in \\(.applicationName)\","),
        "{text}"
    );
}

#[test]
fn the_format_is_named_swift_app_intents_everywhere() {
    assert_eq!(Format::SwiftAppIntents.name(), "swift-app-intents");
    assert_eq!(
        "swift-app-intents".parse::<Format>().unwrap(),
        Format::SwiftAppIntents
    );
    assert!(!Format::SwiftAppIntents.is_json());
    assert!("swift"
        .parse::<Format>()
        .unwrap_err()
        .to_string()
        .contains("swift-app-intents"));
}

/// The format through the C ABI, as a binding or a build tool asks for it.
#[test]
fn af_export_copy_gives_the_swift_and_names_the_format_when_it_is_misspelt() {
    use appfunctions::ffi::*;
    use std::ffi::CStr;
    unsafe extern "C" fn answer_null(_: *mut std::ffi::c_void, call: *mut af_call) {
        unsafe { af_call_return(call, std::ptr::null()) };
    }
    let d = af_dispatcher_new();
    let st = unsafe {
        af_register_function(
            d,
            cr#"{"id": "greet", "title": "Greet", "parameters": [{"name": "name", "type": "string"}]}"#
                .as_ptr(),
            Some(answer_null),
            std::ptr::null_mut(),
            None,
        )
    };
    assert_eq!(st, AF_OK);
    let s = unsafe { af_export_copy(d, c"swift-app-intents".as_ptr()) };
    assert!(!s.is_null());
    let text = unsafe { CStr::from_ptr(s) }.to_str().unwrap().to_owned();
    unsafe { af_string_free(s) };
    assert!(
        text.contains("struct GreetIntent: AppIntent, AppFunctionsIntent {"),
        "{text}"
    );
    assert!(text.contains("arguments.set(\"name\", name)"), "{text}");
    let bad = unsafe { af_export_copy(d, c"swift".as_ptr()) };
    assert!(bad.is_null());
    let e = unsafe { CStr::from_ptr(af_last_error()) }.to_str().unwrap();
    assert!(e.contains("swift-app-intents"), "{e}");
    unsafe { af_dispatcher_free(d) };
}

/// A build step without a running app (`appfunctions export --bundle ... --format
/// swift-app-intents`, `af_bundle_export_copy`) writes the same file as the app's dispatcher.
#[test]
fn the_mapping_bundle_exports_the_golden_file_without_an_app() {
    let bundle =
        std::fs::read_to_string(root().join("tests/golden/apple-mapping.bundle.json")).unwrap();
    let text = appfunctions::export_bundle(&bundle, Format::SwiftAppIntents).unwrap();
    let golden =
        std::fs::read_to_string(root().join("tests/golden/apple-mapping.swift-app-intents.swift"))
            .unwrap();
    assert!(
        text == golden,
        "the bundle's export differs from the registry's"
    );
}
