//! Android AppFunctions schema XML, built from the registry document (`af_registry_json`,
//! docs/descriptors.md).
//!
//! The output follows the current androidx form (the `app_functions_v2.xml` /
//! `*_dynamic_schema.xml` files that `AppFunctionXmlGenerator` writes and the AppSearch indexer
//! reads against `app_functions_schema.xsd`):
//!
//! ```text
//! <appfunctions>
//!   <appfunction>                                   one per function, registry order
//!     <id/> <enabledByDefault/> <description/>?
//!     <parameters>*  <dataTypeMetadata/> <id>unused</id> <isRequired/> <name/> <description/>?
//!     <response>     <id>unused</id> <valueType/>
//!     <deprecation>? <id>unused</id> <message/>
//!     <functionId/>                                 the function id again
//!   </appfunction>
//!   <AppFunctionComponentMetadataDocument>          only when some object type is used
//!     <dataTypes>*   <dataTypeMetadata/> (OBJECT) <id>unused</id> <name/>
//!     <id/>
//!   </AppFunctionComponentMetadataDocument>
//! </appfunctions>
//! ```
//!
//! Type mapping (`dataTypeMetadata/type` codes): `"string"` → STRING 8, `"boolean"` →
//! BOOLEAN 1, `"int32"` → INT 7, `"int64"` → LONG 6, `"double"` → DOUBLE 4, `"dateTime"` /
//! `"date"` / `"uuid"` → STRING 8 with `format` `date-time` / `date` / `uuid` (the XSD's
//! `format` is free text; androidx itself only defines `uri`), `{"enum": E}` → STRING 8 with
//! one `enumValues` per member, `{"record": R}` → REFERENCE 11 with `dataTypeReference` to the
//! shared OBJECT 3 type `R` in the component's `dataTypes`, `{"entity": E}` → STRING 8 (the
//! id) as a parameter, REFERENCE 11 to the entity's OBJECT type in results and record fields
//! (as the core's JSON Schema does),
//! `{"array": T}` → ARRAY 10 with `itemType`, `{"nullable": T}` (or `"nullable": true`) →
//! `isNullable` true, `"void"` → UNIT 0. `isRequired` is `!optional`, `enabledByDefault` is
//! `enabled`, deprecated functions get a `<deprecation>` element. Object types list their
//! fields as `properties` and the non-optional ones as `required`; only the object types a
//! function reaches (transitively) are written, sorted by name. Text is XML-escaped;
//! characters XML 1.0 cannot carry become U+FFFD.
//!
//! XSD fields covered: `AppFunctionStaticMetadata` — `functionId`, `enabledByDefault`,
//! `description`, `parameters`, `response`, `deprecation`; `AppFunctionParameterMetadataDocument`
//! — all (`name`, `isRequired`, `dataTypeMetadata`, `description`);
//! `AppFunctionResponseMetadataDocument` — `valueType`; `AppFunctionDataTypeMetadataDocument` —
//! `type`, `itemType`, `properties`, `required`, `dataTypeReference`, `isNullable`,
//! `objectQualifiedName`, `description`, `enumValues`, `format`;
//! `AppFunctionComponentMetadataDocument` — `dataTypes`; `AppFunctionDeprecationMetadataDocument`
//! — `message` (a fixed text: descriptors carry only a flag).
//!
//! Not covered: the legacy v1 form (`schemaName`/`schemaCategory`/`schemaVersion`, used for
//! predefined schemas), `packageName` and `mobileApplicationQualifiedId` (filled by the
//! indexer), `restrictCallersWithExecuteAppFunctions`, `displayNameStringRes` (needs an
//! Android string resource), `accessLevel`, `isCompatEnforcementEnabled`, response
//! `isNullable`/`description`, `allOf`/`oneOf`, string `patterns`, the BYTES/FLOAT/PARCELABLE
//! types, and parameter defaults (the XSD has no field for them: an optional parameter is only
//! `isRequired` false). Value constraints (`minimum`, `maxLength`, `pattern`, …) have no XSD
//! field either: they are stated as sentences after the parameter's or field's description
//! ("At least 1. At most 100."). The XSD asset itself and the manifest `<property>` that points at it
//! come from the androidx library, not from this exporter.

use crate::export::tree::xml::{escape_text_into, parse, Element};
use crate::export::ExportError;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Options for [`android_xml_with`].
#[derive(Clone, Debug, Default)]
pub struct AndroidXmlOptions {
    /// Prefix for object type names (`objectQualifiedName`, `dataTypeReference`), e.g.
    /// `"com.example.shop."`; empty by default, so types are named as in the registry.
    pub type_prefix: String,
    /// The component document's `<id>`; androidx writes the service's qualified name, or
    /// `unused`. Default: `unused`.
    pub component_id: Option<String>,
}

/// The AppFunctions schema XML for the registry document (see the module documentation).
pub fn android_xml(registry: &Value) -> Result<String, ExportError> {
    android_xml_with(registry, &AndroidXmlOptions::default())
}

