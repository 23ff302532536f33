//! The registry as App Intents Swift source (export format `swift-app-intents`).
//!
//! One file: per enum an `AppEnum`, per entity an `AppEntity` with an `EntityStringQuery`,
//! per declared function an `AppIntent` whose `perform()` hands its parameters to the
//! runtime (`AppIntentRuntime.perform`, bindings/swift `AppFunctionsIntents`), and the
//! functions' App Shortcuts in one `AppShortcutsProvider`. Every title, description and
//! phrase is a literal, as Xcode's metadata step requires. What App Intents cannot
//! express is left out, each function with its reason in the header comment (and in
//! [`SwiftExport::left_out`], which the dispatcher logs as warnings). docs/apple.md has
//! the mapping table.

use super::names::{
    comment, ident, literal, lower_camel, push_escaped, title_of, upper_camel, Scope,
};
use crate::model::condition::render;
use crate::model::descriptor::{FunctionDescriptor, FunctionKind, APPLICATION_NAME_TOKEN};
use crate::model::types::{EnumDef, Field, Parameter, Type, TypeSet};
use serde_json::Value;
use std::fmt::Write;

/// The most App Shortcuts one app may declare (App Intents refuses more).
pub(crate) const MAX_APP_SHORTCUTS: usize = 10;

/// A function the export left out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftOut {
    /// The function id.
    pub function: String,
    /// What App Intents cannot express, e.g. `parameter "note" is the record Note: ...`.
    pub reason: String,
}

/// The Swift source and what it left out.
#[derive(Clone, Debug)]
pub struct SwiftExport {
    /// The Swift file.
    pub text: String,
    /// Functions without an intent, each with its reason (also in the header comment).
    pub left_out: Vec<LeftOut>,
    /// Other things dropped on the way (entity fields Shortcuts cannot show, App
    /// Shortcuts beyond the limit), for the log.
    pub notes: Vec<String>,
}

/// How a descriptor type reads in Swift, where App Intents can hold it.
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    String,
    Bool,
    Int,
    Double,
    /// `dateTime`: a `Date`, sent as ISO 8601 with offset.
    DateTime,
    /// `date`: a `Date`, sent as its calendar day (`YYYY-MM-DD`).
    Day,
    Enum(usize),
    Entity(usize),
    Array(Box<Shape>),
    Optional(Box<Shape>),
}

/// The generated Swift type names.
struct Names {
    enums: Vec<String>,
    entities: Vec<String>,
    queries: Vec<String>,
    /// Per enum, per member: the case name.
    cases: Vec<Vec<String>>,
}

impl Names {
    fn swift(&self, s: &Shape) -> String {
        match s {
            Shape::String => "String".into(),
            Shape::Bool => "Bool".into(),
            Shape::Int => "Int".into(),
            Shape::Double => "Double".into(),
            Shape::DateTime | Shape::Day => "Date".into(),
            Shape::Enum(i) => self.enums[*i].clone(),
            Shape::Entity(i) => self.entities[*i].clone(),
            Shape::Array(t) => format!("[{}]", self.swift(t)),
            Shape::Optional(t) => format!("{}?", self.swift(t)),
        }
    }
}

/// Whether a shape holds a calendar day anywhere (its arguments say `as: .day`).
fn has_day(s: &Shape) -> bool {
    match s {
        Shape::Day => true,
        Shape::Array(t) | Shape::Optional(t) => has_day(t),
        _ => false,
    }
}

