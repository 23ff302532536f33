//! Descriptor bundles: a dispatcher's registrations as one JSON document, and every
//! export made from such a document without a running app.
//!
//! The assets an operating system reads from an app (Android's AppFunctions schema files,
//! the App Intents Swift source) are made at build time, where no app runs and no handler
//! exists. A bundle carries what they are made from:
//!
//! ```json
//! {"metadataSchema": {"properties": {"tier": {"default": "free"}}},
//!  "toolkits": [{"name": "orders", "description": "…"}],
//!  "types": {"enums": [...], "records": [...]},
//!  "entities": [{"name": "note", "fields": [...]}],
//!  "functions": [{"id": "create_order", ...}]}
//! ```
//!
//! Every key is optional; each value is what the matching registration call takes
//! (`set_metadata_schema`, `define_toolkit`, `define_types`, `register_entity`,
//! `register_function`). [`of`] writes one from a dispatcher; [`load`] makes a dispatcher
//! from one, whose functions answer `NotSupported` (they have no handler) and whose
//! exports are exactly the original's (`export_bundle`).

use super::call::{Call, Handler};
use super::dispatcher::Dispatcher;
use crate::model::error::{Error, ErrorCode, Result};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The keys a bundle may have.
pub const KEYS: &[&str] = &[
    "metadataSchema",
    "toolkits",
    "types",
    "entities",
    "functions",
];

/// The largest bundle accepted: 16 MiB.
pub(crate) const MAX_BUNDLE_BYTES: usize = 16 << 20;

/// The handler of a function made from a bundle: it has none to run.
struct NoHandler;

impl Handler for NoHandler {
    fn invoke(&self, call: &Arc<Call>) {
        let _ = call.complete(Err((
            ErrorCode::NotSupported,
            format!(
                "\"{}\" was registered from a descriptor bundle, which has no handlers",
                call.function_id()
            ),
        )));
    }
}

/// Drops `null` members and the `nullable` flag (the type says it) of a written
/// parameter or field, so the object is the descriptor form registration reads.
fn clean_slot(v: &mut Value) {
    if let Value::Object(o) = v {
        o.retain(|k, v| !v.is_null() && k != "nullable");
    }
}

fn clean_fields(fields: &mut Value) {
    if let Value::Array(a) = fields {
        a.iter_mut().for_each(clean_slot);
    }
}

fn drop_nulls(o: &mut Map<String, Value>) {
    o.retain(|_, v| !v.is_null());
}

/// The bundle of `d`'s current registrations (declared functions, entities, the types,
/// toolkits and metadata schema they use). Generated `search_{entity}` functions are not
/// listed: registering the entity makes them again.
pub fn of(d: &Dispatcher) -> Value {
    let s = d.snapshot();
    let mut out = Map::new();
    if let Some(props) = &s.metadata_properties {
        let mut p = Map::new();
        for name in props.iter() {
            let mut prop = Map::new();
            if let Some(def) = s.metadata_defaults.get(name) {
                prop.insert("default".into(), def.clone());
            }
            p.insert(name.clone(), Value::Object(prop));
        }
        out.insert(
            "metadataSchema".into(),
            serde_json::json!({ "properties": Value::Object(p) }),
        );
    }
    let toolkits: Vec<Value> = s
        .toolkits
        .iter()
        .map(|t| {
            let mut v = t.to_json();
            if let Value::Object(o) = &mut v {
                o.remove("dynamic");
                drop_nulls(o);
            }
            v
        })
        .collect();
    out.insert("toolkits".into(), Value::Array(toolkits));
    let mut types = s.types.to_json();
    if let Some(Value::Array(records)) = types.get_mut("records") {
        for r in records {
            if let Value::Object(o) = r {
                drop_nulls(o);
                if let Some(f) = o.get_mut("fields") {
                    clean_fields(f);
                }
            }
        }
    }
    if let Some(Value::Array(enums)) = types.get_mut("enums") {
        for e in enums {
            if let Value::Object(o) = e {
                drop_nulls(o);
                if let Some(Value::Array(members)) = o.get_mut("members") {
                    members.iter_mut().for_each(clean_slot);
                }
            }
        }
    }
    out.insert("types".into(), types);
    let entities: Vec<Value> = s
        .types
        .entities
        .iter()
        .map(|e| {
            let mut v = s.types.entity_json(e);
            if let Value::Object(o) = &mut v {
                drop_nulls(o);
                if let Some(f) = o.get_mut("fields") {
                    clean_fields(f);
                }
            }
            v
        })
        .collect();
    out.insert("entities".into(), Value::Array(entities));
    let functions: Vec<Value> = s
        .entries()
        .filter(|e| e.desc.generated_for.is_none())
        .map(|e| {
            let mut v = e.desc.to_json(&s.types, e.is_enabled());
            if let Value::Object(o) = &mut v {
                o.remove("generated");
                o.remove("entity");
                drop_nulls(o);
                if let Some(Value::Array(ps)) = o.get_mut("parameters") {
                    ps.iter_mut().for_each(clean_slot);
                }
                // the written form keeps constraints apart; the descriptor's slot form
                // holds them beside the type
                if let Some(Value::Object(c)) = o.remove("resultConstraints") {
                    let ty = o.remove("result").unwrap_or(Value::Null);
                    let mut slot = Map::new();
                    slot.insert("type".into(), ty);
                    slot.extend(c);
                    o.insert("result".into(), Value::Object(slot));
                }
                if let Some(Value::Object(h)) = o.get_mut("hints") {
                    drop_nulls(h);
                }
            }
            v
        })
        .collect();
    out.insert("functions".into(), Value::Array(functions));
    Value::Object(out)
}

