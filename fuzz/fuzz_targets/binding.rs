//! Argument binding against fuzzed descriptors (structure-aware).
//!
//! The input drives a generator (common/mod.rs) that derives named types, an entity and a
//! function descriptor, all valid by construction, then arguments: valid ones, valid
//! ones with one definite fault, valid ones with bytes spliced in, or raw bytes.
//! Checked:
//! - every generated descriptor registers (the Rust API and the dispatcher agree);
//! - valid arguments bind; an unknown key or a missing required value never binds;
//! - what serde_json rejects as JSON never binds;
//! - what binds is a JSON object naming only declared parameters, every required one
//!   present, each entity reference's range holds its id, and binding the normalised
//!   text again gives the same text (normalisation is idempotent);
//! - through the dispatcher the outcome is `success` or `InvalidArgument` (never an
//!   internal error), and a generated valid result value binds in `Values` mode.
#![no_main]

mod common;

use appfunctions::internals::{bind_arguments, bind_value, parse_entity, Mode, ParseContext, TypeSet};
use appfunctions::{sync_handler, Dispatcher, FunctionDescriptor, Invocation, Limits, Outcome, Status};
use arbitrary::Unstructured;
use common::Spec;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(spec) = Spec::generate(&mut u) else {
        return;
    };
    let types_doc = spec.types_json();
    let entity_doc = spec.entity_json();
    let fn_doc = spec.function_json("fuzzed_fn", "A fuzzed function.");

    // the registry path
    let d = Dispatcher::new();
    d.define_types(&types_doc.to_string())
        .unwrap_or_else(|e| panic!("generated types refused: {e}\n{types_doc}"));
    if let Some(e) = &entity_doc {
        d.register_entity(&e.to_string(), sync_handler(|_| Ok(Some("[]".into()))))
            .unwrap_or_else(|err| panic!("generated entity refused: {err}\n{e}"));
    }
    let handler = (!spec.output_kind).then(|| sync_handler(|_| Ok(None)));
    d.register_function(&fn_doc.to_string(), handler)
        .unwrap_or_else(|e| panic!("generated function refused: {e}\n{fn_doc}"));

    // the same descriptors through the public parsing API, to bind directly
    let mut types = TypeSet::default();
    types.define(&types_doc).expect("types");
    let desc = if let Some(e) = &entity_doc {
        // entities are added by the dispatcher; its registry's descriptor is the reference
        let _ = parse_entity(e, &types).expect("entity");
        let info = d.functions();
        info.into_iter()
            .find(|f| f.desc.id == "fuzzed_fn")
            .expect("registered")
            .desc
    } else {
        FunctionDescriptor::parse(&fn_doc, &types, &ParseContext::default()).expect("function")
    };
    let typeset_for_binding = if entity_doc.is_some() {
        None
    } else {
        Some(&types)
    };

    let limits = Limits::default();
    let Ok(mode) = u.int_in_range(0..=4u8) else {
        return;
    };
    let Ok(valid) = spec.gen_args(&mut u) else {
        return;
    };
    let (text, expect): (String, Option<bool>) = match mode {
        0 | 1 => (valid.to_string(), Some(true)),
        2 => {
            // one definite fault: an unknown key, or a missing required value
            let mut v = valid.clone();
            let required: Vec<&str> = spec
                .params
                .iter()
                .filter(|p| !p.optional)
                .map(|p| p.name.as_str())
                .collect();
            if !required.is_empty() && u.arbitrary().unwrap_or(false) {
                let k = required[u.choose_index(required.len()).unwrap_or(0)];
                v.as_object_mut().unwrap().remove(k);
            } else {
                v.as_object_mut()
                    .unwrap()
                    .insert("zzUnknown".into(), Value::Null);
            }
            (v.to_string(), Some(false))
        }
        3 => {
            // bytes spliced into a valid document
            let mut t = valid.to_string().into_bytes();
            let at = u.int_in_range(0..=t.len()).unwrap_or(0);
            let junk: Vec<u8> = u.arbitrary().unwrap_or_default();
            t.splice(at..at, junk.into_iter().take(8));
            (String::from_utf8_lossy(&t).into_owned(), None)
        }
        _ => {
            let n = u.len();
            (
                String::from_utf8_lossy(u.bytes(n).unwrap_or_default()).into_owned(),
                None,
            )
        }
    };

    let serde_ok = serde_json::from_str::<Value>(&text).is_ok();
    if let Some(ts) = typeset_for_binding {
        let r = bind_arguments(ts, &desc.parameters, Some(&text), &limits);
        check_bound(&spec, ts, &desc, &text, &r, serde_ok, expect, &limits);
    }

    // the whole pipeline: never an internal error, and the verdict matches
    let o: Outcome = d.execute_outcome(&Invocation::new("fuzzed_fn"), Some(&text));
    match (o.status, o.error_code) {
        (Status::Success, _) => {
            assert!(serde_ok, "the pipeline accepted invalid JSON: {text:?}");
            assert_ne!(expect, Some(false), "a definite fault was accepted: {text}");
        }
        (Status::Error, Some(appfunctions::ErrorCode::InvalidArgument)) => {
            assert_ne!(
                expect,
                Some(true),
                "valid arguments refused: {text}\n{o:?}\n{fn_doc}"
            );
        }
        // an entity id that the (empty) lookup does not know
        (Status::Error, Some(appfunctions::ErrorCode::EntityNotFound)) if entity_doc.is_some() => {}
        // a void function returning nothing, or an output function's result check
        (Status::Error, Some(appfunctions::ErrorCode::HandlerFailed)) => {}
        _ => panic!("unexpected outcome {o:?} for {text:?}\n{fn_doc}"),
    }

    // a valid result value binds in Values mode
    if let (Some(rt), Some(ts)) = (&spec.result, typeset_for_binding) {
        if let (Ok(v), Some(ty)) = (spec.gen_value(&mut u, rt, true, 3), &desc.result) {
            let t = v.to_string();
            if let Err(e) = bind_value(ts, ty, &t, Mode::Values, &limits) {
                panic!("valid result {t} refused: {e}\n{fn_doc}");
            }
        }
    }
});

