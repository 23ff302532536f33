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
//!
//! One file per exported concept, in the header's order: `strings` (the last error,
//! strings handed out, versions, error code names), `export`, `view` (views and what
//! they show: toolkit texts, the metadata schema), `mcp`, `call` (the call handle's
//! accessors and completions), `dispatcher` (its life, registration of types,
//! functions and entities, settings, `af_execute_*`, what it lists), `publish` (the
//! process-wide published dispatchers, descriptor bundles), `entities` (entities looked up
//! by id: `af_entities_*`), `android`, `fork`, `stdout`, `cancel` (tokens), `delegate`
//! (delegates, gates, scope and permission hooks). The registration of entities is not in
//! `entities`: `af_register_entity` stays in `dispatcher`, because the header lists it
//! between `af_register_function` and `af_unregister_function` and cbindgen (0.29.2, the
//! pinned one) cannot put it there from another file. It writes functions in the order it
//! loads them (a module's own items first, then its child modules, each in declaration
//! order), and its one ordering setting, `sort_by` (`[fn]`, `[const]`, or global), is that
//! order (`"None"`) or by name (`"Name"`, which reorders the whole header); `[export]`
//! orders nothing. Tried: an `entity.rs` declared after `dispatcher`, or as a child of it,
//! moves the declaration to after `af_dispatcher_in_flight` (an 18-line header diff), and
//! `sort_by = "Name"` changes 1044 lines. This file holds what they
//! share: statuses, the panic boundary (`boundary`: the value a panic returns is
//! chosen by the return type, `OnPanic`), the handle trait (`Handle`: every cast
//! between a C pointer and its Rust value), string and struct arguments, the invocation
//! readers, and the callback that runs now (`as_current`).
#![allow(non_camel_case_types)]
#![allow(clippy::missing_safety_doc)]

// cbindgen writes the header in the order these modules are declared: each is its own
// group so that rustfmt keeps the order (the header lists strings and errors first, then
// exports, views, MCP, calls, the dispatcher, publication, tokens and delegates).
mod strings;

mod export;

mod view;

mod mcp;

mod http;

mod call;

mod dispatcher;

mod publish;

mod entities;

mod android;

mod fork;

mod stdout;

mod cancel;

mod delegate;

// tests of a build without a size-optional part: every export answers naming its feature
#[cfg(test)]
mod left_out;

pub use android::*;
pub use call::*;
pub use cancel::*;
pub use delegate::*;
pub use dispatcher::*;
pub(crate) use dispatcher::{FfiDispatcher, SendPtr, INVOCATION_V1_SIZE};
pub use entities::*;
pub use export::*;
pub use http::*;
pub use mcp::*;
pub use publish::*;
pub use strings::*;
pub(crate) use strings::{last_error_text, set_last_error};
pub use view::*;

use crate::engine::call::{Invocation, InvocationRef, Platform};
use crate::export::Format;
use crate::model::error::Error;
use crate::model::terminated::Terminated;
use serde_json::Value;
use std::ffi::{c_char, c_void, CStr, CString};
use std::time::Duration;

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

// The core keeps the strings C is lent on every call with a terminator after their text
// (`model::terminated`), knowing nothing of who reads it; here it is the NUL that ends a C
// string, so C gets the stored bytes themselves.
const _: () = assert!(crate::model::terminated::TERMINATOR == '\0');

/// A kept string of the core lent to C as stored: its terminator is the C string's NUL,
/// so the pointer is valid for as long as the string's owner keeps it (a call, an
/// outcome being delivered).
#[inline]
pub(crate) fn lend_terminated(s: Terminated<'_>) -> *const c_char {
    s.with_terminator().as_ptr() as *const c_char
}

