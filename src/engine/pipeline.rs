//! One call, start to finish (docs/architecture.md, "Where each behaviour lives"): scope
//! begin, find, bind, resolve entities, delegates, opensApp and permission, the handler,
//! the outcome, `on_invoked`, scope end.
//!
//! The pipeline is a state machine. Each step that waits for the host (a gate, a lookup,
//! the handler) either gets its answer inline (the loop goes on) or suspends; whoever
//! answers later drives the call on, on their own thread. No lock is held while host
//! code runs.
//!
//! A wait is one atomic word ([`crate::engine::call::wait`]): an answer given while the host
//! callback runs is handed over without a lock (a gate's allow in the word itself, any
//! other answer on the callback's own thread in that thread's [`Frame`]); only a call
//! that suspends, or an answer from another thread during the callback, takes the call's
//! lock. The thread driving a call keeps its progress ([`DriveState`]) to itself and
//! stores it in the call only when the call suspends.

use crate::engine::call::{
    wait, Call, CompleteError, Completion, DriveState, Gate, GateDecision, HandlerResult, Op,
    Platform, PreBound, Resolution, Snapshot, Stage,
};
use crate::engine::handles;
use crate::engine::log::LogLevel;
use crate::model::binding::{bind_arguments, bind_value_with, Mode};
use crate::model::descriptor::FunctionKind;
use crate::model::error::ErrorCode;
use crate::model::outcome::Outcome;
use crate::model::terminated::{Terminated, TERMINATOR};
use crate::model::types::Type;
use serde_json::Value;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// What a stage did, and what [`step`] gives [`run`] (all but `Now`).
enum Next {
    /// Moved on to the next stage, which runs now (no host code ran).
    Now,
    /// Took the host's answer (in the input slot): [`run`] checks for a cancellation
    /// before the next stage.
    Go,
    /// Waits for the host.
    Wait,
    /// Ended the call: its outcome is in the drive's outcome slot ([`end`]).
    End,
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// The wait whose host callback this thread runs now (its call's address and the wait's
/// sequence number), and the answer given to it on this thread, handed over without a
/// lock. Nested calls (a handler that executes another call) stack their frames.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Frame {
    call: usize,
    seq: u32,
}

thread_local! {
    static FRAME: std::cell::Cell<Frame> = const { std::cell::Cell::new(Frame { call: 0, seq: 0 }) };
    static FRAME_ANSWER: RefCell<Option<Completion>> = const { RefCell::new(None) };
}

/// Puts back the frame a host callback found, however the callback ends.
struct FrameGuard {
    saved: Frame,
    /// An answer the frame below had been given already (kept aside meanwhile; boxed, as
    /// only a call made inside a callback that has answered already has one).
    saved_answer: Option<Box<Completion>>,
    left: bool,
}

impl FrameGuard {
    fn enter(call: usize, seq: u32) -> FrameGuard {
        let saved = FRAME
            .try_with(|f| f.replace(Frame { call, seq }))
            .unwrap_or(Frame { call: 0, seq: 0 });
        let saved_answer = FRAME_ANSWER
            .try_with(|a| {
                let mut a = a.borrow_mut();
                if a.is_some() {
                    a.take().map(Box::new)
                } else {
                    None
                }
            })
            .ok()
            .flatten();
        FrameGuard {
            saved,
            saved_answer,
            left: false,
        }
    }
    /// Leaves the frame: the answer given on this thread, if any, goes to `into` (left as
    /// it is when there is none).
    fn leave(mut self, into: &mut Option<Completion>) {
        self.restore(Some(into));
    }
    fn restore(&mut self, into: Option<&mut Option<Completion>>) {
        if std::mem::replace(&mut self.left, true) {
            return;
        }
        let _ = FRAME.try_with(|f| f.set(self.saved));
        let back = self.saved_answer.take();
        let _ = FRAME_ANSWER.try_with(|a| {
            let mut a = a.borrow_mut();
            if a.is_some() || back.is_some() {
                let given = std::mem::replace(&mut *a, back.map(|b| *b));
                if let (Some(into), Some(given)) = (into, given) {
                    *into = Some(given);
                }
            }
        });
    }
}

impl Drop for FrameGuard {
    fn drop(&mut self) {
        self.restore(None);
    }
}

/// What [`Call::answer_inline`] did with an answer.
pub(crate) enum Answered {
    /// Handed over, or refused (boxed: two words, passed back in registers, as the common
    /// answer is handed over).
    Done(Result<(), Box<CompleteError>>),
    /// Not handed over (the answer left where it was): the call is suspended, or its
    /// callback runs on another thread (the wait word seen).
    Slow(u64),
}

/// What a finished call hands to the thread that asked for its outcome directly.
pub(crate) enum Delivered {
    /// The outcome JSON, kept with its terminator ([`crate::model::terminated`]).
    Json(String),
    Outcome(Outcome),
}

/// Starts a new call on this thread: runs it until it finishes or waits for the host.
/// With `direct`, a call that finishes here hands its outcome back (when it has no sink)
/// instead of storing it for a waiter.
pub(crate) fn drive_new(call: &Arc<Call>, pre_bound: PreBound, direct: bool) -> Option<Delivered> {
    // (the drive state is made here, in the argument it is passed in, not moved there)
    drive(
        call,
        DriveState {
            pre_bound,
            ..DriveState::default()
        },
        None,
        direct,
    )
}

/// Runs the call until it finishes or waits for the host. `input` is the host's answer
/// to the wait that suspended it; `st` what the thread driving it keeps.
pub(crate) fn drive(
    call: &Arc<Call>,
    mut st: DriveState,
    mut input: Option<Completion>,
    direct: bool,
) -> Option<Delivered> {
    // the answer in hand and the outcome live here, in this frame, for the whole drive:
    // the steps take and put them in place rather than moving them through return values
    let mut ended: Option<Outcome> = None;
    // one panic boundary around the steps (the drive state stays with this thread)
    if let Err(p) = catch_unwind(AssertUnwindSafe(|| {
        run(call, &mut st, &mut input, &mut ended)
    })) {
        ended = Some(Outcome::error(
            ErrorCode::InternalError,
            format!("the pipeline failed unexpectedly: {}", panic_text(&*p)),
        ));
    }
    match &mut ended {
        Some(outcome) => finish(call, &mut st, outcome, direct),
        // waiting for the host
        None => None,
    }
}

/// Runs the steps until the call ends (its outcome in `ended`) or waits for the host
/// (`ended` left `None`).
fn run(
    call: &Arc<Call>,
    st: &mut DriveState,
    input: &mut Option<Completion>,
    ended: &mut Option<Outcome>,
) {
    loop {
        if let Some(Completion::Abort(code)) = *input {
            *ended = Some(abort_outcome(call, code));
            return;
        }
        // the scope begins even for a call cancelled before it started, so every begin
        // has its end
        if input.is_none() && st.stage != Stage::Begin {
            if let Some(code) = call.cancel_code() {
                *ended = Some(abort_outcome(call, code));
                return;
            }
        }
        // (waiting for the host, or ended: its outcome in `ended`)
        if !matches!(step(call, st, input, ended), Next::Go) {
            return;
        }
    }
}

