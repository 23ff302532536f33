//! The type system: primitives, named enums and records, entity references, arrays and
//! nullables, and the set of named types a dispatcher knows.

use crate::model::constraints::{Constraints, Kind};
use crate::model::error::{Error, Result};
pub(crate) use crate::model::quote::field;
pub use crate::model::quote::{describe_json, quote_short};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// The record a required slot of type `ty` cannot be given without (an array that may be
/// empty, or a nullable type, needs none).
fn required_record(ty: &Type, cons: Option<&Constraints>) -> Option<usize> {
    match ty {
        Type::Record(j) => Some(*j),
        Type::Array(inner) if cons.and_then(|c| c.min_items).unwrap_or(0) > 0 => {
            required_record(inner, None)
        }
        _ => None,
    }
}

/// Whether `name` is already among `existing` (named by `name_of`), checked for each new
/// item of one list in linear time over the whole list: a short list is scanned, a longer
/// one hashed once, the set kept in `seen` for the next items (a descriptor of 20,000
/// parameters once took a second in the scans).
pub(crate) fn already_named<T>(
    existing: &[T],
    name_of: impl Fn(&T) -> &str,
    name: &str,
    seen: &mut Option<HashSet<String>>,
) -> bool {
    if seen.is_none() && existing.len() < 32 {
        #[cfg(test)]
        NAME_COMPARISONS.with(|c| c.set(c.get() + existing.len()));
        return existing.iter().any(|x| name_of(x) == name);
    }
    let set = seen.get_or_insert_with(|| existing.iter().map(|x| name_of(x).to_owned()).collect());
    #[cfg(test)]
    NAME_COMPARISONS.with(|c| c.set(c.get() + 1));
    !set.insert(name.to_owned())
}

#[cfg(test)]
thread_local! {
    /// The work [`already_named`] did on this thread: names compared or hashed.
    pub(crate) static NAME_COMPARISONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A resolved type. Named types are indexes into the dispatcher's [`TypeSet`], which only
/// grows, so an index stays valid in every later snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
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
    Entity(usize),
    Array(Box<Type>),
    Nullable(Box<Type>),
}

/// One member of an enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumMember {
    pub name: String,
    pub description: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumDef {
    pub name: String,
    pub description: Option<String>,
    pub members: Vec<EnumMember>,
}

/// A field of a record (or of an entity).
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub ty: Type,
    pub description: Option<String>,
    pub optional: bool,
    /// Value constraints (`minimum`, `maxLength`, `pattern`, …), if any.
    pub constraints: Option<Box<Constraints>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecordDef {
    pub name: String,
    pub description: Option<String>,
    pub fields: Vec<Field>,
}

/// An entity: a record with an id field, looked up by the host.
#[derive(Clone, Debug, PartialEq)]
pub struct EntityDef {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub id_field: String,
    pub fields: Vec<Field>,
}

/// Every named type a dispatcher knows. Append-only.
#[derive(Clone, Debug, Default)]
pub struct TypeSet {
    /// The named enums, in the order defined.
    pub enums: Vec<EnumDef>,
    /// The named records, in the order defined.
    pub records: Vec<RecordDef>,
    /// The entities, in the order defined.
    pub entities: Vec<EntityDef>,
    names: HashMap<String, NamedKind>,
    /// Per entity, the type of a list of it (what its lookup answers).
    entity_lists: Vec<Type>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NamedKind {
    Enum(usize),
    Record(usize),
    Entity(usize),
}

const PRIMITIVES: [&str; 8] = [
    "string", "boolean", "int32", "int64", "double", "dateTime", "date", "uuid",
];

/// Spellings of the primitive types used by other languages and formats. They are refused
/// (one spelling per type keeps descriptors, the registry and the published descriptor
/// schema alike), with the name to write instead.
fn alias_of(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "str" | "text" | "char" => "string",
        "bool" => "boolean",
        "int" | "integer" | "i32" | "short" | "byte" => "int32",
        "long" | "i64" | "bigint" => "int64",
        "number" | "float" | "f64" | "decimal" | "real" => "double",
        "date-time" | "datetime" | "date_time" | "timestamp" | "instant" => "dateTime",
        "localdate" => "date",
        "guid" => "uuid",
        _ => return None,
    })
}

