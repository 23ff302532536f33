//! Export formats: the registered functions as tool lists for MCP, OpenAI, Anthropic and
//! Gemini, and as Android's AppFunctions schema XML.
//!
//! Every JSON export ([`tools`]) is the value of the request's `tools` field of that vendor
//! (an array), so a host can splice it into a request unchanged:
//!
//! | [`Format`] | name | shape of one element |
//! |---|---|---|
//! | [`Format::Mcp`] | `mcp` | MCP `Tool` (`name`, `title`, `description`, `inputSchema`, `outputSchema`, `annotations`) — see [`mcp_tool`] |
//! | [`Format::OpenAi`] | `openai` | Responses API function tool `{"type":"function","name","description","parameters","strict"}` |
//! | [`Format::OpenAiChat`] | `openai-chat` | Chat Completions tool `{"type":"function","function":{"name","description","parameters","strict"}}` |
//! | [`Format::Anthropic`] | `anthropic` | Messages API client tool `{"name","description","input_schema"}` |
//! | [`Format::Gemini`] | `gemini` | one `Tool` `{"functionDeclarations":[…]}` holding every function, parameters in the OpenAPI-subset `Schema` |
//! | [`Format::AndroidXml`] | `android-xml` | not a tool list: built from the registry document by [`android_xml()`] |
//! | [`Format::AndroidLegacyXml`], [`Format::AndroidSchema`], [`Format::AndroidManifest`] | `android-legacy-xml`, `android-schema`, `android-manifest` | not tool lists: Android's other assets, checked by [`android_check`] (docs/android.md) |
//! | [`Format::SwiftAppIntents`] | `swift-app-intents` | not a tool list: the App Intents Swift source of the registry (docs/apple.md) |
//!
//! Names are checked against each vendor's documented rule and refused with
//! [`ExportError::InvalidName`] rather than silently rewritten: a rewritten name would not
//! route back to the function when the model calls it.
//!
//! A deprecated function keeps its entry; its model-facing description starts with
//! `"Deprecated. "` (Android XML uses its `<deprecation>` element instead).
//!
//! [`check`] verifies an exported text against the vendor's documented constraints; the
//! tests run every export through it.
//!
//! The formats are written twice, by twins that make the same bytes: `tree` from the
//! JSON Schema trees of a [`ToolSpec`] (the reference, and the answer where the other
//! declines), and `text` straight from the registry's descriptors. This folder sits above
//! the engine and the model: it reads the constraint keywords and the descriptor's
//! [`Hints`] from the model, and the engine knows nothing of formats.

use serde_json::{Map, Value};
use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

pub mod android_check;
mod swift_check;
pub(crate) mod text;
mod tree;

// what the text writers (`text`) write straight from descriptors shares these
pub(crate) use tree::escape_text_into;
pub use tree::gemini_schema;
pub(crate) use tree::AndroidXmlWriter;
pub use tree::{android_xml, android_xml_with, AndroidXmlOptions};
pub(crate) use tree::{format_note, tighter, INT32, INT64};
pub use tree::{mcp_output_schema, mcp_tool, mcp_wraps_result};
pub use tree::{openai_parameters, openai_strict_blocker, OPENAI_STRICT_FORMATS};
pub(crate) use tree::{GEMINI_MAX_INLINED_TYPES, GEMINI_MAX_INLINE_DEPTH};
pub(crate) use tree::{MAX_DEPTH, MAX_PROPERTIES, STRICT_MOVED};

/// One function as the exporters see it.
#[derive(Clone, Copy, Debug)]
pub struct ToolSpec<'a> {
    /// The function id, e.g. `"create_order"`.
    pub name: &'a str,
    /// A short human-readable title.
    pub title: Option<&'a str>,
    /// What the function does; may be empty.
    pub description: &'a str,
    /// JSON Schema 2020-12 of the parameters (an object schema, `$defs` at the root).
    pub input_schema: &'a Value,
    /// JSON Schema 2020-12 of the result value itself (any root type); `None` for void.
    pub output_schema: Option<&'a Value>,
    /// MCP-style behaviour hints.
    pub hints: Hints,
    /// Listed with a flag; still callable.
    pub deprecated: bool,
}

