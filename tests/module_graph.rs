//! The crate's folders are its layers, and imports run one way (docs/architecture.md).
//!
//! [`LAYERS`] states the allowed directions between the top-level folders; inside each
//! folder, no import cycles.
//!
//! Reads the crate as Rust with `syn`, from `src/lib.rs` along its `mod` declarations
//! (files and inline modules, tests included), and finds every path that names a module
//! of the crate: `crate::a::b`, `super::x`, `self::y`, `use` trees with their groups and
//! renames, paths inside macro invocations and `$crate` in macro definitions, and names
//! re-exported with `pub use` (so `crate::Dispatcher` counts as a use of the module that
//! defines it). Comments and string literals are not code, so they never count.
//!
//! The rule, at every level of the module tree: the children of one module (the crate's
//! top-level modules; `export`'s formats; `ffi`'s files; ...) depend on each other in
//! one direction only. A use from anywhere inside sibling `a` of anything inside sibling
//! `b` is an edge `a → b`; a module using its own parent or children is not an edge
//! between siblings (a `mod.rs` re-exporting its children, a child using its parent's
//! types). Any cycle fails the test, naming each edge with one place that makes it.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// A module path from the crate root (`[]` is the root).
type ModPath = Vec<String>;

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
    /// Each module's own items (not those of its inline child modules), with its file.
    bodies: Vec<(ModPath, PathBuf, Vec<syn::Item>)>,
}

/// Reads the module `here`, whose items are `items` (from `file`); its `mod x;` children
/// are files in `dir`.
fn read_module(c: &mut Crate, here: ModPath, file: &Path, dir: &Path, items: Vec<syn::Item>) {
    c.modules.insert(here.clone());
    let mut own = Vec::new();
    for item in items {
        let syn::Item::Mod(m) = item else {
            own.push(item);
            continue;
        };
        let mut child = here.clone();
        child.push(m.ident.to_string());
        let child_dir = dir.join(m.ident.to_string());
        match m.content {
            // an inline module: its items are in this file
            Some((_, items)) => read_module(c, child, file, &child_dir, items),
            None => {
                let flat = dir.join(format!("{}.rs", m.ident));
                let nested = child_dir.join("mod.rs");
                // `#[path = "..."]` (a test's corpus shared with examples/): beside the file
                let named = m.attrs.iter().find_map(|a| match &a.meta {
                    syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        }) => Some(file.parent().expect("a folder").join(s.value())),
                        _ => None,
                    },
                    _ => None,
                });
                let path = match named {
                    Some(named) => named,
                    None if flat.is_file() => flat,
                    None => nested,
                };
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let parsed =
                    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                read_module(c, child, &path, &child_dir, parsed.items);
            }
        }
    }
    c.bodies.push((here, file.to_path_buf(), own));
}

/// Every full path a use tree names (before `as`), each with the name it binds.
fn use_paths(tree: &syn::UseTree, prefix: &mut ModPath, out: &mut Vec<(ModPath, String)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) if n.ident == "self" => {
            // `a::{self, b}`: `self` names the prefix itself
            if let Some(last) = prefix.last() {
                out.push((prefix.clone(), last.clone()));
            }
        }
        syn::UseTree::Name(n) => {
            let mut p = prefix.clone();
            p.push(n.ident.to_string());
            out.push((p, n.ident.to_string()));
        }
        syn::UseTree::Rename(r) => {
            let mut p = prefix.clone();
            p.push(r.ident.to_string());
            out.push((p, r.rename.to_string()));
        }
        syn::UseTree::Glob(_) => {
            if let Some(last) = prefix.last() {
                out.push((prefix.clone(), last.clone()));
            }
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_paths(t, prefix, out);
            }
        }
    }
}

/// The paths rooted at `crate`, `$crate`, `super` or `self` in a macro's tokens (which
/// `syn` leaves unparsed), each with its line.
fn macro_paths(tokens: TokenStream, out: &mut Vec<(ModPath, usize)>) {
    let toks: Vec<TokenTree> = tokens.into_iter().collect();
    let is_sep = |i: usize| {
        matches!((toks.get(i), toks.get(i + 1)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && b.as_char() == ':')
    };
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            TokenTree::Group(g) => {
                if g.delimiter() != Delimiter::None || !g.stream().is_empty() {
                    macro_paths(g.stream(), out);
                }
                i += 1;
            }
            TokenTree::Ident(id)
                if ["crate", "super", "self"].contains(&id.to_string().as_str())
                    && is_sep(i + 1)
                    && !(i >= 2 && is_sep(i - 2)) =>
            {
                let line = id.span().start().line;
                let mut path = vec![id.to_string()];
                let mut j = i + 1;
                while is_sep(j) {
                    match toks.get(j + 2) {
                        Some(TokenTree::Ident(next)) => {
                            path.push(next.to_string());
                            j += 3;
                        }
                        _ => break,
                    }
                }
                out.push((path, line));
                i = j.max(i + 1);
            }
            _ => i += 1,
        }
    }
}