fn go() -> Next {
    Next::Go
}

/// Ends the call with `outcome`: the stages put it in the drive's slot where they make it
/// rather than return it (an outcome is ten words: a result carrying one went through
/// memory at every stage, and was moved again at each return on its way to the slot).
fn end(ended: &mut Option<Outcome>, outcome: Outcome) -> Next {
    *ended = Some(outcome);
    Next::End
}

/// Ends the call with the error `code` and `message`.
fn fail(ended: &mut Option<Outcome>, code: ErrorCode, message: impl Into<String>) -> Next {
    end(ended, Outcome::error(code, message))
}

/// Waits for a host answer: an inline answer (in the input slot) continues the loop at
/// once.
fn waited(answered: bool) -> Next {
    if answered {
        Next::Go
    } else {
        Next::Wait
    }
}

/// Runs stages until one waits for the host, ends the call, or has taken a host answer
/// (then `run` checks for a cancellation before the next): stages that run no host code
/// follow each other here.
fn step(
    call: &Arc<Call>,
    st: &mut DriveState,
    input: &mut Option<Completion>,
    ended: &mut Option<Outcome>,
) -> Next {
    let snap = call.snap();
    loop {
        let next = match st.stage {
            Stage::Begin => begin(call, snap, st, input, ended),
            Stage::Find => find(call, snap, st, ended),
            Stage::Bind => bind(call, snap, st, ended),
            Stage::Resolve(i) => resolve(call, st, i, input, ended),
            Stage::Gates(i) => gates(call, snap, st, i, input, ended),
            Stage::OpensApp => opens_app(call, st, ended),
            Stage::Permission => permission(call, snap, st, input, ended),
            Stage::Handler => handler(call, st, input, ended),
        };
        if !matches!(next, Next::Now) {
            return next;
        }
    }
}

/// The scope begins (the host's scope hook), then the function is found; an entity
/// lookup goes straight to the gates.
fn begin(
    call: &Arc<Call>,
    snap: &Snapshot,
    st: &mut DriveState,
    input: &mut Option<Completion>,
    ended: &mut Option<Outcome>,
) -> Next {
    // (nothing answers before the call begins)
    drop(input.take());
    if call.parent.is_none() {
        if let Some(h) = &snap.scope_hooks {
            st.began = true;
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| h.begin(call))) {
                return fail(
                    ended,
                    ErrorCode::InternalError,
                    format!("the scope-begin hook failed: {}", panic_text(&*p)),
                );
            }
        }
    }
    st.stage = if call.parent.is_some() {
        Stage::Gates(0)
    } else {
        Stage::Find
    };
    // (a call cancelled before it started ends after its scope begins)
    go()
}

/// The function is there, enabled, and the caller may call it.
fn find(
    call: &Arc<Call>,
    snap: &Snapshot,
    st: &mut DriveState,
    ended: &mut Option<Outcome>,
) -> Next {
    // execute looked the function up when it made the call
    let Some(entry) = call.entry() else {
        return fail(
            ended,
            ErrorCode::FunctionNotFound,
            snap.not_found_message(call.function_id()),
        );
    };
    // (a lookup by ids is not a call of search_{entity}: it answers while that function is
    // disabled, as the lookups of calls taking the entity do)
    if !entry.is_enabled() && !call.by_ids {
        return fail(
            ended,
            ErrorCode::Disabled,
            format!("{} is disabled", call.function_id()),
        );
    }
    // (no caller policy, the common case: every caller passes)
    if !snap.callers.is_empty() || !entry.desc.callers.is_empty() {
        if let Some(why) = snap.callers.refuses(call.caller_package()) {
            return fail(
                ended,
                ErrorCode::Denied,
                format!("{why} to call functions of this app"),
            );
        }
        if let Some(why) = entry.desc.callers.refuses(call.caller_package()) {
            return fail(
                ended,
                ErrorCode::Denied,
                format!("{why} to call {}", call.function_id()),
            );
        }
    }
    st.stage = Stage::Bind;
    Next::Now
}

/// The arguments are bound in one pass; entity ids found in them are resolved next.
fn bind(
    call: &Arc<Call>,
    snap: &Snapshot,
    st: &mut DriveState,
    ended: &mut Option<Outcome>,
) -> Next {
    if call.args_fixed.is_some() {
        // bound when the call was made, with no entity to resolve: shown from now on
        call.args_ready.store(true, Ordering::Release);
        st.stage = Stage::Gates(0);
        return Next::Now;
    }
    let entry = call.entry().expect("found");
    // (the box the call was made with is kept for the resolution)
    let bound = st.pre_bound.take().unwrap_or_else(|| {
        Box::new(bind_arguments(
            &snap.types,
            &entry.desc.parameters,
            None,
            &snap.limits,
        ))
    });
    let (refs, json) = match &*bound {
        Ok(b) => (&b.entity_refs, b.json.as_str()),
        Err(e) => return fail(ended, ErrorCode::InvalidArgument, e.to_string()),
    };
    if refs.is_empty() {
        if let Ok(b) = *bound {
            publish_args(call, b.json);
        }
        st.stage = Stage::Gates(0);
    } else {
        let mut groups: Vec<Resolution> = Vec::new();
        for (k, r) in refs.iter().enumerate() {
            match groups.iter_mut().find(|g| g.entity == r.entity) {
                Some(g) => {
                    if !g
                        .wanted
                        .iter()
                        .any(|&(w, _)| refs[w].id(json) == r.id(json))
                    {
                        g.wanted.push((k, None));
                    }
                }
                None => groups.push(Resolution {
                    entity: r.entity,
                    wanted: vec![(k, None)],
                    found_json: String::new(),
                }),
            }
        }
        st.bound = Some(bound);
        st.resolve = groups;
        st.stage = Stage::Resolve(0);
    }
    Next::Now
}

/// The arguments being resolved ([`DriveState::bound`], passed alone so that the
/// resolutions beside it can be changed meanwhile).
fn resolving(bound: &PreBound) -> &crate::model::binding::Bound {
    match bound.as_deref() {
        Some(Ok(b)) => b,
        _ => unreachable!("bound before resolving"),
    }
}

