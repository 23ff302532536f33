//! Entities looked up by id through the app's registered lookup (`af_entities_json`,
//! `af_entities_async`): what a platform's entity query asks (App Intents'
//! `EntityQuery.entities(for:)`).

use super::*;
use crate::engine::call::{JsonSink, OutcomeSink};
use crate::engine::entities::Ids;

/// Looks up the entities of `entity` with the ids `ids_json` through the lookup registered
/// with `af_register_entity`, and blocks until the outcome JSON (owned: free with
/// `af_string_free`), an outcome like `af_execute_json`'s. `ids_json` (borrowed) is a JSON
/// array of id strings, `["A-1", "B-2"]`. On success `"result"` is an array of the
/// entities (each normalised as a parameter of the entity would bind it) **in the order of
/// the ids asked for**: an id the lookup does not return is left out, an id asked twice
/// gives its entity once (at its first place), entities the lookup returns that were not
/// asked for are dropped; `[]` for no ids (the lookup is not called). The lookup is called
/// like one that resolves an entity parameter: `af_call_kind` is `AF_CALL_ENTITY_LOOKUP`,
/// `af_call_function_id` is `search_{entity}`, `af_call_lookup_request` is
/// `{"ids": [...]}` (each id once), after the scope-begin hook and every delegate's
/// `on_invoking` (a gate that denies or asks for the app ends it as it ends a call:
/// `Denied`, or `openApp` on apple when not in the foreground); `on_invoked` and the
/// scope end follow. It answers whether or not `search_{entity}` is enabled (that flag is
/// about calling the search function). `inv` (borrowed, may be NULL for
/// `AF_INVOCATION_INIT`'s defaults) gives the platform, `is_foreground`, the caller (the
/// caller policy applies), the cancel token, the timeout (0: the dispatcher's default) and
/// `host_context`; its `function_id` is not read (may be NULL). Never NULL; errors are
/// outcomes naming what is wrong: an unknown entity `InvalidArgument` ("no entity named
/// \"ordr\" (did you mean \"order\"?)"), `ids_json` not an array of strings
/// `InvalidArgument` (`ids_json[1]: expected an entity id (a string), found number 7`), a
/// lookup that fails its own code ("looking up order failed: ..."), an answer that is not
/// an array of the entity `HandlerFailed`, `TimedOut` ("looking up order by id did not
/// finish within 50 ms"), `Cancelled`, a shut-down dispatcher `LimitExceeded` ("... the
/// dispatcher is shutting down"); a NULL dispatcher or `entity`, a `struct_size` smaller
/// than v1, invalid UTF-8 or a panic `InvalidArgument` / `InternalError`. Threads and
/// timeouts as for `af_execute_json`.
#[no_mangle]
pub unsafe extern "C" fn af_entities_json(
    d: *mut af_dispatcher,
    inv: *const af_invocation,
    entity: *const c_char,
    ids_json: *const c_char,
) -> *mut c_char {
    use crate::model::error::ErrorCode as C;
    boundary_with(
        || {
            error_outcome(
                C::InternalError,
                &format!(
                    "af_entities_json failed unexpectedly: {}",
                    last_error_text()
                ),
            )
        },
        || {
            // SAFETY: pointers checked by the helpers.
            let d = match unsafe { af_dispatcher::get(d) } {
                Ok(d) => d,
                Err(_) => {
                    return error_outcome(
                        C::InvalidArgument,
                        "af_entities_json: the dispatcher is NULL",
                    )
                }
            };
            let args = unsafe { invocation_ref_unnamed(inv) }.and_then(|inv| {
                Ok((inv, unsafe { str_arg(entity, "entity") }?, unsafe {
                    str_arg(ids_json, "ids_json")
                }?))
            });
            let Ok((inv, entity, ids)) = args else {
                return error_outcome(
                    C::InvalidArgument,
                    &format!("af_entities_json: {}", last_error_text()),
                );
            };
            out_terminated(d.entities_terminated_ref(&inv, entity, Ids::Json(ids)))
        },
    )
}

/// Starts `af_entities_json`'s lookup and returns at once: the outcome JSON (borrowed for
/// the callback) goes to `on_outcome` (required) exactly once, on the thread that finishes
/// the call, as for `af_execute_async`: this one when the request is refused before the
/// lookup runs (an unknown entity, bad `ids_json`, no ids, a shut-down dispatcher) or
/// everything answers inline, else the host thread that completes the lookup, answers a
/// gate or cancels the token, or a completion thread for a timeout. Cancelling
/// `inv->cancel_token` ends it `Cancelled` (the lookup's `af_call_on_cancel` callbacks
/// run). `on_outcome` is its own release: on `AF_OK` it will be called exactly once, after
/// which the library keeps nothing of `user_data`; on an error status (NULL dispatcher,
/// `entity`, `ids_json` or callback, a `struct_size` smaller than v1, invalid UTF-8) it is
/// never called.
#[no_mangle]
pub unsafe extern "C" fn af_entities_async(
    d: *mut af_dispatcher,
    inv: *const af_invocation,
    entity: *const c_char,
    ids_json: *const c_char,
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
        let inv = try_status!(unsafe { invocation_ref_unnamed(inv) });
        let entity = try_status!(unsafe { str_arg(entity, "entity") });
        let ids = try_status!(unsafe { str_arg(ids_json, "ids_json") });
        // the callback and its data as the sink's two words: no allocation per call
        let sink = OutcomeSink::Json(JsonSink {
            f: super::dispatcher::deliver_outcome,
            a: cb as usize,
            b: user_data as usize,
        });
        d.entities_async_sink_ref(&inv, entity, Ids::Json(ids), sink, false);
        AF_OK
    })
}
