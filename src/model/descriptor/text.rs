//! A function descriptor read straight from its text, without a JSON tree.
//!
//! [`FunctionDescriptor::parse`] walks a `serde_json::Value`: building that tree (an
//! allocation per key and string, a SipHash per key) and dropping it cost about two thirds
//! of a registration. Here serde reads the text once into a few small structs whose
//! strings are the descriptor's own (type names are borrowed from the text), and
//! [`RawFunction::resolve`] checks them against the named types.
//!
//! This path only ever *accepts*: it takes what [`FunctionDescriptor::parse`] accepts and
//! builds the same descriptor, and declines (`None`) at the first thing that is unusual or
//! wrong — an unknown or repeated key, a value of the wrong kind, a name that fails its
//! rule, an unknown type, a default or constraint that does not hold. The caller then runs
//! `parse` on the tree, which says what is wrong exactly as it always did (path, reason,
//! "did you mean"). Rare parts (`hints`, `callers`, constraint keywords, defaults) are
//! read as `Value`s and checked by the same functions `parse` uses.

use super::{
    contains_entity, is_function_id, is_parameter_name, parse_hints, CallerPolicy,
    FunctionDescriptor, FunctionKind, Parameter, ParseContext,
};
use crate::model::binding::{bind_value_with, Mode};
use crate::model::condition::{check_text, Condition};
use crate::model::types::{parse_constraints, ParameterDefault, Type, TypeSet};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// Reads a function descriptor's text; `None` when it is anything but a plain, well-formed
/// descriptor (the caller then parses it into a tree for the message).
pub(crate) fn read(text: &str) -> Option<RawFunction<'_>> {
    serde_json::from_str(text).ok()
}

/// Why this path stops: never shown (the tree walk says what is wrong).
fn decline<E: de::Error>() -> E {
    E::custom("declined")
}

/// A string, borrowed from the text when it holds no escape.
struct Str<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Str<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// A type as written: a name, or a compound of exactly one key.
enum RawType<'a> {
    Name(Str<'a>),
    Enum(Str<'a>),
    Record(Str<'a>),
    Entity(Str<'a>),
    Array(Box<RawType<'a>>),
    Nullable(Box<RawType<'a>>),
}

impl RawType<'_> {
    /// The type, when every name in it is known (as [`TypeSet::parse_type`] resolves it
    /// with no pending names).
    fn resolve(&self, types: &TypeSet) -> Option<Type> {
        Some(match self {
            RawType::Name(n) => match &*n.0 {
                "string" => Type::String,
                "boolean" => Type::Boolean,
                "int32" => Type::Int32,
                "int64" => Type::Int64,
                "double" => Type::Double,
                "dateTime" => Type::DateTime,
                "date" => Type::Date,
                "uuid" => Type::Uuid,
                _ => return None,
            },
            RawType::Enum(n) => Type::Enum(types.enum_by_name(&n.0)?),
            RawType::Record(n) => Type::Record(types.record_by_name(&n.0)?),
            RawType::Entity(n) => Type::Entity(types.entity_by_name(&n.0)?),
            RawType::Array(t) => Type::Array(Box::new(t.resolve(types)?)),
            // nullable of nullable is just nullable
            RawType::Nullable(t) => match t.resolve(types)? {
                t @ Type::Nullable(_) => t,
                t => Type::Nullable(Box::new(t)),
            },
        })
    }
}

/// The value of a compound type's one key.
fn compound<'de, A: MapAccess<'de>>(key: &str, map: &mut A) -> Result<RawType<'de>, A::Error> {
    Ok(match key {
        "array" => RawType::Array(Box::new(map.next_value()?)),
        "nullable" => RawType::Nullable(Box::new(map.next_value()?)),
        "enum" => RawType::Enum(map.next_value()?),
        "record" => RawType::Record(map.next_value()?),
        "entity" => RawType::Entity(map.next_value()?),
        _ => return Err(decline()),
    })
}

/// After a compound type's key and value: no other key.
fn no_more_keys<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    match map.next_key::<IgnoredAny>()? {
        None => Ok(()),
        Some(_) => Err(decline()),
    }
}

struct TypeVisitor;

impl<'de> Visitor<'de> for TypeVisitor {
    type Value = RawType<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a type")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<RawType<'de>, E> {
        Ok(RawType::Name(Str(Cow::Borrowed(v))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawType<'de>, E> {
        Ok(RawType::Name(Str(Cow::Owned(v.to_owned()))))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawType<'de>, A::Error> {
        let Some(key) = map.next_key::<Str<'de>>()? else {
            return Err(decline());
        };
        let t = compound(&key.0, &mut map)?;
        no_more_keys(&mut map)?;
        Ok(t)
    }
}

impl<'de> Deserialize<'de> for RawType<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TypeVisitor)
    }
}

