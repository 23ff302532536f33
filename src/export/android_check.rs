//! The indexer's documented rules for Android's assets, as a checker (docs/android.md, "The
//! assets the OS indexes"), and the assets' file names. The writers are
//! `platform::android`'s; [`check`](super::check) runs the matching check on each export.
//!
//! | format | file (`<property>` in the manifest) | what it holds |
//! |---|---|---|
//! | `android-xml` | `assets/app_functions_v2.xml` (`android.app.appfunctions.v2`) | every function: parameters, response, shared object types |
//! | `android-legacy-xml` | `assets/app_functions.xml` (`android.app.appfunctions`) | every function's `function_id` and `enabled_by_default` (the v1 form some Android 16 builds read) |
//! | `android-schema` | `assets/app_functions_schema.xsd` (`android.app.appfunctions.schema`) | the document types and properties the v2 file uses, the legacy `AppFunctionStaticMetadata` ones included |
//! | `android-manifest` | merged into the app's `AndroidManifest.xml` | the service, its permission, intent filter and the three properties |
//!
//! The schema file is not W3C XSD: each `xs:documentType` lists `xs:element name type
//! cardinality`, cardinality 1 repeated, 2 optional, 3 required; types `xs:string`,
//! `xs:long`, `xs:boolean` or `appfn:<DocumentType>`.

use super::tree::xml::{parse, Element};
use std::collections::{BTreeMap, BTreeSet};

/// The asset file of the v2 schema XML (`android-xml`).
pub const V2_FILE: &str = "app_functions_v2.xml";
/// The asset file of the legacy v1 XML (`android-legacy-xml`).
pub const LEGACY_FILE: &str = "app_functions.xml";
/// The asset file of the document-type schema (`android-schema`).
pub const SCHEMA_FILE: &str = "app_functions_schema.xsd";
/// The service the manifest fragment declares: the Kotlin binding's
/// `AppFunctionsService` (a .NET service registers itself under the same Java name).
pub const SERVICE_CLASS: &str = "dev.appfunctions.android.AppFunctionsService";

// ---------------------------------------------------------------------------------------
// The indexer's rules.
// ---------------------------------------------------------------------------------------

/// A property's type in a document-type schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PropertyType {
    /// `xs:string`: any text.
    String,
    /// `xs:long`: a 64-bit integer.
    Long,
    /// `xs:boolean`: `true` or `false`.
    Boolean,
    /// `appfn:<DocumentType>`: a nested document of that type.
    Document(String),
}

/// One `xs:element` of a document type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// `1` repeated, `2` optional (at most once), `3` required (exactly once).
    pub cardinality: u8,
    /// What its value is.
    pub ty: PropertyType,
}

/// A parsed document-type schema: document type → property → declaration.
#[derive(Clone, Debug, Default)]
pub struct DocumentSchema {
    /// The document types in file order of their names.
    pub types: BTreeMap<String, BTreeMap<String, Property>>,
}

/// Parses a document-type schema (`app_functions_schema.xsd`), refusing an element without
/// a name, an unknown cardinality or a type that is not `xs:string`, `xs:long`,
/// `xs:boolean` or `appfn:` a declared document type.
pub fn parse_schema(xsd: &str) -> Result<DocumentSchema, String> {
    let root = parse(xsd)?;
    if root.name != "xs:schema" {
        return Err(format!("the root is <{}>, not <xs:schema>", root.name));
    }
    let mut s = DocumentSchema::default();
    for t in &root.children {
        if t.name != "xs:documentType" {
            return Err(format!("<{}> in <xs:schema>: only xs:documentType", t.name));
        }
        let name = t.attr("name").ok_or("an xs:documentType without a name")?;
        let mut props = BTreeMap::new();
        for e in &t.children {
            let at = |what: &str| format!("{name}: {what}");
            if e.name != "xs:element" {
                return Err(at(&format!("<{}>: only xs:element", e.name)));
            }
            let pname = e
                .attr("name")
                .ok_or_else(|| at("an xs:element without a name"))?;
            let cardinality = match e.attr("cardinality") {
                Some("1") => 1,
                Some("2") => 2,
                Some("3") => 3,
                other => {
                    return Err(at(&format!(
                        "{pname}: cardinality {other:?} is not 1, 2 or 3"
                    )))
                }
            };
            let ty = match e.attr("type") {
                Some("xs:string") => PropertyType::String,
                Some("xs:long") => PropertyType::Long,
                Some("xs:boolean") => PropertyType::Boolean,
                Some(t) if t.starts_with("appfn:") => PropertyType::Document(t[6..].to_owned()),
                other => return Err(at(&format!("{pname}: type {other:?} cannot be parsed"))),
            };
            if props
                .insert(pname.to_owned(), Property { cardinality, ty })
                .is_some()
            {
                return Err(at(&format!("{pname} declared twice")));
            }
        }
        if s.types.insert(name.to_owned(), props).is_some() {
            return Err(format!("document type {name} declared twice"));
        }
    }
    for (t, props) in &s.types {
        for (p, d) in props {
            if let PropertyType::Document(d) = &d.ty {
                if !s.types.contains_key(d) {
                    return Err(format!(
                        "{t}.{p}: appfn:{d} is not a declared document type"
                    ));
                }
            }
        }
    }
    Ok(s)
}

