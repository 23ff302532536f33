//! MCP message handling: `mcp::Session::handle` on the demo app and `af_mcp_handle_json` on a
//! C-ABI dispatcher with the same descriptors.
//!
//! Input: one JSON-RPC message per line (the seeds are tests/mcp.rs's conversations),
//! fed in order to both sessions, so handshakes, cursors and calls build on each other.
//! Checked: nothing panics; every response is JSON (an object with `"jsonrpc": "2.0"`,
//! or a batch array); a request (a valid id, a string method that is not a
//! notification or a `subscriptions/listen`, which opens a stream) always gets a
//! response, with the request's id; the C ABI answers exactly when the Rust session
//! answers (but for `subscriptions/listen`: the C session has no notification sink and
//! refuses it). Every notification the Rust session sends is JSON.
#![no_main]

#[path = "../../examples/demo/app.rs"]
mod app;

use appfunctions::ffi::*;
use appfunctions::mcp::{McpConfig, Session};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::ffi::{c_void, CStr, CString};

unsafe extern "C" fn echo(_: *mut c_void, call: *mut af_call) {
    let _ = af_call_return(call, af_call_args(call));
}

unsafe extern "C" fn lookup(_: *mut c_void, call: *mut af_call) {
    let _ = af_call_return(
        call,
        cr#"[{"id":"o-1","customer":"acme","quantity":2,"priority":"Normal","status":"open"}]"#
            .as_ptr(),
    );
}

unsafe fn c_app(page_size: usize) -> *mut af_dispatcher {
    let d = af_dispatcher_new();
    let c = |s: &str| CString::new(s).unwrap();
    assert_eq!(af_define_types(d, c(app::TYPES).as_ptr()), AF_OK);
    assert_eq!(
        af_define_types(
            d,
            c(r#"{"records": [{"name": "OrderStats", "fields": [{"name": "open", "type": "int32"}, {"name": "cancelled", "type": "int32"}]}]}"#).as_ptr()
        ),
        AF_OK
    );
    assert_eq!(
        af_set_metadata_schema(d, c(app::METADATA_SCHEMA).as_ptr()),
        AF_OK
    );
    assert_eq!(
        af_define_toolkit(
            d,
            c(app::ORDERS_TOOLKIT).as_ptr(),
            None,
            std::ptr::null_mut(),
            None
        ),
        AF_OK
    );
    assert_eq!(
        af_register_entity(
            d,
            c(app::ORDER_ENTITY).as_ptr(),
            Some(lookup),
            std::ptr::null_mut(),
            None
        ),
        AF_OK
    );
    for f in [
        app::CREATE_ORDER,
        app::CANCEL_ORDER,
        app::LIST_NOTES,
        app::CREATE_NOTE,
        app::EDIT_NOTE,
        app::FIND_ORDERS,
    ] {
        assert_eq!(
            af_register_function(d, c(f).as_ptr(), Some(echo), std::ptr::null_mut(), None),
            AF_OK
        );
    }
    assert_eq!(
        af_register_function(
            d,
            c(app::REPORT_ORDER_SUMMARY).as_ptr(),
            None,
            std::ptr::null_mut(),
            None
        ),
        AF_OK
    );
    let cfg = c(&json!({"pageSize": page_size, "maxMessageBytes": 4096}).to_string());
    assert_eq!(af_mcp_configure(d, cfg.as_ptr()), AF_OK);
    d
}

fn expects_response(msg: &str) -> Option<Value> {
    let v: Value = serde_json::from_str(msg).ok()?;
    let o = v.as_object()?;
    if o.get("jsonrpc")? != "2.0" {
        return None;
    }
    let m = o.get("method")?.as_str()?;
    // a notification gets no response; an open subscriptions/listen stream gets none
    // until it ends
    if m.starts_with("notifications/") || m == "subscriptions/listen" {
        return None;
    }
    let id = o.get("id")?;
    match id {
        Value::String(_) => Some(id.clone()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(id.clone()),
        _ => None,
    }
}

fn check_response(msg: &str, r: &Option<String>) {
    let want = if msg.len() <= 4096 {
        expects_response(msg)
    } else {
        None
    };
    match r {
        None => assert!(want.is_none(), "no response to a request: {msg}"),
        Some(r) => {
            let v: Value = serde_json::from_str(r)
                .unwrap_or_else(|e| panic!("response is not JSON ({e}): {r}"));
            match &v {
                Value::Object(o) => {
                    assert_eq!(o.get("jsonrpc"), Some(&json!("2.0")), "{r}");
                    assert!(o.contains_key("result") != o.contains_key("error"), "{r}");
                    if let Some(id) = want {
                        assert_eq!(
                            o.get("id"),
                            Some(&id),
                            "the response names another id: {msg} -> {r}"
                        );
                    }
                }
                Value::Array(items) => assert!(items.iter().all(Value::is_object), "{r}"),
                _ => panic!("response is neither an object nor a batch: {r}"),
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let page = if data.first().is_some_and(|b| b & 1 == 1) {
        2
    } else {
        0
    };
    let a = app::build();
    let s = Session::new(
        &a.dispatcher,
        McpConfig {
            page_size: page,
            max_message_bytes: 4096,
            ..Default::default()
        },
        json!({"ShopName": "Shop", "HasAdvancedFeatures": page == 2}),
    )
    .expect("session");
    s.set_notify(Some(std::sync::Arc::new(|m: &str| {
        serde_json::from_str::<Value>(m).expect("notification is JSON");
    })));
    unsafe {
        let d = c_app(page);
        for line in data.split(|b| *b == b'\n').take(32) {
            let line = line.split(|b| *b == 0).next().unwrap_or(b"");
            let c = CString::new(line).unwrap();
            let cr = af_mcp_handle_json(d, c.as_ptr());
            let cr = (!cr.is_null()).then(|| {
                let t = CStr::from_ptr(cr).to_str().expect("UTF-8").to_owned();
                af_string_free(cr);
                t
            });
            match std::str::from_utf8(line) {
                Ok(msg) => {
                    let r = s.handle(msg);
                    check_response(msg, &r);
                    check_response(msg, &cr);
                    // the C session has no notification sink: it refuses a stream the
                    // Rust session opens
                    if !msg.contains("subscriptions/listen") {
                        assert_eq!(
                            r.is_some(),
                            cr.is_some(),
                            "Rust and C disagree on answering {msg}"
                        );
                    }
                }
                Err(_) => {
                    let v: Value =
                        serde_json::from_str(cr.as_deref().expect("an error response")).unwrap();
                    assert_eq!(v["error"]["code"], -32700);
                }
            }
        }
        af_dispatcher_free(d);
    }
});
