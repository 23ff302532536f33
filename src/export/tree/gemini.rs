//! Gemini function declarations.
//!
//! The export is the request's `tools` array holding one `Tool`:
//! `[{"functionDeclarations":[{"name","description","parameters"}, …]}]` (an empty input
//! gives `[]`).
//!
//! Gemini accepts parameters in two mutually exclusive fields: `parametersJsonSchema` (JSON
//! Schema, newer API versions) and `parameters`, a select subset of the OpenAPI 3.0 `Schema`
//! object accepted by every Gemini API and Vertex AI version. For broad compatibility this
//! exporter writes `parameters` in that subset ([`gemini_schema`]):
//! * `$ref`s are inlined (there are no references); a record that refers to itself, directly
//!   or through other types, cannot be inlined and is refused with
//!   [`ExportError::Unsupported`] naming the record, and so is a declaration that would nest
//!   named types more than [`GEMINI_MAX_INLINE_DEPTH`] deep or inline more than
//!   [`GEMINI_MAX_INLINED_TYPES`] of them (a record with two fields of the next record, 30 levels
//!   down, would inline 2^30);
//! * nullability becomes `"nullable": true` (from `["T","null"]` type arrays, `anyOf`/`oneOf`
//!   with a `{"type":"null"}` branch, or `null` in `enum`); `null` is never kept in `enum`;
//! * type names are the upper-case `Type` enum names of the API reference (`STRING`,
//!   `INTEGER`, `NUMBER`, `BOOLEAN`, `ARRAY`, `OBJECT`);
//! * `format` is kept only where Gemini documents it: `date-time` and `enum` on `STRING`,
//!   `int32`/`int64` on `INTEGER`, `float`/`double` on `NUMBER`. Other string formats
//!   (`date`, `uuid`, …) are dropped and stated in the description instead
//!   (e.g. "Format: date (YYYY-MM-DD).");
//! * integer bounds equal to the int32/int64 ranges become `format: int32`/`int64`; other
//!   `minimum`/`maximum` values are kept; `minItems`/`maxItems` are kept;
//! * `default` is dropped and stated in the description ("Default: \"Normal\".");
//! * `$schema`, `$defs`, `additionalProperties`, `title` and other keywords outside the subset
//!   are dropped; unions of several non-null types, `allOf` of several schemas and `not` are
//!   refused as unsupported.
//!
//! A function without parameters has no `parameters` field (Gemini refuses an `OBJECT` with
//! empty `properties`); for the same reason a nested record without fields is refused.
//! `description` is always written (older API versions require it), the title standing in for
//! an empty description.
//!
//! Names: start with a letter or `_`, then `[A-Za-z0-9_.-]`, at most 64 characters (the
//! intersection of the Gemini API and Vertex AI rules; colons, allowed by the Gemini API only,
//! are refused).

use crate::export::{
    append_note, check_exported_names, check_names, constraint_note, local_def_name,
    model_description, require_object_root, root_defs, with_note, ExportError, Format, NameRule,
    ToolSpec,
};
use serde_json::{json, Map, Value};

pub(crate) const NAME_RULE: NameRule = NameRule {
    max: 64,
    allowed: |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'),
    first: Some(|c| c.is_ascii_alphabetic() || c == '_'),
    text: "Gemini function names must start with a letter or underscore and be at most 64 characters of [A-Za-z0-9_.-]",
};

/// How deep a declaration may nest inlined named types (records inside records).
pub(crate) const GEMINI_MAX_INLINE_DEPTH: usize = 32;
/// How many named types one declaration may inline, each repeat counted.
pub(crate) const GEMINI_MAX_INLINED_TYPES: usize = 1000;

pub(crate) const INT32: (i64, i64) = (i32::MIN as i64, i32::MAX as i64);
pub(crate) const INT64: (i64, i64) = (i64::MIN, i64::MAX);

/// A conversion failure: what (a path or a record) and why.
struct Unsupported {
    subject: String,
    reason: String,
}

