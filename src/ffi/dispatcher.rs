//! Dispatchers, registration, execution, the registry and schemas. Entities are
//! registered here too (`af_register_entity` sits where the header lists it: the module
//! docs of `ffi` say why it has no file of its own), and calls started (`af_execute_*`).

use super::*;
use crate::engine::call::{Call, JsonSink};
use crate::engine::dispatcher::{Dispatcher, Handler};
use crate::engine::log::LogLevel;
use crate::model::descriptor::CallerPolicy;
use std::sync::Arc;
use std::time::Duration;

/// A dispatcher: the registry of functions, entities and delegates, and the entry point
/// of every call. Thread-safe: every function taking it may be called from any thread,
/// also from inside a handler or delegate of this dispatcher.
pub struct af_dispatcher {
    _private: [u8; 0],
}

impl Handle for af_dispatcher {
    type Target = FfiDispatcher;
    type Kind = Boxed;
    const WHAT: &'static str = "the dispatcher";
}

/// A request to run a function (`af_execute_json`, `af_execute_async`,
/// `af_view_execute_json`, `af_view_execute_async`). Fill it in from `AF_INVOCATION_INIT`
/// (which sets `struct_size`). Borrowed for the call: each function copies what it needs
/// before any host code runs, so the host may reuse or free it as soon as they return.
///
/// Layout (offsets on 64-bit targets, 32-bit in parentheses; no hidden padding):
/// `struct_size` 0 (0), `platform` 4 (4), `function_id` 8 (8), `caller_package` 16 (12),
/// `cancel_token` 24 (16), `timeout_ms` 32 (20), `is_foreground` 36 (24), `reserved`
/// 37 (25), `host_context` 40 (28); size 48 (32). The first ABI 1 layout ended before
/// `host_context` (size 40, 32-bit 28): that size is still accepted, and its calls carry a NULL
/// `host_context`. Later versions add fields only at the end.
#[repr(C)]
pub struct af_invocation {
    /// `sizeof(af_invocation)` of the header the host was built with. The library reads
    /// only the fields it covers; a size smaller than this v1 layout is refused.
    pub struct_size: u32,
    /// `AF_PLATFORM_OTHER` (0), `AF_PLATFORM_APPLE` (1) or `AF_PLATFORM_ANDROID` (2).
    pub platform: i32,
    /// The function's id (for views: the tool name the model called). Required.
    pub function_id: *const c_char,
    /// android: the calling package. NULL is "" (in-process or the shell).
    pub caller_package: *const c_char,
    /// A token that cancels the call, or NULL. Borrowed: the call keeps its own reference.
    pub cancel_token: *const af_cancel_token,
    /// Ends the call `TimedOut` after this many milliseconds. 0: the dispatcher's default
    /// (`af_dispatcher_set_default_timeout`, 30 s unless changed); `AF_TIMEOUT_NONE`: no
    /// timeout at all.
    pub timeout_ms: u32,
    /// apple: 1 when the app is in the foreground for this run, else 0.
    pub is_foreground: u8,
    /// Zero.
    pub reserved: [u8; 3],
    /// A value of the host's that the call carries, never read by the library: any
    /// callback of the call (delegates, the handler, the permission hook, the scope hooks,
    /// and the call's entity lookups) reads it back with `af_call_invocation_context`. NULL
    /// when not set (or when `struct_size` ends before it). The host keeps it valid until
    /// the call's outcome.
    pub host_context: *mut c_void,
}

/// The size of the first ABI 1 `af_invocation` (up to `reserved`): the smallest accepted.
pub(crate) const INVOCATION_V1_SIZE: usize = std::mem::offset_of!(af_invocation, host_context);

/// `af_invocation.timeout_ms` for a call without any timeout (not even the dispatcher's
/// default).
pub const AF_TIMEOUT_NONE: u32 = u32::MAX;

/// An in-process call (a test, an in-app assistant, MCP).
pub const AF_PLATFORM_OTHER: i32 = 0;

/// Siri, Shortcuts, Spotlight.
pub const AF_PLATFORM_APPLE: i32 = 1;

/// Android AppFunctions callers such as Gemini.
pub const AF_PLATFORM_ANDROID: i32 = 2;