/// Gate `i`: the next delegate's `on_invoking`, and its answer.
fn gates(
    call: &Arc<Call>,
    snap: &Snapshot,
    st: &mut DriveState,
    i: usize,
    input: &mut Option<Completion>,
    ended: &mut Option<Outcome>,
) -> Next {
    // (an answer in hand is this gate's; taken only when there is one)
    if let Some(Completion::Gate(d)) = input.is_some().then(|| input.take()).flatten() {
        match d {
            GateDecision::Allow => {}
            GateDecision::Deny(msg) => return fail(ended, ErrorCode::Denied, msg),
            GateDecision::OpenApp(msg) => match (call.platform, call.foreground) {
                // in the foreground the user is in the app already: the gate passes on
                // every platform (seed 000's rerun, an in-app assistant)
                (_, true) => {}
                (Platform::Apple, false) => return end(ended, Outcome::open_app(msg)),
                // android and other have no way to continue in the app
                _ => return fail(ended, ErrorCode::Denied, msg),
            },
        }
        st.stage = Stage::Gates(i + 1);
        return go();
    }
    let Some(d) = snap.delegates.get(i) else {
        st.stage = if call.parent.is_some() {
            Stage::Handler
        } else {
            Stage::OpensApp
        };
        return Next::Now;
    };
    if d.has_on_invoking() {
        if let Err(o) = gate_waits_left(call, st) {
            return end(ended, o);
        }
        return waited(call.await_host(Op::Gate, st, input, |seq| {
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| {
                d.on_invoking_seq(call, crate::engine::call::GateSeq(seq))
            })) {
                let _ = call.answer_gate(
                    seq,
                    GateDecision::Deny(format!("a delegate failed: {}", panic_text(&*p))),
                );
            }
        }));
    }
    st.stage = Stage::Gates(i + 1);
    Next::Now
}

/// An `opensApp` function called from the background continues in the app.
fn opens_app(call: &Arc<Call>, st: &mut DriveState, ended: &mut Option<Outcome>) -> Next {
    let desc = &call.entry().expect("found").desc;
    if desc.opens_app && call.platform == Platform::Apple && !call.foreground {
        let name = desc.title.as_deref().unwrap_or(&desc.id);
        return end(
            ended,
            Outcome::open_app(format!("Continue in the app to {name}.")),
        );
    }
    st.stage = Stage::Permission;
    Next::Now
}

/// A `requiresPermission` function asks the permission hook, and takes its answer.
fn permission(
    call: &Arc<Call>,
    snap: &Snapshot,
    st: &mut DriveState,
    input: &mut Option<Completion>,
    ended: &mut Option<Outcome>,
) -> Next {
    let desc = &call.entry().expect("found").desc;
    if let Some(Completion::Gate(d)) = input.is_some().then(|| input.take()).flatten() {
        return match d {
            GateDecision::Allow => {
                st.stage = Stage::Handler;
                go()
            }
            GateDecision::Deny(m) | GateDecision::OpenApp(m) => {
                fail(ended, ErrorCode::PermissionDenied, m)
            }
        };
    }
    if !desc.requires_permission {
        st.stage = Stage::Handler;
        return Next::Now;
    }
    let Some(hook) = snap.permission.clone() else {
        return fail(
            ended,
            ErrorCode::PermissionDenied,
            format!(
                "{} requires permission and the app has no permission hook to ask the user",
                desc.id
            ),
        );
    };
    if let Err(o) = gate_waits_left(call, st) {
        return end(ended, o);
    }
    waited(call.await_host(Op::Gate, st, input, |seq| {
        let gate = Gate::new(call.clone(), seq);
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| hook.ask(call, gate))) {
            let _ = call.answer_gate(
                seq,
                GateDecision::Deny(format!("the permission hook failed: {}", panic_text(&*p))),
            );
        }
    }))
}

/// The handler runs (an output function answers with its arguments), and its answer
/// ends the call.
fn handler(
    call: &Arc<Call>,
    st: &mut DriveState,
    input: &mut Option<Completion>,
    ended: &mut Option<Outcome>,
) -> Next {
    let entry = call.entry().expect("found");
    if let Some(Completion::Handler(r)) = input.take() {
        if call.parent.is_some() {
            // a lookup resolving ids: the call it serves checks the answer
            // (bind_entity_list), once
            return end(
                ended,
                match r {
                    Ok(text) => Outcome::success(text),
                    Err((code, msg)) => Outcome::error(code, msg),
                },
            );
        }
        if call.by_ids {
            return end(ended, by_ids_outcome(call, r));
        }
        return end(ended, handler_outcome(call, &entry.desc, r));
    }
    if entry.desc.kind == FunctionKind::Output {
        let args = call.args().map(str::to_owned);
        let mut o = match &entry.desc.result {
            // an output function may declare the record its arguments make up
            Some(_) => handler_outcome(call, &entry.desc, Ok(args)),
            None => Outcome::success(args),
        };
        o.is_final = o.is_success();
        return end(ended, o);
    }
    let Some(handler) = entry.handler.as_deref() else {
        return fail(
            ended,
            ErrorCode::NotSupported,
            format!("{} has no handler", entry.desc.id),
        );
    };
    waited(call.await_host(Op::Handler, st, input, |_| {
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| handler.invoke(call))) {
            let _ = call.complete(Err((
                ErrorCode::HandlerFailed,
                format!("the handler panicked: {}", panic_text(&*p)),
            )));
        }
    }))
}

fn publish_args(call: &Call, mut json: String) {
    json.push(TERMINATOR);
    let _ = call.args.set(json);
}

/// Resolves the entity ids of group `i` through the entity's lookup (a call of its own,
/// through the delegates).
fn resolve(
    call: &Arc<Call>,
    st: &mut DriveState,
    i: usize,
    input: &mut Option<Completion>,
    ended: &mut Option<Outcome>,
) -> Next {
    let snap = call.snap();
    if let Some(Completion::Lookup(outcome)) = input.take() {
        let outcome = *outcome;
        let entity = st.resolve[i].entity;
        let def = &snap.types.entities[entity];
        if !outcome.is_success() {
            let mut o = outcome;
            if let Some(m) = &mut o.message {
                if o.error_code != Some(ErrorCode::Denied)
                    && o.status != crate::model::outcome::Status::OpenApp
                {
                    *m = format!("looking up {} failed: {m}", def.name);
                }
            }
            return end(ended, o);
        }
        let text = outcome.result.unwrap_or_else(|| "null".into());
        let listed = crate::model::binding::bind_entity_list(
            &snap.types,
            entity,
            text,
            &snap.result_limits(),
        );
        let (json, items) = match listed {
            Ok(listed) => listed,
            Err(e) => {
                let at = if e.path.is_empty() {
                    String::new()
                } else {
                    format!(" at {}", e.path)
                };
                return fail(
                    ended,
                    ErrorCode::HandlerFailed,
                    format!(
                        "the lookup of {} returned what is not an array of {} entities{at}: {}",
                        def.name, def.name, e.reason
                    ),
                );
            }
        };
        let bound = resolving(&st.bound);
        let g = &mut st.resolve[i];
        for (id, range) in items {
            let id = crate::model::binding::id_text(&json, &id);
            // (an id returned twice: the first)
            if let Some((_, found)) = g
                .wanted
                .iter_mut()
                .find(|(w, _)| bound.entity_refs[*w].id(&bound.json) == id)
            {
                found.get_or_insert(range);
            }
        }
        g.found_json = json;
        st.stage = Stage::Resolve(i + 1);
        return go();
    }
    let Some(g) = st.resolve.get(i) else {
        return substitute(call, st, ended);
    };
    let bound = resolving(&st.bound);
    let ids = g
        .wanted
        .iter()
        .map(|&(w, _)| bound.entity_refs[w].id(&bound.json));
    // {"ids":[...]} kept with its terminator, for the lookup to lend
    let mut request = String::with_capacity(16 + ids.clone().map(|i| i.len() + 3).sum::<usize>());
    request.push_str("{\"ids\":[");
    for (n, id) in ids.enumerate() {
        if n > 0 {
            request.push(',');
        }
        crate::model::binding::write_json_str(&mut request, &id);
    }
    request.push_str("]}\0"); // the close and the terminator, in one write
    let entity = g.entity;
    if let Err(o) = gate_waits_left(call, st) {
        return end(ended, o);
    }
    let Some(search) = snap.search_slot(entity) else {
        return fail(ended, ErrorCode::InternalError, "the entity has no lookup");
    };
    // the lookup answers the wait about to start; known to the call before any host code
    // runs, so cancelling the call cancels it
    let seq = next_seq(st.seq);
    let child = Call::new_lookup(call, search, entity, request, seq);
    call.ctl.lock().child = Some(child.clone());
    st.looked_up = true;
    waited(call.await_host(Op::Lookup, st, input, move |s| {
        debug_assert_eq!(s, seq);
        drive_new(&child, None, false);
    }))
}

