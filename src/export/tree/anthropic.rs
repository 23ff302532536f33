//! Anthropic Messages API client tools: `{"name","description","input_schema"}`.
//!
//! `input_schema` is the 2020-12 parameters schema as is (`$schema`, `$defs` and `$ref`
//! included; repeated type entries collapsed). `description` is left out when empty (it is
//! optional, though strongly recommended). `strict` (grammar-constrained tool use) is not set:
//! large strict toolsets can exceed Anthropic's grammar limits, so opting in is left to the
//! host.
//!
//! Names: the API validates `^[a-zA-Z0-9_-]{1,128}$`; this exporter enforces **1–64**
//! characters of `[A-Za-z0-9_-]`, because tool references (tool search) cap names at 64 and
//! earlier API versions and clients validated `{1,64}`. The core's ids (at most 64, snake
//! case) always pass.

use crate::export::{
    ascii_word_dash, check_exported_names, check_names, dedupe_type_arrays, find_duplicate_type,
    model_description, require_object_root, ExportError, Format, NameRule, ToolSpec,
};
use serde_json::{json, Map, Value};

pub(crate) const NAME_RULE: NameRule = NameRule {
    max: 64,
    allowed: ascii_word_dash,
    first: None,
    text: "Anthropic tool names must be 1-64 characters of [A-Za-z0-9_-]",
};

pub(crate) fn tools(specs: &[ToolSpec]) -> Result<Value, ExportError> {
    check_names(Format::Anthropic, specs, &NAME_RULE)?;
    let mut out = Vec::with_capacity(specs.len());
    for spec in specs {
        require_object_root(Format::Anthropic, spec)?;
        let mut tool = Map::new();
        tool.insert("name".into(), json!(spec.name));
        let description = model_description(spec);
        if !description.is_empty() {
            tool.insert("description".into(), json!(description));
        }
        let mut schema = spec.input_schema.clone();
        dedupe_type_arrays(&mut schema);
        tool.insert("input_schema".into(), schema);
        out.push(Value::Object(tool));
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
        if let Some(key) = obj.keys().find(|k| {
            !matches!(
                k.as_str(),
                "name" | "description" | "input_schema" | "cache_control" | "strict"
            )
        }) {
            return Err(format!("tool {i}: unknown field `{key}`"));
        }
        let schema = obj
            .get("input_schema")
            .ok_or_else(|| format!("tool {i}: no input_schema"))?;
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(format!(
                "tool {i}: input_schema must have \"type\": \"object\" at its root"
            ));
        }
        if let Some(p) = find_duplicate_type(schema, &format!("tools[{i}].input_schema")) {
            return Err(p);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tools as export;
    use crate::export::tree::fixtures::Fixtures;

    #[test]
    fn shape() {
        let fx = Fixtures::new();
        let text = export(Format::Anthropic, &[fx.create_order(), fx.no_params()]).unwrap();
        let tools: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(tools[0]["name"], "create_order");
        assert_eq!(tools[0]["description"], "Creates an order for a customer.");
        assert_eq!(tools[0]["input_schema"], *fx.create_order().input_schema);
        assert_eq!(tools[1]["input_schema"]["type"], "object");
        check(tools.as_array().unwrap()).unwrap();
    }

    #[test]
    fn empty_description_is_left_out_and_title_used() {
        let fx = Fixtures::new();
        let mut spec = fx.no_params();
        spec.description = "";
        spec.title = None;
        let tools: Value =
            serde_json::from_str(&export(Format::Anthropic, &[spec]).unwrap()).unwrap();
        assert!(tools[0].get("description").is_none());
        spec.title = Some("Ping");
        let tools: Value =
            serde_json::from_str(&export(Format::Anthropic, &[spec]).unwrap()).unwrap();
        assert_eq!(tools[0]["description"], "Ping");
    }

    #[test]
    fn bad_names_are_refused() {
        let fx = Fixtures::new();
        for bad in ["", "orders.create", "a:b", "é", &"x".repeat(65)] {
            let err = export(Format::Anthropic, &[fx.named(bad)]).unwrap_err();
            let ExportError::InvalidName {
                format,
                name,
                reason,
            } = &err
            else {
                panic!("{err}")
            };
            assert_eq!((*format, name.as_str()), (Format::Anthropic, bad));
            assert!(reason.contains("[A-Za-z0-9_-]"), "{reason}");
        }
        export(Format::Anthropic, &[fx.named("Get-Weather_2")]).unwrap();
    }
}