/// An owned C string from a kept string of the core (its terminator is the NUL: no copy).
pub(crate) fn out_terminated(s: String) -> *mut c_char {
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

// ---- the panic boundary -------------------------------------------------------------

/// What an exported function returns when a panic is caught, chosen by its return type:
/// a status is `AF_ERR_INTERNAL`, a pointer NULL, a count or flag 0. The few functions
/// whose type alone does not say it (a kind or platform answers -1, `af_last_error` its
/// static text) name their value with [`boundary_or`].
pub(crate) trait OnPanic {
    /// The value a caught panic returns.
    fn on_panic() -> Self;
}

impl OnPanic for af_status {
    fn on_panic() -> Self {
        AF_ERR_INTERNAL
    }
}

impl<T> OnPanic for *mut T {
    fn on_panic() -> Self {
        std::ptr::null_mut()
    }
}

impl<T> OnPanic for *const T {
    fn on_panic() -> Self {
        std::ptr::null()
    }
}

impl OnPanic for () {
    fn on_panic() -> Self {}
}

impl OnPanic for u8 {
    fn on_panic() -> Self {
        0
    }
}

impl OnPanic for u32 {
    fn on_panic() -> Self {
        0
    }
}

impl OnPanic for u64 {
    fn on_panic() -> Self {
        0
    }
}

/// Runs the body of an exported function behind the panic boundary: a panic is recorded
/// as this thread's last error and returns its type's [`OnPanic`] value. Every
/// `extern "C"` function's body is one call of this, [`boundary_or`] or
/// [`boundary_with`] (`tests/ffi_boundary.rs` fails on one that is not).
pub(crate) fn boundary<T: OnPanic>(f: impl FnOnce() -> T) -> T {
    boundary_with(T::on_panic, f)
}

/// Debug builds only: with `APPFUNCTIONS_PANIC_PROBE=1` in its environment,
/// `af_dispatcher_new` panics inside its boundary, so a test sees a panic caught in the
/// shared library as it is linked (tests/static_unwinder.rs: the unwinder is part of the
/// library on GNU/Linux, build.rs). A release build has no such path.
#[cfg(debug_assertions)]
pub(crate) fn panic_probe() {
    if std::env::var_os("APPFUNCTIONS_PANIC_PROBE").is_some_and(|v| v == "1") {
        panic!("APPFUNCTIONS_PANIC_PROBE is set (a debug build's probe of the panic boundary)");
    }
}

/// [`boundary`] for a function whose panic value is not its type's.
pub(crate) fn boundary_or<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    boundary_with(|| on_panic, f)
}

/// [`boundary`] whose panic value is made after the panic (an error outcome naming it).
/// In a child forked after the library was used, `f` does not run: the panic value at once,
/// with `af_last_error` saying why (`fork.rs`).
#[inline(always)]
pub(crate) fn boundary_with<T>(on_panic: impl FnOnce() -> T, f: impl FnOnce() -> T) -> T {
    if fork::in_forked_child() {
        set_last_error(fork::FORKED_MESSAGE);
        return on_panic();
    }
    panic_boundary(on_panic, f)
}

/// [`boundary_or`] that also runs in a forked child, for what takes no lock of the library
/// (`af_last_error`, `af_string_free`, the error code names).
pub(crate) fn boundary_even_after_fork<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    panic_boundary(|| on_panic, f)
}

fn panic_boundary<T>(on_panic: impl FnOnce() -> T, f: impl FnOnce() -> T) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last_error(&format!("internal error (a panic was caught): {what}"));
            on_panic()
        }
    }
}

// ---- handles: what each C pointer is -------------------------------------------------

/// An opaque handle type of the header and the Rust value behind it. Every cast between
/// a handle and its value is here, chosen by the handle's [`Handle::Kind`]:
///
/// - [`Boxed`]: made by a `_new`, owned by the host, freed once by its `_free`;
/// - [`Shared`]: an `Arc`, each handle holding one count (freeing it drops that count);
/// - [`Borrowed`]: the library's memory lent to a callback for its duration.
///
/// Reading is the same for all three ([`Handle::get`], [`Handle::try_get`]); `af_call`
/// and `af_gate` are not pointers at all but generation-checked numbers ([`Numbered`]).
pub(crate) trait Handle: Sized {
    /// The value a handle points to.
    type Target;
    /// How the pointer was made, and so how it is freed.
    type Kind;
    /// The handle in messages: "the dispatcher" ("the dispatcher is NULL").
    const WHAT: &'static str;