// The keys of a slot (a parameter, or a result in its slot form), one bit each.
const NAME: u8 = 1;
const TYPE: u8 = 2;
const DESCRIPTION: u8 = 4;
const OPTIONAL: u8 = 8;
const NULLABLE: u8 = 16;
const DEFAULT: u8 = 32;

/// A parameter, or a result in its slot form `{"type": T, "nullable"?, <constraints>}`.
#[derive(Default)]
struct Slot<'a> {
    seen: u8,
    name: Option<String>,
    ty: Option<RawType<'a>>,
    description: Option<String>,
    optional: Option<bool>,
    nullable: Option<bool>,
    /// As given (`null` included).
    default: Option<Value>,
    /// The constraint keywords given (most slots have none).
    constraints: Option<Box<Map<String, Value>>>,
}

impl<'de> Slot<'de> {
    /// Reads the value of `key`: a parameter's keys (`parameter`) or a result slot's.
    fn read<A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
        parameter: bool,
    ) -> Result<(), A::Error> {
        let bit = match key {
            "type" => TYPE,
            "nullable" => NULLABLE,
            "name" if parameter => NAME,
            "description" if parameter => DESCRIPTION,
            "optional" if parameter => OPTIONAL,
            "default" if parameter => DEFAULT,
            k if crate::model::constraints::KEYS.contains(&k) => {
                let c = self.constraints.get_or_insert_default();
                if c.contains_key(k) {
                    return Err(decline());
                }
                let v: Value = map.next_value()?;
                c.insert(k.to_owned(), v);
                return Ok(());
            }
            _ => return Err(decline()),
        };
        if self.seen & bit != 0 {
            return Err(decline());
        }
        self.seen |= bit;
        match bit {
            NAME => self.name = Some(map.next_value()?),
            TYPE => self.ty = Some(map.next_value()?),
            DESCRIPTION => self.description = map.next_value()?,
            OPTIONAL => self.optional = map.next_value()?,
            NULLABLE => self.nullable = map.next_value()?,
            _ => self.default = Some(map.next_value()?),
        }
        Ok(())
    }

    /// Reads the remaining keys of a result slot.
    fn read_rest<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Slot<'de>, A::Error> {
        while let Some(k) = map.next_key::<Str<'de>>()? {
            self.read(&k.0, &mut map, false)?;
        }
        Ok(self)
    }

    /// The slot's type, `nullable: true` applied.
    fn resolve_type(&self, types: &TypeSet) -> Option<Type> {
        let ty = self.ty.as_ref()?.resolve(types)?;
        Some(
            if self.nullable.unwrap_or(false) && !matches!(ty, Type::Nullable(_)) {
                Type::Nullable(Box::new(ty))
            } else {
                ty
            },
        )
    }

    /// The slot's constraints (the path is only for messages, which this path never makes).
    fn resolve_constraints(
        &self,
        ty: &Type,
    ) -> Option<Option<Box<crate::model::constraints::Constraints>>> {
        match &self.constraints {
            None => Some(None),
            Some(c) => parse_constraints(c, "", ty).ok(),
        }
    }

    /// The parameter, as `parse_parameter` makes it.
    fn parameter(self, types: &TypeSet, cx: &ParseContext<'_>) -> Option<Parameter> {
        let name = self.name.as_deref()?;
        if !is_parameter_name(name) {
            return None;
        }
        let ty = self.resolve_type(types)?;
        let constraints = self.resolve_constraints(&ty)?;
        let nullable = matches!(ty, Type::Nullable(_));
        if nullable && self.optional == Some(false) {
            return None;
        }
        let mut optional = nullable || self.optional.unwrap_or(false);
        // a nullable parameter without a default binds null (`Parameter::default_json`)
        let default = match self.default {
            None => None,
            Some(d) => {
                if contains_entity(&ty) {
                    return None;
                }
                optional = true;
                let bound = bind_value_with(
                    types,
                    &ty,
                    constraints.as_deref(),
                    &d.to_string(),
                    Mode::Values,
                    &cx.limits,
                )
                .ok()?;
                Some(Box::new(ParameterDefault {
                    value: d,
                    json: bound.json,
                }))
            }
        };
        if let Some(t) = &self.description {
            check_text(t, cx.metadata_properties).ok()?;
        }
        Some(Parameter {
            name: self.name?,
            ty,
            description: self.description,
            optional,
            default,
            constraints,
        })
    }
}