/// Replaces each entity id in the bound arguments by its entity; an unknown id is
/// `EntityNotFound`.
fn substitute(call: &Arc<Call>, st: &mut DriveState, ended: &mut Option<Outcome>) -> Next {
    let bound = resolving(&st.bound);
    let groups = &st.resolve;
    let mut out = String::with_capacity(
        bound.json.len() + groups.iter().map(|g| g.found_json.len()).sum::<usize>() + 1,
    );
    let mut at = 0;
    for (k, r) in bound.entity_refs.iter().enumerate() {
        let group = groups
            .iter()
            .find(|g| g.entity == r.entity)
            .expect("grouped");
        // (a ref wanted in its own name, as the first of its id is, needs no comparison)
        let found = group
            .wanted
            .iter()
            .find(|&&(w, _)| w == k || bound.entity_refs[w].id(&bound.json) == r.id(&bound.json))
            .and_then(|(_, found)| found.as_ref());
        let Some(range) = found else {
            let name = &call.snap().types.entities[r.entity].name;
            return fail(
                ended,
                ErrorCode::EntityNotFound,
                format!(
                    "{}: no {name} with id {}",
                    r.path,
                    crate::model::types::quote_short(&r.id(&bound.json))
                ),
            );
        };
        out.push_str(&bound.json[at..r.range.start]);
        out.push_str(&group.found_json[range.clone()]);
        at = r.range.end;
    }
    out.push_str(&bound.json[at..]);
    st.bound = None;
    st.resolve = Vec::new();
    publish_args(call, out);
    st.stage = Stage::Gates(0);
    go()
}

/// Checks a handler's result against the declared type.
fn handler_outcome(
    call: &Call,
    desc: &crate::model::descriptor::FunctionDescriptor,
    r: crate::engine::call::HandlerResult,
) -> Outcome {
    let snap = call.snap();
    match r {
        Err((code, msg)) => Outcome::error(code, msg),
        Ok(result) => {
            match &desc.result {
                None => match result.as_deref().map(str::trim) {
                    None | Some("null") | Some("") => Outcome::success(None),
                    Some(other) => Outcome::error(
                        ErrorCode::HandlerFailed,
                        format!(
                            "{} is declared void but its handler returned {}",
                            desc.id,
                            crate::model::types::quote_short(other)
                        ),
                    ),
                },
                Some(ty) => {
                    let text = result.as_deref().unwrap_or("null");
                    let cons = desc.result_constraints.as_deref();
                    if desc.generated_for.is_none()
                        && (crate::model::binding::is_normal_form(ty, cons, text)
                            || crate::model::binding::is_normal_value(
                                &snap.types,
                                ty,
                                cons,
                                text,
                                &snap.result_limits(),
                            ))
                    {
                        // already what binding it would give back: kept as it is
                        return Outcome::success(result.filter(|r| r != "null"));
                    }
                    match bind_value_with(
                        &snap.types,
                        ty,
                        desc.result_constraints.as_deref(),
                        text,
                        Mode::Values,
                        &snap.result_limits(),
                    ) {
                        Ok(b) => {
                            let json = match (desc.generated_for, ty) {
                                (Some(_), Type::Array(_)) => apply_limit(call, b.json),
                                _ => b.json,
                            };
                            Outcome::success(if json == "null" { None } else { Some(json) })
                        }
                        Err(e) => {
                            let tn = snap.types.type_name(ty);
                            let at = if e.path.is_empty() {
                                String::new()
                            } else {
                                format!(" at {}", e.path)
                            };
                            Outcome::error(
                            ErrorCode::HandlerFailed,
                            format!("the result of {} does not match its declared type {tn}{at}: {}", desc.id, e.reason),
                        )
                        }
                    }
                }
            }
        }
    }
}

/// The answer of a lookup by ids ([`Call::new_by_ids`]): the entities in the order of the
/// ids asked for (each asked once), ids the lookup did not return left out, entities it
/// returned that were not asked for dropped (an id it returned twice: the first). A failing
/// lookup, or an answer that is not a list of the entity, names the entity.
fn by_ids_outcome(call: &Call, r: HandlerResult) -> Outcome {
    let snap = call.snap();
    let Some(entity) = call.entity else {
        return Outcome::error(ErrorCode::InternalError, "a lookup without its entity");
    };
    let def = &snap.types.entities[entity];
    let text = match r {
        Ok(text) => text,
        Err((code, msg)) => {
            return Outcome::error(code, format!("looking up {} failed: {msg}", def.name))
        }
    };
    let (json, items) = match crate::model::binding::bind_entity_list(
        &snap.types,
        entity,
        text.unwrap_or_else(|| "null".into()),
        &snap.result_limits(),
    ) {
        Ok(bound) => bound,
        Err(e) => {
            let at = if e.path.is_empty() {
                String::new()
            } else {
                format!(" at {}", e.path)
            };
            return Outcome::error(
                ErrorCode::HandlerFailed,
                format!(
                    "the lookup of {} returned what is not an array of {} entities{at}: {}",
                    def.name, def.name, e.reason
                ),
            );
        }
    };
    // the request is the one the dispatcher wrote: {"ids":[...]}, each id once
    let asked: Vec<String> = call
        .lookup_request()
        .and_then(|r| serde_json::from_str::<Value>(r).ok())
        .and_then(|v| serde_json::from_value(v.get("ids")?.clone()).ok())
        .unwrap_or_default();
    let mut by_id: std::collections::HashMap<_, &std::ops::Range<usize>> =
        std::collections::HashMap::with_capacity(items.len());
    for (id, range) in &items {
        by_id
            .entry(crate::model::binding::id_text(&json, id))
            .or_insert(range);
    }
    let mut out = String::with_capacity(json.len());
    out.push('[');
    for id in &asked {
        if let Some(range) = by_id.get(&std::borrow::Cow::Borrowed(id.as_str())) {
            if out.len() > 1 {
                out.push(',');
            }
            out.push_str(&json[(*range).clone()]);
        }
    }
    out.push(']');
    Outcome::success(Some(out))
}

