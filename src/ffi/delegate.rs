//! Delegates, gates, scope hooks and the permission hook.

use super::*;
use crate::engine::call::{Call, CompleteError, Completion, Gate, GateDecision, GateSeq, Op};
use crate::engine::dispatcher::{Delegate, PermissionHook, ScopeHooks};
use crate::engine::pipeline::Answered;
use crate::model::outcome::Outcome;
use crate::model::terminated::terminated;
use std::sync::Arc;

/// A gate: one pending answer of a delegate's `on_invoking` or of the permission hook.
/// Answer it exactly once with `af_gate_allow`, `af_gate_deny` or `af_gate_open_app`,
/// inside the callback or later from any thread. A second answer (also while the call
/// waits at a later gate or runs its handler), or one after the call ended (cancelled,
/// timed out), gets `AF_ERR_ALREADY_COMPLETED` and is ignored. One call waits for at most
/// 255 gates and entity lookups (63 on 32-bit targets: each delegate with `on_invoking`,
/// the permission hook and each entity lookup is one); a call that would wait for more ends
/// `LimitExceeded`, so that a gate's handle never names another gate of its call.
pub struct af_gate {
    _private: [u8; 0],
}

impl Numbered for af_gate {}

/// A delegate's callbacks (copied by `af_add_delegate`; any callback may be NULL). Fill
/// it in from `AF_DELEGATE_INIT` (which sets `struct_size`).
///
/// Layout (offsets on 64-bit targets, 32-bit in parentheses; no hidden padding):
/// `struct_size` 0 (0), `reserved` 4 (4), `on_invoking` 8 (8), `on_invoked` 16 (12),
/// `free_user_data` 24 (16); size 32 (20). Later versions add fields only at the end.
#[repr(C)]
pub struct af_delegate {
    /// `sizeof(af_delegate)` of the header the host was built with. The library reads
    /// only the fields it covers; a size smaller than this v1 layout is refused.
    pub struct_size: u32,
    /// Zero.
    pub reserved: u32,
    /// Runs after the arguments are bound, before the handler, on the thread driving the
    /// call (never the timer or a completion thread). Answer `gate` once. Delegates run in
    /// registration order; the first that does not allow decides and the rest are not
    /// asked. NULL: allow.
    pub on_invoking: Option<
        unsafe extern "C" fn(user_data: *mut c_void, call: *mut af_call, gate: *mut af_gate),
    >,
    /// Sees every outcome (refusals included), borrowed for the callback. It cannot
    /// change the outcome. Runs on the thread that finishes the call, as `on_outcome`
    /// does (a completion thread for a timeout); blocking here delays only this call.
    pub on_invoked: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            call: *mut af_call,
            outcome_json: *const c_char,
        ),
    >,
    /// Releases `user_data` when the dispatcher is freed and no call uses the delegate
    /// (or before `af_add_delegate` returns an error status).
    pub free_user_data: af_free_fn,
}

/// A scope hook: `begin` runs first in every call, `end` exactly once after the last
/// `on_invoked`, on every path. `begin` runs on the thread that calls `af_execute*` (or
/// a stdio MCP worker); `end` on the thread that finishes the call, as `on_invoked`. Use
/// `af_call_set_host_data` in `begin` to attach a DI scope, with a release that runs
/// after `end`.
pub type af_scope_fn = Option<unsafe extern "C" fn(user_data: *mut c_void, call: *mut af_call)>;

/// Asks the user to approve a `requiresPermission` function: answer `gate` once with
/// `af_gate_allow` or `af_gate_deny`, now or later. Called on the thread driving the call,
/// as `on_invoking`.
pub type af_permission_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, call: *mut af_call, gate: *mut af_gate)>;

struct CDelegate {
    on_invoking: Option<unsafe extern "C" fn(*mut c_void, *mut af_call, *mut af_gate)>,
    on_invoked: Option<unsafe extern "C" fn(*mut c_void, *mut af_call, *const c_char)>,
    data: ForeignData,
}

fn deny_no_handle(gate: Gate) {
    let _ = gate.deny("too many calls in flight");
}

