//! The C ABI called from Rust, as a host would: registration, execution, completion from
//! another thread, gates, scope hooks, cancellation and timeouts, stale handles, strings.
//! Small enough to run under miri (ci/lanes/miri.sh), which checks every `unsafe` path of
//! src/ffi for undefined behaviour, use after free and leaks.

use appfunctions::ffi::*;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Counts what a test hands to the library, so it can check every user_data was freed
/// exactly once.
#[derive(Default)]
struct Counts {
    freed: AtomicUsize,
    handled: AtomicUsize,
    begins: AtomicUsize,
    ends: AtomicUsize,
    invoked: AtomicUsize,
    /// Call handles parked by "later" handlers, for another thread to complete.
    parked: Mutex<Vec<usize>>,
    outcomes: Mutex<Vec<String>>,
}

struct Data {
    counts: Arc<Counts>,
    mode: Mode,
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Echo,
    Twice,
    Later,
    Reenter(*mut af_dispatcher),
}

fn data(counts: &Arc<Counts>, mode: Mode) -> *mut c_void {
    Box::into_raw(Box::new(Data {
        counts: counts.clone(),
        mode,
    })) as *mut c_void
}

unsafe fn counts<'a>(p: *mut c_void) -> &'a Data {
    unsafe { &*(p as *const Data) }
}

unsafe extern "C" fn free_data(p: *mut c_void) {
    let d = unsafe { Box::from_raw(p as *mut Data) };
    d.counts.freed.fetch_add(1, Ordering::SeqCst);
}

