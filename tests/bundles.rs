//! Descriptor bundles and published dispatchers, through the core's Rust API.

#[path = "../examples/demo/app.rs"]
mod app;

use appfunctions::export::Format;
use appfunctions::{bundle, Dispatcher, Invocation};
use std::time::Duration;

#[test]
fn a_bundle_gives_every_export_of_the_dispatcher_it_was_written_from() {
    let a = app::build();
    let text = serde_json::to_string_pretty(&bundle::of(&a.dispatcher)).unwrap();
    let loaded = bundle::load(&text).unwrap_or_else(|e| panic!("the demo's bundle: {e}\n{text}"));
    for format in Format::ALL {
        let want = a.dispatcher.export(format).unwrap();
        let got = appfunctions::export_bundle(&text, format).unwrap();
        assert_eq!(got, want, "{}: the bundle's export differs", format.name());
        assert_eq!(loaded.export(format).unwrap(), want);
    }
    // the registry too (schemas, flags, toolkits), and writing the loaded one again is stable
    assert_eq!(loaded.registry_value(), a.dispatcher.registry_value());
    assert_eq!(bundle::of(&loaded), bundle::of(&a.dispatcher));
}

#[test]
fn a_function_from_a_bundle_answers_not_supported() {
    let d =
        bundle::load(r#"{"functions":[{"id":"ping","description":"Answers","parameters":[]}]}"#)
            .unwrap();
    let out: serde_json::Value =
        serde_json::from_str(&d.execute(&Invocation::new("ping"), Some("{}"))).unwrap();
    assert_eq!(out["errorCode"], "NotSupported");
    assert!(
        out["message"]
            .as_str()
            .unwrap()
            .contains("descriptor bundle"),
        "{out}"
    );
}

#[test]
fn a_bad_bundle_names_the_item_and_the_path() {
    let e = bundle::load(
        r#"{"functions":[{"id":"ok","parameters":[]},
            {"id":"bad","parameters":[{"name":"x","type":{"enum":"Nope"}}]}]}"#,
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("functions[1]") && e.contains("bad.parameters"),
        "{e}"
    );
    let e = bundle::load(r#"{"function":[]}"#)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("bundle.function") && e.contains("unknown key"),
        "{e}"
    );
    let e = bundle::load(r#"{"functions":{}}"#)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("functions") && e.contains("expected an array"),
        "{e}"
    );
    let e = bundle::load("[").err().unwrap().to_string();
    assert!(e.contains("bundle") && e.contains("invalid JSON"), "{e}");
    let e = bundle::load(r#"{"types":{"enums":[{"name":"P","members":[]}]}}"#)
        .err()
        .unwrap()
        .to_string();
    assert!(e.starts_with("types") || e.contains("types:"), "{e}");
}

#[test]
fn a_record_with_an_entity_field_loads_in_either_order() {
    let d = Dispatcher::new();
    d.register_entity(
        r#"{"name":"note","fields":[{"name":"id","type":"string"}]}"#,
        appfunctions::sync_handler(|_| Ok(Some("[]".into()))),
    )
    .unwrap();
    d.define_types(
        r#"{"records":[{"name":"Pin","fields":[{"name":"note","type":{"entity":"note"}}]}]}"#,
    )
    .unwrap();
    d.register_function(
        r#"{"id":"pin","parameters":[{"name":"pin","type":{"record":"Pin"}}]}"#,
        Some(appfunctions::sync_handler(|_| Ok(None))),
    )
    .unwrap();
    let text = bundle::of(&d).to_string();
    let loaded = bundle::load(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(
        loaded.export(Format::Mcp).unwrap(),
        d.export(Format::Mcp).unwrap()
    );
}

#[test]
fn a_published_dispatcher_is_found_by_a_waiter_and_shutdown_withdraws_it() {
    let name = "tests-bundles-publish";
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id":"ping","parameters":[],"result":"string"}"#,
        Some(appfunctions::sync_handler(|_| Ok(Some("\"pong\"".into())))),
    )
    .unwrap();
    let waiter = std::thread::spawn(move || {
        let got = Dispatcher::wait_published(name, Some(Duration::from_secs(10))).unwrap();
        got.execute(&Invocation::new("ping"), Some("{}"))
    });
    std::thread::sleep(Duration::from_millis(20));
    d.publish(name).unwrap();
    let out = waiter.join().unwrap();
    assert!(out.contains("\"pong\""), "{out}");
    assert!(Dispatcher::published_names().contains(&name.to_string()));
    d.shutdown(Duration::from_secs(1));
    let e = Dispatcher::wait_published(name, Some(Duration::from_millis(1)))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains(name) && e.contains("1 ms"), "{e}");
    assert!(
        d.publish(name).is_err(),
        "a dispatcher shutting down is not published"
    );
}

#[test]
fn unpublish_and_replace() {
    let name = "tests-bundles-replace";
    let (a, b) = (Dispatcher::new(), Dispatcher::new());
    a.publish(name).unwrap();
    b.publish(name).unwrap();
    assert!(Dispatcher::wait_published(name, Some(Duration::ZERO))
        .unwrap()
        .same_as(&b));
    assert!(
        !a.unpublish_self(name),
        "a was replaced: its withdrawal leaves b"
    );
    Dispatcher::unpublish(name).unwrap();
    assert!(Dispatcher::unpublish(name).is_err());
    assert!(a.publish("").is_err());
}