/// The shape of a value App Intents can hold (a parameter, an entity property or a
/// returned value), or why it cannot.
fn shape(types: &TypeSet, ty: &Type, entities_ok: bool) -> Result<Shape, String> {
    Ok(match ty {
        Type::String | Type::Uuid => Shape::String,
        Type::Boolean => Shape::Bool,
        Type::Int32 | Type::Int64 => Shape::Int,
        Type::Double => Shape::Double,
        Type::DateTime => Shape::DateTime,
        Type::Date => Shape::Day,
        Type::Enum(i) => Shape::Enum(*i),
        Type::Entity(i) if entities_ok => Shape::Entity(*i),
        Type::Entity(i) => {
            return Err(format!(
                "is the entity {} (an entity property cannot hold another entity)",
                types.entities[*i].name
            ))
        }
        Type::Record(i) => {
            return Err(format!(
                "is the record {} (App Intents takes no record values: only text, numbers, booleans, dates, enums and entities)",
                types.records[*i].name
            ))
        }
        Type::Array(t) => match &**t {
            Type::Array(_) => return Err("is an array of arrays (App Intents takes one level of arrays)".into()),
            Type::Nullable(_) => return Err("is an array with null items (App Intents arrays hold values only)".into()),
            inner => Shape::Array(Box::new(
                shape(types, inner, entities_ok).map_err(|e| format!("holds items that {}", e.trim_start_matches("is ")))?,
            )),
        },
        Type::Nullable(t) => Shape::Optional(Box::new(shape(types, t, entities_ok)?)),
    })
}

/// A parameter's Swift property.
struct Param<'a> {
    p: &'a Parameter,
    member: String,
    /// The property's type (optional unless required or defaulted with a literal).
    swift: String,
    shape: Shape,
    /// The `default:` literal, when the default is one Swift can write.
    default: Option<String>,
    title: String,
    description: Option<String>,
}

/// The `default:` literal of a parameter's default, when its type takes one.
fn default_literal(names: &Names, types: &TypeSet, s: &Shape, v: &Value) -> Option<String> {
    match (s, v) {
        (Shape::String, Value::String(t)) => Some(literal(t)),
        (Shape::Bool, Value::Bool(b)) => Some(b.to_string()),
        (Shape::Int, Value::Number(n)) => n.as_i64().map(|i| i.to_string()),
        (Shape::Double, Value::Number(n)) => n
            .as_f64()
            .filter(|f| f.is_finite())
            .map(|f| format!("{f:?}")),
        (Shape::Enum(i), Value::String(m)) => types.enums[*i]
            .members
            .iter()
            .position(|x| &x.name == m)
            .map(|k| format!(".{}", ident(&names.cases[*i][k]))),
        _ => None,
    }
}

/// A function's result in Swift: its `IntentResult` type and the value returned.
enum ResultShape {
    Void,
    Value(String),
    /// Records (and what holds them): the JSON text.
    JsonText,
}