fn unsupported(subject: impl Into<String>, reason: impl Into<String>) -> Unsupported {
    Unsupported {
        subject: subject.into(),
        reason: reason.into(),
    }
}

/// Converts a JSON Schema (2020-12, as the core emits it) into Gemini's OpenAPI-subset
/// `Schema` (see the module documentation). Errors are [`ExportError::Unsupported`].
pub fn gemini_schema(schema: &Value) -> Result<Value, ExportError> {
    convert_root(schema).map_err(|u| ExportError::Unsupported {
        format: Format::Gemini,
        subject: u.subject,
        reason: u.reason,
    })
}

fn convert_root(schema: &Value) -> Result<Value, Unsupported> {
    let defs = root_defs(schema);
    let mut ctx = Ctx {
        defs: &defs,
        stack: Vec::new(),
        inlined: 0,
    };
    ctx.convert(schema, "$")
}

struct Ctx<'a> {
    defs: &'a Map<String, Value>,
    /// Definitions being inlined (to detect self reference).
    stack: Vec<String>,
    /// Definitions inlined so far, each repeat counted.
    inlined: usize,
}

fn is_null_schema(s: &Value) -> bool {
    s.get("type").and_then(Value::as_str) == Some("null")
        || s.get("enum") == Some(&json!([null]))
        || s.get("const") == Some(&Value::Null)
}

/// Applies the annotations written next to a `$ref`/`anyOf` (description, default) on the
/// converted target.
fn apply_siblings(out: &mut Value, node: &Map<String, Value>) {
    let Value::Object(out) = out else { return };
    if let Some(Value::String(d)) = node.get("description") {
        if !d.trim().is_empty() {
            // an enum keeps its own description (its members' meanings) after the sibling's
            let text = match out.get("description").and_then(Value::as_str) {
                Some(own) if out.contains_key("enum") => with_note(Some(d), own),
                _ => d.clone(),
            };
            out.insert("description".into(), json!(text));
        }
    }
    if let Some(d) = node.get("default") {
        if !d.is_null() {
            append_note(out, &format!("Default: {d}."));
        }
    }
}