impl Delegate for CDelegate {
    fn on_invoking(&self, call: &Arc<Call>, gate: Gate) {
        let Some(f) = self.on_invoking else {
            let _ = gate.allow();
            return;
        };
        let Some(ch) = call.handle() else {
            return deny_no_handle(gate);
        };
        let Some(gh) = gate.into_handle() else { return };
        // SAFETY: the host's callback with its own data and live handles.
        unsafe {
            f(
                self.data.ptr,
                af_call::from_number(ch),
                af_gate::from_number(gh),
            )
        }
    }
    fn on_invoking_seq(&self, call: &Arc<Call>, seq: GateSeq) {
        let seq = seq.0;
        let Some(f) = self.on_invoking else {
            let _ = call.answer_gate(seq, GateDecision::Allow);
            return;
        };
        // (denies the gate when the handle table is exhausted)
        let Some(gh) = call.gate_handle(seq) else {
            return;
        };
        let Some(ch) = call.handle() else { return };
        // SAFETY: the host's callback with its own data and live handles.
        as_current(call, ch, gh, || unsafe {
            f(
                self.data.ptr,
                af_call::from_number(ch),
                af_gate::from_number(gh),
            )
        })
    }
    fn on_invoked(&self, call: &Arc<Call>, outcome: &Outcome, outcome_json: &str) {
        let json = terminated(outcome_json);
        self.on_invoked_terminated(call, outcome, Terminated::new(&json));
    }
    fn on_invoked_terminated(&self, call: &Arc<Call>, _outcome: &Outcome, json: Terminated<'_>) {
        let (Some(f), Some(ch)) = (self.on_invoked, call.handle()) else {
            return;
        };
        // (current: the context's reads reach the call without a look-up, as in on_invoking)
        // SAFETY: the outcome JSON is NUL-terminated and borrowed for the callback.
        as_current(call, ch, 0, || unsafe {
            f(
                self.data.ptr,
                af_call::from_number(ch),
                lend_terminated(json),
            )
        })
    }
    fn has_on_invoking(&self) -> bool {
        self.on_invoking.is_some()
    }
    fn has_on_invoked(&self) -> bool {
        self.on_invoked.is_some()
    }
}

/// Adds a delegate (the vtable is copied; `user_data` is owned by the dispatcher from now
/// on and released with `vtable->free_user_data`). Delegates run in the order added. A
/// `struct_size` smaller than the v1 layout is refused (`AF_ERR_INVALID`; nothing is
/// released, since the release itself cannot be trusted); a NULL vtable is `AF_ERR_NULL`.
#[no_mangle]
pub unsafe extern "C" fn af_add_delegate(
    d: *mut af_dispatcher,
    vtable: *const af_delegate,
    user_data: *mut c_void,
) -> af_status {
    boundary(|| {
        // SAFETY: checked by the helper; a larger struct (a newer header) starts with v1's.
        try_status!(unsafe { check_struct_size(vtable, "af_delegate") });
        // SAFETY: a valid vtable of at least the v1 size, borrowed for this call.
        let v = unsafe { &*vtable };
        let del = CDelegate {
            on_invoking: v.on_invoking,
            on_invoked: v.on_invoked,
            data: ForeignData {
                ptr: user_data,
                free: v.free_user_data,
            },
        };
        // SAFETY: checked by the helper (the delegate's data is released on error).
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        d.add_delegate(Arc::new(del));
        AF_OK
    })
}

fn gate_status(r: Result<(), Box<CompleteError>>, h: usize) -> af_status {
    match r.map_err(|e| *e) {
        Ok(()) => AF_OK,
        Err(e @ CompleteError::AlreadyCompleted(_)) => {
            crate::engine::call::log_late(h, "a gate answer");
            fail(AF_ERR_ALREADY_COMPLETED, &e.to_string())
        }
        Err(e) => fail(AF_ERR_NOT_WAITING, &e.to_string()),
    }
}

unsafe fn answer(gate: *mut af_gate, d: GateDecision) -> af_status {
    if gate.is_null() {
        return fail(AF_ERR_NULL, "the gate is NULL");
    }
    let h = af_gate::number(gate);
    // inside the delegate's own callback: handed over without a look-up
    let mut answer = Some(Completion::Gate(d));
    let here = on_current(h, true, |c| {
        match c.answer_inline(Some(Gate::seq_of_handle(h)), Op::Gate, &mut answer) {
            Answered::Done(r) => Some(r),
            Answered::Slow(_) => None,
        }
    })
    .flatten();
    let r = match (here, answer) {
        (Some(r), _) => r,
        (None, Some(Completion::Gate(d))) => Gate::answer_handle(h, d).map_err(Box::new),
        (None, _) => unreachable!("the answer is left in place unless handed over"),
    };
    gate_status(r, h)
}

/// Lets the call go on.
#[no_mangle]
pub unsafe extern "C" fn af_gate_allow(gate: *mut af_gate) -> af_status {
    // SAFETY: the handle is validated, never dereferenced.
    boundary(|| unsafe { answer(gate, GateDecision::Allow) })
}

