//! The published JSON Schema of the descriptor format
//! (`include/appfunctions.descriptor.schema.json`), generated from these types with
//! schemars. They mirror what `descriptor.rs` and `types.rs` accept; a test keeps the
//! committed file in sync, and another feeds every example descriptor through both.

#![allow(dead_code)]

use schemars::JsonSchema;
use std::collections::BTreeMap;

/// A primitive type name.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
enum Primitive {
    String,
    Boolean,
    Int32,
    Int64,
    Double,
    DateTime,
    Date,
    Uuid,
}

/// A type: a primitive name, or an object with exactly one key.
#[derive(JsonSchema)]
#[serde(untagged)]
enum TypeSpec {
    Primitive(Primitive),
    Compound(Compound),
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
enum Compound {
    /// An array of the given type.
    Array(Box<TypeSpec>),
    /// The given type or null.
    Nullable(Box<TypeSpec>),
    /// A named enum defined with `af_define_types`.
    Enum(String),
    /// A named record defined with `af_define_types`.
    Record(String),
    /// An entity registered with `af_register_entity`: its id as a parameter, the full
    /// entity as a value.
    Entity(String),
}

/// `void` (no result).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
enum Void {
    Void,
}

/// A result type: any type, `void` (the default), or a type with value constraints.
#[derive(JsonSchema)]
#[serde(untagged)]
enum ResultSpec {
    Void(Void),
    Type(TypeSpec),
    Constrained(ResultSlot),
}

/// A result with value constraints: `{"type": T, "minimum": 0, …}`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ResultSlot {
    #[serde(rename = "type")]
    ty: TypeSpec,
    /// Shorthand for `{"nullable": T}`.
    #[serde(default)]
    nullable: bool,
    /// Numbers: the value is at least this (JSON Schema `minimum`; inside the width of an
    /// integer type).
    minimum: Option<serde_json::Number>,
    /// Numbers: the value is greater than this.
    exclusive_minimum: Option<serde_json::Number>,
    /// Numbers: the value is at most this.
    maximum: Option<serde_json::Number>,
    /// Numbers: the value is less than this.
    exclusive_maximum: Option<serde_json::Number>,
    /// Strings: at least this many characters (Unicode code points).
    min_length: Option<u64>,
    /// Strings: at most this many characters (Unicode code points).
    max_length: Option<u64>,
    /// Strings: an ECMA-262 regular expression (u flag) the string must match somewhere;
    /// lookaround, backreferences and `\p{…}` are refused (docs/descriptors.md).
    pattern: Option<String>,
    /// Arrays: at least this many items.
    min_items: Option<u64>,
    /// Arrays: at most this many items.
    max_items: Option<u64>,
    /// Arrays: no two items are equal (numbers by value, objects whatever their key order).
    #[serde(default)]
    unique_items: bool,
}

/// A function parameter.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Parameter {
    /// camelCase: a lowercase letter, then letters and digits.
    #[schemars(regex(pattern = r"^[a-z][A-Za-z0-9]{0,63}$"))]
    name: String,
    #[serde(rename = "type")]
    ty: TypeSpec,
    description: Option<String>,
    /// May be omitted by the caller (the default, if any, is applied).
    #[serde(default)]
    optional: bool,
    /// Shorthand for `{"nullable": T}`. A nullable parameter may be omitted and then binds
    /// as null (so `"optional": false` is refused on it).
    #[serde(default)]
    nullable: bool,
    /// A value of the parameter's type; makes the parameter optional.
    default: Option<serde_json::Value>,
    /// Numbers: the value is at least this (JSON Schema `minimum`; inside the width of an
    /// integer type).
    minimum: Option<serde_json::Number>,
    /// Numbers: the value is greater than this.
    exclusive_minimum: Option<serde_json::Number>,
    /// Numbers: the value is at most this.
    maximum: Option<serde_json::Number>,
    /// Numbers: the value is less than this.
    exclusive_maximum: Option<serde_json::Number>,
    /// Strings: at least this many characters (Unicode code points).
    min_length: Option<u64>,
    /// Strings: at most this many characters (Unicode code points).
    max_length: Option<u64>,
    /// Strings: an ECMA-262 regular expression (u flag) the string must match somewhere;
    /// lookaround, backreferences and `\p{…}` are refused (docs/descriptors.md).
    pattern: Option<String>,
    /// Arrays: at least this many items.
    min_items: Option<u64>,
    /// Arrays: at most this many items.
    max_items: Option<u64>,
    /// Arrays: no two items are equal (numbers by value, objects whatever their key order).
    #[serde(default)]
    unique_items: bool,
}

/// Behaviour hints for MCP tool annotations.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Hints {
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
}

