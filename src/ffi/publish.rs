//! Published dispatchers (one process-wide table shared by every language in the process)
//! and descriptor bundles (exports without a running app).

use super::*;
use crate::engine::dispatcher::Dispatcher;

/// Publishes `d` under `name` (borrowed, non-empty UTF-8, at most 256 bytes) for the whole
/// process, replacing what was published under that name, and wakes every
/// `af_dispatcher_published_new` waiting for it. This is how a platform call that arrives
/// during a cold start (an Android `AppFunctionService`, an App Intent) reaches the app's
/// dispatcher, from any thread and any language in the process (Swift intents reaching a
/// dispatcher a .NET app made). Bindings use the name `"default"` unless told otherwise.
/// `af_dispatcher_shutdown` of the dispatcher, and `af_dispatcher_free` of the handle
/// `af_dispatcher_new` gave, withdraw its publications. A dispatcher that is shutting
/// down cannot be published (`AF_ERR_INVALID`).
#[no_mangle]
pub unsafe extern "C" fn af_dispatcher_publish(
    d: *mut af_dispatcher,
    name: *const c_char,
) -> af_status {
    boundary(|| {
        // SAFETY: pointers checked by the helpers.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let name = try_status!(unsafe { str_arg(name, "name") });
        match d.publish(name) {
            Ok(()) => AF_OK,
            Err(e) => error_status(&e),
        }
    })
}

/// Withdraws the publication under `name` (borrowed), whichever dispatcher it is:
/// `AF_ERR_NOT_FOUND` when nothing is published there. Handles already taken with
/// `af_dispatcher_published_new` stay valid.
#[no_mangle]
pub unsafe extern "C" fn af_dispatcher_unpublish(name: *const c_char) -> af_status {
    boundary(|| {
        // SAFETY: checked by the helper.
        let name = try_status!(unsafe { str_arg(name, "name") });
        match Dispatcher::unpublish(name) {
            Ok(()) => AF_OK,
            Err(e) => error_status(&e),
        }
    })
}

/// Waits up to `timeout_ms` milliseconds (0: does not wait; `AF_TIMEOUT_NONE`: without
/// limit) for a dispatcher published under `name` (borrowed). `AF_OK`: `*out_dispatcher`
/// receives a new handle to it, which the caller owns and frees with
/// `af_dispatcher_free`; everything through it (registration, calls, exports, views)
/// acts on the published dispatcher, except that `af_mcp_handle_json` keeps a session of
/// its own per handle, and freeing it never withdraws a publication. Shutting it down
/// shuts the dispatcher down for everyone. `AF_ERR_TIMED_OUT`: nothing was published in
/// time; `af_last_error` names the name and the wait. The waiting thread blocks: call it
/// from a background thread, never an app's main thread. `*out_dispatcher` is written
/// only on `AF_OK` (NULL `out_dispatcher`: `AF_ERR_NULL`).
#[no_mangle]
pub unsafe extern "C" fn af_dispatcher_published_new(
    name: *const c_char,
    timeout_ms: u32,
    out_dispatcher: *mut *mut af_dispatcher,
) -> af_status {
    boundary(|| {
        super::fork::watch();
        if out_dispatcher.is_null() {
            return fail(AF_ERR_NULL, "out_dispatcher is NULL");
        }
        // SAFETY: checked by the helper.
        let name = try_status!(unsafe { str_arg(name, "name") });
        let timeout = (timeout_ms != AF_TIMEOUT_NONE)
            .then(|| std::time::Duration::from_millis(timeout_ms.into()));
        match Dispatcher::wait_published(name, timeout) {
            Ok(d) => {
                let h = af_dispatcher::new(FfiDispatcher::new(d, true));
                // SAFETY: checked non-NULL above; the host's out pointer for this call.
                unsafe { *out_dispatcher = h };
                AF_OK
            }
            Err(crate::model::error::Error::NotFound(m)) => fail(AF_ERR_TIMED_OUT, &m),
            Err(e) => error_status(&e),
        }
    })
}

/// The bundle of `d`'s registrations (owned JSON, free with `af_string_free`):
/// `{"metadataSchema", "toolkits", "types", "entities", "functions"}`, each what the
/// matching registration call takes (docs/descriptors.md, "Bundles"). Write it from a test
/// or at startup and give it to a build step (`af_bundle_export_copy`, the `appfunctions`
/// command). NULL only for a NULL or invalid `d` (`af_last_error`).
#[no_mangle]
pub unsafe extern "C" fn af_dispatcher_bundle_json(d: *mut af_dispatcher) -> *mut c_char {
    boundary(|| {
        // SAFETY: checked by the helper.
        let Ok(d) = (unsafe { af_dispatcher::get(d) }) else {
            return std::ptr::null_mut();
        };
        out_string(&crate::engine::bundle::of(&d.d).to_string())
    })
}

/// Exports a descriptor bundle (`bundle_json`, borrowed) without a running app: the text
/// `af_export_copy(d, format)` gives for a dispatcher with exactly the bundle's
/// registrations (owned text, free with `af_string_free`). NULL on error, with
/// `af_last_error` naming the item and path (`bundle: functions[2]: x.parameters.y.type:
/// ...`) or the unknown format. Build tools (Gradle, MSBuild, SwiftPM, Xcode) call this,
/// or the `appfunctions export` command that wraps it.
#[no_mangle]
pub unsafe extern "C" fn af_bundle_export_copy(
    bundle_json: *const c_char,
    format: *const c_char,
) -> *mut c_char {
    boundary(|| {
        // SAFETY: checked by the helpers.
        let Ok(bundle) = (unsafe { str_arg(bundle_json, "bundle_json") }) else {
            return std::ptr::null_mut();
        };
        // SAFETY: checked by the helper.
        let Ok(name) = (unsafe { str_arg(format, "format") }) else {
            return std::ptr::null_mut();
        };
        let format = match name.parse::<crate::export::Format>() {
            Ok(f) => f,
            Err(e) => {
                set_last_error(&e.to_string());
                return std::ptr::null_mut();
            }
        };
        match crate::platform::export_bundle(bundle, format) {
            Ok(s) => out_string(&s),
            Err(e) => {
                set_last_error(&e);
                std::ptr::null_mut()
            }
        }
    })
}
