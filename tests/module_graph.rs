//! The crate's folders are its layers, and imports run one way (docs/architecture.md).
//!
//! [`LAYERS`] states the allowed directions between the top-level folders; inside each
//! folder, no import cycles.
//!
//! Reads every file under `src/`, finds every path that names a module of the crate
//! (`crate::a::b`, `super::x`, `self::y`, `use crate::{a::{b, c}, d}` groups, `$crate`
//! in macros, and names re-exported with `pub use`, so `crate::Dispatcher` counts as a
//! use of `dispatcher`), in code, tests included (comments and string literals are not
//! code). Nested modules are resolved to the file or inline module that defines them.
//!
//! The rule, at every level of the module tree: the children of one module (the crate's
//! top-level modules; `export`'s formats; `ffi`'s files; ...) depend on each other in
//! one direction only. A use from anywhere inside sibling `a` of anything inside sibling
//! `b` is an edge `a → b`; a module using its own parent or children is not an edge
//! between siblings (a `mod.rs` re-exporting its children, a child using its parent's
//! types). Any cycle fails the test, naming each edge with one place that makes it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path from the crate root (`[]` is the root).
type ModPath = Vec<String>;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

struct Lexed {
    toks: Vec<(Tok, usize)>,
}

/// Tokens of a Rust file with comments and literals removed (each with its line).
fn lex(src: &str) -> Lexed {
    let b: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut line = 1;
    let mut toks = Vec::new();
    let n = b.len();
    let count_lines = |from: usize, to: usize, line: &mut usize| {
        *line += b[from..to.min(n)].iter().filter(|c| **c == '\n').count();
    };
    while i < n {
        let c = b[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && i + 1 < n && b[i + 1] == '/' {
            while i < n && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && i + 1 < n && b[i + 1] == '*' {
            let start = i;
            let mut depth = 0;
            while i < n {
                if b[i] == '/' && i + 1 < n && b[i + 1] == '*' {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && i + 1 < n && b[i + 1] == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            count_lines(start, i, &mut line);
        } else if (c == 'r' || c == 'b')
            && raw_string_start(&b, i).is_some()
            && !prev_is_ident(&b, i)
        {
            // r"..", r#".."#, br#".."#
            let (hashes, body) = raw_string_start(&b, i).unwrap();
            let start = i;
            i = body;
            loop {
                if i >= n {
                    break;
                }
                if b[i] == '"' && (0..hashes).all(|k| i + 1 + k < n && b[i + 1 + k] == '#') {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            count_lines(start, i, &mut line);
        } else if c == '"' || (c == 'b' && i + 1 < n && b[i + 1] == '"' && !prev_is_ident(&b, i)) {
            let start = i;
            i += if c == 'b' { 2 } else { 1 };
            while i < n && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            count_lines(start, i, &mut line);
        } else if c == '\'' {
            // a char literal ('x', '\n', '\u{..}') or a lifetime ('a)
            if i + 1 < n && b[i + 1] == '\\' {
                i += 3;
                while i < n && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if i + 2 < n && b[i + 2] == '\'' {
                i += 3;
            } else {
                i += 1;
                while i < n && (b[i].is_alphanumeric() || b[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            i += 1;
            while i < n && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            let mut word: String = b[start..i].iter().collect();
            if let Some(w) = word.strip_prefix("r#") {
                word = w.to_owned();
            }
            toks.push((Tok::Ident(word), line));
        } else if c == ':' && i + 1 < n && b[i + 1] == ':' {
            toks.push((Tok::Sep, line));
            i += 2;
        } else if c.is_ascii_digit() {
            while i < n && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '.') {
                i += 1;
            }
        } else {
            toks.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    Lexed { toks }
}

fn prev_is_ident(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// `Some((hashes, index after the opening quote))` when a raw string starts at `i`.
fn raw_string_start(b: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if b.get(j) == Some(&'b') {
        j += 1;
    }
    if b.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while b.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (b.get(j) == Some(&'"')).then_some((hashes, j + 1))
}

/// One path found in a module's code, made absolute.
struct Use {
    from: ModPath,
    path: ModPath,
    file: PathBuf,
    line: usize,
}

/// Every module of the crate (files and inline modules) and every path they use.
struct Crate {
    modules: BTreeSet<ModPath>,
    /// `pub use` re-exports: (module, name) → the absolute path it names.
    reexports: BTreeMap<(ModPath, String), ModPath>,
    uses: Vec<Use>,
}

fn module_path_of(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs").to_owned();
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem);
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// A use tree at `toks[i..]` (after `use` or at a path): every full path it names,
/// relative to nothing yet (the first segment may be `crate`, `super`, `self`, a name).
fn parse_tree(
    toks: &[(Tok, usize)],
    mut i: usize,
    prefix: &[String],
    out: &mut Vec<ModPath>,
) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(i).map(|t| &t.0) {
            Some(Tok::Ident(w)) if w == "as" => {
                // `x as y`: the alias does not change what is named
                i += 2;
                break;
            }
            Some(Tok::Ident(w)) => {
                path.push(if w == "$crate" {
                    "crate".into()
                } else {
                    w.clone()
                });
                i += 1;
                if toks.get(i).map(|t| &t.0) == Some(&Tok::Sep) {
                    i += 1;
                    continue;
                }
                break;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                loop {
                    match toks.get(i).map(|t| &t.0) {
                        Some(Tok::Punct('}')) => {
                            i += 1;
                            break;
                        }
                        Some(Tok::Punct(',')) => i += 1,
                        None => break,
                        _ => {
                            let before = i;
                            i = parse_tree(toks, i, &path, out);
                            if i == before {
                                i += 1;
                            }
                        }
                    }
                }
                return i;
            }
            Some(Tok::Punct('*')) => {
                i += 1;
                break;
            }
            _ => break,
        }
    }
    // `a::{self, b}`: `self` names the prefix itself
    if path.last().is_some_and(|s| s == "self") && path.len() > prefix.len() && !prefix.is_empty() {
        path.pop();
    }
    if !path.is_empty() {
        out.push(path);
    }
    i
}

fn read_crate(src: &Path) -> Crate {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut c = Crate {
        modules: BTreeSet::new(),
        reexports: BTreeMap::new(),
        uses: Vec::new(),
    };
    for f in &files {
        c.modules.insert(module_path_of(src, f));
    }
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let lexed = lex(&text);
        let toks = &lexed.toks;
        let file_mod = module_path_of(src, f);
        // the module each brace depth belongs to (inline `mod x { .. }` nest)
        let mut scopes: Vec<(usize, ModPath)> = vec![(0, file_mod.clone())];
        let mut depth = 0usize;
        let mut i = 0;
        while i < toks.len() {
            let here = scopes.last().unwrap().1.clone();
            match &toks[i].0 {
                Tok::Punct('{') => {
                    depth += 1;
                    i += 1;
                    continue;
                }
                Tok::Punct('}') => {
                    if scopes.len() > 1 && scopes.last().unwrap().0 == depth {
                        scopes.pop();
                    }
                    depth = depth.saturating_sub(1);
                    i += 1;
                    continue;
                }
                Tok::Ident(w) if w == "mod" => {
                    if let (Some((Tok::Ident(name), _)), Some((Tok::Punct('{'), _))) =
                        (toks.get(i + 1), toks.get(i + 2))
                    {
                        let mut m = here.clone();
                        m.push(name.clone());
                        c.modules.insert(m.clone());
                        depth += 1;
                        scopes.push((depth, m));
                        i += 3;
                        continue;
                    }
                    i += 1;
                    continue;
                }
                Tok::Ident(w) if w == "use" => {
                    let is_pub = i > 0
                        && (matches!(&toks[i - 1].0, Tok::Ident(p) if p == "pub")
                            || matches!(&toks[i - 1].0, Tok::Punct(')')));
                    let line = toks[i].1;
                    let mut paths = Vec::new();
                    let end = parse_tree(toks, i + 1, &[], &mut paths);
                    for p in paths {
                        let Some(abs) = absolute(&here, &p, &c.modules, true) else {
                            continue;
                        };
                        if is_pub {
                            let name = p.last().unwrap().clone();
                            c.reexports.insert((here.clone(), name), abs.clone());
                        }
                        c.uses.push(Use {
                            from: here.clone(),
                            path: abs,
                            file: f.clone(),
                            line,
                        });
                    }
                    i = end.max(i + 1);
                    continue;
                }
                Tok::Ident(w)
                    if (w == "crate" || w == "$crate" || w == "super" || w == "self")
                        && toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Sep)
                        && !(i > 0 && toks[i - 1].0 == Tok::Sep) =>
                {
                    let line = toks[i].1;
                    let mut paths = Vec::new();
                    let end = parse_tree(toks, i, &[], &mut paths);
                    for p in paths {
                        if let Some(abs) = absolute(&here, &p, &c.modules, false) {
                            c.uses.push(Use {
                                from: here.clone(),
                                path: abs,
                                file: f.clone(),
                                line,
                            });
                        }
                    }
                    i = end.max(i + 1);
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
    c
}

/// Makes a path absolute from module `here`. In a `use`, a first segment naming a child
/// module of `here` (2018 paths) is relative to `here`; names of other crates give `None`.
fn absolute(
    here: &ModPath,
    p: &ModPath,
    modules: &BTreeSet<ModPath>,
    in_use: bool,
) -> Option<ModPath> {
    let mut out: ModPath;
    let mut rest = p.as_slice();
    match rest.first().map(String::as_str) {
        Some("crate") => {
            out = Vec::new();
            rest = &rest[1..];
        }
        Some("self") => {
            out = here.clone();
            rest = &rest[1..];
        }
        Some("super") => {
            out = here.clone();
            while rest.first().map(String::as_str) == Some("super") {
                out.pop()?;
                rest = &rest[1..];
            }
        }
        Some(first) if in_use => {
            let mut child = here.clone();
            child.push(first.to_owned());
            if !modules.contains(&child) {
                return None;
            }
            out = here.clone();
        }
        _ => return None,
    }
    out.extend(rest.iter().cloned());
    Some(out)
}

/// The module a path names: its longest prefix that is a module, following `pub use`
/// re-exports of the item after it.
fn target(c: &Crate, path: &ModPath) -> ModPath {
    let mut path = path.clone();
    for _ in 0..8 {
        let mut n = path.len();
        while n > 0 && !c.modules.contains(&path[..n]) {
            n -= 1;
        }
        let m = path[..n].to_vec();
        match path
            .get(n)
            .and_then(|item| c.reexports.get(&(m.clone(), item.clone())))
        {
            Some(re) if *re != path => {
                let mut next = re.clone();
                next.extend(path[n + 1..].iter().cloned());
                path = next;
            }
            _ => return m,
        }
    }
    path
}

fn show(m: &[String]) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

/// Sibling edges per parent module: parent → (a → b → one place it happens).
type Edges = BTreeMap<ModPath, BTreeMap<(String, String), String>>;

fn sibling_edges(c: &Crate, src: &Path) -> Edges {
    let mut edges: Edges = BTreeMap::new();
    for u in &c.uses {
        let to = target(c, &u.path);
        let from = &u.from;
        let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        if common == from.len() || common == to.len() {
            // a module and its own ancestor or descendant
            continue;
        }
        let place = format!(
            "{}:{} ({} uses {})",
            u.file
                .strip_prefix(src.parent().unwrap())
                .unwrap()
                .display(),
            u.line,
            show(from),
            show(&u.path)
        );
        edges
            .entry(from[..common].to_vec())
            .or_default()
            .entry((from[common].clone(), to[common].clone()))
            .or_insert(place);
    }
    edges
}

/// The modules caught in cycles: each strongly connected component of more than one
/// module, with a shortest cycle through it (every elementary cycle would be too many).
fn cycles(edges: &BTreeMap<(String, String), String>) -> Vec<(Vec<String>, Vec<String>)> {
    let mut adj: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        adj.entry(a).or_default().push(b);
        adj.entry(b).or_default();
    }
    let nodes: Vec<&str> = adj.keys().copied().collect();
    let reach = |from: &str| -> BTreeSet<&str> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(x) = stack.pop() {
            for y in &adj[x] {
                if seen.insert(*y) {
                    stack.push(y);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<&str>> = nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut done: BTreeSet<&str> = BTreeSet::new();
    let mut out = Vec::new();
    for n in &nodes {
        if done.contains(n) || !reaches[n].contains(n) {
            continue;
        }
        let component: BTreeSet<&str> = nodes
            .iter()
            .copied()
            .filter(|m| reaches[n].contains(m) && reaches[m].contains(n))
            .collect();
        done.extend(component.iter().copied());
        // a shortest cycle from n back to n, by breadth-first search inside the component
        let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([*n]);
        'bfs: while let Some(x) = queue.pop_front() {
            for y in &adj[x] {
                if !component.contains(y) {
                    continue;
                }
                if *y == *n {
                    prev.insert("\0end", x);
                    break 'bfs;
                }
                if !prev.contains_key(y) {
                    prev.insert(y, x);
                    queue.push_back(y);
                }
            }
        }
        let mut cycle = vec![n.to_string()];
        let mut x = prev["\0end"];
        while x != *n {
            cycle.push(x.to_string());
            x = prev[x];
        }
        cycle.push(n.to_string());
        cycle.reverse();
        out.push((component.iter().map(|s| s.to_string()).collect(), cycle));
    }
    out
}

#[test]
fn no_import_cycle_among_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let c = read_crate(&src);
    let mut report = String::new();
    let all = sibling_edges(&c, &src);
    if std::env::var_os("AF_MODULE_GRAPH").is_some() {
        // AF_MODULE_GRAPH=1 cargo test --test module_graph -- --nocapture: every edge
        for (parent, edges) in &all {
            for ((a, b), place) in edges {
                println!("{}: {a} -> {b}   {place}", show(parent));
            }
        }
    }
    for (parent, edges) in all {
        for (component, cycle) in cycles(&edges) {
            report.push_str(&format!(
                "\nmodules of {} in a cycle: {}\n  for instance {}\n  their edges:\n",
                show(&parent),
                component.join(", "),
                cycle.join(" → ")
            ));
            for ((a, b), place) in &edges {
                if component.contains(a) && component.contains(b) {
                    report.push_str(&format!("    {a} → {b}: {place}\n"));
                }
            }
        }
    }
    assert!(
        report.is_empty(),
        "import cycles (docs/architecture.md: each layer uses only those below it):{report}"
    );
}

/// The top-level folders of `src/`, lowest first: a folder may use the folders before it,
/// never one after it, and folders on one rung (`platform` and `view`) not each other.
const LAYERS: &[&[&str]] = &[
    &["model"],
    &["engine"],
    &["export"],
    &["platform", "view"],
    &["mcp"],
    &["http"],
    &["ffi"],
];

fn rung(folder: &str) -> Option<usize> {
    LAYERS.iter().position(|r| r.contains(&folder))
}

#[test]
fn folders_use_only_the_layers_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let c = read_crate(&src);
    let all = sibling_edges(&c, &src);
    let mut report = String::new();
    // every top-level folder has its rung, and every rung's folder exists; the modules
    // written inline in lib.rs (`threads`, `internals`) are part of the facade, above all
    let is_file = |m: &str| src.join(m).is_dir() || src.join(format!("{m}.rs")).is_file();
    for m in c.modules.iter().filter(|m| m.len() == 1 && is_file(&m[0])) {
        if rung(&m[0]).is_none() {
            report.push_str(&format!(
                "\nsrc/{} is not in LAYERS: say which layer it is\n",
                m[0]
            ));
        }
    }
    for folder in LAYERS.iter().flat_map(|r| r.iter()) {
        if !c.modules.contains(&vec![folder.to_string()]) {
            report.push_str(&format!(
                "\nLAYERS names {folder}, which src/ does not have\n"
            ));
        }
    }
    for ((a, b), place) in all.get(&Vec::new()).into_iter().flatten() {
        let (Some(ra), Some(rb)) = (rung(a), rung(b)) else {
            continue;
        };
        if rb >= ra {
            report.push_str(&format!("\n{a} uses {b}, which is not below it: {place}\n"));
        }
    }
    assert!(
        report.is_empty(),
        "the folders are the layers, lowest first {LAYERS:?} (docs/architecture.md):{report}"
    );
}

/// The core knows nothing of C: outside `src/ffi` there is no `unsafe`, no `extern`
/// function or block, no `#[no_mangle]`, and no path into `libc` or `std::ffi`.
#[test]
fn only_ffi_is_unsafe_or_knows_c() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !f.starts_with(src.join("ffi"))) {
        let toks = lex(&std::fs::read_to_string(f).unwrap()).toks;
        for (i, (t, line)) in toks.iter().enumerate() {
            let Tok::Ident(w) = t else { continue };
            let next = toks.get(i + 1).map(|t| &t.0);
            let after = toks.get(i + 2).map(|t| &t.0);
            let bad = match w.as_str() {
                "unsafe" | "no_mangle" | "libc" => true,
                "extern" => next != Some(&Tok::Ident("crate".into())),
                "std" | "core" => {
                    next == Some(&Tok::Sep) && after == Some(&Tok::Ident("ffi".into()))
                }
                _ => false,
            };
            if bad {
                found.push(format!(
                    "{}:{line}: {w}",
                    f.strip_prefix(&src).unwrap().display()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "only src/ffi may be unsafe or know C (docs/architecture.md):\n{}",
        found.join("\n")
    );
}

/// The checker itself finds what it must: nested modules, groups, `super`, re-exports,
/// and nothing in comments or strings.
#[test]
fn the_checker_sees_nested_paths_and_ignores_text() {
    let dir = std::env::temp_dir().join(format!("af-module-graph-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("outer")).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "pub mod a;\npub mod b;\npub mod outer;\npub use b::Thing;\n",
    )
    .unwrap();
    // a uses b through the root re-export, and names c only in text
    std::fs::write(
        src.join("a.rs"),
        "use crate::Thing;\n// crate::outer::y::Z\nconst S: &str = \"crate::outer::y\";\nconst R: &str = r#\"crate::outer\"#;\nfn f<'a>(x: &'a str) -> char { 'x' }\n",
    )
    .unwrap();
    // b reaches a through a nested group inside an inline module
    std::fs::write(
        src.join("b.rs"),
        "pub struct Thing;\nmod inner { use crate::{outer::{x::X}, a::{self}}; }\n",
    )
    .unwrap();
    std::fs::write(src.join("outer/mod.rs"), "pub mod x;\npub mod y;\n").unwrap();
    // siblings inside outer: x → y through super, y → x through crate
    std::fs::write(
        src.join("outer/x.rs"),
        "pub struct X;\nfn f() { super::y::g(); }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("outer/y.rs"),
        "pub fn g() { let _ = crate::outer::x::X; }\n",
    )
    .unwrap();
    let c = read_crate(&src);
    let edges = sibling_edges(&c, &src);
    let top = &edges[&Vec::<String>::new()];
    let pairs: BTreeSet<(String, String)> = top.keys().cloned().collect();
    assert!(pairs.contains(&("a".into(), "b".into())), "{pairs:?}");
    assert!(pairs.contains(&("b".into(), "a".into())), "{pairs:?}");
    assert!(pairs.contains(&("b".into(), "outer".into())), "{pairs:?}");
    assert!(
        !pairs.contains(&("a".into(), "outer".into())),
        "text counted: {pairs:?}"
    );
    let found = cycles(top);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].1, ["a", "b", "a"]);
    let inner = &edges[&vec!["outer".to_string()]];
    assert_eq!(cycles(inner).len(), 1, "{inner:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
