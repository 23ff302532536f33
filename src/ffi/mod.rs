//! The C ABI. The only place with `unsafe` and `extern "C"`.
//!
//! Conventions (stated once; the header repeats them per function):
//! - Object first, then inputs, then outputs; callbacks take `void *user_data` first.
//! - Strings in are NUL-terminated UTF-8, borrowed for the duration of the call. NULL
//!   where not allowed, or invalid UTF-8, is an error (`AF_ERR_NULL`, `AF_ERR_UTF8`).
//! - Ownership is in the name: a function returning text the caller owns ends in `_json`
//!   or `_copy` (`char *`, freed with `af_string_free`); every other one lends it
//!   (`const char *`) and says for how long.
//! - Structs a host fills in start with `struct_size`; the core reads only the fields it
//!   covers and refuses a size smaller than the v1 layout.
//! - Every exported function sits behind one panic boundary: a panic becomes a status,
//!   NULL, or an error outcome; it never unwinds into the host.
#![allow(non_camel_case_types)]
#![allow(clippy::missing_safety_doc)]

mod agent;
mod call;
mod dispatcher;
mod hooks;

pub use agent::*;
pub use call::*;
pub use dispatcher::*;
pub use hooks::*;

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CStr, CString};

/// A status: `AF_OK` (0) or one of the `AF_ERR_*` codes. The message of the last failure
/// on this thread is `af_last_error()`.
pub type af_status = i32;

/// Success.
pub const AF_OK: af_status = 0;
/// A required pointer argument was NULL.
pub const AF_ERR_NULL: af_status = 1;
/// A string argument was not valid UTF-8.
pub const AF_ERR_UTF8: af_status = 2;
/// An argument is malformed: a descriptor, JSON text, an enum value out of range.
pub const AF_ERR_INVALID: af_status = 3;
/// A function or entity with this id already exists.
pub const AF_ERR_DUPLICATE: af_status = 4;
/// No function with this id.
pub const AF_ERR_NOT_FOUND: af_status = 5;
/// The call was already completed, or has ended (a second or late completion); ignored.
pub const AF_ERR_ALREADY_COMPLETED: af_status = 6;
/// The call is not waiting for this kind of answer now (e.g. `af_call_return` while a
/// gate is pending).
pub const AF_ERR_NOT_WAITING: af_status = 7;
/// The handle is not a live call, gate or object (stale or never valid).
pub const AF_ERR_INVALID_HANDLE: af_status = 8;
/// A limit was exceeded.
pub const AF_ERR_LIMIT: af_status = 9;
/// An internal error (a bug, a panic caught at the boundary).
pub const AF_ERR_INTERNAL: af_status = 10;
/// A wait ended before what it waited for (`af_dispatcher_shutdown`: calls still run).
pub const AF_ERR_TIMED_OUT: af_status = 11;

/// Bumped on every breaking change of this ABI. Bindings check it when they load.
pub const AF_ABI_VERSION: u32 = 1;

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

/// Records `msg` as this thread's last error and returns `status`.
pub(crate) fn fail(status: af_status, msg: &str) -> af_status {
    set_last_error(msg);
    status
}

/// A CString from text (interior NULs, which JSON output never has, become U+FFFD).
pub(crate) fn to_cstring(s: &str) -> CString {
    match CString::new(s) {
        Ok(c) => c,
        Err(_) => CString::new(s.replace('\0', "\u{FFFD}")).unwrap_or_default(),
    }
}

/// An owned C string for the host (freed with `af_string_free`).
pub(crate) fn out_string(s: &str) -> *mut c_char {
    to_cstring(s).into_raw()
}

/// An owned C string from text that already ends with a NUL (no copy).
pub(crate) fn out_string_nul(s: String) -> *mut c_char {
    match CString::from_vec_with_nul(s.into_bytes()) {
        Ok(c) => c.into_raw(),
        Err(e) => {
            let mut v = e.into_bytes();
            v.pop();
            out_string(&String::from_utf8_lossy(&v))
        }
    }
}

/// Borrows a required string argument.
pub(crate) unsafe fn str_arg<'a>(p: *const c_char, name: &str) -> Result<&'a str, af_status> {
    if p.is_null() {
        return Err(fail(AF_ERR_NULL, &format!("{name} is NULL")));
    }
    // SAFETY: the caller passes a NUL-terminated string valid for this call.
    let c = unsafe { CStr::from_ptr(p) };
    let bytes = c.to_bytes();
    if bytes.is_ascii() {
        // the common case, checked a word at a time
        // SAFETY: ASCII is UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    c.to_str().map_err(|e| {
        fail(
            AF_ERR_UTF8,
            &format!("{name} is not valid UTF-8 (at byte {})", e.valid_up_to()),
        )
    })
}

/// Borrows an optional string argument (NULL is `None`).
pub(crate) unsafe fn opt_str_arg<'a>(
    p: *const c_char,
    name: &str,
) -> Result<Option<&'a str>, af_status> {
    if p.is_null() {
        Ok(None)
    } else {
        // SAFETY: as for str_arg.
        unsafe { str_arg(p, name) }.map(Some)
    }
}

/// Runs `f` behind the panic boundary; a panic returns `on_panic`.
pub(crate) fn boundary<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last_error(&format!("internal error (a panic was caught): {what}"));
            on_panic
        }
    }
}