/// A search's `limit`: the lookup may return more; the caller gets at most `limit`.
fn apply_limit(call: &Call, json: String) -> String {
    let limit = call
        .lookup_request()
        .and_then(|r| serde_json::from_str::<Value>(r).ok())
        .and_then(|v| v.get("limit").and_then(Value::as_u64));
    let Some(limit) = limit else { return json };
    match serde_json::from_str::<Vec<Value>>(&json) {
        Ok(mut list) if list.len() as u64 > limit => {
            list.truncate(limit as usize);
            serde_json::to_string(&list).unwrap_or(json)
        }
        _ => json,
    }
}

fn abort_outcome(call: &Call, code: ErrorCode) -> Outcome {
    if call.by_ids {
        let name = call.entity_name().unwrap_or_default();
        return Outcome::error(
            code,
            match code {
                ErrorCode::TimedOut => format!(
                    "looking up {name} by id did not finish within {} ms",
                    call.timeout.map_or(0, |t| t.as_millis())
                ),
                _ => format!("looking up {name} by id was cancelled"),
            },
        );
    }
    match code {
        ErrorCode::TimedOut => Outcome::error(
            code,
            format!(
                "{} did not finish within {} ms",
                call.function_id(),
                call.timeout.map_or(0, |t| t.as_millis())
            ),
        ),
        _ => Outcome::error(
            code,
            format!("the call to {} was cancelled", call.function_id()),
        ),
    }
}

/// Ends the call once: `on_invoked` for every delegate, scope end, the handle released,
/// the outcome delivered: to the call a lookup serves, to the outcome sink, back to the
/// thread that started the call when it asked for it (`direct`), or to a waiter.
fn finish(
    call: &Arc<Call>,
    st: &mut DriveState,
    outcome: &mut Outcome,
    direct: bool,
) -> Option<Delivered> {
    // only the thread driving the call gets here (the wait word hands the drive from one
    // thread to the next), once
    if call.finished.load(Ordering::Acquire) {
        return None;
    }
    call.finished.store(true, Ordering::Release);
    // what other threads may have put in the call's state: only a call with an outcome
    // sink (and its timer) or lookups has any
    let (child, sink, parked) = if call.has_sink || st.looked_up {
        let mut ctl = call.ctl.lock();
        ctl.inline_result = None;
        (ctl.child.take(), ctl.sink.take(), ctl.parked.take())
    } else {
        (None, None, None)
    };
    if call.has_sink {
        // (SeqCst: agrees with the thread that armed it, which may be moving it now:
        // Dispatcher::drive_async, timer::promote)
        let number = call.timer_seq.swap(0, Ordering::SeqCst);
        if number != 0 {
            if let Some(deadline) = call.deadline() {
                crate::engine::timer::disarm(deadline, number);
            }
        }
    }
    if let Some(c) = child {
        if !c.finished.load(Ordering::Acquire) {
            // a lookup still running for this call is not wanted any more
            c.cancel(outcome.error_code.unwrap_or(ErrorCode::Cancelled));
        }
    }
    // (most calls say nothing and their outcome has no dialog: nothing to set)
    if call.parent.is_none() && (call.has_said() || outcome.dialog.is_some()) {
        outcome.dialog = call.dialog();
    }
    let delegates = &call.snap().delegates;
    let invoked = delegates.iter().any(|d| d.has_on_invoked());
    // kept with its terminator (model::terminated), so a borrower is lent it without a copy
    // (made only when someone reads it; in the result's buffer when only its JSON is read)
    // (an outcome callback that reads only the JSON takes it too)
    let json_only = !invoked && !call.keep_outcome && call.parent.is_none();
    let wants_json = invoked || (call.parent.is_none() && (sink.is_some() || !call.keep_outcome));
    // (the outcome stays in place: a JSON-only delivery takes its result's buffer)
    let json: std::borrow::Cow<'static, str> = if json_only {
        outcome.take_json_terminated().into()
    } else if wants_json {
        outcome.to_json_terminated().into()
    } else {
        crate::model::terminated::EMPTY.into()
    };
    for d in delegates.iter() {
        if d.has_on_invoked() {
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| {
                d.on_invoked_terminated(call, outcome, Terminated::new(&json))
            })) {
                call.log(
                    LogLevel::Warn,
                    &format!(
                        "a delegate's on_invoked failed for {} and was ignored: {}",
                        call.function_id(),
                        panic_text(&*p)
                    ),
                );
            }
        }
    }
    if st.began {
        if let Some(h) = &call.snap().scope_hooks {
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| h.end(call))) {
                call.log(
                    LogLevel::Error,
                    &format!("the scope-end hook failed: {}", panic_text(&*p)),
                );
            }
        }
    }
    // the host's releases: its data after the scope end, the cancel callbacks never run
    call.release_host_data();
    call.close_cancel_callbacks();
    call.release_handle();
    drop(parked);
    // (the outcome itself is there for all but a JSON-only delivery)
    let mut outcome = || std::mem::replace(outcome, Outcome::success(None));
    if let Some(p) = &call.parent {
        // a lookup: its call checks the answer (and goes on with it)
        let _ = p.answer(
            Some(call.lookup_seq),
            Op::Lookup,
            Completion::Lookup(Box::new(outcome())),
        );
        return None;
    }
    if let Some(s) = sink {
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| {
            s.deliver(outcome(), Terminated::new(&json))
        })) {
            call.log(
                LogLevel::Error,
                &format!("the outcome callback failed: {}", panic_text(&*p)),
            );
        }
        // after the outcome callback returned
        if let Some(shard) = call.in_flight_shard {
            call.shared().call_ended(shard);
        }
        return None;
    }
    // a synchronous waiter returns as soon as it sees the outcome: the call stops
    // counting as in flight first
    if let Some(shard) = call.in_flight_shard {
        call.shared().call_ended(shard);
    }
    if direct {
        return Some(if call.keep_outcome {
            Delivered::Outcome(outcome())
        } else {
            Delivered::Json(json.into_owned())
        });
    }
    let mut ctl = call.ctl.lock();
    if call.keep_outcome {
        ctl.outcome = Some(Box::new(outcome()));
    } else {
        ctl.outcome_json = Some(json.into_owned());
    }
    call.done.notify_all();
    None
}