impl Ctx<'_> {
    fn convert(&mut self, node: &Value, path: &str) -> Result<Value, Unsupported> {
        let map = match node {
            Value::Object(m) => m,
            _ => {
                return Err(unsupported(
                    path,
                    "boolean schemas have no Gemini equivalent",
                ))
            }
        };
        for key in [
            "not",
            "if",
            "then",
            "else",
            "patternProperties",
            "prefixItems",
        ] {
            if map.contains_key(key) {
                return Err(unsupported(
                    path,
                    format!("`{key}` has no Gemini equivalent"),
                ));
            }
        }
        if let Some(r) = map.get("$ref") {
            let r = r.as_str().unwrap_or_default();
            let name = local_def_name(r).ok_or_else(|| {
                unsupported(
                    path,
                    format!("`$ref` {r:?} is not a local #/$defs reference"),
                )
            })?;
            if self.stack.contains(&name) {
                return Err(unsupported(
                    format!("record `{name}`"),
                    "it refers to itself (directly or through other types); Gemini's schema subset has no references, so it cannot be inlined",
                ));
            }
            let def = self.defs.get(&name).ok_or_else(|| {
                unsupported(path, format!("`$ref` to unknown definition `{name}`"))
            })?;
            if self.stack.len() >= GEMINI_MAX_INLINE_DEPTH {
                return Err(unsupported(
                    format!("record `{name}`"),
                    format!("it is nested more than {GEMINI_MAX_INLINE_DEPTH} named types deep; Gemini's schema subset has no references, and a declaration inlines at most {GEMINI_MAX_INLINE_DEPTH} levels"),
                ));
            }
            self.inlined += 1;
            if self.inlined > GEMINI_MAX_INLINED_TYPES {
                return Err(unsupported(
                    format!("record `{name}`"),
                    format!("the declaration would inline more than {GEMINI_MAX_INLINED_TYPES} named types (each use of a type is inlined again: Gemini's schema subset has no references)"),
                ));
            }
            self.stack.push(name.clone());
            let mut out = self.convert(def, &format!("$defs.{name}"))?;
            self.stack.pop();
            apply_siblings(&mut out, map);
            return Ok(out);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            let Some(branches) = map.get(key) else {
                continue;
            };
            let branches = branches
                .as_array()
                .ok_or_else(|| unsupported(path, format!("`{key}` must be an array")))?;
            let (nulls, others): (Vec<&Value>, Vec<&Value>) =
                branches.iter().partition(|b| is_null_schema(b));
            if others.len() != 1 || (key == "allOf" && !nulls.is_empty()) {
                return Err(unsupported(
                    path,
                    format!("`{key}` of several types has no Gemini equivalent (only T-or-null is supported)"),
                ));
            }
            let mut out = self.convert(others[0], &format!("{path}.{key}"))?;
            if !nulls.is_empty() {
                if let Value::Object(o) = &mut out {
                    o.insert("nullable".into(), json!(true));
                }
            }
            apply_siblings(&mut out, map);
            return Ok(out);
        }
        self.convert_typed(map, path)
    }

    fn convert_typed(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
    ) -> Result<Value, Unsupported> {
        let mut nullable = false;
        let ty: String = match map.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(types)) => {
                let non_null: Vec<&str> = types
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect();
                nullable = non_null.len() < types.len();
                match non_null.as_slice() {
                    [one] => one.to_string(),
                    _ => {
                        return Err(unsupported(
                            path,
                            format!("type {types:?} is not a single type (or that type and null)"),
                        ))
                    }
                }
            }
            Some(other) => return Err(unsupported(path, format!("bad `type` {other}"))),
            None => {
                let strings = |v: &Value| {
                    v.as_array()
                        .is_some_and(|a| a.iter().all(|x| x.is_string() || x.is_null()))
                };
                if map.get("enum").is_some_and(strings)
                    || map.get("const").is_some_and(Value::is_string)
                {
                    "string".into()
                } else if map.contains_key("properties") {
                    "object".into()
                } else if map.contains_key("items") {
                    "array".into()
                } else {
                    return Err(unsupported(
                        path,
                        "a schema without a type has no Gemini equivalent",
                    ));
                }
            }
        };
        let gemini_type = match ty.as_str() {
            "string" => "STRING",
            "integer" => "INTEGER",
            "number" => "NUMBER",
            "boolean" => "BOOLEAN",
            "array" => "ARRAY",
            "object" => "OBJECT",
            "null" => {
                return Err(unsupported(
                    path,
                    "a null-only type has no Gemini equivalent",
                ))
            }
            other => return Err(unsupported(path, format!("unknown type `{other}`"))),
        };
        let mut out = Map::new();
        out.insert("type".into(), json!(gemini_type));
        if let Some(Value::String(d)) = map.get("description") {
            if !d.is_empty() {
                out.insert("description".into(), json!(d));
            }
        }
        // enum / const
        let mut values: Option<Vec<Value>> = match (map.get("enum"), map.get("const")) {
            (Some(Value::Array(v)), _) => Some(v.clone()),
            (None, Some(c)) => Some(vec![c.clone()]),
            (Some(other), _) => return Err(unsupported(path, format!("bad `enum` {other}"))),
            (None, None) => None,
        };
        if let Some(v) = &mut values {
            if v.contains(&Value::Null) {
                nullable = true;
                v.retain(|x| !x.is_null());
            }
            if gemini_type != "STRING" || !v.iter().all(Value::is_string) {
                return Err(unsupported(
                    path,
                    "Gemini enums hold strings on a STRING type only",
                ));
            }
            out.insert("enum".into(), Value::Array(v.clone()));
        }
        if nullable {
            out.insert("nullable".into(), json!(true));
        }
        // format
        if let Some(Value::String(f)) = map.get("format") {
            let kept = matches!(
                (gemini_type, f.as_str()),
                ("STRING", "date-time" | "enum")
                    | ("INTEGER", "int32" | "int64")
                    | ("NUMBER", "float" | "double")
            );
            if kept {
                out.insert("format".into(), json!(f));
            } else {
                append_note(&mut out, &format_note(f));
            }
        }
        // numeric bounds: Gemini has minimum and maximum only. On an INTEGER an exclusive
        // bound becomes the inclusive one it means (> 0 is >= 1); on a NUMBER it is stated
        // in the description.
        if matches!(gemini_type, "INTEGER" | "NUMBER") {
            let integer = gemini_type == "INTEGER";
            let mut min = map.get("minimum").cloned();
            let mut max = map.get("maximum").cloned();
            let mut notes = Vec::new();
            if let Some(x) = map.get("exclusiveMinimum") {
                match (integer, x.as_f64()) {
                    (true, Some(f)) => min = tighter(min, f.floor() + 1.0, true),
                    _ => notes.extend(constraint_note("exclusiveMinimum", x)),
                }
            }
            if let Some(x) = map.get("exclusiveMaximum") {
                match (integer, x.as_f64()) {
                    (true, Some(f)) => max = tighter(max, f.ceil() - 1.0, false),
                    _ => notes.extend(constraint_note("exclusiveMaximum", x)),
                }
            }
            let bounds = (
                min.as_ref().and_then(Value::as_i64),
                max.as_ref().and_then(Value::as_i64),
            );
            let width = match bounds {
                (Some(lo), Some(hi)) if integer && (lo, hi) == INT32 => Some("int32"),
                (Some(lo), Some(hi)) if integer && (lo, hi) == INT64 => Some("int64"),
                _ => None,
            };
            match width {
                Some(w) if !out.contains_key("format") => {
                    out.insert("format".into(), json!(w));
                }
                Some(_) => {}
                None => {
                    for (key, v) in [("minimum", min), ("maximum", max)] {
                        if let Some(v) = v {
                            out.insert(key.into(), v);
                        }
                    }
                }
            }
            for note in notes {
                append_note(&mut out, &note);
            }
        }
        if gemini_type == "STRING" {
            for key in ["minLength", "maxLength", "pattern"] {
                if let Some(v) = map.get(key) {
                    out.insert(key.into(), v.clone());
                }
            }
        }
        match gemini_type {
            "ARRAY" => {
                let items = map.get("items").ok_or_else(|| {
                    unsupported(path, "an array without `items` has no Gemini equivalent")
                })?;
                out.insert(
                    "items".into(),
                    self.convert(items, &format!("{path}.items"))?,
                );
                for key in ["minItems", "maxItems"] {
                    if let Some(v) = map.get(key) {
                        out.insert(key.into(), v.clone());
                    }
                }
                if let Some(note) = map
                    .get("uniqueItems")
                    .and_then(|v| constraint_note("uniqueItems", v))
                {
                    append_note(&mut out, &note);
                }
            }
            "OBJECT" => {
                let props = match map.get("properties") {
                    Some(Value::Object(p)) if !p.is_empty() => p,
                    _ => {
                        return Err(unsupported(
                            path,
                            "an object without properties is refused by Gemini (`properties` must be non-empty for OBJECT)",
                        ))
                    }
                };
                let mut converted = Map::new();
                for (name, prop) in props {
                    converted.insert(
                        name.clone(),
                        self.convert(prop, &format!("{path}.properties.{name}"))?,
                    );
                }
                out.insert("properties".into(), Value::Object(converted));
                if let Some(Value::Array(req)) = map.get("required") {
                    let req: Vec<Value> = req
                        .iter()
                        .filter(|r| r.as_str().is_some_and(|r| props.contains_key(r)))
                        .cloned()
                        .collect();
                    if !req.is_empty() {
                        out.insert("required".into(), Value::Array(req));
                    }
                }
            }
            _ => {}
        }
        if let Some(d) = map.get("default") {
            if !d.is_null() {
                append_note(&mut out, &format!("Default: {d}."));
            }
        }
        Ok(Value::Object(out))
    }
}