/// The call whose C callback runs on this thread now (a handler, a lookup, a delegate's
/// `on_invoking`, the permission hook), with its handle and, for a gate, the gate's
/// handle: what the callback passes back (`af_call_return`, `af_gate_allow`, the
/// accessors) is recognised by its handle and reaches the call without a look-up in the
/// handle table.
#[derive(Clone, Copy)]
struct Current {
    call_handle: usize,
    gate_handle: usize,
    call: *const crate::engine::call::Call,
}

const NO_CURRENT: Current = Current {
    call_handle: 0,
    gate_handle: 0,
    call: std::ptr::null(),
};

thread_local! {
    static CURRENT: std::cell::Cell<Current> = const { std::cell::Cell::new(NO_CURRENT) };
}

/// Puts back the callback that was current before (a callback may run a call of its own).
struct Restore(Current);

impl Drop for Restore {
    fn drop(&mut self) {
        let _ = CURRENT.try_with(|c| c.set(self.0));
    }
}

/// Runs the C callback `f` as the current one of `call` (handles `call_handle`, and
/// `gate_handle` or 0).
pub(crate) fn as_current<R>(
    call: &std::sync::Arc<crate::engine::call::Call>,
    call_handle: usize,
    gate_handle: usize,
    f: impl FnOnce() -> R,
) -> R {
    let now = Current {
        call_handle,
        gate_handle,
        call: std::sync::Arc::as_ptr(call),
    };
    let _restore = CURRENT.try_with(|c| Restore(c.replace(now))).ok();
    f()
}

/// Runs `f` on the call of the current callback when `handle` is its call handle
/// (`gate`: its gate handle); `None` otherwise (the caller looks the handle up).
pub(crate) fn on_current<R>(
    handle: usize,
    gate: bool,
    f: impl FnOnce(&crate::engine::call::Call) -> R,
) -> Option<R> {
    let cur = CURRENT.try_with(|c| c.get()).ok()?;
    let mine = if gate {
        cur.gate_handle
    } else {
        cur.call_handle
    };
    if handle == 0 || handle != mine || cur.call.is_null() {
        return None;
    }
    // SAFETY: `as_current` set this pointer from an `&Arc<Call>` that the thread driving
    // the call holds for the whole callback, and this thread is inside that callback (the
    // value is put back when it returns): the call is alive for `f`. A call waiting on
    // its callback cannot end meanwhile (nothing drives it until the callback returns).
    Some(f(unsafe { &*cur.call }))
}

/// Host data with an optional finaliser, run once when the core drops it.
pub(crate) struct ForeignData {
    pub ptr: *mut c_void,
    pub free: af_free_fn,
}

// SAFETY: the header requires user_data to be usable from any thread.
unsafe impl Send for ForeignData {}
unsafe impl Sync for ForeignData {}

impl Drop for ForeignData {
    fn drop(&mut self) {
        if let Some(f) = self.free {
            // SAFETY: the host's finaliser for its own pointer, called exactly once.
            let _ = std::panic::catch_unwind(|| unsafe { f(self.ptr) });
        }
    }
}

/// Releases host data (`user_data`). Called exactly once, on any thread (a completion
/// thread too, when the last call using a registration ends there).
pub type af_free_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// The message of the last failure on this thread: lent, never NULL ("" when none). It
/// stays valid until at least the 8th failing `af_` call after it on this thread (a
/// small thread-local ring), so `printf("%s %s", af_x(...), af_last_error())` never reads
/// freed memory. Do not free it; `af_last_error_copy` gives a copy to keep.
#[no_mangle]
pub extern "C" fn af_last_error() -> *const c_char {
    boundary(c"internal error".as_ptr(), || {
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
    boundary(std::ptr::null_mut(), || out_string(&last_error_text()))
}

/// Frees a string returned by this library. Calling with NULL is fine.
#[no_mangle]
pub unsafe extern "C" fn af_string_free(s: *mut c_char) {
    boundary((), || {
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
    VERSION.as_ptr()
}

/// The ABI version (`AF_ABI_VERSION` of the header the library was built with). A binding
/// compares it with the value it was written for and refuses to load on a mismatch.
#[no_mangle]
pub extern "C" fn af_abi_version() -> u32 {
    AF_ABI_VERSION
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

/// The name of an `AF_CODE_*` value as outcome JSON writes it (`"FunctionNotFound"`, ...):
/// lent, static, never to be freed. NULL for a value that is not an `AF_CODE_*`.
#[no_mangle]
pub extern "C" fn af_error_code_name(code: i32) -> *const c_char {
    boundary(std::ptr::null(), || {
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
    boundary(0, || {
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
    fn soname_follows_the_abi_version() {
        // set by build.rs on Linux
        if let Some(soname) = option_env!("AF_SONAME") {
            assert_eq!(soname, format!("libappfunctions.so.{AF_ABI_VERSION}"));
        }
    }

    #[test]
    fn code_names_match_the_core() {
        for code in crate::model::error::ErrorCode::ALL {
            let (n, name) = CODE_NAMES[code as usize - 1];
            assert_eq!(n, code as i32);
            assert_eq!(name.to_str().unwrap(), code.as_str());
        }
    }
}
