//! JSON Schema (draft 2020-12) of a function's parameters and of its result.
//!
//! Records, enums and entities go in `$defs` and are used through `$ref`. Nullable
//! primitives are `"type": [T, "null"]`; nullable references are `anyOf` with
//! `{"type": "null"}`, which every mainstream validator accepts. A nullable parameter or
//! field is never `required` (it may be omitted and then binds as null).

use crate::model::constraints::Constraints;
use crate::model::descriptor::FunctionDescriptor;
use crate::model::types::{Type, TypeSet};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Where an entity appears: as a parameter it is given by id; as a value, in full.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Parameters,
    Values,
}

struct Builder<'t> {
    types: &'t TypeSet,
    side: Side,
    /// Named types referenced so far (by $defs key), filled transitively.
    defs: BTreeSet<DefKey>,
    /// Of them, those referenced since `defs` last wrote its round (so a round costs what
    /// it adds, not what was found before it: a chain of records stays linear).
    fresh: Vec<DefKey>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum DefKey {
    Enum(usize),
    Record(usize),
    Entity(usize),
}

impl Builder<'_> {
    fn refer(&mut self, key: DefKey) {
        if self.defs.insert(key) {
            self.fresh.push(key);
        }
    }

    fn schema(&mut self, ty: &Type, cons: Option<&Constraints>) -> Value {
        match ty {
            Type::String => {
                let mut o = typed("string");
                if let Some(c) = cons {
                    c.write_other(&mut o);
                }
                Value::Object(o)
            }
            Type::Boolean => json!({"type": "boolean"}),
            Type::Int32 => integer(i32::MIN as i64, i32::MAX as i64, cons),
            Type::Int64 => integer(i64::MIN, i64::MAX, cons),
            Type::Double => {
                let mut o = typed("number");
                if let Some(c) = cons {
                    c.write_lower(&mut o);
                    c.write_upper(&mut o);
                }
                Value::Object(o)
            }
            Type::DateTime => json!({"type": "string", "format": "date-time"}),
            Type::Date => json!({"type": "string", "format": "date"}),
            Type::Uuid => json!({"type": "string", "format": "uuid"}),
            Type::Enum(i) => {
                self.refer(DefKey::Enum(*i));
                json!({"$ref": format!("#/$defs/{}", self.types.enums[*i].name)})
            }
            Type::Record(i) => {
                self.refer(DefKey::Record(*i));
                json!({"$ref": format!("#/$defs/{}", self.types.records[*i].name)})
            }
            Type::Entity(i) => {
                let e = &self.types.entities[*i];
                if self.side == Side::Parameters {
                    json!({"type": "string", "description": format!("The id of a {} entity.", e.title.as_deref().unwrap_or(&e.name))})
                } else {
                    self.refer(DefKey::Entity(*i));
                    json!({"$ref": format!("#/$defs/{}", e.name)})
                }
            }
            Type::Array(item) => {
                let mut o = typed("array");
                o.insert("items".into(), self.schema(item, None));
                if let Some(c) = cons {
                    c.write_other(&mut o);
                }
                Value::Object(o)
            }
            Type::Nullable(inner) => {
                let mut s = self.schema(inner, cons);
                match s.get("type").cloned() {
                    Some(Value::String(t))
                        if s.get("$ref").is_none() && s.get("enum").is_none() =>
                    {
                        s["type"] = json!([t, "null"]);
                        s
                    }
                    _ => json!({"anyOf": [s, {"type": "null"}]}),
                }
            }
        }
    }

    fn object<'a>(
        &mut self,
        fields: impl Iterator<Item = FieldView<'a>>,
        description: Option<&str>,
    ) -> Value {
        let mut props = Map::new();
        let mut required = Vec::new();
        for f in fields {
            let mut s = self.schema(f.ty, f.constraints);
            if let Some(d) = f.description {
                attach(&mut s, "description", Value::String(d.to_owned()));
            }
            if let Some(d) = f.default {
                attach(&mut s, "default", d.clone());
            }
            if !f.optional {
                required.push(Value::String(f.name.to_owned()));
            }
            props.insert(f.name.to_owned(), s);
        }
        let mut o = Map::new();
        o.insert("type".into(), "object".into());
        if let Some(d) = description {
            o.insert("description".into(), d.into());
        }
        o.insert("properties".into(), Value::Object(props));
        if !required.is_empty() {
            o.insert("required".into(), Value::Array(required));
        }
        o.insert("additionalProperties".into(), false.into());
        Value::Object(o)
    }

    /// Builds `$defs` for every referenced named type (and those they reference).
    fn defs(&mut self) -> Option<Value> {
        let mut out = Map::new();
        loop {
            // the keys referenced since the last round, sorted: what is not done yet
            let mut todo = std::mem::take(&mut self.fresh);
            if todo.is_empty() {
                break;
            }
            todo.sort_unstable();
            for key in todo {
                let (name, schema) = match key {
                    DefKey::Enum(i) => {
                        let e = &self.types.enums[i];
                        let mut s = json!({"type": "string", "enum": e.members.iter().map(|m| m.name.clone()).collect::<Vec<_>>()});
                        let described: Vec<String> = e
                            .members
                            .iter()
                            .filter_map(|m| {
                                m.description.as_ref().map(|d| format!("{}: {d}", m.name))
                            })
                            .collect();
                        let mut desc = e.description.clone().unwrap_or_default();
                        if !described.is_empty() {
                            if !desc.is_empty() {
                                if !desc.ends_with('.') {
                                    desc.push('.');
                                }
                                desc.push(' ');
                            }
                            desc.push_str(&described.join("; "));
                        }
                        if !desc.is_empty() {
                            s["description"] = desc.into();
                        }
                        (e.name.clone(), s)
                    }
                    DefKey::Record(i) => {
                        let r = &self.types.records[i];
                        let side = self.side;
                        self.side = Side::Values;
                        let s = self.object(
                            r.fields.iter().map(FieldView::from),
                            r.description.as_deref(),
                        );
                        self.side = side;
                        (r.name.clone(), s)
                    }
                    DefKey::Entity(i) => {
                        let e = &self.types.entities[i];
                        let side = self.side;
                        self.side = Side::Values;
                        let s = self.object(
                            e.fields.iter().map(FieldView::from),
                            e.description.as_deref(),
                        );
                        self.side = side;
                        (e.name.clone(), s)
                    }
                };
                out.insert(name, schema);
            }
        }
        if out.is_empty() {
            None
        } else {
            Some(Value::Object(out))
        }
    }
}