/// [`android_xml()`] with options.
pub fn android_xml_with(
    registry: &Value,
    options: &AndroidXmlOptions,
) -> Result<String, ExportError> {
    let w = AndroidXmlWriter::new(registry, options)?;
    let functions = registry
        .get("functions")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("functions", "must be an array"))?;
    let mut fragments = Vec::with_capacity(functions.len());
    let mut reached = BTreeSet::new();
    let mut ids = HashSet::new();
    for (i, f) in functions.iter().enumerate() {
        let path = format!("functions[{i}]");
        let (xml, r) = w.function(f, &path)?;
        if !ids.insert(str_field(f, "id", &path)?) {
            return Err(bad(&format!("{path}.id"), "duplicate function id"));
        }
        fragments.push(xml);
        reached.extend(r);
    }
    w.document(fragments.iter().map(String::as_str), &reached)
}

/// Writes the document of [`android_xml_with`] a function at a time, so that a caller
/// can keep each function's element (the registry keeps it per entry) and join them.
pub(crate) struct AndroidXmlWriter<'v> {
    reg: Registry<'v>,
    options: AndroidXmlOptions,
}

impl<'v> AndroidXmlWriter<'v> {
    /// For the types of a registry document (its `types` and `entities`; `functions` is
    /// not read).
    pub(crate) fn new(
        registry: &'v Value,
        options: &AndroidXmlOptions,
    ) -> Result<Self, ExportError> {
        Ok(AndroidXmlWriter {
            reg: Registry::read(registry)?,
            options: options.clone(),
        })
    }

    /// One function's `<appfunction>` element, as the document holds it, and the names of
    /// the object types it refers to. `path` names the function in messages.
    pub(crate) fn function(
        &self,
        f: &Value,
        path: &str,
    ) -> Result<(String, BTreeSet<String>), ExportError> {
        let mut gen = Gen {
            reg: &self.reg,
            prefix: &self.options.type_prefix,
            reached: BTreeSet::new(),
        };
        let node = gen.function(f, path)?;
        let mut out = String::with_capacity(2048);
        node.write(1, &mut out);
        Ok((out, gen.reached))
    }

    /// The document: the functions' elements in order, then the shared object types that
    /// `reached` names and those they reach in turn.
    pub(crate) fn document<'f>(
        &self,
        functions: impl Iterator<Item = &'f str>,
        reached: &BTreeSet<String>,
    ) -> Result<String, ExportError> {
        let mut gen = Gen {
            reg: &self.reg,
            prefix: &self.options.type_prefix,
            reached: reached.clone(),
        };
        // Shared object types, transitively.
        let mut done = BTreeSet::new();
        let mut data_types = Vec::new();
        loop {
            let pending: Vec<String> = gen.reached.difference(&done).cloned().collect();
            if pending.is_empty() {
                break;
            }
            for name in pending {
                done.insert(name.clone());
                let meta = gen.object_type(&name)?;
                data_types.push((name, meta));
            }
        }
        data_types.sort_by(|a, b| a.0.cmp(&b.0));
        // one allocation for the functions' elements (megabytes at 10,000 functions)
        let functions: Vec<&str> = functions.collect();
        let size = functions.iter().map(|f| f.len()).sum::<usize>();
        let mut out = String::with_capacity(size + 1024 * (1 + data_types.len()));
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n");
        if functions.is_empty() && data_types.is_empty() {
            out.push_str("<appfunctions/>\n");
            return Ok(out);
        }
        out.push_str("<appfunctions>\n");
        for f in functions {
            out.push_str(f);
        }
        if !data_types.is_empty() {
            let mut component: Vec<X> = data_types
                .into_iter()
                .map(|(name, meta)| {
                    X::node(
                        "dataTypes",
                        vec![
                            meta,
                            X::leaf("id", "unused"),
                            X::leaf("name", format!("{}{name}", self.options.type_prefix)),
                        ],
                    )
                })
                .collect();
            component.push(X::leaf(
                "id",
                self.options.component_id.as_deref().unwrap_or("unused"),
            ));
            X::node("AppFunctionComponentMetadataDocument", component).write(1, &mut out);
        }
        out.push_str("</appfunctions>\n");
        Ok(out)
    }
}

fn bad(path: &str, reason: &str) -> ExportError {
    ExportError::InvalidRegistry {
        path: path.into(),
        reason: reason.into(),
    }
}

fn str_field<'v>(v: &'v Value, key: &str, path: &str) -> Result<&'v str, ExportError> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| bad(&format!("{path}.{key}"), "must be a string"))
}

fn opt_str<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

fn flag(v: &Value, key: &str, default: bool, path: &str) -> Result<bool, ExportError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(bad(&format!("{path}.{key}"), "must be a boolean")),
    }
}

/// An XML element to write: text leaf or element with children (texts borrowed from
/// the registry document where they can be).
enum X<'t> {
    Leaf(&'static str, Cow<'t, str>),
    Node(&'static str, Vec<X<'t>>),
}

