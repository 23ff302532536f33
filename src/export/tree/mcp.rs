//! MCP (`tools/list`) tool objects.
//!
//! Shape (MCP 2025-06-18 and later): `name`, `title` (when set), `description` (when not
//! empty), `inputSchema` (the 2020-12 parameters schema as is, `$schema` and `$defs`
//! included; type arrays with repeated entries are collapsed), `outputSchema` (when the
//! function returns a value) and `annotations` (only the hints that are set, plus `title`).
//!
//! MCP requires `outputSchema` to have an object root (`"type": "object"`), because
//! `structuredContent` is a JSON object. [`mcp_output_schema`] therefore:
//! * keeps an object-rooted result schema as is;
//! * inlines a root `$ref` to an object definition (the result is still the object itself);
//! * otherwise wraps it as
//!   `{"type":"object","properties":{"result":<schema>},"required":["result"],"additionalProperties":false}`
//!   with `$schema` and `$defs` kept at the root.
//!
//! **Contract for the MCP adapter**: when [`mcp_wraps_result`] is true for a function's result
//! schema, the adapter must return `structuredContent` as `{"result": value}` (and the same
//! JSON as text content); otherwise `structuredContent` is the value itself.
//!
//! Names: 1–128 characters of `[A-Za-z0-9_.-]` (MCP 2025-11-25, "Tool names").

use crate::export::{
    check_exported_names, check_names, dedupe_type_arrays, find_duplicate_type, local_def_name,
    model_description, require_object_root, root_defs, ExportError, Format, NameRule, ToolSpec,
};
use serde_json::{json, Map, Value};

pub(crate) const NAME_RULE: NameRule = NameRule {
    max: 128,
    allowed: |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'),
    first: None,
    text: "MCP tool names must be 1-128 characters of [A-Za-z0-9_.-]",
};

/// One MCP tool object for `tools/list`. Does not validate the name (see [`crate::export::tools`]).
pub fn mcp_tool(spec: &ToolSpec) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), json!(spec.name));
    if let Some(title) = spec.title {
        tool.insert("title".into(), json!(title));
    }
    let description = model_description(spec);
    if !description.is_empty() {
        tool.insert("description".into(), json!(description));
    }
    let mut input = spec.input_schema.clone();
    dedupe_type_arrays(&mut input);
    tool.insert("inputSchema".into(), input);
    if let Some(output) = spec.output_schema {
        tool.insert("outputSchema".into(), mcp_output_schema(output));
    }
    let mut annotations = Map::new();
    if let Some(title) = spec.title {
        annotations.insert("title".into(), json!(title));
    }
    let hints = [
        ("readOnlyHint", spec.hints.read_only),
        ("destructiveHint", spec.hints.destructive),
        ("idempotentHint", spec.hints.idempotent),
        ("openWorldHint", spec.hints.open_world),
    ];
    for (key, value) in hints {
        if let Some(v) = value {
            annotations.insert(key.into(), json!(v));
        }
    }
    if !annotations.is_empty() {
        tool.insert("annotations".into(), Value::Object(annotations));
    }
    Value::Object(tool)
}

/// True when the MCP `outputSchema` wraps the result as `{"result": value}`, i.e. when the
/// result schema's root is neither `"type": "object"` nor a `$ref` to an object definition.
/// The MCP adapter must then return `structuredContent` as `{"result": value}`.
pub fn mcp_wraps_result(output_schema: &Value) -> bool {
    !is_plain_object(output_schema) && ref_to_object(output_schema).is_none()
}

