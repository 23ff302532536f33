//! Function and entity descriptors: parsed from JSON, validated with messages that name
//! the path and the reason, and written back in their normalised form.

use crate::model::binding::{bind_value_with, Limits, Mode};
use crate::model::condition::{check_text, Condition};
use crate::model::constraints::Constraints;
use crate::model::error::{Error, Result};
pub use crate::model::types::Parameter;
use crate::model::types::{
    check_keys, check_slot_keys, describe_json, field, nullable_may_be_omitted, opt_bool, opt_json,
    opt_string, parse_constraints, EntityDef, ParameterDefault, Type, TypeSet,
};
use serde_json::{Map, Value};
use std::collections::HashMap;

mod shortcut;
pub(crate) mod text;

pub use shortcut::AppShortcut;
#[cfg(feature = "apple")]
pub use shortcut::APPLICATION_NAME_TOKEN;

/// `function` (a handler runs) or `output` (no handler: the bound arguments are the result
/// and the run is final).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FunctionKind {
    #[default]
    Function,
    Output,
}

/// Behaviour hints (MCP tool annotations). `None` means "not stated": the hint is then left
/// out of the export, so the consumer applies its own default.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Hints {
    /// The function does not modify its environment (`readOnlyHint`).
    pub read_only: Option<bool>,
    /// Modifications may be destructive (`destructiveHint`).
    pub destructive: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (`idempotentHint`).
    pub idempotent: Option<bool>,
    /// The function interacts with an open world of external entities (`openWorldHint`).
    pub open_world: Option<bool>,
}

/// Which calling packages may call (the analogue of Android's EXECUTE_APP_FUNCTIONS).
/// A caller in `deny` is refused; when `allow` is non-empty, only callers in it pass.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CallerPolicy {
    /// Only these callers pass, when not empty.
    pub allow: Vec<String>,
    /// These callers are refused.
    pub deny: Vec<String>,
}

impl CallerPolicy {
    /// `None` when the caller passes, else the reason.
    pub fn refuses(&self, caller: &str) -> Option<String> {
        let shown = if caller.is_empty() {
            "(in-process)"
        } else {
            caller
        };
        if self.deny.iter().any(|d| d == caller) {
            return Some(format!("caller {shown} is denied"));
        }
        if !self.allow.is_empty() && !self.allow.iter().any(|a| a == caller) {
            return Some(format!(
                "caller {shown} is not in the list of allowed callers"
            ));
        }
        None
    }

    /// Whether the policy lets every caller pass.
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }

    /// Reads a `callers` object (`{"allow": [...], "deny": [...]}`); errors name `path`.
    pub fn parse(v: &Value, path: &str) -> Result<CallerPolicy> {
        let o = v.as_object().ok_or_else(|| {
            Error::descriptor(path, "expected {\"allow\": [...], \"deny\": [...]}")
        })?;
        check_keys(o, path, &["allow", "deny"])?;
        let list = |key: &str| -> Result<Vec<String>> {
            match o.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(a)) => a
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        x.as_str().map(str::to_owned).ok_or_else(|| {
                            Error::descriptor(
                                format!("{path}.{key}[{i}]"),
                                "expected a package name string",
                            )
                        })
                    })
                    .collect(),
                Some(_) => Err(Error::descriptor(
                    format!("{path}.{key}"),
                    "expected an array of package names",
                )),
            }
        };
        Ok(CallerPolicy {
            allow: list("allow")?,
            deny: list("deny")?,
        })
    }

    /// The policy as its `callers` object.
    pub fn to_json(&self) -> Value {
        serde_json::json!({"allow": self.allow, "deny": self.deny})
    }
}

/// A validated function descriptor.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDescriptor {
    /// The function's id, unique in the dispatcher.
    pub id: String,
    /// A short human-readable title.
    pub title: Option<String>,
    /// What the function does, for the model.
    pub description: Option<String>,
    /// The host's name for the implementing method, when it is not the id.
    pub symbol: Option<String>,
    /// The parameters, in order.
    pub parameters: Vec<Parameter>,
    /// `None` is `void`.
    pub result: Option<Type>,
    /// The result's value constraints (from `"result": {"type": T, "minimum": …}`).
    pub result_constraints: Option<Box<Constraints>>,
    /// The function continues in the app's foreground (apple).
    pub opens_app: bool,
    /// The user approves each call through the permission hook.
    pub requires_permission: bool,
    /// A handler runs, or the arguments are the final answer.
    pub kind: FunctionKind,
    /// The toolkit the function belongs to.
    pub toolkit: Option<String>,
    /// When the function is visible in a view (parsed from `condition_text`).
    pub condition: Option<Condition>,
    /// The `condition` as written.
    pub condition_text: Option<String>,
    /// Whether the function is enabled when registered.
    pub enabled: bool,
    /// Listed with a deprecation note; still callable.
    pub deprecated: bool,
    /// Behaviour hints for the exports.
    pub hints: Hints,
    /// Which calling packages may call.
    pub callers: CallerPolicy,
    /// The entity whose `search_{entity}` this is, for generated functions.
    pub generated_for: Option<usize>,
    /// The App Shortcut the Swift App Intents export declares for it (`appShortcut`).
    pub app_shortcut: Option<Box<AppShortcut>>,
}

