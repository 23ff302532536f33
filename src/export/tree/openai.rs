//! OpenAI function tools.
//!
//! Two request shapes exist and both are offered:
//! * `openai` — the **Responses API** (`/v1/responses`), the one OpenAI recommends for new
//!   work: a flat `{"type":"function","name","description","parameters","strict"}`. Its
//!   `strict` defaults to **true** when omitted, so it is always written explicitly.
//! * `openai-chat` — **Chat Completions** (`/v1/chat/completions`): the same fields nested as
//!   `{"type":"function","function":{"name","description","parameters","strict"}}`.
//!
//! Names: 1–64 characters of `[A-Za-z0-9_-]`.
//!
//! # Strict mode
//!
//! `strict: true` makes the model's arguments always match the schema, but only a subset of
//! JSON Schema is accepted (Structured Outputs "Supported schemas"): every object needs
//! `additionalProperties: false` and all its properties in `required`; the root must be an
//! object (not `anyOf`); allowed keywords are `type`, `properties`, `required`,
//! `additionalProperties`, `items`, `anyOf`, `enum`, `const`, `$ref`, `$defs`/`definitions`,
//! `description`, `title`, string `pattern` and `format` (only [`OPENAI_STRICT_FORMATS`]),
//! number `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`, array
//! `minItems`/`maxItems`; at most 5000 properties and 10 levels of nesting. `default` is
//! refused ("'default' is not permitted") by strict validators that have been seen in use, so
//! it is never sent with `strict: true`.
//!
//! **Decision.** [`openai_parameters`] emits `strict: true` only when the schema can be made
//! strict *without changing which calls mean what*:
//! * `$schema` is dropped (meta-data only), repeated type entries are collapsed;
//! * the value constraints strict mode refuses (`minLength`, `maxLength`, `uniqueItems`) are
//!   moved into their property's description ("At least 2 characters.", "Items must be
//!   unique."); the core still enforces them, so a call that breaks one is refused with a
//!   message naming the rule. The constraints strict mode accepts (`minimum`, `maximum`,
//!   `exclusiveMinimum`, `exclusiveMaximum`, `pattern`, `minItems`, `maxItems`) stay;
//! * an optional property that is **nullable and has no default or a `null` default** is
//!   moved into `required` and its `default: null` dropped. The model then sends `null` where
//!   it would have omitted the argument. This relies on the core's contract that an explicit
//!   `null` for such a parameter binds exactly like an omitted one.
//! * anything else blocks strict mode and the schema is sent unchanged (but `$schema`) with
//!   `strict: false`: an optional parameter that is **not** nullable (making it required +
//!   nullable would let the model send `null` where the handler expects a value or absence),
//!   an optional parameter with a non-null default (sending `null` would bypass the default),
//!   a missing `additionalProperties: false`, an unsupported keyword or format, or a schema
//!   beyond the size limits.

use crate::export::{
    ascii_word_dash, check_exported_names, check_names, dedupe_type_arrays, find_duplicate_type,
    local_def_name, model_description, move_to_description, require_object_root, root_defs,
    ExportError, Format, NameRule, ToolSpec,
};
use serde_json::{json, Map, Value};

pub(crate) const NAME_RULE: NameRule = NameRule {
    max: 64,
    allowed: ascii_word_dash,
    first: None,
    text: "OpenAI function names must be 1-64 characters of [A-Za-z0-9_-]",
};

/// String formats OpenAI strict mode supports.
pub const OPENAI_STRICT_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

const STRICT_KEYWORDS: [&str; 22] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// Constraint keywords strict mode refuses; [`openai_parameters`] moves them into the
/// description of their property and keeps `strict: true`.
pub(crate) const STRICT_MOVED: [&str; 3] = ["minLength", "maxLength", "uniqueItems"];

pub(crate) const MAX_PROPERTIES: usize = 5000;
pub(crate) const MAX_DEPTH: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Api {
    Responses,
    ChatCompletions,
}