/// A parameter object.
struct RawParameter<'a>(Slot<'a>);

impl<'de> Deserialize<'de> for RawParameter<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawParameter<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a parameter")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut s = Slot::default();
                while let Some(k) = map.next_key::<Str<'de>>()? {
                    s.read(&k.0, &mut map, true)?;
                }
                Ok(RawParameter(s))
            }
        }
        d.deserialize_map(V)
    }
}

/// A function's `result`.
enum RawResult<'a> {
    Void,
    Type(RawType<'a>),
    Slot(Box<Slot<'a>>),
}

/// The value of a result's `nullable` when it comes first: a type (the compound
/// `{"nullable": T}`) or a flag (the slot form).
enum NullableValue<'a> {
    Type(RawType<'a>),
    Flag(Option<bool>),
}

impl<'de> Deserialize<'de> for NullableValue<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = NullableValue<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a type or a flag")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(NullableValue::Flag(Some(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(NullableValue::Flag(None))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                TypeVisitor.visit_borrowed_str(v).map(NullableValue::Type)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                TypeVisitor.visit_str(v).map(NullableValue::Type)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                TypeVisitor.visit_map(map).map(NullableValue::Type)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for RawResult<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawResult<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a result")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(RawResult::Void)
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(match v {
                    "void" => RawResult::Void,
                    v => RawResult::Type(RawType::Name(Str(Cow::Borrowed(v)))),
                })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(match v {
                    "void" => RawResult::Void,
                    v => RawResult::Type(RawType::Name(Str(Cow::Owned(v.to_owned())))),
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let Some(key) = map.next_key::<Str<'de>>()? else {
                    return Err(decline());
                };
                match &*key.0 {
                    // a compound type
                    "array" | "enum" | "record" | "entity" => {
                        let t = compound(&key.0, &mut map)?;
                        no_more_keys(&mut map)?;
                        Ok(RawResult::Type(t))
                    }
                    "nullable" => match map.next_value::<NullableValue<'de>>()? {
                        NullableValue::Type(t) => {
                            no_more_keys(&mut map)?;
                            Ok(RawResult::Type(RawType::Nullable(Box::new(t))))
                        }
                        NullableValue::Flag(f) => {
                            let s = Slot {
                                seen: NULLABLE,
                                nullable: f,
                                ..Slot::default()
                            };
                            s.read_rest(map).map(|s| RawResult::Slot(Box::new(s)))
                        }
                    },
                    // the slot form (`type` may come after a constraint)
                    k => {
                        let mut s = Slot::default();
                        s.read(k, &mut map, false)?;
                        s.read_rest(map).map(|s| RawResult::Slot(Box::new(s)))
                    }
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A function descriptor as read from its text, before its types are resolved.
pub(crate) struct RawFunction<'a> {
    id: String,
    title: Option<String>,
    description: Option<String>,
    symbol: Option<String>,
    parameters: Vec<RawParameter<'a>>,
    result: RawResult<'a>,
    opens_app: Option<bool>,
    requires_permission: Option<bool>,
    kind: FunctionKind,
    toolkit: Option<String>,
    condition: Option<String>,
    enabled: Option<bool>,
    deprecated: Option<bool>,
    hints: Option<Box<Value>>,
    callers: Option<Box<Value>>,
}