const FUNCTION_KEYS: &[&str] = &[
    "id",
    "title",
    "description",
    "symbol",
    "parameters",
    "result",
    "opensApp",
    "requiresPermission",
    "kind",
    "toolkit",
    "condition",
    "enabled",
    "deprecated",
    "hints",
    "callers",
    "appShortcut",
];

/// Snake case: `[a-z][a-z0-9_]*`, at most 64 characters.
pub fn is_function_id(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

/// camelCase: `[a-z][A-Za-z0-9]*`, at most 64 characters.
pub fn is_parameter_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_lowercase()
        && b.iter().all(u8::is_ascii_alphanumeric)
}

/// What parsing checks beyond the types: the metadata properties conditions and
/// placeholders may name (when the dispatcher declares them).
#[derive(Default)]
pub struct ParseContext<'a> {
    /// The metadata properties conditions and placeholders may name; `None`: any.
    pub metadata_properties: Option<&'a [String]>,
    /// The limits defaults are bound under.
    pub limits: Limits,
}

impl FunctionDescriptor {
    /// Parses and validates a function descriptor.
    pub fn parse(
        doc: &Value,
        types: &TypeSet,
        cx: &ParseContext<'_>,
    ) -> Result<FunctionDescriptor> {
        let o = doc.as_object().ok_or_else(|| {
            Error::descriptor(
                "descriptor",
                format!("expected a JSON object, got {}", describe_json(doc)),
            )
        })?;
        let id = match field(o, "id") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(Error::descriptor(
                    "id",
                    format!("expected a string, got {}", describe_json(other)),
                ))
            }
            None => return Err(Error::descriptor("descriptor.id", "missing")),
        };
        if !is_function_id(&id) {
            return Err(Error::descriptor(
                format!("{}.id", crate::model::types::quote_short(&id)),
                "an id is snake_case: a lowercase letter, then lowercase letters, digits and _, at most 64 characters",
            ));
        }
        let p = id.as_str();
        check_keys(o, p, FUNCTION_KEYS)?;

        let mut parameters: Vec<Parameter> = Vec::new();
        match field(o, "parameters") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                let mut seen = None;
                for (i, item) in items.iter().enumerate() {
                    let param = parse_parameter(item, i, p, types, cx)?;
                    if crate::model::types::already_named(
                        &parameters,
                        |x| x.name.as_str(),
                        &param.name,
                        &mut seen,
                    ) {
                        return Err(Error::descriptor(
                            format!("{p}.parameters.{}", param.name),
                            "duplicate parameter name",
                        ));
                    }
                    parameters.push(param);
                }
            }
            Some(other) => {
                return Err(Error::descriptor(
                    format!("{p}.parameters"),
                    format!("expected an array, got {}", describe_json(other)),
                ))
            }
        }

        let (result, result_constraints) = match field(o, "result") {
            None | Some(Value::Null) => (None, None),
            Some(Value::String(s)) if s == "void" => (None, None),
            // the slot form: {"type": T, "nullable"?: bool, <constraints>}
            Some(Value::Object(r)) if r.contains_key("type") => {
                let rp = format!("{p}.result");
                check_slot_keys(r, &rp, RESULT_KEYS)?;
                let mut ty =
                    types.parse_type(&r["type"], &format!("{rp}.type"), &HashMap::new())?;
                if opt_bool(r, "nullable", &rp)?.unwrap_or(false)
                    && !matches!(ty, Type::Nullable(_))
                {
                    ty = Type::Nullable(Box::new(ty));
                }
                let c = parse_constraints(r, &rp, &ty)?;
                (Some(ty), c)
            }
            Some(v) => (
                Some(types.parse_type(v, &[p, ".result"].concat(), &HashMap::new())?),
                None,
            ),
        };

        let kind = match field(o, "kind") {
            None | Some(Value::Null) => FunctionKind::Function,
            Some(Value::String(s)) if s == "function" => FunctionKind::Function,
            Some(Value::String(s)) if s == "output" => FunctionKind::Output,
            Some(other) => {
                return Err(Error::descriptor(
                    format!("{p}.kind"),
                    format!(
                        "expected \"function\" or \"output\", got {}",
                        describe_json(other)
                    ),
                ))
            }
        };

        let title = opt_string(o, "title", p)?;
        let description = opt_string(o, "description", p)?;
        for (key, text) in [("title", &title), ("description", &description)] {
            if let Some(t) = text {
                check_text(t, cx.metadata_properties)
                    .map_err(|e| Error::descriptor(format!("{p}.{key}"), e))?;
            }
        }

        let condition_text = opt_string(o, "condition", p)?;
        let condition = match &condition_text {
            None => None,
            Some(text) => {
                let c = Condition::parse(text)
                    .map_err(|e| Error::descriptor(format!("{p}.condition"), e))?;
                if let Some(props) = cx.metadata_properties {
                    for name in c.properties() {
                        if !props.iter().any(|x| x == name) {
                            return Err(Error::descriptor(
                                format!("{p}.condition"),
                                format!("\"{name}\" is not a property of the metadata schema (known: {})", props.join(", ")),
                            ));
                        }
                    }
                }
                Some(c)
            }
        };

        let toolkit = opt_string(o, "toolkit", p)?;
        if let Some(t) = &toolkit {
            if !is_function_id(t) {
                return Err(Error::descriptor(
                    format!("{p}.toolkit"),
                    "a toolkit name is snake_case: a lowercase letter, then lowercase letters, digits and _",
                ));
            }
        }

        let hints = parse_hints(field(o, "hints"), p)?;

        let callers = match field(o, "callers") {
            None | Some(Value::Null) => CallerPolicy::default(),
            Some(v) => CallerPolicy::parse(v, &format!("{p}.callers"))?,
        };

        let app_shortcut = match field(o, "appShortcut") {
            None | Some(Value::Null) => None,
            Some(v) => Some(Box::new(AppShortcut::parse(v, p)?)),
        };

        Ok(FunctionDescriptor {
            app_shortcut,
            symbol: opt_string(o, "symbol", p)?,
            opens_app: opt_bool(o, "opensApp", p)?.unwrap_or(false),
            requires_permission: opt_bool(o, "requiresPermission", p)?.unwrap_or(false),
            enabled: opt_bool(o, "enabled", p)?.unwrap_or(true),
            deprecated: opt_bool(o, "deprecated", p)?.unwrap_or(false),
            id,
            title,
            description,
            parameters,
            result,
            result_constraints,
            kind,
            toolkit,
            condition,
            condition_text,
            hints,
            callers,
            generated_for: None,
        })
    }

    /// The generated `search_{entity}` function.
    pub fn entity_search(entity_index: usize, def: &EntityDef) -> FunctionDescriptor {
        let shown = def.title.clone().unwrap_or_else(|| def.name.clone());
        FunctionDescriptor {
            id: format!("search_{}", def.name),
            title: Some(format!("Search {shown}")),
            description: Some(format!(
                "Finds {shown} entities matching a query{}.",
                def.description
                    .as_deref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            )),
            symbol: None,
            parameters: vec![
                Parameter {
                    name: "query".into(),
                    ty: Type::String,
                    description: Some("Text to match; an empty query matches every entity.".into()),
                    optional: false,
                    default: None,
                    constraints: None,
                },
                Parameter {
                    name: "limit".into(),
                    ty: Type::Int32,
                    description: Some("The most entities to return.".into()),
                    optional: true,
                    default: None,
                    constraints: None,
                },
            ],
            result: Some(Type::Array(Box::new(Type::Entity(entity_index)))),
            result_constraints: None,
            opens_app: false,
            requires_permission: false,
            kind: FunctionKind::Function,
            toolkit: None,
            condition: None,
            condition_text: None,
            enabled: true,
            deprecated: false,
            hints: Hints {
                read_only: Some(true),
                destructive: Some(false),
                idempotent: Some(true),
                open_world: Some(false),
            },
            callers: CallerPolicy::default(),
            generated_for: Some(entity_index),
            app_shortcut: None,
        }
    }

    /// The normalised JSON form (every field present), as listed by the registry.
    pub fn to_json(&self, types: &TypeSet, enabled_now: bool) -> Value {
        let mut o = Map::new();
        o.insert("id".into(), self.id.clone().into());
        o.insert("title".into(), opt_json(&self.title));
        o.insert("description".into(), opt_json(&self.description));
        o.insert("symbol".into(), opt_json(&self.symbol));
        let params: Vec<Value> = self
            .parameters
            .iter()
            .map(|p| {
                let mut po = Map::new();
                po.insert("name".into(), p.name.clone().into());
                po.insert("type".into(), types.type_json(&p.ty));
                po.insert("description".into(), opt_json(&p.description));
                po.insert("optional".into(), p.optional.into());
                po.insert("nullable".into(), matches!(p.ty, Type::Nullable(_)).into());
                if let Some(d) = p.default_value() {
                    po.insert("default".into(), d.clone());
                }
                if let Some(c) = &p.constraints {
                    c.write(&mut po);
                }
                Value::Object(po)
            })
            .collect();
        o.insert("parameters".into(), Value::Array(params));
        o.insert(
            "result".into(),
            match &self.result {
                None => "void".into(),
                Some(t) => types.type_json(t),
            },
        );
        if let Some(c) = &self.result_constraints {
            let mut co = Map::new();
            c.write(&mut co);
            o.insert("resultConstraints".into(), Value::Object(co));
        }
        o.insert("opensApp".into(), self.opens_app.into());
        o.insert("requiresPermission".into(), self.requires_permission.into());
        o.insert(
            "kind".into(),
            match self.kind {
                FunctionKind::Function => "function",
                FunctionKind::Output => "output",
            }
            .into(),
        );
        o.insert("toolkit".into(), opt_json(&self.toolkit));
        o.insert("condition".into(), opt_json(&self.condition_text));
        o.insert("enabled".into(), enabled_now.into());
        o.insert("deprecated".into(), self.deprecated.into());
        let mut h = Map::new();
        for (k, v) in [
            ("readOnly", self.hints.read_only),
            ("destructive", self.hints.destructive),
            ("idempotent", self.hints.idempotent),
            ("openWorld", self.hints.open_world),
        ] {
            h.insert(k.into(), v.map(Value::Bool).unwrap_or(Value::Null));
        }
        o.insert("hints".into(), Value::Object(h));
        o.insert("callers".into(), self.callers.to_json());
        // listed only when declared (like resultConstraints), so registries without
        // shortcuts read as before
        if let Some(s) = &self.app_shortcut {
            o.insert("appShortcut".into(), s.to_json());
        }
        o.insert("generated".into(), self.generated_for.is_some().into());
        o.insert(
            "entity".into(),
            self.generated_for
                .map(|i| Value::String(types.entities[i].name.clone()))
                .unwrap_or(Value::Null),
        );
        Value::Object(o)
    }
}

