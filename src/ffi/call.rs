//! The call context: accessors and completions.

use super::*;
use crate::engine::call::{
    log_late, resolve_handle, with_live_call, Call, CompleteError, Completion, HandleRef, OnCancel,
    Op,
};
use crate::engine::pipeline::Answered;
use crate::model::error::ErrorCode;
use std::sync::Arc;

/// One call's scope, passed to handlers, lookups, delegates and hooks. It is a
/// generation-checked handle, not a pointer: it stays safe to pass after the call ended
/// (accessors then answer NULL / 0 / `AF_ERR_INVALID_HANDLE`). It is valid from scope
/// begin to scope end; the text the `af_call_*` accessors lend (`const char *`) is valid
/// during the callback that received the call and until the call ends (copy it to keep
/// it longer); the `_json` / `_copy` ones return owned text.
pub struct af_call {
    _private: [u8; 0],
}

impl Numbered for af_call {}

/// A function call (`af_call_kind`).
pub const AF_CALL_FUNCTION: i32 = 0;
/// An entity lookup: `af_call_args` is NULL; read `af_call_lookup_request`.
pub const AF_CALL_ENTITY_LOOKUP: i32 = 1;

/// Runs when a call is cancelled or times out: on the thread that calls
/// `af_cancel_token_cancel` (for the first of the token's calls) or `af_execute_json` (for
/// its own timeout), else on a completion thread of the library (an `af_execute_async`
/// timeout, the token's other calls); never on the timer thread. At once on the
/// registering thread when the call was cancelled already.
pub type af_cancel_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

fn live(call: *mut af_call) -> Result<Arc<Call>, af_status> {
    if call.is_null() {
        return Err(fail(AF_ERR_NULL, "the call is NULL"));
    }
    match resolve_handle(af_call::number(call)) {
        HandleRef::Live(c, 0) => Ok(c),
        HandleRef::Live(..) => Err(fail(
            AF_ERR_INVALID_HANDLE,
            "this is a gate handle, not a call",
        )),
        HandleRef::Ended(id) => Err(fail(
            AF_ERR_INVALID_HANDLE,
            &format!("the call to {id} has ended"),
        )),
        HandleRef::Unknown => Err(fail(AF_ERR_INVALID_HANDLE, "not a live call handle")),
    }
}

/// Reads a live call without taking a reference to it (`f` is short and runs no host
/// code); a dead or wrong handle records why (as `live` does) and gives `dead`.
fn reading<R>(call: *mut af_call, dead: R, f: impl FnOnce(&Call) -> R) -> R {
    if call.is_null() {
        let _ = live(call);
        return dead;
    }
    // inside the call's own callback: no look-up
    let mut f = Some(f);
    if let Some(r) = on_current(af_call::number(call), false, |c| {
        (f.take().expect("once"))(c)
    }) {
        return r;
    }
    let f = f.take().expect("not run");
    match with_live_call(af_call::number(call), |c| f(c)) {
        Some(r) => r,
        None => {
            // why it is not live (and the message of `live`)
            let _ = live(call);
            dead
        }
    }
}

/// Lends a NUL-terminated view held by the call (valid while the call lives).
fn lend(call: &Call, s: Option<Terminated<'_>>) -> *const c_char {
    let _ = call;
    match s {
        Some(s) => lend_terminated(s),
        None => std::ptr::null(),
    }
}

/// The function's id (lent until the call ends): for an entity lookup, the generated
/// `search_{entity}`. NULL for a dead handle.
#[no_mangle]
pub extern "C" fn af_call_function_id(call: *mut af_call) -> *const c_char {
    boundary(|| {
        reading(call, std::ptr::null(), |c| {
            lend(c, Some(c.function_id_terminated()))
        })
    })
}