impl TypeSet {
    /// The index of the enum named `name`.
    pub fn enum_by_name(&self, name: &str) -> Option<usize> {
        match self.names.get(name) {
            Some(NamedKind::Enum(i)) => Some(*i),
            _ => None,
        }
    }
    /// The index of the record named `name`.
    pub fn record_by_name(&self, name: &str) -> Option<usize> {
        match self.names.get(name) {
            Some(NamedKind::Record(i)) => Some(*i),
            _ => None,
        }
    }
    /// The index of the entity named `name`.
    pub fn entity_by_name(&self, name: &str) -> Option<usize> {
        match self.names.get(name) {
            Some(NamedKind::Entity(i)) => Some(*i),
            _ => None,
        }
    }
    /// Whether a named type of any kind is called `name`.
    pub fn contains_name(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    /// The display name of a type, as used in error messages (`int32`, `Priority`, `array
    /// of string`).
    pub fn type_name(&self, ty: &Type) -> String {
        match ty {
            Type::String => "string".into(),
            Type::Boolean => "boolean".into(),
            Type::Int32 => "int32".into(),
            Type::Int64 => "int64".into(),
            Type::Double => "double".into(),
            Type::DateTime => "date-time".into(),
            Type::Date => "date".into(),
            Type::Uuid => "uuid".into(),
            Type::Enum(i) => format!("enum {}", self.enums[*i].name),
            Type::Record(i) => format!("record {}", self.records[*i].name),
            Type::Entity(i) => format!("entity {}", self.entities[*i].name),
            Type::Array(t) => format!("array of {}", self.type_name(t)),
            Type::Nullable(t) => format!("{} or null", self.type_name(t)),
        }
    }

    /// The JSON form of a type (the inverse of [`TypeSet::parse_type`]).
    pub fn type_json(&self, ty: &Type) -> Value {
        match ty {
            Type::String => "string".into(),
            Type::Boolean => "boolean".into(),
            Type::Int32 => "int32".into(),
            Type::Int64 => "int64".into(),
            Type::Double => "double".into(),
            Type::DateTime => "dateTime".into(),
            Type::Date => "date".into(),
            Type::Uuid => "uuid".into(),
            Type::Enum(i) => single("enum", self.enums[*i].name.clone().into()),
            Type::Record(i) => single("record", self.records[*i].name.clone().into()),
            Type::Entity(i) => single("entity", self.entities[*i].name.clone().into()),
            Type::Array(t) => single("array", self.type_json(t)),
            Type::Nullable(t) => single("nullable", self.type_json(t)),
        }
    }

    /// Resolves the JSON form of a type. `pending` holds names being defined in the same
    /// `define_types` call (so definitions may refer to each other in any order).
    pub(crate) fn parse_type(
        &self,
        value: &Value,
        path: &str,
        pending: &HashMap<String, PendingKind>,
    ) -> Result<Type> {
        match value {
            Value::String(s) => match s.as_str() {
                "string" => Ok(Type::String),
                "boolean" => Ok(Type::Boolean),
                "int32" => Ok(Type::Int32),
                "int64" => Ok(Type::Int64),
                "double" => Ok(Type::Double),
                "dateTime" => Ok(Type::DateTime),
                "date" => Ok(Type::Date),
                "uuid" => Ok(Type::Uuid),
                "void" => Err(Error::descriptor(
                    path,
                    "\"void\" is only allowed as a result type",
                )),
                other => {
                    let hint = match self.names.get(other).copied().or_else(|| {
                        pending.get(other).map(|k| match k {
                            PendingKind::Enum(i) => NamedKind::Enum(*i),
                            PendingKind::Record(i) => NamedKind::Record(*i),
                        })
                    }) {
                        Some(NamedKind::Enum(_)) => format!(" (write {{\"enum\": \"{other}\"}})"),
                        Some(NamedKind::Record(_)) => {
                            format!(" (write {{\"record\": \"{other}\"}})")
                        }
                        Some(NamedKind::Entity(_)) => {
                            format!(" (write {{\"entity\": \"{other}\"}})")
                        }
                        None => match alias_of(other) {
                            Some(canonical) => format!(
                                " (write \"{canonical}\": the core accepts one spelling per type, no aliases)"
                            ),
                            None => {
                                let named = self.names.keys().map(String::as_str).chain(pending.keys().map(String::as_str));
                                closest(PRIMITIVES.iter().copied().chain(named), other)
                                    .map(|c| format!(" (did you mean \"{c}\"?)"))
                                    .unwrap_or_default()
                            }
                        },
                    };
                    Err(Error::descriptor(
                        path,
                        format!(
                            "unknown type \"{other}\"{hint}; expected one of {} or an object such as {{\"array\": T}}",
                            PRIMITIVES.join(", ")
                        ),
                    ))
                }
            },
            Value::Object(map) => {
                if map.len() != 1 {
                    return Err(Error::descriptor(
                        path,
                        "a compound type is an object with exactly one key: array, nullable, enum, record or entity",
                    ));
                }
                let (key, inner) = map.iter().next().expect("one entry");
                let inner_path = [path, ".", key].concat();
                let name = || -> Result<&str> {
                    inner.as_str().ok_or_else(|| {
                        Error::descriptor(&inner_path, format!("expected the name of a {key} as a string"))
                    })
                };
                match key.as_str() {
                    "array" => Ok(Type::Array(Box::new(
                        self.parse_type(inner, &inner_path, pending)?,
                    ))),
                    "nullable" => {
                        let t = self.parse_type(inner, &inner_path, pending)?;
                        Ok(match t {
                            // nullable of nullable is just nullable
                            Type::Nullable(_) => t,
                            t => Type::Nullable(Box::new(t)),
                        })
                    }
                    "enum" => {
                        let n = name()?;
                        if let Some(i) = self.enum_by_name(n) {
                            return Ok(Type::Enum(i));
                        }
                        if let Some(PendingKind::Enum(i)) = pending.get(n) {
                            return Ok(Type::Enum(*i));
                        }
                        Err(Error::descriptor(path, format!("unknown enum \"{n}\"{}", self.suggest(n))))
                    }
                    "record" => {
                        let n = name()?;
                        if let Some(i) = self.record_by_name(n) {
                            return Ok(Type::Record(i));
                        }
                        if let Some(PendingKind::Record(i)) = pending.get(n) {
                            return Ok(Type::Record(*i));
                        }
                        Err(Error::descriptor(path, format!("unknown record \"{n}\"{}", self.suggest(n))))
                    }
                    "entity" => {
                        let n = name()?;
                        match self.entity_by_name(n) {
                            Some(i) => Ok(Type::Entity(i)),
                            None => Err(Error::descriptor(
                                path,
                                format!("unknown entity \"{n}\" (register it with af_register_entity first){}", self.suggest(n)),
                            )),
                        }
                    }
                    other => Err(Error::descriptor(
                        path,
                        format!("unknown compound type \"{other}\"; expected array, nullable, enum, record or entity"),
                    )),
                }
            }
            other => Err(Error::descriptor(
                path,
                format!("a type is a name such as \"string\" or an object such as {{\"array\": \"string\"}}, got {}", describe_json(other)),
            )),
        }
    }

    /// " (did you mean \"X\"?)" for a close known name, or "".
    fn suggest(&self, name: &str) -> String {
        match closest(self.names.keys().map(String::as_str), name) {
            Some(k) => format!(" (did you mean \"{k}\"?)"),
            None => String::new(),
        }
    }

    /// Parses and adds `{"enums": [...], "records": [...]}` atomically: on error nothing is
    /// added. No metadata schema is declared here, so descriptions may hold no placeholder.
    pub fn define(&mut self, doc: &Value) -> Result<()> {
        self.define_with(doc, None)
    }

    /// [`TypeSet::define`] with the declared metadata properties that `{metadata.X}`
    /// placeholders in descriptions may name.
    pub fn define_with(
        &mut self,
        doc: &Value,
        metadata_properties: Option<&[String]>,
    ) -> Result<()> {
        let obj = doc.as_object().ok_or_else(|| {
            Error::descriptor(
                "types",
                "expected an object with \"enums\" and/or \"records\"",
            )
        })?;
        for key in obj.keys() {
            if key != "enums" && key != "records" {
                return Err(Error::descriptor(
                    format!("types.{key}"),
                    "unknown key; expected \"enums\" or \"records\"",
                ));
            }
        }
        let empty = Vec::new();
        let enums = array_at(obj, "enums", "types.enums")?.unwrap_or(&empty);
        let records = array_at(obj, "records", "types.records")?.unwrap_or(&empty);

        // First pass: names, so definitions can refer to each other in any order.
        let mut pending: HashMap<String, PendingKind> = HashMap::new();
        let mut enum_names = Vec::new();
        for (i, e) in enums.iter().enumerate() {
            let path = format!("types.enums[{i}]");
            let name = type_name_at(e, &path)?;
            self.check_new_name(name, &path, &pending)?;
            pending.insert(name.to_owned(), PendingKind::Enum(self.enums.len() + i));
            enum_names.push(name);
        }
        let mut record_names = Vec::new();
        for (i, r) in records.iter().enumerate() {
            let path = format!("types.records[{i}]");
            let name = type_name_at(r, &path)?;
            self.check_new_name(name, &path, &pending)?;
            pending.insert(name.to_owned(), PendingKind::Record(self.records.len() + i));
            record_names.push(name);
        }

        let mut new_enums = Vec::new();
        for (e, name) in enums.iter().zip(&enum_names) {
            let def = parse_enum(e, name)?;
            let texts = std::iter::once((format!("{name}.description"), &def.description)).chain(
                def.members
                    .iter()
                    .enumerate()
                    .map(|(i, m)| (format!("{name}.members[{i}].description"), &m.description)),
            );
            for (path, text) in texts {
                if let Some(t) = text {
                    crate::model::condition::check_text(t, metadata_properties)
                        .map_err(|e| Error::descriptor(path, e))?;
                }
            }
            new_enums.push(def);
        }
        let mut new_records = Vec::new();
        for (r, name) in records.iter().zip(&record_names) {
            let path = (*name).to_string();
            let o = r.as_object().expect("checked by type_name_at");
            check_keys(o, &path, &["name", "description", "fields"])?;
            let fields =
                self.parse_fields(o.get("fields"), &path, &pending, metadata_properties)?;
            let description = opt_string(o, "description", &path)?;
            if let Some(t) = &description {
                crate::model::condition::check_text(t, metadata_properties)
                    .map_err(|e| Error::descriptor(format!("{path}.description"), e))?;
            }
            new_records.push(RecordDef {
                name: (*name).to_owned(),
                description,
                fields,
            });
        }
        self.check_finite(&new_records)?;
        for e in new_enums {
            self.names
                .insert(e.name.clone(), NamedKind::Enum(self.enums.len()));
            self.enums.push(e);
        }
        for r in new_records {
            self.names
                .insert(r.name.clone(), NamedKind::Record(self.records.len()));
            self.records.push(r);
        }
        Ok(())
    }

    /// Refuses records that require each other with no way out: when every field on a
    /// cycle is required (not optional or nullable, not an array that may be empty), no
    /// finite value has them all, and no caller could ever send one. Linear: a record is
    /// known to have a value once every record it requires has one (the records defined
    /// earlier all have).
    fn check_finite(&self, new: &[RecordDef]) -> Result<()> {
        let base = self.records.len();
        let n = new.len();
        let mut waiting = vec![0usize; n];
        let mut waiters: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, r) in new.iter().enumerate() {
            for f in r.fields.iter().filter(|f| !f.optional) {
                if let Some(j) = required_record(&f.ty, f.constraints.as_deref()) {
                    if j >= base && j - base < n {
                        waiting[i] += 1;
                        waiters[j - base].push(i);
                    }
                }
            }
        }
        let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
        let mut finite = vec![false; n];
        while let Some(j) = ready.pop() {
            finite[j] = true;
            for &w in &waiters[j] {
                waiting[w] -= 1;
                if waiting[w] == 0 {
                    ready.push(w);
                }
            }
        }
        let Some(first) = finite.iter().position(|f| !f) else {
            return Ok(());
        };
        let stuck: Vec<&str> = (0..n)
            .filter(|&i| !finite[i])
            .map(|i| new[i].name.as_str())
            .collect();
        let shown = if stuck.len() > 8 {
            format!("{}, … ({} records)", stuck[..8].join(", "), stuck.len())
        } else {
            stuck.join(", ")
        };
        Err(Error::descriptor(
            format!("{}.fields", new[first].name),
            format!(
                "the records {shown} require each other: every field on the cycle is required, so no finite value exists; make one of them optional or nullable (or an array without minItems)"
            ),
        ))
    }