/// Refuses a gate or lookup wait past [`handles::MAX_GATE_WAITS`] in one call: its handle
/// could not be told from an earlier gate's, so a stale answer could decide it.
fn gate_waits_left(call: &Call, st: &DriveState) -> Result<(), Outcome> {
    if st.seq < handles::MAX_GATE_WAITS {
        return Ok(());
    }
    Err(Outcome::error(
        ErrorCode::LimitExceeded,
        format!(
            "the call to {} waited for {} gates and entity lookups, the most one call may \
             (each delegate with on_invoking, the permission hook and each entity lookup is one)",
            call.function_id(),
            handles::MAX_GATE_WAITS
        ),
    ))
}

/// The sequence number of the wait after `seq` (never 0 in the bits a gate handle
/// carries, so a gate handle never looks like its call's).
fn next_seq(seq: u32) -> u32 {
    let mut next = seq.wrapping_add(1);
    if handles::seq_bits(next) == 0 {
        next = next.wrapping_add(1);
    }
    next
}

// How a call is answered and cancelled: whoever answers a wait, or cancels, drives the
// call on from here (the scope and its data are `call`'s).

impl Call {
    /// Cancels the call (`Cancelled` or `TimedOut`): the handler is not started if it has
    /// not been; a pending host answer is abandoned and the outcome delivered now, on this
    /// thread (the cancel callbacks, `on_invoked`, scope end and the outcome run here).
    pub fn cancel(self: &Arc<Self>, code: ErrorCode) {
        if self.mark_cancelled(code) {
            self.end_cancelled(code);
        }
    }

    /// Ends a call marked cancelled on a thread of the completion pool, so that its host
    /// callbacks hold up neither this thread nor any other call.
    pub(crate) fn end_cancelled_later(self: Arc<Self>, code: ErrorCode) {
        let shared = self.shared().clone();
        shared.completions.submit(Box::new(move |w: crate::engine::threads::Waited| {
            if w.at_cap {
                self.log(
                    LogLevel::Warn,
                    &format!(
                        "all {} completion threads of this dispatcher are running host callbacks (the cap): ending the call to {} ({}) waited {} ms for one of them to return",
                        w.cap,
                        self.function_id(),
                        code.as_str(),
                        w.waited.as_millis()
                    ),
                );
            }
            self.end_cancelled(code);
        }));
    }

    /// Takes over a suspended wait (the word moves from SUSPENDED to IDLE): the caller
    /// drives the call on with the drive state and the call's own reference it returns.
    /// `None` when the call does not wait suspended (it runs a callback now, or has no wait).
    fn claim_suspended(&self) -> Option<(DriveState, Option<Arc<Call>>)> {
        loop {
            let w = self.wait.load(Ordering::SeqCst);
            if wait::state(w) != wait::SUSPENDED {
                return None;
            }
            if self
                .wait
                .compare_exchange(w, wait::IDLE, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                // the thread that suspended stores these before it lets go of the lock
                let mut ctl = self.ctl.lock();
                let st = ctl.suspended.take().map(|s| *s).unwrap_or_default();
                return Some((st, ctl.parked.take()));
            }
        }
    }

    /// The rest of a cancellation marked by [`Call::mark_cancelled`]: the cancel
    /// callbacks, a lookup in flight cancelled, and a call waiting for the host ended
    /// (`on_invoked`, scope end, the outcome).
    pub(crate) fn end_cancelled(self: &Arc<Self>, code: ErrorCode) {
        // the pending wait is abandoned before the host hears of the cancellation (an
        // answer it gives in reaction is late: the call is marked), and the outcome is
        // Cancelled / TimedOut
        let resume = self.claim_suspended();
        let finished = self.finished.load(Ordering::Acquire);
        if code == ErrorCode::TimedOut && !finished && self.parent.is_none() {
            self.log(
                LogLevel::Warn,
                &format!(
                    "{} timed out after {} ms ({}); it ends TimedOut",
                    self.function_id(),
                    self.timeout.map_or(0, |t| t.as_millis()),
                    if self.timeout_is_default {
                        "the dispatcher's default timeout"
                    } else {
                        "the invocation's timeout"
                    }
                ),
            );
        }
        self.run_cancel_callbacks();
        if finished {
            return;
        }
        let child = self.ctl.lock().child.clone();
        if let Some(c) = child {
            c.cancel(code);
        }
        if let Some((st, parked)) = resume {
            drive(self, st, Some(Completion::Abort(code)), false);
            drop(parked);
        }
    }

    /// Starts waiting for a host answer and runs `invoke` (the host callback) with the
    /// wait's sequence number. `true` with the answer in `input` when it came inline;
    /// `false` when the call is suspended (its drive state stored for whoever answers
    /// later, who drives it on).
    pub(crate) fn await_host(
        self: &Arc<Self>,
        op: Op,
        st: &mut DriveState,
        input: &mut Option<Completion>,
        invoke: impl FnOnce(u32),
    ) -> bool {
        if let Some(code) = self.cancel_code() {
            *input = Some(Completion::Abort(code));
            return true;
        }
        let seq = next_seq(st.seq);
        st.seq = seq;
        // (answers are given by the callback below, or by what it hands the wait to: after
        // this store)
        self.wait
            .store(wait::pack(seq, op, wait::INLINE), Ordering::Release);
        let frame = FrameGuard::enter(Arc::as_ptr(self) as usize, seq);
        invoke(seq);
        // an answer given on this thread goes straight into the input slot
        frame.leave(input);
        loop {
            let w = self.wait.load(Ordering::SeqCst);
            match wait::state(w) {
                wait::ALLOWED => {
                    self.wait.store(wait::IDLE, Ordering::Release);
                    *input = Some(Completion::Gate(GateDecision::Allow));
                    return true;
                }
                wait::ANSWERED_HERE => {
                    self.wait.store(wait::IDLE, Ordering::Release);
                    return input.is_some();
                }
                wait::ANSWERED => {
                    *input = self.ctl.lock().inline_result.take().map(|c| *c);
                    self.wait.store(wait::IDLE, Ordering::Release);
                    return input.is_some();
                }
                wait::INLINE
                    if self.on_no_timer() && self.cancel_code() == Some(ErrorCode::TimedOut) =>
                {
                    // a call without a sink is timed out only by its callback's late
                    // inline answer (`past_unwatched_deadline`), on this thread: nobody
                    // else ends it (a canceller claims only a suspended wait), so the rest
                    // of the cancellation runs here now that the callback has returned
                    // (the warning, the cancel callbacks, a lookup in flight), no lock held
                    if self
                        .wait
                        .compare_exchange(w, wait::IDLE, Ordering::SeqCst, Ordering::SeqCst)
                        .is_err()
                    {
                        continue;
                    }
                    self.end_cancelled(ErrorCode::TimedOut);
                    *input = Some(Completion::Abort(ErrorCode::TimedOut));
                    return true;
                }
                wait::INLINE => {
                    let mut ctl = self.ctl.lock();
                    let suspended = wait::pack(seq, op, wait::SUSPENDED);
                    if self
                        .wait
                        .compare_exchange(w, suspended, Ordering::SeqCst, Ordering::SeqCst)
                        .is_err()
                    {
                        // answered meanwhile
                        continue;
                    }
                    if let Some(code) = self.cancel_code_with(Ordering::SeqCst) {
                        // cancelled while the callback ran: end it here, unless the
                        // cancelling thread took the wait over already
                        if self
                            .wait
                            .compare_exchange(
                                suspended,
                                wait::IDLE,
                                Ordering::SeqCst,
                                Ordering::SeqCst,
                            )
                            .is_ok()
                        {
                            *input = Some(Completion::Abort(code));
                            return true;
                        }
                    }
                    // whoever answers later drives the call on from here; alive until
                    // then, whatever the host keeps
                    ctl.suspended = Some(Box::new(std::mem::take(st)));
                    ctl.parked = Some(self.clone());
                    return false;
                }
                // (IDLE or SUSPENDED cannot be: only this thread moves the word out of INLINE
                // but to an answer)
                _ => return false,
            }
        }
    }

