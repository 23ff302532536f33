//! The MCP server: the dispatcher's default session, sessions of their own, stdio.

use super::*;
use crate::mcp::{McpConfig, Session};
use serde_json::Value;
use std::sync::Arc;

/// An MCP session (its negotiation state, its own agent view, its calls in flight).
/// Thread-safe. Caller owns it and must call `af_mcp_session_free`.
pub struct af_mcp_session {
    _private: [u8; 0],
}

impl Handle for af_mcp_session {
    type Target = Session;
    type Kind = Shared;
    const WHAT: &'static str = "the session";
}

/// Receives a server-initiated MCP message, borrowed for the callback, to send on the
/// host's transport: `notifications/tools/list_changed`, and in the 2026-07-28 revision
/// a `subscriptions/listen` stream's acknowledgment and notifications. Called from any
/// thread (the one that changed the registry or the view); a stream's acknowledgment is
/// sent from inside the handle call that opened it, before that call returns.
pub type af_mcp_notify_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, message_json: *const c_char)>;

/// `AF_ERR_INVALID` naming the feature in a build without the `mcp` feature (Cargo.toml),
/// for the functions that would otherwise only keep a setting.
#[cfg(feature = "mcp")]
fn left_out() -> Option<af_status> {
    None
}

#[cfg(not(feature = "mcp"))]
fn left_out() -> Option<af_status> {
    Some(fail(AF_ERR_INVALID, &crate::mcp::left_out()))
}

pub(crate) fn config_from(json: &str, base: &McpConfig) -> Result<McpConfig, af_status> {
    let v: Value = serde_json::from_str(json)
        .map_err(|e| fail(AF_ERR_INVALID, &format!("config_json: invalid JSON: {e}")))?;
    let o = v
        .as_object()
        .ok_or_else(|| fail(AF_ERR_INVALID, "config_json: expected an object"))?;
    let mut c = base.clone();
    for (k, val) in o {
        let bad = || fail(AF_ERR_INVALID, &format!("config_json.{k}: wrong type"));
        match k.as_str() {
            "serverName" => c.server_name = val.as_str().ok_or_else(bad)?.to_owned(),
            "serverVersion" => c.server_version = val.as_str().ok_or_else(bad)?.to_owned(),
            "serverTitle" => c.server_title = val.as_str().map(str::to_owned),
            "instructions" => c.instructions = val.as_str().map(str::to_owned),
            "pageSize" => c.page_size = val.as_u64().ok_or_else(bad)? as usize,
            "maxMessageBytes" => c.max_message_bytes = val.as_u64().filter(|n| *n > 0).ok_or_else(bad)? as usize,
            "maxSubscriptions" => c.max_subscriptions = val.as_u64().ok_or_else(bad)? as usize,
            other => {
                return Err(fail(
                    AF_ERR_INVALID,
                    &format!("config_json.{other}: unknown key; allowed: serverName, serverVersion, serverTitle, instructions, pageSize, maxMessageBytes, maxSubscriptions"),
                ))
            }
        }
    }
    Ok(c)
}

/// Configures the MCP server (borrowed JSON): `{"serverName", "serverVersion",
/// "serverTitle", "instructions", "pageSize" (tools per tools/list page; 0 is all),
/// "maxMessageBytes" (largest message, default 8 MiB), "maxSubscriptions" (open
/// `subscriptions/listen` streams per session, default 16)}`, any subset. Applies to
/// sessions made afterwards, and to the dispatcher's own session (`af_mcp_handle_json`),
/// which starts over.
#[no_mangle]
pub unsafe extern "C" fn af_mcp_configure(
    d: *mut af_dispatcher,
    config_json: *const c_char,
) -> af_status {
    boundary(|| {
        if let Some(st) = left_out() {
            return st;
        }
        // SAFETY: checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let json = try_status!(unsafe { str_arg(config_json, "config_json") });
        let c = try_status!(config_from(json, &d.mcp_config.lock()));
        *d.mcp_config.lock() = c;
        *d.mcp.lock() = None;
        AF_OK
    })
}