/// The bound, normalised arguments (a JSON object lent until the call ends; entity ids
/// replaced by the entities). NULL for entity lookups, before binding (in scope begin),
/// or a dead handle.
#[no_mangle]
pub extern "C" fn af_call_args(call: *mut af_call) -> *const c_char {
    boundary(|| reading(call, std::ptr::null(), |c| lend(c, c.args_terminated())))
}

/// For entity lookups: `{"ids": [...]}` or `{"query": "...", "limit": n}` (lent until the
/// call ends; the `limit` key is absent when the caller gave none). NULL otherwise.
#[no_mangle]
pub extern "C" fn af_call_lookup_request(call: *mut af_call) -> *const c_char {
    boundary(|| {
        reading(call, std::ptr::null(), |c| {
            lend(c, c.lookup_request_terminated())
        })
    })
}

/// The called function's normalised descriptor (owned JSON, as in `af_registry_json`;
/// the seed's `context.Function`), or NULL for an unknown function or a dead handle.
#[no_mangle]
pub extern "C" fn af_call_descriptor_json(call: *mut af_call) -> *mut c_char {
    boundary(|| {
        let Ok(c) = live(call) else {
            return std::ptr::null_mut();
        };
        match c.descriptor_json() {
            Some(j) => out_string(&j),
            None => std::ptr::null_mut(),
        }
    })
}

/// `AF_CALL_FUNCTION` or `AF_CALL_ENTITY_LOOKUP`; -1 for a dead handle.
#[no_mangle]
pub extern "C" fn af_call_kind(call: *mut af_call) -> i32 {
    boundary_or(-1, || reading(call, -1, |c| c.kind() as i32))
}

/// For entity lookups, the entity's name (owned: free it); else NULL.
#[no_mangle]
pub extern "C" fn af_call_entity_copy(call: *mut af_call) -> *mut c_char {
    boundary(|| {
        match live(call)
            .ok()
            .and_then(|c| c.entity_name().map(out_string))
        {
            Some(p) => p,
            None => std::ptr::null_mut(),
        }
    })
}

/// `AF_PLATFORM_OTHER`, `_APPLE` or `_ANDROID`; -1 for a dead handle.
#[no_mangle]
pub extern "C" fn af_call_platform(call: *mut af_call) -> i32 {
    boundary_or(-1, || reading(call, -1, |c| c.platform() as i32))
}

/// 1 when the app is in the foreground for this run (apple), else 0.
#[no_mangle]
pub extern "C" fn af_call_is_foreground(call: *mut af_call) -> u8 {
    boundary(|| reading(call, 0, |c| u8::from(c.is_foreground())))
}

/// The calling package (lent until the call ends; "" in-process). NULL for a dead handle.
#[no_mangle]
pub extern "C" fn af_call_caller_package(call: *mut af_call) -> *const c_char {
    boundary(|| {
        reading(call, std::ptr::null(), |c| {
            lend(c, Some(c.caller_package_terminated()))
        })
    })
}

/// 1 when the call has been cancelled or has timed out, else 0. A NULL or dead handle
/// answers 1 too: its call has ended, so nothing should go on for it (the status of your
/// completion says how it ended).
#[no_mangle]
pub extern "C" fn af_call_is_cancelled(call: *mut af_call) -> u8 {
    boundary_or(1, || match resolve_handle(af_call::number(call)) {
        HandleRef::Live(c, _) => u8::from(c.is_cancelled()),
        _ => 1,
    })
}