/// Behaviour hints (MCP tool annotations): the descriptor's, as the exports write them.
pub use crate::model::descriptor::Hints;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A function name breaks the format's naming rule.
    #[error("{format}: invalid tool name `{name}`: {reason}")]
    InvalidName {
        /// The format whose rule was broken.
        format: Format,
        /// The offending name.
        name: String,
        /// The rule, e.g. "must be 1-64 characters of [A-Za-z0-9_-]".
        reason: String,
    },
    /// Two functions share a name.
    #[error("{format}: duplicate tool name `{name}`")]
    DuplicateName {
        /// The format being exported.
        format: Format,
        /// The repeated name.
        name: String,
    },
    /// A function's schema is malformed (e.g. the parameters root is not an object).
    #[error("{format}: `{name}`: invalid schema: {reason}")]
    InvalidSchema {
        /// The format being exported.
        format: Format,
        /// The function.
        name: String,
        /// What is wrong and where.
        reason: String,
    },
    /// Something valid that this format cannot express (e.g. a self-referencing record for
    /// Gemini's OpenAPI subset, or `tools()` asked for the XML format).
    #[error("{format}: {subject}: unsupported: {reason}")]
    Unsupported {
        /// The format being exported.
        format: Format,
        /// The function or type concerned.
        subject: String,
        /// Why it cannot be exported.
        reason: String,
    },
    /// The registry document given to [`android_xml()`] is malformed.
    #[error("registry {path}: {reason}")]
    InvalidRegistry {
        /// JSON path inside the registry document, e.g. `functions[2].parameters[0].type`.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A format name that [`Format::from_str`] does not know.
    #[error("unknown export format `{given}`; expected one of: mcp, openai, openai-chat, anthropic, gemini, android-xml, swift-app-intents, android-legacy-xml, android-schema, android-manifest")]
    UnknownFormat {
        /// The name given.
        given: String,
    },
}

/// An export format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// MCP `tools/list` tools array (`mcp`).
    Mcp,
    /// OpenAI Responses API function tools (`openai`).
    OpenAi,
    /// OpenAI Chat Completions function tools (`openai-chat`).
    OpenAiChat,
    /// Anthropic Messages API tools (`anthropic`).
    Anthropic,
    /// Gemini API tools array with one `functionDeclarations` tool (`gemini`).
    Gemini,
    /// Android AppFunctions schema XML (`android-xml`), see [`android_xml()`].
    AndroidXml,
    /// App Intents Swift source (`swift-app-intents`): not a tool list, written from the
    /// registry by `platform::apple::app_intents` (docs/apple.md).
    SwiftAppIntents,
    /// Android's legacy v1 asset `app_functions.xml` (`android-legacy-xml`): every
    /// function's id and whether it is enabled by default.
    AndroidLegacyXml,
    /// Android's document-type schema asset `app_functions_schema.xsd` (`android-schema`).
    AndroidSchema,
    /// The manifest entries of Android's AppFunctions service (`android-manifest`).
    AndroidManifest,
}

impl Format {
    /// Every format, in the order of [`Format::NAMES`].
    pub const ALL: [Format; 10] = [
        Format::Mcp,
        Format::OpenAi,
        Format::OpenAiChat,
        Format::Anthropic,
        Format::Gemini,
        Format::AndroidXml,
        Format::SwiftAppIntents,
        Format::AndroidLegacyXml,
        Format::AndroidSchema,
        Format::AndroidManifest,
    ];
    /// The accepted names, as parsed by [`Format::from_str`].
    pub const NAMES: [&'static str; 10] = [
        "mcp",
        "openai",
        "openai-chat",
        "anthropic",
        "gemini",
        "android-xml",
        "swift-app-intents",
        "android-legacy-xml",
        "android-schema",
        "android-manifest",
    ];