/// One message on a session: NULL (with `af_last_error`) for a NULL message or when
/// there is no response. The length is checked before anything else (the host's text
/// is neither copied nor validated past the session's `maxMessageBytes`); invalid UTF-8
/// gets a JSON-RPC parse error.
unsafe fn handle_on(s: &Session, message_json: *const c_char) -> *mut c_char {
    if message_json.is_null() {
        set_last_error("message_json is NULL");
        return std::ptr::null_mut();
    }
    // SAFETY: the caller passes a NUL-terminated string valid for this call.
    let bytes = unsafe { std::ffi::CStr::from_ptr(message_json) }.to_bytes();
    match s.handle_bytes(bytes) {
        Some(r) => out_string(&r),
        None => std::ptr::null_mut(),
    }
}

fn default_session(d: &FfiDispatcher) -> Result<Arc<Session>, af_status> {
    let mut slot = d.mcp.lock();
    if let Some(s) = &*slot {
        return Ok(s.clone());
    }
    let s = Session::new(&d.d, d.mcp_config.lock().clone(), Value::Null)
        .map_err(|e| fail(AF_ERR_INVALID, &e))?;
    s.set_notify(d.mcp_notify.lock().clone());
    *slot = Some(s.clone());
    Ok(s)
}

fn c_notify(
    cb: af_mcp_notify_fn,
    user_data: *mut c_void,
    free: af_free_fn,
) -> Option<crate::mcp::Notify> {
    let data = ForeignData {
        ptr: user_data,
        free,
    };
    cb.map(|f| {
        let n: crate::mcp::Notify = Arc::new(move |msg: &str| {
            let data = &data;
            let c = to_cstring(msg);
            // SAFETY: the host's callback with its own data; msg borrowed for the call.
            unsafe { f(data.ptr, c.as_ptr()) }
        });
        n
    })
}

/// Handles one MCP JSON-RPC message (borrowed) on the dispatcher's own session and
/// returns the response (owned), or NULL when there is none (a notification) or on a
/// NULL argument (`af_last_error`). A `tools/call` blocks until its outcome; to keep
/// reading while calls run, use one thread per message or `af_mcp_serve_stdio`. Malformed
/// messages get JSON-RPC errors, never NULL.
#[no_mangle]
pub unsafe extern "C" fn af_mcp_handle_json(
    d: *mut af_dispatcher,
    message_json: *const c_char,
) -> *mut c_char {
    boundary(|| {
        // SAFETY: checked by the helpers.
        let Ok(d) = (unsafe { af_dispatcher::get(d) }) else {
            return std::ptr::null_mut();
        };
        let Ok(s) = default_session(d) else {
            return std::ptr::null_mut();
        };
        // SAFETY: a string borrowed for this call (checked by the helper).
        unsafe { handle_on(&s, message_json) }
    })
}

/// Sets where the dispatcher's own session sends notifications (`list_changed`);
/// replaces the previous sink. NULL `cb` removes it (and ends its open
/// `subscriptions/listen` streams). Set it before the first message: a session without a
/// sink answers `listChanged: false` and refuses `subscriptions/listen`.
#[no_mangle]
pub unsafe extern "C" fn af_mcp_set_notify(
    d: *mut af_dispatcher,
    cb: af_mcp_notify_fn,
    user_data: *mut c_void,
    free_user_data: af_free_fn,
) -> af_status {
    boundary(|| {
        let n = c_notify(cb, user_data, free_user_data);
        if let Some(st) = left_out() {
            return st;
        }
        // SAFETY: checked by the helper.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        *d.mcp_notify.lock() = n.clone();
        if let Some(s) = &*d.mcp.lock() {
            s.set_notify(n);
        }
        AF_OK
    })
}