pub(crate) fn tools(specs: &[ToolSpec]) -> Result<Value, ExportError> {
    check_names(Format::Gemini, specs, &NAME_RULE)?;
    if specs.is_empty() {
        return Ok(json!([]));
    }
    let mut declarations = Vec::with_capacity(specs.len());
    for spec in specs {
        require_object_root(Format::Gemini, spec)?;
        let mut decl = Map::new();
        decl.insert("name".into(), json!(spec.name));
        decl.insert("description".into(), json!(model_description(spec)));
        let has_params = spec
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if has_params {
            let params = convert_root(spec.input_schema).map_err(|u| ExportError::Unsupported {
                format: Format::Gemini,
                subject: format!("`{}`: {}", spec.name, u.subject),
                reason: u.reason,
            })?;
            decl.insert("parameters".into(), params);
        }
        declarations.push(Value::Object(decl));
    }
    Ok(json!([{ "functionDeclarations": declarations }]))
}

/// The sentence that states a string format Gemini does not keep.
pub(crate) fn format_note(format: &str) -> String {
    match format {
        "date" => "Format: date (YYYY-MM-DD).".to_string(),
        "uuid" => "Format: UUID (8-4-4-4-12 hex digits).".to_string(),
        "time" => "Format: time (HH:MM:SS).".to_string(),
        other => format!("Format: {other}."),
    }
}