    /// Delivers a host answer for the wait `seq` (or, with `seq == None`, for whatever
    /// wait of kind `op` is pending).
    pub(crate) fn answer(
        self: &Arc<Self>,
        seq: Option<u32>,
        op: Op,
        c: Completion,
    ) -> Result<(), CompleteError> {
        let mut c = Some(c);
        loop {
            let w = match self.answer_inline(seq, op, &mut c) {
                Answered::Done(r) => return r.map_err(|e| *e),
                Answered::Slow(w) => w,
            };
            if wait::state(w) == wait::SUSPENDED {
                // the call waits with no callback running: this thread drives it on
                let Some((st, parked)) = self.claim_suspended_word(w) else {
                    continue;
                };
                drive(self, st, c, false);
                drop(parked);
                return Ok(());
            }
            // the callback that started the wait runs on another thread: the answer waits
            // for it in the call's state
            let mut ctl = self.ctl.lock();
            let answered = wait::pack(wait::seq(w), op, wait::ANSWERED);
            if self
                .wait
                .compare_exchange(w, answered, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                ctl.inline_result = c.map(Box::new);
                return Ok(());
            }
        }
    }

    /// The part of [`Call::answer`] that takes no lock and runs no host code: refusals,
    /// and an answer handed over to the callback running now on this thread (or a gate
    /// allowed, from any thread): taken from `c`, which the caller makes in place. `Slow`
    /// leaves it there and gives the wait word it saw when the call is suspended or the
    /// callback runs on another thread.
    pub(crate) fn answer_inline(
        &self,
        seq: Option<u32>,
        op: Op,
        c: &mut Option<Completion>,
    ) -> Answered {
        loop {
            if self.cancel_code().is_some() {
                // cancelled or timed out: whatever answers now is late
                return Answered::Done(Err(Box::new(self.already_completed())));
            }
            let w = self.wait.load(Ordering::SeqCst);
            let state = wait::state(w);
            let waiting = state == wait::INLINE || state == wait::SUSPENDED;
            let matches = waiting
                && wait::op(w) == op as u8
                && seq.is_none_or(|s| handles::seq_bits(wait::seq(w)) == handles::seq_bits(s));
            if !matches {
                // a gate (or lookup) handle names one wait: when it is not the current one, that
                // wait is over (gates never wrap: see gate_waits_left), whatever the call waits for now
                let earlier_wait = seq.is_some_and(|s| handles::seq_bits(s) != 0);
                let waiting_for_other =
                    waiting && !earlier_wait && !self.finished.load(Ordering::Acquire);
                return Answered::Done(Err(Box::new(if waiting_for_other {
                    CompleteError::NotWaiting(
                        self.function_id().to_string(),
                        match op {
                            Op::Gate => "gate answer",
                            Op::Handler => "handler result",
                            Op::Lookup => "lookup result",
                        },
                    )
                } else {
                    self.already_completed()
                })));
            }
            if state == wait::SUSPENDED {
                return Answered::Slow(w);
            }
            // (the callback that started the wait has not returned)
            if self.past_unwatched_deadline() {
                // answered after its deadline: as late as an answer the timer refused
                // (the callback's return ends the call TimedOut: `await_host`)
                self.mark_cancelled(ErrorCode::TimedOut);
                return Answered::Done(Err(Box::new(self.already_completed())));
            }
            // the callback that started the wait runs now: the answer is handed over
            let wseq = wait::seq(w);
            let handed = if matches!(c, Some(Completion::Gate(GateDecision::Allow))) {
                wait::ALLOWED
            } else {
                let me = self as *const Call as usize;
                let on_its_thread = FRAME
                    .try_with(|f| {
                        f.get()
                            == Frame {
                                call: me,
                                seq: wseq,
                            }
                    })
                    .unwrap_or(false)
                    && FRAME_ANSWER
                        .try_with(|a| a.borrow().is_none())
                        .unwrap_or(false);
                if !on_its_thread {
                    return Answered::Slow(w);
                }
                wait::ANSWERED_HERE
            };
            if self
                .wait
                .compare_exchange(
                    w,
                    wait::pack(wseq, op, handed),
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                )
                .is_ok()
            {
                if handed == wait::ANSWERED_HERE {
                    FRAME_ANSWER.with(|a| *a.borrow_mut() = c.take());
                }
                return Answered::Done(Ok(()));
            }
        }
    }

    /// [`Call::claim_suspended`] of the word `w` seen suspended.
    fn claim_suspended_word(&self, w: u64) -> Option<(DriveState, Option<Arc<Call>>)> {
        self.wait
            .compare_exchange(w, wait::IDLE, Ordering::SeqCst, Ordering::SeqCst)
            .ok()?;
        let mut ctl = self.ctl.lock();
        let st = ctl.suspended.take().map(|s| *s).unwrap_or_default();
        Some((st, ctl.parked.take()))
    }

    /// A call without a sink (`Dispatcher::execute`, `af_execute_json`) is on no timer:
    /// the thread waiting for its outcome watches its deadline, but only while the call
    /// waits for the host. A host callback that blocks on that thread and answers inline
    /// is checked here, when it answers: past the deadline, the answer is late and the call
    /// ends `TimedOut` when the callback returns (docs/threads.md, "Timeouts"). One clock
    /// read per inline answer of such a call; a call with a sink has its deadline on the
    /// timer and reads no clock here.
    #[inline]
    fn past_unwatched_deadline(&self) -> bool {
        self.on_no_timer()
            && self
                .deadline()
                .is_some_and(|d| std::time::Instant::now() >= d)
    }