/// Answers with a message-carrying decision. NULL or invalid UTF-8 still answers, with
/// `fallback` as the message, and returns the error status.
unsafe fn answer_with_message(
    gate: *mut af_gate,
    message: *const c_char,
    fallback: &str,
    decision: fn(String) -> GateDecision,
) -> af_status {
    // SAFETY: checked by the helper.
    let (msg, bad) = match unsafe { str_arg(message, "message") } {
        Ok(m) => (m.to_owned(), AF_OK),
        Err(s) => (fallback.to_owned(), s),
    };
    // SAFETY: the handle is validated, never dereferenced.
    match unsafe { answer(gate, decision(msg)) } {
        AF_OK => bad,
        r => r,
    }
}

/// Refuses the call with `message` (borrowed): the outcome is `Denied` (for the
/// permission hook, `PermissionDenied`). NULL or invalid UTF-8 still refuses, with a
/// generic message, and returns the error status.
#[no_mangle]
pub unsafe extern "C" fn af_gate_deny(gate: *mut af_gate, message: *const c_char) -> af_status {
    // SAFETY: pointers checked by the helper.
    boundary(|| unsafe {
        answer_with_message(gate, message, "the call was refused", GateDecision::Deny)
    })
}

/// Asks for the app with `message` (borrowed): in the foreground the gate passes, on
/// every platform (the user is in the app); not in the foreground, on apple the outcome is
/// `openApp` (continue in the app; the rerun in the foreground passes), on android and
/// other the call is refused (`Denied`) with the message.
#[no_mangle]
pub unsafe extern "C" fn af_gate_open_app(gate: *mut af_gate, message: *const c_char) -> af_status {
    // SAFETY: pointers checked by the helper.
    boundary(|| unsafe {
        answer_with_message(gate, message, "Continue in the app.", GateDecision::OpenApp)
    })
}

struct CScope {
    begin: af_scope_fn,
    end: af_scope_fn,
    data: ForeignData,
}

impl ScopeHooks for CScope {
    fn begin(&self, call: &Arc<Call>) {
        if let (Some(f), Some(h)) = (self.begin, call.handle()) {
            // (current: what the hook reads and attaches reaches the call without a look-up)
            // SAFETY: the host's callback with its own data and a live call.
            as_current(call, h, 0, || unsafe {
                f(self.data.ptr, af_call::from_number(h))
            })
        }
    }
    fn end(&self, call: &Arc<Call>) {
        if let (Some(f), Some(h)) = (self.end, call.handle()) {
            // SAFETY: as above (the handle is released after this hook returns).
            as_current(call, h, 0, || unsafe {
                f(self.data.ptr, af_call::from_number(h))
            })
        }
    }
}

/// Installs the scope hooks (either may be NULL), replacing previous ones (whose
/// `free_user_data` runs when no call uses them). Calls already running keep the hooks
/// they started with, so every begin has its end.
#[no_mangle]
pub unsafe extern "C" fn af_set_scope_hooks(
    d: *mut af_dispatcher,
    begin: af_scope_fn,
    end: af_scope_fn,
    user_data: *mut c_void,
    free_user_data: af_free_fn,
) -> af_status {
    boundary(|| {
        let data = ForeignData {
            ptr: user_data,
            free: free_user_data,
        };
        // SAFETY: checked by the helper.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        let hooks: Option<Arc<dyn ScopeHooks>> = (begin.is_some() || end.is_some())
            .then(|| Arc::new(CScope { begin, end, data }) as Arc<dyn ScopeHooks>);
        d.set_scope_hooks(hooks);
        AF_OK
    })
}

struct CPermission {
    f: unsafe extern "C" fn(*mut c_void, *mut af_call, *mut af_gate),
    data: ForeignData,
}

impl PermissionHook for CPermission {
    fn ask(&self, call: &Arc<Call>, gate: Gate) {
        let Some(ch) = call.handle() else {
            return deny_no_handle(gate);
        };
        let Some(gh) = gate.into_handle() else { return };
        // SAFETY: the host's callback with its own data and live handles.
        as_current(call, ch, gh, || unsafe {
            (self.f)(
                self.data.ptr,
                af_call::from_number(ch),
                af_gate::from_number(gh),
            )
        })
    }
}

/// Installs the permission hook asked before every `requiresPermission` function
/// (replacing the previous one). With no hook, such functions answer `PermissionDenied`.
/// NULL `hook` removes it.
#[no_mangle]
pub unsafe extern "C" fn af_set_permission_hook(
    d: *mut af_dispatcher,
    hook: af_permission_fn,
    user_data: *mut c_void,
    free_user_data: af_free_fn,
) -> af_status {
    boundary(|| {
        let data = ForeignData {
            ptr: user_data,
            free: free_user_data,
        };
        // SAFETY: checked by the helper.
        let d = try_status!(unsafe { af_dispatcher::get(d) });
        d.set_permission_hook(
            hook.map(|f| Arc::new(CPermission { f, data }) as Arc<dyn PermissionHook>),
        );
        AF_OK
    })
}
