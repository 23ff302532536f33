//! Regression tests for what the fuzzers (fuzz/, ci/fuzz.sh) and the miri lane found.
//! Each test names the target and the input that found it.

use appfunctions::internals::{bind_arguments, ParseContext, TypeSet};
use appfunctions::{
    sync_handler, Dispatcher, FunctionDescriptor, Invocation, Limits, Outcome, Status,
};
use serde_json::json;

/// roundtrip target: an outcome whose result is the double 1005917.1025390625 (exactly
/// representable) came back from `Outcome::from_json` as 1005917.1025390624: serde_json
/// parses floats with a fast path that may be one ULP off unless its `float_roundtrip`
/// feature is on.
#[test]
fn doubles_survive_the_outcome_round_trip() {
    for x in [
        1005917.1025390625f64,
        0.1,
        1e-300,
        123456789.12345679,
        -2.5e17,
    ] {
        let o = Outcome::success(Some(serde_json::to_string(&x).unwrap()));
        let back = Outcome::from_json(&o.to_json()).unwrap();
        assert_eq!(back, o, "{x}");
    }
}

/// The same parse in the argument binder: a double argument must reach the handler as
/// the caller wrote it (normalisation must not change its value).
#[test]
fn double_arguments_are_bound_exactly() {
    let types = TypeSet::default();
    let f = FunctionDescriptor::parse(
        &json!({"id": "f", "parameters": [{"name": "x", "type": "double"}]}),
        &types,
        &ParseContext::default(),
    )
    .unwrap();
    for x in [
        1005917.1025390625f64,
        0.1,
        123456789.12345679,
        9007199254740993.0,
    ] {
        let text = format!(r#"{{"x": {}}}"#, serde_json::to_string(&x).unwrap());
        let b = bind_arguments(&types, &f.parameters, Some(&text), &Limits::default()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&b.json).unwrap();
        assert_eq!(v["x"].as_f64(), Some(x), "{text} bound as {}", b.json);
    }
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id": "f", "parameters": [{"name": "x", "type": "double"}], "result": "double"}"#,
        Some(sync_handler(|c| {
            let v: serde_json::Value = serde_json::from_str(c.args().unwrap()).unwrap();
            Ok(Some(v["x"].to_string()))
        })),
    )
    .unwrap();
    let o = d.execute_outcome(&Invocation::new("f"), Some(r#"{"x": 1005917.1025390625}"#));
    assert_eq!(o.status, Status::Success);
    assert_eq!(o.result.as_deref(), Some("1005917.1025390625"));
}

/// A date-time whose 10th byte falls inside a multi-byte character: the format check
/// sliced the text at byte 10 (`&s[..10]`) and panicked, and the call ended
/// `InternalError` instead of `InvalidArgument`.
#[test]
fn a_date_time_with_a_multibyte_character_is_an_invalid_argument() {
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id": "f", "parameters": [{"name": "when", "type": "dateTime"}, {"name": "day", "type": "date", "optional": true}]}"#,
        Some(sync_handler(|_| Ok(None))),
    )
    .unwrap();
    for args in [
        r#"{"when": "2025-06-0éT17:00:00+02:00"}"#,
        r#"{"when": "2025-06-01T17:00:00+02:00", "day": "2025-06-é"}"#,
        r#"{"when": "€€€€€€€€€€€€€€€€€€€€€€"}"#,
    ] {
        let o = d.execute_outcome(&Invocation::new("f"), Some(args));
        assert_eq!(
            o.error_code,
            Some(appfunctions::ErrorCode::InvalidArgument),
            "{args}: {o:?}"
        );
    }
}