    /// Borrows the value, or `None` for NULL (no error recorded).
    ///
    /// # Safety
    /// `p` is NULL or a live handle of this type (the header's contract).
    unsafe fn try_get<'a>(p: *const Self) -> Option<&'a Self::Target> {
        // SAFETY: a live handle points to its Target (made by new / lend below).
        unsafe { p.cast::<Self::Target>().as_ref() }
    }

    /// Borrows the value; NULL is `AF_ERR_NULL` ("the dispatcher is NULL").
    ///
    /// # Safety
    /// As for [`Handle::try_get`].
    unsafe fn get<'a>(p: *const Self) -> Result<&'a Self::Target, af_status> {
        // SAFETY: the caller's contract.
        unsafe { Self::try_get(p) }
            .ok_or_else(|| fail(AF_ERR_NULL, &format!("{} is NULL", Self::WHAT)))
    }

    /// A new handle owning `v`.
    fn new(v: Self::Target) -> *mut Self
    where
        Self: Handle<Kind = Boxed>,
    {
        Box::into_raw(Box::new(v)).cast()
    }

    /// Frees a handle made by [`Handle::new`]; NULL is fine.
    ///
    /// # Safety
    /// `p` is NULL or a live handle, not used afterwards.
    unsafe fn free(p: *mut Self)
    where
        Self: Handle<Kind = Boxed>,
    {
        if !p.is_null() {
            // SAFETY: made by Box::into_raw in `new`; the host frees it once.
            drop(unsafe { Box::from_raw(p.cast::<Self::Target>()) });
        }
    }

    /// A new handle holding one count of `v`.
    fn new_shared(v: std::sync::Arc<Self::Target>) -> *mut Self
    where
        Self: Handle<Kind = Shared>,
    {
        std::sync::Arc::into_raw(v).cast_mut().cast()
    }

    /// Drops a handle's count; NULL is fine.
    ///
    /// # Safety
    /// `p` is NULL or a live handle, not used afterwards.
    unsafe fn free_shared(p: *mut Self)
    where
        Self: Handle<Kind = Shared>,
    {
        if !p.is_null() {
            // SAFETY: made by Arc::into_raw in `new_shared`; the host frees it once.
            drop(unsafe { std::sync::Arc::from_raw(p.cast_const().cast::<Self::Target>()) });
        }
    }

    /// Lends `v` to the host for as long as the borrow lives.
    fn lend(v: &mut Self::Target) -> *mut Self
    where
        Self: Handle<Kind = Borrowed>,
    {
        (v as *mut Self::Target).cast()
    }

    /// The lent value, mutably; NULL is `AF_ERR_NULL`.
    ///
    /// # Safety
    /// `p` is NULL or a pointer [`Handle::lend`] made whose borrow is still alive.
    unsafe fn get_mut<'a>(p: *mut Self) -> Result<&'a mut Self::Target, af_status>
    where
        Self: Handle<Kind = Borrowed>,
    {
        // SAFETY: the caller's contract.
        unsafe { p.cast::<Self::Target>().as_mut() }
            .ok_or_else(|| fail(AF_ERR_NULL, &format!("{} is NULL", Self::WHAT)))
    }
}

/// [`Handle::Kind`]: one owner, a `Box`.
pub(crate) enum Boxed {}
/// [`Handle::Kind`]: counted owners, an `Arc`.
pub(crate) enum Shared {}
/// [`Handle::Kind`]: the library's memory lent to the host.
pub(crate) enum Borrowed {}

