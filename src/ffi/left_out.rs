//! The C ABI in a build that leaves out a size-optional part (a cargo feature, Cargo.toml):
//! every export is there and answers an error naming the feature. Run by the rust lane as
//! `cargo test --lib --no-default-features` and with each phone build's features; in the
//! full build nothing here runs.

#![cfg(not(all(
    feature = "patterns",
    feature = "mcp",
    feature = "http",
    feature = "android",
    feature = "apple"
)))]
#![allow(unused_imports)]

use super::*;
use std::ffi::CStr;
use std::ptr::{null, null_mut};

fn last_error() -> String {
    // SAFETY: af_last_error lends a NUL-terminated string until the next call on this thread.
    unsafe { CStr::from_ptr(af_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn names(feature: &str) -> String {
    format!("cargo feature `{feature}`")
}

/// What an owned C string says, freed.
unsafe fn take(p: *mut c_char) -> String {
    assert!(!p.is_null(), "NULL: {}", last_error());
    // SAFETY: an owned string of the library.
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    unsafe { af_string_free(p) };
    s
}

#[cfg(not(feature = "mcp"))]
#[test]
fn the_mcp_functions_name_the_mcp_feature() {
    let d = af_dispatcher_new();
    let want = names("mcp");
    // SAFETY: a live dispatcher, NUL-terminated strings.
    unsafe {
        assert_eq!(af_mcp_configure(d, c"{}".as_ptr()), AF_ERR_INVALID);
        assert!(last_error().contains(&want), "{}", last_error());
        assert_eq!(af_mcp_set_notify(d, None, null_mut(), None), AF_ERR_INVALID);
        assert!(last_error().contains(&want), "{}", last_error());
        let ping = c"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}";
        assert!(af_mcp_handle_json(d, ping.as_ptr()).is_null());
        assert!(last_error().contains(&want), "{}", last_error());
        assert!(af_mcp_session_new(d, null()).is_null());
        assert!(last_error().contains(&want), "{}", last_error());
        assert_eq!(af_mcp_serve_stdio(d), AF_ERR_INVALID);
        assert!(last_error().contains(&want), "{}", last_error());
        // no session can exist: NULL is the only handle, and it is refused or ignored
        assert!(af_mcp_session_handle_json(null_mut(), ping.as_ptr()).is_null());
        assert_eq!(af_mcp_session_set_metadata(null_mut(), null()), AF_ERR_NULL);
        af_mcp_session_free(null_mut());
        af_dispatcher_free(d);
    }
}

#[cfg(not(feature = "http"))]
#[test]
fn the_http_functions_name_the_http_feature() {
    let d = af_dispatcher_new();
    // SAFETY: a live dispatcher; NULL handles are the only ones this build can have.
    unsafe {
        assert!(af_http_server_new(d, null()).is_null());
        assert!(last_error().contains(&names("http")), "{}", last_error());
        assert!(af_http_server_new(d, c"{\"maxSessions\": 2}".as_ptr()).is_null());
        assert!(last_error().contains(&names("http")), "{}", last_error());
        assert_eq!(af_http_server_max_body_bytes(null()), 0);
        assert!(af_http_handle(null_mut(), null()).is_null());
        assert_eq!(af_http_response_status(null()), 0);
        af_http_server_free(null_mut());
        af_http_response_free(null_mut());
        af_http_stream_free(null_mut());
        af_dispatcher_free(d);
    }
}

#[cfg(not(feature = "android"))]
#[test]
fn the_android_functions_answer_2000_naming_the_android_feature() {
    use std::sync::mpsc;
    let d = af_dispatcher_new();
    let inv = af_invocation {
        struct_size: std::mem::size_of::<af_invocation>() as u32,
        platform: 0,
        function_id: c"greet".as_ptr(),
        caller_package: null(),
        cancel_token: null(),
        timeout_ms: 0,
        is_foreground: 0,
        reserved: [0; 3],
        host_context: null_mut(),
    };
    let check = |json: &str| {
        let v: Value = serde_json::from_str(json).unwrap();
        assert_eq!(v["errorCode"], 2000, "{json}");
        assert!(
            v["message"].as_str().unwrap().contains(&names("android")),
            "{json}"
        );
    };
    // SAFETY: a live dispatcher and invocation; the callback gets its own sender back.
    unsafe {
        check(&take(af_android_execute_json(d, &inv, null())));
        unsafe extern "C" fn on_response(user_data: *mut c_void, json: *const c_char) {
            // SAFETY: the Box made below, called exactly once; json lent for the call.
            let tx = unsafe { Box::from_raw(user_data.cast::<mpsc::Sender<String>>()) };
            let _ = tx.send(
                unsafe { CStr::from_ptr(json) }
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        let (tx, rx) = mpsc::channel::<String>();
        let data = Box::into_raw(Box::new(tx)).cast::<c_void>();
        assert_eq!(
            af_android_execute_async(d, &inv, null(), Some(on_response), data),
            AF_OK
        );
        check(&rx.recv().unwrap());
        af_dispatcher_free(d);
    }
}

#[cfg(not(all(feature = "android", feature = "apple")))]
#[test]
fn the_exports_a_build_leaves_out_name_their_feature() {
    let mut left_out: Vec<(&std::ffi::CStr, &str)> = Vec::new();
    if !cfg!(feature = "android") {
        left_out.extend([
            (c"android-xml", "android"),
            (c"android-legacy-xml", "android"),
            (c"android-schema", "android"),
            (c"android-manifest", "android"),
        ]);
    }
    if !cfg!(feature = "apple") {
        left_out.push((c"swift-app-intents", "apple"));
    }
    let d = af_dispatcher_new();
    // SAFETY: a live dispatcher, NUL-terminated strings; owned results freed.
    unsafe {
        for (format, feature) in left_out {
            assert!(af_export_copy(d, format.as_ptr()).is_null(), "{format:?}");
            let e = last_error();
            assert!(e.contains(&names(feature)), "{format:?}: {e}");
            let bundle = af_dispatcher_bundle_json(d);
            assert!(af_bundle_export_copy(bundle, format.as_ptr()).is_null());
            assert!(last_error().contains(&names(feature)), "{}", last_error());
            af_string_free(bundle);
        }
        // the tool lists and agent views are in every build
        let tools: Value = serde_json::from_str(&take(af_export_copy(d, c"mcp".as_ptr()))).unwrap();
        assert_eq!(tools, serde_json::json!([]));
        af_dispatcher_free(d);
    }
}

#[cfg(not(feature = "patterns"))]
#[test]
fn a_pattern_is_refused_at_registration_naming_the_patterns_feature() {
    unsafe extern "C" fn handler(_user_data: *mut c_void, call: *mut af_call) {
        // SAFETY: the call being run.
        unsafe { af_call_return(call, c"\"ok\"".as_ptr()) };
    }
    let d = af_dispatcher_new();
    let with = cr#"{"id": "code", "description": "d", "parameters": [{"name": "c", "type": "string", "pattern": "^[A-Z]{3}$"}], "result": "string"}"#;
    let without = cr#"{"id": "plain", "description": "d", "parameters": [{"name": "c", "type": "string", "maxLength": 3}], "result": "string"}"#;
    // SAFETY: a live dispatcher, NUL-terminated descriptors, a handler without data.
    unsafe {
        assert_eq!(
            af_register_function(d, with.as_ptr(), Some(handler), null_mut(), None),
            AF_ERR_INVALID
        );
        let e = last_error();
        assert!(
            e.contains("pattern") && e.contains(&names("patterns")),
            "{e}"
        );
        assert_eq!(
            af_register_function(d, without.as_ptr(), Some(handler), null_mut(), None),
            AF_OK,
            "{}",
            last_error()
        );
        af_dispatcher_free(d);
    }
}