/// Registers `cb` to run at most once, when the call is cancelled or times out (at once,
/// on this thread, if it already was). `free_user_data` (may be NULL) runs exactly once:
/// right after `cb` ran, when removed with `af_call_on_cancel_remove`, when the call ends
/// without cancellation, or before this returns on an error status (NULL `cb`, a dead
/// handle: `AF_ERR_INVALID_HANDLE`; a call that has just ended:
/// `AF_ERR_ALREADY_COMPLETED`). `*out_id` (may be NULL) receives the registration's id,
/// 0 on error.
#[no_mangle]
pub unsafe extern "C" fn af_call_on_cancel(
    call: *mut af_call,
    cb: af_cancel_fn,
    user_data: *mut c_void,
    free_user_data: af_free_fn,
    out_id: *mut u64,
) -> af_status {
    boundary(|| {
        let set_id = |id: u64| {
            if !out_id.is_null() {
                // SAFETY: the host's out pointer, valid for this call.
                unsafe { *out_id = id };
            }
        };
        set_id(0);
        // released on every error path below, exactly once
        let data = ForeignData {
            ptr: user_data,
            free: free_user_data,
        };
        let Some(f) = cb else {
            return fail(AF_ERR_NULL, "cb is NULL");
        };
        let callback: Box<dyn FnOnce() + Send> = Box::new(move || {
            let data = data;
            // SAFETY: the host's callback with its own data; data is released after it.
            unsafe { f(data.ptr) }
        });
        let register = |c: &Call, callback: Box<dyn FnOnce() + Send>| match c.on_cancel(callback) {
            OnCancel::Registered(id) | OnCancel::RanNow(id) => {
                set_id(id);
                AF_OK
            }
            OnCancel::Ended => fail(
                AF_ERR_ALREADY_COMPLETED,
                &format!(
                    "the call to {} has ended; the cancel callback will not run \
                     (its user_data was released)",
                    c.function_id()
                ),
            ),
        };
        // inside the call's own callback: no look-up (and no lock held, so `cb` may run at once)
        let mut callback = Some(callback);
        if let Some(st) = on_current(af_call::number(call), false, |c| {
            register(c, callback.take().expect("once"))
        }) {
            return st;
        }
        match live(call) {
            Ok(c) => register(&c, callback.take().expect("not taken")),
            Err(s) => s, // `callback` is dropped here: its data released
        }
    })
}

/// Unregisters a cancel callback by the id `af_call_on_cancel` gave: its `free_user_data`
/// runs now (or, when `cb` is running on another thread, right after it returns).
/// `AF_ERR_NOT_FOUND` for an id this call does not know (or whose callback has run).
#[no_mangle]
pub extern "C" fn af_call_on_cancel_remove(call: *mut af_call, id: u64) -> af_status {
    boundary(|| {
        let c = match live(call) {
            Ok(c) => c,
            Err(s) => return s,
        };
        if c.remove_on_cancel(id) {
            AF_OK
        } else {
            fail(
                AF_ERR_NOT_FOUND,
                &format!(
                    "the call to {} has no cancel callback with id {id} (never registered, removed, or run already)",
                    c.function_id()
                ),
            )
        }
    })
}

/// Sets an item: `json` (borrowed) must be valid JSON; items are shared by every delegate
/// and the handler of one call. `key` borrowed.
#[no_mangle]
pub unsafe extern "C" fn af_call_item_set(
    call: *mut af_call,
    key: *const c_char,
    json: *const c_char,
) -> af_status {
    boundary(|| {
        let c = match live(call) {
            Ok(c) => c,
            Err(s) => return s,
        };
        // SAFETY: checked by the helpers.
        let key = match unsafe { str_arg(key, "key") } {
            Ok(k) => k,
            Err(s) => return s,
        };
        let json = match unsafe { str_arg(json, "json") } {
            Ok(j) => j,
            Err(s) => return s,
        };
        match c.item_set(key, json) {
            Ok(()) => AF_OK,
            Err(m) => fail(AF_ERR_INVALID, &m),
        }
    })
}

/// An item's JSON (owned: free it), or NULL when there is none (or on error).
#[no_mangle]
pub unsafe extern "C" fn af_call_item_get_json(
    call: *mut af_call,
    key: *const c_char,
) -> *mut c_char {
    boundary(|| {
        let Ok(c) = live(call) else {
            return std::ptr::null_mut();
        };
        // SAFETY: checked by the helper.
        let Ok(key) = (unsafe { str_arg(key, "key") }) else {
            return std::ptr::null_mut();
        };
        match c.item_get(key) {
            Some(v) => out_string(&v),
            None => std::ptr::null_mut(),
        }
    })
}

