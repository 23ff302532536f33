//! Exports, toolkits, the metadata schema, agent views and the MCP server.

use super::dispatcher::{
    af_invocation, af_outcome_fn, dispatcher, error_status, invocation, try_status, FfiDispatcher,
    SendPtr,
};
use super::*;
use crate::export::Format;
use crate::mcp::{McpConfig, Session};
use crate::view::{ToolkitText, ToolkitTexts, View};
use serde_json::Value;
use std::sync::Arc;

/// An agent view: what one conversation's model sees of a dispatcher (collapsed
/// toolkits, conditions over metadata, templated descriptions, output tools).
/// Thread-safe. Caller owns it and must call `af_view_free`.
pub struct af_view {
    _private: [u8; 0],
}

/// An MCP session (its negotiation state, its own agent view, its calls in flight).
/// Thread-safe. Caller owns it and must call `af_mcp_session_free`.
pub struct af_mcp_session {
    _private: [u8; 0],
}

/// Where a dynamic toolkit text is written (`af_text_set`), valid during the callback.
pub struct af_text {
    _private: [u8; 0],
}

/// Asks for a toolkit's text when it is needed: `which` is `AF_TOOLKIT_FUNCTION_RESULT`
/// or `AF_TOOLKIT_SYSTEM_PROMPT`; `toolkit` and `metadata_json` (the view's metadata)
/// are borrowed. Call `af_text_set(out, text)` to answer; not calling it uses the
/// static text. Called on the thread that renders the view.
pub type af_toolkit_text_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        toolkit: *const c_char,
        which: i32,
        metadata_json: *const c_char,
        out: *mut af_text,
    ),
>;

/// The text returned once when a collapsed toolkit expands.
pub const AF_TOOLKIT_FUNCTION_RESULT: i32 = 0;
/// The text added to the system instructions every turn while a toolkit is expanded.
pub const AF_TOOLKIT_SYSTEM_PROMPT: i32 = 1;

/// Receives a server-initiated MCP message, borrowed for the callback, to send on the
/// host's transport: `notifications/tools/list_changed`, and in the 2026-07-28 revision
/// a `subscriptions/listen` stream's acknowledgment and notifications. Called from any
/// thread (the one that changed the registry or the view); a stream's acknowledgment is
/// sent from inside the handle call that opened it, before that call returns.
pub type af_mcp_notify_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, message_json: *const c_char)>;

unsafe fn format_arg(format: *const c_char) -> Result<Format, af_status> {
    // SAFETY: checked by the helper.
    let name = unsafe { str_arg(format, "format") }?;
    name.parse::<Format>()
        .map_err(|e| fail(AF_ERR_INVALID, &e.to_string()))
}

/// Exports the registry (owned text): `"mcp"`, `"openai"`, `"openai-chat"`,
/// `"anthropic"`, `"gemini"` give a JSON tool list of every enabled function;
/// `"android-xml"` gives Android's AppFunctions schema XML; `"swift-app-intents"` the App
/// Intents Swift source of every declared function (docs/apple.md; what App Intents cannot
/// express is left out, named in the file's header and logged as a warning). NULL on error
/// (unknown format, a name a vendor refuses: `af_last_error`).
#[no_mangle]
pub unsafe extern "C" fn af_export_copy(
    d: *mut af_dispatcher,
    format: *const c_char,
) -> *mut c_char {
    boundary(std::ptr::null_mut(), || {
        // SAFETY: checked by the helpers.
        let (Ok(d), Ok(f)) = (unsafe { dispatcher(d) }, unsafe { format_arg(format) }) else {
            return std::ptr::null_mut();
        };
        match d.export(f) {
            Ok(s) => out_string(&s),
            Err(e) => {
                set_last_error(&e.to_string());
                std::ptr::null_mut()
            }
        }
    })
}

struct TextSlot(Option<String>);

struct CTexts {
    f: unsafe extern "C" fn(*mut c_void, *const c_char, i32, *const c_char, *mut af_text),
    data: ForeignData,
}

impl ToolkitTexts for CTexts {
    fn text(&self, toolkit: &str, which: ToolkitText, metadata: &Value) -> Option<String> {
        let name = to_cstring(toolkit);
        let meta = to_cstring(&metadata.to_string());
        let mut slot = TextSlot(None);
        // SAFETY: the host's callback; the slot outlives the call.
        unsafe {
            (self.f)(
                self.data.ptr,
                name.as_ptr(),
                which as i32,
                meta.as_ptr(),
                &mut slot as *mut TextSlot as *mut af_text,
            )
        };
        slot.0
    }
}