/// The tighter of an inclusive bound and the one an exclusive bound means on integers.
pub(crate) fn tighter(
    bound: Option<Value>,
    exclusive_as_inclusive: f64,
    lower: bool,
) -> Option<Value> {
    let e = exclusive_as_inclusive;
    let as_value = || {
        if e.abs() < 9.0e15 {
            json!(e as i64)
        } else {
            json!(e)
        }
    };
    match bound.as_ref().and_then(Value::as_f64) {
        Some(b) if (lower && b >= e) || (!lower && b <= e) => bound,
        _ => Some(as_value()),
    }
}

const SCHEMA_KEYS: [&str; 15] = [
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "properties",
    "required",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
];

fn check_schema(s: &Value, path: &str) -> Result<(), String> {
    let map = s
        .as_object()
        .ok_or_else(|| format!("{path}: a schema must be an object"))?;
    if let Some(k) = map.keys().find(|k| !SCHEMA_KEYS.contains(&k.as_str())) {
        return Err(format!("{path}: `{k}` is not in Gemini's schema subset"));
    }
    let ty = map
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{path}: `type` must be a single type name"))?;
    let upper = ty.to_ascii_uppercase();
    if !["STRING", "INTEGER", "NUMBER", "BOOLEAN", "ARRAY", "OBJECT"].contains(&upper.as_str()) {
        return Err(format!("{path}: unknown type `{ty}`"));
    }
    if map.get("nullable").is_some_and(|n| !n.is_boolean()) {
        return Err(format!("{path}: `nullable` must be a boolean"));
    }
    if let Some(f) = map.get("format") {
        let ok = matches!(
            (upper.as_str(), f.as_str().unwrap_or_default()),
            ("STRING", "date-time" | "enum")
                | ("INTEGER", "int32" | "int64")
                | ("NUMBER", "float" | "double")
        );
        if !ok {
            return Err(format!("{path}: format {f} is not supported on {upper}"));
        }
    }
    if let Some(e) = map.get("enum") {
        let ok = upper == "STRING"
            && e.as_array()
                .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string));
        if !ok {
            return Err(format!(
                "{path}: `enum` must be a non-empty list of strings on STRING"
            ));
        }
    }
    match upper.as_str() {
        "ARRAY" => {
            let items = map
                .get("items")
                .ok_or_else(|| format!("{path}: ARRAY needs `items`"))?;
            check_schema(items, &format!("{path}.items"))?;
        }
        "OBJECT" => {
            let props = map
                .get("properties")
                .and_then(Value::as_object)
                .filter(|p| !p.is_empty())
                .ok_or_else(|| format!("{path}: OBJECT needs non-empty `properties`"))?;
            for (k, v) in props {
                check_schema(v, &format!("{path}.properties.{k}"))?;
            }
            if let Some(req) = map.get("required") {
                let req = req
                    .as_array()
                    .ok_or_else(|| format!("{path}: `required` must be an array"))?;
                if let Some(r) = req
                    .iter()
                    .find(|r| !r.as_str().is_some_and(|r| props.contains_key(r)))
                {
                    return Err(format!("{path}: required {r} is not a property"));
                }
            }
        }
        _ => {
            if map.contains_key("properties") || map.contains_key("items") {
                return Err(format!("{path}: `properties`/`items` on a {upper}"));
            }
        }
    }
    Ok(())
}