/// Serves the dispatcher as an MCP server on the process's stdin/stdout
/// (newline-delimited JSON-RPC) until stdin ends, then waits for the calls in flight;
/// blocks. Each tool call runs on a worker thread of the transport ("appfunctions-mcp-N"):
/// one is started whenever a call arrives and none is free (up to 32; beyond that calls
/// wait and the log says so), so a handler blocked in host code holds up neither pings
/// nor other calls, and `notifications/cancelled` ends the call on a completion thread.
/// Logs nothing to stdout. Never raises `SIGPIPE`: when the client closes its end of stdout
/// (it went away mid-call), the session ends as if stdin had ended (the calls in flight
/// finish, their answers are dropped, the dispatcher's log says so) and this returns
/// `AF_OK`.
#[no_mangle]
pub unsafe extern "C" fn af_mcp_serve_stdio(d: *mut af_dispatcher) -> af_status {
    boundary(|| {
        // SAFETY: checked by the helper.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let s = match Session::new(&d.d, d.mcp_config.lock().clone(), Value::Null) {
            Ok(s) => s,
            Err(e) => return fail(AF_ERR_INVALID, &e),
        };
        // stdout written without SIGPIPE: a C host does not ignore it, and a client that goes
        // away mid-call must end the session, not the host
        let stdin = std::io::stdin();
        match crate::mcp::stdio::serve(s, stdin.lock(), super::stdout::stdout()) {
            Ok(()) => AF_OK,
            Err(e) => fail(AF_ERR_INTERNAL, &format!("stdio: {e}")),
        }
    })
}

/// Creates an MCP session (one per connection) with its own agent view of
/// `metadata_json` (borrowed JSON object; NULL is `{}`). NULL on error.
#[no_mangle]
pub unsafe extern "C" fn af_mcp_session_new(
    d: *mut af_dispatcher,
    metadata_json: *const c_char,
) -> *mut af_mcp_session {
    boundary(|| {
        // SAFETY: checked by the helpers.
        let (Ok(d), Ok(meta)) = (unsafe { af_dispatcher::get(d) }, unsafe {
            metadata_arg(metadata_json)
        }) else {
            return std::ptr::null_mut();
        };
        match Session::new(&d.d, d.mcp_config.lock().clone(), meta) {
            Ok(s) => af_mcp_session::new_shared(s),
            Err(e) => {
                set_last_error(&e);
                std::ptr::null_mut()
            }
        }
    })
}

/// Handles one message on a session; as `af_mcp_handle_json`.
#[no_mangle]
pub unsafe extern "C" fn af_mcp_session_handle_json(
    s: *mut af_mcp_session,
    message_json: *const c_char,
) -> *mut c_char {
    boundary(|| {
        // SAFETY: checked by the helper.
        let Ok(s) = (unsafe { af_mcp_session::get(s) }) else {
            return std::ptr::null_mut();
        };
        // SAFETY: a string borrowed for this call (checked by the helper).
        unsafe { handle_on(s, message_json) }
    })
}

/// Sets where a session sends notifications; NULL `cb` removes it (and ends its open
/// `subscriptions/listen` streams). Without a sink the session answers
/// `listChanged: false` and refuses `subscriptions/listen`.
#[no_mangle]
pub unsafe extern "C" fn af_mcp_session_set_notify(
    s: *mut af_mcp_session,
    cb: af_mcp_notify_fn,
    user_data: *mut c_void,
    free_user_data: af_free_fn,
) -> af_status {
    boundary(|| {
        let n = c_notify(cb, user_data, free_user_data);
        // SAFETY: checked by the helper.
        try_status!(unsafe { af_mcp_session::get(s) }).set_notify(n);
        AF_OK
    })
}

/// Replaces the metadata of a session's view (borrowed JSON object; NULL is `{}`); the
/// client gets `notifications/tools/list_changed`.
#[no_mangle]
pub unsafe extern "C" fn af_mcp_session_set_metadata(
    s: *mut af_mcp_session,
    metadata_json: *const c_char,
) -> af_status {
    boundary(|| {
        // SAFETY: checked by the helpers.
        let s = try_status!(unsafe { af_mcp_session::get(s) });
        let meta = try_status!(unsafe { metadata_arg(metadata_json) });
        match s.view().set_metadata(meta) {
            Ok(()) => AF_OK,
            Err(e) => fail(AF_ERR_INVALID, &e),
        }
    })
}

/// Frees a session (calls in flight finish). Calling with NULL is fine.
#[no_mangle]
pub unsafe extern "C" fn af_mcp_session_free(s: *mut af_mcp_session) {
    boundary(|| {
        // SAFETY: made by af_mcp_session_new; the host frees it once.
        unsafe { af_mcp_session::free_shared(s) }
    })
}