impl<'t> X<'t> {
    fn leaf(name: &'static str, text: impl Into<Cow<'t, str>>) -> X<'t> {
        X::Leaf(name, text.into())
    }
    fn node(name: &'static str, children: Vec<X<'t>>) -> X<'t> {
        X::Node(name, children)
    }
    fn write(&self, depth: usize, out: &mut String) {
        // written straight into `out`: a 10,000-function schema is megabytes of this
        fn pad(out: &mut String, depth: usize) {
            const SPACES: &str = "                                ";
            let mut n = depth * 4;
            while n > 0 {
                let k = n.min(SPACES.len());
                out.push_str(&SPACES[..k]);
                n -= k;
            }
        }
        match self {
            X::Leaf(name, text) => {
                pad(out, depth);
                out.push('<');
                out.push_str(name);
                out.push('>');
                escape_text_into(text, out);
                out.push_str("</");
                out.push_str(name);
                out.push_str(">\n");
            }
            X::Node(name, children) if children.is_empty() => {
                pad(out, depth);
                out.push('<');
                out.push_str(name);
                out.push_str("/>\n");
            }
            X::Node(name, children) => {
                pad(out, depth);
                out.push('<');
                out.push_str(name);
                out.push_str(">\n");
                for c in children {
                    c.write(depth + 1, out);
                }
                pad(out, depth);
                out.push_str("</");
                out.push_str(name);
                out.push_str(">\n");
            }
        }
    }
}

/// A descriptor type.
#[derive(Debug, Clone)]
enum Ty {
    Prim(&'static str),
    Enum(String),
    Record(String),
    Entity(String),
    Array(Box<Ty>),
    Nullable(Box<Ty>),
    Void,
}

/// Where a type appears: an entity is its id as a (direct) parameter and the full object
/// everywhere else, record fields included (as in the core's JSON Schema).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pos {
    Param,
    Field,
    Result,
}

struct Registry<'v> {
    enums: HashMap<&'v str, &'v Value>,
    records: HashMap<&'v str, &'v Value>,
    entities: HashMap<&'v str, &'v Value>,
}

impl<'v> Registry<'v> {
    fn read(doc: &'v Value) -> Result<Self, ExportError> {
        let mut reg = Registry {
            enums: HashMap::new(),
            records: HashMap::new(),
            entities: HashMap::new(),
        };
        let named =
            |list: Option<&'v Value>, path: &str, into: &mut HashMap<&'v str, &'v Value>| {
                let Some(list) = list else { return Ok(()) };
                let list = list
                    .as_array()
                    .ok_or_else(|| bad(path, "must be an array"))?;
                for (i, item) in list.iter().enumerate() {
                    into.insert(str_field(item, "name", &format!("{path}[{i}]"))?, item);
                }
                Ok::<(), ExportError>(())
            };
        let types = doc.get("types");
        named(
            types.and_then(|t| t.get("enums")),
            "types.enums",
            &mut reg.enums,
        )?;
        named(
            types.and_then(|t| t.get("records")),
            "types.records",
            &mut reg.records,
        )?;
        named(doc.get("entities"), "entities", &mut reg.entities)?;
        Ok(reg)
    }

    fn ty(&self, v: &Value, path: &str) -> Result<Ty, ExportError> {
        let t = match v {
            Value::String(s) => match s.as_str() {
                "string" => Ty::Prim("string"),
                "boolean" => Ty::Prim("boolean"),
                "int32" => Ty::Prim("int32"),
                "int64" => Ty::Prim("int64"),
                "double" => Ty::Prim("double"),
                "dateTime" => Ty::Prim("dateTime"),
                "date" => Ty::Prim("date"),
                "uuid" => Ty::Prim("uuid"),
                "void" => Ty::Void,
                other => return Err(bad(path, &format!("unknown type {other:?}"))),
            },
            Value::Object(m) if m.len() == 1 => {
                let (k, inner) = m.iter().next().expect("one entry");
                let name = || {
                    inner
                        .as_str()
                        .map(String::from)
                        .ok_or_else(|| bad(path, &format!("`{k}` takes a name")))
                };
                match k.as_str() {
                    "enum" => {
                        let n = name()?;
                        if !self.enums.contains_key(n.as_str()) {
                            return Err(bad(path, &format!("unknown enum {n:?}")));
                        }
                        Ty::Enum(n)
                    }
                    "record" => {
                        let n = name()?;
                        if !self.records.contains_key(n.as_str())
                            && !self.entities.contains_key(n.as_str())
                        {
                            return Err(bad(path, &format!("unknown record {n:?}")));
                        }
                        Ty::Record(n)
                    }
                    "entity" => {
                        let n = name()?;
                        if !self.entities.contains_key(n.as_str()) {
                            return Err(bad(path, &format!("unknown entity {n:?}")));
                        }
                        Ty::Entity(n)
                    }
                    "array" => Ty::Array(Box::new(self.ty(inner, &format!("{path}.array"))?)),
                    "nullable" => {
                        Ty::Nullable(Box::new(self.ty(inner, &format!("{path}.nullable"))?))
                    }
                    other => return Err(bad(path, &format!("unknown type constructor `{other}`"))),
                }
            }
            _ => {
                return Err(bad(
                    path,
                    "a type is a name or an object with exactly one key",
                ))
            }
        };
        Ok(t)
    }

    /// An object type's description and fields: a record, else an entity.
    fn object(&self, name: &str) -> Option<&'v Value> {
        self.records
            .get(name)
            .or_else(|| self.entities.get(name))
            .copied()
    }
}

