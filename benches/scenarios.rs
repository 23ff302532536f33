//! The scenarios the benchmarks measure, shared by the criterion benches (wall clock) and
//! `instructions.rs` (callgrind instruction counts), so both count the same work.
#![allow(dead_code)]

use appfunctions::export::Format;
use appfunctions::ffi::*;
use appfunctions::view::View;
use appfunctions::{sync_handler, Dispatcher};
use serde_json::json;
use std::ffi::{c_char, c_void, CStr, CString};
use std::fmt::Write as _;
use std::ptr;
use std::sync::mpsc;
use std::sync::Arc;

pub const ARGS: &CStr = c"{\"customer\":\"acme\",\"quantity\":2,\"priority\":\"Normal\"}";
pub const TYPES: &CStr =
    c"{\"enums\":[{\"name\":\"Priority\",\"members\":[\"Low\",\"Normal\",\"High\"]}]}";
pub const CREATE_ORDER: &CStr = c"{\"id\":\"create_order\",\"parameters\":[{\"name\":\"customer\",\"type\":\"string\"},{\"name\":\"quantity\",\"type\":\"int32\"},{\"name\":\"priority\",\"type\":{\"enum\":\"Priority\"}}],\"result\":\"string\"}";

unsafe extern "C" fn handler(_: *mut c_void, call: *mut af_call) {
    unsafe { af_call_return(call, c"\"ok\"".as_ptr()) };
}

unsafe extern "C" fn allow(_: *mut c_void, _call: *mut af_call, gate: *mut af_gate) {
    unsafe { af_gate_allow(gate) };
}

unsafe extern "C" fn lookup(_: *mut c_void, call: *mut af_call) {
    unsafe { af_call_return(call, c"[{\"id\":\"o-1\",\"customer\":\"acme\"}]".as_ptr()) };
}

unsafe extern "C" fn deny(_: *mut c_void, _call: *mut af_call, gate: *mut af_gate) {
    unsafe { af_gate_deny(gate, c"Sign in first.".as_ptr()) };
}

pub fn invocation(id: &CStr) -> af_invocation {
    af_invocation {
        struct_size: std::mem::size_of::<af_invocation>() as u32,
        reserved: [0; 3],
        host_context: std::ptr::null_mut(),
        function_id: id.as_ptr(),
        platform: AF_PLATFORM_OTHER,
        is_foreground: 0,
        caller_package: ptr::null(),
        cancel_token: ptr::null(),
        timeout_ms: 0,
    }
}

type OnInvoking = unsafe extern "C" fn(*mut c_void, *mut af_call, *mut af_gate);

fn delegate(on_invoking: Option<OnInvoking>) -> af_delegate {
    af_delegate {
        struct_size: std::mem::size_of::<af_delegate>() as u32,
        reserved: 0,
        on_invoking,
        on_invoked: None,
        free_user_data: None,
    }
}

/// `create_order` (three arguments, a trivial synchronous handler), the entity `order`
/// and `cancel_order` taking one, and `delegates` allowing delegates.
pub fn setup(delegates: usize) -> *mut af_dispatcher {
    unsafe {
        let d = af_dispatcher_new();
        assert_eq!(af_define_types(d, TYPES.as_ptr()), AF_OK);
        assert_eq!(
            af_register_function(
                d,
                CREATE_ORDER.as_ptr(),
                Some(handler),
                ptr::null_mut(),
                None
            ),
            AF_OK
        );
        assert_eq!(af_register_entity(d, c"{\"name\":\"order\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"customer\",\"type\":\"string\"}]}".as_ptr(), Some(lookup), ptr::null_mut(), None), AF_OK);
        let desc = c"{\"id\":\"cancel_order\",\"parameters\":[{\"name\":\"order\",\"type\":{\"entity\":\"order\"}}],\"result\":\"string\"}";
        assert_eq!(
            af_register_function(d, desc.as_ptr(), Some(handler), ptr::null_mut(), None),
            AF_OK
        );
        for _ in 0..delegates {
            assert_eq!(
                af_add_delegate(d, &delegate(Some(allow)), ptr::null_mut()),
                AF_OK
            );
        }
        d
    }
}