/// Receives a call's outcome JSON (borrowed, valid during the callback). Called exactly
/// once, on the thread that finishes the call: the caller of `af_execute_async` when
/// everything answers inline (before it returns), else the host thread that gives the
/// last answer or calls `af_cancel_token_cancel`, or a completion thread of the library
/// for a timeout (and for a cancelled token's other calls). Never the timer thread.
pub type af_outcome_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, outcome_json: *const c_char)>;

/// Runs a function: complete `call` exactly once with `af_call_return` or `af_call_fail`,
/// inside the callback or later from any thread. The `call` handle is valid until the
/// call ends (see `af_call_return`). Called on the thread driving the call (the caller
/// of `af_execute*`, the thread that answered the last gate or lookup, or a stdio MCP
/// worker); never on the timer or a completion thread.
pub type af_handler_fn = Option<unsafe extern "C" fn(user_data: *mut c_void, call: *mut af_call)>;

/// Receives the core's warnings: `level` is 0 debug, 1 info, 2 warn, 3 error; `message`
/// is borrowed for the callback. Called from any thread, completion threads included (a
/// timeout's warning is written there, never on the timer thread).
pub type af_log_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, level: i32, message: *const c_char)>;

/// What an `af_dispatcher` points to: the dispatcher and the C layer's MCP state.
pub(crate) struct FfiDispatcher {
    pub d: Dispatcher,
    /// The session `af_mcp_handle_json` uses, made on first use.
    pub mcp: parking_lot::Mutex<Option<Arc<crate::mcp::Session>>>,
    pub mcp_config: parking_lot::Mutex<crate::mcp::McpConfig>,
    pub mcp_notify: parking_lot::Mutex<Option<crate::mcp::Notify>>,
    /// Made by `af_dispatcher_published_new`: a second handle to a dispatcher someone else
    /// made; freeing it withdraws no publication.
    pub from_publication: bool,
}

impl FfiDispatcher {
    pub(crate) fn new(d: Dispatcher, from_publication: bool) -> FfiDispatcher {
        FfiDispatcher {
            d,
            mcp: parking_lot::Mutex::new(None),
            mcp_config: parking_lot::Mutex::new(crate::mcp::McpConfig::default()),
            mcp_notify: parking_lot::Mutex::new(None),
            from_publication,
        }
    }
}

impl std::ops::Deref for FfiDispatcher {
    type Target = Dispatcher;
    fn deref(&self) -> &Dispatcher {
        &self.d
    }
}

struct CHandler {
    f: unsafe extern "C" fn(*mut c_void, *mut af_call),
    data: ForeignData,
}

impl Handler for CHandler {
    fn invoke(&self, call: &Arc<Call>) {
        match call.handle() {
            // SAFETY: the host's callback with its own user data and a live call handle.
            Some(h) => as_current(call, h, 0, || unsafe {
                (self.f)(self.data.ptr, af_call::from_number(h))
            }),
            None => {
                let _ = call.complete(Err((
                    crate::model::error::ErrorCode::LimitExceeded,
                    "too many calls in flight".into(),
                )));
            }
        }
    }
}

pub(crate) fn c_handler(
    f: af_handler_fn,
    user_data: *mut c_void,
    free: af_free_fn,
) -> Option<Arc<dyn Handler>> {
    let data = ForeignData {
        ptr: user_data,
        free,
    };
    f.map(|f| Arc::new(CHandler { f, data }) as Arc<dyn Handler>)
}

/// Creates a dispatcher. Caller owns it and must call `af_dispatcher_free`. Never NULL,
/// except in a child made by `fork()` after the parent used the library: there every `af_`
/// function refuses at once (its error status, NULL, or an `InternalError` outcome, with
/// `af_last_error` saying why), because the library's threads and the locks they held
/// stayed in the parent. `af_string_free`, `af_last_error` and the version functions still
/// work there. Fork before the first use, or `exec` in the child.
#[no_mangle]
pub extern "C" fn af_dispatcher_new() -> *mut af_dispatcher {
    boundary(|| {
        #[cfg(debug_assertions)]
        super::panic_probe();
        super::fork::watch();
        af_dispatcher::new(FfiDispatcher::new(Dispatcher::new(), false))
    })
}