fn parse_parameter(
    item: &Value,
    index: usize,
    fid: &str,
    types: &TypeSet,
    cx: &ParseContext<'_>,
) -> Result<Parameter> {
    // paths are made as needed (most descriptors have no error to report)
    let o = item.as_object().ok_or_else(|| {
        Error::descriptor(
            format!("{fid}.parameters[{index}]"),
            format!("expected an object, got {}", describe_json(item)),
        )
    })?;
    let name = match field(o, "name") {
        Some(Value::String(s)) => s.clone(),
        _ => {
            return Err(Error::descriptor(
                format!("{fid}.parameters[{index}].name"),
                "missing or not a string",
            ))
        }
    };
    let path = [fid, ".parameters.", &name].concat();
    if !is_parameter_name(&name) {
        return Err(Error::descriptor(
            &path,
            "a parameter name is camelCase: a lowercase letter, then letters and digits",
        ));
    }
    check_slot_keys(o, &path, PARAMETER_KEYS)?;
    let tv =
        field(o, "type").ok_or_else(|| Error::descriptor(format!("{path}.type"), "missing"))?;
    let mut ty = types.parse_type(tv, &[&path, ".type"].concat(), &HashMap::new())?;
    if opt_bool(o, "nullable", &path)?.unwrap_or(false) && !matches!(ty, Type::Nullable(_)) {
        ty = Type::Nullable(Box::new(ty));
    }
    let constraints = parse_constraints(o, &path, &ty)?;
    let default = field(o, "default").cloned();
    let nullable = matches!(ty, Type::Nullable(_));
    let mut optional = nullable_may_be_omitted(o, &path, nullable)?;
    // one nullable rule (seed 002's editNote(title: String?)): a nullable parameter may be
    // omitted and then binds as null, with no default declared (`Parameter::default_json`)
    let default = match default {
        None => None,
        Some(d) => {
            if contains_entity(&ty) {
                return Err(Error::descriptor(
                    format!("{path}.default"),
                    "an entity parameter cannot have a default",
                ));
            }
            // a default makes the parameter optional
            optional = true;
            let text = d.to_string();
            let bound = bind_value_with(
                types,
                &ty,
                constraints.as_deref(),
                &text,
                Mode::Values,
                &cx.limits,
            )
            .map_err(|e| {
                let inner = if e.path.is_empty() {
                    String::new()
                } else {
                    format!(".{}", e.path)
                };
                Error::descriptor(format!("{path}.default{inner}"), e.reason)
            })?;
            Some(Box::new(ParameterDefault {
                value: d,
                json: bound.json,
            }))
        }
    };
    let description = opt_string(o, "description", &path)?;
    if let Some(t) = &description {
        check_text(t, cx.metadata_properties)
            .map_err(|e| Error::descriptor(format!("{path}.description"), e))?;
    }
    Ok(Parameter {
        name,
        ty,
        description,
        optional,
        default,
        constraints,
    })
}