/// The element names of the v2 file's top-level documents and their types.
const V2_ROOTS: [(&str, &str); 2] = [
    ("appfunction", "AppFunctionStaticMetadata"),
    (
        "AppFunctionComponentMetadataDocument",
        "AppFunctionComponentMetadataDocument",
    ),
];

/// Checks a v2 file against a document-type schema as the indexer reads it: the root is
/// `<appfunctions>` holding `<appfunction>` documents and at most one component document;
/// every document, nested ones too, carries a non-empty `<id>`; every other element is a
/// property the schema declares for that document type, with a value of its type; required
/// properties are present, optional ones at most once. Errors name the path
/// (`appfunction[create_order]/parameters[1]/dataTypeMetadata`).
pub fn check_v2(xml: &str, schema: &DocumentSchema) -> Result<(), String> {
    let root = parse(xml)?;
    if root.name != "appfunctions" {
        return Err(format!("the root is <{}>, not <appfunctions>", root.name));
    }
    let mut ids = BTreeSet::new();
    let mut components = 0;
    for (i, e) in root.children.iter().enumerate() {
        let Some((_, ty)) = V2_ROOTS.iter().find(|(n, _)| *n == e.name) else {
            return Err(format!(
                "<{}> in <appfunctions>: not a document the indexer reads",
                e.name
            ));
        };
        let path = match e.child("id") {
            Some(id) if e.name == "appfunction" => format!("appfunction[{}]", id.text.trim()),
            _ => format!("{}[{i}]", e.name),
        };
        if e.name == "appfunction" {
            let id = e
                .child("id")
                .map(|i| i.text.trim().to_owned())
                .unwrap_or_default();
            if !ids.insert(id.clone()) {
                return Err(format!("{path}: a second function with the id {id:?}"));
            }
        } else {
            components += 1;
            if components > 1 {
                return Err(format!(
                    "{path}: a second AppFunctionComponentMetadataDocument"
                ));
            }
        }
        check_document(e, ty, schema, &path)?;
    }
    Ok(())
}

