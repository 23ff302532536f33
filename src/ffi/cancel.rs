//! Cancellation tokens.

use super::*;
use crate::engine::cancel::CancelToken;

/// A cancellation token: cancel it and every call carrying it ends `Cancelled`.
pub struct af_cancel_token {
    _private: [u8; 0],
}

impl Handle for af_cancel_token {
    type Target = CancelToken;
    type Kind = Boxed;
    const WHAT: &'static str = "the token";
}

/// Creates a cancellation token. Caller owns it and must call `af_cancel_token_free`.
#[no_mangle]
pub extern "C" fn af_cancel_token_new() -> *mut af_cancel_token {
    boundary(|| {
        super::fork::watch();
        af_cancel_token::new(CancelToken::new())
    })
}

/// Cancels every call carrying the token, now and later. Every call carrying it is marked
/// cancelled first (`af_call_is_cancelled` answers 1; late answers are refused). Then the
/// first call that waits for the host ends on this thread before this function returns
/// (its cancel callbacks, `on_invoked`, scope end and outcome run here); each other one
/// ends on a completion thread of the library, so no call's callbacks delay another's.
#[no_mangle]
pub unsafe extern "C" fn af_cancel_token_cancel(t: *mut af_cancel_token) -> af_status {
    boundary(|| {
        // SAFETY: made by af_cancel_token_new and not freed (or NULL).
        try_status!(unsafe { af_cancel_token::get(t) }).cancel();
        AF_OK
    })
}

/// 1 when the token has been cancelled, else 0 (also for NULL).
#[no_mangle]
pub unsafe extern "C" fn af_cancel_token_is_cancelled(t: *const af_cancel_token) -> u8 {
    boundary(|| {
        // SAFETY: made by af_cancel_token_new and not freed (or NULL).
        unsafe { af_cancel_token::try_get(t) }.map_or(0, |t| u8::from(t.is_cancelled()))
    })
}

/// Frees a token. Calls carrying it keep their own reference. Calling with NULL is fine.
#[no_mangle]
pub unsafe extern "C" fn af_cancel_token_free(t: *mut af_cancel_token) {
    boundary(|| {
        // SAFETY: made by af_cancel_token_new; the host frees it once.
        unsafe { af_cancel_token::free(t) }
    })
}