/// The MCP `outputSchema` for a result schema (see the module documentation).
pub fn mcp_output_schema(output_schema: &Value) -> Value {
    let mut schema = output_schema.clone();
    dedupe_type_arrays(&mut schema);
    if is_plain_object(&schema) {
        return schema;
    }
    if let Some(def) = ref_to_object(&schema) {
        // Inline the referenced object at the root, keeping `$schema`/`$defs` and any
        // sibling annotations of the `$ref` (they win over the definition's).
        let mut root = match def {
            Value::Object(m) => m,
            _ => unreachable!("ref_to_object returns objects"),
        };
        let Value::Object(outer) = schema else {
            unreachable!()
        };
        for (k, v) in outer {
            if k != "$ref" {
                root.insert(k, v);
            }
        }
        let mut root = Value::Object(root);
        dedupe_type_arrays(&mut root);
        return root;
    }
    let mut inner = schema;
    let mut root = Map::new();
    if let Value::Object(m) = &mut inner {
        for key in ["$schema", "$defs", "definitions", "$id"] {
            if let Some(v) = m.remove(key) {
                root.insert(key.into(), v);
            }
        }
    }
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), json!({ "result": inner }));
    root.insert("required".into(), json!(["result"]));
    root.insert("additionalProperties".into(), json!(false));
    Value::Object(root)
}

fn is_plain_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// The object definition a root `{"$ref": "#/$defs/X"}` points at, if it is object-typed.
fn ref_to_object(schema: &Value) -> Option<Value> {
    let name = local_def_name(schema.get("$ref")?.as_str()?)?;
    let def = root_defs(schema).remove(&name)?;
    is_plain_object(&def).then_some(def)
}

pub(crate) fn tools(specs: &[ToolSpec]) -> Result<Value, ExportError> {
    check_names(Format::Mcp, specs, &NAME_RULE)?;
    let mut out = Vec::with_capacity(specs.len());
    for spec in specs {
        require_object_root(Format::Mcp, spec)?;
        out.push(mcp_tool(spec));
    }
    Ok(Value::Array(out))
}