/// Answers a dynamic toolkit text (`text` borrowed). Only valid inside the
/// `af_toolkit_text_fn` callback that received `out`.
#[no_mangle]
pub unsafe extern "C" fn af_text_set(out: *mut af_text, text: *const c_char) -> af_status {
    boundary(AF_ERR_INTERNAL, || {
        if out.is_null() {
            return fail(AF_ERR_NULL, "out is NULL");
        }
        // SAFETY: checked by the helper.
        let t = try_status!(unsafe { str_arg(text, "text") });
        // SAFETY: out is the slot lent to the running callback.
        unsafe { (*(out as *mut TextSlot)).0 = Some(t.to_owned()) };
        AF_OK
    })
}

/// Defines a toolkit: `{"name", "description"?, "functionResult"?, "systemPrompt"?}`
/// (borrowed). With a description it collapses in agent views into one container tool.
/// `texts` (may be NULL) answers the texts dynamically; ownership of `user_data` as for
/// `af_register_function`. Define a toolkit before the functions naming it.
#[no_mangle]
pub unsafe extern "C" fn af_define_toolkit(
    d: *mut af_dispatcher,
    json: *const c_char,
    texts: af_toolkit_text_fn,
    user_data: *mut c_void,
    free_user_data: af_free_fn,
) -> af_status {
    boundary(AF_ERR_INTERNAL, || {
        let data = ForeignData {
            ptr: user_data,
            free: free_user_data,
        };
        let provider: Option<Arc<dyn ToolkitTexts>> =
            texts.map(|f| Arc::new(CTexts { f, data }) as Arc<dyn ToolkitTexts>);
        // SAFETY: checked by the helpers.
        let d = try_status!(unsafe { dispatcher(d) });
        let json = try_status!(unsafe { str_arg(json, "json") });
        match d.define_toolkit(json, provider) {
            Ok(()) => AF_OK,
            Err(e) => error_status(&e),
        }
    })
}

/// Declares the metadata schema (borrowed): a JSON Schema object with `properties`, or an
/// array of property names. Conditions and `{metadata.X}` placeholders registered later
/// must name its properties.
#[no_mangle]
pub unsafe extern "C" fn af_set_metadata_schema(
    d: *mut af_dispatcher,
    json: *const c_char,
) -> af_status {
    boundary(AF_ERR_INTERNAL, || {
        // SAFETY: checked by the helpers.
        let d = try_status!(unsafe { dispatcher(d) });
        let json = try_status!(unsafe { str_arg(json, "json") });
        match d.set_metadata_schema(json) {
            Ok(()) => AF_OK,
            Err(e) => error_status(&e),
        }
    })
}

unsafe fn metadata_arg(json: *const c_char) -> Result<Value, af_status> {
    // SAFETY: checked by the helper.
    match unsafe { opt_str_arg(json, "metadata_json") }? {
        None => Ok(Value::Null),
        Some(t) => serde_json::from_str(t)
            .map_err(|e| fail(AF_ERR_INVALID, &format!("metadata_json: invalid JSON: {e}"))),
    }
}

unsafe fn view<'a>(v: *const af_view) -> Result<&'a View, af_status> {
    if v.is_null() {
        return Err(fail(AF_ERR_NULL, "the view is NULL"));
    }
    // SAFETY: made by af_view_new and not freed.
    Ok(unsafe { &*(v as *const View) })
}

/// Creates a view with its metadata (a JSON object, borrowed; NULL is `{}`). NULL on
/// error. The view keeps the dispatcher's registry alive; free it with `af_view_free`.
#[no_mangle]
pub unsafe extern "C" fn af_view_new(
    d: *mut af_dispatcher,
    metadata_json: *const c_char,
) -> *mut af_view {
    boundary(std::ptr::null_mut(), || {
        // SAFETY: checked by the helpers.
        let (Ok(d), Ok(meta)) = (unsafe { dispatcher(d) }, unsafe {
            metadata_arg(metadata_json)
        }) else {
            return std::ptr::null_mut();
        };
        match View::new(&d.d, meta) {
            Ok(v) => Box::into_raw(Box::new(v)) as *mut af_view,
            Err(e) => {
                set_last_error(&e);
                std::ptr::null_mut()
            }
        }
    })
}

/// Frees a view. Calling with NULL is fine.
#[no_mangle]
pub unsafe extern "C" fn af_view_free(v: *mut af_view) {
    boundary((), || {
        if !v.is_null() {
            // SAFETY: made by af_view_new; freed once.
            drop(unsafe { Box::from_raw(v as *mut View) });
        }
    })
}

