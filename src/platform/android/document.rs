//! A `GenericDocument` (`android.app.appsearch.GenericDocument`) as it crosses the ABI, and
//! the two conversions every Android service shares: the request's parameters document into
//! the arguments of a function (by its descriptor), and an outcome into the response the
//! service hands to its `OutcomeReceiver` (docs/android.md has both tables).
//!
//! The neutral image of a document:
//!
//! ```json
//! {"namespace": "", "id": "", "schemaType": "Note",
//!  "properties": {"title": {"strings": ["Milk"]}, "id": {"longs": [1]}}}
//! ```
//!
//! Each property holds exactly one typed array: `strings`, `longs`, `doubles`, `booleans`,
//! `bytes` (base64) or `documents` (nested images). Other metadata (`score`, `ttlMillis`,
//! `creationTimestampMillis`) may be present and is ignored. A `GenericDocument` does not
//! say whether a property is one value or many, and holds no null: the descriptor decides.
//!
//! Only the shape is converted here: each rule about values (ranges, enum members, dates,
//! constraints, required and nullable parameters, defaults) is the binder's, the same for
//! every platform, so a value the binder refuses is refused with the binder's message.

use crate::model::descriptor::FunctionDescriptor;
use crate::model::error::ErrorCode;
use crate::model::outcome::{Outcome, Status};
use crate::model::types::{Field, Type, TypeSet};
use serde_json::{Map, Value};

/// The property of the response document that holds the return value
/// (`ExecuteAppFunctionResponse.PROPERTY_RETURN_VALUE`).
pub const RETURN_VALUE_PROPERTY: &str = "androidAppfunctionsReturnValue";

/// The key of the response's extras (`ExecuteAppFunctionResponse.getExtras()`, a `Bundle`)
/// under which the call's dialog text (`af_call_say`) travels.
pub const DIALOG_EXTRA: &str = "dev.appfunctions.extra.DIALOG";

/// `AppFunctionException.ERROR_INVALID_ARGUMENT`: the request's document cannot be bound.
pub(crate) const ERROR_INVALID_ARGUMENT: i32 = 1001;
/// `AppFunctionException.ERROR_SYSTEM_ERROR`: the service itself could not run the call
/// (no dispatcher published in time, a bad handle).
pub(crate) const ERROR_SYSTEM_ERROR: i32 = 2000;
/// `AppFunctionException.ERROR_APP_UNKNOWN_ERROR`: the app's result cannot be expressed.
pub(crate) const ERROR_APP_UNKNOWN_ERROR: i32 = 3000;

/// The typed arrays of a property, in the order the image's documentation lists them.
const KINDS: [&str; 6] = [
    "strings",
    "longs",
    "doubles",
    "booleans",
    "bytes",
    "documents",
];

/// The arguments object (JSON text) of `desc` from the image of the request's parameters
/// document. `Err` is the message of an `InvalidArgument` refusal, naming the property (as
/// a path: `note.title`, `tags[2]`) and the reason.
pub fn arguments(
    types: &TypeSet,
    desc: &FunctionDescriptor,
    image: &str,
) -> Result<String, String> {
    let doc: Value = serde_json::from_str(image)
        .map_err(|e| format!("the parameters document is not JSON: {e}"))?;
    let props = properties(&doc, "the parameters document")?;
    let mut args = Map::new();
    for (name, prop) in props {
        let Some(p) = desc.parameters.iter().find(|p| p.name == *name) else {
            let known: Vec<&str> = desc.parameters.iter().map(|p| p.name.as_str()).collect();
            return Err(format!(
                "unknown property `{name}`: {} takes {}",
                desc.id,
                if known.is_empty() {
                    "no parameters".to_owned()
                } else {
                    known.join(", ")
                }
            ));
        };
        if let Some(v) = value(types, &p.ty, prop, name)? {
            args.insert(name.clone(), v);
        }
    }
    Ok(Value::Object(args).to_string())
}

/// The `properties` object of a document image (absent: none).
fn properties<'v>(doc: &'v Value, what: &str) -> Result<&'v Map<String, Value>, String> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    let Some(doc) = doc.as_object() else {
        return Err(format!("{what} must be a JSON object (a document image)"));
    };
    match doc.get("properties") {
        None | Some(Value::Null) => Ok(EMPTY.get_or_init(Map::new)),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(format!("{what}: `properties` must be an object")),
    }
}

/// A property's one typed array: its kind and items.
fn typed<'v>(prop: &'v Value, path: &str) -> Result<(&'static str, &'v [Value]), String> {
    let one_of = || {
        format!(
            "`{path}` must hold exactly one typed array: {}",
            KINDS.join(", ")
        )
    };
    let obj = prop.as_object().ok_or_else(one_of)?;
    if obj.len() != 1 {
        return Err(one_of());
    }
    let (key, items) = obj.iter().next().expect("one entry");
    let kind = KINDS.into_iter().find(|k| k == key).ok_or_else(one_of)?;
    let items = items
        .as_array()
        .ok_or_else(|| format!("`{path}`: `{kind}` must be an array"))?;
    Ok((kind, items))
}

fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Nullable(inner) => strip(inner),
        t => t,
    }
}

/// The argument value of one property for a parameter or field of type `ty`; `None` when
/// the property holds no value (the argument is then omitted).
fn value(types: &TypeSet, ty: &Type, prop: &Value, path: &str) -> Result<Option<Value>, String> {
    let (kind, items) = typed(prop, path)?;
    match strip(ty) {
        Type::Array(inner) => {
            let inner = strip(inner);
            if matches!(inner, Type::Array(_)) {
                return Err(format!(
                    "`{path}` is {}: an array of arrays cannot travel in a GenericDocument",
                    types.type_name(ty)
                ));
            }
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(scalar(types, inner, kind, item, &format!("{path}[{i}]"))?);
            }
            Ok(Some(Value::Array(out)))
        }
        base => match items {
            [] => Ok(None),
            [one] => scalar(types, base, kind, one, path).map(Some),
            many => Err(format!(
                "`{path}` takes one value ({}), got {} {kind}",
                types.type_name(ty),
                many.len()
            )),
        },
    }
}

/// One item of a typed array as the argument value of a (non-array) type.
fn scalar(
    types: &TypeSet,
    ty: &Type,
    kind: &str,
    item: &Value,
    path: &str,
) -> Result<Value, String> {
    let bad = |what: &str| format!("`{path}`: {kind} holds {what}");
    match kind {
        "strings" if item.is_string() => Ok(item.clone()),
        "booleans" if item.is_boolean() => Ok(item.clone()),
        "longs" if item.is_i64() => Ok(match ty {
            // what `cmd app_function execute-app-function` sends for 2.0 is the long 2
            Type::Double => Value::from(item.as_i64().unwrap_or_default() as f64),
            _ => item.clone(),
        }),
        "longs" if item.is_u64() => Err(bad("a value beyond a 64-bit long")),
        "doubles" if item.is_number() => Ok(item.clone()),
        "bytes" if item.is_string() => Err(format!(
            "`{path}` is {}: bytes bind to no parameter type",
            types.type_name(ty)
        )),
        "documents" if item.is_object() => match ty {
            Type::Record(i) => {
                let r = &types.records[*i];
                document(types, &r.name, &r.fields, item, path)
            }
            other => Err(format!(
                "`{path}` is {}, not a record: it cannot be a document",
                types.type_name(other)
            )),
        },
        "strings" | "bytes" => Err(bad("a value that is not a string")),
        "booleans" => Err(bad("a value that is not a boolean")),
        "longs" => Err(bad("a value that is not an integer")),
        "doubles" => Err(bad("a value that is not a number")),
        _ => Err(bad("a value that is not a document image")),
    }
}

/// A nested document as a record's object, field by field.
fn document(
    types: &TypeSet,
    record: &str,
    fields: &[Field],
    item: &Value,
    path: &str,
) -> Result<Value, String> {
    let mut out = Map::new();
    for (name, prop) in properties(item, &format!("`{path}`"))? {
        let sub = format!("{path}.{name}");
        let Some(f) = fields.iter().find(|f| f.name == *name) else {
            let known: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
            return Err(format!(
                "unknown property `{sub}`: {record} has {}",
                known.join(", ")
            ));
        };
        if let Some(v) = value(types, &f.ty, prop, &sub)? {
            out.insert(name.clone(), v);
        }
    }
    Ok(Value::Object(out))
}

/// The response JSON of an outcome: `{"result": <image>, "extras": {…}}` on success (the
/// return value under [`RETURN_VALUE_PROPERTY`]; void or null: an empty document; the
/// dialog under [`DIALOG_EXTRA`]), else `{"errorCode": <AppFunctionException code>,
/// "message": "…"}`. `result` is the function's declared result type (`None`: void, or
/// unknown; the value's own shape then decides).
pub fn response(types: &TypeSet, result: Option<&Type>, outcome: &Outcome) -> String {
    match outcome.status {
        Status::Success => {
            let value = match outcome.result.as_deref() {
                None => Value::Null,
                Some(text) => match serde_json::from_str(text) {
                    Ok(v) => v,
                    Err(e) => {
                        return error_response(
                            ERROR_APP_UNKNOWN_ERROR,
                            &format!("the result is not JSON: {e}"),
                        )
                    }
                },
            };
            let mut props = Map::new();
            match property(types, result, &value, RETURN_VALUE_PROPERTY) {
                Ok(Some(p)) => {
                    props.insert(RETURN_VALUE_PROPERTY.into(), p);
                }
                Ok(None) => {}
                Err(e) => {
                    return error_response(
                        ERROR_APP_UNKNOWN_ERROR,
                        &format!("the result cannot travel in a GenericDocument: {e}"),
                    )
                }
            }
            let mut extras = Map::new();
            if let Some(d) = &outcome.dialog {
                extras.insert(DIALOG_EXTRA.into(), Value::String(d.clone()));
            }
            let mut o = Map::new();
            o.insert("result".into(), image("", props));
            o.insert("extras".into(), Value::Object(extras));
            Value::Object(o).to_string()
        }
        Status::Error => error_response(
            outcome
                .error_code
                .unwrap_or(ErrorCode::InternalError)
                .android_code(),
            outcome.message.as_deref().unwrap_or(""),
        ),
        // Android calls never continue in the app (the pipeline refuses them); should one
        // arrive, it is a refusal with the outcome's message.
        Status::OpenApp => error_response(
            ErrorCode::Denied.android_code(),
            outcome.message.as_deref().unwrap_or(""),
        ),
    }
}