/// `sign_up`: three string parameters, each with a typical `pattern` (an id, an email, a
/// date) or, with `patterns` false, the same parameters without one: the difference is what
/// checking the three patterns costs a call.
pub const SIGN_UP: &CStr = c"{\"id\":\"sign_up\",\"parameters\":[{\"name\":\"user\",\"type\":\"string\",\"pattern\":\"^[a-z][a-z0-9_]{2,31}$\"},{\"name\":\"email\",\"type\":\"string\",\"pattern\":\"^[^\\\\s@]+@[^\\\\s@]+\\\\.[^\\\\s@]+$\"},{\"name\":\"born\",\"type\":\"string\",\"pattern\":\"^\\\\d{4}-\\\\d{2}-\\\\d{2}$\"}],\"result\":\"string\"}";
pub const SIGN_UP_ARGS: &CStr =
    c"{\"user\":\"ada_lovelace\",\"email\":\"ada@example.org\",\"born\":\"1815-12-10\"}";

/// A dispatcher with `sign_up` (its patterns, or none with `patterns` false).
pub fn setup_patterns(patterns: bool) -> *mut af_dispatcher {
    let desc = SIGN_UP.to_str().unwrap().to_string();
    let desc = if patterns {
        desc
    } else {
        let v: serde_json::Value = serde_json::from_str(&desc).unwrap();
        let mut v = v;
        for p in v["parameters"].as_array_mut().unwrap() {
            p.as_object_mut().unwrap().remove("pattern");
        }
        v.to_string()
    };
    let desc = CString::new(desc).unwrap();
    unsafe {
        let d = af_dispatcher_new();
        assert_eq!(
            af_register_function(d, desc.as_ptr(), Some(handler), ptr::null_mut(), None),
            AF_OK
        );
        let inv = invocation(c"sign_up");
        let out = af_execute_json(d, &inv, SIGN_UP_ARGS.as_ptr());
        let text = CStr::from_ptr(out).to_str().unwrap().to_owned();
        af_string_free(out);
        assert!(text.contains("\"ok\""), "{text}");
        d
    }
}

/// A dispatcher whose one delegate refuses every call.
pub fn setup_refusing() -> *mut af_dispatcher {
    let d = setup(0);
    unsafe { af_add_delegate(d, &delegate(Some(deny)), ptr::null_mut()) };
    d
}

/// One `af_execute_json` and the release of its outcome.
#[inline(always)]
pub fn execute(d: *mut af_dispatcher, inv: &af_invocation, args: &CStr) {
    unsafe {
        let out = af_execute_json(d, inv, args.as_ptr());
        af_string_free(std::hint::black_box(out));
    }
}

unsafe extern "C" fn on_outcome(ud: *mut c_void, json: *const c_char) {
    // what a binding does with the outcome: hold on to it (here, its first byte)
    unsafe { *(ud as *mut u8) = *(json as *const u8) };
}

/// One `af_execute_async` whose handler answers inline (the plain call's handler), the
/// outcome callback running before it returns: what a binding's `await execute` costs in
/// the core when nothing suspends.
#[inline(always)]
pub fn execute_async_inline(d: *mut af_dispatcher, inv: &af_invocation, args: &CStr) {
    let mut first = 0u8;
    unsafe {
        let s = af_execute_async(
            d,
            inv,
            args.as_ptr(),
            Some(on_outcome),
            &mut first as *mut u8 as *mut c_void,
        );
        debug_assert_eq!(s, AF_OK);
    }
    std::hint::black_box(first);
}

/// The plain call's invocation without any timeout (`AF_TIMEOUT_NONE`): no deadline armed.
pub fn invocation_untimed(id: &CStr) -> af_invocation {
    af_invocation {
        timeout_ms: AF_TIMEOUT_NONE,
        ..invocation(id)
    }
}

/// A cancellation token kept for many calls, as a binding keeps one per thread for the
/// calls it makes there (Swift: task cancellation reaches the call through it).
pub struct CancelTokenKept(*mut af_cancel_token);

impl CancelTokenKept {
    pub fn new() -> CancelTokenKept {
        CancelTokenKept(af_cancel_token_new())
    }
    /// The plain call's invocation carrying the token (and the default timeout).
    pub fn invocation(&self, id: &CStr) -> af_invocation {
        af_invocation {
            cancel_token: self.0,
            ..invocation(id)
        }
    }
}

impl Drop for CancelTokenKept {
    fn drop(&mut self) {
        unsafe { af_cancel_token_free(self.0) }
    }
}

pub struct Entity {
    pub inv: af_invocation,
    pub args: CString,
}

pub fn entity() -> Entity {
    Entity {
        inv: invocation(c"cancel_order"),
        args: CString::new("{\"order\":\"o-1\"}").unwrap(),
    }
}

/// The Value floor: serde_json parsing the arguments into a tree and serialising the
/// outcome from one.
pub fn floor_value() -> String {
    let v: serde_json::Value = serde_json::from_str(ARGS.to_str().unwrap()).unwrap();
    std::hint::black_box(&v);
    serde_json::json!({"status": "success", "result": "ok", "dialog": null, "errorCode": null, "message": null}).to_string()
}