    fn check_new_name(
        &self,
        name: &str,
        path: &str,
        pending: &HashMap<String, PendingKind>,
    ) -> Result<()> {
        if !is_type_name(name) {
            return Err(Error::descriptor(
                format!("{path}.name"),
                format!("\"{name}\" is not a valid type name; use letters, digits and _ starting with a letter"),
            ));
        }
        if PRIMITIVES.contains(&name) || name == "void" {
            return Err(Error::descriptor(
                format!("{path}.name"),
                format!("\"{name}\" is the name of a built-in type"),
            ));
        }
        if self.names.contains_key(name) || pending.contains_key(name) {
            return Err(Error::descriptor(
                format!("{path}.name"),
                format!("a type named \"{name}\" is already defined"),
            ));
        }
        Ok(())
    }

    pub(crate) fn parse_fields(
        &self,
        fields: Option<&Value>,
        path: &str,
        pending: &HashMap<String, PendingKind>,
        metadata_properties: Option<&[String]>,
    ) -> Result<Vec<Field>> {
        let Some(fields) = fields else {
            return Ok(Vec::new());
        };
        let arr = fields
            .as_array()
            .ok_or_else(|| Error::descriptor(format!("{path}.fields"), "expected an array"))?;
        let mut out: Vec<Field> = Vec::with_capacity(arr.len());
        let mut seen = None;
        for (i, f) in arr.iter().enumerate() {
            let o = f.as_object().ok_or_else(|| {
                Error::descriptor(format!("{path}.fields[{i}]"), "expected an object")
            })?;
            let name = o.get("name").and_then(Value::as_str).ok_or_else(|| {
                Error::descriptor(
                    format!("{path}.fields[{i}].name"),
                    "missing or not a string",
                )
            })?;
            let fpath = format!("{path}.fields.{name}");
            check_slot_keys(o, &fpath, FIELD_KEYS)?;
            if !is_member_name(name) {
                return Err(Error::descriptor(
                    &fpath,
                    format!("\"{name}\" is not a valid field name"),
                ));
            }
            if already_named(&out, |x| x.name.as_str(), name, &mut seen) {
                return Err(Error::descriptor(&fpath, "duplicate field name"));
            }
            let tv = o
                .get("type")
                .ok_or_else(|| Error::descriptor(format!("{fpath}.type"), "missing"))?;
            let mut ty = self.parse_type(tv, &format!("{fpath}.type"), pending)?;
            if opt_bool(o, "nullable", &fpath)?.unwrap_or(false) && !matches!(ty, Type::Nullable(_))
            {
                ty = Type::Nullable(Box::new(ty));
            }
            let constraints = parse_constraints(o, &fpath, &ty)?;
            let description = opt_string(o, "description", &fpath)?;
            if let Some(t) = &description {
                crate::model::condition::check_text(t, metadata_properties)
                    .map_err(|e| Error::descriptor(format!("{fpath}.description"), e))?;
            }
            let optional = nullable_may_be_omitted(o, &fpath, matches!(ty, Type::Nullable(_)))?;
            out.push(Field {
                name: name.to_owned(),
                ty,
                description,
                optional,
                constraints,
            });
        }
        Ok(out)
    }