    /// The format's name (`"mcp"`, `"openai"`, …).
    pub fn name(self) -> &'static str {
        match self {
            Format::Mcp => "mcp",
            Format::OpenAi => "openai",
            Format::OpenAiChat => "openai-chat",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::AndroidXml => "android-xml",
            Format::SwiftAppIntents => "swift-app-intents",
            Format::AndroidLegacyXml => "android-legacy-xml",
            Format::AndroidSchema => "android-schema",
            Format::AndroidManifest => "android-manifest",
        }
    }

    /// The file an Android asset format is written to in the APK's `assets/`
    /// (`app_functions_v2.xml`, `app_functions.xml`, `app_functions_schema.xsd`); `None`
    /// for the manifest entries and every other format.
    pub fn android_file(self) -> Option<&'static str> {
        match self {
            Format::AndroidXml => Some(android_check::V2_FILE),
            Format::AndroidLegacyXml => Some(android_check::LEGACY_FILE),
            Format::AndroidSchema => Some(android_check::SCHEMA_FILE),
            _ => None,
        }
    }

    /// True for the formats [`tools`] produces (all but [`Format::AndroidXml`] and
    /// [`Format::SwiftAppIntents`]).
    pub fn is_json(self) -> bool {
        !matches!(
            self,
            Format::AndroidXml
                | Format::SwiftAppIntents
                | Format::AndroidLegacyXml
                | Format::AndroidSchema
                | Format::AndroidManifest
        )
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = ExportError;

    /// Parses `mcp`, `openai`, `openai-chat`, `anthropic`, `gemini`, `android-xml` or
    /// `swift-app-intents`
    /// (ASCII case-insensitive, surrounding whitespace ignored).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| ExportError::UnknownFormat {
                given: s.to_string(),
            })
    }
}

/// The tools array of a JSON format as a [`Value`] (see the module table for the shapes).
pub fn tools_value(format: Format, specs: &[ToolSpec]) -> Result<Value, ExportError> {
    match format {
        Format::Mcp => tree::mcp::tools(specs),
        Format::OpenAi => tree::openai::tools(specs, tree::openai::Api::Responses),
        Format::OpenAiChat => tree::openai::tools(specs, tree::openai::Api::ChatCompletions),
        Format::Anthropic => tree::anthropic::tools(specs),
        Format::Gemini => tree::gemini::tools(specs),
        Format::AndroidXml => Err(ExportError::Unsupported {
            format,
            subject: "tools()".into(),
            reason:
                "the Android schema XML is built from the registry document: call android_xml()"
                    .into(),
        }),
        Format::SwiftAppIntents => Err(ExportError::Unsupported {
            format,
            subject: "tools()".into(),
            reason: "App Intents Swift is written from the registry: export the dispatcher".into(),
        }),
        Format::AndroidLegacyXml | Format::AndroidSchema | Format::AndroidManifest => {
            Err(ExportError::Unsupported {
                format,
                subject: "tools()".into(),
                reason: "Android's assets are written from the registry: export the dispatcher"
                    .into(),
            })
        }
    }
}

/// JSON text (pretty-printed) of the tools array for a JSON format.
///
/// Errors: [`ExportError::InvalidName`] / [`ExportError::DuplicateName`] for names the format
/// refuses, [`ExportError::InvalidSchema`] when a parameters schema is not an object schema,
/// [`ExportError::Unsupported`] for [`Format::AndroidXml`] and for schemas Gemini's subset
/// cannot express.
pub fn tools(format: Format, specs: &[ToolSpec]) -> Result<String, ExportError> {
    let value = tools_value(format, specs)?;
    Ok(serde_json::to_string_pretty(&value).expect("a serde_json::Value always serialises"))
}

/// Verifies that `exported` (the output of [`tools`] or [`android_xml()`]) satisfies the
/// vendor's documented constraints: names, unique names, object parameter roots, no duplicate
/// `"null"` in type arrays; plus OpenAI strict-mode rules where `strict` is true, Gemini's
/// schema subset (no `$ref`, no type arrays, supported formats), MCP's object-rooted
/// `outputSchema`, and for Android well-formed XML with the expected structure.
/// Returns the first violation found.
pub fn check(format: Format, exported: &str) -> Result<(), String> {
    if format == Format::AndroidXml {
        return tree::android_xml::check(exported);
    }
    if format == Format::SwiftAppIntents {
        return swift_check::check(exported);
    }
    match format {
        Format::AndroidLegacyXml => return android_check::check_legacy(exported),
        Format::AndroidSchema => return android_check::parse_schema(exported).map(|_| ()),
        Format::AndroidManifest => return android_check::check_manifest(exported),
        _ => {}
    }
    let value: Value =
        serde_json::from_str(exported).map_err(|e| format!("not valid JSON: {e}"))?;
    let tools = value.as_array().ok_or_else(|| {
        "the export must be a JSON array (the request's `tools` value)".to_string()
    })?;
    match format {
        Format::Mcp => tree::mcp::check(tools),
        Format::OpenAi => tree::openai::check(tools, tree::openai::Api::Responses),
        Format::OpenAiChat => tree::openai::check(tools, tree::openai::Api::ChatCompletions),
        Format::Anthropic => tree::anthropic::check(tools),
        Format::Gemini => tree::gemini::check(tools),
        _ => unreachable!("the other formats returned above"),
    }
}

