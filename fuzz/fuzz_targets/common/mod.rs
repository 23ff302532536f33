//! Shared by the fuzz targets: a small generator that derives a valid set of named types,
//! an entity and function descriptors from the fuzz input (structure-aware fuzzing), and
//! values that match a type. Everything it generates is valid by construction, so the
//! targets can check completeness ("a generated valid document binds") as well as
//! soundness ("what binds is valid JSON, and binding it again gives the same text").
#![allow(dead_code)]

use arbitrary::{Result, Unstructured};
use serde_json::{json, Map, Value};

pub const DATE_TIMES: &[&str] = &[
    "2025-06-01T17:00:00+02:00",
    "2025-06-01T17:00:00Z",
    "1999-12-31t23:59:59.123456z",
    "2024-02-29T00:00:00-11:30",
    "0001-01-01T00:00:00Z",
];
pub const DATES: &[&str] = &["2025-06-01", "2024-02-29", "0001-01-01", "9999-12-31"];
pub const UUIDS: &[&str] = &[
    "123e4567-e89b-12d3-a456-426614174000",
    "00000000-0000-0000-0000-000000000000",
    "FFFFFFFF-ffff-AAAA-bbbb-0123456789ab",
];
const PARAM_NAMES: &[&str] = &[
    "customer", "quantity", "priority", "note", "when", "day", "key", "items", "maybe", "x", "aB9",
    "order", "limit", "query", "title",
];
const FIELD_NAMES: &[&str] = &[
    "id", "title", "count", "tags", "child", "when", "flag", "ratio",
];
const MEMBER_NAMES: &[&str] = &["Low", "Normal", "High", "A", "b_2", "Zz"];

/// A type as the generator knows it (indices into the generated names).
#[derive(Clone, Debug)]
pub enum Ty {
    String,
    Boolean,
    Int32,
    Int64,
    Double,
    DateTime,
    Date,
    Uuid,
    Enum(usize),
    Record(usize),
    Entity,
    Array(Box<Ty>),
    Nullable(Box<Ty>),
}

#[derive(Clone, Debug)]
pub struct GenField {
    pub name: String,
    pub ty: Ty,
    pub optional: bool,
}

#[derive(Clone, Debug)]
pub struct GenParam {
    pub name: String,
    pub ty: Ty,
    pub optional: bool,
    /// Written as `"nullable": true` rather than `{"nullable": T}`.
    pub nullable_flag: bool,
    pub default: Option<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct Spec {
    pub enums: Vec<(String, Vec<String>)>,
    /// Records only refer to records defined before them (no cycles), so every record
    /// has a finite valid value.
    pub records: Vec<(String, Vec<GenField>)>,
    /// The entity `item` (id field `id`, a string), when generated.
    pub entity: Option<Vec<GenField>>,
    pub params: Vec<GenParam>,
    pub result: Option<Ty>,
    pub output_kind: bool,
}

fn text(u: &mut Unstructured) -> Result<String> {
    // mostly short printable text, sometimes anything (quotes, controls, emoji, NULs)
    Ok(match u.int_in_range(0..=3u8)? {
        0 => String::new(),
        1 => "plain text".into(),
        2 => "qu\"ote \\ back\n\u{1}\u{7f}\u{2028} ünï \u{1F600}".into(),
        _ => {
            let s: String = u.arbitrary()?;
            s.chars().take(40).collect()
        }
    })
}

impl Spec {
    pub fn generate(u: &mut Unstructured) -> Result<Spec> {
        let mut s = Spec::default();
        for i in 0..u.int_in_range(0..=2u8)? {
            let n = u.int_in_range(1..=4usize)?;
            let mut members: Vec<String> = Vec::new();
            for m in MEMBER_NAMES.iter().take(n) {
                members.push((*m).to_string());
            }
            s.enums.push((format!("E{i}"), members));
        }
        for i in 0..u.int_in_range(0..=3u8)? {
            let mut fields = Vec::new();
            let n = u.int_in_range(0..=4usize)?;
            for name in FIELD_NAMES.iter().take(n) {
                let ty = s.gen_type(u, 2, s.records.len(), false)?;
                // the one nullable rule: a nullable field may always be omitted
                let optional = u.arbitrary::<bool>()? || matches!(ty, Ty::Nullable(_));
                fields.push(GenField {
                    name: (*name).to_string(),
                    ty,
                    optional,
                });
            }
            s.records.push((format!("R{i}"), fields));
        }
        if u.arbitrary()? {
            let mut fields = vec![GenField {
                name: "id".into(),
                ty: Ty::String,
                optional: false,
            }];
            for name in FIELD_NAMES[1..].iter().take(u.int_in_range(0..=3usize)?) {
                let ty = s.gen_type(u, 1, s.records.len(), false)?;
                let optional = u.arbitrary::<bool>()? || matches!(ty, Ty::Nullable(_));
                fields.push(GenField {
                    name: (*name).to_string(),
                    ty,
                    optional,
                });
            }
            s.entity = Some(fields);
        }
        let n = u.int_in_range(0..=5usize)?;
        for name in PARAM_NAMES.iter().take(n) {
            let mut ty = s.gen_type(u, 3, s.records.len(), true)?;
            let nullable_flag = !matches!(ty, Ty::Nullable(_)) && u.int_in_range(0..=4u8)? == 0;
            if nullable_flag {
                ty = Ty::Nullable(Box::new(ty));
            }
            let optional = u.arbitrary::<bool>()? || matches!(ty, Ty::Nullable(_));
            let default = if optional && !contains_entity(&ty) && u.int_in_range(0..=2u8)? == 0 {
                Some(s.gen_value(u, &ty, false, 3)?)
            } else {
                None
            };
            s.params.push(GenParam {
                name: (*name).to_string(),
                ty,
                optional,
                nullable_flag,
                default,
            });
        }
        s.output_kind = u.int_in_range(0..=3u8)? == 0;
        if u.arbitrary()? {
            s.result = Some(s.gen_type(u, 3, s.records.len(), true)?);
        }
        Ok(s)
    }