/// What the model sees now, in an export format (`"mcp"`, `"openai"`, ...; owned). NULL on
/// error.
#[no_mangle]
pub unsafe extern "C" fn af_view_tools_json(v: *mut af_view, format: *const c_char) -> *mut c_char {
    boundary(std::ptr::null_mut(), || {
        // SAFETY: checked by the helpers.
        let (Ok(v), Ok(f)) = (unsafe { view(v) }, unsafe { format_arg(format) }) else {
            return std::ptr::null_mut();
        };
        match v.tools(f) {
            Ok(s) => out_string(&s),
            Err(e) => {
                set_last_error(&e.to_string());
                std::ptr::null_mut()
            }
        }
    })
}

/// Runs what the model called and returns the outcome JSON (owned, never NULL).
/// `inv->function_id` is the tool name the model called; the invocation's platform,
/// caller, cancel token and timeout apply as for `af_execute_json` (borrowed, as there).
/// `args_json` borrowed; NULL is `{}`. A collapsed toolkit's container expands and
/// returns its `functionResult` text as the result; a hidden or collapsed function is
/// `FunctionNotFound` saying how to make it visible; an output function returns its
/// arguments with `"final": true`; a void function's outcome carries the confirmation as
/// its dialog. A NULL view or invocation, a `struct_size` smaller than v1 or invalid
/// UTF-8 is an `InvalidArgument` outcome.
#[no_mangle]
pub unsafe extern "C" fn af_view_execute_json(
    v: *mut af_view,
    inv: *const af_invocation,
    args_json: *const c_char,
) -> *mut c_char {
    use super::dispatcher::error_outcome;
    use crate::model::error::ErrorCode as C;
    let out = boundary(std::ptr::null_mut(), || {
        // SAFETY: checked by the helpers.
        let (v, inv, args) = match unsafe { view_call_args(v, inv, args_json) } {
            Ok(t) => t,
            Err(_) => {
                return error_outcome(
                    C::InvalidArgument,
                    &format!("af_view_execute_json: {}", last_error_text()),
                )
            }
        };
        out_string(
            &v.execute_with(&inv.function_id, args, &inv)
                .outcome
                .to_json(),
        )
    });
    if out.is_null() {
        error_outcome(C::InternalError, "af_view_execute_json failed unexpectedly")
    } else {
        out
    }
}

/// The view, invocation and arguments of a view call.
unsafe fn view_call_args<'a>(
    v: *mut af_view,
    inv: *const af_invocation,
    args_json: *const c_char,
) -> Result<(&'a View, crate::engine::call::Invocation, Option<&'a str>), af_status> {
    // SAFETY: checked by the helpers.
    let v = unsafe { view(v) }?;
    let inv = unsafe { invocation(inv) }?;
    let args = unsafe { opt_str_arg(args_json, "args_json") }?;
    Ok((v, inv, args))
}

/// `af_view_execute_json` that returns at once: `on_outcome` (required) receives the
/// outcome JSON (borrowed for the callback) exactly once, as for `af_execute_async`: on
/// this thread for a container, a refusal or a call that answers inline, else on the
/// thread that finishes the call. On an error status (NULL view, invocation or callback,
/// a `struct_size` smaller than v1, invalid UTF-8) it is never called.
#[no_mangle]
pub unsafe extern "C" fn af_view_execute_async(
    v: *mut af_view,
    inv: *const af_invocation,
    args_json: *const c_char,
    on_outcome: af_outcome_fn,
    user_data: *mut c_void,
) -> af_status {
    boundary(AF_ERR_INTERNAL, || {
        let Some(cb) = on_outcome else {
            return fail(AF_ERR_NULL, "on_outcome is NULL");
        };
        // SAFETY: checked by the helpers.
        let (v, inv, args) = try_status!(unsafe { view_call_args(v, inv, args_json) });
        let data = SendPtr(user_data);
        v.execute_async(&inv.function_id, args, &inv, move |vo| {
            let data = data;
            let json = to_cstring(&vo.outcome.to_json());
            // SAFETY: the host's callback with its own data; json borrowed for the call.
            unsafe { cb(data.0, json.as_ptr()) }
        });
        AF_OK
    })
}

/// A counter that changes whenever what the view shows (its tools or its instructions)
/// may have changed: a registry change (registration, enabling, toolkits), a metadata
/// change, an expansion, a reset. Compare it with the value seen when the tool list was
/// last fetched. 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn af_view_generation(v: *mut af_view) -> u64 {
    boundary(0, || match unsafe { view(v) } {
        Ok(v) => v.generation(),
        Err(_) => 0,
    })
}

/// The system prompts of the toolkits expanded now, joined by blank lines (owned text;
/// "" when none). NULL only for a NULL view.
#[no_mangle]
pub unsafe extern "C" fn af_view_instructions_copy(v: *mut af_view) -> *mut c_char {
    boundary(std::ptr::null_mut(), || match unsafe { view(v) } {
        Ok(v) => out_string(&v.instructions()),
        Err(_) => std::ptr::null_mut(),
    })
}