    /// Adds an entity (its record) and returns its index.
    pub(crate) fn add_entity(&mut self, def: EntityDef) -> usize {
        let i = self.entities.len();
        self.names.insert(def.name.clone(), NamedKind::Entity(i));
        self.entities.push(def);
        self.entity_lists
            .push(Type::Array(Box::new(Type::Entity(i))));
        i
    }

    /// The type of a list of entity `i`.
    pub(crate) fn entity_list(&self, i: usize) -> &Type {
        &self.entity_lists[i]
    }

    /// Checks that a new entity's name is free.
    pub(crate) fn check_entity_name(&self, name: &str, path: &str) -> Result<()> {
        self.check_new_name(name, path, &HashMap::new())
    }

    /// The fields of a record or entity type.
    pub fn fields_of(&self, ty: &Type) -> Option<&[Field]> {
        match ty {
            Type::Record(i) => Some(&self.records[*i].fields),
            Type::Entity(i) => Some(&self.entities[*i].fields),
            _ => None,
        }
    }

    /// Serialises every enum and record for the registry JSON.
    pub fn to_json(&self) -> Value {
        let enums: Vec<Value> = self
            .enums
            .iter()
            .map(|e| {
                let members: Vec<Value> = e
                    .members
                    .iter()
                    .map(|m| {
                        let mut o = Map::new();
                        o.insert("name".into(), m.name.clone().into());
                        o.insert("description".into(), opt_json(&m.description));
                        Value::Object(o)
                    })
                    .collect();
                let mut o = Map::new();
                o.insert("name".into(), e.name.clone().into());
                o.insert("description".into(), opt_json(&e.description));
                o.insert("members".into(), Value::Array(members));
                Value::Object(o)
            })
            .collect();
        let records: Vec<Value> = self
            .records
            .iter()
            .map(|r| {
                let mut o = Map::new();
                o.insert("name".into(), r.name.clone().into());
                o.insert("description".into(), opt_json(&r.description));
                o.insert("fields".into(), self.fields_json(&r.fields));
                Value::Object(o)
            })
            .collect();
        let mut o = Map::new();
        o.insert("enums".into(), Value::Array(enums));
        o.insert("records".into(), Value::Array(records));
        Value::Object(o)
    }