// ---------------------------------------------------------------------------------------
// Helpers shared by the formats.
// ---------------------------------------------------------------------------------------

/// A naming rule: allowed characters, optional first-character rule, maximum length.
pub(crate) struct NameRule {
    pub max: usize,
    pub allowed: fn(char) -> bool,
    pub first: Option<fn(char) -> bool>,
    /// Human-readable form, used in errors.
    pub text: &'static str,
}

impl NameRule {
    pub(crate) fn violation(&self, name: &str) -> Option<String> {
        let len = name.chars().count();
        if len == 0 || len > self.max {
            return Some(format!("{} (it has {len} characters)", self.text));
        }
        if let Some(bad) = name.chars().find(|c| !(self.allowed)(*c)) {
            return Some(format!("{} (found {bad:?})", self.text));
        }
        if let Some(first) = self.first {
            if !name.chars().next().is_some_and(first) {
                return Some(self.text.to_string());
            }
        }
        None
    }

    pub(crate) fn check(&self, format: Format, name: &str) -> Result<(), ExportError> {
        match self.violation(name) {
            None => Ok(()),
            Some(reason) => Err(ExportError::InvalidName {
                format,
                name: name.into(),
                reason,
            }),
        }
    }
}

/// The naming rule of a JSON format (`None` for Android XML).
pub(crate) fn name_rule(format: Format) -> Option<&'static NameRule> {
    match format {
        Format::Mcp => Some(&tree::mcp::NAME_RULE),
        Format::OpenAi | Format::OpenAiChat => Some(&tree::openai::NAME_RULE),
        Format::Anthropic => Some(&tree::anthropic::NAME_RULE),
        Format::Gemini => Some(&tree::gemini::NAME_RULE),
        _ => None,
    }
}

/// Checks every name against `rule` and for uniqueness.
pub(crate) fn check_names(
    format: Format,
    specs: &[ToolSpec],
    rule: &NameRule,
) -> Result<(), ExportError> {
    let mut seen = HashSet::new();
    for spec in specs {
        rule.check(format, spec.name)?;
        if !seen.insert(spec.name) {
            return Err(ExportError::DuplicateName {
                format,
                name: spec.name.into(),
            });
        }
    }
    Ok(())
}

/// The same checks over exported names (for [`check`]).
pub(crate) fn check_exported_names<'v>(
    names: impl IntoIterator<Item = Option<&'v str>>,
    rule: &NameRule,
) -> Result<(), String> {
    let mut seen = HashSet::new();
    for (i, name) in names.into_iter().enumerate() {
        let name = name.ok_or_else(|| format!("tool {i}: missing string `name`"))?;
        if let Some(v) = rule.violation(name) {
            return Err(format!("tool {i}: name `{name}`: {v}"));
        }
        if !seen.insert(name) {
            return Err(format!("tool {i}: duplicate name `{name}`"));
        }
    }
    Ok(())
}