#[derive(serde::Deserialize)]
pub enum Priority {
    Low,
    Normal,
    High,
}

/// The three arguments, as a host would type them.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args<'a> {
    pub customer: &'a str,
    pub quantity: i32,
    pub priority: Priority,
}

/// The typed floor: the least work any implementation must do for a plain call, serde
/// deriving a borrowed struct of the three arguments and the outcome written with `write!`.
pub fn floor_typed() -> String {
    let a: Args<'_> = serde_json::from_str(ARGS.to_str().unwrap()).unwrap();
    std::hint::black_box(&a);
    // the handler's result, as a host would hand it over
    let result: &str = std::hint::black_box("\"ok\"");
    let mut out = String::with_capacity(96);
    let _ = write!(
        out,
        "{{\"status\":\"success\",\"result\":{result},\"dialog\":null,\"errorCode\":null,\"message\":null}}"
    );
    out
}

/// A call completed from another thread: the handler hands the call to the host's worker
/// thread (a channel), which completes it; the caller waits for the outcome.
pub struct AsyncCompletion {
    pub d: *mut af_dispatcher,
    pub inv: af_invocation,
    worker: Option<std::thread::JoinHandle<()>>,
    w: *mut Worker,
}

struct Worker(mpsc::Sender<usize>);

unsafe extern "C" fn handler_async(ud: *mut c_void, call: *mut af_call) {
    let w = unsafe { &*(ud as *const Worker) };
    w.0.send(call as usize).unwrap();
}

/// Runs the worker's part of a message (the instruction counter wraps it to count it).
pub type WorkerWrap = fn(&mut dyn FnMut());

fn unwrapped(f: &mut dyn FnMut()) {
    f()
}

impl AsyncCompletion {
    pub fn new() -> AsyncCompletion {
        Self::with_worker_wrap(unwrapped)
    }

    pub fn with_worker_wrap(wrap: WorkerWrap) -> AsyncCompletion {
        let (tx, rx) = mpsc::channel::<usize>();
        let worker = std::thread::spawn(move || {
            while let Ok(call) = rx.recv() {
                wrap(&mut || unsafe {
                    af_call_return(call as *mut af_call, c"\"ok\"".as_ptr());
                });
            }
        });
        let w = Box::into_raw(Box::new(Worker(tx)));
        let d = af_dispatcher_new();
        unsafe {
            af_define_types(d, TYPES.as_ptr());
            assert_eq!(
                af_register_function(
                    d,
                    CREATE_ORDER.as_ptr(),
                    Some(handler_async),
                    w as *mut c_void,
                    None
                ),
                AF_OK
            );
        }
        AsyncCompletion {
            d,
            inv: invocation(c"create_order"),
            worker: Some(worker),
            w,
        }
    }

    #[inline(always)]
    pub fn run(&self) {
        execute(self.d, &self.inv, ARGS);
    }
}

impl Drop for AsyncCompletion {
    fn drop(&mut self) {
        unsafe {
            af_dispatcher_free(self.d);
            drop(Box::from_raw(self.w));
        }
        if let Some(w) = self.worker.take() {
            w.join().unwrap();
        }
    }
}

/// The floor of a completion from another thread: one message handed to a worker thread
/// through the same kind of channel, and the answer handed back as the core hands back an
/// outcome (a parking_lot mutex and condition variable the caller waits on).
pub struct Handoff {
    tx: Option<mpsc::Sender<Arc<Reply>>>,
    worker: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct Reply {
    slot: parking_lot::Mutex<Option<String>>,
    done: parking_lot::Condvar,
}

impl Handoff {
    pub fn new() -> Handoff {
        Self::with_worker_wrap(unwrapped)
    }

    pub fn with_worker_wrap(wrap: WorkerWrap) -> Handoff {
        let (tx, rx) = mpsc::channel::<Arc<Reply>>();
        let worker = std::thread::spawn(move || {
            while let Ok(r) = rx.recv() {
                wrap(&mut || {
                    *r.slot.lock() = Some(String::from("\"ok\""));
                    r.done.notify_all();
                });
            }
        });
        Handoff {
            tx: Some(tx),
            worker: Some(worker),
        }
    }