/// The keys a parameter may have, besides the constraint keywords.
const PARAMETER_KEYS: &[&str] = &[
    "name",
    "type",
    "description",
    "optional",
    "nullable",
    "default",
];

/// The keys of a result in its slot form `{"type": T, …}`, besides the constraint keywords.
const RESULT_KEYS: &[&str] = &["type", "nullable"];

/// A function's `hints` (absent or null: none).
fn parse_hints(v: Option<&Value>, p: &str) -> Result<Hints> {
    match v {
        None | Some(Value::Null) => Ok(Hints::default()),
        Some(Value::Object(h)) => {
            let hp = format!("{p}.hints");
            check_keys(
                h,
                &hp,
                &["readOnly", "destructive", "idempotent", "openWorld"],
            )?;
            Ok(Hints {
                read_only: opt_bool(h, "readOnly", &hp)?,
                destructive: opt_bool(h, "destructive", &hp)?,
                idempotent: opt_bool(h, "idempotent", &hp)?,
                open_world: opt_bool(h, "openWorld", &hp)?,
            })
        }
        Some(other) => Err(Error::descriptor(
            format!("{p}.hints"),
            format!("expected an object, got {}", describe_json(other)),
        )),
    }
}

fn contains_entity(ty: &Type) -> bool {
    match ty {
        Type::Entity(_) => true,
        Type::Array(t) | Type::Nullable(t) => contains_entity(t),
        _ => false,
    }
}

