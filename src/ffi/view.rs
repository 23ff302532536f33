//! Agent views, and what they show: toolkits (their texts) and the metadata schema.

use super::*;
use crate::view::{ToolkitText, ToolkitTexts, View};
use serde_json::Value;
use std::sync::Arc;

/// An agent view: what one conversation's model sees of a dispatcher (collapsed
/// toolkits, conditions over metadata, templated descriptions, output tools).
/// Thread-safe. Caller owns it and must call `af_view_free`.
pub struct af_view {
    _private: [u8; 0],
}

impl Handle for af_view {
    type Target = View;
    type Kind = Boxed;
    const WHAT: &'static str = "the view";
}

/// Where a dynamic toolkit text is written (`af_text_set`), valid during the callback.
pub struct af_text {
    _private: [u8; 0],
}

impl Handle for af_text {
    type Target = TextSlot;
    type Kind = Borrowed;
    const WHAT: &'static str = "out";
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

pub(crate) struct TextSlot(Option<String>);

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
                af_text::lend(&mut slot),
            )
        };
        slot.0
    }
}

/// Answers a dynamic toolkit text (`text` borrowed). Only valid inside the
/// `af_toolkit_text_fn` callback that received `out`.
#[no_mangle]
pub unsafe extern "C" fn af_text_set(out: *mut af_text, text: *const c_char) -> af_status {
    boundary(|| {
        // SAFETY: out is the slot lent to the running callback (or NULL).
        let slot = try_status!(unsafe { af_text::get_mut(out) });
        // SAFETY: checked by the helper.
        let t = try_status!(unsafe { str_arg(text, "text") });
        slot.0 = Some(t.to_owned());
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
    boundary(|| {
        let data = ForeignData {
            ptr: user_data,
            free: free_user_data,
        };
        let provider: Option<Arc<dyn ToolkitTexts>> =
            texts.map(|f| Arc::new(CTexts { f, data }) as Arc<dyn ToolkitTexts>);
        // SAFETY: checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
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
    boundary(|| {
        // SAFETY: checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let json = try_status!(unsafe { str_arg(json, "json") });
        match d.set_metadata_schema(json) {
            Ok(()) => AF_OK,
            Err(e) => error_status(&e),
        }
    })
}

/// Creates a view with its metadata (a JSON object, borrowed; NULL is `{}`). NULL on
/// error. The view keeps the dispatcher's registry alive; free it with `af_view_free`.
#[no_mangle]
pub unsafe extern "C" fn af_view_new(
    d: *mut af_dispatcher,
    metadata_json: *const c_char,
) -> *mut af_view {
    boundary(|| {
        // SAFETY: checked by the helpers.
        let (Ok(d), Ok(meta)) = (unsafe { af_dispatcher::get(d) }, unsafe {
            metadata_arg(metadata_json)
        }) else {
            return std::ptr::null_mut();
        };
        match View::new(&d.d, meta) {
            Ok(v) => af_view::new(v),
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
    boundary(|| {
        // SAFETY: made by af_view_new; the host frees it once.
        unsafe { af_view::free(v) }
    })
}

/// What the model sees now, in an export format (`"mcp"`, `"openai"`, ...; owned). NULL on
/// error.
#[no_mangle]
pub unsafe extern "C" fn af_view_tools_json(v: *mut af_view, format: *const c_char) -> *mut c_char {
    boundary(|| {
        // SAFETY: checked by the helpers.
        let (Ok(v), Ok(f)) = (unsafe { af_view::get(v) }, unsafe { format_arg(format) }) else {
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
/// foreground flag, caller, cancel token and timeout apply as for `af_execute_json`
/// (borrowed, as there). The app's own assistant sets `is_foreground` to 1 (the bindings'
/// views do by default): the user is in the app, so an `OpenApp` gate passes.
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
    use crate::model::error::ErrorCode as C;
    boundary_with(
        || error_outcome(C::InternalError, "af_view_execute_json failed unexpectedly"),
        || {
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
        },
    )
}

/// The view, invocation and arguments of a view call.
unsafe fn view_call_args<'a>(
    v: *mut af_view,
    inv: *const af_invocation,
    args_json: *const c_char,
) -> Result<(&'a View, crate::engine::call::Invocation, Option<&'a str>), af_status> {
    // SAFETY: checked by the helpers.
    let v = unsafe { af_view::get(v) }?;
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
    boundary(|| {
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
    boundary(|| match unsafe { af_view::get(v) } {
        Ok(v) => v.generation(),
        Err(_) => 0,
    })
}

/// The system prompts of the toolkits expanded now, joined by blank lines (owned text;
/// "" when none). NULL only for a NULL view.
#[no_mangle]
pub unsafe extern "C" fn af_view_instructions_copy(v: *mut af_view) -> *mut c_char {
    boundary(|| match unsafe { af_view::get(v) } {
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
    boundary(|| {
        // SAFETY: checked by the helpers.
        let v = try_status!(unsafe { af_view::get(v) });
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
    boundary(|| {
        // SAFETY: checked by the helper.
        try_status!(unsafe { af_view::get(v) }).reset();
        AF_OK
    })
}

/// Sets the text tools show when a void function succeeds (borrowed).
#[no_mangle]
pub unsafe extern "C" fn af_view_set_confirmation(
    v: *mut af_view,
    text: *const c_char,
) -> af_status {
    boundary(|| {
        // SAFETY: checked by the helpers.
        let v = try_status!(unsafe { af_view::get(v) });
        v.set_confirmation(try_status!(unsafe { str_arg(text, "text") }));
        AF_OK
    })
}