impl<'de> Deserialize<'de> for RawFunction<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawFunction<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a function descriptor")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut id = None;
                let mut f = RawFunction {
                    id: String::new(),
                    title: None,
                    description: None,
                    symbol: None,
                    parameters: Vec::new(),
                    result: RawResult::Void,
                    opens_app: None,
                    requires_permission: None,
                    kind: FunctionKind::Function,
                    toolkit: None,
                    condition: None,
                    enabled: None,
                    deprecated: None,
                    hints: None,
                    callers: None,
                };
                // the keys given, one bit each (a key given twice declines: a tree keeps the
                // last value)
                let mut seen = 0u16;
                while let Some(k) = map.next_key::<Str<'de>>()? {
                    // its position in super::FUNCTION_KEYS
                    let i = match &*k.0 {
                        "id" => 0,
                        "title" => 1,
                        "description" => 2,
                        "symbol" => 3,
                        "parameters" => 4,
                        "result" => 5,
                        "opensApp" => 6,
                        "requiresPermission" => 7,
                        "kind" => 8,
                        "toolkit" => 9,
                        "condition" => 10,
                        "enabled" => 11,
                        "deprecated" => 12,
                        "hints" => 13,
                        "callers" => 14,
                        _ => return Err(decline()),
                    };
                    if seen & (1 << i) != 0 {
                        return Err(decline());
                    }
                    seen |= 1 << i;
                    match i {
                        0 => id = Some(map.next_value::<String>()?),
                        1 => f.title = map.next_value()?,
                        2 => f.description = map.next_value()?,
                        3 => f.symbol = map.next_value()?,
                        4 => {
                            f.parameters = map
                                .next_value::<Option<Vec<RawParameter<'de>>>>()?
                                .unwrap_or_default()
                        }
                        5 => f.result = map.next_value()?,
                        6 => f.opens_app = map.next_value()?,
                        7 => f.requires_permission = map.next_value()?,
                        8 => {
                            f.kind = match map.next_value::<Option<Str<'de>>>()? {
                                None => FunctionKind::Function,
                                Some(s) if s.0 == "function" => FunctionKind::Function,
                                Some(s) if s.0 == "output" => FunctionKind::Output,
                                Some(_) => return Err(decline()),
                            }
                        }
                        9 => f.toolkit = map.next_value()?,
                        10 => f.condition = map.next_value()?,
                        11 => f.enabled = map.next_value()?,
                        12 => f.deprecated = map.next_value()?,
                        13 => f.hints = map.next_value()?,
                        _ => f.callers = map.next_value()?,
                    }
                }
                f.id = id.ok_or_else(decline)?;
                Ok(f)
            }
        }
        d.deserialize_map(V)
    }
}