fn check_document(
    e: &Element,
    ty: &str,
    schema: &DocumentSchema,
    path: &str,
) -> Result<(), String> {
    let props = schema
        .types
        .get(ty)
        .ok_or_else(|| format!("{path}: the schema declares no document type {ty}"))?;
    let ids: Vec<&Element> = e.all("id").collect();
    match ids.as_slice() {
        [id] if !id.text.trim().is_empty() && id.children.is_empty() => {}
        [] => {
            return Err(format!(
                "{path}: a document without an <id> (the indexer drops it)"
            ))
        }
        [_] => return Err(format!("{path}: an empty <id>")),
        _ => return Err(format!("{path}: more than one <id>")),
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for c in e.children.iter().filter(|c| c.name != "id") {
        let n = seen.entry(c.name.as_str()).or_default();
        let at = format!("{path}/{}[{}]", c.name, *n);
        *n += 1;
        let Some(p) = props.get(&c.name) else {
            return Err(format!("{at}: {ty} declares no property <{}>", c.name));
        };
        let text = c.text.trim();
        match &p.ty {
            PropertyType::Document(d) => check_document(c, d, schema, &at)?,
            _ if !c.children.is_empty() => {
                return Err(format!("{at}: a {:?} value holds elements", p.ty))
            }
            PropertyType::String => {}
            PropertyType::Long => {
                text.parse::<i64>()
                    .map_err(|_| format!("{at}: {text:?} is not a long"))?;
            }
            PropertyType::Boolean => {
                if text != "true" && text != "false" {
                    return Err(format!("{at}: {text:?} is not a boolean"));
                }
            }
        }
    }
    for (name, p) in props {
        let n = seen.get(name.as_str()).copied().unwrap_or(0);
        if p.cardinality == 3 && n != 1 {
            return Err(format!("{path}: the required <{name}> appears {n} times"));
        }
        if p.cardinality == 2 && n > 1 {
            return Err(format!("{path}: the optional <{name}> appears {n} times"));
        }
    }
    Ok(())
}

/// What each legacy `<appfunction>` may hold: its tag, whether it is required, and the
/// value (`s` text, `l` long, `b` boolean).
const LEGACY_TAGS: [(&str, bool, char); 7] = [
    ("function_id", true, 's'),
    ("enabled_by_default", false, 'b'),
    ("schema_name", false, 's'),
    ("schema_category", false, 's'),
    ("schema_version", false, 'l'),
    ("restrict_callers_with_execute_app_functions", false, 'b'),
    ("display_name_string_res", false, 'l'),
];

/// Checks a legacy v1 file: `<appfunctions>` holding `<appfunction>`s (and an optional
/// `<version>`), each with one non-empty, unique `function_id` and at most one of each
/// other legacy tag, values of their types.
pub fn check_legacy(xml: &str) -> Result<(), String> {
    let root = parse(xml)?;
    if root.name != "appfunctions" {
        return Err(format!("the root is <{}>, not <appfunctions>", root.name));
    }
    let mut ids = BTreeSet::new();
    for (i, f) in root.children.iter().enumerate() {
        if f.name == "version" {
            continue;
        }
        if f.name != "appfunction" {
            return Err(format!("<{}> in <appfunctions>", f.name));
        }
        let path = format!("appfunction[{i}]");
        for c in &f.children {
            let Some((_, _, kind)) = LEGACY_TAGS.iter().find(|(t, _, _)| *t == c.name) else {
                return Err(format!("{path}: <{}> is not a legacy tag", c.name));
            };
            let text = c.text.trim();
            let ok = match kind {
                'b' => text == "true" || text == "false",
                'l' => text.parse::<i64>().is_ok(),
                _ => c.children.is_empty(),
            };
            if !ok {
                return Err(format!(
                    "{path}/{}: {text:?} is not a value of its type",
                    c.name
                ));
            }
        }
        for (tag, required, _) in LEGACY_TAGS {
            let n = f.all(tag).count();
            if n > 1 || (required && n == 0) {
                return Err(format!("{path}: <{tag}> appears {n} times"));
            }
        }
        let id = f.child("function_id").map(|e| e.text.trim()).unwrap_or("");
        if id.is_empty() {
            return Err(format!("{path}: an empty function_id"));
        }
        if !ids.insert(id.to_owned()) {
            return Err(format!("{path}: a second function with the id {id:?}"));
        }
    }
    Ok(())
}

/// Checks a manifest fragment: a `<service>` with the bind permission, exported, the
/// AppFunctionService intent filter, and the three `<property>` entries naming the files.
pub fn check_manifest(xml: &str) -> Result<(), String> {
    let root = parse(xml)?;
    if root.name != "manifest" || root.attr("xmlns:android").is_none() {
        return Err("the root is not <manifest xmlns:android=…>".into());
    }
    let service = root
        .child("application")
        .and_then(|a| a.child("service"))
        .ok_or("no <application><service>")?;
    let want = |name: &str, value: &str| -> Result<(), String> {
        match service.attr(name) {
            Some(v) if v == value => Ok(()),
            v => Err(format!("<service> {name} is {v:?}, not {value:?}")),
        }
    };
    want(
        "android:permission",
        "android.permission.BIND_APP_FUNCTION_SERVICE",
    )?;
    want("android:exported", "true")?;
    if service.attr("android:name").is_none_or(str::is_empty) {
        return Err("<service> without android:name".into());
    }
    let action = service
        .child("intent-filter")
        .and_then(|f| f.child("action"))
        .and_then(|a| a.attr("android:name"));
    if action != Some("android.app.appfunctions.AppFunctionService") {
        return Err(format!("the intent filter's action is {action:?}"));
    }
    for (property, file) in [
        ("android.app.appfunctions", LEGACY_FILE),
        ("android.app.appfunctions.v2", V2_FILE),
        ("android.app.appfunctions.schema", SCHEMA_FILE),
    ] {
        let found = service
            .all("property")
            .find(|p| p.attr("android:name") == Some(property))
            .and_then(|p| p.attr("android:value"));
        if found != Some(file) {
            return Err(format!("<property {property}> is {found:?}, not {file:?}"));
        }
    }
    Ok(())
}

/// Compares our schema with the upstream one: every upstream `AppFunctionStaticMetadata`
/// (legacy) property is kept, and every property both declare has the same type and
/// cardinality.
pub fn compare_schemas(ours: &DocumentSchema, upstream: &DocumentSchema) -> Result<(), String> {
    let ours_static = ours
        .types
        .get("AppFunctionStaticMetadata")
        .ok_or("our schema lacks AppFunctionStaticMetadata")?;
    if let Some(theirs) = upstream.types.get("AppFunctionStaticMetadata") {
        for name in theirs.keys() {
            if !ours_static.contains_key(name) {
                return Err(format!("AppFunctionStaticMetadata.{name} is not kept"));
            }
        }
    }
    for (t, props) in &upstream.types {
        let Some(mine) = ours.types.get(t) else {
            continue;
        };
        for (name, p) in props {
            if let Some(m) = mine.get(name) {
                if m != p {
                    return Err(format!("{t}.{name}: ours is {m:?}, upstream {p:?}"));
                }
            }
        }
    }
    Ok(())
}