/// Frees a dispatcher. It never blocks and runs no host callback other than the
/// `free_user_data` releases (so a finalizer may call it). Calls in flight finish
/// normally with what they hold; each registration's `free_user_data` runs when the last
/// call using it ends. Call `af_dispatcher_shutdown` first to refuse new calls and drain
/// those in flight. Do not use `d` afterwards (not even from handlers still running).
/// Freeing a dispatcher made by `af_dispatcher_new` withdraws its publications
/// (`af_dispatcher_publish`); freeing one from `af_dispatcher_published_new` releases only
/// that handle (the dispatcher lives on while its maker or another handle holds it).
/// Calling with NULL is fine.
#[no_mangle]
pub unsafe extern "C" fn af_dispatcher_free(d: *mut af_dispatcher) {
    boundary(|| {
        // SAFETY: the host's handle, live and not used afterwards (the header's contract).
        if let Some(h) = unsafe { af_dispatcher::try_get(d) } {
            if !h.from_publication {
                h.d.withdraw();
            }
        }
        // SAFETY: made by af_dispatcher_new or af_dispatcher_published_new; freed once.
        unsafe { af_dispatcher::free(d) }
    })
}

/// Defines named enums and records: `{"enums": [...], "records": [...]}`
/// (docs/descriptors.md). All or nothing: on error nothing is defined. `json` borrowed.
#[no_mangle]
pub unsafe extern "C" fn af_define_types(d: *mut af_dispatcher, json: *const c_char) -> af_status {
    boundary(|| {
        // SAFETY: pointers checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let json = try_status!(unsafe { str_arg(json, "json") });
        status_of(d.define_types(json))
    })
}

/// Registers a function from its descriptor JSON (borrowed). `handler` may be NULL only
/// for `"kind": "output"` functions. The dispatcher takes ownership of `user_data` in
/// every case: `free_user_data` (may be NULL) runs exactly once — when the function is
/// unregistered or the dispatcher freed and no call uses it any more, or before this
/// returns if registration fails. A malformed descriptor gives `AF_ERR_INVALID` with a
/// message naming the path (`create_order.parameters.priority.type: unknown enum ...`).
#[no_mangle]
pub unsafe extern "C" fn af_register_function(
    d: *mut af_dispatcher,
    descriptor_json: *const c_char,
    handler: af_handler_fn,
    user_data: *mut c_void,
    free_user_data: af_free_fn,
) -> af_status {
    boundary(|| {
        // without a handler, user_data has no use and is released at once
        let h = c_handler(handler, user_data, free_user_data);
        // SAFETY: pointers checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let desc = try_status!(unsafe { str_arg(descriptor_json, "descriptor_json") });
        status_of(d.register_function(desc, h))
    })
}

/// Registers an entity (descriptor JSON borrowed) and its generated `search_{entity}`
/// function. `lookup` (required) is called like a handler: read
/// `af_call_lookup_request` (`{"ids": [...]}` or `{"query": "...", "limit": n}`) and
/// complete with `af_call_return(call, "[...entities...]")`. Ownership of `user_data` as
/// for `af_register_function`.
#[no_mangle]
pub unsafe extern "C" fn af_register_entity(
    d: *mut af_dispatcher,
    descriptor_json: *const c_char,
    lookup: af_handler_fn,
    user_data: *mut c_void,
    free_user_data: af_free_fn,
) -> af_status {
    boundary(|| {
        // (c_handler releases user_data when lookup is NULL)
        let Some(h) = c_handler(lookup, user_data, free_user_data) else {
            return fail(AF_ERR_NULL, "lookup is NULL");
        };
        // SAFETY: pointers checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let desc = try_status!(unsafe { str_arg(descriptor_json, "descriptor_json") });
        status_of(d.register_entity(desc, h))
    })
}

/// Removes a declared function. Calls in flight finish with it. `function_id` borrowed.
#[no_mangle]
pub unsafe extern "C" fn af_unregister_function(
    d: *mut af_dispatcher,
    function_id: *const c_char,
) -> af_status {
    boundary(|| {
        // SAFETY: pointers checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let id = try_status!(unsafe { str_arg(function_id, "function_id") });
        status_of(d.unregister_function(id))
    })
}

/// Enables (`enabled` 1) or disables (0) a function at run time; a disabled function
/// answers `Disabled`.
#[no_mangle]
pub unsafe extern "C" fn af_set_function_enabled(
    d: *mut af_dispatcher,
    function_id: *const c_char,
    enabled: u8,
) -> af_status {
    boundary(|| {
        // SAFETY: pointers checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let id = try_status!(unsafe { str_arg(function_id, "function_id") });
        status_of(d.set_enabled(id, enabled != 0))
    })
}