/// Replaces the view's metadata (a JSON object, borrowed; NULL is `{}`); visibility and
/// descriptions follow at once.
#[no_mangle]
pub unsafe extern "C" fn af_view_set_metadata(
    v: *mut af_view,
    metadata_json: *const c_char,
) -> af_status {
    boundary(AF_ERR_INTERNAL, || {
        // SAFETY: checked by the helpers.
        let v = try_status!(unsafe { view(v) });
        let meta = try_status!(unsafe { metadata_arg(metadata_json) });
        match v.set_metadata(meta) {
            Ok(()) => AF_OK,
            Err(e) => fail(AF_ERR_INVALID, &e),
        }
    })
}

/// Collapses every toolkit of the view again.
#[no_mangle]
pub unsafe extern "C" fn af_view_reset(v: *mut af_view) -> af_status {
    boundary(AF_ERR_INTERNAL, || {
        // SAFETY: checked by the helper.
        try_status!(unsafe { view(v) }).reset();
        AF_OK
    })
}

/// Sets the text tools show when a void function succeeds (borrowed).
#[no_mangle]
pub unsafe extern "C" fn af_view_set_confirmation(
    v: *mut af_view,
    text: *const c_char,
) -> af_status {
    boundary(AF_ERR_INTERNAL, || {
        // SAFETY: checked by the helpers.
        let v = try_status!(unsafe { view(v) });
        v.set_confirmation(try_status!(unsafe { str_arg(text, "text") }));
        AF_OK
    })
}

fn config_from(json: &str, base: &McpConfig) -> Result<McpConfig, af_status> {
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
    boundary(AF_ERR_INTERNAL, || {
        // SAFETY: checked by the helpers.
        let d = try_status!(unsafe { dispatcher(d) });
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
    boundary(std::ptr::null_mut(), || {
        // SAFETY: checked by the helpers.
        let Ok(d) = (unsafe { dispatcher(d) }) else {
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
    boundary(AF_ERR_INTERNAL, || {
        let n = c_notify(cb, user_data, free_user_data);
        // SAFETY: checked by the helper.
        let d = try_status!(unsafe { dispatcher(d) });
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
/// Logs nothing to stdout.
#[no_mangle]
pub unsafe extern "C" fn af_mcp_serve_stdio(d: *mut af_dispatcher) -> af_status {
    boundary(AF_ERR_INTERNAL, || {
        // SAFETY: checked by the helper.
        let d = try_status!(unsafe { dispatcher(d) });
        let s = match Session::new(&d.d, d.mcp_config.lock().clone(), Value::Null) {
            Ok(s) => s,
            Err(e) => return fail(AF_ERR_INVALID, &e),
        };
        match crate::mcp::stdio::serve_stdio(s) {
            Ok(()) => AF_OK,
            Err(e) => fail(AF_ERR_INTERNAL, &format!("stdio: {e}")),
        }
    })
}

unsafe fn session<'a>(s: *const af_mcp_session) -> Result<&'a Arc<Session>, af_status> {
    if s.is_null() {
        return Err(fail(AF_ERR_NULL, "the session is NULL"));
    }
    // SAFETY: made by af_mcp_session_new and not freed.
    Ok(unsafe { &*(s as *const Arc<Session>) })
}

/// Creates an MCP session (one per connection) with its own agent view of
/// `metadata_json` (borrowed JSON object; NULL is `{}`). NULL on error.
#[no_mangle]
pub unsafe extern "C" fn af_mcp_session_new(
    d: *mut af_dispatcher,
    metadata_json: *const c_char,
) -> *mut af_mcp_session {
    boundary(std::ptr::null_mut(), || {
        // SAFETY: checked by the helpers.
        let (Ok(d), Ok(meta)) = (unsafe { dispatcher(d) }, unsafe {
            metadata_arg(metadata_json)
        }) else {
            return std::ptr::null_mut();
        };
        match Session::new(&d.d, d.mcp_config.lock().clone(), meta) {
            Ok(s) => Box::into_raw(Box::new(s)) as *mut af_mcp_session,
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
    boundary(std::ptr::null_mut(), || {
        // SAFETY: checked by the helper.
        let Ok(s) = (unsafe { session(s) }) else {
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
    boundary(AF_ERR_INTERNAL, || {
        let n = c_notify(cb, user_data, free_user_data);
        // SAFETY: checked by the helper.
        try_status!(unsafe { session(s) }).set_notify(n);
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
    boundary(AF_ERR_INTERNAL, || {
        // SAFETY: checked by the helpers.
        let s = try_status!(unsafe { session(s) });
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
    boundary((), || {
        if !s.is_null() {
            // SAFETY: made by af_mcp_session_new; freed once.
            drop(unsafe { Box::from_raw(s as *mut Arc<Session>) });
        }
    })
}
