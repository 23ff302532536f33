//! Descriptor parsing and registration from fuzzed JSON text, through the Rust API and
//! the C ABI side by side.
//!
//! Input: documents separated by NUL bytes: `types \0 entity \0 function... \0 args`
//! (the seeds are the tests' descriptors). Checked:
//! - nothing panics (libFuzzer aborts on any panic, caught ones included);
//! - the C ABI gives the Rust API's verdict on every document (`AF_OK` exactly when the
//!   Rust call succeeds; `AF_ERR_UTF8` for invalid UTF-8), with a message when it fails;
//! - the registry JSON parses; every parameters/result schema is an object with
//!   `$schema`; every JSON export format parses;
//! - executing each registered function with the args document gives an outcome that
//!   parses, and never `InternalError`;
//! - every `user_data` handed to the C ABI is freed exactly once by the time the
//!   dispatcher is freed (registrations refused included);
//! - a function registered from its text (read straight from it when it is plain) and
//!   from its parsed tree gets the same verdict, the same message and the same registry.
#![no_main]

use appfunctions::ffi::*;
use appfunctions::{export::Format, sync_handler, Dispatcher, ErrorCode, Invocation, Outcome};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicUsize, Ordering};

static MADE: AtomicUsize = AtomicUsize::new(0);
static FREED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn free_data(p: *mut c_void) {
    drop(unsafe { Box::from_raw(p as *mut u64) });
    FREED.fetch_add(1, Ordering::SeqCst);
}

fn data() -> *mut c_void {
    MADE.fetch_add(1, Ordering::SeqCst);
    Box::into_raw(Box::new(0xA5A5u64)) as *mut c_void
}

unsafe extern "C" fn c_handler(_: *mut c_void, call: *mut af_call) {
    // echo the bound arguments as the result (often the wrong type: HandlerFailed)
    let args = af_call_args(call);
    assert_eq!(af_call_return(call, args), AF_OK);
}