pub(crate) fn check(tools: &[Value]) -> Result<(), String> {
    let mut decls = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        let d = tool
            .get("functionDeclarations")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("tool {i}: needs a `functionDeclarations` array"))?;
        decls.extend(d.iter());
    }
    check_exported_names(
        decls.iter().map(|d| d.get("name").and_then(Value::as_str)),
        &NAME_RULE,
    )?;
    for (i, decl) in decls.iter().enumerate() {
        let obj = decl
            .as_object()
            .ok_or_else(|| format!("declaration {i}: not an object"))?;
        if let Some(k) = obj.keys().find(|k| {
            !matches!(
                k.as_str(),
                "name" | "description" | "parameters" | "response"
            )
        }) {
            return Err(format!("declaration {i}: unexpected field `{k}`"));
        }
        if obj.get("description").is_some_and(|d| !d.is_string()) {
            return Err(format!("declaration {i}: `description` must be a string"));
        }
        if let Some(p) = obj.get("parameters") {
            if p.get("type")
                .and_then(Value::as_str)
                .map(str::to_ascii_uppercase)
                .as_deref()
                != Some("OBJECT")
            {
                return Err(format!("declaration {i}: parameters must be an OBJECT"));
            }
            check_schema(p, &format!("declarations[{i}].parameters"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tools as export;
    use crate::export::tree::fixtures::Fixtures;

    fn declarations(text: &str) -> Vec<Value> {
        let v: Value = serde_json::from_str(text).unwrap();
        v[0]["functionDeclarations"].as_array().unwrap().clone()
    }

    #[test]
    fn create_order_in_the_openapi_subset() {
        let fx = Fixtures::new();
        let text = export(Format::Gemini, &[fx.create_order()]).unwrap();
        check(
            serde_json::from_str::<Value>(&text)
                .unwrap()
                .as_array()
                .unwrap(),
        )
        .unwrap();
        assert!(!text.contains("$ref") && !text.contains("$defs") && !text.contains("$schema"));
        assert!(!text.contains("additionalProperties") && !text.contains("anyOf"));
        let d = &declarations(&text)[0];
        assert_eq!(d["name"], "create_order");
        assert_eq!(d["description"], "Creates an order for a customer.");
        let p = &d["parameters"]["properties"];
        assert_eq!(d["parameters"]["type"], "OBJECT");
        assert_eq!(d["parameters"]["required"], json!(["customer", "quantity"]));
        assert_eq!(
            p["customer"],
            json!({"type": "STRING", "description": "Customer name"})
        );
        assert_eq!(p["quantity"], json!({"type": "INTEGER", "format": "int32"}));
        assert_eq!(p["total"], json!({"type": "INTEGER", "format": "int64"}));
        assert_eq!(p["price"], json!({"type": "NUMBER"}));
        // enum via $ref with a default → inlined, default stated in the description
        assert_eq!(p["priority"]["type"], "STRING");
        assert_eq!(p["priority"]["enum"], json!(["Low", "Normal", "High"]));
        assert_eq!(
            p["priority"]["description"],
            "How urgent an order is. Default: \"Normal\"."
        );
        // nullable via type array and via anyOf
        assert_eq!(p["note"], json!({"type": "STRING", "nullable": true}));
        assert_eq!(p["maybe"]["nullable"], json!(true));
        assert_eq!(p["maybe"]["enum"], json!(["Low", "Normal", "High"]));
        // formats
        assert_eq!(p["when"], json!({"type": "STRING", "format": "date-time"}));
        assert_eq!(
            p["due"],
            json!({"type": "STRING", "description": "Format: date (YYYY-MM-DD)."})
        );
        assert_eq!(
            p["ref"]["description"],
            "Order reference. Format: UUID (8-4-4-4-12 hex digits)."
        );
        // nested records and arrays of records are inlined
        assert_eq!(p["address"]["type"], "OBJECT");
        assert_eq!(
            p["address"]["properties"]["geo"]["properties"]["lat"]["type"],
            "NUMBER"
        );
        assert_eq!(p["notes"]["type"], "ARRAY");
        assert_eq!(p["notes"]["items"]["type"], "OBJECT");
        assert_eq!(p["notes"]["items"]["required"], json!(["id", "title"]));
        assert_eq!(
            p["notes"]["items"]["properties"]["tags"]["items"],
            json!({"type": "STRING"})
        );
    }

    #[test]
    fn recursive_record_is_unsupported_and_named() {
        let fx = Fixtures::new();
        let err = export(Format::Gemini, &[fx.walk_tree()]).unwrap_err();
        let ExportError::Unsupported {
            subject, reason, ..
        } = &err
        else {
            panic!("{err}")
        };
        assert!(
            subject.contains("TreeNode") && subject.contains("walk_tree"),
            "{subject}"
        );
        assert!(reason.contains("refers to itself"), "{reason}");
    }

    #[test]
    fn function_without_parameters_has_no_parameters_field() {
        let fx = Fixtures::new();
        let text = export(Format::Gemini, &[fx.no_params()]).unwrap();
        let d = &declarations(&text)[0];
        assert!(d.get("parameters").is_none(), "{d}");
        assert_eq!(d["description"], "Checks that the app answers.");
    }

    #[test]
    fn nullable_enum_with_null_member() {
        let s = json!({"type": "object", "properties": {
            "p": {"type": ["string", "null"], "enum": ["A", "B", null], "default": null}}});
        let out = gemini_schema(&s).unwrap();
        assert_eq!(
            out["properties"]["p"],
            json!({"type": "STRING", "enum": ["A", "B"], "nullable": true})
        );
    }

    #[test]
    fn unions_are_unsupported() {
        for s in [
            json!({"type": "object", "properties": {"u": {"type": ["string", "integer"]}}}),
            json!({"type": "object", "properties": {"u": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}),
        ] {
            assert!(
                matches!(gemini_schema(&s), Err(ExportError::Unsupported { .. })),
                "{s}"
            );
        }
    }

    #[test]
    fn bad_names_are_refused() {
        let fx = Fixtures::new();
        for bad in ["", "1st", "-x", "a:b", "a b", &"x".repeat(65)] {
            let err = export(Format::Gemini, &[fx.named(bad)]).unwrap_err();
            let ExportError::InvalidName { name, reason, .. } = &err else {
                panic!("{err}")
            };
            assert_eq!(name, bad);
            assert!(reason.contains("at most 64"), "{reason}");
        }
        export(Format::Gemini, &[fx.named("_a.b-c")]).unwrap();
    }

    #[test]
    fn check_rejects_refs_and_type_arrays() {
        let bad = json!([{"functionDeclarations": [{"name": "f", "description": "",
            "parameters": {"type": "OBJECT", "properties": {"a": {"$ref": "#/$defs/A"}}}}]}]);
        assert!(check(bad.as_array().unwrap()).unwrap_err().contains("$ref"));
        let bad = json!([{"functionDeclarations": [{"name": "f",
            "parameters": {"type": "OBJECT", "properties": {"a": {"type": ["STRING", "NULL"]}}}}]}]);
        assert!(check(bad.as_array().unwrap()).is_err());
        let bad = json!([{"functionDeclarations": [{"name": "f",
            "parameters": {"type": "OBJECT", "properties": {"a": {"type": "STRING", "format": "uuid"}}}}]}]);
        assert!(check(bad.as_array().unwrap())
            .unwrap_err()
            .contains("format"));
    }
}