impl Api {
    fn format(self) -> Format {
        match self {
            Api::Responses => Format::OpenAi,
            Api::ChatCompletions => Format::OpenAiChat,
        }
    }
}

/// The `parameters` value for OpenAI and whether `strict: true` may be set (see the module
/// documentation for the rule). Without strict mode the schema is returned unchanged except
/// that `$schema` is dropped and repeated type entries are collapsed.
pub fn openai_parameters(input_schema: &Value) -> (Value, bool) {
    let mut base = input_schema.clone();
    if let Value::Object(m) = &mut base {
        m.remove("$schema");
    }
    dedupe_type_arrays(&mut base);
    let mut strict = base.clone();
    match make_strict(&mut strict) {
        Ok(()) => (strict, true),
        Err(_) => (base, false),
    }
}

/// Why a parameters schema cannot be sent with `strict: true` (`None` when it can): the
/// first blocker found, with its JSON path. For diagnostics ("why is my tool not strict?").
pub fn openai_strict_blocker(input_schema: &Value) -> Option<String> {
    let mut s = input_schema.clone();
    if let Value::Object(m) = &mut s {
        m.remove("$schema");
    }
    dedupe_type_arrays(&mut s);
    make_strict(&mut s).err()
}

fn make_strict(schema: &mut Value) -> Result<(), String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("the root must be a plain object schema".into());
    }
    let defs = root_defs(schema);
    let mut counter = Counter::default();
    strictify(schema, &defs, "$", 0, &mut counter)
}

#[derive(Default)]
struct Counter {
    properties: usize,
}