/// A handle that is a number, not a pointer: the generation-checked handles of calls
/// and gates (`engine::handles`). Nothing ever dereferences it.
pub(crate) trait Numbered: Sized {
    /// The handle the host sees for number `h`.
    fn from_number(h: usize) -> *mut Self {
        std::ptr::without_provenance_mut(h)
    }
    /// The number a handle from the host carries.
    fn number(p: *const Self) -> usize {
        p.addr()
    }
}

/// The call whose C callback runs on this thread now (a handler, a lookup, a delegate's
/// `on_invoking` and `on_invoked`, the scope hooks, the permission hook), with its handle
/// and, for a gate, the gate's handle: what the callback passes back (`af_call_return`,
/// `af_gate_allow`, the accessors) is recognised by its handle and reaches the call
/// without a look-up in the handle table.
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

pub(crate) fn error_status(e: &Error) -> af_status {
    let code = match e {
        Error::Descriptor { .. } | Error::Json { .. } | Error::Invalid(_) => AF_ERR_INVALID,
        Error::Duplicate(_) => AF_ERR_DUPLICATE,
        Error::NotFound(_) => AF_ERR_NOT_FOUND,
    };
    fail(code, &e.to_string())
}

fn status_of(r: crate::model::error::Result<()>) -> af_status {
    match r {
        Ok(()) => AF_OK,
        Err(e) => error_status(&e),
    }
}

macro_rules! try_status {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(s) => return s,
        }
    };
}
pub(crate) use try_status;

/// Reads a host's `struct_size`: refuses NULL and a size smaller than the v1 layout.
pub(crate) unsafe fn check_struct_size<T>(p: *const T, name: &str) -> Result<(), af_status> {
    // SAFETY: as for check_struct_size_min.
    unsafe { check_struct_size_min(p, name, std::mem::size_of::<T>()) }.map(|_| ())
}

/// [`check_struct_size`] for a struct that grew since v1 (`v1` bytes): the host's size.
pub(crate) unsafe fn check_struct_size_min<T>(
    p: *const T,
    name: &str,
    v1: usize,
) -> Result<usize, af_status> {
    if p.is_null() {
        return Err(fail(AF_ERR_NULL, &format!("the {name} is NULL")));
    }
    // SAFETY: every such struct starts with its uint32_t struct_size.
    let size = unsafe { *(p as *const u32) };
    if (size as usize) < v1 {
        return Err(fail(
            AF_ERR_INVALID,
            &format!(
                "{name}.struct_size is {size}, smaller than the v1 layout ({v1}): set it to sizeof({name})"
            ),
        ));
    }
    Ok(size as usize)
}

pub(crate) unsafe fn invocation(inv: *const af_invocation) -> Result<Invocation, af_status> {
    // SAFETY: as for invocation_ref.
    let r = unsafe { invocation_ref(inv) }?;
    Ok(Invocation {
        function_id: r.function_id.to_owned(),
        platform: r.platform,
        is_foreground: r.is_foreground,
        caller_package: r.caller_package.to_owned(),
        cancel: r
            .cancel
            .map(|t| crate::engine::call::CancelTokenRef(t.clone())),
        timeout: r.timeout,
        host_context: r.host_context,
    })
}

/// Borrows an invocation for one call (its strings and token are the host's for the call).
#[inline(always)]
pub(crate) unsafe fn invocation_ref<'a>(
    inv: *const af_invocation,
) -> Result<InvocationRef<'a>, af_status> {
    // SAFETY: the caller's contract, as for invocation_fields.
    unsafe { invocation_fields(inv, true) }
}

/// [`invocation_ref`] for a call that names no function (`af_entities_*`): NULL is
/// `AF_INVOCATION_INIT`'s defaults, and `function_id` is not read.
pub(crate) unsafe fn invocation_ref_unnamed<'a>(
    inv: *const af_invocation,
) -> Result<InvocationRef<'a>, af_status> {
    if inv.is_null() {
        return Ok(InvocationRef {
            function_id: "",
            platform: Platform::Other,
            is_foreground: false,
            caller_package: "",
            cancel: None,
            timeout: None,
            host_context: 0,
        });
    }
    // SAFETY: the caller's contract, as for invocation_fields.
    unsafe { invocation_fields(inv, false) }
}