struct Gen<'r, 'v> {
    reg: &'r Registry<'v>,
    prefix: &'r str,
    reached: BTreeSet<String>,
}

impl<'v> Gen<'_, 'v> {
    fn function<'x>(&mut self, f: &'x Value, path: &str) -> Result<X<'x>, ExportError> {
        let id = str_field(f, "id", path)?;
        let mut children = vec![
            X::leaf("id", id),
            X::leaf(
                "enabledByDefault",
                flag(f, "enabled", true, path)?.to_string(),
            ),
        ];
        if let Some(d) = opt_str(f, "description").or_else(|| opt_str(f, "title")) {
            children.push(X::leaf("description", d));
        }
        let params = match f.get("parameters") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(p)) => &p[..],
            Some(_) => return Err(bad(&format!("{path}.parameters"), "must be an array")),
        };
        for (i, p) in params.iter().enumerate() {
            let ppath = format!("{path}.parameters[{i}]");
            let name = str_field(p, "name", &ppath)?;
            let ty = self.reg.ty(
                p.get("type").unwrap_or(&Value::Null),
                &format!("{ppath}.type"),
            )?;
            if matches!(ty, Ty::Void) {
                return Err(bad(
                    &format!("{ppath}.type"),
                    "`void` is only a result type",
                ));
            }
            let nullable = flag(p, "nullable", false, &ppath)?;
            let meta = self.data_type(&ty, nullable, Pos::Param, None)?;
            let mut node = vec![
                meta,
                X::leaf("id", "unused"),
                X::leaf(
                    "isRequired",
                    (!flag(p, "optional", false, &ppath)?).to_string(),
                ),
                X::leaf("name", name),
            ];
            if let Some(d) = described(opt_str(p, "description"), p) {
                node.push(X::leaf("description", d));
            }
            children.push(X::node("parameters", node));
        }
        let result = self.reg.ty(
            f.get("result").unwrap_or(&Value::String("void".into())),
            &format!("{path}.result"),
        )?;
        let value_type = self.data_type_named("valueType", &result, false, Pos::Result, None)?;
        children.push(X::node(
            "response",
            vec![X::leaf("id", "unused"), value_type],
        ));
        if flag(f, "deprecated", false, path)? {
            children.push(X::node(
                "deprecation",
                vec![
                    X::leaf("id", "unused"),
                    X::leaf("message", "This function is deprecated."),
                ],
            ));
        }
        children.push(X::leaf("functionId", id));
        Ok(X::node("appfunction", children))
    }

    /// A `dataTypeMetadata` element.
    fn data_type(
        &mut self,
        ty: &Ty,
        nullable: bool,
        pos: Pos,
        description: Option<&str>,
    ) -> Result<X<'static>, ExportError> {
        self.data_type_named("dataTypeMetadata", ty, nullable, pos, description)
    }

    fn data_type_named(
        &mut self,
        element: &'static str,
        ty: &Ty,
        nullable: bool,
        pos: Pos,
        description: Option<&str>,
    ) -> Result<X<'static>, ExportError> {
        if let Ty::Nullable(inner) = ty {
            return self.data_type_named(element, inner, true, pos, description);
        }
        let mut reference = None;
        let mut item = None;
        let mut enum_values = Vec::new();
        let mut format = None;
        let mut description = description.map(String::from);
        let code = match ty {
            Ty::Void => 0,
            Ty::Prim("boolean") => 1,
            Ty::Prim("double") => 4,
            Ty::Prim("int64") => 6,
            Ty::Prim("int32") => 7,
            Ty::Prim(p) => {
                format = match *p {
                    "dateTime" => Some("date-time"),
                    "date" => Some("date"),
                    "uuid" => Some("uuid"),
                    _ => None,
                };
                8
            }
            Ty::Enum(name) => {
                let e = self.reg.enums[name.as_str()];
                let members = e
                    .get("members")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice);
                let mut described = Vec::new();
                for (i, m) in members.iter().enumerate() {
                    let v = m.as_str().or_else(|| m.get("name").and_then(Value::as_str));
                    let v = v.ok_or_else(|| {
                        bad(
                            &format!("types.enums[{name}].members[{i}]"),
                            "a member is a name or {name, description}",
                        )
                    })?;
                    if let Some(d) = opt_str(m, "description") {
                        described.push(format!("{v}: {d}"));
                    }
                    enum_values.push(v.to_string());
                }
                // As the core's JSON Schema does: the enum's description, then its members',
                // after the field's own description when it has one.
                let mut d = opt_str(e, "description").unwrap_or_default().to_string();
                if !described.is_empty() {
                    if !d.is_empty() {
                        d.push(' ');
                    }
                    d.push_str(&described.join("; "));
                }
                if !d.is_empty() {
                    description = Some(match description {
                        Some(own) => crate::export::with_note(Some(&own), &d),
                        None => d,
                    });
                }
                8
            }
            Ty::Entity(name) if pos == Pos::Param => {
                if description.is_none() {
                    let e = self.reg.entities[name.as_str()];
                    let shown = opt_str(e, "title").unwrap_or(name);
                    description = Some(format!("The id of a {shown} entity."));
                }
                8
            }
            Ty::Record(name) | Ty::Entity(name) => {
                self.reached.insert(name.clone());
                reference = Some(format!("{}{name}", self.prefix));
                11
            }
            Ty::Array(inner) => {
                item = Some(self.data_type_named("itemType", inner, false, pos, None)?);
                10
            }
            Ty::Nullable(_) => unreachable!("handled above"),
        };
        let mut children = Vec::new();
        if let Some(r) = reference {
            children.push(X::leaf("dataTypeReference", r));
        }
        children.push(X::leaf("id", "unused"));
        children.push(X::leaf("isNullable", nullable.to_string()));
        if let Some(i) = item {
            children.push(i);
        }
        if let Some(d) = description {
            children.push(X::leaf("description", d));
        }
        for v in enum_values {
            children.push(X::leaf("enumValues", v));
        }
        if let Some(f) = format {
            children.push(X::leaf("format", f));
        }
        children.push(X::leaf("type", code.to_string()));
        Ok(X::node(element, children))
    }

    /// The shared OBJECT `dataTypeMetadata` of a record or entity.
    fn object_type(&mut self, name: &str) -> Result<X<'v>, ExportError> {
        let def = self
            .reg
            .object(name)
            .ok_or_else(|| bad(name, "unknown object type"))?;
        let path = format!("types.records[{name}]");
        let fields = def
            .get("fields")
            .and_then(Value::as_array)
            .ok_or_else(|| bad(&format!("{path}.fields"), "must be an array"))?;
        let mut children = vec![
            X::leaf("id", "unused"),
            X::leaf("isNullable", "true"),
            X::leaf("objectQualifiedName", format!("{}{name}", self.prefix)),
        ];
        if let Some(d) = opt_str(def, "description").or_else(|| opt_str(def, "title")) {
            children.push(X::leaf("description", d));
        }
        let mut required = Vec::new();
        for (i, field) in fields.iter().enumerate() {
            let fpath = format!("{path}.fields[{i}]");
            let fname = str_field(field, "name", &fpath)?;
            let ty = self.reg.ty(
                field.get("type").unwrap_or(&Value::Null),
                &format!("{fpath}.type"),
            )?;
            let nullable = flag(field, "nullable", false, &fpath)?;
            let description = described(opt_str(field, "description"), field);
            let meta = self.data_type(&ty, nullable, Pos::Field, description.as_deref())?;
            children.push(X::node(
                "properties",
                vec![meta, X::leaf("id", "unused"), X::leaf("name", fname)],
            ));
            if !flag(field, "optional", false, &fpath)? {
                required.push(fname.to_string());
            }
        }
        children.extend(required.into_iter().map(|r| X::leaf("required", r)));
        children.push(X::leaf("type", "3"));
        Ok(X::node("dataTypeMetadata", children))
    }
}