/// Writes the registry's App Intents. `functions` are the declared functions (the
/// generated `search_{entity}` ones are skipped: the entity queries call them);
/// `metadata` renders `{metadata.Name}` placeholders (the metadata schema's defaults).
pub fn app_intents<'a>(
    types: &TypeSet,
    functions: impl IntoIterator<Item = &'a FunctionDescriptor>,
    metadata: &Value,
) -> SwiftExport {
    let text = |t: &str| render(t, metadata);
    // type names: every generated type, each name once in the file
    let mut file = Scope::with(&[
        "AppFunctionsShortcuts",
        "AppIntentRuntime",
        "AppIntentArguments",
        "AppIntentFields",
    ]);
    let enums: Vec<String> = types
        .enums
        .iter()
        .map(|e| file.claim(&upper_camel(&e.name, "Enum"), "AppEnum"))
        .collect();
    let cases = types
        .enums
        .iter()
        .map(|e| {
            let mut s = Scope::with(&[
                "allCases",
                "rawValue",
                "init",
                "self",
                "Type",
                "caseDisplayRepresentations",
                "typeDisplayRepresentation",
            ]);
            e.members
                .iter()
                .enumerate()
                .map(|(k, m)| s.member(&lower_camel(&m.name, &format!("member{}", k + 1))))
                .collect()
        })
        .collect();
    let entities: Vec<String> = types
        .entities
        .iter()
        .map(|e| file.claim(&upper_camel(&e.name, "Entity"), "Entity"))
        .collect();
    let queries = entities.iter().map(|n| file.claim(n, "Query")).collect();
    let names = Names {
        enums,
        entities,
        queries,
        cases,
    };

    let mut left_out = Vec::new();
    let mut notes = Vec::new();
    let mut intents = String::new();
    let mut shortcuts: Vec<(String, &FunctionDescriptor)> = Vec::new();
    for f in functions {
        if f.generated_for.is_some() {
            continue;
        }
        match intent(types, &names, &mut file, f, &text) {
            Ok((name, body)) => {
                intents.push_str(&body);
                if f.app_shortcut.is_some() {
                    shortcuts.push((name, f));
                }
            }
            Err(reason) => left_out.push(LeftOut {
                function: f.id.clone(),
                reason,
            }),
        }
    }

    let mut out = String::new();
    out.push_str(
        "// App Intents of this app's functions, generated by appfunctions (export format\n",
    );
    out.push_str("// \"swift-app-intents\") from its descriptors. Do not edit: regenerate it (bindings/swift/README.md).\n");
    if left_out.is_empty() {
        out.push_str("//\n// Every declared function has an intent.\n");
    } else {
        out.push_str("//\n// Functions left out (App Intents cannot express them):\n");
        for l in &left_out {
            let _ = writeln!(out, "// - {}: {}", comment(&l.function), comment(&l.reason));
        }
    }
    out.push_str("\nimport AppFunctionsIntents\nimport Foundation\n#if canImport(AppIntents)\nimport AppIntents\n#else\nimport AppIntentsStandIn\n#endif\n");

    for (i, e) in types.enums.iter().enumerate() {
        write_enum(&mut out, &names, i, e, &text);
    }
    for (i, _) in types.entities.iter().enumerate() {
        write_entity(&mut out, types, &names, i, &text, &mut notes);
    }
    out.push_str(&intents);
    if !shortcuts.is_empty() {
        if shortcuts.len() > MAX_APP_SHORTCUTS {
            for (_, f) in &shortcuts[MAX_APP_SHORTCUTS..] {
                notes.push(format!(
                    "{}: its App Shortcut is left out: an app declares at most {MAX_APP_SHORTCUTS} App Shortcuts",
                    f.id
                ));
            }
            shortcuts.truncate(MAX_APP_SHORTCUTS);
        }
        write_shortcuts(&mut out, &shortcuts, &text);
    }
    SwiftExport {
        text: out,
        left_out,
        notes,
    }
}

fn write_enum(
    out: &mut String,
    names: &Names,
    i: usize,
    e: &EnumDef,
    text: &dyn Fn(&str) -> String,
) {
    let name = &names.enums[i];
    let _ = writeln!(out, "\n/// The enum {}.", comment(&e.name));
    let _ = writeln!(out, "enum {name}: String, AppEnum, AppFunctionsEnum {{");
    for (k, m) in e.members.iter().enumerate() {
        let _ = writeln!(
            out,
            "    case {} = {}",
            ident(&names.cases[i][k]),
            literal(&m.name)
        );
    }
    let _ = writeln!(
        out,
        "\n    static let typeDisplayRepresentation: TypeDisplayRepresentation = {}",
        literal(&title_of(&e.name))
    );
    let _ = writeln!(
        out,
        "    static let caseDisplayRepresentations: [{name}: DisplayRepresentation] = ["
    );
    for (k, m) in e.members.iter().enumerate() {
        let case = ident(&names.cases[i][k]);
        match &m.description {
            Some(d) => {
                let _ = writeln!(
                    out,
                    "        .{case}: DisplayRepresentation(title: {}, subtitle: {}),",
                    literal(&m.name),
                    literal(&text(d))
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "        .{case}: DisplayRepresentation(title: {}),",
                    literal(&m.name)
                );
            }
        }
    }
    out.push_str("    ]\n}\n");
}

