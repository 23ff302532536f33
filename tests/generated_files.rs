//! The committed generated files stay in sync with the code: the descriptor JSON Schema
//! (here) and the C header (ci/lanes/header.sh, with the pinned cbindgen).
//! Run with AF_BLESS=1 to rewrite them.

use std::path::Path;

#[test]
fn descriptor_schema_is_in_sync() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("include/appfunctions.descriptor.schema.json");
    let generated =
        serde_json::to_string_pretty(&appfunctions::descriptor_schema()).unwrap() + "\n";
    if std::env::var_os("AF_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/appfunctions.descriptor.schema.json is out of date: run `AF_BLESS=1 cargo test --test generated_files`"
    );
}
