//! What registering after `af_dispatcher_shutdown` does (documented at the function): the
//! registration succeeds (`AF_OK`) and shows in the registry and exports, but calls to it
//! end `LimitExceeded` like every call after shutdown, running no host code.

use appfunctions::ffi::*;
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};

static RAN: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn handler(_: *mut c_void, call: *mut af_call) {
    RAN.fetch_add(1, Ordering::SeqCst);
    unsafe { af_call_return(call, c"\"ran\"".as_ptr()) };
}

fn take(s: *mut c_char) -> String {
    assert!(!s.is_null());
    let t = unsafe { CStr::from_ptr(s) }.to_str().unwrap().to_owned();
    unsafe { af_string_free(s) };
    t
}

#[test]
fn registering_after_shutdown_succeeds_but_its_calls_end_limit_exceeded() {
    unsafe {
        let d = af_dispatcher_new();
        assert_eq!(af_dispatcher_shutdown(d, 0, std::ptr::null_mut()), AF_OK);
        let descriptor = c"{\"id\":\"late\",\"result\":\"string\"}";
        assert_eq!(
            af_register_function(
                d,
                descriptor.as_ptr(),
                Some(handler),
                std::ptr::null_mut(),
                None
            ),
            AF_OK
        );
        assert!(take(af_registry_json(d)).contains("\"late\""));
        assert!(take(af_export_copy(d, c"mcp".as_ptr())).contains("\"late\""));
        let inv = af_invocation {
            struct_size: std::mem::size_of::<af_invocation>() as u32,
            platform: AF_PLATFORM_OTHER,
            function_id: c"late".as_ptr(),
            caller_package: std::ptr::null(),
            cancel_token: std::ptr::null(),
            timeout_ms: 0,
            is_foreground: 0,
            reserved: [0; 3],
            host_context: std::ptr::null_mut(),
        };
        let outcome = take(af_execute_json(d, &inv, c"{}".as_ptr()));
        assert!(
            outcome.contains("\"errorCode\":\"LimitExceeded\""),
            "{outcome}"
        );
        assert!(
            outcome.contains("the dispatcher is shutting down"),
            "{outcome}"
        );
        assert_eq!(
            RAN.load(Ordering::SeqCst),
            0,
            "no host code runs after shutdown"
        );
        af_dispatcher_free(d);
    }
}