fn write_entity(
    out: &mut String,
    types: &TypeSet,
    names: &Names,
    i: usize,
    text: &dyn Fn(&str) -> String,
    notes: &mut Vec<String>,
) {
    let e = &types.entities[i];
    let name = &names.entities[i];
    let query = &names.queries[i];
    let mut members = Scope::members();
    let mut props: Vec<(&Field, String, Shape)> = Vec::new();
    for f in &e.fields {
        if f.name == e.id_field {
            continue;
        }
        match shape(types, &f.ty, false) {
            Ok(s) => props.push((f, members.member(&f.name), s)),
            Err(why) => notes.push(format!(
                "entity {}: field {:?} is not a property Shortcuts shows: it {why}",
                e.name, f.name
            )),
        }
    }
    let shown = e
        .title
        .as_deref()
        .map(text)
        .unwrap_or_else(|| title_of(&e.name));
    let _ = writeln!(
        out,
        "\n/// The entity {} (its lookup and search_{} run in the app).",
        comment(&e.name),
        comment(&e.name)
    );
    let _ = writeln!(out, "struct {name}: AppEntity, AppFunctionsEntity {{");
    let _ = writeln!(
        out,
        "    static let typeDisplayRepresentation: TypeDisplayRepresentation = {}",
        literal(&shown)
    );
    let _ = writeln!(out, "    static let defaultQuery = {query}()");
    let _ = writeln!(
        out,
        "    static let appFunctionsEntityName = {}",
        literal(&e.name)
    );
    let _ = writeln!(
        out,
        "    static let appFunctionsSearchFunction = {}",
        literal(&format!("search_{}", e.name))
    );
    let _ = writeln!(out, "\n    var id: String");
    for (f, member, s) in &props {
        let title = title_of(&f.name);
        let _ = match &f.description {
            Some(d) => writeln!(out, "    /// {}", comment(&text(d))),
            None => Ok(()),
        };
        let _ = writeln!(out, "    @Property(title: {})", literal(&title));
        let swift = names.swift(&if f.optional && !matches!(s, Shape::Optional(_)) {
            Shape::Optional(Box::new(s.clone()))
        } else {
            s.clone()
        });
        let _ = writeln!(out, "    var {}: {swift}", ident(member));
    }
    // the title: the first required text property, else the id
    let title_member = props
        .iter()
        .find(|(f, _, s)| *s == Shape::String && !f.optional)
        .map(|(_, m, _)| m.clone());
    out.push_str("\n    var displayRepresentation: DisplayRepresentation {\n");
    match &title_member {
        Some(m) => {
            let _ = writeln!(
                out,
                "        DisplayRepresentation(title: \"\\({})\", subtitle: \"\\(id)\")",
                ident(m)
            );
        }
        None => out.push_str("        DisplayRepresentation(title: \"\\(id)\")\n"),
    }
    out.push_str("    }\n\n    init(appFunctionsFields fields: AppIntentFields) throws {\n");
    let _ = writeln!(
        out,
        "        id = try fields.value({}, String.self)",
        literal(&e.id_field)
    );
    for (f, member, s) in &props {
        let swift = names.swift(&if f.optional && !matches!(s, Shape::Optional(_)) {
            Shape::Optional(Box::new(s.clone()))
        } else {
            s.clone()
        });
        let _ = writeln!(
            out,
            "        {} = try fields.value({}, {swift}.self)",
            ident(member),
            literal(&f.name)
        );
    }
    out.push_str("    }\n}\n");
    let _ = writeln!(out, "\nstruct {query}: EntityStringQuery {{");
    let _ = writeln!(
        out,
        "    func entities(for identifiers: [String]) async throws -> [{name}] {{"
    );
    let _ = writeln!(
        out,
        "        try await AppIntentRuntime.entities({name}.self, ids: identifiers)"
    );
    out.push_str("    }\n\n");
    let _ = writeln!(
        out,
        "    func entities(matching string: String) async throws -> [{name}] {{"
    );
    let _ = writeln!(
        out,
        "        try await AppIntentRuntime.search({name}.self, matching: string)"
    );
    out.push_str("    }\n\n");
    let _ = writeln!(
        out,
        "    func suggestedEntities() async throws -> [{name}] {{"
    );
    let _ = writeln!(
        out,
        "        try await AppIntentRuntime.search({name}.self, matching: \"\")"
    );
    out.push_str("    }\n}\n");
}