    /// A top-level call without a sink: a blocking execute, whose deadline no timer
    /// watches (`past_unwatched_deadline`).
    #[inline]
    fn on_no_timer(&self) -> bool {
        !self.has_sink && self.parent.is_none()
    }

    fn already_completed(&self) -> CompleteError {
        CompleteError::AlreadyCompleted(self.function_id().to_string())
    }

    /// Completes the running handler (or lookup) of this call.
    pub fn complete(self: &Arc<Self>, result: HandlerResult) -> Result<(), CompleteError> {
        self.answer(None, Op::Handler, Completion::Handler(result))
    }

    /// Answers the gate with sequence `seq`.
    pub(crate) fn answer_gate(
        self: &Arc<Self>,
        seq: u32,
        d: GateDecision,
    ) -> Result<(), CompleteError> {
        self.answer(Some(seq), Op::Gate, Completion::Gate(d))
    }
}

impl Call {
    /// The handle of the gate with sequence `seq` (what [`Gate::into_handle`] gives), for
    /// a delegate answering through [`Gate::answer_handle`] (`Delegate::on_invoking_seq`).
    /// `None` when the handle table is exhausted: the gate is then denied.
    #[doc(hidden)]
    pub(crate) fn gate_handle(self: &Arc<Self>, seq: u32) -> Option<usize> {
        match self.handle() {
            Some(h) => Some(handles::with_seq(h, seq)),
            None => {
                let _ =
                    self.answer_gate(seq, GateDecision::Deny("too many calls in flight".into()));
                None
            }
        }
    }
}

impl crate::engine::timer::Expire for Call {
    /// The call's deadline passed: marked timed out here, on the timer thread, and ended
    /// on the completion pool.
    fn expire(self: Arc<Self>) {
        if self.finished.load(Ordering::Acquire) {
            return;
        }
        if self.mark_cancelled(ErrorCode::TimedOut) {
            self.end_cancelled_later(ErrorCode::TimedOut);
        }
    }
}

impl Gate {
    /// Answers the gate; refused when the call is no longer waiting for it.
    pub fn answer(mut self, d: GateDecision) -> Result<(), CompleteError> {
        self.answered = true;
        self.call.answer_gate(self.seq, d)
    }
    /// Lets the call go on.
    pub fn allow(self) -> Result<(), CompleteError> {
        self.answer(GateDecision::Allow)
    }
    /// Ends the call `PermissionDenied` with `msg`.
    pub fn deny(self, msg: impl Into<String>) -> Result<(), CompleteError> {
        self.answer(GateDecision::Deny(msg.into()))
    }
    /// Ends the call `openApp` with `msg`.
    pub fn open_app(self, msg: impl Into<String>) -> Result<(), CompleteError> {
        self.answer(GateDecision::OpenApp(msg.into()))
    }
    /// Turns the gate into a handle (answered through [`Gate::answer_handle`]).
    /// `None` when the handle table is exhausted (the gate is then denied).
    pub(crate) fn into_handle(mut self) -> Option<usize> {
        let h = self.call.handle()?;
        self.answered = true;
        Some(handles::with_seq(h, self.seq))
    }

    /// The sequence number (its low bits) a gate handle carries.
    pub(crate) fn seq_of_handle(h: usize) -> u32 {
        handles::seq_of(h)
    }

    /// Answers a gate through a handle made by [`Gate::into_handle`] or
    /// [`Call::gate_handle`].
    pub(crate) fn answer_handle(h: usize, d: GateDecision) -> Result<(), CompleteError> {
        let d = match answer_by_handle(h, true, Completion::Gate(d)) {
            Ok(r) => return r,
            Err(Completion::Gate(d)) => d,
            Err(_) => unreachable!("a gate answer comes back as one"),
        };
        match crate::engine::call::handle_table().get(h) {
            handles::Lookup::Live(c, seq) if seq != 0 => c.answer_gate(seq, d),
            handles::Lookup::Live(c, _) => Err(CompleteError::NotWaiting(
                c.function_id().to_string(),
                "gate answer",
            )),
            handles::Lookup::Ended(t) => Err(CompleteError::AlreadyCompleted(
                crate::engine::call::ended_id(&t),
            )),
            handles::Lookup::Unknown => Err(CompleteError::AlreadyCompleted(
                "an unknown function".into(),
            )),
        }
    }
}

/// Answers the wait of the live call handle `h` names (a gate handle with `gate`, else a
/// call handle): handed over under the handle's lock when it can be, without taking a
/// reference to the call; otherwise through a reference, as [`Call::answer`]. `Err` gives
/// the answer back when `h` names no such live handle.
fn answer_by_handle(
    h: usize,
    gate: bool,
    c: Completion,
) -> Result<Result<(), CompleteError>, Completion> {
    let op = if gate { Op::Gate } else { Op::Handler };
    let mut c = Some(c);
    let r = crate::engine::call::handle_table().with(h, |call, seq| {
        if (seq != 0) != gate {
            return None;
        }
        let seq = gate.then_some(seq);
        Some(match call.answer_inline(seq, op, &mut c) {
            Answered::Done(r) => Ok(r.map_err(|e| *e)),
            Answered::Slow(_) => Err((call.clone(), seq)),
        })
    });
    match r.flatten() {
        Some(Ok(r)) => Ok(r),
        Some(Err((call, seq))) => Ok(call.answer(seq, op, c.take().expect("given back"))),
        None => Err(c.take().expect("not taken")),
    }
}

impl Call {
    /// Completes the handler (or lookup) of the call a call handle names, as
    /// [`Call::complete`]; `Err` gives the result back when `h` names no live call (the
    /// caller tells why).
    #[doc(hidden)]
    pub(crate) fn complete_handle(
        h: usize,
        result: HandlerResult,
    ) -> Result<Result<(), CompleteError>, HandlerResult> {
        match answer_by_handle(h, false, Completion::Handler(result)) {
            Ok(r) => Ok(r),
            Err(Completion::Handler(r)) => Err(r),
            Err(_) => unreachable!("a handler result comes back as one"),
        }
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        if !self.answered {
            let _ = self.call.answer_gate(
                self.seq,
                GateDecision::Deny("the gate was dropped without an answer".into()),
            );
        }
    }
}

impl crate::engine::cancel::Cancellable for Call {
    fn mark_cancelled(&self, code: ErrorCode) -> bool {
        Call::mark_cancelled(self, code)
    }
    fn end_cancelled(self: Arc<Self>, code: ErrorCode) {
        Call::end_cancelled(&self, code)
    }
    fn end_cancelled_later(self: Arc<Self>, code: ErrorCode) {
        Call::end_cancelled_later(self, code)
    }
    fn has_ended(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }
}