unsafe extern "C" fn c_lookup(_: *mut c_void, call: *mut af_call) {
    assert_eq!(af_call_return(call, c"[]".as_ptr()), AF_OK);
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(af_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn take(s: *mut c_char) -> Option<String> {
    if s.is_null() {
        return None;
    }
    let t = unsafe { CStr::from_ptr(s) }
        .to_str()
        .expect("UTF-8 out")
        .to_owned();
    unsafe { af_string_free(s) };
    Some(t)
}

fn check_verdict(what: &str, doc: &[u8], rust: Option<bool>, c: af_status) {
    match rust {
        None => assert_eq!(c, AF_ERR_UTF8, "{what}: invalid UTF-8 gave {c}"),
        Some(true) => assert_eq!(
            c,
            AF_OK,
            "{what}: Rust accepted, C said {c}: {}",
            last_error()
        ),
        Some(false) => {
            assert_ne!(
                c,
                AF_OK,
                "{what}: Rust refused, C accepted {:?}",
                String::from_utf8_lossy(doc)
            );
            assert!(
                !last_error().is_empty(),
                "{what}: a failure without a message"
            );
        }
    }
}

fn check_outcome(json: &str, what: &str) {
    let o = Outcome::from_json(json).unwrap_or_else(|e| panic!("{what}: outcome {json:?}: {e}"));
    assert_ne!(
        o.error_code,
        Some(ErrorCode::InternalError),
        "{what}: {json}"
    );
}

fn check_schema(v: &Value, what: &str) {
    let o = v
        .as_object()
        .unwrap_or_else(|| panic!("{what}: schema is not an object: {v}"));
    assert!(o.contains_key("$schema"), "{what}: no $schema: {v}");
    let again: Value = serde_json::from_str(&v.to_string()).expect("schema text parses");
    assert_eq!(&again, v);
}

fuzz_target!(|data_in: &[u8]| {
    let docs: Vec<&[u8]> = data_in.split(|b| *b == 0).take(8).collect();
    let doc = |i: usize| docs.get(i).copied().unwrap_or(b"");
    let text = |i: usize| std::str::from_utf8(doc(i)).ok();
    let n_fns = docs.len().saturating_sub(3).max(1);
    let args_i = 2 + n_fns;

    let made0 = MADE.load(Ordering::SeqCst);
    let freed0 = FREED.load(Ordering::SeqCst);

    // the Rust API
    let d = Dispatcher::new();
    let r_types = text(0).map(|t| d.define_types(t).is_ok());
    let r_entity = text(1).map(|t| {
        d.register_entity(t, sync_handler(|_| Ok(Some("[]".into()))))
            .is_ok()
    });
    // the same documents registered from their parsed trees
    let tree = Dispatcher::new();
    if let Some(t) = text(0) {
        let _ = tree.define_types(t);
    }
    if let Some(t) = text(1) {
        let _ = tree.register_entity(t, sync_handler(|_| Ok(Some("[]".into()))));
    }
    let mut r_fns = Vec::new();
    for i in 0..n_fns {
        r_fns.push(text(2 + i).map(|t| {
            let h = sync_handler(|c| Ok(c.args().map(str::to_owned)));
            let r = d.register_function(t, Some(h.clone()));
            if let Ok(v) = serde_json::from_str::<Value>(t) {
                let r_tree = tree.register_function_value(&v, Some(h.clone()));
                assert_eq!(
                    r.as_ref().map_err(ToString::to_string),
                    r_tree.as_ref().map_err(ToString::to_string),
                    "from the text and from the tree: {t:?}"
                );
            }
            match r {
                Ok(()) => true,
                // output functions take no handler: the C layer passes NULL for them too
                Err(_) => false,
            }
        }));
    }
    assert_eq!(
        d.registry_value(),
        tree.registry_value(),
        "text and tree registries differ"
    );

    // the C ABI with the same documents
    unsafe {
        let cd = af_dispatcher_new();
        let cs = |i: usize| CString::new(doc(i)).expect("split on NUL");
        check_verdict(
            "types",
            doc(0),
            r_types,
            af_define_types(cd, cs(0).as_ptr()),
        );
        check_verdict(
            "entity",
            doc(1),
            r_entity,
            af_register_entity(cd, cs(1).as_ptr(), Some(c_lookup), data(), Some(free_data)),
        );
        for (i, r) in r_fns.iter().enumerate() {
            let st = af_register_function(
                cd,
                cs(2 + i).as_ptr(),
                Some(c_handler),
                data(),
                Some(free_data),
            );
            check_verdict("function", doc(2 + i), *r, st);
        }

        let reg = take(af_registry_json(cd)).expect("registry");
        let rv: Value = serde_json::from_str(&reg).expect("registry parses");
        assert_eq!(rv, d.registry_value(), "the C and Rust registries differ");

        let args = CString::new(doc(args_i)).unwrap();
        for f in rv["functions"].as_array().expect("functions") {
            let id = f["id"].as_str().expect("id");
            let cid = CString::new(id).unwrap();
            let ps = take(af_parameters_schema_json(cd, cid.as_ptr())).expect("parameters schema");
            check_schema(&serde_json::from_str(&ps).expect("schema parses"), id);
            // the text `null` for a void function
            let rs = take(af_result_schema_json(cd, cid.as_ptr())).expect("result schema");
            let rv: Value = serde_json::from_str(&rs).expect("schema parses");
            if !rv.is_null() {
                check_schema(&rv, id);
            }
            let inv = af_invocation {
                struct_size: std::mem::size_of::<af_invocation>() as u32,
                reserved: [0; 3],
                host_context: std::ptr::null_mut(),
                function_id: cid.as_ptr(),
                platform: AF_PLATFORM_OTHER,
                is_foreground: 0,
                caller_package: std::ptr::null(),
                cancel_token: std::ptr::null(),
                timeout_ms: 0,
            };
            let out = take(af_execute_json(cd, &inv, args.as_ptr())).expect("an outcome");
            check_outcome(&out, id);
            if let Some(a) = text(args_i) {
                check_outcome(&d.execute(&Invocation::new(id), Some(a)), id);
            }
        }
        for (f, name) in Format::ALL.iter().zip(Format::NAMES) {
            let cn = CString::new(name).unwrap();
            let c = take(af_export_copy(cd, cn.as_ptr()));
            let r = d.export(*f);
            assert_eq!(c.is_some(), r.is_ok(), "export {name}: C and Rust disagree");
            if let (Some(t), true) = (&c, f.is_json()) {
                serde_json::from_str::<Value>(t)
                    .unwrap_or_else(|e| panic!("export {name} does not parse: {e}"));
            }
        }
        af_dispatcher_free(cd);
    }
    let made = MADE.load(Ordering::SeqCst) - made0;
    let freed = FREED.load(Ordering::SeqCst) - freed0;
    assert_eq!(made, freed, "user_data: {made} handed over, {freed} freed");
});