struct FieldView<'a> {
    name: &'a str,
    ty: &'a Type,
    constraints: Option<&'a Constraints>,
    description: Option<&'a str>,
    optional: bool,
    default: Option<&'a Value>,
}

impl<'a> From<&'a crate::model::types::Field> for FieldView<'a> {
    fn from(f: &'a crate::model::types::Field) -> Self {
        FieldView {
            name: &f.name,
            ty: &f.ty,
            constraints: f.constraints.as_deref(),
            description: f.description.as_deref(),
            optional: f.optional,
            default: None,
        }
    }
}

fn typed(t: &str) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("type".into(), t.into());
    o
}

/// An integer of a width: the width's range, narrowed by the constraints' bounds (which
/// registration keeps inside the width).
fn integer(lo: i64, hi: i64, cons: Option<&Constraints>) -> Value {
    let mut o = typed("integer");
    match cons {
        Some(c) if c.has_lower() => c.write_lower(&mut o),
        _ => {
            o.insert("minimum".into(), lo.into());
        }
    }
    match cons {
        Some(c) if c.has_upper() => c.write_upper(&mut o),
        _ => {
            o.insert("maximum".into(), hi.into());
        }
    }
    Value::Object(o)
}

/// Adds a keyword beside a schema; a `$ref` gets siblings directly (allowed in 2020-12).
fn attach(s: &mut Value, key: &str, v: Value) {
    if let Value::Object(o) = s {
        o.insert(key.into(), v);
    }
}

/// The schema of a function's parameters: always an object schema.
pub fn parameters_schema(types: &TypeSet, f: &FunctionDescriptor) -> Value {
    let mut b = Builder {
        types,
        side: Side::Parameters,
        defs: BTreeSet::new(),
        fresh: Vec::new(),
    };
    let obj = b.object(
        f.parameters.iter().map(|p| FieldView {
            name: &p.name,
            ty: &p.ty,
            constraints: p.constraints.as_deref(),
            description: p.description.as_deref(),
            optional: p.optional,
            default: p.default_value(),
        }),
        None,
    );
    finish(obj, b.defs(), f.title.as_deref())
}

