//! Round trips: outcomes and schemas.
//!
//! - An outcome with fuzzed status, result (any JSON value), dialog, error code, message
//!   and final flag: `Outcome::to_json` is valid JSON of the documented shape and
//!   `Outcome::from_json` gives the same outcome back.
//! - Schemas of generated descriptors (common/mod.rs): every parameters and result
//!   schema is a JSON object with `$schema`, prints and parses back to itself, and every
//!   `$ref` names a key of its `$defs`; the registry and every JSON export parse, and
//!   every export (written straight from the descriptors) is byte for byte what `export`
//!   makes of the same schemas and registry document, or refused with the same error.
#![no_main]

mod common;

use appfunctions::export::{self, Format, ToolSpec};
use appfunctions::{sync_handler, Dispatcher, ErrorCode, Outcome, Status};
use arbitrary::{Arbitrary, Unstructured};
use common::Spec;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

const CODES: [ErrorCode; 12] = [
    ErrorCode::FunctionNotFound,
    ErrorCode::Disabled,
    ErrorCode::InvalidArgument,
    ErrorCode::EntityNotFound,
    ErrorCode::Denied,
    ErrorCode::PermissionDenied,
    ErrorCode::Cancelled,
    ErrorCode::TimedOut,
    ErrorCode::HandlerFailed,
    ErrorCode::LimitExceeded,
    ErrorCode::NotSupported,
    ErrorCode::InternalError,
];

/// A JSON value from the input (finite numbers that print and parse exactly).
fn value(u: &mut Unstructured, depth: u32) -> arbitrary::Result<Value> {
    let top = if depth == 0 { 4 } else { 6 };
    Ok(match u.int_in_range(0..=top)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => Value::from(f64::from(u.arbitrary::<i32>()?) / 1024.0),
        4 => Value::String(u.arbitrary()?),
        5 => {
            let n = u.int_in_range(0..=4)?;
            Value::Array(
                (0..n)
                    .map(|_| value(u, depth - 1))
                    .collect::<Result<_, _>>()?,
            )
        }
        _ => {
            let mut m = Map::new();
            for _ in 0..u.int_in_range(0..=4)? {
                m.insert(u.arbitrary()?, value(u, depth - 1)?);
            }
            Value::Object(m)
        }
    })
}

fn outcome_round_trip(u: &mut Unstructured) -> arbitrary::Result<()> {
    let status = *u.choose(&[Status::Success, Status::Error, Status::OpenApp])?;
    let o = Outcome {
        status,
        result: match value(u, 4)? {
            Value::Null => None, // null is "no result"
            v => Some(v.to_string()),
        },
        dialog: Option::<String>::arbitrary(u)?,
        error_code: if u.arbitrary()? {
            Some(*u.choose(&CODES)?)
        } else {
            None
        },
        message: Option::<String>::arbitrary(u)?,
        is_final: u.arbitrary()?,
    };
    let json = o.to_json();
    let v: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    for k in ["status", "result", "dialog", "errorCode", "message"] {
        assert!(v.get(k).is_some(), "{k} missing from {json}");
    }
    let back = Outcome::from_json(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(back, o, "{json}");
    Ok(())
}

fn refs_resolve(v: &Value, defs: Option<&Map<String, Value>>, root: &Value) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(r)) = o.get("$ref") {
                let name = r
                    .strip_prefix("#/$defs/")
                    .unwrap_or_else(|| panic!("$ref {r} is not local: {root}"));
                assert!(
                    defs.is_some_and(|d| d.contains_key(name)),
                    "$ref {r} has no definition: {root}"
                );
            }
            o.values().for_each(|x| refs_resolve(x, defs, root));
        }
        Value::Array(a) => a.iter().for_each(|x| refs_resolve(x, defs, root)),
        _ => {}
    }
}

fn check_schema(s: &Value) {
    let o = s
        .as_object()
        .unwrap_or_else(|| panic!("schema not an object: {s}"));
    assert_eq!(
        o.get("$schema").and_then(Value::as_str),
        Some("https://json-schema.org/draft/2020-12/schema")
    );
    let back: Value = serde_json::from_str(&s.to_string()).expect("schema text parses");
    assert_eq!(&back, s);
    refs_resolve(s, o.get("$defs").and_then(Value::as_object), s);
}

fn schemas(u: &mut Unstructured) -> arbitrary::Result<()> {
    let spec = Spec::generate(u)?;
    let d = Dispatcher::new();
    d.define_types(&spec.types_json().to_string())
        .expect("generated types");
    if let Some(e) = spec.entity_json() {
        d.register_entity(&e.to_string(), sync_handler(|_| Ok(Some("[]".into()))))
            .expect("generated entity");
    }
    let desc: String = u.arbitrary()?;
    let f = spec.function_json("fuzzed_fn", &desc);
    let h = (!spec.output_kind).then(|| sync_handler(|_| Ok(None)));
    d.register_function(&f.to_string(), h)
        .expect("generated function");
    for info in d.functions() {
        check_schema(&info.parameters_schema);
        assert_eq!(info.parameters_schema["type"], "object");
        if let Some(r) = &info.result_schema {
            check_schema(r);
        }
        assert_eq!(
            d.parameters_schema(&info.desc.id).unwrap(),
            info.parameters_schema
        );
    }
    let reg: Value = serde_json::from_str(&d.registry_json()).expect("registry parses");
    assert!(reg["functions"].is_array());
    for (fmt, name) in Format::ALL.iter().zip(Format::NAMES) {
        match d.export(*fmt) {
            Ok(t) if fmt.is_json() => {
                serde_json::from_str::<Value>(&t).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            Ok(t) if *fmt == Format::AndroidXml => {
                assert!(t.starts_with("<?xml") || t.starts_with('<'), "{name}: {t}")
            }
            // (Android's other assets, the App Intents Swift source)
            Ok(t) => assert!(!t.is_empty(), "{name}"),
            // a vendor may refuse a name or description; that is an error, not a crash
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
    same_as_export(&d);
    Ok(())
}

/// Every export is what `export` makes of the functions' schemas (JSON formats) or of the
/// registry document (Android XML), or the same refusal.
fn same_as_export(d: &Dispatcher) {
    let infos: Vec<_> = d.functions().into_iter().filter(|i| i.enabled).collect();
    let specs: Vec<ToolSpec> = infos
        .iter()
        .map(|i| ToolSpec {
            name: &i.desc.id,
            title: i.desc.title.as_deref(),
            description: i.desc.description.as_deref().unwrap_or(""),
            input_schema: &i.parameters_schema,
            output_schema: i.result_schema.as_ref(),
            hints: i.desc.hints,
            deprecated: i.desc.deprecated,
        })
        .collect();
    // (the other text formats have no tree writer to compare with)
    for fmt in Format::ALL
        .into_iter()
        .filter(|f| f.is_json() || *f == Format::AndroidXml)
    {
        let expected = if fmt == Format::AndroidXml {
            export::android_xml(&d.registry_value())
        } else {
            export::tools_value(fmt, &specs).map(|v| serde_json::to_string(&v).unwrap())
        };
        match (d.export(fmt), expected) {
            (Ok(a), Ok(b)) => assert!(a == b, "{fmt}:\n{a}\n{b}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{fmt}"),
            (a, b) => panic!("{fmt}: {a:?}, export: {b:?}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = match u.arbitrary::<bool>() {
        Ok(true) => outcome_round_trip(&mut u),
        _ => schemas(&mut u),
    };
});
