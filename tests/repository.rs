//! What the repository promises a new reader: every repository file a README, a doc or a
//! doc comment names exists, and every script they name runs as printed (it is executable:
//! `ci/dist.sh` was committed without its run bit while the README lists it among the
//! commands for a fresh machine).

use regex::Regex;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documents a user reads: the README, docs/, each binding's README.
fn documents() -> Vec<PathBuf> {
    let root = repo();
    let mut out = vec![root.join("README.md")];
    for dir in ["docs", "bindings"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                let name = e.file_name().to_string_lossy().into_owned();
                if p.is_dir() {
                    // docs/ all the way down; of bindings/, each binding's own README only
                    // (build outputs and sources are not docs)
                    if dir == "docs" || d == root.join("bindings") {
                        stack.push(p);
                    }
                } else if name.ends_with(".md") && (dir == "docs" || name == "README.md") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// Paths a document names that are not files of this repository, each with the reason.
const NOT_REPOSITORY_FILES: &[(&str, &str)] = &[
    ("src/main/jniLibs", "an Android app's own folder"),
    ("src/main/assets", "an Android app's own folder"),
    ("src/main/kotlin/Main.kt", "the consumer project's program"),
    (
        "Sources/MyHost/main.swift",
        "the consumer package's program",
    ),
    (
        "Sources/CAppFunctions/appfunctions.h",
        "the header's copy in the Swift package ci/dist.sh writes",
    ),
    (
        "abi/v2.txt",
        "the baseline ci/abi.sh --bless starts after an incompatible change",
    ),
    ("fuzz/corpus", "made by cargo fuzz"),
    ("fuzz/artifacts", "made by cargo fuzz"),
    ("bindings/kotlin-ksp", "the planned KSP processor"),
];

/// `(document, line, path)` for every repository path a document names.
fn named_paths() -> Vec<(PathBuf, usize, String)> {
    // a path starting at one of the repository's folders (or ../ from a binding); it ends
    // at a letter, digit or _ so that punctuation after it is not taken in; a shell
    // variable's value (`"target/jni-build/$abi/..."`) is not a folder of the repository
    let re = Regex::new(
        r"(?:^|[^A-Za-z0-9_./$-])((?:\.\./)*(?:ci|docs|include|abi|examples|tests|src|benches|fuzz|bindings|scripts|Sources|Tests)/[A-Za-z0-9_.+/*{},-]*[A-Za-z0-9_}*])",
    )
    .unwrap();
    let mut out = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (n, line) in text.lines().enumerate() {
            for c in re.captures_iter(line) {
                out.push((doc.clone(), n + 1, c[1].to_owned()));
            }
        }
    }
    out
}

/// The file a document's path names: from the document's folder, from the repository root,
/// or (a `../../..` climbing out of a folder a script `cd`s into) from the root with the
/// climb taken off.
fn resolve(doc: &Path, path: &str) -> Option<PathBuf> {
    // a pattern (`tests/golden/demo.android-*.{xml,xsd}`): some file matches its prefix
    if let Some(at) = path.find(['*', '{']) {
        let (dir, prefix) = path[..at].rsplit_once('/')?;
        let dir = resolve(doc, dir)?;
        return std::fs::read_dir(&dir)
            .ok()?
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(prefix))
            .then_some(dir);
    }
    let from_doc = doc.parent().unwrap().join(path);
    let from_root = repo().join(path);
    let mut climbed = path;
    while let Some(rest) = climbed.strip_prefix("../") {
        climbed = rest;
    }
    let unclimbed = repo().join(climbed);
    [from_doc, from_root, unclimbed]
        .into_iter()
        .find(|p| p.exists())
}

#[test]
fn every_repository_file_a_document_names_exists() {
    let mut missing = Vec::new();
    for (doc, line, path) in named_paths() {
        // build outputs and caches are made by the commands the documents give
        if path.contains("/target/") || path.starts_with("target/") || path.contains("/.cache") {
            continue;
        }
        if NOT_REPOSITORY_FILES.iter().any(|(p, _)| *p == path) {
            continue;
        }
        if resolve(&doc, &path).is_none() {
            let rel = doc.strip_prefix(repo()).unwrap().display().to_string();
            missing.push(format!("{rel}:{line}: {path}"));
        }
    }
    assert!(
        missing.is_empty(),
        "documents name files that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_script_a_document_names_is_executable() {
    use std::os::unix::fs::PermissionsExt;
    let mut seen = 0;
    let mut not_executable = Vec::new();
    for (doc, line, path) in named_paths() {
        if !(path.ends_with(".sh") || path.ends_with(".py")) {
            continue;
        }
        let Some(file) = resolve(&doc, &path) else {
            continue; // every_repository_file_a_document_names_exists says so
        };
        // a Python module named as a file (no #! line) is imported, not run
        if path.ends_with(".py") && !std::fs::read_to_string(&file).unwrap().starts_with("#!") {
            continue;
        }
        seen += 1;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        if mode & 0o111 == 0 {
            let rel = doc.strip_prefix(repo()).unwrap().display().to_string();
            not_executable.push(format!("{rel}:{line}: {path} (mode {:o})", mode & 0o777));
        }
    }
    assert!(
        seen > 20,
        "only {seen} scripts named: is the scan still reading the documents?"
    );
    assert!(
        not_executable.is_empty(),
        "scripts the documents name that do not run as printed (chmod +x, git add --chmod=+x):\n{}",
        not_executable.join("\n")
    );
}

#[test]
fn every_document_a_doc_comment_names_exists() {
    let re = Regex::new(r"([A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md)(?:[^A-Za-z0-9_]|$)").unwrap();
    let mut missing = Vec::new();
    let mut stack = vec![repo().join("src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().and_then(|x| x.to_str()) != Some("rs") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            for (n, line) in text.lines().enumerate() {
                let t = line.trim_start();
                if !(t.starts_with("///") || t.starts_with("//!")) {
                    continue;
                }
                for c in re.captures_iter(t) {
                    let name = &c[1];
                    if !repo().join(name).exists() && !repo().join("docs").join(name).exists() {
                        let rel = p.strip_prefix(repo()).unwrap().display().to_string();
                        missing.push(format!("{rel}:{}: {name}", n + 1));
                    }
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "doc comments name documents that are not in the repository:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scan_finds_what_a_document_names() {
    // the README names ci/dist.sh among the commands for a fresh machine
    let named = named_paths();
    assert!(named
        .iter()
        .any(|(d, _, p)| d.ends_with("README.md") && p == "ci/dist.sh"));
    assert!(named
        .iter()
        .any(|(d, _, p)| d.ends_with("bindings/swift/README.md")
            && p == "scripts/build-xcframework.sh"));
}