impl RawFunction<'_> {
    /// The descriptor [`FunctionDescriptor::parse`] makes of the same text, or `None` when
    /// that would refuse it (or this path does not handle what it holds).
    pub(crate) fn resolve(
        self,
        types: &TypeSet,
        cx: &ParseContext<'_>,
    ) -> Option<FunctionDescriptor> {
        if !is_function_id(&self.id) {
            return None;
        }
        let mut parameters: Vec<Parameter> = Vec::with_capacity(self.parameters.len());
        let mut seen = None;
        for RawParameter(slot) in self.parameters {
            let param = slot.parameter(types, cx)?;
            if crate::model::types::already_named(
                &parameters,
                |x| x.name.as_str(),
                &param.name,
                &mut seen,
            ) {
                return None;
            }
            parameters.push(param);
        }
        let (result, result_constraints) = match &self.result {
            RawResult::Void => (None, None),
            RawResult::Type(t) => (Some(t.resolve(types)?), None),
            RawResult::Slot(s) => {
                let ty = s.resolve_type(types)?;
                let c = s.resolve_constraints(&ty)?;
                (Some(ty), c)
            }
        };
        for text in [&self.title, &self.description].into_iter().flatten() {
            check_text(text, cx.metadata_properties).ok()?;
        }
        let condition = match &self.condition {
            None => None,
            Some(text) => {
                let c = Condition::parse(text).ok()?;
                if let Some(props) = cx.metadata_properties {
                    if !c
                        .properties()
                        .iter()
                        .all(|name| props.iter().any(|x| x == name))
                    {
                        return None;
                    }
                }
                Some(c)
            }
        };
        if self.toolkit.as_deref().is_some_and(|t| !is_function_id(t)) {
            return None;
        }
        let hints = parse_hints(self.hints.as_deref(), &self.id).ok()?;
        let callers = match &self.callers {
            None => CallerPolicy::default(),
            Some(v) => CallerPolicy::parse(v, "callers").ok()?,
        };
        Some(FunctionDescriptor {
            id: self.id,
            title: self.title,
            description: self.description,
            symbol: self.symbol,
            parameters,
            result,
            result_constraints,
            opens_app: self.opens_app.unwrap_or(false),
            requires_permission: self.requires_permission.unwrap_or(false),
            kind: self.kind,
            toolkit: self.toolkit,
            condition,
            condition_text: self.condition,
            enabled: self.enabled.unwrap_or(true),
            deprecated: self.deprecated.unwrap_or(false),
            hints,
            callers,
            generated_for: None,
            app_shortcut: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::descriptor::parse_entity;
    use serde_json::json;

    fn types() -> TypeSet {
        let mut t = TypeSet::default();
        t.define(&json!({
            "enums": [{"name": "Priority", "members": ["Low", "Normal", "High"]}],
            "records": [{"name": "Order", "fields": [{"name": "id", "type": "string"}]}]
        }))
        .unwrap();
        let e = parse_entity(
            &json!({"name": "order", "fields": [{"name": "id", "type": "string"}]}),
            &t,
        )
        .unwrap();
        t.add_entity(e);
        t
    }

    /// Descriptors using every part of the format (each accepted by `parse`).
    fn seeds() -> Vec<Value> {
        vec![
            // what benches/scenarios.rs registers
            json!({"id": "function_7", "title": "Function 7", "description": "Does thing number 7 for the user.",
                "parameters": [
                    {"name": "customer", "type": "string", "description": "Who"},
                    {"name": "quantity", "type": "int32"},
                    {"name": "priority", "type": {"enum": "Priority"}, "default": "Normal"}],
                "result": {"record": "Order"}}),
            json!({"id": "edit", "title": "Edit for {metadata.ProviderName}", "description": null,
                "symbol": "Edit", "opensApp": true, "requiresPermission": false, "kind": "output",
                "toolkit": "notes", "condition": "ProviderName", "enabled": false, "deprecated": true,
                "hints": {"readOnly": true, "destructive": null, "openWorld": false},
                "callers": {"allow": ["com.a"], "deny": null},
                "parameters": [
                    {"name": "count", "type": "int64", "minimum": 1, "exclusiveMaximum": 10, "default": 2},
                    {"name": "ratio", "type": "double", "maximum": 1.5, "optional": true},
                    {"name": "code", "type": "string", "pattern": "^[a-z]+$", "minLength": 1, "maxLength": 8},
                    {"name": "tags", "type": {"array": "string"}, "minItems": 0, "maxItems": 3, "uniqueItems": true, "default": ["a"]},
                    {"name": "note", "type": "string", "nullable": true, "optional": true},
                    {"name": "when", "type": {"nullable": "dateTime"}, "default": null},
                    {"name": "day", "type": "date", "nullable": false, "optional": false},
                    {"name": "key", "type": "uuid"},
                    {"name": "flag", "type": "boolean", "default": false},
                    {"name": "levels", "type": {"array": {"nullable": {"enum": "Priority"}}}}],
                "result": {"type": "int32", "nullable": true, "minimum": 0}}),
            json!({"id": "cancel", "parameters": [{"name": "order", "type": {"entity": "order"}}],
                "result": {"array": {"entity": "order"}}}),
            json!({"id": "maybe", "parameters": null, "result": {"nullable": {"record": "Order"}}, "kind": null}),
            json!({"id": "slot_first", "result": {"nullable": true, "type": {"nullable": "string"}}}),
            json!({"id": "slot_late", "result": {"maxLength": 3, "type": "string"}}),
            json!({"id": "v", "result": "void", "title": "t"}),
            json!({"id": "n", "result": null, "hints": null, "callers": null}),
            json!({"id": "s", "result": "string"}),
        ]
    }

    /// Values that replace a node in the mutations.
    fn replacements() -> Vec<Value> {
        vec![
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-1),
            json!(1.5),
            json!(""),
            json!("x"),
            json!("string"),
            json!("void"),
            json!("Normal"),
            json!("Priority"),
            json!("ProviderName"),
            json!("Bad name"),
            json!("{metadata.Missing}"),
            json!([]),
            json!(["a", "a"]),
            json!({}),
            json!({"enum": "Priority"}),
            json!({"enum": "Priorty"}),
            json!({"record": "Order"}),
            json!({"entity": "order"}),
            json!({"nullable": "string"}),
            json!({"nullable": true}),
            json!({"array": "int32"}),
            json!({"type": "string"}),
            json!({"type": "int32", "minimum": 5, "maximum": 1}),
            json!({"enum": "Priority", "record": "Order"}),
            json!({"name": "p", "type": "string"}),
        ]
    }

    /// Every variant of `v`: each node replaced by each replacement, each key of each
    /// object removed, and keys added.
    fn mutations(v: &Value, out: &mut Vec<Value>) {
        fn walk(root: &Value, path: &mut Vec<PathStep>, out: &mut Vec<Value>) {
            let node = get(root, path).clone();
            for r in replacements() {
                out.push(set(root, path, r));
            }
            match &node {
                Value::Object(o) => {
                    for k in o.keys() {
                        let mut m = o.clone();
                        m.shift_remove(k);
                        out.push(set(root, path, Value::Object(m)));
                    }
                    for (k, x) in [
                        ("zz", json!(1)),
                        ("nullable", json!(true)),
                        ("optional", json!(false)),
                        ("optional", json!(true)),
                        ("default", json!("Normal")),
                        ("default", json!(3)),
                        ("minimum", json!(2)),
                        ("pattern", json!("(")),
                        ("maxLength", json!(-1)),
                        ("uniqueItems", json!(true)),
                        ("description", json!("d")),
                        ("type", json!("string")),
                        ("name", json!("extra")),
                    ] {
                        let mut m = o.clone();
                        m.insert(k.into(), x);
                        out.push(set(root, path, Value::Object(m)));
                    }
                    for k in o.keys().cloned().collect::<Vec<_>>() {
                        path.push(PathStep::Key(k));
                        walk(root, path, out);
                        path.pop();
                    }
                }
                Value::Array(a) => {
                    for i in 0..a.len() {
                        let mut m = a.clone();
                        m.remove(i);
                        out.push(set(root, path, Value::Array(m)));
                        path.push(PathStep::Index(i));
                        walk(root, path, out);
                        path.pop();
                    }
                    if let Some(first) = a.first() {
                        let mut m = a.clone();
                        m.push(first.clone());
                        out.push(set(root, path, Value::Array(m)));
                    }
                }
                _ => {}
            }
        }
        walk(v, &mut Vec::new(), out);
    }

    #[derive(Clone)]
    enum PathStep {
        Key(String),
        Index(usize),
    }

    fn get<'a>(v: &'a Value, path: &[PathStep]) -> &'a Value {
        path.iter().fold(v, |v, s| match s {
            PathStep::Key(k) => &v[k.as_str()],
            PathStep::Index(i) => &v[*i],
        })
    }

    fn set(root: &Value, path: &[PathStep], to: Value) -> Value {
        let mut r = root.clone();
        let mut at = &mut r;
        for s in path {
            at = match s {
                PathStep::Key(k) => &mut at[k.as_str()],
                PathStep::Index(i) => &mut at[*i],
            };
        }
        *at = to;
        r
    }

    /// The direct reader's verdict on `text`, checked against the tree walk's: whatever
    /// it accepts, `parse` accepts as the same descriptor.
    fn check(text: &str, types: &TypeSet, cx: &ParseContext<'_>) -> bool {
        let fast = read(text).and_then(|r| r.resolve(types, cx));
        let slow = serde_json::from_str::<Value>(text)
            .map_err(|e| e.to_string())
            .and_then(|v| FunctionDescriptor::parse(&v, types, cx).map_err(|e| e.to_string()));
        match fast {
            Some(f) => {
                assert_eq!(Ok(&f), slow.as_ref(), "{text}");
                true
            }
            None => false,
        }
    }

    #[test]
    #[cfg(feature = "patterns")] // declares a `pattern`
    fn every_seed_is_read_directly_as_parse_reads_it() {
        let t = types();
        let props = vec!["ProviderName".to_string()];
        let cx = ParseContext {
            metadata_properties: Some(&props),
            ..Default::default()
        };
        for s in seeds() {
            assert!(check(&s.to_string(), &t, &cx), "declined: {s}");
            let pretty = serde_json::to_string_pretty(&s).unwrap();
            assert!(check(&pretty, &t, &cx), "declined: {pretty}");
        }
    }

    #[test]
    fn what_the_direct_reader_accepts_parse_accepts_alike() {
        let t = types();
        let props = ["ProviderName".to_string()];
        for props in [None, Some(&props[..])] {
            let cx = ParseContext {
                metadata_properties: props,
                ..Default::default()
            };
            let (mut accepted, mut total) = (0, 0);
            for s in seeds() {
                let mut all = Vec::new();
                mutations(&s, &mut all);
                for m in all {
                    total += 1;
                    accepted += usize::from(check(&m.to_string(), &t, &cx));
                }
            }
            // the mutations hold both kinds in numbers
            assert!(
                accepted > 100 && total - accepted > 100,
                "{accepted} of {total}"
            );
        }
    }

    #[test]
    fn texts_a_tree_would_read_differently_are_declined_or_read_alike() {
        let t = types();
        let cx = ParseContext::default();
        for text in [
            // repeated keys (a tree keeps the last value)
            r#"{"id": "a", "id": "b"}"#,
            r#"{"id": "a", "parameters": [{"name": "x", "name": "y", "type": "string"}]}"#,
            r#"{"id": "a", "result": {"enum": "Priority", "enum": "Nope"}}"#,
            r#"{"id": "a", "result": {"type": "string", "type": "int32"}}"#,
            r#"{"id": "a", "parameters": [{"name": "x", "type": "int32", "minimum": 1, "minimum": 9}]}"#,
            // escapes
            r#"{"id": "\u0061", "result": "str\u0069ng", "title": "T\n"}"#,
            r#"{"\u0069d": "a", "result": {"\u0065num": "Priority"}}"#,
            // not an object, trailing text, empty
            r#"["id"]"#,
            r#"{"id": "a"} x"#,
            r#"{"id": "a"}   "#,
            "",
            "{}",
            r#"{"id": "a", "parameters": [["x", "string"]]}"#,
            r#"{"id": "a", "hints": [true]}"#,
            r#"{"id": "a", "callers": {"allow": "x"}}"#,
            r#"{"id": "a", "result": {}}"#,
            r#"{"id": "a", "result": {"nullable": null}}"#,
            r#"{"id": "a", "result": {"nullable": "string", "type": "int32"}}"#,
            r#"{"id": "a", "result": {"nullable": false, "type": "int32"}}"#,
            r#"{"id": "a", "result": {"minimum": 1}}"#,
            r#"{"id": "a", "parameters": [{"name": "x", "type": "int32", "default": 1e400}]}"#,
            r#"{"id": "a", "parameters": [{"name": "x", "type": "int64", "default": 9223372036854775808}]}"#,
        ] {
            check(text, &t, &cx);
        }
        assert!(check(
            r#"{"id": "\u0061", "result": "str\u0069ng", "title": "T\n"}"#,
            &t,
            &cx
        ));
    }
}