    pub(crate) fn fields_json(&self, fields: &[Field]) -> Value {
        Value::Array(
            fields
                .iter()
                .map(|f| {
                    let mut o = Map::new();
                    o.insert("name".into(), f.name.clone().into());
                    o.insert("type".into(), self.type_json(&f.ty));
                    o.insert("description".into(), opt_json(&f.description));
                    o.insert("optional".into(), f.optional.into());
                    o.insert("nullable".into(), matches!(f.ty, Type::Nullable(_)).into());
                    if let Some(c) = &f.constraints {
                        c.write(&mut o);
                    }
                    Value::Object(o)
                })
                .collect(),
        )
    }

    pub(crate) fn entity_json(&self, e: &EntityDef) -> Value {
        let mut o = Map::new();
        o.insert("name".into(), e.name.clone().into());
        o.insert("title".into(), opt_json(&e.title));
        o.insert("description".into(), opt_json(&e.description));
        o.insert("idField".into(), e.id_field.clone().into());
        o.insert("fields".into(), self.fields_json(&e.fields));
        Value::Object(o)
    }
}

/// The keys a record or entity field may have, besides the constraint keywords.
const FIELD_KEYS: &[&str] = &["name", "type", "description", "optional", "nullable"];

/// Reads the value constraints of a parameter, field or result slot of type `ty`.
pub(crate) fn parse_constraints(
    o: &Map<String, Value>,
    path: &str,
    ty: &Type,
) -> Result<Option<Box<Constraints>>> {
    let base = match ty {
        Type::Nullable(t) => t,
        t => t,
    };
    let kind = match base {
        Type::Int32 => Kind::Integer("int32", i32::MIN as i128, i32::MAX as i128),
        Type::Int64 => Kind::Integer("int64", i64::MIN as i128, i64::MAX as i128),
        Type::Double => Kind::Number,
        Type::String => Kind::String,
        Type::Array(_) => Kind::Array,
        Type::Boolean => Kind::Other("boolean"),
        Type::DateTime => Kind::Other("dateTime"),
        Type::Date => Kind::Other("date"),
        Type::Uuid => Kind::Other("uuid"),
        Type::Enum(_) => Kind::Other("an enum"),
        Type::Record(_) => Kind::Other("a record"),
        Type::Entity(_) => Kind::Other("an entity"),
        Type::Nullable(_) => Kind::Other("nullable"),
    };
    Constraints::parse(o, path, kind)
}

