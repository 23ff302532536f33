//! Every exported function of the C ABI sits behind the panic boundary.
//!
//! Reads `src/ffi` as Rust (with `syn`): each `extern "C"` function must be
//! `#[no_mangle]` and its body one call of `boundary`, `boundary_or` or `boundary_with`
//! (after any items it declares, such as a `use` or a `static`), so no panic unwinds into
//! the host. Every function of the ABI baseline (`abi/v1.txt`) must be among them, so the
//! check cannot pass by finding nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const WRAPPERS: [&str; 4] = [
    "boundary",
    "boundary_or",
    "boundary_with",
    "boundary_even_after_fork",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Why the body of an exported function is not one boundary call, or `None` when it is.
fn unwrapped(f: &syn::ItemFn) -> Option<String> {
    if !f.attrs.iter().any(|a| a.path().is_ident("no_mangle")) {
        return Some("is not #[no_mangle]".into());
    }
    let stmts = &f.block.stmts;
    let Some((last, before)) = stmts.split_last() else {
        return Some("has an empty body".into());
    };
    if let Some(s) = before.iter().find(|s| !matches!(s, syn::Stmt::Item(_))) {
        let line = match s {
            syn::Stmt::Local(l) => l.let_token.span.start().line,
            _ => f.sig.ident.span().start().line,
        };
        return Some(format!(
            "runs code before its boundary (line {line}): the whole body must be inside it"
        ));
    }
    let syn::Stmt::Expr(syn::Expr::Call(call), None) = last else {
        return Some("does not end in a call of boundary(..) returning its value".into());
    };
    let syn::Expr::Path(p) = &*call.func else {
        return Some("calls something other than boundary(..)".into());
    };
    let name = p.path.segments.last().map(|s| s.ident.to_string());
    match name {
        Some(n) if WRAPPERS.contains(&n.as_str()) => None,
        n => Some(format!(
            "ends in a call of {} instead of one of {WRAPPERS:?}",
            n.unwrap_or_default()
        )),
    }
}

/// The `extern "C"` functions of a file (at any depth of inline modules): name → verdict.
fn exported(file: &syn::File) -> Vec<(String, Option<String>)> {
    fn walk(items: &[syn::Item], out: &mut Vec<(String, Option<String>)>) {
        for item in items {
            match item {
                syn::Item::Fn(f) if f.sig.abi.is_some() => {
                    out.push((f.sig.ident.to_string(), unwrapped(f)));
                }
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        walk(items, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&file.items, &mut out);
    out
}

#[test]
fn every_exported_function_is_behind_the_panic_boundary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src/ffi"), &mut files);
    files.sort();
    let mut found = BTreeSet::new();
    let mut bad = Vec::new();
    for f in &files {
        let file = syn::parse_file(&std::fs::read_to_string(f).unwrap()).unwrap();
        for (name, verdict) in exported(&file) {
            if let Some(why) = verdict {
                bad.push(format!(
                    "{}: {name} {why}",
                    f.strip_prefix(root).unwrap().display()
                ));
            }
            found.insert(name);
        }
    }
    assert!(
        bad.is_empty(),
        "exported functions outside the panic boundary (src/ffi/mod.rs, `boundary`):\n{}",
        bad.join("\n")
    );
    let baseline = std::fs::read_to_string(root.join("abi/v1.txt")).unwrap();
    let missing: Vec<&str> = baseline
        .lines()
        .filter_map(|l| l.strip_prefix("function "))
        .filter_map(|l| l.split(' ').next())
        .filter(|n| !found.contains(*n))
        .collect();
    assert!(
        missing.is_empty(),
        "functions of abi/v1.txt not found in src/ffi: {missing:?}"
    );
}

/// The checker refuses what it must: a missing boundary, work before it, no `#[no_mangle]`.
#[test]
fn the_checker_finds_unwrapped_functions() {
    let src = r#"
        #[no_mangle] pub extern "C" fn ok() -> i32 { boundary(|| 0) }
        #[no_mangle] pub extern "C" fn ok_or() -> i32 { use x::Y; boundary_or(-1, || 0) }
        #[no_mangle] pub extern "C" fn bare() -> i32 { 0 }
        #[no_mangle] pub extern "C" fn before() -> i32 { let x = f(); boundary(|| x) }
        #[no_mangle] pub extern "C" fn other() -> i32 { catch(|| 0) }
        pub extern "C" fn hidden() -> i32 { boundary(|| 0) }
        mod inner { #[no_mangle] pub extern "C" fn nested() { g(); } }
        fn not_exported() -> i32 { 0 }
    "#;
    let file = syn::parse_file(src).unwrap();
    let verdicts: Vec<(String, bool)> = exported(&file)
        .into_iter()
        .map(|(n, v)| (n, v.is_none()))
        .collect();
    let expect = [
        ("ok", true),
        ("ok_or", true),
        ("bare", false),
        ("before", false),
        ("other", false),
        ("hidden", false),
        ("nested", false),
    ];
    let expect: Vec<(String, bool)> = expect.iter().map(|(n, b)| (n.to_string(), *b)).collect();
    assert_eq!(verdicts, expect);
}