/// Writes `message` (borrowed) to the dispatcher's log sink (`af_set_log_callback`) at
/// `level` (0 debug, 1 info, 2 warn, 3 error), prefixed with the function id. Bindings
/// report errors raised in `on_invoked` this way, so they reach the core's log.
#[no_mangle]
pub unsafe extern "C" fn af_call_log(
    call: *mut af_call,
    level: i32,
    message: *const c_char,
) -> af_status {
    boundary(|| {
        let c = match live(call) {
            Ok(c) => c,
            Err(s) => return s,
        };
        let level = match level {
            0 => crate::engine::log::LogLevel::Debug,
            1 => crate::engine::log::LogLevel::Info,
            2 => crate::engine::log::LogLevel::Warn,
            3 => crate::engine::log::LogLevel::Error,
            other => return fail(AF_ERR_INVALID, &format!("level {other} is not 0 to 3")),
        };
        // SAFETY: checked by the helper.
        match unsafe { str_arg(message, "message") } {
            Ok(m) => {
                c.log(level, &format!("{}: {m}", c.function_id()));
                AF_OK
            }
            Err(s) => s,
        }
    })
}

/// Sets the dialog text (borrowed) returned in the outcome's `dialog`; the last one wins.
#[no_mangle]
pub unsafe extern "C" fn af_call_say(call: *mut af_call, text: *const c_char) -> af_status {
    boundary(|| {
        let c = match live(call) {
            Ok(c) => c,
            Err(s) => return s,
        };
        // SAFETY: checked by the helper.
        match unsafe { str_arg(text, "text") } {
            Ok(t) => {
                c.say(t);
                AF_OK
            }
            Err(s) => s,
        }
    })
}

/// Attaches host data (a DI scope) to the call, read back with `af_call_host_data` by
/// delegates, the handler and lookups of this call. `free_data` (may be NULL) releases it
/// exactly once: when another `af_call_set_host_data` replaces it (even with the same
/// pointer), or after the call's scope-end hook when the call ends; on an error status
/// (a dead handle, or `AF_ERR_ALREADY_COMPLETED` for a call that has just ended) before
/// this returns.
#[no_mangle]
pub unsafe extern "C" fn af_call_set_host_data(
    call: *mut af_call,
    data: *mut c_void,
    free_data: af_free_fn,
) -> af_status {
    boundary(|| {
        let guard = ForeignData {
            ptr: data,
            free: free_data,
        };
        let c = match live(call) {
            Ok(c) => c,
            Err(s) => return s,
        };
        let guard: Option<crate::engine::call::Release> =
            guard.free.is_some().then(|| Box::new(guard) as _);
        if c.set_host_data_with(data as usize, guard) {
            AF_OK
        } else {
            fail(
                AF_ERR_ALREADY_COMPLETED,
                &format!(
                    "the call to {} has ended; the host data was released",
                    c.function_id()
                ),
            )
        }
    })
}

/// The host data attached to the call (or to the call a lookup serves); NULL when none.
#[no_mangle]
pub extern "C" fn af_call_host_data(call: *mut af_call) -> *mut c_void {
    boundary(|| reading(call, std::ptr::null_mut(), |c| c.host_data() as *mut c_void))
}

/// The `host_context` of the invocation that started the call (for an entity lookup, of
/// the call it serves); NULL when none was set, for a call the library started itself (an
/// MCP `tools/call`), and for a NULL or dead handle (`af_last_error` says which). Readable
/// from every callback that receives the call: scope hooks, delegates, the permission
/// hook, the handler and lookups.
#[no_mangle]
pub extern "C" fn af_call_invocation_context(call: *mut af_call) -> *mut c_void {
    boundary(|| {
        reading(call, std::ptr::null_mut(), |c| {
            c.invocation_context() as *mut c_void
        })
    })
}