/// Collects the paths one module's items use (not descending into child modules, which
/// are read as modules of their own).
struct PathFinder {
    here: ModPath,
    /// `(path as written, line, from a use tree, pub use: the name it binds)`
    found: Vec<(ModPath, usize, bool, Option<String>)>,
}

impl<'ast> Visit<'ast> for PathFinder {
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let line = u.use_token.span.start().line;
        let public = !matches!(u.vis, syn::Visibility::Inherited);
        let mut paths = Vec::new();
        use_paths(&u.tree, &mut Vec::new(), &mut paths);
        for (p, name) in paths {
            self.found.push((p, line, true, public.then_some(name)));
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if let Some(first) = p.segments.first() {
            let w = first.ident.to_string();
            if p.leading_colon.is_none() && ["crate", "super", "self"].contains(&w.as_str()) {
                let path = p.segments.iter().map(|s| s.ident.to_string()).collect();
                self.found
                    .push((path, first.ident.span().start().line, false, None));
            }
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let mut paths = Vec::new();
        macro_paths(m.tokens.clone(), &mut paths);
        for (p, line) in paths {
            self.found.push((p, line, false, None));
        }
        syn::visit::visit_macro(self, m);
    }
}

fn read_crate(src: &Path) -> Crate {
    let mut c = Crate {
        modules: BTreeSet::new(),
        reexports: BTreeMap::new(),
        uses: Vec::new(),
        bodies: Vec::new(),
    };
    let lib = src.join("lib.rs");
    let parsed = syn::parse_file(&std::fs::read_to_string(&lib).unwrap()).unwrap();
    read_module(&mut c, Vec::new(), &lib, src, parsed.items);
    let bodies = std::mem::take(&mut c.bodies);
    for (here, file, items) in &bodies {
        let mut finder = PathFinder {
            here: here.clone(),
            found: Vec::new(),
        };
        for item in items {
            finder.visit_item(item);
        }
        for (p, line, in_use, reexport) in finder.found {
            let Some(abs) = absolute(&finder.here, &p, &c.modules, in_use) else {
                continue;
            };
            if let Some(name) = reexport {
                c.reexports.insert((here.clone(), name), abs.clone());
            }
            c.uses.push(Use {
                from: here.clone(),
                path: abs,
                file: file.clone(),
                line,
            });
        }
    }
    c.bodies = bodies;
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

/// What of C a module's code touches: `unsafe`, an `extern` ABI or block, `#[no_mangle]`,
/// a path into `libc`, `std::ffi` or `core::ffi` (each with its line).
#[derive(Default)]
struct KnowsC {
    found: Vec<(usize, &'static str)>,
}

impl KnowsC {
    fn path(&mut self, segs: &[String], line: usize) {
        match segs {
            [first, ..] if first == "libc" => self.found.push((line, "libc")),
            [first, second, ..] if (first == "std" || first == "core") && second == "ffi" => {
                self.found.push((line, "std::ffi"))
            }
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for KnowsC {
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    fn visit_signature(&mut self, s: &'ast syn::Signature) {
        if let Some(u) = &s.unsafety {
            self.found.push((u.span.start().line, "unsafe"));
        }
        if let Some(a) = &s.abi {
            self.found
                .push((a.extern_token.span.start().line, "extern"));
        }
        syn::visit::visit_signature(self, s);
    }

    fn visit_expr_unsafe(&mut self, e: &'ast syn::ExprUnsafe) {
        self.found
            .push((e.unsafe_token.span.start().line, "unsafe"));
        syn::visit::visit_expr_unsafe(self, e);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if let Some(u) = &i.unsafety {
            self.found.push((u.span.start().line, "unsafe"));
        }
        syn::visit::visit_item_impl(self, i);
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        if let Some(u) = &t.unsafety {
            self.found.push((u.span.start().line, "unsafe"));
        }
        syn::visit::visit_item_trait(self, t);
    }

    fn visit_item_foreign_mod(&mut self, f: &'ast syn::ItemForeignMod) {
        self.found
            .push((f.abi.extern_token.span.start().line, "extern"));
    }

    fn visit_type_bare_fn(&mut self, t: &'ast syn::TypeBareFn) {
        if let Some(u) = &t.unsafety {
            self.found.push((u.span.start().line, "unsafe"));
        }
        if let Some(a) = &t.abi {
            self.found
                .push((a.extern_token.span.start().line, "extern"));
        }
        syn::visit::visit_type_bare_fn(self, t);
    }

    fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
        let p = a.path();
        if p.is_ident("no_mangle") || p.is_ident("export_name") || p.is_ident("unsafe") {
            self.found
                .push((a.pound_token.span.start().line, "no_mangle"));
        }
        syn::visit::visit_attribute(self, a);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        use_paths(&u.tree, &mut Vec::new(), &mut paths);
        for (p, _) in paths {
            self.path(&p, u.use_token.span.start().line);
        }
    }

    fn visit_item_extern_crate(&mut self, e: &'ast syn::ItemExternCrate) {
        self.path(&[e.ident.to_string()], e.extern_token.span.start().line);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(first) = p.segments.first() {
            self.path(&segs, first.ident.span().start().line);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        fn scan(tokens: TokenStream, k: &mut KnowsC) {
            let toks: Vec<TokenTree> = tokens.into_iter().collect();
            for (i, t) in toks.iter().enumerate() {
                match t {
                    TokenTree::Group(g) => scan(g.stream(), k),
                    TokenTree::Ident(id) => {
                        let w = id.to_string();
                        let line = id.span().start().line;
                        match w.as_str() {
                            "unsafe" => k.found.push((line, "unsafe")),
                            "no_mangle" => k.found.push((line, "no_mangle")),
                            "libc" => k.found.push((line, "libc")),
                            "std" | "core" => {
                                if matches!(toks.get(i + 3), Some(TokenTree::Ident(f)) if f == "ffi")
                                {
                                    k.found.push((line, "std::ffi"));
                                }
                            }
                            _ => {}
                        }
                    }
                    _ => {}
                }
            }
        }
        scan(m.tokens.clone(), self);
        syn::visit::visit_macro(self, m);
    }
}

/// The core knows nothing of C: outside `src/ffi` there is no `unsafe`, no `extern`
/// function, type or block, no `#[no_mangle]`, and no path into `libc` or `std::ffi`
/// (`#![deny(unsafe_code)]` holds the first; this test holds all of them).
#[test]
fn only_ffi_is_unsafe_or_knows_c() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let c = read_crate(&src);
    let mut found = Vec::new();
    for (here, file, items) in &c.bodies {
        if here.first().is_some_and(|m| m == "ffi") {
            continue;
        }
        let mut k = KnowsC::default();
        for item in items {
            k.visit_item(item);
        }
        for (line, what) in k.found {
            found.push(format!(
                "{}:{line}: {what}",
                file.strip_prefix(&src).unwrap().display()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "only src/ffi may be unsafe or know C (docs/architecture.md):\n{}",
        found.join("\n")
    );
}

/// The C checker sees every form of it, and nothing in text.
#[test]
fn the_c_checker_sees_every_form() {
    let src = r#"
        unsafe fn a() {}
        fn b() { unsafe { x() } }
        unsafe impl Send for T {}
        extern "C" fn c() {}
        extern "C" { fn d(); }
        type F = unsafe extern "C" fn();
        #[no_mangle] fn e() {}
        use libc::c_int;
        use std::ffi::CStr;
        fn f() -> core::ffi::c_int { g!(unsafe { y() }) }
        // unsafe in a comment, and in a string: "unsafe libc std::ffi"
        fn h() -> &'static str { "unsafe" }
    "#;
    let file = syn::parse_file(src).unwrap();
    let mut k = KnowsC::default();
    for item in &file.items {
        k.visit_item(item);
    }
    let what: Vec<&str> = k.found.iter().map(|(_, w)| *w).collect();
    assert_eq!(
        what,
        [
            "unsafe",
            "unsafe",
            "unsafe",
            "extern",
            "extern",
            "unsafe",
            "extern",
            "no_mangle",
            "libc",
            "std::ffi",
            "std::ffi",
            "unsafe"
        ],
        "{:?}",
        k.found
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