/// A name being defined in the current `define_types` call.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PendingKind {
    Enum(usize),
    Record(usize),
}

fn parse_enum(e: &Value, name: &str) -> Result<EnumDef> {
    let o = e.as_object().expect("checked by type_name_at");
    let path = name.to_string();
    check_keys(o, &path, &["name", "description", "members"])?;
    let members = o
        .get("members")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::descriptor(format!("{path}.members"), "missing or not an array"))?;
    if members.is_empty() {
        return Err(Error::descriptor(
            format!("{path}.members"),
            "an enum needs at least one member",
        ));
    }
    let mut out: Vec<EnumMember> = Vec::with_capacity(members.len());
    let mut seen = None;
    for (i, m) in members.iter().enumerate() {
        let mpath = format!("{path}.members[{i}]");
        let member = match m {
            Value::String(s) => EnumMember {
                name: s.clone(),
                description: None,
            },
            Value::Object(mo) => {
                check_keys(mo, &mpath, &["name", "description"])?;
                EnumMember {
                    name: mo
                        .get("name")
                        .and_then(Value::as_str)
                        .ok_or_else(|| {
                            Error::descriptor(format!("{mpath}.name"), "missing or not a string")
                        })?
                        .to_owned(),
                    description: opt_string(mo, "description", &mpath)?,
                }
            }
            _ => {
                return Err(Error::descriptor(
                    mpath,
                    "a member is a name or {\"name\": ..., \"description\": ...}",
                ))
            }
        };
        if member.name.is_empty() || member.name.chars().any(char::is_control) {
            return Err(Error::descriptor(
                mpath,
                "a member name must be non-empty text",
            ));
        }
        if already_named(&out, |x| x.name.as_str(), &member.name, &mut seen) {
            return Err(Error::descriptor(
                mpath,
                format!("duplicate member \"{}\"", member.name),
            ));
        }
        out.push(member);
    }
    Ok(EnumDef {
        name: name.to_owned(),
        description: opt_string(o, "description", &path)?,
        members: out,
    })
}

fn type_name_at<'a>(v: &'a Value, path: &str) -> Result<&'a str> {
    v.as_object()
        .ok_or_else(|| Error::descriptor(path, "expected an object"))?
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::descriptor(format!("{path}.name"), "missing or not a string"))
}

fn array_at<'a>(
    o: &'a Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<&'a Vec<Value>>> {
    match o.get(key) {
        None => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(_) => Err(Error::descriptor(path, "expected an array")),
    }
}

fn single(key: &str, v: Value) -> Value {
    let mut o = Map::new();
    o.insert(key.into(), v);
    Value::Object(o)
}

pub(crate) fn opt_json(s: &Option<String>) -> Value {
    match s {
        Some(s) => Value::String(s.clone()),
        None => Value::Null,
    }
}

/// Refuses keys outside `allowed`, naming the first unknown one (and a close match).
pub(crate) fn check_keys(o: &Map<String, Value>, path: &str, allowed: &[&str]) -> Result<()> {
    check_keys_of(o, path, allowed, &[])
}

/// [`check_keys`] for a slot that may carry value constraints (a parameter, a record or
/// entity field, a result): its own keys and every constraint keyword.
pub(crate) fn check_slot_keys(o: &Map<String, Value>, path: &str, own: &[&str]) -> Result<()> {
    check_keys_of(o, path, own, &crate::model::constraints::KEYS)
}

fn check_keys_of(o: &Map<String, Value>, path: &str, own: &[&str], more: &[&str]) -> Result<()> {
    let allowed = || own.iter().chain(more).copied();
    for k in o.keys() {
        if !allowed().any(|a| a == k) {
            let close = closest(allowed(), k)
                .map(|a| format!(" (did you mean \"{a}\"?)"))
                .unwrap_or_default();
            let list: Vec<&str> = allowed().collect();
            return Err(Error::descriptor(
                format!("{path}.{k}"),
                format!("unknown field{close}; allowed: {}", list.join(", ")),
            ));
        }
    }
    Ok(())
}

pub(crate) fn opt_string(o: &Map<String, Value>, key: &str, path: &str) -> Result<Option<String>> {
    match field(o, key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(Error::descriptor(
            format!("{path}.{key}"),
            format!("expected a string, got {}", describe_json(other)),
        )),
    }
}

pub(crate) fn opt_bool(o: &Map<String, Value>, key: &str, path: &str) -> Result<Option<bool>> {
    match field(o, key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(Error::descriptor(
            format!("{path}.{key}"),
            format!("expected true or false, got {}", describe_json(other)),
        )),
    }
}

pub fn is_type_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic())
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        && s.len() <= 64
}

/// Field names: letters, digits and `_`, starting with a letter or `_`.
pub fn is_member_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        && s.len() <= 64
}