/// The dialog said so far with `af_call_say` by any layer (for an entity lookup, its
/// call's, where its `af_call_say` goes), owned: free it with `af_string_free`. NULL when
/// nothing was said yet, and for a NULL or dead handle (`af_last_error` says which).
#[no_mangle]
pub extern "C" fn af_call_dialog_copy(call: *mut af_call) -> *mut c_char {
    boundary(|| match live(call) {
        Ok(c) => c.dialog().map_or(std::ptr::null_mut(), |d| out_string(&d)),
        Err(_) => std::ptr::null_mut(),
    })
}

fn completion_status(call: *mut af_call, r: Result<(), Box<CompleteError>>) -> af_status {
    match r.map_err(|e| *e) {
        Ok(()) => AF_OK,
        Err(e @ CompleteError::AlreadyCompleted(_)) => {
            if let HandleRef::Live(c, _) = resolve_handle(af_call::number(call)) {
                c.log(crate::engine::log::LogLevel::Warn, &format!("{e}"));
            }
            fail(AF_ERR_ALREADY_COMPLETED, &e.to_string())
        }
        Err(e) => fail(AF_ERR_NOT_WAITING, &e.to_string()),
    }
}

fn completing(call: *mut af_call, what: &str) -> Result<Arc<Call>, af_status> {
    if call.is_null() {
        return Err(fail(AF_ERR_NULL, "the call is NULL"));
    }
    match resolve_handle(af_call::number(call)) {
        HandleRef::Live(c, 0) => Ok(c),
        HandleRef::Live(..) => Err(fail(
            AF_ERR_INVALID_HANDLE,
            "this is a gate handle, not a call",
        )),
        HandleRef::Ended(id) => {
            log_late(af_call::number(call), what);
            Err(fail(
                AF_ERR_ALREADY_COMPLETED,
                &format!("the call to {id} has ended (completed, cancelled or timed out); {what} ignored"),
            ))
        }
        HandleRef::Unknown => Err(fail(AF_ERR_INVALID_HANDLE, "not a live call handle")),
    }
}

/// Completes the handler (or lookup) with its result JSON (borrowed; NULL is `null`, for
/// void functions). The result is checked against the declared type: a mismatch makes the
/// outcome `HandlerFailed`. Invalid UTF-8 completes the call `HandlerFailed` and returns
/// `AF_ERR_UTF8`. A second completion, or one after the call ended, returns
/// `AF_ERR_ALREADY_COMPLETED` and is ignored (and logged).
#[no_mangle]
pub unsafe extern "C" fn af_call_return(
    call: *mut af_call,
    result_json: *const c_char,
) -> af_status {
    boundary(|| {
        if call.is_null() {
            return fail(AF_ERR_NULL, "the call is NULL");
        }
        // SAFETY: checked by the helper.
        let text = unsafe { opt_str_arg(result_json, "result_json") };
        // made in place as the answer it is handed over as
        let answer = Completion::Handler(match text {
            // with the room for the outcome around it (no second allocation for that)
            Ok(r) => Ok(r.map(crate::model::outcome::result_buffer)),
            Err(_) => Err((
                ErrorCode::HandlerFailed,
                "the handler returned invalid UTF-8".into(),
            )),
        });
        let r = match complete(call, Some(answer), "a completion") {
            Ok(r) => r,
            Err(s) => return s,
        };
        match (text, completion_status(call, r)) {
            (Err(s), AF_OK) => fail(
                s,
                "result_json is not valid UTF-8; the call failed with HandlerFailed",
            ),
            (_, status) => status,
        }
    })
}