/// Sets the limits applied to arguments: the largest input in bytes (default 1 MiB) and
/// the deepest nesting (default 64). Both must be greater than zero.
#[no_mangle]
pub unsafe extern "C" fn af_set_limits(
    d: *mut af_dispatcher,
    max_input_bytes: u64,
    max_depth: u32,
) -> af_status {
    boundary(|| {
        // SAFETY: checked by the helper.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let limits = crate::model::binding::Limits {
            max_input_bytes: usize::try_from(max_input_bytes).unwrap_or(usize::MAX),
            max_depth,
        };
        status_of(d.set_limits(limits))
    })
}

fn parse_policy(json: &str) -> Result<CallerPolicy, af_status> {
    let v: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| fail(AF_ERR_INVALID, &format!("policy: invalid JSON: {e}")))?;
    CallerPolicy::parse(&v, "policy").map_err(|e| error_status(&e))
}

/// Sets which calling packages may call any function: `{"allow": [...], "deny": [...]}`
/// (borrowed). A denied caller, or one missing from a non-empty allow list, gets `Denied`
/// and no handler runs. `""` names in-process callers.
#[no_mangle]
pub unsafe extern "C" fn af_set_caller_policy(
    d: *mut af_dispatcher,
    policy_json: *const c_char,
) -> af_status {
    boundary(|| {
        // SAFETY: pointers checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let p = try_status!(parse_policy(try_status!(unsafe {
            str_arg(policy_json, "policy_json")
        })));
        d.set_caller_policy(p);
        AF_OK
    })
}

/// Sets the caller policy of one function (replacing its descriptor's `callers`).
#[no_mangle]
pub unsafe extern "C" fn af_set_function_caller_policy(
    d: *mut af_dispatcher,
    function_id: *const c_char,
    policy_json: *const c_char,
) -> af_status {
    boundary(|| {
        // SAFETY: pointers checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let id = try_status!(unsafe { str_arg(function_id, "function_id") });
        let p = try_status!(parse_policy(try_status!(unsafe {
            str_arg(policy_json, "policy_json")
        })));
        status_of(d.set_function_caller_policy(id, p))
    })
}

/// Installs the sink for the core's warnings (a second completion, a late completion,
/// a failing `on_invoked`), replacing any previous one (whose `free_user_data` then
/// runs). NULL `cb` removes it.
#[no_mangle]
pub unsafe extern "C" fn af_set_log_callback(
    d: *mut af_dispatcher,
    cb: af_log_fn,
    user_data: *mut c_void,
    free_user_data: af_free_fn,
) -> af_status {
    boundary(|| {
        let data = ForeignData {
            ptr: user_data,
            free: free_user_data,
        };
        // SAFETY: checked by the helper.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let sink = cb.map(|f| {
            let sink: crate::engine::log::LogSink = Arc::new(move |level: LogLevel, msg: &str| {
                let data = &data;
                let c = to_cstring(msg);
                // SAFETY: the host's callback with its own data; msg borrowed for the call.
                unsafe { f(data.ptr, level as i32, c.as_ptr()) }
            });
            sink
        });
        d.set_log_sink(sink);
        AF_OK
    })
}

/// Runs a call and blocks until its outcome JSON (owned: free with `af_string_free`),
/// `{"status", "result", "dialog", "errorCode", "message"}`. Never NULL and never fails:
/// a NULL dispatcher or invocation, a `struct_size` smaller than v1, invalid UTF-8 or a
/// panic is an `InvalidArgument` / `InternalError` outcome naming what is wrong.
/// `args_json` (borrowed) is the arguments object; NULL is `{}`. Handlers and delegates
/// answering inline run on this thread; when the timeout elapses (the invocation's, or
/// the dispatcher's default), this thread ends the call (its `on_invoked`, scope end and
/// cancel callbacks run here), unless a handler blocks on this thread: then it ends when
/// the handler returns. After `af_dispatcher_shutdown` the outcome is `LimitExceeded` at
/// once.
#[no_mangle]
pub unsafe extern "C" fn af_execute_json(
    d: *mut af_dispatcher,
    inv: *const af_invocation,
    args_json: *const c_char,
) -> *mut c_char {
    use crate::model::error::ErrorCode as C;
    boundary_with(
        || {
            error_outcome(
                C::InternalError,
                &format!("af_execute_json failed unexpectedly: {}", last_error_text()),
            )
        },
        || {
            // SAFETY: pointers checked by the helpers.
            let d = match unsafe { af_dispatcher::get(d) } {
                Ok(d) => d,
                Err(_) => {
                    return error_outcome(
                        C::InvalidArgument,
                        "af_execute_json: the dispatcher is NULL",
                    )
                }
            };
            let inv = match unsafe { invocation_ref(inv) } {
                Ok(i) => i,
                Err(_) => {
                    return error_outcome(
                        C::InvalidArgument,
                        &format!("af_execute_json: {}", last_error_text()),
                    )
                }
            };
            let args = match unsafe { opt_str_arg(args_json, "args_json") } {
                Ok(a) => a,
                Err(_) => return error_outcome(C::InvalidArgument, &last_error_text()),
            };
            out_terminated(d.execute_terminated_ref(&inv, args))
        },
    )
}