/// A function's intent (its name and text), or why App Intents cannot express it.
fn intent(
    types: &TypeSet,
    names: &Names,
    file: &mut Scope,
    f: &FunctionDescriptor,
    text: &dyn Fn(&str) -> String,
) -> Result<(String, String), String> {
    if f.kind == FunctionKind::Output {
        return Err("an output function has no handler (its arguments are a model's answer), so there is nothing for Siri to run".into());
    }
    let mut members = Scope::members();
    let mut params = Vec::new();
    for p in &f.parameters {
        let s = shape(types, &p.ty, true).map_err(|why| format!("parameter {:?} {why}", p.name))?;
        let nullable = matches!(s, Shape::Optional(_));
        let default = if nullable {
            None
        } else {
            // the default as bound (1e2 for an int32 is 100)
            p.default
                .as_ref()
                .and_then(|d| serde_json::from_str::<Value>(&d.json).ok())
                .and_then(|d| default_literal(names, types, &s, &d))
        };
        // omitted when nil: the core then applies the default or binds null
        let optional = !nullable && p.optional && default.is_none();
        let prop = if optional {
            Shape::Optional(Box::new(s.clone()))
        } else {
            s.clone()
        };
        params.push(Param {
            p,
            member: members.member(&p.name),
            swift: names.swift(&prop),
            shape: prop,
            default,
            title: title_of(&p.name),
            description: p.description.as_deref().map(text),
        });
    }
    let result = match &f.result {
        None => ResultShape::Void,
        Some(t) => match shape(types, t, true) {
            Ok(s) => ResultShape::Value(names.swift(&s)),
            Err(_) => ResultShape::JsonText,
        },
    };

    let name = file.claim(&upper_camel(&f.id, "Function"), "Intent");
    let title = f
        .title
        .as_deref()
        .map(text)
        .unwrap_or_else(|| title_of(&f.id));
    let mut out = String::new();
    let _ = writeln!(out, "\n/// Runs the function {}.", comment(&f.id));
    let _ = writeln!(out, "struct {name}: AppIntent, AppFunctionsIntent {{");
    let _ = writeln!(
        out,
        "    static let title: LocalizedStringResource = {}",
        literal(&title)
    );
    if let Some(d) = f.description.as_deref().map(text).filter(|d| !d.is_empty()) {
        // typed as the requirement is (`IntentDescription?`): an unannotated constant would
        // be a property of its own, and the protocol's default (nil) would be the witness
        let _ = writeln!(
            out,
            "    static let description: IntentDescription? = IntentDescription({})",
            literal(&d)
        );
    }
    if f.opens_app {
        out.push_str("    /// Opens the app before perform() (iOS 16 to 25).\n    static let openAppWhenRun: Bool = true\n");
        out.push_str(
            "    @available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)\n",
        );
        out.push_str("    static var supportedModes: IntentModes { .foreground(.immediate) }\n");
    } else {
        out.push_str("    /// Runs in the background; a gate that asks for the app continues in the foreground.\n");
        out.push_str(
            "    @available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)\n",
        );
        out.push_str(
            "    static var supportedModes: IntentModes { [.background, .foreground(.dynamic)] }\n",
        );
    }
    let _ = writeln!(out, "    static let appFunctionsId = {}", literal(&f.id));
    for p in &params {
        out.push('\n');
        let mut attr = format!("title: {}", literal(&p.title));
        if let Some(d) = &p.description {
            attr.push_str(", description: ");
            attr.push_str(&literal(d));
        }
        if let Some(d) = &p.default {
            attr.push_str(", default: ");
            attr.push_str(d);
        }
        let _ = writeln!(out, "    @Parameter({attr})");
        let _ = writeln!(out, "    var {}: {}", ident(&p.member), p.swift);
    }
    out.push_str("\n    init() {}\n");
    let returns = match &result {
        ResultShape::Void => String::new(),
        ResultShape::Value(t) => format!(" & ReturnsValue<{t}>"),
        ResultShape::JsonText => " & ReturnsValue<String>".into(),
    };
    let _ = writeln!(
        out,
        "\n    func perform() async throws -> some IntentResult{returns} & ProvidesDialog {{"
    );
    if params.is_empty() {
        out.push_str("        let arguments = AppIntentArguments()\n");
    } else {
        out.push_str("        var arguments = AppIntentArguments()\n");
    }
    for p in &params {
        let day = if has_day(&p.shape) { ", as: .day" } else { "" };
        let _ = writeln!(
            out,
            "        arguments.set({}, {}{day})",
            literal(&p.p.name),
            ident(&p.member)
        );
    }
    out.push_str(
        "        let run = try await AppIntentRuntime.perform(self, arguments: arguments)\n",
    );
    match &result {
        ResultShape::Void => out.push_str("        return .result(dialog: run.dialog)\n"),
        ResultShape::Value(t) => {
            let _ = writeln!(
                out,
                "        return .result(value: try run.value({t}.self), dialog: run.dialog)"
            );
        }
        ResultShape::JsonText => {
            out.push_str("        return .result(value: run.resultText, dialog: run.dialog)\n")
        }
    }
    out.push_str("    }\n}\n");
    if !f.opens_app {
        // iOS 16.4 to 25: the way a background intent asks to continue in the foreground
        out.push_str(
            "\n#if !os(visionOS)\n@available(iOS 16.4, macOS 13.3, tvOS 16.4, watchOS 9.4, *)\n",
        );
        let _ = writeln!(out, "extension {name}: ForegroundContinuableIntent {{}}");
        out.push_str("#endif\n");
    }
    Ok((name, out))
}