pub(crate) fn ascii_word_dash(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The description shown to models: the description, else the title, prefixed with
/// `"Deprecated. "` for deprecated functions.
pub(crate) fn model_description(spec: &ToolSpec) -> String {
    let base = if spec.description.trim().is_empty() {
        spec.title.unwrap_or("").trim()
    } else {
        spec.description
    };
    match (spec.deprecated, base.is_empty()) {
        (false, _) => base.to_string(),
        (true, true) => "Deprecated.".to_string(),
        (true, false) => format!("Deprecated. {base}"),
    }
}

/// Appends a sentence to a schema node's description (creating it when absent).
pub(crate) fn append_note(out: &mut Map<String, Value>, note: &str) {
    out.insert(
        "description".into(),
        Value::String(with_note(
            out.get("description").and_then(Value::as_str),
            note,
        )),
    );
}

/// `text` followed by the sentence `note` (a full stop added between them when needed).
pub(crate) fn with_note(text: Option<&str>, note: &str) -> String {
    match text {
        Some(d) if !d.trim().is_empty() => {
            let d = d.trim_end();
            if d.ends_with(['.', '!', '?']) {
                format!("{d} {note}")
            } else {
                format!("{d}. {note}")
            }
        }
        _ => note.to_string(),
    }
}

/// The sentence stating one constraint keyword, for formats that cannot carry the keyword
/// itself: `"At least 1."`, `"At most 10 characters."`, `"Items must be unique."`.
pub(crate) fn constraint_note(key: &str, v: &Value) -> Option<String> {
    let n = || v.as_u64().unwrap_or(0);
    let s = |one: &str, many: &str| {
        if n() == 1 {
            one.to_string()
        } else {
            many.to_string()
        }
    };
    Some(match key {
        "minimum" => format!("At least {v}."),
        "exclusiveMinimum" => format!("Greater than {v}."),
        "maximum" => format!("At most {v}."),
        "exclusiveMaximum" => format!("Less than {v}."),
        "minLength" => format!("At least {} {}.", n(), s("character", "characters")),
        "maxLength" => format!("At most {} {}.", n(), s("character", "characters")),
        "pattern" => format!("Must match the regular expression {}.", v.as_str()?),
        "minItems" => format!("At least {} {}.", n(), s("item", "items")),
        "maxItems" => format!("At most {} {}.", n(), s("item", "items")),
        "uniqueItems" if v == &Value::Bool(true) => "Items must be unique.".to_string(),
        _ => return None,
    })
}

/// Moves the keywords `keys` of one schema node into its description as sentences.
pub(crate) fn move_to_description(map: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(v) = map.shift_remove(*key) {
            if let Some(note) = constraint_note(key, &v) {
                append_note(map, &note);
            }
        }
    }
}

/// Ensures the parameters schema has an object root.
pub(crate) fn require_object_root(format: Format, spec: &ToolSpec) -> Result<(), ExportError> {
    match spec.input_schema.get("type") {
        Some(Value::String(t)) if t == "object" => Ok(()),
        _ => Err(ExportError::InvalidSchema {
            format,
            name: spec.name.into(),
            reason: "the parameters schema must have `\"type\": \"object\"` at its root".into(),
        }),
    }
}

/// Removes repeated entries from every `type` array in the schema (`["string","null","null"]`
/// → `["string","null"]`): the same meaning, and strict validators refuse the repetition.
pub(crate) fn dedupe_type_arrays(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                let mut seen = Vec::<Value>::new();
                types.retain(|t| {
                    if seen.contains(t) {
                        false
                    } else {
                        seen.push(t.clone());
                        true
                    }
                });
            }
            for (key, v) in map.iter_mut() {
                if !is_annotation_value(key) {
                    dedupe_type_arrays(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(dedupe_type_arrays),
        _ => {}
    }
}

/// Keywords whose values are data, not subschemas (never walked as schemas).
pub(crate) fn is_annotation_value(key: &str) -> bool {
    matches!(
        key,
        "default" | "const" | "enum" | "examples" | "example" | "required"
    )
}

/// Finds a `type` array with a repeated entry anywhere in the schema; returns its path.
pub(crate) fn find_duplicate_type(schema: &Value, path: &str) -> Option<String> {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get("type") {
                for (i, t) in types.iter().enumerate() {
                    if types[..i].contains(t) {
                        return Some(format!("{path}.type repeats {t}"));
                    }
                }
            }
            map.iter()
                .filter(|(k, _)| !is_annotation_value(k))
                .find_map(|(k, v)| find_duplicate_type(v, &format!("{path}.{k}")))
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| find_duplicate_type(v, &format!("{path}[{i}]"))),
        _ => None,
    }
}

/// `#/$defs/Name` or `#/definitions/Name` → `Name` (with JSON-pointer unescaping).
pub(crate) fn local_def_name(reference: &str) -> Option<String> {
    let rest = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))?;
    if rest.contains('/') {
        return None;
    }
    Some(rest.replace("~1", "/").replace("~0", "~"))
}