/// `{"errorCode": code, "message": message}`.
pub fn error_response(code: i32, message: &str) -> String {
    let mut o = Map::new();
    o.insert("errorCode".into(), Value::from(code));
    o.insert("message".into(), Value::String(message.to_owned()));
    Value::Object(o).to_string()
}

fn image(schema_type: &str, props: Map<String, Value>) -> Value {
    let mut o = Map::new();
    o.insert("namespace".into(), Value::String(String::new()));
    o.insert("id".into(), Value::String(String::new()));
    o.insert("schemaType".into(), Value::String(schema_type.to_owned()));
    o.insert("properties".into(), Value::Object(props));
    Value::Object(o)
}

/// The kind of typed array a (non-array) type travels as.
fn kind_of(ty: &Type) -> &'static str {
    match ty {
        Type::Boolean => "booleans",
        Type::Int32 | Type::Int64 => "longs",
        Type::Double => "doubles",
        Type::Record(_) | Type::Entity(_) => "documents",
        Type::Nullable(inner) => kind_of(inner),
        // strings, dates, uuids, enums (and arrays, refused by the caller)
        _ => "strings",
    }
}

/// The kind of a value of unknown type.
fn kind_of_value(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::String(_) => "strings",
        Value::Bool(_) => "booleans",
        Value::Number(n) if n.is_i64() => "longs",
        Value::Number(_) => "doubles",
        Value::Object(_) => "documents",
        Value::Null | Value::Array(_) => return None,
    })
}

/// The typed array of a value of type `ty` (`None`: unknown, the value decides); `None`
/// for null.
fn property(
    types: &TypeSet,
    ty: Option<&Type>,
    v: &Value,
    path: &str,
) -> Result<Option<Value>, String> {
    if v.is_null() {
        return Ok(None);
    }
    let ty = ty.map(strip);
    let items: Vec<(usize, &Value)> = match v {
        Value::Array(a) => a.iter().enumerate().collect(),
        one => vec![(0, one)],
    };
    let item_ty = match (ty, v) {
        (Some(Type::Array(inner)), _) => Some(strip(inner)),
        (None, Value::Array(_)) => None,
        (Some(t), _) => Some(t),
        (None, _) => None,
    };
    if matches!(item_ty, Some(Type::Array(_))) {
        return Err(format!("`{path}` is an array of arrays"));
    }
    let kind = match item_ty {
        Some(t) => kind_of(t),
        None => match items.iter().find_map(|(_, v)| kind_of_value(v)) {
            Some(k) => k,
            None if items.is_empty() => "strings",
            None => return Err(format!("`{path}` holds arrays or nulls only")),
        },
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items {
        let at = || {
            if v.is_array() {
                format!("{path}[{i}]")
            } else {
                path.to_owned()
            }
        };
        out.push(result_item(types, item_ty, kind, item, &at())?);
    }
    let mut o = Map::new();
    o.insert(kind.into(), Value::Array(out));
    Ok(Some(Value::Object(o)))
}

/// One item of a result's typed array.
fn result_item(
    types: &TypeSet,
    ty: Option<&Type>,
    kind: &str,
    v: &Value,
    path: &str,
) -> Result<Value, String> {
    let bad = || format!("`{path}` is {v}, which is not one of the {kind}");
    match kind {
        "strings" => v.as_str().map(Value::from).ok_or_else(bad),
        "booleans" => v.as_bool().map(Value::from).ok_or_else(bad),
        "longs" => v.as_i64().map(Value::from).ok_or_else(bad),
        "doubles" => v.as_f64().map(Value::from).ok_or_else(bad),
        _ => {
            let obj = v.as_object().ok_or_else(bad)?;
            let (name, fields): (&str, Option<&[Field]>) = match ty {
                Some(Type::Record(i)) => (&types.records[*i].name, Some(&types.records[*i].fields)),
                Some(Type::Entity(i)) => {
                    (&types.entities[*i].name, Some(&types.entities[*i].fields))
                }
                _ => ("", None),
            };
            let mut props = Map::new();
            match fields {
                Some(fields) => {
                    for f in fields {
                        if let Some(fv) = obj.get(&f.name) {
                            let sub = format!("{path}.{}", f.name);
                            if let Some(p) = property(types, Some(&f.ty), fv, &sub)? {
                                props.insert(f.name.clone(), p);
                            }
                        }
                    }
                }
                None => {
                    for (k, fv) in obj {
                        if let Some(p) = property(types, None, fv, &format!("{path}.{k}"))? {
                            props.insert(k.clone(), p);
                        }
                    }
                }
            }
            Ok(image(name, props))
        }
    }
}