fn write_shortcuts(
    out: &mut String,
    shortcuts: &[(String, &FunctionDescriptor)],
    text: &dyn Fn(&str) -> String,
) {
    out.push_str("\n/// The functions' App Shortcuts: Siri and Spotlight offer them as soon as the app is installed.\n");
    out.push_str("@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)\n");
    out.push_str("struct AppFunctionsShortcuts: AppShortcutsProvider {\n");
    out.push_str("    static var appShortcuts: [AppShortcut] {\n");
    for (intent, f) in shortcuts {
        let s = f
            .app_shortcut
            .as_ref()
            .expect("only functions with a shortcut");
        let title = s
            .short_title
            .clone()
            .or_else(|| f.title.as_deref().map(text))
            .unwrap_or_else(|| title_of(&f.id));
        out.push_str("        AppShortcut(\n");
        let _ = writeln!(out, "            intent: {intent}(),");
        out.push_str("            phrases: [\n");
        for p in &s.phrases {
            let _ = writeln!(out, "                {},", phrase(p));
        }
        out.push_str("            ],\n");
        let _ = writeln!(out, "            shortTitle: {},", literal(&title));
        let _ = writeln!(
            out,
            "            systemImageName: {}",
            literal(s.system_image_name.as_deref().unwrap_or("bolt"))
        );
        out.push_str("        )\n");
    }
    out.push_str("    }\n}\n");
}