/// Which calling packages may call.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
struct Callers {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
enum Kind {
    /// A handler runs.
    Function,
    /// No handler: the bound arguments are the result and the agent's run ends.
    Output,
}

/// A function descriptor (`af_register_function`).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FunctionDescriptor {
    /// snake_case, unique in the dispatcher.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_]{0,63}$"))]
    id: String,
    /// May hold `{metadata.Name}` placeholders.
    title: Option<String>,
    /// May hold `{metadata.Name}` placeholders.
    description: Option<String>,
    /// The host's original symbol (method name), for diagnostics.
    symbol: Option<String>,
    #[serde(default)]
    parameters: Vec<Parameter>,
    result: Option<ResultSpec>,
    /// On apple, not in the foreground, the call asks to continue in the app.
    #[serde(default)]
    opens_app: bool,
    /// The host's permission hook must approve every call.
    #[serde(default)]
    requires_permission: bool,
    kind: Option<Kind>,
    /// The toolkit (snake_case) the function belongs to, for agent views.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_]{0,63}$"))]
    toolkit: Option<String>,
    /// A visibility condition over metadata properties: names, `!`, `&&`, `||`,
    /// parentheses.
    condition: Option<String>,
    /// Default true; a disabled function answers `Disabled`.
    enabled: Option<bool>,
    #[serde(default)]
    deprecated: bool,
    hints: Option<Hints>,
    callers: Option<Callers>,
    /// The App Shortcut the Swift App Intents export declares for the function.
    app_shortcut: Option<AppShortcut>,
}

/// An App Shortcut: phrases Siri and Spotlight run the function from, with no setup.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AppShortcut {
    /// Each contains the application-name token `${applicationName}` (and no other
    /// `${...}` token); at most 20, no two the same.
    #[schemars(length(min = 1, max = 20))]
    phrases: Vec<ShortcutPhrase>,
    /// The title the Shortcuts app shows (default: the function's title).
    #[schemars(length(min = 1))]
    short_title: Option<String>,
    /// An SF Symbols name (default: `bolt`).
    #[schemars(length(min = 1))]
    system_image_name: Option<String>,
}

/// A phrase that names the app where `${applicationName}` stands.
#[derive(JsonSchema)]
#[schemars(transparent)]
struct ShortcutPhrase(#[schemars(regex(pattern = r"\$\{applicationName\}"))] String);

/// A field of a record or entity.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Field {
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"))]
    name: String,
    #[serde(rename = "type")]
    ty: TypeSpec,
    description: Option<String>,
    #[serde(default)]
    optional: bool,
    /// Shorthand for `{"nullable": T}`. A nullable field may be omitted and then binds as
    /// null (so `"optional": false` is refused on it).
    #[serde(default)]
    nullable: bool,
    /// Numbers: the value is at least this (JSON Schema `minimum`; inside the width of an
    /// integer type).
    minimum: Option<serde_json::Number>,
    /// Numbers: the value is greater than this.
    exclusive_minimum: Option<serde_json::Number>,
    /// Numbers: the value is at most this.
    maximum: Option<serde_json::Number>,
    /// Numbers: the value is less than this.
    exclusive_maximum: Option<serde_json::Number>,
    /// Strings: at least this many characters (Unicode code points).
    min_length: Option<u64>,
    /// Strings: at most this many characters (Unicode code points).
    max_length: Option<u64>,
    /// Strings: an ECMA-262 regular expression (u flag) the string must match somewhere;
    /// lookaround, backreferences and `\p{…}` are refused (docs/descriptors.md).
    pattern: Option<String>,
    /// Arrays: at least this many items.
    min_items: Option<u64>,
    /// Arrays: at most this many items.
    max_items: Option<u64>,
    /// Arrays: no two items are equal (numbers by value, objects whatever their key order).
    #[serde(default)]
    unique_items: bool,
}

/// An enum member: its name, or an object with a description.
#[derive(JsonSchema)]
#[serde(untagged)]
enum Member {
    Name(String),
    Described {
        name: String,
        description: Option<String>,
    },
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
struct EnumDef {
    #[schemars(regex(pattern = r"^[A-Za-z][A-Za-z0-9_]{0,63}$"))]
    name: String,
    description: Option<String>,
    #[schemars(length(min = 1))]
    members: Vec<Member>,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
struct RecordDef {
    #[schemars(regex(pattern = r"^[A-Za-z][A-Za-z0-9_]{0,63}$"))]
    name: String,
    description: Option<String>,
    #[serde(default)]
    fields: Vec<Field>,
}

/// Named types (`af_define_types`).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
struct TypeDefinitions {
    #[serde(default)]
    enums: Vec<EnumDef>,
    #[serde(default)]
    records: Vec<RecordDef>,
}

/// An entity descriptor (`af_register_entity`).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EntityDescriptor {
    /// snake_case; generates `search_{name}`.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_]{0,63}$"))]
    name: String,
    title: Option<String>,
    description: Option<String>,
    /// The field holding the id (a required string); default `id`.
    id_field: Option<String>,
    #[serde(default)]
    fields: Vec<Field>,
}

/// Generates the schema document: the three descriptor kinds under `$defs`, the root
/// accepting any of them.
pub fn descriptor_schema() -> serde_json::Value {
    let mut gen = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let f = gen.subschema_for::<FunctionDescriptor>();
    let e = gen.subschema_for::<EntityDescriptor>();
    let t = gen.subschema_for::<TypeDefinitions>();
    let defs: BTreeMap<String, serde_json::Value> = gen
        .definitions()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://appfunctions.dev/schemas/descriptor.schema.json",
        "title": "appfunctions descriptors",
        "description": "A function descriptor, an entity descriptor or type definitions (docs/descriptors.md).",
        "anyOf": [f, e, t],
        "$defs": defs,
    })
}