/// The candidate closest to `key` (a small edit distance, or a prefix of at least three
/// characters), for "did you mean" hints. Letters are compared without their ASCII case
/// (names are ASCII: `str::to_lowercase` would link Unicode's case tables for this alone).
pub(crate) fn closest<'a>(candidates: impl Iterator<Item = &'a str>, key: &str) -> Option<&'a str> {
    let lower = key.to_ascii_lowercase();
    candidates
        .filter_map(|c| {
            let cl = c.to_ascii_lowercase();
            let d = edit_distance(&cl, &lower);
            let prefix = lower.len() >= 3 && (cl.starts_with(&lower) || lower.starts_with(&cl));
            (d <= 2 || prefix).then_some((d, c))
        })
        .min()
        .map(|(_, c)| c)
}

/// Levenshtein distance, for "did you mean" hints on short names.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// One parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub ty: Type,
    pub description: Option<String>,
    pub optional: bool,
    /// The declared default, if any. Boxed: most parameters declare none, and held inline
    /// its `Value` and text would make every parameter 96 bytes larger (176 bytes instead
    /// of 88 on x86_64), which an app registering thousands of functions pays in memory.
    pub default: Option<Box<ParameterDefault>>,
    /// Value constraints (`minimum`, `maxLength`, `pattern`, …), if any.
    pub constraints: Option<Box<Constraints>>,
}

/// A parameter's declared default.
#[derive(Clone, Debug, PartialEq)]
pub struct ParameterDefault {
    /// The default as given.
    pub value: Value,
    /// The default, bound and normalised (what the handler receives).
    pub json: String,
}

impl Parameter {
    /// The declared default as given.
    pub fn default_value(&self) -> Option<&Value> {
        self.default.as_ref().map(|d| &d.value)
    }

    /// What the handler receives when the parameter is omitted: its declared default,
    /// bound and normalised, or `null` for a nullable parameter without one (seed 002's
    /// rule: a nullable parameter may be omitted and then binds as null). `None`: the
    /// parameter has no value to stand in.
    pub fn default_json(&self) -> Option<&str> {
        match &self.default {
            Some(d) => Some(&d.json),
            None if matches!(self.ty, Type::Nullable(_)) => Some("null"),
            None => None,
        }
    }
}

/// `optional` of a parameter or field: a nullable one may always be omitted (it then binds
/// as null), so `"optional": false` on it is refused rather than silently overridden.
pub(crate) fn nullable_may_be_omitted(
    o: &Map<String, Value>,
    path: &str,
    nullable: bool,
) -> Result<bool> {
    let optional = opt_bool(o, "optional", path)?;
    if nullable && optional == Some(false) {
        return Err(Error::descriptor(
            format!("{path}.optional"),
            "a nullable value may always be omitted (it then binds as null); remove \"optional\": false, or make the type non-nullable",
        ));
    }
    Ok(nullable || optional.unwrap_or(false))
}