    fn gen_type(
        &self,
        u: &mut Unstructured,
        depth: u32,
        records: usize,
        entity_ok: bool,
    ) -> Result<Ty> {
        let top = if depth == 0 { 7 } else { 12 };
        Ok(match u.int_in_range(0..=top)? {
            0 => Ty::String,
            1 => Ty::Boolean,
            2 => Ty::Int32,
            3 => Ty::Int64,
            4 => Ty::Double,
            5 => Ty::DateTime,
            6 => Ty::Date,
            7 => Ty::Uuid,
            8 if !self.enums.is_empty() => Ty::Enum(u.choose_index(self.enums.len())?),
            9 if records > 0 => Ty::Record(u.int_in_range(0..=records - 1)?),
            10 if entity_ok && self.entity.is_some() => Ty::Entity,
            11 => Ty::Array(Box::new(self.gen_type(u, depth - 1, records, entity_ok)?)),
            12 => Ty::Nullable(Box::new(self.gen_type(u, depth - 1, records, entity_ok)?)),
            _ => Ty::String,
        })
    }

    /// A valid value of `ty`; `values` is true where an entity is given in full (results),
    /// false where it is given by id (arguments).
    pub fn gen_value(
        &self,
        u: &mut Unstructured,
        ty: &Ty,
        values: bool,
        depth: u32,
    ) -> Result<Value> {
        Ok(match ty {
            Ty::String => Value::String(text(u)?),
            Ty::Boolean => Value::Bool(u.arbitrary()?),
            Ty::Int32 => json!(u.arbitrary::<i32>()?),
            Ty::Int64 => json!(u.arbitrary::<i64>()?),
            // exactly representable and short, so printing and parsing agree
            Ty::Double => json!(f64::from(u.arbitrary::<i32>()?) / 64.0),
            Ty::DateTime => json!(*u.choose(DATE_TIMES)?),
            Ty::Date => json!(*u.choose(DATES)?),
            Ty::Uuid => json!(*u.choose(UUIDS)?),
            Ty::Enum(i) => json!(u.choose(&self.enums[*i].1)?.clone()),
            Ty::Record(i) => {
                let fields = self.records[*i].1.clone();
                self.gen_object(u, &fields, values, depth)?
            }
            Ty::Entity => {
                if values {
                    let fields = self.entity.clone().unwrap_or_default();
                    self.gen_object(u, &fields, values, depth)?
                } else {
                    json!(*u.choose(&["o-1", "o-2", "", "ünï", "x\"y"])?)
                }
            }
            Ty::Array(item) => {
                let n = if depth == 0 {
                    0
                } else {
                    u.int_in_range(0..=3usize)?
                };
                let mut v = Vec::new();
                for _ in 0..n {
                    v.push(self.gen_value(u, item, values, depth.saturating_sub(1))?);
                }
                Value::Array(v)
            }
            Ty::Nullable(inner) => {
                if depth == 0 || u.arbitrary()? {
                    Value::Null
                } else {
                    self.gen_value(u, inner, values, depth - 1)?
                }
            }
        })
    }