/// A parameter's or field's description followed by its value constraints as sentences
/// (the XSD has no fields for them): `"How many items. At least 1."`.
fn described(description: Option<&str>, slot: &Value) -> Option<String> {
    // most slots have no constraint: look for one among the slot's few keys first
    let constrained = slot.as_object().is_some_and(|o| {
        o.keys()
            .any(|k| crate::model::constraints::KEYS.contains(&k.as_str()))
    });
    if !constrained {
        return description.map(str::to_owned);
    }
    let mut text = description.map(str::to_owned);
    for key in crate::model::constraints::KEYS {
        if let Some(note) = slot
            .get(key)
            .and_then(|v| crate::export::constraint_note(key, v))
        {
            text = Some(crate::export::with_note(text.as_deref(), &note));
        }
    }
    text
}

// ---------------------------------------------------------------------------------------
// check
// ---------------------------------------------------------------------------------------

const DATA_TYPE_CHILDREN: [&str; 14] = [
    "id",
    "type",
    "itemType",
    "properties",
    "allOf",
    "oneOf",
    "required",
    "dataTypeReference",
    "isNullable",
    "objectQualifiedName",
    "description",
    "enumValues",
    "patterns",
    "format",
];

fn one<'e>(e: &'e Element, name: &str, path: &str) -> Result<&'e Element, String> {
    let mut it = e.children.iter().filter(|c| c.name == name);
    let first = it
        .next()
        .ok_or_else(|| format!("{path}: missing <{name}>"))?;
    if it.next().is_some() {
        return Err(format!("{path}: repeated <{name}>"));
    }
    Ok(first)
}

fn boolean(e: &Element, name: &str, path: &str, required: bool) -> Result<(), String> {
    match e.all(name).count() {
        0 if !required => Ok(()),
        1 => match one(e, name, path)?.text.as_str() {
            "true" | "false" => Ok(()),
            other => Err(format!("{path}/{name}: {other:?} is not a boolean")),
        },
        _ => one(e, name, path).map(|_| ()),
    }
}