/// The schema of a function's result value (`None` for void). For an output-kind
/// function without a declared result, the result is its bound arguments.
pub fn result_schema(types: &TypeSet, f: &FunctionDescriptor) -> Option<Value> {
    let mut b = Builder {
        types,
        side: Side::Values,
        defs: BTreeSet::new(),
        fresh: Vec::new(),
    };
    let root = match (&f.result, f.kind) {
        (Some(ty), _) => b.schema(ty, f.result_constraints.as_deref()),
        (None, crate::model::descriptor::FunctionKind::Output) => b.object(
            f.parameters.iter().map(|p| FieldView {
                name: &p.name,
                ty: &p.ty,
                constraints: p.constraints.as_deref(),
                description: p.description.as_deref(),
                // omitted arguments with a default (a nullable one: null) are in the result
                optional: p.optional && p.default_json().is_none(),
                default: None,
            }),
            None,
        ),
        (None, _) => return None,
    };
    Some(finish(root, b.defs(), None))
}

fn finish(root: Value, defs: Option<Value>, title: Option<&str>) -> Value {
    let mut o = Map::new();
    o.insert("$schema".into(), DRAFT_2020_12.into());
    if let Some(t) = title {
        o.insert("title".into(), t.into());
    }
    if let Value::Object(r) = root {
        o.extend(r);
    }
    if let Some(d) = defs {
        o.insert("$defs".into(), d);
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::descriptor::ParseContext;

    fn setup() -> (TypeSet, FunctionDescriptor) {
        let mut t = TypeSet::default();
        t.define(&json!({
            "enums": [{"name": "Priority", "members": ["Low", {"name": "Normal", "description": "the default"}, "High"]}],
            "records": [{"name": "Order", "fields": [{"name": "id", "type": "string"}, {"name": "priority", "type": {"enum": "Priority"}}, {"name": "note", "type": {"nullable": "string"}, "optional": true}]}]
        })).unwrap();
        let f = FunctionDescriptor::parse(
            &json!({
                "id": "create_order", "title": "Create order",
                "parameters": [
                    {"name": "customer", "type": "string", "description": "Customer name"},
                    {"name": "quantity", "type": "int32"},
                    {"name": "priority", "type": {"enum": "Priority"}, "default": "Normal"},
                    {"name": "maybe", "type": {"nullable": {"enum": "Priority"}}, "optional": true},
                    {"name": "when", "type": {"nullable": "dateTime"}, "optional": true}
                ],
                "result": {"record": "Order"}
            }),
            &t,
            &ParseContext::default(),
        )
        .unwrap();
        (t, f)
    }

    #[test]
    fn parameters_schema_shape() {
        let (t, f) = setup();
        let s = parameters_schema(&t, &f);
        assert_eq!(s["$schema"], DRAFT_2020_12);
        assert_eq!(s["type"], "object");
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["required"], json!(["customer", "quantity"]));
        assert_eq!(
            s["properties"]["customer"],
            json!({"type": "string", "description": "Customer name"})
        );
        assert_eq!(s["properties"]["quantity"]["maximum"], json!(i32::MAX));
        assert_eq!(
            s["properties"]["priority"],
            json!({"$ref": "#/$defs/Priority", "default": "Normal"})
        );
        assert_eq!(
            s["properties"]["maybe"],
            json!({"anyOf": [{"$ref": "#/$defs/Priority"}, {"type": "null"}]})
        );
        assert_eq!(
            s["properties"]["when"],
            json!({"type": ["string", "null"], "format": "date-time"})
        );
        assert_eq!(
            s["$defs"]["Priority"]["enum"],
            json!(["Low", "Normal", "High"])
        );
        assert!(s["$defs"].get("Order").is_none());
    }

    #[test]
    fn result_schema_pulls_in_nested_definitions() {
        let (t, f) = setup();
        let s = result_schema(&t, &f).unwrap();
        assert_eq!(s["$ref"], "#/$defs/Order");
        assert_eq!(s["$defs"]["Order"]["required"], json!(["id", "priority"]));
        assert!(s["$defs"].get("Priority").is_some());
    }

    #[test]
    fn no_parameters_is_still_an_object_schema() {
        let t = TypeSet::default();
        let f =
            FunctionDescriptor::parse(&json!({"id": "list_notes"}), &t, &ParseContext::default())
                .unwrap();
        assert_eq!(
            parameters_schema(&t, &f),
            json!({"$schema": DRAFT_2020_12, "type": "object", "properties": {}, "additionalProperties": false})
        );
        assert!(result_schema(&t, &f).is_none());
    }
}
