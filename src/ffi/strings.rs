//! Strings and errors: the last error of each thread, strings the library hands out,
//! versions, and the names of the statuses and of the outcome error codes.

use super::*;
use std::cell::RefCell;
use std::ffi::{CStr, CString};

/// How many messages the thread-local ring of `af_last_error` keeps.
const LAST_ERROR_RING: usize = 16;

/// This thread's last error messages: a ring, so text lent by `af_last_error` outlives
/// the next few failures (each failing call writes at most two slots).
struct LastErrors {
    slots: [CString; LAST_ERROR_RING],
    at: usize,
}

thread_local! {
    static LAST_ERROR: RefCell<LastErrors> = RefCell::new(LastErrors {
        slots: Default::default(),
        at: 0,
    });
}

pub(crate) fn set_last_error(msg: &str) {
    let c = to_cstring(msg);
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.at = (e.at + 1) % LAST_ERROR_RING;
        let at = e.at;
        e.slots[at] = c;
    });
}

/// This thread's last error message (a copy).
pub(crate) fn last_error_text() -> String {
    LAST_ERROR.with(|e| {
        let e = e.borrow();
        e.slots[e.at].to_string_lossy().into_owned()
    })
}

/// The message of the last failure on this thread: lent, never NULL ("" when none). It
/// stays valid until at least the 8th failing `af_` call after it on this thread (a
/// small thread-local ring), so `printf("%s %s", af_x(...), af_last_error())` never reads
/// freed memory. Do not free it; `af_last_error_copy` gives a copy to keep.
#[no_mangle]
pub extern "C" fn af_last_error() -> *const c_char {
    boundary_even_after_fork(c"internal error".as_ptr(), || {
        LAST_ERROR.with(|e| {
            let e = e.borrow();
            e.slots[e.at].as_ptr()
        })
    })
}

/// A copy of this thread's last error message (owned: free it with `af_string_free`;
/// "" when none). NULL only when memory runs out.
#[no_mangle]
pub extern "C" fn af_last_error_copy() -> *mut c_char {
    boundary_even_after_fork(std::ptr::null_mut(), || out_string(&last_error_text()))
}

/// Frees a string returned by this library. Calling with NULL is fine.
#[no_mangle]
pub unsafe extern "C" fn af_string_free(s: *mut c_char) {
    // (also in a forked child: freeing takes no lock of the library)
    boundary_even_after_fork((), || {
        if !s.is_null() {
            // SAFETY: the string was made by CString::into_raw in this library.
            drop(unsafe { CString::from_raw(s) });
        }
    })
}

/// The crate version (e.g. "0.1.0"): borrowed, static, never NULL.
#[no_mangle]
pub extern "C" fn af_version() -> *const c_char {
    static VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(c) => c,
            Err(_) => c"unknown",
        };
    boundary(|| VERSION.as_ptr())
}

/// The ABI version (`AF_ABI_VERSION` of the header the library was built with). A binding
/// compares it with the value it was written for and refuses to load on a mismatch.
#[no_mangle]
pub extern "C" fn af_abi_version() -> u32 {
    boundary(|| AF_ABI_VERSION)
}

/// `AF_CODE_*` values and their names in outcome JSON (`errorCode`), NUL-terminated.
static CODE_NAMES: [(i32, &CStr); 12] = [
    (1, c"FunctionNotFound"),
    (2, c"Disabled"),
    (3, c"InvalidArgument"),
    (4, c"EntityNotFound"),
    (5, c"Denied"),
    (6, c"PermissionDenied"),
    (7, c"Cancelled"),
    (8, c"TimedOut"),
    (9, c"HandlerFailed"),
    (10, c"LimitExceeded"),
    (11, c"NotSupported"),
    (12, c"InternalError"),
];

/// `af_status` values and their constants' names, NUL-terminated.
static STATUS_NAMES: [(af_status, &CStr); 12] = [
    (AF_OK, c"AF_OK"),
    (AF_ERR_NULL, c"AF_ERR_NULL"),
    (AF_ERR_UTF8, c"AF_ERR_UTF8"),
    (AF_ERR_INVALID, c"AF_ERR_INVALID"),
    (AF_ERR_DUPLICATE, c"AF_ERR_DUPLICATE"),
    (AF_ERR_NOT_FOUND, c"AF_ERR_NOT_FOUND"),
    (AF_ERR_ALREADY_COMPLETED, c"AF_ERR_ALREADY_COMPLETED"),
    (AF_ERR_NOT_WAITING, c"AF_ERR_NOT_WAITING"),
    (AF_ERR_INVALID_HANDLE, c"AF_ERR_INVALID_HANDLE"),
    (AF_ERR_LIMIT, c"AF_ERR_LIMIT"),
    (AF_ERR_INTERNAL, c"AF_ERR_INTERNAL"),
    (AF_ERR_TIMED_OUT, c"AF_ERR_TIMED_OUT"),
];

/// The name of an `af_status` (what a function returned: `AF_OK`, `AF_ERR_*`) as its
/// constant is spelled (`"AF_ERR_DUPLICATE"`, ...): lent, static, never to be freed. NULL
/// for a value that is not an `af_status`. Statuses and `AF_CODE_*` error codes are two
/// ranges of integers that overlap: an outcome's error code has `af_error_code_name`.
#[no_mangle]
pub extern "C" fn af_status_name(status: af_status) -> *const c_char {
    boundary(|| match STATUS_NAMES.iter().find(|(s, _)| *s == status) {
        Some((_, n)) => n.as_ptr(),
        None => {
            set_last_error(&format!("{status} is not an af_status (AF_OK or AF_ERR_*)"));
            std::ptr::null()
        }
    })
}

/// The name of an `AF_CODE_*` value (an outcome's error code, what `af_call_fail` takes) as
/// outcome JSON writes it (`"FunctionNotFound"`, ...): lent, static, never to be freed.
/// NULL for a value that is not an `AF_CODE_*`. Not for an `af_status` (what functions
/// return; the ranges overlap): that is `af_status_name`.
#[no_mangle]
pub extern "C" fn af_error_code_name(code: i32) -> *const c_char {
    boundary_even_after_fork(std::ptr::null(), || {
        match CODE_NAMES.iter().find(|(c, _)| *c == code) {
            Some((_, n)) => n.as_ptr(),
            None => {
                set_last_error(&format!("{code} is not an AF_CODE_* value"));
                std::ptr::null()
            }
        }
    })
}

/// The `AF_CODE_*` value of an outcome's `errorCode` name (borrowed, e.g.
/// `"TimedOut"`, matched exactly); 0 for NULL, invalid UTF-8 or an unknown name.
#[no_mangle]
pub unsafe extern "C" fn af_error_code_from_name(name: *const c_char) -> i32 {
    boundary_even_after_fork(0, || {
        // SAFETY: checked by the helper.
        let Ok(name) = (unsafe { str_arg(name, "name") }) else {
            return 0;
        };
        match CODE_NAMES
            .iter()
            .find(|(_, n)| n.to_bytes() == name.as_bytes())
        {
            Some((c, _)) => *c,
            None => {
                set_last_error(&format!(
                    "{} is not an error code name",
                    crate::model::types::quote_short(name)
                ));
                0
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_names_match_the_core() {
        for code in crate::model::error::ErrorCode::ALL {
            let (n, name) = CODE_NAMES[code as usize - 1];
            assert_eq!(n, code as i32);
            assert_eq!(name.to_str().unwrap(), code.as_str());
        }
    }
}