fn check_data_type(e: &Element, path: &str, types: &HashSet<String>) -> Result<(), String> {
    if let Some(c) = e
        .children
        .iter()
        .find(|c| !DATA_TYPE_CHILDREN.contains(&c.name.as_str()))
    {
        return Err(format!("{path}: unexpected <{}>", c.name));
    }
    boolean(e, "isNullable", path, false)?;
    let code: u32 = one(e, "type", path)?
        .text
        .trim()
        .parse()
        .map_err(|_| format!("{path}/type: not a number"))?;
    match code {
        0..=8 | 12..=14 => {}
        10 => check_data_type(
            one(e, "itemType", path)?,
            &format!("{path}/itemType"),
            types,
        )?,
        11 => {
            let r = &one(e, "dataTypeReference", path)?.text;
            if !types.contains(r) {
                return Err(format!(
                    "{path}: dataTypeReference {r:?} is not in the component's dataTypes"
                ));
            }
        }
        other => return Err(format!("{path}: unknown type code {other}")),
    }
    if code == 3 {
        let mut names = HashSet::new();
        for (i, p) in e.all("properties").enumerate() {
            let ppath = format!("{path}/properties[{i}]");
            let name = one(p, "name", &ppath)?.text.clone();
            check_data_type(
                one(p, "dataTypeMetadata", &ppath)?,
                &format!("{ppath}/dataTypeMetadata"),
                types,
            )?;
            if !names.insert(name.clone()) {
                return Err(format!("{ppath}: repeated property {name:?}"));
            }
        }
        if let Some(r) = e.all("required").find(|r| !names.contains(&r.text)) {
            return Err(format!("{path}: required {:?} is not a property", r.text));
        }
    }
    if e.child("enumValues").is_some() && code != 8 && code != 7 {
        return Err(format!("{path}: enumValues on type {code}"));
    }
    Ok(())
}