unsafe extern "C" fn handler(p: *mut c_void, call: *mut af_call) {
    let d = unsafe { counts(p) };
    d.counts.handled.fetch_add(1, Ordering::SeqCst);
    match d.mode {
        Mode::Echo => assert_eq!(unsafe { af_call_return(call, af_call_args(call)) }, AF_OK),
        Mode::Twice => {
            assert_eq!(unsafe { af_call_return(call, c"1".as_ptr()) }, AF_OK);
            assert_eq!(
                unsafe { af_call_return(call, c"2".as_ptr()) },
                AF_ERR_ALREADY_COMPLETED
            );
            assert_eq!(
                unsafe { af_call_fail(call, AF_CODE_HANDLER_FAILED, c"late".as_ptr()) },
                AF_ERR_ALREADY_COMPLETED
            );
        }
        Mode::Later => d.counts.parked.lock().unwrap().push(call as usize),
        Mode::Reenter(disp) => {
            let inv = invocation(c"echo");
            let out = take(unsafe { af_execute_json(disp, &inv, cr#"{"x": 5}"#.as_ptr()) });
            assert!(out.contains(r#""result":{"x":5}"#), "{out}");
            let r = CString::new(out.replace('"', "'")).unwrap();
            assert_eq!(unsafe { af_call_say(call, r.as_ptr()) }, AF_OK);
            assert_eq!(
                unsafe { af_call_return(call, c"{\"x\": 6}".as_ptr()) },
                AF_OK
            );
        }
    }
}

unsafe extern "C" fn on_outcome(p: *mut c_void, json: *const c_char) {
    // the test keeps its Arc<Counts> alive; p is a borrowed pointer to it
    let c = unsafe { &*(p as *const Counts) };
    let s = unsafe { CStr::from_ptr(json) }.to_str().unwrap().to_owned();
    c.outcomes.lock().unwrap().push(s);
}

fn invocation(id: &CStr) -> af_invocation {
    af_invocation {
        struct_size: std::mem::size_of::<af_invocation>() as u32,
        platform: AF_PLATFORM_OTHER,
        function_id: id.as_ptr(),
        caller_package: std::ptr::null(),
        cancel_token: std::ptr::null(),
        timeout_ms: 0,
        is_foreground: 0,
        reserved: [0; 3],
        host_context: std::ptr::null_mut(),
    }
}

fn take(s: *mut c_char) -> String {
    assert!(!s.is_null(), "NULL: {}", last_error());
    let t = unsafe { CStr::from_ptr(s) }.to_str().unwrap().to_owned();
    unsafe { af_string_free(s) };
    t
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(af_last_error()) }
        .to_string_lossy()
        .into_owned()
}

const ECHO: &CStr =
    cr#"{"id": "echo", "parameters": [{"name": "x", "type": "int32"}], "result": {"record": "X"}}"#;
const TYPES: &CStr = cr#"{"records": [{"name": "X", "fields": [{"name": "x", "type": "int32"}]}]}"#;

fn register(d: *mut af_dispatcher, desc: &CStr, c: &Arc<Counts>, mode: Mode) -> af_status {
    unsafe {
        af_register_function(
            d,
            desc.as_ptr(),
            Some(handler),
            data(c, mode),
            Some(free_data),
        )
    }
}

fn app(c: &Arc<Counts>) -> *mut af_dispatcher {
    let d = af_dispatcher_new();
    // no default timeout: asynchronous calls parked by these tests would otherwise start the
    // timer thread, which outlives a test under miri (default_timeout_shutdown_and_in_flight
    // covers the default)
    assert_eq!(unsafe { af_dispatcher_set_default_timeout(d, 0) }, AF_OK);
    assert_eq!(unsafe { af_define_types(d, TYPES.as_ptr()) }, AF_OK);
    assert_eq!(register(d, ECHO, c, Mode::Echo), AF_OK);
    d
}

/// The dispatcher most tests start from (`app`), with what its registrations hand out
/// counted in `c`: registration with the counting handler, calls run to their outcome
/// text, and the free at the end (the counts outlive it, for the checks after).
struct Fixture {
    c: Arc<Counts>,
    d: *mut af_dispatcher,
}

impl Fixture {
    fn new() -> Fixture {
        let c = Arc::new(Counts::default());
        let d = app(&c);
        Fixture { c, d }
    }

    /// Registers `desc` with the counting handler in `mode`.
    fn register(&self, desc: &CStr, mode: Mode) -> af_status {
        register(self.d, desc, &self.c, mode)
    }

    /// `af_execute_json`'s outcome for `inv` with `args` (NULL for `None`), as text.
    fn execute(&self, inv: &af_invocation, args: Option<&CStr>) -> String {
        let args = args.map_or(std::ptr::null(), CStr::as_ptr);
        take(unsafe { af_execute_json(self.d, inv, args) })
    }

    /// [`Fixture::execute`] of function `id` from an in-process invocation.
    fn run(&self, id: &CStr, args: Option<&CStr>) -> String {
        self.execute(&invocation(id), args)
    }

    /// Frees the dispatcher (`af_dispatcher_free`).
    fn free(self) {
        unsafe { af_dispatcher_free(self.d) }
    }
}

#[test]
fn register_execute_free() {
    let f = Fixture::new();
    let c = f.c.clone();
    let d = f.d;
    let inv = invocation(c"echo");
    let out = f.execute(&inv, Some(cr#"{"x": 1}"#));
    assert_eq!(
        out,
        r#"{"status":"success","result":{"x":1},"dialog":null,"errorCode":null,"message":null}"#
    );
    let out = f.execute(&inv, Some(cr#"{"x": "one"}"#));
    assert!(out.contains("InvalidArgument"), "{out}");
    let reg = take(unsafe { af_registry_json(d) });
    assert!(reg.contains(r#""id":"echo""#), "{reg}");
    let schema = take(unsafe { af_parameters_schema_json(d, c"echo".as_ptr()) });
    assert!(schema.contains("2020-12"), "{schema}");
    let tools = take(unsafe { af_export_copy(d, c"mcp".as_ptr()) });
    assert!(tools.starts_with('['), "{tools}");
    assert_eq!(c.freed.load(Ordering::SeqCst), 0);
    f.free();
    assert_eq!(c.freed.load(Ordering::SeqCst), 1);
    assert_eq!(c.handled.load(Ordering::SeqCst), 1);
}

#[test]
fn refused_registrations_free_user_data_at_once() {
    let f = Fixture::new();
    let c = f.c.clone();
    let d = f.d;
    assert_eq!(
        f.register(cr#"{"id": "Bad Id"}"#, Mode::Echo),
        AF_ERR_INVALID
    );
    assert!(last_error().contains("id"), "{}", last_error());
    assert_eq!(f.register(ECHO, Mode::Echo), AF_ERR_DUPLICATE);
    let bad_utf8 = [b'{', 0xff, b'}', 0];
    let st = unsafe {
        af_register_function(
            d,
            bad_utf8.as_ptr() as *const c_char,
            Some(handler),
            data(&c, Mode::Echo),
            Some(free_data),
        )
    };
    assert_eq!(st, AF_ERR_UTF8);
    let st = unsafe {
        af_register_function(
            std::ptr::null_mut(),
            ECHO.as_ptr(),
            Some(handler),
            data(&c, Mode::Echo),
            Some(free_data),
        )
    };
    assert_eq!(st, AF_ERR_NULL);
    assert_eq!(c.freed.load(Ordering::SeqCst), 4);
    // unregistering releases it once no call uses it
    assert_eq!(
        unsafe { af_unregister_function(d, c"echo".as_ptr()) },
        AF_OK
    );
    assert_eq!(c.freed.load(Ordering::SeqCst), 5);
    assert_eq!(
        unsafe { af_unregister_function(d, c"echo".as_ptr()) },
        AF_ERR_NOT_FOUND
    );
    f.free();
    assert_eq!(c.freed.load(Ordering::SeqCst), 5);
}

#[test]
fn completion_from_another_thread_sync_and_async() {
    let f = Fixture::new();
    let c = f.c.clone();
    let d = f.d;
    assert_eq!(
        f.register(cr#"{"id": "later", "result": "string"}"#, Mode::Later),
        AF_OK
    );
    let completer = {
        let c = c.clone();
        std::thread::spawn(move || {
            let mut done = 0;
            while done < 2 {
                let parked: Vec<usize> = std::mem::take(&mut *c.parked.lock().unwrap());
                for h in parked {
                    let st = unsafe { af_call_return(h as *mut af_call, c"\"done\"".as_ptr()) };
                    assert_eq!(st, AF_OK);
                    done += 1;
                }
                std::thread::yield_now();
            }
        })
    };
    let inv = invocation(c"later");
    let st = unsafe {
        af_execute_async(
            d,
            &inv,
            std::ptr::null(),
            Some(on_outcome),
            Arc::as_ptr(&c) as *mut c_void,
        )
    };
    assert_eq!(st, AF_OK);
    // blocks until the other thread completes it
    let out = f.execute(&inv, None);
    assert!(out.contains(r#""result":"done""#), "{out}");
    completer.join().unwrap();
    let outcomes = c.outcomes.lock().unwrap().clone();
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert!(outcomes[0].contains(r#""result":"done""#));
    f.free();
    assert_eq!(c.freed.load(Ordering::SeqCst), 2);
}

#[test]
fn a_second_completion_is_refused() {
    let f = Fixture::new();
    assert_eq!(
        f.register(cr#"{"id": "twice", "result": "int32"}"#, Mode::Twice),
        AF_OK
    );
    let out = f.run(c"twice", None);
    assert!(out.contains(r#""result":1"#), "{out}");
    f.free();
}

unsafe extern "C" fn on_invoking(p: *mut c_void, call: *mut af_call, gate: *mut af_gate) {
    let _ = p;
    let id = unsafe { CStr::from_ptr(af_call_function_id(call)) };
    let st = match id.to_bytes() {
        b"echo" => unsafe { af_gate_allow(gate) },
        b"later" => unsafe { af_gate_open_app(gate, c"Open the app.".as_ptr()) },
        _ => unsafe { af_gate_deny(gate, c"not you".as_ptr()) },
    };
    assert_eq!(st, AF_OK);
    // a gate answers once
    assert_eq!(unsafe { af_gate_allow(gate) }, AF_ERR_ALREADY_COMPLETED);
}

unsafe extern "C" fn on_invoked(p: *mut c_void, _call: *mut af_call, outcome: *const c_char) {
    let d = unsafe { counts(p) };
    assert!(unsafe { CStr::from_ptr(outcome) }
        .to_bytes()
        .starts_with(b"{\"status\""));
    d.counts.invoked.fetch_add(1, Ordering::SeqCst);
}

unsafe extern "C" fn scope_begin(p: *mut c_void, call: *mut af_call) {
    let d = unsafe { counts(p) };
    d.counts.begins.fetch_add(1, Ordering::SeqCst);
    let scope = Box::into_raw(Box::new(42u32)) as *mut c_void;
    assert_eq!(
        unsafe { af_call_set_host_data(call, scope, Some(free_scope)) },
        AF_OK
    );
}

/// The host data's release: runs after scope end.
unsafe extern "C" fn free_scope(scope: *mut c_void) {
    assert_eq!(*unsafe { Box::from_raw(scope as *mut u32) }, 42);
    SCOPES_FREED.fetch_add(1, Ordering::SeqCst);
}

static SCOPES_FREED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

unsafe extern "C" fn scope_end(p: *mut c_void, call: *mut af_call) {
    let d = unsafe { counts(p) };
    d.counts.ends.fetch_add(1, Ordering::SeqCst);
    // still attached in scope end; released right after it
    let scope = af_call_host_data(call);
    assert!(!scope.is_null());
    assert_eq!(*unsafe { &*(scope as *const u32) }, 42);
}

#[test]
fn gates_delegates_and_scopes() {
    let f = Fixture::new();
    let c = f.c.clone();
    let d = f.d;
    assert_eq!(
        f.register(cr#"{"id": "later", "result": "string"}"#, Mode::Later),
        AF_OK
    );
    assert_eq!(f.register(cr#"{"id": "other"}"#, Mode::Echo), AF_OK);
    let vt = af_delegate {
        struct_size: std::mem::size_of::<af_delegate>() as u32,
        reserved: 0,
        on_invoking: Some(on_invoking),
        on_invoked: Some(on_invoked),
        free_user_data: Some(free_data),
    };
    assert_eq!(
        unsafe { af_add_delegate(d, &vt, data(&c, Mode::Echo)) },
        AF_OK
    );
    let st = unsafe {
        af_set_scope_hooks(
            d,
            Some(scope_begin),
            Some(scope_end),
            data(&c, Mode::Echo),
            Some(free_data),
        )
    };
    assert_eq!(st, AF_OK);

    let out = f.run(c"echo", Some(cr#"{"x": 2}"#));
    assert!(out.contains("success"), "{out}");
    let out = f.run(c"other", None);
    assert!(
        out.contains(r#""errorCode":"Denied","message":"not you""#),
        "{out}"
    );
    let mut apple = invocation(c"later");
    apple.platform = AF_PLATFORM_APPLE;
    let out = f.execute(&apple, None);
    assert!(out.contains(r#""status":"openApp""#), "{out}");
    let out = f.run(c"nope", None);
    assert!(out.contains("FunctionNotFound"), "{out}");
    assert_eq!(c.handled.load(Ordering::SeqCst), 1);
    assert_eq!(c.begins.load(Ordering::SeqCst), 4);
    assert_eq!(c.ends.load(Ordering::SeqCst), 4);
    assert_eq!(SCOPES_FREED.load(Ordering::SeqCst), 4);
    assert_eq!(c.invoked.load(Ordering::SeqCst), 4);
    f.free();
    // three functions, the delegate and the scope hooks
    assert_eq!(c.freed.load(Ordering::SeqCst), 5);
}

/// What the scope hooks and `on_invoked` of `hooks_read_their_own_call` read through the
/// accessors, in order, and the last handle the scope end was given.
#[derive(Default)]
struct HookReads {
    lines: Mutex<Vec<String>>,
    handle: AtomicUsize,
    dispatcher: AtomicUsize,
}

/// The call's id, platform, item "seen" and whether host data is attached, as a hook reads them.
fn read_call(what: &str, call: *mut af_call) -> String {
    let id = unsafe { CStr::from_ptr(af_call_function_id(call)) }
        .to_str()
        .unwrap()
        .to_owned();
    let item = unsafe { af_call_item_get_json(call, c"seen".as_ptr()) };
    let item = if item.is_null() {
        "-".to_owned()
    } else {
        take(item)
    };
    let data = !af_call_host_data(call).is_null();
    format!("{what} {id} {} {item} {data}", af_call_platform(call))
}

unsafe extern "C" fn reads_begin(p: *mut c_void, call: *mut af_call) {
    let r = unsafe { &*(p as *const HookReads) };
    if unsafe { CStr::from_ptr(af_call_function_id(call)) } == c"outer" {
        // a call of its own from inside the hook: the hook's own reads go on after it
        let d = r.dispatcher.load(Ordering::SeqCst) as *mut af_dispatcher;
        let out =
            take(unsafe { af_execute_json(d, &invocation(c"inner"), cr#"{"x": 2}"#.as_ptr()) });
        assert!(out.contains("success"), "{out}");
    }
    assert_eq!(
        unsafe { af_call_item_set(call, c"seen".as_ptr(), cr#""begin""#.as_ptr()) },
        AF_OK
    );
    let data = std::ptr::NonNull::<u8>::dangling().as_ptr() as *mut c_void;
    assert_eq!(unsafe { af_call_set_host_data(call, data, None) }, AF_OK);
    r.lines.lock().unwrap().push(read_call("begin", call));
}

unsafe extern "C" fn reads_end(p: *mut c_void, call: *mut af_call) {
    let r = unsafe { &*(p as *const HookReads) };
    r.lines.lock().unwrap().push(read_call("end", call));
    r.handle.store(call as usize, Ordering::SeqCst);
}

unsafe extern "C" fn reads_invoked(p: *mut c_void, call: *mut af_call, _outcome: *const c_char) {
    let r = unsafe { &*(p as *const HookReads) };
    r.lines.lock().unwrap().push(read_call("invoked", call));
}

/// The scope hooks and `on_invoked` run as their call's current callback (what they read and
/// attach reaches the call without a look-up): they read and write their own call, a call
/// made from inside one of them reads its own and leaves the outer hook's intact, and the
/// handle they were given is refused once the call has ended.
#[test]
fn hooks_read_their_own_call() {
    let f = Fixture::new();
    let reads = Box::into_raw(Box::new(HookReads::default()));
    // SAFETY: freed at the end of the test, after the dispatcher.
    let r = unsafe { &*reads };
    r.dispatcher.store(f.d as usize, Ordering::SeqCst);
    // (Echo answers its arguments: record X's one field)
    let outer = cr#"{"id": "outer", "parameters": [{"name": "x", "type": "int32"}], "result": {"record": "X"}}"#;
    assert_eq!(f.register(outer, Mode::Echo), AF_OK);
    let inner = cr#"{"id": "inner", "parameters": [{"name": "x", "type": "int32"}], "result": {"record": "X"}}"#;
    assert_eq!(f.register(inner, Mode::Echo), AF_OK);
    let vt = af_delegate {
        struct_size: std::mem::size_of::<af_delegate>() as u32,
        reserved: 0,
        on_invoking: None,
        on_invoked: Some(reads_invoked),
        free_user_data: None,
    };
    assert_eq!(
        unsafe { af_add_delegate(f.d, &vt, reads as *mut c_void) },
        AF_OK
    );
    let st = unsafe {
        af_set_scope_hooks(
            f.d,
            Some(reads_begin),
            Some(reads_end),
            reads as *mut c_void,
            None,
        )
    };
    assert_eq!(st, AF_OK);

    let mut apple = invocation(c"outer");
    apple.platform = AF_PLATFORM_APPLE;
    let out = f.execute(&apple, Some(cr#"{"x": 1}"#));
    assert!(out.contains("success"), "{out}");
    assert_eq!(
        *r.lines.lock().unwrap(),
        [
            r#"begin inner 0 "begin" true"#,
            r#"invoked inner 0 "begin" true"#,
            r#"end inner 0 "begin" true"#,
            r#"begin outer 1 "begin" true"#,
            r#"invoked outer 1 "begin" true"#,
            r#"end outer 1 "begin" true"#,
        ]
    );
    // the outer call's handle, after its end
    let stale = r.handle.load(Ordering::SeqCst) as *mut af_call;
    assert_eq!(af_call_platform(stale), -1);
    assert!(last_error().contains("has ended"), "{}", last_error());
    assert!(unsafe { af_call_item_get_json(stale, c"seen".as_ptr()) }.is_null());
    f.free();
    drop(unsafe { Box::from_raw(reads) });
}

#[test]
fn stale_and_bogus_handles_are_refused() {
    let f = Fixture::new();
    let c = f.c.clone();
    assert_eq!(
        f.register(cr#"{"id": "later", "result": "string"}"#, Mode::Later),
        AF_OK
    );
    let mut inv = invocation(c"later");
    inv.timeout_ms = 1;
    let out = f.execute(&inv, None);
    assert!(out.contains("TimedOut"), "{out}");
    let h = c.parked.lock().unwrap().pop().unwrap() as *mut af_call;
    // the call has ended: completions are refused, accessors answer NULL
    let st = unsafe { af_call_return(h, c"\"late\"".as_ptr()) };
    assert!(
        st == AF_ERR_ALREADY_COMPLETED || st == AF_ERR_INVALID_HANDLE,
        "{st}"
    );
    assert!(af_call_args(h).is_null());
    assert!(af_call_function_id(h).is_null());
    assert_eq!(af_call_is_cancelled(h), 1);
    // handles that never were
    for bogus in [0x10usize, 0xdead_beef, usize::MAX] {
        let b = bogus as *mut af_call;
        assert_eq!(
            unsafe { af_call_return(b, std::ptr::null()) },
            AF_ERR_INVALID_HANDLE
        );
        assert_eq!(
            unsafe { af_gate_allow(bogus as *mut af_gate) },
            AF_ERR_ALREADY_COMPLETED
        );
        assert!(af_call_host_data(b).is_null());
    }
    assert_eq!(
        unsafe { af_call_return(std::ptr::null_mut(), std::ptr::null()) },
        AF_ERR_NULL
    );
    assert_eq!(unsafe { af_gate_allow(std::ptr::null_mut()) }, AF_ERR_NULL);
    f.free();
    assert_eq!(c.freed.load(Ordering::SeqCst), 2);
}

#[test]
fn cancellation_and_a_dispatcher_freed_with_calls_in_flight() {
    let f = Fixture::new();
    let c = f.c.clone();
    let d = f.d;
    assert_eq!(
        f.register(cr#"{"id": "later", "result": "string"}"#, Mode::Later),
        AF_OK
    );
    // a token each: a token carrying several calls ends all but one of them on the
    // completion pool (tests/pipeline.rs), whose threads outlive a test under miri
    let tokens = [af_cancel_token_new(), af_cancel_token_new()];
    let mut inv = invocation(c"later");
    let ctx = Arc::as_ptr(&c) as *mut c_void;
    for token in tokens {
        inv.cancel_token = token;
        assert_eq!(
            unsafe { af_execute_async(d, &inv, std::ptr::null(), Some(on_outcome), ctx) },
            AF_OK
        );
    }
    inv.cancel_token = std::ptr::null();
    assert_eq!(
        unsafe { af_execute_async(d, &inv, std::ptr::null(), Some(on_outcome), ctx) },
        AF_OK
    );
    // free the dispatcher with three calls in flight: they keep what they use
    f.free();
    assert_eq!(c.freed.load(Ordering::SeqCst), 0);
    for token in tokens {
        // the call ends on this thread, before af_cancel_token_cancel returns
        assert_eq!(unsafe { af_cancel_token_cancel(token) }, AF_OK);
        assert_eq!(unsafe { af_cancel_token_is_cancelled(token) }, 1);
        unsafe { af_cancel_token_free(token) };
    }
    {
        let o = c.outcomes.lock().unwrap();
        assert_eq!(o.len(), 2, "{o:?}");
        assert!(o.iter().all(|x| x.contains("Cancelled")), "{o:?}");
    }
    // the last one completes from another thread after the free
    let parked: Vec<usize> = std::mem::take(&mut *c.parked.lock().unwrap());
    assert_eq!(parked.len(), 3);
    let c2 = c.clone();
    std::thread::spawn(move || {
        let mut ok = 0;
        for h in parked {
            if unsafe { af_call_return(h as *mut af_call, c"\"x\"".as_ptr()) } == AF_OK {
                ok += 1;
            }
        }
        assert_eq!(ok, 1);
        drop(c2);
    })
    .join()
    .unwrap();
    let o = c.outcomes.lock().unwrap().clone();
    assert_eq!(o.len(), 3, "{o:?}");
    assert!(o[2].contains(r#""result":"x""#), "{o:?}");
    assert_eq!(c.freed.load(Ordering::SeqCst), 2);
}

#[test]
fn execute_reentered_from_a_handler() {
    let f = Fixture::new();
    let c = f.c.clone();
    let d = f.d;
    assert_eq!(
        f.register(
            cr#"{"id": "outer", "result": {"record": "X"}}"#,
            Mode::Reenter(d)
        ),
        AF_OK
    );
    let out = f.run(c"outer", None);
    assert!(
        out.contains(r#""result":{"x":6}"#) && out.contains("'x':5"),
        "{out}"
    );
    f.free();
    assert_eq!(c.freed.load(Ordering::SeqCst), 2);
}

#[test]
fn strings_and_errors() {
    unsafe { af_string_free(std::ptr::null_mut()) };
    assert!(!af_version().is_null());
    assert_eq!(af_abi_version(), AF_ABI_VERSION);
    assert_eq!(
        unsafe { af_define_types(std::ptr::null_mut(), TYPES.as_ptr()) },
        AF_ERR_NULL
    );
    assert!(last_error().contains("NULL"), "{}", last_error());
    let d = af_dispatcher_new();
    assert_eq!(
        unsafe { af_define_types(d, c"{\"enums\": 5}".as_ptr()) },
        AF_ERR_INVALID
    );
    assert!(!last_error().is_empty());
    let bad = [b'{', b'"', 0xc3, b'"', b'}', 0];
    let out = take(unsafe { af_execute_json(d, &invocation(c"x"), bad.as_ptr() as *const c_char) });
    assert!(
        out.contains("InvalidArgument") && out.contains("UTF-8"),
        "{out}"
    );
    let out =
        take(unsafe { af_execute_json(std::ptr::null_mut(), &invocation(c"x"), std::ptr::null()) });
    assert!(out.contains("InvalidArgument"), "{out}");
    let out = take(unsafe { af_execute_json(d, std::ptr::null(), std::ptr::null()) });
    assert!(out.contains("InvalidArgument"), "{out}");
    let mut inv = invocation(c"x");
    inv.platform = 7;
    let out = take(unsafe { af_execute_json(d, &inv, std::ptr::null()) });
    assert!(out.contains("platform"), "{out}");
    assert!(unsafe { af_export_copy(d, c"nope".as_ptr()) }.is_null());
    let resp = take(unsafe {
        af_mcp_handle_json(d, cr#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.as_ptr())
    });
    assert!(resp.contains(r#""result":{}"#), "{resp}");
    let resp = take(unsafe { af_mcp_handle_json(d, bad.as_ptr() as *const c_char) });
    assert!(resp.contains("-32700"), "{resp}");
    unsafe { af_dispatcher_free(d) };
    unsafe { af_dispatcher_free(std::ptr::null_mut()) };
}

/// A host built against a newer header: its invocation has a field v1 does not know.
#[repr(C)]
struct NewerInvocation {
    v1: af_invocation,
    later_field: u64,
}

#[test]
fn struct_sizes_smaller_refused_larger_accepted() {
    let f = Fixture::new();
    let c = f.c.clone();
    let d = f.d;
    let mut inv = invocation(c"echo");
    inv.struct_size = 24;
    let out = f.execute(&inv, Some(cr#"{"x": 1}"#));
    assert!(
        out.contains("InvalidArgument")
            && out.contains("af_invocation.struct_size is 24, smaller than the v1 layout"),
        "{out}"
    );
    let ctx = Arc::as_ptr(&c) as *mut c_void;
    assert_eq!(
        unsafe { af_execute_async(d, &inv, std::ptr::null(), Some(on_outcome), ctx) },
        AF_ERR_INVALID
    );
    assert!(last_error().contains("struct_size"), "{}", last_error());
    let newer = NewerInvocation {
        v1: invocation(c"echo"),
        later_field: u64::MAX,
    };
    let mut newer = newer;
    newer.v1.struct_size = std::mem::size_of::<NewerInvocation>() as u32;
    let out = take(unsafe {
        af_execute_json(
            d,
            &newer as *const NewerInvocation as *const af_invocation,
            cr#"{"x": 1}"#.as_ptr(),
        )
    });
    assert!(out.contains(r#""result":{"x":1}"#), "{out}");
    let mut vt = af_delegate {
        struct_size: 8,
        reserved: 0,
        on_invoking: None,
        on_invoked: Some(on_invoked),
        free_user_data: Some(free_data),
    };
    // refused, and nothing released: the release itself is not trusted
    let ud = data(&c, Mode::Echo);
    assert_eq!(unsafe { af_add_delegate(d, &vt, ud) }, AF_ERR_INVALID);
    assert!(last_error().contains("af_delegate.struct_size is 8"));
    unsafe { free_data(ud) };
    vt.struct_size = std::mem::size_of::<af_delegate>() as u32;
    assert_eq!(
        unsafe { af_add_delegate(d, &vt, data(&c, Mode::Echo)) },
        AF_OK
    );
    f.free();
    assert_eq!(c.freed.load(Ordering::SeqCst), 3);
}

unsafe extern "C" fn context_handler(_: *mut c_void, call: *mut af_call) {
    let ctx = af_call_invocation_context(call) as usize;
    let before = af_call_dialog_copy(call);
    assert_eq!(unsafe { af_call_say(call, c"Hi.".as_ptr()) }, AF_OK);
    let after = take(af_call_dialog_copy(call));
    let out = CString::new(format!("\"{ctx}:{}:{after}\"", before.is_null())).unwrap();
    assert_eq!(unsafe { af_call_return(call, out.as_ptr()) }, AF_OK);
}

#[test]
fn the_invocations_host_context_and_the_dialog_so_far() {
    let d = af_dispatcher_new();
    let desc = cr#"{"id": "ctx", "result": "string"}"#;
    assert_eq!(
        unsafe {
            af_register_function(
                d,
                desc.as_ptr(),
                Some(context_handler),
                std::ptr::null_mut(),
                None,
            )
        },
        AF_OK
    );
    let mut host_value = 7u8;
    let mut inv = invocation(c"ctx");
    inv.host_context = &mut host_value as *mut u8 as *mut c_void;
    let out = take(unsafe { af_execute_json(d, &inv, std::ptr::null()) });
    let addr = &host_value as *const u8 as usize;
    assert!(
        out.contains(&format!(r#""result":"{addr}:true:Hi.""#)),
        "{out}"
    );
    // a host built against the first ABI 1 layout: its struct ends before host_context
    inv.struct_size = std::mem::offset_of!(af_invocation, host_context) as u32;
    let out = take(unsafe { af_execute_json(d, &inv, std::ptr::null()) });
    assert!(out.contains(r#""result":"0:true:Hi.""#), "{out}");
    assert!(af_call_invocation_context(std::ptr::null_mut()).is_null());
    assert!(last_error().contains("NULL"), "{}", last_error());
    assert!(af_call_dialog_copy(std::ptr::null_mut()).is_null());
    unsafe { af_dispatcher_free(d) };
}

unsafe extern "C" fn count_cancel(p: *mut c_void) {
    let c = unsafe { &*(p as *const Counts) };
    c.handled.fetch_add(100, Ordering::SeqCst);
}

unsafe extern "C" fn count_release(p: *mut c_void) {
    let c = unsafe { &*(p as *const Counts) };
    c.freed.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn cancel_callbacks_are_released_once() {
    let f = Fixture::new();
    let c = f.c.clone();
    let d = f.d;
    assert_eq!(
        f.register(cr#"{"id": "later", "result": "string"}"#, Mode::Later),
        AF_OK
    );
    let cb = Arc::new(Counts::default());
    let ctx = Arc::as_ptr(&cb) as *mut c_void;
    let token = af_cancel_token_new();
    let mut inv = invocation(c"later");
    inv.cancel_token = token;
    inv.timeout_ms = AF_TIMEOUT_NONE;
    let oc = Arc::as_ptr(&c) as *mut c_void;
    assert_eq!(
        unsafe { af_execute_async(d, &inv, std::ptr::null(), Some(on_outcome), oc) },
        AF_OK
    );
    let h = c.parked.lock().unwrap()[0] as *mut af_call;
    let (mut a, mut b) = (0u64, 0u64);
    let reg = |id: &mut u64| unsafe {
        af_call_on_cancel(h, Some(count_cancel), ctx, Some(count_release), id)
    };
    assert_eq!(reg(&mut a), AF_OK);
    assert_eq!(reg(&mut b), AF_OK);
    assert!(a != 0 && b != 0 && a != b);
    // removed: released at once, never run
    assert_eq!(af_call_on_cancel_remove(h, a), AF_OK);
    assert_eq!(cb.freed.load(Ordering::SeqCst), 1);
    assert_eq!(af_call_on_cancel_remove(h, a), AF_ERR_NOT_FOUND);
    // a NULL cb is refused and its data released at once
    assert_eq!(
        unsafe { af_call_on_cancel(h, None, ctx, Some(count_release), std::ptr::null_mut()) },
        AF_ERR_NULL
    );
    assert_eq!(cb.freed.load(Ordering::SeqCst), 2);
    assert_eq!(unsafe { af_cancel_token_cancel(token) }, AF_OK);
    // b ran once, then was released
    assert_eq!(cb.handled.load(Ordering::SeqCst), 100);
    assert_eq!(cb.freed.load(Ordering::SeqCst), 3);
    assert!(c.outcomes.lock().unwrap()[0].contains("Cancelled"));
    // the call has ended: the handle is dead, the registration released at once
    assert_eq!(
        unsafe { af_call_on_cancel(h, Some(count_cancel), ctx, Some(count_release), &mut a) },
        AF_ERR_INVALID_HANDLE
    );
    assert_eq!((a, cb.freed.load(Ordering::SeqCst)), (0, 4));
    unsafe { af_cancel_token_free(token) };
    f.free();
}

/// What [`registering_handler`] is given: the counts its cancel callbacks bump, and the token
/// it cancels itself (NULL: it leaves the call running).
struct Registering {
    counts: Arc<Counts>,
    cancel_first: *mut af_cancel_token,
}

/// Registers a cancel callback from inside its own callback (the core's no-look-up path),
/// after cancelling the call itself when asked; then leaves the call running.
unsafe extern "C" fn registering_handler(p: *mut c_void, call: *mut af_call) {
    let r = unsafe { &*(p as *const Registering) };
    if !r.cancel_first.is_null() {
        assert_eq!(unsafe { af_cancel_token_cancel(r.cancel_first) }, AF_OK);
    }
    let ctx = Arc::as_ptr(&r.counts) as *mut c_void;
    let mut id = 0u64;
    let st =
        unsafe { af_call_on_cancel(call, Some(count_cancel), ctx, Some(count_release), &mut id) };
    assert_eq!(st, AF_OK, "{}", last_error());
    assert_ne!(id, 0);
    // the invocation's host context, read on the same path
    assert_eq!(af_call_invocation_context(call) as usize, 42);
}

#[test]
fn a_cancel_callback_registered_inside_the_calls_own_callback() {
    let d = af_dispatcher_new();
    let desc = cr#"{"id": "reg", "result": "string"}"#;
    for cancel_first in [false, true] {
        let token = af_cancel_token_new();
        let r = Registering {
            counts: Arc::new(Counts::default()),
            cancel_first: if cancel_first {
                token
            } else {
                std::ptr::null_mut()
            },
        };
        let ud = &r as *const Registering as *mut c_void;
        unsafe { af_unregister_function(d, c"reg".as_ptr()) };
        assert_eq!(
            unsafe { af_register_function(d, desc.as_ptr(), Some(registering_handler), ud, None) },
            AF_OK
        );
        let oc = Arc::new(Counts::default());
        let mut inv = invocation(c"reg");
        inv.host_context = 42usize as *mut c_void;
        inv.cancel_token = token;
        inv.timeout_ms = AF_TIMEOUT_NONE;
        assert_eq!(
            unsafe {
                af_execute_async(
                    d,
                    &inv,
                    std::ptr::null(),
                    Some(on_outcome),
                    Arc::as_ptr(&oc) as *mut c_void,
                )
            },
            AF_OK
        );
        if cancel_first {
            // cancelled before it registered: the callback ran at once, on the handler's
            // thread inside af_call_on_cancel (no lock held), then was released
            assert_eq!(r.counts.handled.load(Ordering::SeqCst), 100);
            assert_eq!(r.counts.freed.load(Ordering::SeqCst), 1);
        } else {
            assert_eq!(r.counts.handled.load(Ordering::SeqCst), 0);
            assert_eq!(r.counts.freed.load(Ordering::SeqCst), 0);
            assert_eq!(unsafe { af_cancel_token_cancel(token) }, AF_OK);
            assert_eq!(r.counts.handled.load(Ordering::SeqCst), 100);
            assert_eq!(r.counts.freed.load(Ordering::SeqCst), 1);
        }
        let outcomes = oc.outcomes.lock().unwrap().clone();
        assert!(
            outcomes.len() == 1 && outcomes[0].contains("Cancelled"),
            "{outcomes:?}"
        );
        unsafe { af_cancel_token_free(token) };
    }
    unsafe { af_dispatcher_free(d) };
}

#[test]
fn default_timeout_shutdown_and_in_flight() {
    let f = Fixture::new();
    let c = f.c.clone();
    let d = f.d;
    assert_eq!(
        f.register(cr#"{"id": "later", "result": "string"}"#, Mode::Later),
        AF_OK
    );
    assert_eq!(unsafe { af_dispatcher_set_default_timeout(d, 5) }, AF_OK);
    let out = f.run(c"later", None);
    assert!(
        out.contains("TimedOut") && out.contains("later did not finish within 5 ms"),
        "{out}"
    );
    assert_eq!(unsafe { af_dispatcher_set_default_timeout(d, 0) }, AF_OK);
    let oc = Arc::as_ptr(&c) as *mut c_void;
    assert_eq!(unsafe { af_dispatcher_in_flight(d) }, 0);
    assert_eq!(
        unsafe {
            af_execute_async(
                d,
                &invocation(c"later"),
                std::ptr::null(),
                Some(on_outcome),
                oc,
            )
        },
        AF_OK
    );
    assert_eq!(unsafe { af_dispatcher_in_flight(d) }, 1);
    let mut left = 99u32;
    assert_eq!(
        unsafe { af_dispatcher_shutdown(d, 0, &mut left) },
        AF_ERR_TIMED_OUT
    );
    assert_eq!(left, 1);
    // refused at once, no handler runs
    let out = f.run(c"echo", Some(cr#"{"x": 1}"#));
    assert!(
        out.contains("LimitExceeded") && out.contains("shutting down"),
        "{out}"
    );
    let h = c.parked.lock().unwrap().pop().unwrap() as *mut af_call;
    assert_eq!(unsafe { af_call_return(h, c"\"x\"".as_ptr()) }, AF_OK);
    assert_eq!(unsafe { af_dispatcher_shutdown(d, 1000, &mut left) }, AF_OK);
    assert_eq!((left, unsafe { af_dispatcher_in_flight(d) }), (0, 0));
    assert_eq!(c.handled.load(Ordering::SeqCst), 2);
    f.free();
    assert_eq!(
        unsafe { af_dispatcher_shutdown(std::ptr::null_mut(), 0, std::ptr::null_mut()) },
        AF_ERR_NULL
    );
}

#[test]
fn error_code_names_and_the_last_error_ring() {
    let name = |c| {
        unsafe { CStr::from_ptr(af_error_code_name(c)) }
            .to_str()
            .unwrap()
    };
    assert_eq!(name(AF_CODE_TIMED_OUT), "TimedOut");
    assert_eq!(name(AF_CODE_INTERNAL_ERROR), "InternalError");
    assert!(af_error_code_name(0).is_null());
    assert!(af_error_code_name(13).is_null());
    for code in 1..=12 {
        assert_eq!(
            unsafe { af_error_code_from_name(af_error_code_name(code)) },
            code
        );
    }
    assert_eq!(unsafe { af_error_code_from_name(c"timedout".as_ptr()) }, 0);
    assert_eq!(unsafe { af_error_code_from_name(std::ptr::null()) }, 0);
    // a lent message outlives the next failing calls
    assert_eq!(
        unsafe { af_define_types(std::ptr::null_mut(), c"{}".as_ptr()) },
        AF_ERR_NULL
    );
    let first = af_last_error();
    let copy = take(af_last_error_copy());
    for _ in 0..7 {
        assert_eq!(unsafe { af_gate_allow(std::ptr::null_mut()) }, AF_ERR_NULL);
    }
    assert_eq!(unsafe { CStr::from_ptr(first) }.to_str().unwrap(), copy);
    assert!(copy.contains("dispatcher is NULL"), "{copy}");
}

unsafe extern "C" fn count_outcome(p: *mut c_void, json: *const c_char) {
    unsafe { on_outcome(p, json) }
}

#[test]
fn views_take_invocations() {
    let f = Fixture::new();
    let c = f.c.clone();
    let d = f.d;
    assert_eq!(
        unsafe {
            af_define_toolkit(
                d,
                cr#"{"name": "tools", "description": "More tools"}"#.as_ptr(),
                None,
                std::ptr::null_mut(),
                None,
            )
        },
        AF_OK
    );
    assert_eq!(
        f.register(
            cr#"{"id": "later", "toolkit": "tools", "result": "string"}"#,
            Mode::Later
        ),
        AF_OK
    );
    let v = unsafe { af_view_new(d, std::ptr::null()) };
    assert!(!v.is_null());
    let g0 = unsafe { af_view_generation(v) };
    assert!(g0 != 0);
    let out =
        take(unsafe { af_view_execute_json(v, &invocation(c"echo"), cr#"{"x": 3}"#.as_ptr()) });
    assert!(out.contains(r#""result":{"x":3}"#), "{out}");
    assert_eq!(unsafe { af_view_generation(v) }, g0);
    // the container expands: what the view shows changed
    let oc = Arc::as_ptr(&c) as *mut c_void;
    assert_eq!(
        unsafe {
            af_view_execute_async(
                v,
                &invocation(c"tools"),
                std::ptr::null(),
                Some(count_outcome),
                oc,
            )
        },
        AF_OK
    );
    assert!(c.outcomes.lock().unwrap()[0].contains("now available"));
    let g1 = unsafe { af_view_generation(v) };
    assert!(g1 != g0);
    // the invocation's timeout applies to views
    let mut inv = invocation(c"later");
    inv.timeout_ms = 1;
    let out = take(unsafe { af_view_execute_json(v, &inv, std::ptr::null()) });
    assert!(out.contains("TimedOut"), "{out}");
    inv.struct_size = 4;
    let out = take(unsafe { af_view_execute_json(v, &inv, std::ptr::null()) });
    assert!(out.contains("struct_size is 4"), "{out}");
    assert_eq!(
        unsafe { af_view_execute_async(v, &inv, std::ptr::null(), Some(count_outcome), oc) },
        AF_ERR_INVALID
    );
    assert_eq!(
        unsafe { af_set_function_enabled(d, c"echo".as_ptr(), 0) },
        AF_OK
    );
    assert!(unsafe { af_view_generation(v) } != g1);
    assert_eq!(unsafe { af_view_generation(std::ptr::null_mut()) }, 0);
    unsafe { af_view_free(v) };
    f.free();
}