/// Reads an invocation; `named`: its `function_id` is required (else not read, "").
#[inline(always)]
unsafe fn invocation_fields<'a>(
    inv: *const af_invocation,
    named: bool,
) -> Result<InvocationRef<'a>, af_status> {
    // SAFETY: checked by the helper; a larger struct (a newer header) starts with v1's.
    let size = unsafe { check_struct_size_min(inv, "af_invocation", INVOCATION_V1_SIZE) }?;
    let host_context = if size >= std::mem::size_of::<af_invocation>() {
        // SAFETY: the host's struct covers the field.
        unsafe { (*inv).host_context as usize }
    } else {
        0
    };
    // SAFETY: at least the v1 size, borrowed for this call; only the v1 fields are read
    // through this reference (host_context was read above, when covered).
    let inv = unsafe { &*(inv as *const InvocationV1) };
    // SAFETY: pointers checked by the helpers.
    let id = if named {
        unsafe { str_arg(inv.function_id, "af_invocation.function_id") }?
    } else {
        ""
    };
    let caller = unsafe { opt_str_arg(inv.caller_package, "af_invocation.caller_package") }?;
    let platform = Platform::from_i32(inv.platform).ok_or_else(|| {
        fail(
            AF_ERR_INVALID,
            &format!("af_invocation.platform {} is not 0, 1 or 2", inv.platform),
        )
    })?;
    let cancel = if inv.cancel_token.is_null() {
        None
    } else {
        // SAFETY: made by af_cancel_token_new and not freed.
        unsafe { af_cancel_token::try_get(inv.cancel_token) }
    };
    Ok(InvocationRef {
        function_id: id,
        platform,
        is_foreground: inv.is_foreground != 0,
        caller_package: caller.unwrap_or(""),
        cancel,
        timeout: match inv.timeout_ms {
            0 => None,
            AF_TIMEOUT_NONE => Some(Invocation::NO_TIMEOUT),
            ms => Some(Duration::from_millis(ms.into())),
        },
        host_context,
    })
}

/// The fields of the first ABI 1 `af_invocation` (what a 40-byte host hands in): read
/// through this, so that no reference covers bytes the host did not give.
#[repr(C)]
struct InvocationV1 {
    struct_size: u32,
    platform: i32,
    function_id: *const c_char,
    caller_package: *const c_char,
    cancel_token: *const af_cancel_token,
    timeout_ms: u32,
    is_foreground: u8,
    reserved: [u8; 3],
}

const _: () = assert!(std::mem::size_of::<InvocationV1>() == INVOCATION_V1_SIZE);

pub(crate) fn error_outcome(code: crate::model::error::ErrorCode, msg: &str) -> *mut c_char {
    out_string(&crate::model::outcome::Outcome::error(code, msg).to_json())
}

/// An export format argument (`"mcp"`, `"openai"`, ...).
unsafe fn format_arg(format: *const c_char) -> Result<Format, af_status> {
    // SAFETY: checked by the helper.
    let name = unsafe { str_arg(format, "format") }?;
    name.parse::<Format>()
        .map_err(|e| fail(AF_ERR_INVALID, &e.to_string()))
}

/// A metadata argument: a JSON object (NULL is `{}`).
unsafe fn metadata_arg(json: *const c_char) -> Result<Value, af_status> {
    // SAFETY: checked by the helper.
    match unsafe { opt_str_arg(json, "metadata_json") }? {
        None => Ok(Value::Null),
        Some(t) => serde_json::from_str(t)
            .map_err(|e| fail(AF_ERR_INVALID, &format!("metadata_json: invalid JSON: {e}"))),
    }
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
}