/// An asynchronous call's outcome handed to the host's `af_outcome_fn` (`cb`, as a word)
/// with its user data (`data`): the [`JsonSink`] of `af_execute_async` and
/// `af_entities_async`, which keeps the two words instead of a boxed closure.
pub(crate) fn deliver_outcome(cb: usize, data: usize, json: Terminated<'_>) {
    type OutcomeFn = unsafe extern "C" fn(user_data: *mut c_void, outcome_json: *const c_char);
    // SAFETY: `cb` is the non-NULL af_outcome_fn given with this call, kept as a word
    // (`cb as usize`); a function pointer and a usize have the same size.
    let cb = unsafe { std::mem::transmute::<usize, OutcomeFn>(cb) };
    // SAFETY: the outcome JSON is NUL-terminated and borrowed for the callback; `data` is
    // the host's user data, passed back as it came.
    unsafe { cb(data as *mut c_void, lend_terminated(json)) }
}

pub(crate) struct SendPtr(pub *mut c_void);

// SAFETY: the header requires user_data to be usable from any thread.
unsafe impl Send for SendPtr {}

/// Starts a call and returns at once. `on_outcome` (required) receives the outcome JSON
/// exactly once, on the thread that finishes the call: this one when everything answers
/// inline (or the dispatcher is shutting down), else the thread that completes the
/// handler, answers the gate or cancels, or a completion thread of the library for a
/// timeout (the timer thread only marks the call timed out; its `on_invoked`, scope end
/// and `on_outcome` run on a completion thread, so a callback that blocks delays no other
/// call's timeout). `on_outcome` is its own release: on `AF_OK` it will be called exactly
/// once, after which the library keeps nothing of `user_data`; on an error status (NULL
/// dispatcher, invocation or callback, a `struct_size` smaller than v1, invalid UTF-8) it
/// is never called.
#[no_mangle]
pub unsafe extern "C" fn af_execute_async(
    d: *mut af_dispatcher,
    inv: *const af_invocation,
    args_json: *const c_char,
    on_outcome: af_outcome_fn,
    user_data: *mut c_void,
) -> af_status {
    boundary(|| {
        // SAFETY: pointers checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let Some(cb) = on_outcome else {
            return fail(AF_ERR_NULL, "on_outcome is NULL");
        };
        // borrowed: the call copies what it keeps before any host code runs
        let inv = try_status!(unsafe { invocation_ref(inv) });
        let args = try_status!(unsafe { opt_str_arg(args_json, "args_json") });
        // the callback and its data as the sink's two words: no allocation per call
        let sink = JsonSink {
            f: deliver_outcome,
            a: cb as usize,
            b: user_data as usize,
        };
        d.execute_async_terminated_ref(&inv, args, sink);
        AF_OK
    })
}

/// The registry as JSON (owned): `{"functions": [...declared, then generated
/// search_{entity}...], "types": {...}, "entities": [...], "toolkits": [...]}`
/// (docs/descriptors.md). NULL only for a NULL dispatcher.
#[no_mangle]
pub unsafe extern "C" fn af_registry_json(d: *mut af_dispatcher) -> *mut c_char {
    boundary(|| match unsafe { af_dispatcher::get(d) } {
        Ok(d) => out_string(&d.registry_json()),
        Err(_) => std::ptr::null_mut(),
    })
}