    fn gen_object(
        &self,
        u: &mut Unstructured,
        fields: &[GenField],
        values: bool,
        depth: u32,
    ) -> Result<Value> {
        let mut o = Map::new();
        for f in fields {
            if f.optional && u.arbitrary()? {
                continue;
            }
            o.insert(
                f.name.clone(),
                self.gen_value(u, &f.ty, values, depth.saturating_sub(1))?,
            );
        }
        Ok(Value::Object(o))
    }

    /// Valid arguments for the parameters.
    pub fn gen_args(&self, u: &mut Unstructured) -> Result<Value> {
        let mut o = Map::new();
        for p in &self.params {
            if p.optional && u.arbitrary()? {
                continue;
            }
            o.insert(p.name.clone(), self.gen_value(u, &p.ty, false, 4)?);
        }
        Ok(Value::Object(o))
    }

    pub fn type_json(&self, ty: &Ty) -> Value {
        match ty {
            Ty::String => json!("string"),
            Ty::Boolean => json!("boolean"),
            Ty::Int32 => json!("int32"),
            Ty::Int64 => json!("int64"),
            Ty::Double => json!("double"),
            Ty::DateTime => json!("dateTime"),
            Ty::Date => json!("date"),
            Ty::Uuid => json!("uuid"),
            Ty::Enum(i) => json!({"enum": self.enums[*i].0}),
            Ty::Record(i) => json!({"record": self.records[*i].0}),
            Ty::Entity => json!({"entity": "item"}),
            Ty::Array(t) => json!({"array": self.type_json(t)}),
            Ty::Nullable(t) => json!({"nullable": self.type_json(t)}),
        }
    }

    fn fields_json(&self, fields: &[GenField]) -> Value {
        Value::Array(
            fields
                .iter()
                .map(|f| json!({"name": f.name, "type": self.type_json(&f.ty), "optional": f.optional, "description": "a field"}))
                .collect(),
        )
    }

    /// `af_define_types` input.
    pub fn types_json(&self) -> Value {
        json!({
            "enums": self.enums.iter().map(|(n, m)| json!({"name": n, "members": m})).collect::<Vec<_>>(),
            "records": self.records.iter().map(|(n, f)| json!({"name": n, "description": "A record.", "fields": self.fields_json(f)})).collect::<Vec<_>>(),
        })
    }

    /// `af_register_entity` input.
    pub fn entity_json(&self) -> Option<Value> {
        self.entity.as_ref().map(|f| {
            json!({"name": "item", "title": "Item", "idField": "id", "fields": self.fields_json(f)})
        })
    }

    /// `af_register_function` input for function `id`.
    pub fn function_json(&self, id: &str, desc: &str) -> Value {
        // a placeholder needs declared metadata (none is declared here): keep the text plain
        let desc = &desc.replace("{metadata.", "{metadata ");
        let params: Vec<Value> = self
            .params
            .iter()
            .map(|p| {
                let ty = match (&p.ty, p.nullable_flag) {
                    (Ty::Nullable(inner), true) => self.type_json(inner),
                    (t, _) => self.type_json(t),
                };
                let mut o = json!({"name": p.name, "type": ty, "description": desc});
                if p.nullable_flag {
                    o["nullable"] = json!(true);
                }
                if p.optional {
                    o["optional"] = json!(true);
                }
                if let Some(d) = &p.default {
                    o["default"] = d.clone();
                }
                o
            })
            .collect();
        let mut f = json!({"id": id, "title": desc, "description": desc, "parameters": params});
        if let Some(r) = &self.result {
            f["result"] = self.type_json(r);
        }
        if self.output_kind {
            f["kind"] = json!("output");
        }
        f
    }
}

pub fn contains_entity(t: &Ty) -> bool {
    match t {
        Ty::Entity => true,
        Ty::Array(i) | Ty::Nullable(i) => contains_entity(i),
        _ => false,
    }
}