/// Completes the call `call` names with `answer` (a `Completion::Handler`): without
/// taking a reference to it when the result can be handed over at once. `Err` with the
/// status of a dead or wrong handle; a refusal comes boxed (the common answer, handed
/// over, then travels in registers).
#[inline(always)]
fn complete(
    call: *mut af_call,
    mut answer: Option<Completion>,
    what: &str,
) -> Result<Result<(), Box<CompleteError>>, af_status> {
    // inside the handler's own callback: handed over without a look-up
    let here = on_current(af_call::number(call), false, |c| {
        match c.answer_inline(None, Op::Handler, &mut answer) {
            Answered::Done(r) => Some(r),
            Answered::Slow(_) => None,
        }
    })
    .flatten();
    if let Some(r) = here {
        return Ok(r);
    }
    let Some(Completion::Handler(result)) = answer else {
        unreachable!("a handler result is left in place unless handed over");
    };
    match Call::complete_handle(af_call::number(call), result) {
        Ok(r) => Ok(r.map_err(Box::new)),
        Err(result) => completing(call, what).map(|c| c.complete(result).map_err(Box::new)),
    }
}

/// Completes the handler (or lookup) with an error: `code` is an `AF_CODE_*` value
/// (others become `HandlerFailed`, returning `AF_ERR_INVALID`), `message` borrowed (NULL
/// is a generic message; invalid UTF-8 fails the call with a generic message and returns
/// `AF_ERR_UTF8`).
#[no_mangle]
pub unsafe extern "C" fn af_call_fail(
    call: *mut af_call,
    code: i32,
    message: *const c_char,
) -> af_status {
    boundary(|| {
        if call.is_null() {
            return fail(AF_ERR_NULL, "the call is NULL");
        }
        // SAFETY: checked by the helper.
        let (msg, bad_msg) = match unsafe { opt_str_arg(message, "message") } {
            Ok(Some(m)) => (m.to_owned(), AF_OK),
            Ok(None) => ("the handler failed".to_owned(), AF_OK),
            Err(s) => ("the handler failed".to_owned(), s),
        };
        let (code, bad) = match ErrorCode::from_i32(code) {
            Some(k) => (k, false),
            None => (ErrorCode::HandlerFailed, true),
        };
        let r = match complete(
            call,
            Some(Completion::Handler(Err((code, msg)))),
            "a failure",
        ) {
            Ok(r) => r,
            Err(s) => return s,
        };
        match completion_status(call, r) {
            AF_OK if bad => fail(
                AF_ERR_INVALID,
                "code is not an AF_CODE_* value; the call failed with HandlerFailed",
            ),
            // like af_gate_deny: the call still fails (with a generic message) and the
            // status says why the message was not used
            AF_OK if bad_msg != AF_OK => fail(
                bad_msg,
                "message is not valid UTF-8; the call failed with a generic message",
            ),
            s => s,
        }
    })
}

/// `FunctionNotFound`
pub const AF_CODE_FUNCTION_NOT_FOUND: i32 = 1;
/// `Disabled`
pub const AF_CODE_DISABLED: i32 = 2;
/// `InvalidArgument`
pub const AF_CODE_INVALID_ARGUMENT: i32 = 3;
/// `EntityNotFound`
pub const AF_CODE_ENTITY_NOT_FOUND: i32 = 4;
/// `Denied`
pub const AF_CODE_DENIED: i32 = 5;
/// `PermissionDenied`
pub const AF_CODE_PERMISSION_DENIED: i32 = 6;
/// `Cancelled`
pub const AF_CODE_CANCELLED: i32 = 7;
/// `TimedOut`
pub const AF_CODE_TIMED_OUT: i32 = 8;
/// `HandlerFailed`
pub const AF_CODE_HANDLER_FAILED: i32 = 9;
/// `LimitExceeded`
pub const AF_CODE_LIMIT_EXCEEDED: i32 = 10;
/// `NotSupported`
pub const AF_CODE_NOT_SUPPORTED: i32 = 11;
/// `InternalError`
pub const AF_CODE_INTERNAL_ERROR: i32 = 12;