/// A phrase as an `AppShortcutPhrase` literal: the text escaped, the application-name
/// token as `\(.applicationName)`.
fn phrase(p: &str) -> String {
    let mut out = String::from("\"");
    for (i, piece) in p.split(APPLICATION_NAME_TOKEN).enumerate() {
        if i > 0 {
            out.push_str("\\(.applicationName)");
        }
        push_escaped(&mut out, piece);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::descriptor::ParseContext;
    use serde_json::json;

    fn types() -> TypeSet {
        let mut t = TypeSet::default();
        t.define(&json!({
            "enums": [{"name": "Priority", "members": ["Low", {"name": "Normal", "description": "the default"}]}],
            "records": [{"name": "Note", "fields": [{"name": "id", "type": "int32"}]}]
        }))
        .unwrap();
        t
    }

    fn export(t: &TypeSet, descriptors: &[Value]) -> SwiftExport {
        let fs: Vec<FunctionDescriptor> = descriptors
            .iter()
            .map(|d| FunctionDescriptor::parse(d, t, &ParseContext::default()).unwrap())
            .collect();
        app_intents(t, fs.iter(), &json!({}))
    }

    fn one(params: Value, result: Value) -> SwiftExport {
        export(
            &types(),
            &[json!({"id": "f", "parameters": params, "result": result})],
        )
    }

    #[test]
    fn each_parameter_type_has_its_swift_type() {
        let t = types();
        for (ty, swift) in [
            (json!("string"), "String"),
            (json!("uuid"), "String"),
            (json!("boolean"), "Bool"),
            (json!("int32"), "Int"),
            (json!("int64"), "Int"),
            (json!("double"), "Double"),
            (json!("dateTime"), "Date"),
            (json!("date"), "Date"),
            (json!({"enum": "Priority"}), "PriorityAppEnum"),
            (json!({"array": "string"}), "[String]"),
            (json!({"nullable": "int32"}), "Int?"),
            (json!({"nullable": {"array": "date"}}), "[Date]?"),
        ] {
            let out = export(
                &t,
                &[json!({"id": "f", "parameters": [{"name": "x", "type": ty}]})],
            );
            assert!(
                out.text.contains(&format!("    var x: {swift}\n")),
                "{ty}: {}",
                out.text
            );
            assert!(out.left_out.is_empty());
        }
    }

    #[test]
    fn a_calendar_day_is_sent_as_a_day() {
        let out = one(
            json!([{"name": "due", "type": "date"}, {"name": "at", "type": "dateTime"}]),
            json!("void"),
        );
        assert!(out.text.contains("arguments.set(\"due\", due, as: .day)\n"));
        assert!(out.text.contains("arguments.set(\"at\", at)\n"));
    }

    #[test]
    fn what_app_intents_cannot_take_leaves_the_function_out_saying_why() {
        for (ty, why) in [
            (
                json!({"record": "Note"}),
                "parameter \"x\" is the record Note (App Intents takes no record values",
            ),
            (
                json!({"array": {"record": "Note"}}),
                "parameter \"x\" holds items that the record Note",
            ),
            (
                json!({"array": {"array": "string"}}),
                "parameter \"x\" is an array of arrays",
            ),
            (
                json!({"array": {"nullable": "string"}}),
                "parameter \"x\" is an array with null items",
            ),
        ] {
            let out = one(json!([{"name": "x", "type": ty}]), json!("void"));
            assert_eq!(out.left_out.len(), 1, "{ty}");
            assert!(
                out.left_out[0].reason.starts_with(why),
                "{ty}: {}",
                out.left_out[0].reason
            );
            assert!(out.text.contains(&format!("// - f: {why}")), "{}", out.text);
            assert!(!out.text.contains("struct FIntent"));
        }
        let out = export(&types(), &[json!({"id": "o", "kind": "output"})]);
        assert!(out.left_out[0]
            .reason
            .starts_with("an output function has no handler"));
    }

    #[test]
    fn results_map_to_returned_values_or_json_text() {
        for (result, returns, value) in [
            (
                json!("void"),
                "some IntentResult & ProvidesDialog",
                "return .result(dialog: run.dialog)",
            ),
            (
                json!("string"),
                "ReturnsValue<String>",
                "try run.value(String.self)",
            ),
            (
                json!("int64"),
                "ReturnsValue<Int>",
                "try run.value(Int.self)",
            ),
            (
                json!({"enum": "Priority"}),
                "ReturnsValue<PriorityAppEnum>",
                "try run.value(PriorityAppEnum.self)",
            ),
            (
                json!({"nullable": "boolean"}),
                "ReturnsValue<Bool?>",
                "try run.value(Bool?.self)",
            ),
            (
                json!({"array": "double"}),
                "ReturnsValue<[Double]>",
                "try run.value([Double].self)",
            ),
            (
                json!({"record": "Note"}),
                "ReturnsValue<String>",
                "run.resultText",
            ),
            (
                json!({"nullable": {"array": {"record": "Note"}}}),
                "ReturnsValue<String>",
                "run.resultText",
            ),
        ] {
            let out = one(json!([]), result.clone());
            assert!(out.text.contains(returns), "{result}: {}", out.text);
            assert!(out.text.contains(value), "{result}: {}", out.text);
        }
    }

    #[test]
    fn defaults_are_literals_where_swift_can_write_them_else_the_core_applies_them() {
        let out = one(
            json!([
                {"name": "n", "type": "int32", "default": 1e2},
                {"name": "r", "type": "double", "default": 2},
                {"name": "p", "type": {"enum": "Priority"}, "default": "Normal"},
                {"name": "s", "type": "string", "default": "a\"b"},
                {"name": "at", "type": "dateTime", "default": "2025-06-01T17:00:00Z"},
                {"name": "o", "type": "string", "optional": true}
            ]),
            json!("void"),
        );
        let t = &out.text;
        assert!(
            t.contains("@Parameter(title: \"N\", default: 100)\n    var n: Int\n"),
            "{t}"
        );
        assert!(
            t.contains("@Parameter(title: \"R\", default: 2.0)\n    var r: Double\n"),
            "{t}"
        );
        assert!(
            t.contains("@Parameter(title: \"P\", default: .normal)\n    var p: PriorityAppEnum\n"),
            "{t}"
        );
        assert!(
            t.contains("@Parameter(title: \"S\", default: \"a\\\"b\")\n    var s: String\n"),
            "{t}"
        );
        assert!(
            t.contains("@Parameter(title: \"At\")\n    var at: Date?\n"),
            "{t}"
        );
        assert!(
            t.contains("@Parameter(title: \"O\")\n    var o: String?\n"),
            "{t}"
        );
    }

    #[test]
    fn opens_app_runs_in_the_foreground_else_the_background_may_continue_there() {
        let out = export(
            &types(),
            &[json!({"id": "show", "opensApp": true}), json!({"id": "bg"})],
        );
        let show = &out.text[out.text.find("struct ShowIntent").unwrap()
            ..out.text.find("struct BgIntent").unwrap()];
        assert!(show.contains("static let openAppWhenRun: Bool = true"));
        assert!(show.contains("static var supportedModes: IntentModes { .foreground(.immediate) }"));
        assert!(!show.contains("ForegroundContinuableIntent"));
        let bg = &out.text[out.text.find("struct BgIntent").unwrap()..];
        assert!(bg.contains(
            "static var supportedModes: IntentModes { [.background, .foreground(.dynamic)] }"
        ));
        assert!(!bg.contains("openAppWhenRun"));
        assert!(bg.contains("extension BgIntent: ForegroundContinuableIntent {}"));
    }

    #[test]
    fn texts_are_rendered_and_escaped_and_generated_searches_have_no_intent() {
        let mut t = types();
        t.add_entity(crate::model::descriptor::parse_entity(
            &json!({"name": "order", "title": "Order", "fields": [{"name": "id", "type": "string"}]}), &t).unwrap());
        let search = FunctionDescriptor::entity_search(0, &t.entities[0]);
        let f = FunctionDescriptor::parse(
            &json!({"id": "greet", "title": "Say \"hi\" at {metadata.Shop}", "description": "a\\(b)\n"}),
            &t,
            &ParseContext { metadata_properties: Some(&["Shop".to_string()]), ..Default::default() },
        )
        .unwrap();
        let out = app_intents(&t, [&f, &search], &json!({"Shop": "Acme"}));
        assert!(
            out.text
                .contains("static let title: LocalizedStringResource = \"Say \\\"hi\\\" at Acme\""),
            "{}",
            out.text
        );
        assert!(
            out.text.contains("IntentDescription(\"a\\\\(b)\\n\")"),
            "{}",
            out.text
        );
        assert!(!out.text.contains("SearchOrderIntent"));
        assert!(out
            .text
            .contains("static let appFunctionsSearchFunction = \"search_order\""));
    }

    #[test]
    fn more_than_ten_app_shortcuts_keep_the_first_ten_and_say_so() {
        let fs: Vec<Value> = (0..12)
            .map(|i| json!({"id": format!("f{i}"), "appShortcut": {"phrases": [format!("Run {i} in ${{applicationName}}")]}}))
            .collect();
        let out = export(&types(), &fs);
        assert_eq!(out.text.matches("        AppShortcut(\n").count(), 10);
        assert_eq!(out.notes.len(), 2);
        assert!(out.notes[0]
            .starts_with("f10: its App Shortcut is left out: an app declares at most 10"));
        assert!(out.text.contains("\"Run 0 in \\(.applicationName)\","));
    }
}