/// The root's definitions (`$defs`, falling back to `definitions`), or an empty map.
pub(crate) fn root_defs(root: &Value) -> Map<String, Value> {
    let mut defs = Map::new();
    for key in ["definitions", "$defs"] {
        if let Some(Value::Object(m)) = root.get(key) {
            for (k, v) in m {
                defs.insert(k.clone(), v.clone());
            }
        }
    }
    defs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
            assert_eq!(f.to_string(), f.name());
        }
        assert_eq!(
            Format::NAMES.map(str::to_string),
            Format::ALL.map(|f| f.name().to_string())
        );
        assert_eq!(" OpenAI ".parse::<Format>().unwrap(), Format::OpenAi);
    }

    #[test]
    fn unknown_format_lists_accepted_names() {
        let err = "claude".parse::<Format>().unwrap_err().to_string();
        assert!(err.contains("`claude`"), "{err}");
        for name in Format::NAMES {
            assert!(err.contains(name), "{err} lacks {name}");
        }
    }

    #[test]
    fn tools_refuses_android_xml() {
        let err = tools(Format::AndroidXml, &[]).unwrap_err();
        assert!(matches!(err, ExportError::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("android_xml()"));
    }

    #[test]
    fn empty_tool_lists_are_valid() {
        for f in Format::ALL.into_iter().filter(|f| f.is_json()) {
            let text = tools(f, &[]).unwrap();
            check(f, &text).unwrap();
            assert_eq!(
                serde_json::from_str::<Value>(&text).unwrap(),
                serde_json::json!([])
            );
        }
    }

    #[test]
    fn every_fixture_exports_and_checks_in_every_json_format() {
        let fx = tree::fixtures::Fixtures::new();
        for f in Format::ALL.into_iter().filter(|f| f.is_json()) {
            let specs: Vec<ToolSpec> = fx
                .specs()
                .into_iter()
                .filter(|s| !(f == Format::Gemini && s.name == "walk_tree"))
                .collect();
            let text = tools(f, &specs).unwrap_or_else(|e| panic!("{f}: {e}"));
            check(f, &text).unwrap_or_else(|e| panic!("{f}: {e}\n{text}"));
        }
    }

    #[test]
    fn duplicate_nulls_are_never_exported() {
        let fx = tree::fixtures::Fixtures::new();
        let spec = fx.spec_with_duplicate_null();
        for f in Format::ALL.into_iter().filter(|f| f.is_json()) {
            let text = tools(f, &[spec]).unwrap();
            let v: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(find_duplicate_type(&v, "$"), None, "{f}: {text}");
            check(f, &text).unwrap();
        }
    }

    #[test]
    fn check_catches_duplicate_null() {
        let bad = r#"[{"name":"x","inputSchema":{"type":"object","properties":{"p":{"type":["string","null","null"]}}}}]"#;
        let err = check(Format::Mcp, bad).unwrap_err();
        assert!(err.contains("repeats"), "{err}");
    }

    #[test]
    fn duplicate_names_are_refused() {
        let fx = tree::fixtures::Fixtures::new();
        let a = fx.specs()[0];
        for f in Format::ALL.into_iter().filter(|f| f.is_json()) {
            let err = tools(f, &[a, a]).unwrap_err();
            assert!(
                matches!(err, ExportError::DuplicateName { .. }),
                "{f}: {err}"
            );
        }
    }

    #[test]
    fn non_object_parameter_roots_are_refused() {
        let schema = serde_json::json!({"type": "string"});
        let spec = ToolSpec {
            name: "f",
            title: None,
            description: "",
            input_schema: &schema,
            output_schema: None,
            hints: Hints::default(),
            deprecated: false,
        };
        for f in Format::ALL.into_iter().filter(|f| f.is_json()) {
            let err = tools(f, &[spec]).unwrap_err();
            assert!(
                matches!(err, ExportError::InvalidSchema { .. }),
                "{f}: {err}"
            );
        }
    }

    #[test]
    fn deprecated_descriptions_are_marked() {
        let fx = tree::fixtures::Fixtures::new();
        let mut spec = fx.specs()[0];
        spec.deprecated = true;
        assert!(model_description(&spec).starts_with("Deprecated. "));
        spec.description = "";
        spec.title = None;
        assert_eq!(model_description(&spec), "Deprecated.");
    }
}
