//! Android AppFunctions calls: a request's parameters document in, the response out
//! (docs/android.md).

use super::*;
use crate::platform::android::document::{error_response, ERROR_SYSTEM_ERROR};

/// `{"errorCode": 2000, "message": …}` as owned text.
fn system_error(msg: &str) -> *mut c_char {
    out_string(&error_response(ERROR_SYSTEM_ERROR, msg))
}

/// Runs an Android AppFunctions call and blocks until its response JSON (owned: free with
/// `af_string_free`). `inv` as for `af_execute_json` (borrowed): `function_id` is the
/// request's `getFunctionIdentifier()`, `caller_package` the calling package, `cancel_token`
/// cancelled from the request's `CancellationSignal`; the call runs as
/// `AF_PLATFORM_ANDROID` whatever `platform` says. `parameters_document_json` (borrowed) is
/// the image of the request's `getParameters()` document,
/// `{"namespace", "id", "schemaType", "properties": {"name": {"strings": […]} | {"longs": […]}
/// | {"doubles": […]} | {"booleans": […]} | {"bytes": ["<base64>"]} | {"documents": [<image>]}}}`;
/// NULL is a document without properties. The response is
/// `{"result": <image of the response document>, "extras": {"dev.appfunctions.extra.DIALOG":
/// "…"}}` (the return value under `androidAppfunctionsReturnValue`; void or null: no
/// property; the dialog only when the call said one) or `{"errorCode": <an
/// android.app.appfunctions.AppFunctionException code>, "message": "…"}`. Never NULL: a
/// document that cannot be bound is `1001` naming the property; a NULL dispatcher or
/// invocation, a `struct_size` smaller than v1, invalid UTF-8 or a panic is `2000` naming
/// what is wrong. Threads as for `af_execute_json`.
#[no_mangle]
pub unsafe extern "C" fn af_android_execute_json(
    d: *mut af_dispatcher,
    inv: *const af_invocation,
    parameters_document_json: *const c_char,
) -> *mut c_char {
    boundary_with(
        || {
            system_error(&format!(
                "af_android_execute_json failed unexpectedly: {}",
                last_error_text()
            ))
        },
        || {
            // SAFETY: pointers checked by the helpers.
            let d = match unsafe { af_dispatcher::get(d) } {
                Ok(d) => d,
                Err(_) => return system_error("af_android_execute_json: the dispatcher is NULL"),
            };
            let inv = match unsafe { invocation(inv) } {
                Ok(i) => i,
                Err(_) => {
                    return system_error(&format!("af_android_execute_json: {}", last_error_text()))
                }
            };
            let doc = match unsafe {
                opt_str_arg(parameters_document_json, "parameters_document_json")
            } {
                Ok(p) => p,
                Err(_) => {
                    return system_error(&format!("af_android_execute_json: {}", last_error_text()))
                }
            };
            out_string(&d.execute_android(&inv, doc))
        },
    )
}

/// Starts an Android AppFunctions call and returns at once: `af_android_execute_json` whose
/// response JSON (borrowed for the callback) goes to `on_response` (required) exactly once,
/// on the thread that finishes the call, as for `af_execute_async` (this one when the
/// document cannot be bound or everything answers inline). `on_response` is its own
/// release: on `AF_OK` it will be called exactly once, after which the library keeps
/// nothing of `user_data`; on an error status (NULL dispatcher, invocation or callback, a
/// `struct_size` smaller than v1, invalid UTF-8) it is never called.
#[no_mangle]
pub unsafe extern "C" fn af_android_execute_async(
    d: *mut af_dispatcher,
    inv: *const af_invocation,
    parameters_document_json: *const c_char,
    on_response: af_outcome_fn,
    user_data: *mut c_void,
) -> af_status {
    boundary(|| {
        // SAFETY: pointers checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let Some(cb) = on_response else {
            return fail(AF_ERR_NULL, "on_response is NULL");
        };
        let inv = try_status!(unsafe { invocation(inv) });
        let doc = try_status!(unsafe {
            opt_str_arg(parameters_document_json, "parameters_document_json")
        });
        let data = SendPtr(user_data);
        d.execute_android_async(&inv, doc, move |json| {
            let data = data;
            let c = to_cstring(json);
            // SAFETY: the host's callback with its own data; the text borrowed for the call.
            unsafe { cb(data.0, c.as_ptr()) }
        });
        AF_OK
    })
}