fn array<'a>(o: &'a Map<String, Value>, key: &str) -> Result<&'a [Value]> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(Error::descriptor(key, "expected an array")),
    }
}

/// Prefixes a registration error's path with where the item sits in the bundle.
fn at(e: Error, place: &str) -> Error {
    match e {
        Error::Descriptor { path, reason } => Error::Descriptor {
            path: format!("{place}: {path}"),
            reason,
        },
        Error::Json { what, reason } => Error::Json {
            what: format!("{place} ({what})"),
            reason,
        },
        Error::Duplicate(m) => Error::Duplicate(format!("{place}: {m}")),
        Error::NotFound(m) => Error::NotFound(format!("{place}: {m}")),
        Error::Invalid(m) => Error::Invalid(format!("{place}: {m}")),
    }
}

/// A dispatcher registered from a bundle's text. Its functions have no handlers (a call
/// answers `NotSupported`); everything else — the registry, schemas, every export — is
/// what the bundle describes. Errors name the item (`functions[2]: create_order.…`).
pub fn load(bundle_json: &str) -> Result<Dispatcher> {
    if bundle_json.len() > MAX_BUNDLE_BYTES {
        return Err(Error::Json {
            what: "bundle".into(),
            reason: format!(
                "the document is {} bytes, more than the limit of {MAX_BUNDLE_BYTES}",
                bundle_json.len()
            ),
        });
    }
    let doc: Value = serde_json::from_str(bundle_json).map_err(|e| Error::Json {
        what: "bundle".into(),
        reason: e.to_string(),
    })?;
    load_value(&doc)
}

/// [`load`] from a parsed document.
pub fn load_value(doc: &Value) -> Result<Dispatcher> {
    let o = doc
        .as_object()
        .ok_or_else(|| Error::descriptor("bundle", "expected a JSON object"))?;
    if let Some(k) = o.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(Error::descriptor(
            format!("bundle.{k}"),
            format!("unknown key (a bundle has {})", KEYS.join(", ")),
        ));
    }
    let d = Dispatcher::new();
    if let Some(m) = o.get("metadataSchema").filter(|v| !v.is_null()) {
        d.set_metadata_schema(&m.to_string())
            .map_err(|e| at(e, "metadataSchema"))?;
    }
    for (i, t) in array(o, "toolkits")?.iter().enumerate() {
        d.define_toolkit(&t.to_string(), None)
            .map_err(|e| at(e, &format!("toolkits[{i}]")))?;
    }
    let entities = array(o, "entities")?;
    let types = o.get("types").filter(|v| !v.is_null());
    // Types usually come first (entities' fields use them); a record with an entity field
    // needs the entity first. Both orders are tried before the first error is reported.
    let register_entities = |d: &Dispatcher| -> Result<()> {
        for (i, e) in entities.iter().enumerate() {
            d.register_entity(&e.to_string(), Arc::new(NoHandler))
                .map_err(|err| at(err, &format!("entities[{i}]")))?;
        }
        Ok(())
    };
    let d = match types {
        None => {
            register_entities(&d)?;
            d
        }
        Some(t) => {
            let text = t.to_string();
            match d.define_types(&text) {
                Ok(()) => {
                    register_entities(&d)?;
                    d
                }
                Err(first) => {
                    let again = Dispatcher::new();
                    if let Some(m) = o.get("metadataSchema").filter(|v| !v.is_null()) {
                        again.set_metadata_schema(&m.to_string())?;
                    }
                    for t in array(o, "toolkits")? {
                        again.define_toolkit(&t.to_string(), None)?;
                    }
                    if register_entities(&again).is_err() || again.define_types(&text).is_err() {
                        return Err(at(first, "types"));
                    }
                    again
                }
            }
        }
    };
    for (i, f) in array(o, "functions")?.iter().enumerate() {
        d.register_function_value(f, Some(Arc::new(NoHandler)))
            .map_err(|e| at(e, &format!("functions[{i}]")))?;
    }
    Ok(d)
}