#[cfg(test)]
mod tests {
    #[test]
    fn records_that_require_each_other_are_refused_at_definition() {
        let define = |json: &str| {
            let mut t = super::TypeSet::default();
            t.define(&serde_json::from_str(json).unwrap())
                .map_err(|e| e.to_string())
        };
        let e = define(
            r#"{"records":[{"name":"A","fields":[{"name":"b","type":{"record":"B"}}]},
                            {"name":"B","fields":[{"name":"a","type":{"record":"A"}}]}]}"#,
        )
        .unwrap_err();
        assert!(e.contains("the records A, B require each other"), "{e}");
        assert!(e.contains("no finite value"), "{e}");
        let e = define(
            r#"{"records":[{"name":"Me","fields":[{"name":"me","type":{"record":"Me"}}]}]}"#,
        )
        .unwrap_err();
        assert!(e.contains("the records Me require each other"), "{e}");
        let e = define(
            r#"{"records":[{"name":"Me","fields":[{"name":"us","type":{"array":{"record":"Me"}},"minItems":1}]}]}"#,
        )
        .unwrap_err();
        assert!(e.contains("Me"), "{e}");
        // a way out: optional, nullable, an array that may be empty
        for way_out in [
            r#"{"name":"b","type":{"record":"B"},"optional":true}"#,
            r#"{"name":"b","type":{"nullable":{"record":"B"}}}"#,
            r#"{"name":"b","type":{"array":{"record":"B"}}}"#,
        ] {
            define(&format!(
                r#"{{"records":[{{"name":"A","fields":[{way_out}]}},
                                {{"name":"B","fields":[{{"name":"a","type":{{"record":"A"}}}}]}}]}}"#
            ))
            .unwrap_or_else(|e| panic!("{way_out}: {e}"));
        }
    }

    #[test]
    fn a_descriptor_of_many_names_is_checked_for_duplicates_in_linear_work() {
        let n = 5_000;
        let mut seen = None;
        let mut names: Vec<String> = Vec::new();
        NAME_COMPARISONS.with(|c| c.set(0));
        for i in 0..n {
            let name = format!("p{i}");
            assert!(!super::already_named(
                &names,
                |x| x.as_str(),
                &name,
                &mut seen
            ));
            names.push(name);
        }
        assert!(super::already_named(
            &names,
            |x| x.as_str(),
            "p17",
            &mut seen
        ));
        assert!(super::already_named(
            &names,
            |x| x.as_str(),
            "p4999",
            &mut seen
        ));
        // a scan per name would have been n^2/2 (12,500,000)
        let work = NAME_COMPARISONS.with(|c| c.get());
        assert!(work <= 3 * n, "{work} comparisons for {n} names");
    }

    use super::*;
    use serde_json::json;

    fn set() -> TypeSet {
        let mut t = TypeSet::default();
        t.define(&json!({
            "enums": [{"name": "Priority", "members": ["Low", {"name": "Normal", "description": "default"}, "High"]}],
            "records": [
                {"name": "Order", "fields": [{"name": "id", "type": "string"}, {"name": "lines", "type": {"array": {"record": "Line"}}}]},
                {"name": "Line", "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int32", "optional": true}]}
            ]
        }))
        .unwrap();
        t
    }

    #[test]
    fn definitions_may_refer_to_each_other_in_any_order() {
        let t = set();
        assert_eq!(t.records.len(), 2);
        assert_eq!(
            t.records[0].fields[1].ty,
            Type::Array(Box::new(Type::Record(1)))
        );
    }

    #[test]
    fn an_unknown_enum_is_named_with_a_suggestion() {
        let t = set();
        let e = t
            .parse_type(
                &json!({"enum": "Priorty"}),
                "create_order.parameters.priority.type",
                &HashMap::new(),
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "create_order.parameters.priority.type: unknown enum \"Priorty\" (did you mean \"Priority\"?)"
        );
    }

    #[test]
    fn a_redefinition_is_refused_and_nothing_is_added() {
        let mut t = set();
        let e = t
            .define(&json!({"enums": [{"name": "Color", "members": ["Red"]}, {"name": "Priority", "members": ["X"]}]}))
            .unwrap_err();
        assert!(e.to_string().contains("already defined"), "{e}");
        assert!(t.enum_by_name("Color").is_none());
    }

    #[test]
    fn duplicate_members_and_empty_enums_are_refused() {
        let mut t = TypeSet::default();
        assert!(t
            .define(&json!({"enums": [{"name": "A", "members": ["X", "X"]}]}))
            .unwrap_err()
            .to_string()
            .contains("duplicate member"));
        assert!(t
            .define(&json!({"enums": [{"name": "A", "members": []}]}))
            .unwrap_err()
            .to_string()
            .contains("at least one"));
    }

    #[test]
    fn unknown_keys_are_refused_with_a_hint() {
        let mut t = TypeSet::default();
        let e = t
            .define(&json!({"records": [{"name": "A", "fields": [{"name": "x", "type": "string", "optinal": true}]}]}))
            .unwrap_err();
        assert_eq!(e.to_string(), "A.fields.x.optinal: unknown field (did you mean \"optional\"?); allowed: name, type, description, optional, nullable, minimum, exclusiveMinimum, maximum, exclusiveMaximum, minLength, maxLength, pattern, minItems, maxItems, uniqueItems");
    }

    #[test]
    fn type_typos_and_aliases_say_what_to_write() {
        let t = set();
        let e = |v: Value| {
            t.parse_type(&v, "f.parameters.n.type", &HashMap::new())
                .unwrap_err()
                .to_string()
        };
        let expected = "expected one of string, boolean, int32, int64, double, dateTime, date, uuid or an object such as {\"array\": T}";
        assert_eq!(
            e(json!("in32")),
            format!(
                "f.parameters.n.type: unknown type \"in32\" (did you mean \"int32\"?); {expected}"
            )
        );
        assert!(e(json!("dateTime ")).contains("(did you mean \"dateTime\"?)"));
        assert!(e(json!("Strng")).contains("(did you mean \"string\"?)"));
        assert!(e(json!("Prority")).contains("(did you mean \"Priority\"?)"));
        assert!(e(json!("Priority")).contains("(write {\"enum\": \"Priority\"})"));
        for (alias, canonical) in [
            ("int", "int32"),
            ("long", "int64"),
            ("bool", "boolean"),
            ("number", "double"),
            ("date-time", "dateTime"),
            ("DateTime", "dateTime"),
            ("integer", "int32"),
        ] {
            assert_eq!(
                e(json!(alias)),
                format!("f.parameters.n.type: unknown type \"{alias}\" (write \"{canonical}\": the core accepts one spelling per type, no aliases); {expected}")
            );
        }
        assert!(e(json!("zzz")).contains("unknown type \"zzz\"; expected"));
    }

    #[test]
    fn type_json_round_trips() {
        let t = set();
        for v in [
            json!("int64"),
            json!({"array": {"nullable": {"enum": "Priority"}}}),
            json!({"record": "Order"}),
        ] {
            let ty = t.parse_type(&v, "x", &HashMap::new()).unwrap();
            assert_eq!(t.type_json(&ty), v);
        }
    }
}