pub(crate) fn check(tools: &[Value]) -> Result<(), String> {
    check_exported_names(
        tools.iter().map(|t| t.get("name").and_then(Value::as_str)),
        &NAME_RULE,
    )?;
    for (i, tool) in tools.iter().enumerate() {
        let obj = tool
            .as_object()
            .ok_or_else(|| format!("tool {i}: not an object"))?;
        for key in obj.keys() {
            if !matches!(
                key.as_str(),
                "name"
                    | "title"
                    | "description"
                    | "inputSchema"
                    | "outputSchema"
                    | "annotations"
                    | "icons"
                    | "_meta"
            ) {
                return Err(format!("tool {i}: unknown field `{key}`"));
            }
        }
        for key in ["title", "description"] {
            if obj.get(key).is_some_and(|v| !v.is_string()) {
                return Err(format!("tool {i}: `{key}` must be a string"));
            }
        }
        let input = obj
            .get("inputSchema")
            .ok_or_else(|| format!("tool {i}: no inputSchema"))?;
        if !is_plain_object(input) {
            return Err(format!(
                "tool {i}: inputSchema must have \"type\": \"object\" at its root"
            ));
        }
        if let Some(output) = obj.get("outputSchema") {
            if !is_plain_object(output) {
                return Err(format!(
                    "tool {i}: outputSchema must have \"type\": \"object\" at its root"
                ));
            }
        }
        if let Some(a) = obj.get("annotations") {
            let a = a
                .as_object()
                .ok_or_else(|| format!("tool {i}: annotations not an object"))?;
            for (k, v) in a {
                let ok = match k.as_str() {
                    "title" => v.is_string(),
                    "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint" => {
                        v.is_boolean()
                    }
                    _ => false,
                };
                if !ok {
                    return Err(format!("tool {i}: bad annotation `{k}`: {v}"));
                }
            }
        }
        if let Some(p) = find_duplicate_type(tool, &format!("tools[{i}]")) {
            return Err(p);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tree::fixtures::Fixtures;
    use crate::export::{tools as export, Hints};

    #[test]
    fn tool_shape_and_annotations() {
        let fx = Fixtures::new();
        let spec = fx.create_order();
        let tool = mcp_tool(&spec);
        assert_eq!(tool["name"], "create_order");
        assert_eq!(tool["title"], "Create order");
        assert_eq!(tool["description"], "Creates an order for a customer.");
        assert_eq!(
            tool["inputSchema"], *spec.input_schema,
            "the input schema is passed as is"
        );
        // Only the hints that are set, plus the title.
        assert_eq!(
            tool["annotations"],
            json!({"title": "Create order", "readOnlyHint": false, "destructiveHint": false})
        );
        // Record result: a root $ref to an object definition is inlined, not wrapped.
        assert!(!mcp_wraps_result(spec.output_schema.unwrap()));
        assert_eq!(tool["outputSchema"]["type"], "object");
        assert!(tool["outputSchema"]["properties"]["id"].is_object());
        assert!(tool["outputSchema"]["$defs"]["Order"].is_object());
        assert!(tool["outputSchema"].get("$ref").is_none());
    }

    #[test]
    fn no_hints_no_title_means_no_annotations() {
        let fx = Fixtures::new();
        let mut spec = fx.no_params();
        spec.title = None;
        spec.hints = Hints::default();
        let tool = mcp_tool(&spec);
        assert!(tool.get("annotations").is_none(), "{tool}");
        assert!(tool.get("title").is_none());
    }

    #[test]
    fn non_object_results_are_wrapped() {
        let fx = Fixtures::new();
        let spec = fx.list_notes();
        let out = spec.output_schema.unwrap();
        assert!(mcp_wraps_result(out));
        let wrapped = mcp_output_schema(out);
        assert_eq!(wrapped["type"], "object");
        assert_eq!(wrapped["required"], json!(["result"]));
        assert_eq!(wrapped["additionalProperties"], json!(false));
        assert_eq!(wrapped["properties"]["result"]["type"], "array");
        assert_eq!(
            wrapped["properties"]["result"]["items"],
            json!({"$ref": "#/$defs/Note"})
        );
        // $defs and $schema stay at the root so the inner $ref still resolves.
        assert!(wrapped["$defs"]["Note"].is_object());
        assert!(wrapped["properties"]["result"].get("$defs").is_none());
        assert_eq!(
            wrapped["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );

        for scalar in [
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}),
            json!({"type": ["object", "null"], "properties": {}}),
            json!({"anyOf": [{"$ref": "#/$defs/Note"}, {"type": "null"}], "$defs": {"Note": {"type": "object"}}}),
        ] {
            assert!(mcp_wraps_result(&scalar), "{scalar}");
            assert_eq!(mcp_output_schema(&scalar)["type"], "object");
        }
        assert!(!mcp_wraps_result(
            &json!({"type": "object", "properties": {}})
        ));
    }

    #[test]
    fn void_functions_have_no_output_schema() {
        let fx = Fixtures::new();
        let tool = mcp_tool(&fx.no_params());
        assert!(tool.get("outputSchema").is_none());
        assert_eq!(tool["inputSchema"]["properties"], json!({}));
    }

    #[test]
    fn bad_names_are_refused() {
        let fx = Fixtures::new();
        for bad in ["", "create order", "créer", &"x".repeat(129), "a/b"] {
            let err = export(Format::Mcp, &[fx.named(bad)]).unwrap_err();
            match err {
                ExportError::InvalidName {
                    format,
                    name,
                    reason,
                } => {
                    assert_eq!(format, Format::Mcp);
                    assert_eq!(name, bad);
                    assert!(reason.contains("[A-Za-z0-9_.-]"), "{reason}");
                }
                other => panic!("{other}"),
            }
        }
        for good in ["a.b-c_d", &"x".repeat(128)] {
            let text = export(Format::Mcp, &[fx.named(good)]).unwrap();
            check(
                serde_json::from_str::<Value>(&text)
                    .unwrap()
                    .as_array()
                    .unwrap(),
            )
            .unwrap();
        }
    }

    #[test]
    fn check_rejects_non_object_output_schema() {
        let bad = json!([{"name": "x", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}]);
        assert!(check(bad.as_array().unwrap())
            .unwrap_err()
            .contains("outputSchema"));
    }
}
