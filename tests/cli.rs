//! The `appfunctions` command: exports from a descriptor bundle, as build tools run it.

#[path = "../examples/demo/app.rs"]
mod app;

use appfunctions::export::Format;
use std::process::Command;

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_appfunctions"))
}

#[test]
fn export_writes_what_the_dispatcher_exports_and_leaves_an_unchanged_file_alone() {
    let a = app::build();
    let dir = std::env::temp_dir().join(format!("af-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bundle = dir.join("demo.bundle.json");
    std::fs::write(&bundle, appfunctions::bundle::of(&a.dispatcher).to_string()).unwrap();
    for format in Format::ALL {
        let out = dir.join("gen").join(format!("demo.{}", format.name()));
        let st = cli()
            .args(["export", "--bundle"])
            .arg(&bundle)
            .args(["--format", format.name(), "--out"])
            .arg(&out)
            .status()
            .unwrap();
        assert!(st.success(), "{}", format.name());
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            a.dispatcher.export(format).unwrap()
        );
        let before = std::fs::metadata(&out).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(cli()
            .args(["export", "--bundle"])
            .arg(&bundle)
            .args(["--format", format.name(), "--out"])
            .arg(&out)
            .status()
            .unwrap()
            .success());
        assert_eq!(
            std::fs::metadata(&out).unwrap().modified().unwrap(),
            before,
            "rewritten though unchanged"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_name_the_file_the_item_and_the_format() {
    let dir = std::env::temp_dir().join(format!("af-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"functions":[{"id":"x","parameters":[{"name":"a","type":"strin"}]}]}"#,
    )
    .unwrap();
    let o = cli()
        .args(["export", "--bundle"])
        .arg(&bad)
        .args(["--format", "mcp"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.json") && err.contains("functions[0]") && err.contains("x.parameters"),
        "{err}"
    );
    let o = cli()
        .args(["export", "--bundle"])
        .arg(&bad)
        .args(["--format", "swiftish"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("swiftish"));
    let o = cli().args(["export"]).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("--bundle"));
    let o = cli().arg("formats").output().unwrap();
    let names = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        Format::ALL
            .iter()
            .all(|f| names.lines().any(|l| l == f.name())),
        "{names}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
