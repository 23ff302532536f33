//! af_execute_json through the C ABI, called from Rust, beside the floor measured in the same
//! run: serde_json parsing the same arguments and serialising the same outcome.
//! Run with `cargo bench -p appfunctions-benches --bench execute` (ci/bench.sh collects the figures).

use appfunctions::ffi::*;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::ffi::{c_void, CStr, CString};
use std::ptr;

const ARGS: &CStr = c"{\"customer\":\"acme\",\"quantity\":2,\"priority\":\"Normal\"}";

unsafe extern "C" fn handler(_: *mut c_void, call: *mut af_call) {
    unsafe { af_call_return(call, c"\"ok\"".as_ptr()) };
}

unsafe extern "C" fn allow(_: *mut c_void, _call: *mut af_call, gate: *mut af_gate) {
    unsafe { af_gate_allow(gate) };
}

unsafe extern "C" fn lookup(_: *mut c_void, call: *mut af_call) {
    unsafe { af_call_return(call, c"[{\"id\":\"o-1\",\"customer\":\"acme\"}]".as_ptr()) };
}

unsafe extern "C" fn fail_entity(_: *mut c_void, call: *mut af_call) {
    unsafe { af_call_return(call, c"\"ok\"".as_ptr()) };
}

unsafe extern "C" fn deny(_: *mut c_void, _call: *mut af_call, gate: *mut af_gate) {
    unsafe { af_gate_deny(gate, c"Sign in first.".as_ptr()) };
}

/// Completes on a worker thread (the host's own), as async handlers do.
struct Worker(std::sync::mpsc::Sender<usize>);
unsafe extern "C" fn handler_async(ud: *mut c_void, call: *mut af_call) {
    let w = unsafe { &*(ud as *const Worker) };
    w.0.send(call as usize).unwrap();
}

pub fn setup(delegates: usize) -> *mut af_dispatcher {
    unsafe {
        let d = af_dispatcher_new();
        assert_eq!(
            af_define_types(
                d,
                c"{\"enums\":[{\"name\":\"Priority\",\"members\":[\"Low\",\"Normal\",\"High\"]}]}"
                    .as_ptr()
            ),
            AF_OK
        );
        let desc = c"{\"id\":\"create_order\",\"parameters\":[{\"name\":\"customer\",\"type\":\"string\"},{\"name\":\"quantity\",\"type\":\"int32\"},{\"name\":\"priority\",\"type\":{\"enum\":\"Priority\"}}],\"result\":\"string\"}";
        assert_eq!(
            af_register_function(d, desc.as_ptr(), Some(handler), ptr::null_mut(), None),
            AF_OK
        );
        assert_eq!(af_register_entity(d, c"{\"name\":\"order\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"customer\",\"type\":\"string\"}]}".as_ptr(), Some(lookup), ptr::null_mut(), None), AF_OK);
        let desc = c"{\"id\":\"cancel_order\",\"parameters\":[{\"name\":\"order\",\"type\":{\"entity\":\"order\"}}],\"result\":\"string\"}";
        assert_eq!(
            af_register_function(d, desc.as_ptr(), Some(fail_entity), ptr::null_mut(), None),
            AF_OK
        );
        for _ in 0..delegates {
            let v = af_delegate {
                struct_size: std::mem::size_of::<af_delegate>() as u32,
                reserved: 0,
                on_invoking: Some(allow),
                on_invoked: None,
                free_user_data: None,
            };
            assert_eq!(af_add_delegate(d, &v, ptr::null_mut()), AF_OK);
        }
        d
    }
}

pub fn invocation(id: &CStr) -> af_invocation {
    af_invocation {
        struct_size: std::mem::size_of::<af_invocation>() as u32,
        reserved: [0; 3],
        function_id: id.as_ptr(),
        platform: AF_PLATFORM_OTHER,
        is_foreground: 0,
        caller_package: ptr::null(),
        cancel_token: ptr::null(),
        timeout_ms: 0,
    }
}