fn strictify(
    node: &mut Value,
    defs: &Map<String, Value>,
    path: &str,
    depth: usize,
    counter: &mut Counter,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("{path}: nested deeper than {MAX_DEPTH} levels"));
    }
    let map = node
        .as_object_mut()
        .ok_or_else(|| format!("{path}: boolean schemas are not supported"))?;
    map.remove("$schema");
    if map.get("default").is_some_and(Value::is_null) {
        map.remove("default");
    }
    // Constraints strict mode does not take are stated in the description instead (the
    // core still enforces them when the call arrives).
    move_to_description(map, &STRICT_MOVED);
    if let Some(key) = map.keys().find(|k| !STRICT_KEYWORDS.contains(&k.as_str())) {
        return Err(format!("{path}: `{key}` is not supported in strict mode"));
    }
    if let Some(f) = map.get("format") {
        let f = f.as_str().unwrap_or_default();
        if !OPENAI_STRICT_FORMATS.contains(&f) {
            return Err(format!(
                "{path}: format `{f}` is not supported in strict mode"
            ));
        }
    }
    let is_object = type_includes(map.get("type"), "object") || map.contains_key("properties");
    if is_object {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Err(format!(
                "{path}: objects need \"additionalProperties\": false"
            ));
        }
        let mut required: Vec<String> = match map.get("required") {
            None => Vec::new(),
            Some(Value::Array(r)) => r
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
            Some(_) => return Err(format!("{path}: `required` must be an array")),
        };
        if let Some(Value::Object(props)) = map.get("properties") {
            counter.properties += props.len();
            if counter.properties > MAX_PROPERTIES {
                return Err(format!("more than {MAX_PROPERTIES} properties"));
            }
            for (name, prop) in props {
                if required.iter().any(|r| r == name) {
                    continue;
                }
                if !accepts_null(prop, defs, 0) {
                    return Err(format!(
                        "{path}.properties.{name}: optional but not nullable; making it required would change its meaning"
                    ));
                }
                match prop.get("default") {
                    None | Some(Value::Null) => required.push(name.clone()),
                    Some(d) => {
                        return Err(format!(
                            "{path}.properties.{name}: optional with default {d}; sending null would bypass the default"
                        ))
                    }
                }
            }
        }
        map.insert("required".into(), json!(required));
    }
    if path == "$" && map.contains_key("anyOf") {
        return Err("the root must not be anyOf".into());
    }
    for (key, child) in map.iter_mut() {
        match key.as_str() {
            "properties" | "$defs" | "definitions" => {
                if let Value::Object(children) = child {
                    for (name, sub) in children.iter_mut() {
                        let next = if key == "properties" { depth + 1 } else { 0 };
                        strictify(sub, defs, &format!("{path}.{key}.{name}"), next, counter)?;
                    }
                }
            }
            "items" => strictify(child, defs, &format!("{path}.items"), depth + 1, counter)?,
            "anyOf" => {
                let branches = child
                    .as_array_mut()
                    .ok_or_else(|| format!("{path}.anyOf: not an array"))?;
                for (i, sub) in branches.iter_mut().enumerate() {
                    strictify(sub, defs, &format!("{path}.anyOf[{i}]"), depth, counter)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn type_includes(t: Option<&Value>, name: &str) -> bool {
    match t {
        Some(Value::String(s)) => s == name,
        Some(Value::Array(a)) => a.iter().any(|v| v.as_str() == Some(name)),
        _ => false,
    }
}

/// Whether `null` validates against the schema (type, enum, const, anyOf, local `$ref`).
pub(crate) fn accepts_null(schema: &Value, defs: &Map<String, Value>, depth: usize) -> bool {
    if depth > 32 {
        return false;
    }
    let Some(map) = schema.as_object() else {
        return schema == &Value::Bool(true);
    };
    if let Some(r) = map.get("$ref").and_then(Value::as_str) {
        let target = local_def_name(r).and_then(|n| defs.get(&n));
        if !target.is_some_and(|t| accepts_null(t, defs, depth + 1)) {
            return false;
        }
    }
    if let Some(Value::Array(branches)) = map.get("anyOf") {
        if !branches.iter().any(|b| accepts_null(b, defs, depth + 1)) {
            return false;
        }
    }
    if let Some(t) = map.get("type") {
        if !type_includes(Some(t), "null") {
            return false;
        }
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        if !values.contains(&Value::Null) {
            return false;
        }
    }
    if let Some(c) = map.get("const") {
        if !c.is_null() {
            return false;
        }
    }
    // Something must actually say "null" (an empty schema accepts null, but the core never
    // emits one for a parameter, and treating it as nullable would be a guess).
    map.contains_key("$ref")
        || map.contains_key("anyOf")
        || map.contains_key("type")
        || map.contains_key("enum")
        || map.contains_key("const")
}

pub(crate) fn tools(specs: &[ToolSpec], api: Api) -> Result<Value, ExportError> {
    let format = api.format();
    check_names(format, specs, &NAME_RULE)?;
    let mut out = Vec::with_capacity(specs.len());
    for spec in specs {
        require_object_root(format, spec)?;
        let (parameters, strict) = openai_parameters(spec.input_schema);
        let mut function = Map::new();
        if api == Api::Responses {
            function.insert("type".into(), json!("function"));
        }
        function.insert("name".into(), json!(spec.name));
        let description = model_description(spec);
        if !description.is_empty() {
            function.insert("description".into(), json!(description));
        }
        function.insert("parameters".into(), parameters);
        function.insert("strict".into(), json!(strict));
        out.push(match api {
            Api::Responses => Value::Object(function),
            Api::ChatCompletions => json!({"type": "function", "function": function}),
        });
    }
    Ok(Value::Array(out))
}

pub(crate) fn check(tools: &[Value], api: Api) -> Result<(), String> {
    let functions: Vec<&Value> = match api {
        Api::Responses => tools.iter().collect(),
        Api::ChatCompletions => tools
            .iter()
            .map(|t| t.get("function").unwrap_or(&Value::Null))
            .collect(),
    };
    for (i, tool) in tools.iter().enumerate() {
        if tool.get("type").and_then(Value::as_str) != Some("function") {
            return Err(format!("tool {i}: `type` must be \"function\""));
        }
        if api == Api::ChatCompletions && !functions[i].is_object() {
            return Err(format!(
                "tool {i}: Chat Completions tools nest their fields in `function`"
            ));
        }
        if api == Api::Responses && tool.get("function").is_some() {
            return Err(format!(
                "tool {i}: Responses tools are flat (no `function` object)"
            ));
        }
    }
    check_exported_names(
        functions
            .iter()
            .map(|f| f.get("name").and_then(Value::as_str)),
        &NAME_RULE,
    )?;
    for (i, f) in functions.iter().enumerate() {
        let params = f
            .get("parameters")
            .ok_or_else(|| format!("tool {i}: no parameters"))?;
        if params.get("type").and_then(Value::as_str) != Some("object") {
            return Err(format!(
                "tool {i}: parameters must have \"type\": \"object\" at the root"
            ));
        }
        if let Some(p) = find_duplicate_type(params, &format!("tools[{i}].parameters")) {
            return Err(p);
        }
        let strict = f.get("strict").ok_or_else(|| {
            format!("tool {i}: `strict` must be explicit (the Responses API defaults it to true)")
        })?;
        let strict = strict
            .as_bool()
            .ok_or_else(|| format!("tool {i}: `strict` must be a boolean"))?;
        if strict {
            // A strict schema must already be in strict form: make_strict must change nothing.
            let mut copy = params.clone();
            make_strict(&mut copy).map_err(|e| format!("tool {i}: strict schema: {e}"))?;
            if &copy != params {
                return Err(format!(
                    "tool {i}: strict schema is not in strict form (optional properties or `default` left)"
                ));
            }
            if params.get("$schema").is_some() {
                return Err(format!("tool {i}: `$schema` is not sent with strict"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tools as export;
    use crate::export::tree::fixtures::Fixtures;

    fn parse(text: &str) -> Vec<Value> {
        serde_json::from_str::<Value>(text)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    #[test]
    fn responses_shape_is_flat_and_strict_explicit() {
        let fx = Fixtures::new();
        let text = export(Format::OpenAi, &[fx.create_order()]).unwrap();
        let tools = parse(&text);
        let t = &tools[0];
        assert_eq!(t["type"], "function");
        assert_eq!(t["name"], "create_order");
        assert_eq!(t["description"], "Creates an order for a customer.");
        assert!(t.get("function").is_none());
        // create_order has an optional, non-nullable `priority` with a default: not strict.
        assert_eq!(t["strict"], json!(false));
        assert!(t["parameters"].get("$schema").is_none());
        assert_eq!(
            t["parameters"]["properties"]["priority"]["default"], "Normal",
            "kept when not strict"
        );
        check(&tools, Api::Responses).unwrap();
    }

    #[test]
    fn chat_shape_is_nested() {
        let fx = Fixtures::new();
        let text = export(Format::OpenAiChat, &[fx.set_priority()]).unwrap();
        let tools = parse(&text);
        assert_eq!(tools[0]["type"], "function");
        assert_eq!(tools[0]["function"]["name"], "set_priority");
        assert_eq!(tools[0]["function"]["strict"], json!(true));
        check(&tools, Api::ChatCompletions).unwrap();
        assert!(
            check(&tools, Api::Responses).is_err(),
            "shapes are not interchangeable"
        );
    }

    #[test]
    fn nullable_optional_without_default_becomes_required() {
        let fx = Fixtures::new();
        let spec = fx.set_priority();
        let (params, strict) = openai_parameters(spec.input_schema);
        assert!(strict, "{:?}", openai_strict_blocker(spec.input_schema));
        let mut required: Vec<&str> = params["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        required.sort();
        assert_eq!(required, ["comment", "level", "maybe", "tags", "when"]);
        // The nullable enum with default null: default dropped, null stated exactly once.
        assert!(params["properties"]["maybe"].get("default").is_none());
        assert_eq!(
            params["properties"]["maybe"]["anyOf"][1],
            json!({"type": "null"})
        );
        assert_eq!(
            params["properties"]["comment"]["type"],
            json!(["string", "null"])
        );
        // Records in $defs are made strict too.
        assert_eq!(
            params["$defs"]["Tag"]["required"],
            json!(["label", "weight"])
        );
        assert!(params.get("$schema").is_none());
    }

    #[test]
    fn optional_non_nullable_blocks_strict() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}},
                            "additionalProperties": false});
        let (params, strict) = openai_parameters(&schema);
        assert!(!strict);
        assert_eq!(params, schema, "sent unchanged");
        assert!(openai_strict_blocker(&schema)
            .unwrap()
            .contains("not nullable"));
    }

    #[test]
    fn other_strict_blockers() {
        let cases = [
            (
                json!({"type": "object", "properties": {"a": {"type": ["string", "null"], "default": "x"}},
                    "additionalProperties": false}),
                "default",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
                "additionalProperties",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "not": {"const": ""}}},
                    "required": ["a"], "additionalProperties": false}),
                "not",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "format": "uri"}},
                    "required": ["a"], "additionalProperties": false}),
                "format",
            ),
            (
                json!({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}]}},
                    "required": ["a"], "additionalProperties": false}),
                "allOf",
            ),
        ];
        for (schema, why) in cases {
            let (_, strict) = openai_parameters(&schema);
            assert!(!strict, "{schema}");
            let blocker = openai_strict_blocker(&schema).unwrap();
            assert!(blocker.contains(why), "{blocker} should mention {why}");
        }
    }

    #[test]
    fn supported_keywords_keep_strict() {
        let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": -2147483648i64, "maximum": 2147483647},
                "d": {"type": "string", "format": "date"},
                "u": {"type": "string", "format": "uuid"},
                "t": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
            "required": ["n", "d", "u", "t"], "additionalProperties": false,
            "$defs": {"Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
                               "required": ["kids"], "additionalProperties": false}}});
        let (params, strict) = openai_parameters(&schema);
        assert!(strict, "{:?}", openai_strict_blocker(&schema));
        assert_eq!(params["properties"]["n"]["maximum"], 2147483647);
    }

    #[test]
    fn function_without_parameters_is_strict() {
        let fx = Fixtures::new();
        let text = export(Format::OpenAi, &[fx.no_params()]).unwrap();
        let tools = parse(&text);
        assert_eq!(tools[0]["strict"], json!(true));
        assert_eq!(tools[0]["parameters"]["required"], json!([]));
        check(&tools, Api::Responses).unwrap();
    }

    #[test]
    fn bad_names_are_refused() {
        let fx = Fixtures::new();
        for bad in ["", "orders.create", "create order", &"x".repeat(65)] {
            for f in [Format::OpenAi, Format::OpenAiChat] {
                let err = export(f, &[fx.named(bad)]).unwrap_err();
                let ExportError::InvalidName { name, reason, .. } = &err else {
                    panic!("{err}")
                };
                assert_eq!(name, bad);
                assert!(
                    reason.contains("1-64") && reason.contains("[A-Za-z0-9_-]"),
                    "{reason}"
                );
                assert!(
                    err.to_string().contains(bad),
                    "the error names the function"
                );
            }
        }
        export(Format::OpenAi, &[fx.named(&"x".repeat(64))]).unwrap();
    }

    #[test]
    fn check_rejects_non_strict_schema_marked_strict() {
        let bad = json!([{"type": "function", "name": "f", "strict": true,
            "parameters": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}}]);
        assert!(check(bad.as_array().unwrap(), Api::Responses).is_err());
        let no_strict = json!([{"type": "function", "name": "f",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": false}}]);
        assert!(check(no_strict.as_array().unwrap(), Api::Responses)
            .unwrap_err()
            .contains("explicit"));
    }
}
