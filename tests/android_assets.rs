//! The Android assets (`android-xml`, `android-legacy-xml`, `android-schema`,
//! `android-manifest`; their golden files for the demo app are tests/exports.rs's): the
//! indexer's documented rules checked on every produced file, and on the upstream fixtures
//! in ../shared/specs/android/ (README there).

#[path = "../examples/demo/app.rs"]
mod app;

use appfunctions::export::android_check::{
    check_legacy, check_manifest, check_v2, compare_schemas, parse_schema, LEGACY_FILE,
    SCHEMA_FILE, SERVICE_CLASS, V2_FILE,
};
use appfunctions::export::Format;
use appfunctions::{sync_handler, Dispatcher};
use std::path::Path;

const ASSETS: [Format; 4] = [
    Format::AndroidXml,
    Format::AndroidLegacyXml,
    Format::AndroidSchema,
    Format::AndroidManifest,
];

/// An upstream fixture (`$AF_SHARED/specs/android`, the offline copy beside the repository
/// that the lanes point at; README there).
fn upstream(file: &str) -> String {
    let shared = std::env::var("AF_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let p = shared.join("specs/android").join(file);
    std::fs::read_to_string(&p).unwrap_or_else(|e| {
        panic!(
            "the upstream fixture is missing at {} ({e}): set AF_SHARED",
            p.display()
        )
    })
}

/// Every asset of a dispatcher, checked by the indexer's rules with our schema file.
fn check_all(d: &Dispatcher) {
    let schema = parse_schema(&d.export(Format::AndroidSchema).unwrap()).unwrap();
    let v2 = d.export(Format::AndroidXml).unwrap();
    check_v2(&v2, &schema).unwrap_or_else(|e| panic!("{V2_FILE}: {e}\n{v2}"));
    check_legacy(&d.export(Format::AndroidLegacyXml).unwrap()).unwrap();
    check_manifest(&d.export(Format::AndroidManifest).unwrap()).unwrap();
}

#[test]
fn every_asset_of_the_demo_app_keeps_the_indexer_rules() {
    let a = app::build();
    for format in ASSETS {
        let text = a.dispatcher.export(format).unwrap();
        appfunctions::export::check(format, &text).unwrap_or_else(|e| panic!("{format}: {e}"));
    }
    check_all(&a.dispatcher);
    assert_eq!(Format::AndroidXml.android_file(), Some(V2_FILE));
    assert_eq!(Format::AndroidLegacyXml.android_file(), Some(LEGACY_FILE));
    assert_eq!(Format::AndroidSchema.android_file(), Some(SCHEMA_FILE));
    assert_eq!(Format::AndroidManifest.android_file(), None);
}

#[test]
fn the_legacy_file_lists_every_function_and_whether_it_is_enabled() {
    let a = app::build();
    a.dispatcher.set_enabled("create_note", false).unwrap();
    let legacy = a.dispatcher.export(Format::AndroidLegacyXml).unwrap();
    assert!(legacy.contains(
        "<function_id>create_note</function_id>\n        <enabled_by_default>false</enabled_by_default>"
    ));
    assert!(legacy.contains(
        "<function_id>create_order</function_id>\n        <enabled_by_default>true</enabled_by_default>"
    ));
    assert!(legacy.contains("<function_id>search_order</function_id>"));
    check_legacy(&legacy).unwrap();
}

#[test]
fn the_manifest_names_the_service_its_permission_and_the_three_files() {
    let m = Dispatcher::new().export(Format::AndroidManifest).unwrap();
    check_manifest(&m).unwrap();
    for needle in [
        SERVICE_CLASS,
        "android.permission.BIND_APP_FUNCTION_SERVICE",
        "android:exported=\"true\"",
        "<action android:name=\"android.app.appfunctions.AppFunctionService\" />",
        LEGACY_FILE,
        V2_FILE,
        SCHEMA_FILE,
    ] {
        assert!(m.contains(needle), "{needle} missing:\n{m}");
    }
}

/// Every type once, records nested in records and arrays, enums, entities, a deprecated
/// and a disabled function: the v2 file still uses only what the schema declares.
#[test]
fn every_type_the_v2_file_can_use_is_declared_by_the_schema_file() {
    let d = Dispatcher::new();
    d.define_types(app::TYPES).unwrap();
    d.register_entity(app::ORDER_ENTITY, sync_handler(|_| Ok(Some("[]".into()))))
        .unwrap();
    d.register_function(app::KITCHEN_SINK, Some(sync_handler(|_| Ok(None))))
        .unwrap();
    d.register_function(
        r#"{"id":"old","deprecated":true,"enabled":false,"parameters":[{"name":"n","type":"int64","maximum":5}],"result":"double"}"#,
        Some(sync_handler(|_| Ok(None))),
    )
    .unwrap();
    check_all(&d);
}

#[test]
fn the_checker_refuses_what_the_indexer_would_drop() {
    let schema = parse_schema(&Dispatcher::new().export(Format::AndroidSchema).unwrap()).unwrap();
    let ok = "<appfunctions><appfunction><id>f</id><functionId>f</functionId>\
              <response><id>unused</id><valueType><id>unused</id><type>0</type></valueType></response>\
              </appfunction></appfunctions>";
    check_v2(ok, &schema).unwrap();
    for (bad, says) in [
        (ok.replace("<id>f</id>", ""), "without an <id>"),
        (
            ok.replace("<valueType><id>unused</id>", "<valueType>"),
            "without an <id>",
        ),
        (ok.replace("<id>f</id>", "<id> </id>"), "empty <id>"),
        (
            ok.replace(
                "<functionId>f</functionId>",
                "<functionId>f</functionId><colour>red</colour>",
            ),
            "declares no property <colour>",
        ),
        (ok.replace("<type>0</type>", ""), "required <type>"),
        (
            ok.replace("<type>0</type>", "<type>zero</type>"),
            "not a long",
        ),
        (
            ok.replace(
                "<functionId>f</functionId>",
                "<functionId>f</functionId><functionId>g</functionId>",
            ),
            "optional <functionId> appears 2 times",
        ),
        (
            ok.replace(
                "<functionId>f</functionId>",
                "<enabledByDefault>yes</enabledByDefault>",
            ),
            "not a boolean",
        ),
        (
            ok.replace("<appfunctions>", "<appfunctions><extra/>"),
            "not a document the indexer reads",
        ),
    ] {
        let err = check_v2(&bad, &schema).unwrap_err();
        assert!(err.contains(says), "{bad}: {err}");
    }
}

#[test]
fn our_schema_keeps_every_upstream_property_with_the_same_type() {
    let xsd = upstream("app_functions_schema.xsd");
    let theirs = parse_schema(&xsd).unwrap();
    let ours = parse_schema(&Dispatcher::new().export(Format::AndroidSchema).unwrap()).unwrap();
    compare_schemas(&ours, &theirs).unwrap();
    for (t, props) in &theirs.types {
        assert!(ours.types.contains_key(t), "{t} is not declared");
        for p in props.keys() {
            assert!(ours.types[t].contains_key(p), "{t}.{p} is not declared");
        }
    }
    // and a changed type is caught
    let mut changed = ours.clone();
    changed
        .types
        .get_mut("AppFunctionStaticMetadata")
        .unwrap()
        .get_mut("enabledByDefault")
        .unwrap()
        .cardinality = 1;
    assert!(compare_schemas(&changed, &theirs)
        .unwrap_err()
        .contains("enabledByDefault"));
}

#[test]
fn the_upstream_fixtures_pass_the_same_checker() {
    let xsd = upstream("app_functions_schema.xsd");
    let compiler = upstream("jetpack-v2-compiler-all-primitive-params.xml");
    let service = upstream("jetpack-v2-service-app_functions_v2.xml");
    let legacy = upstream("jetpack-legacy-app_functions.xml");
    let schema = parse_schema(&xsd).unwrap();
    check_v2(&compiler, &schema).unwrap();
    check_legacy(&legacy).unwrap();
    // the service test asset spells two legacy tags in the v2 file: the schema declares
    // neither, so the indexer does not index them; the checker says so
    let err = check_v2(&service, &schema).unwrap_err();
    assert!(err.contains("<function_id>"), "{err}");
    let fixed = service
        .replace("<function_id>", "<functionId>")
        .replace("</function_id>", "</functionId>")
        .replace("<enabled_by_default>", "<enabledByDefault>")
        .replace("</enabled_by_default>", "</enabledByDefault>");
    check_v2(&fixed, &schema).unwrap();
}

/// A build step has no running app: the assets made from the demo app's descriptor bundle
/// (`af_bundle_export_copy`, `appfunctions export --bundle`) are the running app's.
#[test]
fn the_assets_from_a_descriptor_bundle_are_the_running_apps() {
    let a = app::build();
    let bundle = appfunctions::bundle::of(&a.dispatcher).to_string();
    for format in ASSETS {
        assert_eq!(
            appfunctions::export_bundle(&bundle, format).unwrap(),
            a.dispatcher.export(format).unwrap(),
            "{format}"
        );
    }
}