/// Parses and validates an entity descriptor (no metadata schema: placeholders refused).
pub fn parse_entity(doc: &Value, types: &TypeSet) -> Result<EntityDef> {
    parse_entity_with(doc, types, None)
}

/// [`parse_entity`] with the declared metadata properties that placeholders may name.
pub fn parse_entity_with(
    doc: &Value,
    types: &TypeSet,
    metadata_properties: Option<&[String]>,
) -> Result<EntityDef> {
    let o = doc.as_object().ok_or_else(|| {
        Error::descriptor(
            "entity",
            format!("expected a JSON object, got {}", describe_json(doc)),
        )
    })?;
    let name = match field(o, "name") {
        Some(Value::String(s)) => s.clone(),
        _ => return Err(Error::descriptor("entity.name", "missing or not a string")),
    };
    if !is_function_id(&name) {
        return Err(Error::descriptor(
            format!("{}.name", crate::model::types::quote_short(&name)),
            "an entity name is snake_case (it becomes part of search_{name})",
        ));
    }
    let p = name.as_str();
    check_keys(o, p, &["name", "title", "description", "idField", "fields"])?;
    types.check_entity_name(&name, p)?;
    let fields = types.parse_fields(field(o, "fields"), p, &HashMap::new(), metadata_properties)?;
    let id_field = opt_string(o, "idField", p)?.unwrap_or_else(|| "id".into());
    match fields.iter().find(|f| f.name == id_field) {
        None => {
            return Err(Error::descriptor(
                format!("{p}.idField"),
                format!("the entity has no field \"{id_field}\" to use as its id"),
            ))
        }
        Some(f) if f.ty != Type::String || f.optional => {
            return Err(Error::descriptor(
                format!("{p}.fields.{id_field}"),
                "the id field must be a required string",
            ))
        }
        Some(_) => {}
    }
    let title = opt_string(o, "title", p)?;
    let description = opt_string(o, "description", p)?;
    for (key, text) in [("title", &title), ("description", &description)] {
        if let Some(t) = text {
            check_text(t, metadata_properties)
                .map_err(|e| Error::descriptor(format!("{p}.{key}"), e))?;
        }
    }
    Ok(EntityDef {
        name,
        title,
        description,
        id_field,
        fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn types() -> TypeSet {
        let mut t = TypeSet::default();
        t.define(&json!({"enums": [{"name": "Priority", "members": ["Low", "Normal", "High"]}]}))
            .unwrap();
        t
    }

    fn parse(v: Value) -> Result<FunctionDescriptor> {
        FunctionDescriptor::parse(&v, &types(), &ParseContext::default())
    }

    #[test]
    fn the_issue_example_message() {
        let e = parse(json!({"id": "create_order", "parameters": [{"name": "priority", "type": {"enum": "Priorty"}}]}))
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("create_order.parameters.priority.type: unknown enum \"Priorty\""),
            "{e}"
        );
    }

    #[test]
    fn ids_and_names_are_checked() {
        assert!(parse(json!({"id": "CreateOrder"}))
            .unwrap_err()
            .to_string()
            .contains("snake_case"));
        assert!(
            parse(json!({"id": "x", "parameters": [{"name": "Customer", "type": "string"}]}))
                .unwrap_err()
                .to_string()
                .contains("camelCase")
        );
        assert!(parse(json!({"id": "x", "parameters": [{"name": "a", "type": "string"}, {"name": "a", "type": "int32"}]})).unwrap_err().to_string().contains("duplicate"));
        assert_eq!(parse(json!({"id": "x", "opensapp": true})).unwrap_err().to_string(), "x.opensapp: unknown field (did you mean \"opensApp\"?); allowed: id, title, description, symbol, parameters, result, opensApp, requiresPermission, kind, toolkit, condition, enabled, deprecated, hints, callers, appShortcut");
        assert!(parse(json!({"id": "x", "kind": "tool"}))
            .unwrap_err()
            .to_string()
            .starts_with("x.kind:"));
        assert!(parse(json!({"id": "x", "condition": "A &"}))
            .unwrap_err()
            .to_string()
            .starts_with("x.condition:"));
        assert!(parse(json!([])).is_err());
    }

    #[test]
    fn defaults_are_validated_and_make_the_parameter_optional() {
        let f = parse(json!({"id": "x", "parameters": [{"name": "priority", "type": {"enum": "Priority"}, "default": "Normal"}]})).unwrap();
        assert!(f.parameters[0].optional);
        assert_eq!(f.parameters[0].default_json(), Some("\"Normal\""));
        let e = parse(json!({"id": "x", "parameters": [{"name": "priority", "type": {"enum": "Priority"}, "default": "Urgent"}]})).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "x.parameters.priority.default: \"Urgent\" is not a member of enum Priority"
            ),
            "{e}"
        );
    }

    #[test]
    fn a_parameter_without_a_default_carries_no_default_slots() {
        // what registration keeps per parameter (88 bytes on x86_64): the default's
        // `Value` and its bound text inline would make it 176
        assert!(
            std::mem::size_of::<Parameter>() <= 88,
            "a parameter is {} bytes",
            std::mem::size_of::<Parameter>()
        );
        let f = parse(json!({"id": "x", "parameters": [
            {"name": "plain", "type": "string"},
            {"name": "note", "type": {"nullable": "string"}},
            {"name": "count", "type": "int32", "default": 1e2},
            {"name": "maybe", "type": {"nullable": "int32"}, "default": null}
        ]}))
        .unwrap();
        let [plain, note, count, maybe] = &f.parameters[..] else {
            panic!("four parameters")
        };
        // none declared: nothing allocated, and nothing stands in for a required one
        assert!(plain.default.is_none() && plain.default_json().is_none());
        assert!(!plain.optional);
        // a nullable one without a default binds null when omitted, with nothing allocated
        assert!(note.default.is_none());
        assert_eq!(note.default_json(), Some("null"));
        assert!(note.optional);
        // declared: as given, and as the handler receives it
        assert_eq!(count.default_value(), Some(&json!(1e2)));
        assert_eq!(count.default_json(), Some("100"));
        assert!(count.optional);
        assert_eq!(maybe.default_value(), Some(&Value::Null));
        assert_eq!(maybe.default_json(), Some("null"));
    }

    #[test]
    fn metadata_properties_are_checked_when_declared() {
        let props = vec![
            "ProviderName".to_string(),
            "HasAdvancedFeatures".to_string(),
        ];
        let cx = ParseContext {
            metadata_properties: Some(&props),
            ..Default::default()
        };
        let ok = json!({"id": "x", "description": "Search using {metadata.ProviderName}", "condition": "HasAdvancedFeatures"});
        assert!(FunctionDescriptor::parse(&ok, &types(), &cx).is_ok());
        let bad = json!({"id": "x", "description": "Search using {metadata.Provider}"});
        assert!(FunctionDescriptor::parse(&bad, &types(), &cx)
            .unwrap_err()
            .to_string()
            .contains("{metadata.Provider}"));
        let bad = json!({"id": "x", "condition": "HasAdvanced"});
        assert!(FunctionDescriptor::parse(&bad, &types(), &cx)
            .unwrap_err()
            .to_string()
            .contains("\"HasAdvanced\" is not a property"));
    }

    #[test]
    fn normalised_json_has_every_field() {
        let f = parse(json!({"id": "edit_note", "parameters": [{"name": "title", "type": "string", "nullable": true}]})).unwrap();
        let j = f.to_json(&types(), true);
        assert_eq!(j["parameters"][0]["type"], json!({"nullable": "string"}));
        assert_eq!(j["result"], json!("void"));
        assert_eq!(j["kind"], json!("function"));
        assert_eq!(j["enabled"], json!(true));
        assert_eq!(j["generated"], json!(false));
    }

    #[test]
    fn entities_need_a_string_id_field() {
        let t = types();
        assert!(parse_entity(
            &json!({"name": "order", "fields": [{"name": "id", "type": "string"}]}),
            &t
        )
        .is_ok());
        assert!(parse_entity(
            &json!({"name": "order", "fields": [{"name": "key", "type": "string"}]}),
            &t
        )
        .unwrap_err()
        .to_string()
        .contains("no field \"id\""));
        assert!(parse_entity(&json!({"name": "Priority", "fields": []}), &t).is_err());
    }

    #[test]
    fn an_omitted_nullable_binds_as_null_and_an_omitted_optional_stays_out() {
        use crate::model::binding::{bind_arguments, bind_value, Limits, Mode};
        let mut t = TypeSet::default();
        t.define(&json!({"records": [{"name": "Line", "fields": [
            {"name": "sku", "type": "string"}, {"name": "qty", "type": "int32", "optional": true}]}]}))
            .unwrap();
        let f = FunctionDescriptor::parse(
            &json!({"id": "edit_note", "parameters": [
                {"name": "title", "type": "string", "nullable": true},
                {"name": "tag", "type": "string", "optional": true}]}),
            &t,
            &Default::default(),
        )
        .unwrap();
        let l = Limits::default();
        let bind = |args: &str| {
            bind_arguments(&t, &f.parameters, Some(args), &l)
                .unwrap()
                .json
        };
        assert_eq!(bind(r#"{"title":null}"#), r#"{"title":null}"#);
        assert_eq!(bind("{}"), r#"{"title":null}"#);
        assert_eq!(
            bind(r#"{"title":"t","tag":"x"}"#),
            r#"{"title":"t","tag":"x"}"#
        );
        // a nullable record field likewise
        let line = bind_value(&t, &Type::Record(0), r#"{"sku":"a"}"#, Mode::Values, &l).unwrap();
        assert_eq!(line.json, r#"{"sku":"a"}"#, "qty is optional, not nullable");
        let mut t2 = TypeSet::default();
        t2.define(&json!({"records": [{"name": "Note", "fields": [{"name": "title", "type": {"nullable": "string"}}]}]}))
            .unwrap();
        assert!(t2.records[0].fields[0].optional);
        let note = bind_value(&t2, &Type::Record(0), "{}", Mode::Values, &l).unwrap();
        assert_eq!(note.json, r#"{"title":null}"#);
    }

    /// The arguments' fast path (`is_normal_arguments`) may only keep a text the parsing
    /// binder gives back unchanged: checked on hand-picked cases and on deterministic
    /// mutations of normal ones (a byte changed, dropped or doubled), and it is taken for the
    /// plain cases, compact arguments as the bindings and MCP clients send them.
    #[test]
    fn normal_arguments_are_exactly_what_the_parsing_binder_gives_back() {
        use crate::model::binding::{
            bind_arguments, bind_arguments_parsed, is_normal_arguments, mutate_each, Limits,
        };
        let mut t = TypeSet::default();
        t.define(&json!({
            "enums": [{"name": "Priority", "members": ["Low", "Normal", "High"]}],
            "records": [
                {"name": "Money", "fields": [{"name": "units", "type": "int64"}, {"name": "currency", "type": "string"}]},
                {"name": "Line", "fields": [
                    {"name": "sku", "type": "string", "minLength": 2},
                    {"name": "price", "type": {"record": "Money"}},
                    {"name": "note", "type": {"nullable": "string"}},
                    {"name": "gift", "type": "boolean", "optional": true}]}]
        }))
        .unwrap();
        let f = FunctionDescriptor::parse(
            &json!({"id": "place_order", "parameters": [
                {"name": "customer", "type": "string", "maxLength": 8},
                {"name": "quantity", "type": "int32", "minimum": 1},
                {"name": "priority", "type": {"enum": "Priority"}, "default": "Normal"},
                {"name": "line", "type": {"record": "Line"}},
                {"name": "express", "type": "boolean", "optional": true},
                {"name": "memo", "type": "string", "nullable": true},
                {"name": "seats", "type": "int64", "optional": true},
                {"name": "tags", "type": {"array": "string"}, "optional": true},
                {"name": "codes", "type": {"array": "int32"}, "optional": true, "uniqueItems": true}]}),
            &t,
            &Default::default(),
        )
        .unwrap();
        let p = &f.parameters;
        let l = Limits::default();
        let line = r#"{"sku":"ab-1","price":{"units":1250,"currency":"EUR"},"note":null}"#;
        let base = format!(
            r#"{{"customer":"acme","quantity":2,"priority":"High","line":{line},"memo":"é ✓"}}"#
        );
        let taken = [
            base.clone(),
            // any order, the optional ones given
            format!(
                r#"{{"memo":null,"express":true,"tags":["a","b c",""],"seats":-9223372036854775808,"line":{},"priority":"Low","quantity":2147483647,"customer":"z"}}"#,
                line.replace(r#","note":null"#, r#","note":"n","gift":false"#)
            ),
        ];
        for text in &taken {
            assert!(is_normal_arguments(&t, p, text, &l), "not taken: {text}");
            let bound = bind_arguments_parsed(&t, p, text, &l).map(|b| b.json);
            assert_eq!(bound.as_deref(), Ok(text.as_str()));
            let fast = bind_arguments(&t, p, Some(text), &l).unwrap();
            assert_eq!(
                (fast.json.as_str(), fast.entity_refs.len()),
                (text.as_str(), 0)
            );
        }
        let declined = [
            // the binder writes the default, or null for the nullable parameter
            base.replace(r#""priority":"High","#, ""),
            base.replace(r#","memo":"é ✓""#, ""),
            // white space, an escape, a number's form, a nullable record field left out
            base.replace(',', ", "),
            format!(" {base}"),
            format!("{base}\n"),
            base.replace("acme", "ac\\u006de"),
            base.replace(":2,", ":2.0,"),
            base.replace(":2,", ":02,"),
            base.replace(r#","note":null"#, ""),
            // refused: a constraint, an unknown, repeated or missing parameter, a type
            base.replace(":2,", ":0,"),
            base.replace("acme", "acme-corp"),
            base.replace("ab-1", "a"),
            base.replace(r#""memo""#, r#""extra""#),
            base.replace(r#","memo":"é ✓""#, r#","memo":"a","memo":"b""#),
            base.replace(r#""customer":"acme","#, ""),
            base.replace("\"High\"", "\"high\""),
            base.replace(":2,", ":\"2\","),
            // an array's own constraint is the parsing binder's to check
            base.replace(r#""memo""#, r#""codes":[1,2],"memo""#),
            base.replace(r#""memo""#, r#""tags":["a",1],"memo""#),
            "[]".into(),
            "null".into(),
        ];
        for text in &declined {
            assert!(!is_normal_arguments(&t, p, text, &l), "taken: {text}");
            assert_eq!(
                bind_arguments(&t, p, Some(text), &l),
                bind_arguments_parsed(&t, p, text, &l),
                "{text}"
            );
        }
        // a record parameter one level too deep, a text above the size limit
        for (max_depth, max_input_bytes) in [(2, 1 << 20), (64, base.len() - 1)] {
            let over = Limits {
                max_depth,
                max_input_bytes,
            };
            assert!(!is_normal_arguments(&t, p, &base, &over));
        }
        let flat = Limits { max_depth: 3, ..l };
        assert!(is_normal_arguments(&t, p, &base, &flat));
        // an entity parameter's id is kept with its ref, as the parsing binder finds it; an
        // entity in a list is the parsing binder's
        let mut te = t.clone();
        let order = parse_entity(
            &json!({"name": "order", "fields": [{"name": "id", "type": "string"}]}),
            &te,
        )
        .unwrap();
        te.add_entity(order);
        let fe = FunctionDescriptor::parse(
            &json!({"id": "merge_orders", "parameters": [
                {"name": "order", "type": {"entity": "order"}},
                {"name": "into", "type": {"entity": "order"}, "nullable": true},
                {"name": "others", "type": {"array": {"entity": "order"}}, "optional": true},
                {"name": "note", "type": "string", "optional": true}]}),
            &te,
            &Default::default(),
        )
        .unwrap();
        let pe = &fe.parameters;
        let entity_taken = [
            r#"{"order":"o-1","into":"o-2"}"#,
            r#"{"into":null,"note":"n","order":"o-1"}"#,
            r#"{"order":"","into":"é ✓"}"#,
        ];
        for text in entity_taken {
            assert!(is_normal_arguments(&te, pe, text, &l), "not taken: {text}");
            let fast = bind_arguments(&te, pe, Some(text), &l).unwrap();
            assert_eq!(Ok(&fast), bind_arguments_parsed(&te, pe, text, &l).as_ref());
            assert_eq!(fast.json, text);
        }
        let fast = bind_arguments(&te, pe, Some(entity_taken[0]), &l).unwrap();
        let refs: Vec<_> = fast
            .entity_refs
            .iter()
            .map(|r| {
                (
                    r.id(&fast.json),
                    r.path.as_str(),
                    &fast.json[r.range.clone()],
                )
            })
            .collect();
        assert_eq!(
            refs,
            [
                ("o-1".into(), "order", "\"o-1\""),
                ("o-2".into(), "into", "\"o-2\"")
            ]
        );
        for text in [
            r#"{"order":"o-1","into":"o-2","others":["o-3"]}"#,
            r#"{"order":"o\u002d1","into":null}"#,
            r#"{"order":1,"into":null}"#,
            r#"{"order":"o-1"}"#,
        ] {
            assert!(!is_normal_arguments(&te, pe, text, &l), "taken: {text}");
            assert_eq!(
                bind_arguments(&te, pe, Some(text), &l),
                bind_arguments_parsed(&te, pe, text, &l),
                "{text}"
            );
        }
        let (kept, tried) = mutate_each(&entity_taken, 6_000, 0x9e37_79b9_7f4a_7c15, |_, m| {
            let keep = is_normal_arguments(&te, pe, m, &l);
            if keep {
                let fast = bind_arguments(&te, pe, Some(m), &l);
                assert_eq!(fast, bind_arguments_parsed(&te, pe, m, &l), "{m}");
                assert_eq!(
                    fast.map(|b| b.json).as_deref(),
                    Ok(m),
                    "kept but changed: {m}"
                );
            }
            keep
        });
        assert!(
            tried > 10_000 && kept > 50,
            "{kept} of {tried} entity mutations kept"
        );
        // mutations: whatever the fast path keeps, the parsing binder gives back unchanged
        let texts: Vec<&str> = taken.iter().map(String::as_str).collect();
        let (kept, tried) = mutate_each(&texts, 12_000, 0x2545_f491_4f6c_dd1d, |_, m| {
            let keep = is_normal_arguments(&t, p, m, &l);
            if keep {
                let bound = bind_arguments_parsed(&t, p, m, &l).map(|b| b.json);
                assert_eq!(bound.as_deref(), Ok(m), "kept but changed: {m}");
            }
            keep
        });
        assert!(
            tried > 20_000 && kept > 100,
            "{kept} of {tried} mutations kept"
        );
    }
}