#[allow(clippy::too_many_arguments)]
fn check_bound(
    spec: &Spec,
    types: &TypeSet,
    desc: &FunctionDescriptor,
    text: &str,
    r: &Result<appfunctions::internals::Bound, appfunctions::internals::BindError>,
    serde_ok: bool,
    expect: Option<bool>,
    limits: &Limits,
) {
    match r {
        Err(e) => {
            assert_ne!(expect, Some(true), "valid arguments refused: {e}\n{text}");
            assert!(!e.to_string().is_empty());
        }
        Ok(b) => {
            assert!(serde_ok, "the binder accepted invalid JSON: {text:?}");
            assert_ne!(expect, Some(false), "a definite fault was accepted: {text}");
            let v: Value = serde_json::from_str(&b.json)
                .unwrap_or_else(|e| panic!("bound JSON does not parse ({e}): {}", b.json));
            let o = v.as_object().expect("bound arguments are an object");
            for k in o.keys() {
                assert!(
                    spec.params.iter().any(|p| &p.name == k),
                    "undeclared key {k}"
                );
            }
            for p in spec.params.iter().filter(|p| !p.optional) {
                assert!(
                    o.contains_key(&p.name),
                    "required {} missing from {}",
                    p.name,
                    b.json
                );
            }
            for er in &b.entity_refs {
                let slice = &b.json[er.range.clone()];
                let id: String = serde_json::from_str(slice)
                    .unwrap_or_else(|e| panic!("entity range {slice:?} is not a string: {e}"));
                assert_eq!(id, er.id(&b.json));
            }
            let again = bind_arguments(types, &desc.parameters, Some(&b.json), limits)
                .unwrap_or_else(|e| panic!("normalised arguments refused: {e}\n{}", b.json));
            assert_eq!(
                again.json, b.json,
                "normalisation is not idempotent for {text}"
            );
        }
    }
}