fn floor() -> String {
    let v: serde_json::Value = serde_json::from_str(ARGS.to_str().unwrap()).unwrap();
    black_box(&v);
    serde_json::json!({"status": "success", "result": "ok", "dialog": null, "errorCode": null, "message": null}).to_string()
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("execute");
    g.bench_function("floor_serde_json", |b| b.iter(|| black_box(floor())));

    let plain = setup(0);
    let inv = invocation(c"create_order");
    g.bench_function("plain", |b| {
        b.iter(|| unsafe {
            let out = af_execute_json(plain, &inv, ARGS.as_ptr());
            af_string_free(black_box(out));
        })
    });

    let two = setup(2);
    g.bench_function("two_delegates", |b| {
        b.iter(|| unsafe {
            let out = af_execute_json(two, &inv, ARGS.as_ptr());
            af_string_free(black_box(out));
        })
    });

    let entity_inv = invocation(c"cancel_order");
    let entity_args = CString::new("{\"order\":\"o-1\"}").unwrap();
    g.bench_function("two_delegates_entity", |b| {
        b.iter(|| unsafe {
            let out = af_execute_json(two, &entity_inv, entity_args.as_ptr());
            af_string_free(black_box(out));
        })
    });

    let refused = setup(0);
    unsafe {
        let v = af_delegate {
            struct_size: std::mem::size_of::<af_delegate>() as u32,
            reserved: 0,
            on_invoking: Some(deny),
            on_invoked: None,
            free_user_data: None,
        };
        af_add_delegate(refused, &v, ptr::null_mut());
    }
    g.bench_function("refused", |b| {
        b.iter(|| unsafe {
            let out = af_execute_json(refused, &inv, ARGS.as_ptr());
            af_string_free(black_box(out));
        })
    });

    // completed asynchronously from another thread
    let asyncd = af_dispatcher_new();
    let (tx, rx) = std::sync::mpsc::channel::<usize>();
    let worker = std::thread::spawn(move || {
        while let Ok(call) = rx.recv() {
            unsafe { af_call_return(call as *mut af_call, c"\"ok\"".as_ptr()) };
        }
    });
    let w = Box::into_raw(Box::new(Worker(tx)));
    unsafe {
        af_define_types(
            asyncd,
            c"{\"enums\":[{\"name\":\"Priority\",\"members\":[\"Low\",\"Normal\",\"High\"]}]}"
                .as_ptr(),
        );
        let desc = c"{\"id\":\"create_order\",\"parameters\":[{\"name\":\"customer\",\"type\":\"string\"},{\"name\":\"quantity\",\"type\":\"int32\"},{\"name\":\"priority\",\"type\":{\"enum\":\"Priority\"}}],\"result\":\"string\"}";
        assert_eq!(
            af_register_function(
                asyncd,
                desc.as_ptr(),
                Some(handler_async),
                w as *mut c_void,
                None
            ),
            AF_OK
        );
    }
    g.bench_function("async_completion", |b| {
        b.iter(|| unsafe {
            let out = af_execute_json(asyncd, &inv, ARGS.as_ptr());
            af_string_free(black_box(out));
        })
    });

    let bad = c"{\"customer\":\"acme\",\"quantity\":\"two\",\"priority\":\"Normal\"}";
    g.bench_function("invalid_argument", |b| {
        b.iter(|| unsafe {
            let out = af_execute_json(plain, &inv, bad.as_ptr());
            af_string_free(black_box(out));
        })
    });
    g.finish();
    unsafe {
        af_dispatcher_free(plain);
        af_dispatcher_free(two);
        af_dispatcher_free(refused);
        af_dispatcher_free(asyncd);
        drop(Box::from_raw(w));
    }
    worker.join().unwrap();
}

criterion_group!(execute, benches);
criterion_main!(execute);