pub(crate) fn check(exported: &str) -> Result<(), String> {
    if !exported.starts_with("<?xml version=\"1.0\"") {
        return Err("missing the XML declaration".into());
    }
    let root = parse(exported)?;
    if root.name != "appfunctions" {
        return Err(format!(
            "root element is <{}>, expected <appfunctions>",
            root.name
        ));
    }
    let mut types = HashSet::new();
    let components: Vec<&Element> = root.all("AppFunctionComponentMetadataDocument").collect();
    if components.len() > 1 {
        return Err("more than one AppFunctionComponentMetadataDocument".into());
    }
    for c in &components {
        for d in c.all("dataTypes") {
            let name = one(d, "name", "dataTypes")?.text.clone();
            if !types.insert(name.clone()) {
                return Err(format!("dataTypes: {name:?} defined twice"));
            }
        }
    }
    for c in &components {
        for d in c.all("dataTypes") {
            let name = &one(d, "name", "dataTypes")?.text;
            let path = format!("dataTypes[{name}]");
            let meta = one(d, "dataTypeMetadata", &path)?;
            check_data_type(meta, &path, &types)?;
            if one(meta, "type", &path)?.text != "3"
                || one(meta, "objectQualifiedName", &path)?.text != *name
            {
                return Err(format!(
                    "{path}: a shared type is an OBJECT (3) whose objectQualifiedName is its name"
                ));
            }
        }
    }
    let mut ids = HashSet::new();
    for (i, f) in root.children.iter().enumerate() {
        if f.name == "AppFunctionComponentMetadataDocument" {
            continue;
        }
        if f.name != "appfunction" {
            return Err(format!("unexpected <{}> under <appfunctions>", f.name));
        }
        let id = one(f, "id", &format!("appfunction[{i}]"))?.text.clone();
        let path = format!("appfunction[{id}]");
        if id.is_empty() || !ids.insert(id.clone()) {
            return Err(format!("{path}: empty or repeated id"));
        }
        if one(f, "functionId", &path)?.text != id {
            return Err(format!("{path}: functionId differs from id"));
        }
        boolean(f, "enabledByDefault", &path, true)?;
        let mut names = HashSet::new();
        for (j, p) in f.all("parameters").enumerate() {
            let ppath = format!("{path}/parameters[{j}]");
            boolean(p, "isRequired", &ppath, true)?;
            let name = one(p, "name", &ppath)?.text.clone();
            if !names.insert(name.clone()) {
                return Err(format!("{ppath}: repeated parameter {name:?}"));
            }
            check_data_type(
                one(p, "dataTypeMetadata", &ppath)?,
                &format!("{ppath}/dataTypeMetadata"),
                &types,
            )?;
        }
        let response = one(f, "response", &path)?;
        check_data_type(
            one(response, "valueType", &path)?,
            &format!("{path}/response/valueType"),
            &types,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tree::fixtures::Fixtures;

    fn generated() -> (String, Element) {
        let fx = Fixtures::new();
        let xml = android_xml(&fx.registry).unwrap();
        check(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        let root = parse(&xml).unwrap();
        (xml, root)
    }

    fn function<'e>(root: &'e Element, id: &str) -> &'e Element {
        root.all("appfunction")
            .find(|f| f.child("id").unwrap().text == id)
            .unwrap()
    }

    fn param<'e>(f: &'e Element, name: &str) -> &'e Element {
        let p = f
            .all("parameters")
            .find(|p| p.child("name").unwrap().text == name)
            .unwrap();
        p.child("dataTypeMetadata").unwrap()
    }

    fn text<'e>(e: &'e Element, name: &str) -> &'e str {
        &e.child(name)
            .unwrap_or_else(|| panic!("no <{name}> in {e:?}"))
            .text
    }

    #[test]
    fn header_and_escaping() {
        let (xml, root) = generated();
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<appfunctions>\n    <appfunction>\n"));
        assert!(xml.contains(
            "<description>Creates an order for a customer &amp; &lt;friends&gt;.</description>"
        ));
        assert_eq!(
            text(function(&root, "create_order"), "description"),
            "Creates an order for a customer & <friends>."
        );
    }

    #[test]
    fn primitive_type_codes() {
        let (_, root) = generated();
        let f = function(&root, "create_order");
        for (name, code, format) in [
            ("customer", "8", None),
            ("quantity", "7", None),
            ("total", "6", None),
            ("price", "4", None),
            ("express", "1", None),
            ("when", "8", Some("date-time")),
            ("due", "8", Some("date")),
            ("ref", "8", Some("uuid")),
            ("order", "8", None),
        ] {
            let m = param(f, name);
            assert_eq!(text(m, "type"), code, "{name}");
            assert_eq!(m.child("format").map(|e| e.text.as_str()), format, "{name}");
            assert_eq!(text(m, "isNullable"), "false");
        }
        let customer = f.all("parameters").next().unwrap();
        assert_eq!(text(customer, "isRequired"), "true");
        assert_eq!(text(customer, "description"), "Customer name");
        assert_eq!(
            text(param(f, "order"), "description"),
            "The id of a Order entity."
        );
        assert_eq!(
            text(param(f, "priority"), "description"),
            "How urgent an order is Normal: The default"
        );
    }

    #[test]
    fn enums_nullables_arrays_and_records() {
        let (_, root) = generated();
        let f = function(&root, "create_order");
        let pr = param(f, "priority");
        assert_eq!(
            pr.all("enumValues")
                .map(|e| e.text.as_str())
                .collect::<Vec<_>>(),
            ["Low", "Normal", "High"]
        );
        assert_eq!(text(pr, "type"), "8");
        let p = f
            .all("parameters")
            .find(|p| text(p, "name") == "priority")
            .unwrap();
        assert_eq!(text(p, "isRequired"), "false");
        // {"nullable": {"enum": …}} and `"nullable": true`
        assert_eq!(text(param(f, "maybe"), "isNullable"), "true");
        assert_eq!(text(param(f, "note"), "isNullable"), "true");
        // array of string, array of records
        let tags = param(f, "tags");
        assert_eq!(text(tags, "type"), "10");
        assert_eq!(text(tags.child("itemType").unwrap(), "type"), "8");
        let notes = param(f, "notes").child("itemType").unwrap();
        assert_eq!(
            (text(notes, "type"), text(notes, "dataTypeReference")),
            ("11", "Note")
        );
        let address = param(f, "address");
        assert_eq!(
            (text(address, "type"), text(address, "dataTypeReference")),
            ("11", "Address")
        );
        // record result
        let vt = f.child("response").unwrap().child("valueType").unwrap();
        assert_eq!(
            (text(vt, "type"), text(vt, "dataTypeReference")),
            ("11", "Order")
        );
    }

    #[test]
    fn shared_object_types() {
        let (_, root) = generated();
        let comp = root.child("AppFunctionComponentMetadataDocument").unwrap();
        let names: Vec<&str> = comp.all("dataTypes").map(|d| text(d, "name")).collect();
        // reached transitively (Geo only through Address), sorted, each once
        assert_eq!(
            names,
            ["Address", "Geo", "Note", "Order", "TreeNode", "order"]
        );
        let note = comp
            .all("dataTypes")
            .find(|d| text(d, "name") == "Note")
            .unwrap();
        let meta = note.child("dataTypeMetadata").unwrap();
        assert_eq!(text(meta, "type"), "3");
        assert_eq!(text(meta, "objectQualifiedName"), "Note");
        assert_eq!(text(meta, "description"), "A note.");
        assert_eq!(
            meta.all("required")
                .map(|r| r.text.as_str())
                .collect::<Vec<_>>(),
            ["id", "title"]
        );
        let id = meta.all("properties").next().unwrap();
        assert_eq!(text(id, "name"), "id");
        assert_eq!(
            text(id.child("dataTypeMetadata").unwrap(), "description"),
            "The note's ID."
        );
        // a self-referencing record is fine: references, not inlining
        let tree = comp
            .all("dataTypes")
            .find(|d| text(d, "name") == "TreeNode")
            .unwrap();
        let kids = tree
            .child("dataTypeMetadata")
            .unwrap()
            .all("properties")
            .find(|p| text(p, "name") == "children")
            .unwrap();
        let item = kids
            .child("dataTypeMetadata")
            .unwrap()
            .child("itemType")
            .unwrap();
        assert_eq!(text(item, "dataTypeReference"), "TreeNode");
        assert_eq!(text(comp, "id"), "unused");
        // an entity inside a record is the full object, as in the core's schema
        let order = comp
            .all("dataTypes")
            .find(|d| text(d, "name") == "Order")
            .unwrap();
        let order = order.child("dataTypeMetadata").unwrap();
        let src = order
            .all("properties")
            .find(|p| text(p, "name") == "source")
            .unwrap();
        let src = src.child("dataTypeMetadata").unwrap();
        assert_eq!(
            (text(src, "type"), text(src, "dataTypeReference")),
            ("11", "order")
        );
        assert!(!order.all("required").any(|r| r.text == "source"));
    }

    #[test]
    fn void_disabled_deprecated_and_entities() {
        let (_, root) = generated();
        let ping = function(&root, "ping");
        let vt = ping.child("response").unwrap().child("valueType").unwrap();
        assert_eq!(text(vt, "type"), "0");
        assert!(
            ping.child("description").is_none(),
            "empty description and no title"
        );
        assert!(ping.child("parameters").is_none());
        let list = function(&root, "list_notes");
        assert_eq!(text(list, "enabledByDefault"), "false");
        assert!(list
            .child("deprecation")
            .unwrap()
            .child("message")
            .is_some());
        assert_eq!(
            text(list, "description"),
            "List notes",
            "title stands in for the description"
        );
        let item = list
            .child("response")
            .unwrap()
            .child("valueType")
            .unwrap()
            .child("itemType")
            .unwrap();
        assert_eq!(text(item, "isNullable"), "true");
        let search = function(&root, "search_order");
        let vt = search
            .child("response")
            .unwrap()
            .child("valueType")
            .unwrap();
        assert_eq!(text(vt, "type"), "10");
        assert_eq!(
            text(vt.child("itemType").unwrap(), "dataTypeReference"),
            "order"
        );
        assert_eq!(text(search, "functionId"), "search_order");
    }

    #[test]
    fn options_prefix_types() {
        let fx = Fixtures::new();
        let opts = AndroidXmlOptions {
            type_prefix: "com.example.shop.".into(),
            component_id: Some("com.example.shop.Service".into()),
        };
        let xml = android_xml_with(&fx.registry, &opts).unwrap();
        check(&xml).unwrap();
        assert!(xml.contains("<dataTypeReference>com.example.shop.Note</dataTypeReference>"));
        assert!(xml.contains("<objectQualifiedName>com.example.shop.Note</objectQualifiedName>"));
        assert!(xml.contains("<id>com.example.shop.Service</id>"));
    }

    #[test]
    fn exact_shape_of_one_function() {
        let reg = serde_json::json!({
            "functions": [{"id": "set_mode", "enabled": true, "deprecated": false,
                "parameters": [{"name": "mode", "type": {"enum": "Mode"}, "optional": false, "nullable": false}],
                "result": "void"}],
            "types": {"enums": [{"name": "Mode", "members": ["ON", "OFF"]}], "records": []},
            "entities": []});
        let xml = android_xml(&reg).unwrap();
        let expected = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>
<appfunctions>
    <appfunction>
        <id>set_mode</id>
        <enabledByDefault>true</enabledByDefault>
        <parameters>
            <dataTypeMetadata>
                <id>unused</id>
                <isNullable>false</isNullable>
                <enumValues>ON</enumValues>
                <enumValues>OFF</enumValues>
                <type>8</type>
            </dataTypeMetadata>
            <id>unused</id>
            <isRequired>true</isRequired>
            <name>mode</name>
        </parameters>
        <response>
            <id>unused</id>
            <valueType>
                <id>unused</id>
                <isNullable>false</isNullable>
                <type>0</type>
            </valueType>
        </response>
        <functionId>set_mode</functionId>
    </appfunction>
</appfunctions>
";
        assert_eq!(xml, expected);
        check(&xml).unwrap();
    }

    #[test]
    fn registry_errors_name_their_path() {
        let reg = serde_json::json!({"functions": [{"id": "f", "parameters": [{"name": "p", "type": {"enum": "Nope"}}]}]});
        let err = android_xml(&reg).unwrap_err().to_string();
        assert!(
            err.contains("functions[0].parameters[0].type") && err.contains("Nope"),
            "{err}"
        );
        let err = android_xml(&serde_json::json!({})).unwrap_err().to_string();
        assert!(err.contains("functions"), "{err}");
    }

    #[test]
    fn check_catches_structural_errors() {
        let (xml, _) = generated();
        let dangling = xml.replacen(
            "<dataTypeReference>Note</dataTypeReference>",
            "<dataTypeReference>Nope</dataTypeReference>",
            1,
        );
        assert!(check(&dangling).unwrap_err().contains("Nope"));
        let bad_code = xml.replacen("<type>7</type>", "<type>9</type>", 1);
        assert!(check(&bad_code).unwrap_err().contains("type code 9"));
        let unescaped = xml.replacen("&amp;", "&", 1);
        assert!(check(&unescaped).is_err());
    }
}