    #[inline(always)]
    pub fn run(&self) -> String {
        let r = Arc::new(Reply::default());
        self.tx.as_ref().unwrap().send(r.clone()).unwrap();
        let mut g = r.slot.lock();
        loop {
            if let Some(s) = g.take() {
                return s;
            }
            r.done.wait(&mut g);
        }
    }
}

impl Drop for Handoff {
    fn drop(&mut self) {
        drop(self.tx.take());
        if let Some(w) = self.worker.take() {
            w.join().unwrap();
        }
    }
}

/// A function descriptor of the registry-scale scenarios (three parameters, a record
/// result), optionally in a toolkit.
pub fn descriptor(i: usize, toolkit: Option<usize>) -> String {
    let mut d = json!({
        "id": format!("function_{i}"),
        "title": format!("Function {i}"),
        "description": format!("Does thing number {i} for the user."),
        "parameters": [
            {"name": "customer", "type": "string", "description": "Who"},
            {"name": "quantity", "type": "int32"},
            {"name": "priority", "type": {"enum": "Priority"}, "default": "Normal"}
        ],
        "result": {"record": "Order"}
    });
    if let Some(t) = toolkit {
        d["toolkit"] = json!(format!("toolkit_{t}"));
    }
    d.to_string()
}

pub const SCALE_TYPES: &str = r#"{"enums":[{"name":"Priority","members":["Low","Normal","High"]}],
    "records":[{"name":"Order","fields":[{"name":"id","type":"string"},{"name":"priority","type":{"enum":"Priority"}}]}]}"#;

/// Registers the descriptors into a new dispatcher.
pub fn register_all(descs: &[String]) -> Dispatcher {
    let d = Dispatcher::new();
    d.define_types(SCALE_TYPES).unwrap();
    let h = sync_handler(|_| Ok(None));
    for s in descs {
        d.register_function(s, Some(h.clone())).unwrap();
    }
    d
}

/// `n` functions spread over `toolkits` collapsible toolkits (none: no toolkit).
pub fn build(n: usize, toolkits: usize) -> Dispatcher {
    let d = Dispatcher::new();
    d.define_types(SCALE_TYPES).unwrap();
    for t in 0..toolkits {
        d.define_toolkit(
            &json!({"name": format!("toolkit_{t}"), "description": format!("Toolkit {t}")})
                .to_string(),
            None,
        )
        .unwrap();
    }
    let h = sync_handler(|_| Ok(Some(r#"{"id":"o","priority":"Low"}"#.into())));
    for i in 0..n {
        let tk = (toolkits > 0).then(|| i % toolkits);
        d.register_function(&descriptor(i, tk), Some(h.clone()))
            .unwrap();
    }
    d
}

/// An agent view of `d` with every toolkit of `toolkits` expanded.
pub fn expanded_view(d: &Dispatcher, toolkits: usize) -> View {
    let v = View::new(d, json!({})).unwrap();
    for t in 0..toolkits {
        v.execute(&format!("toolkit_{t}"), None);
    }
    v
}

/// The formats whose first export after registration is measured.
pub const COLD_FORMATS: [Format; Format::ALL.len()] = Format::ALL;

/// The MCP `initialize` of the in-process scenarios (a handshake-era session).
pub const MCP_INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}"#;

/// The demo's `create_order` as an MCP client calls it.
pub const MCP_CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"acme","quantity":2,"priority":"High"}}}"#;

/// An initialized MCP session over a dispatcher, calling `create_order` in-process
/// (`Session::handle`: the request parsed, the call through the pipeline, the
/// `CallToolResult` written).
pub struct McpCall(Arc<appfunctions::mcp::Session>);

impl McpCall {
    pub fn new(d: &Dispatcher) -> McpCall {
        let s = appfunctions::mcp::Session::new(d, Default::default(), json!({})).unwrap();
        s.handle(MCP_INITIALIZE).unwrap();
        assert_eq!(
            s.handle(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
        let c = McpCall(s);
        let first = c.run().unwrap();
        assert!(first.contains(r#""isError":false"#), "{first}");
        c
    }

    #[inline(always)]
    pub fn run(&self) -> Option<String> {
        self.0.handle(MCP_CALL)
    }
}

/// The demo's `create_order` (its types and descriptor given) with a trivial handler
/// answering a fixed order, and no delegates: what the MCP adapter and the core cost
/// without the demo's own work.
pub fn mcp_trivial(types: &str, create_order: &str) -> Dispatcher {
    let t = Dispatcher::new();
    t.define_types(types).unwrap();
    t.register_function(
        create_order,
        Some(sync_handler(|_| {
            Ok(Some(
                r#"{"id":"o-1","customer":"acme","quantity":2,"priority":"High","status":"open"}"#
                    .into(),
            ))
        })),
    )
    .unwrap();
    t
}