/// The JSON Schema (draft 2020-12) of a function's parameters (owned), always an object
/// schema. NULL on error (unknown id: `af_last_error`).
#[no_mangle]
pub unsafe extern "C" fn af_parameters_schema_json(
    d: *mut af_dispatcher,
    function_id: *const c_char,
) -> *mut c_char {
    boundary(|| {
        // SAFETY: pointers checked by the helpers.
        let (Ok(d), Ok(id)) = (unsafe { af_dispatcher::get(d) }, unsafe {
            str_arg(function_id, "function_id")
        }) else {
            return std::ptr::null_mut();
        };
        match d.parameters_schema(id) {
            Ok(s) => out_string(&s.to_string()),
            Err(e) => {
                error_status(&e);
                std::ptr::null_mut()
            }
        }
    })
}

/// The JSON Schema (draft 2020-12) of a function's result value (owned); the text `null`
/// for a void function. NULL on error (unknown id: `af_last_error`).
#[no_mangle]
pub unsafe extern "C" fn af_result_schema_json(
    d: *mut af_dispatcher,
    function_id: *const c_char,
) -> *mut c_char {
    boundary(|| {
        // SAFETY: pointers checked by the helpers.
        let (Ok(d), Ok(id)) = (unsafe { af_dispatcher::get(d) }, unsafe {
            str_arg(function_id, "function_id")
        }) else {
            return std::ptr::null_mut();
        };
        match d.result_schema(id) {
            Ok(Some(s)) => out_string(&s.to_string()),
            Ok(None) => out_string("null"),
            Err(e) => {
                error_status(&e);
                std::ptr::null_mut()
            }
        }
    })
}

/// Sets the timeout of invocations whose `timeout_ms` is 0 (`af_execute_json`,
/// `af_execute_async`, views, MCP `tools/call`): `timeout_ms` milliseconds; 0 (or
/// `AF_TIMEOUT_NONE`): none. The default is 30000 (30 s). A call it ends is `TimedOut`,
/// and the log (`af_set_log_callback`) gets a warning naming the function and the
/// timeout.
#[no_mangle]
pub unsafe extern "C" fn af_dispatcher_set_default_timeout(
    d: *mut af_dispatcher,
    timeout_ms: u32,
) -> af_status {
    boundary(|| {
        // SAFETY: checked by the helper.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        d.set_default_timeout(
            (timeout_ms > 0 && timeout_ms != AF_TIMEOUT_NONE)
                .then(|| Duration::from_millis(timeout_ms.into())),
        );
        AF_OK
    })
}

/// Shuts the dispatcher down: from now on new calls (`af_execute_json`,
/// `af_execute_async`, views, MCP `tools/call`) end at once with `LimitExceeded` ("the
/// dispatcher is shutting down") and run no host code; then waits up to `timeout_ms`
/// (0: not at all; `AF_TIMEOUT_NONE`: as long as it takes) for the calls in flight.
/// `AF_OK` when none is left; `AF_ERR_TIMED_OUT` when some still run, their count in
/// `*out_in_flight` (may be NULL; 0 on `AF_OK`). Idempotent. Do not call it from inside a
/// callback of this dispatcher's calls with a timeout: it would wait for that call too.
/// `af_dispatcher_free` after it never blocks. Registrations and settings made after it
/// still succeed (`AF_OK`) and show in the registry and exports, but their calls end
/// `LimitExceeded` like every other: shutdown stops calls, not configuration.
#[no_mangle]
pub unsafe extern "C" fn af_dispatcher_shutdown(
    d: *mut af_dispatcher,
    timeout_ms: u32,
    out_in_flight: *mut u32,
) -> af_status {
    boundary(|| {
        // SAFETY: checked by the helper.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let wait = if timeout_ms == AF_TIMEOUT_NONE {
            Duration::MAX
        } else {
            Duration::from_millis(timeout_ms.into())
        };
        let left = d.shutdown(wait);
        if !out_in_flight.is_null() {
            // SAFETY: the host's out pointer, valid for this call.
            unsafe { *out_in_flight = u32::try_from(left).unwrap_or(u32::MAX) };
        }
        if left == 0 {
            AF_OK
        } else {
            fail(
                AF_ERR_TIMED_OUT,
                &format!("{left} call(s) still in flight after waiting {timeout_ms} ms"),
            )
        }
    })
}

/// How many calls of this dispatcher are running now (started, outcome not yet
/// delivered); 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn af_dispatcher_in_flight(d: *mut af_dispatcher) -> u32 {
    boundary(|| match unsafe { af_dispatcher::get(d) } {
        Ok(d) => u32::try_from(d.in_flight()).unwrap_or(u32::MAX),
        Err(_) => 0,
    })
}
