//! Cancellation tokens.

use super::*;
use crate::engine::cancel::CancelToken;

/// A cancellation token: cancel it and every call carrying it ends `Cancelled`.
pub struct af_cancel_token {
    _private: [u8; 0],
}

/// Creates a cancellation token. Caller owns it and must call `af_cancel_token_free`.
#[no_mangle]
pub extern "C" fn af_cancel_token_new() -> *mut af_cancel_token {
    boundary(std::ptr::null_mut(), || {
        Box::into_raw(Box::new(CancelToken::new())) as *mut af_cancel_token
    })
}

/// Cancels every call carrying the token, now and later. Every call carrying it is marked
/// cancelled first (`af_call_is_cancelled` answers 1; late answers are refused). Then the
/// first call that waits for the host ends on this thread before this function returns
/// (its cancel callbacks, `on_invoked`, scope end and outcome run here); each other one
/// ends on a completion thread of the library, so no call's callbacks delay another's.
#[no_mangle]
pub unsafe extern "C" fn af_cancel_token_cancel(t: *mut af_cancel_token) -> af_status {
    boundary(AF_ERR_INTERNAL, || {
        if t.is_null() {
            return fail(AF_ERR_NULL, "the token is NULL");
        }
        // SAFETY: made by af_cancel_token_new and not freed.
        unsafe { &*(t as *const CancelToken) }.cancel();
        AF_OK
    })
}

/// 1 when the token has been cancelled, else 0 (also for NULL).
#[no_mangle]
pub unsafe extern "C" fn af_cancel_token_is_cancelled(t: *const af_cancel_token) -> u8 {
    boundary(0, || {
        if t.is_null() {
            return 0;
        }
        // SAFETY: made by af_cancel_token_new and not freed.
        u8::from(unsafe { &*(t as *const CancelToken) }.is_cancelled())
    })
}

/// Frees a token. Calls carrying it keep their own reference. Calling with NULL is fine.
#[no_mangle]
pub unsafe extern "C" fn af_cancel_token_free(t: *mut af_cancel_token) {
    boundary((), || {
        if !t.is_null() {
            // SAFETY: made by af_cancel_token_new; freed once.
            drop(unsafe { Box::from_raw(t as *mut CancelToken) });
        }
    })
}
