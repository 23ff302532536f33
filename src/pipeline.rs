//! One call, start to finish (DESIGN.md): scope begin, find, bind, resolve entities,
//! delegates, opensApp and permission, the handler, the outcome, `on_invoked`, scope end.
//!
//! The pipeline is a state machine. Each step that waits for the host (a gate, a lookup,
//! the handler) either gets its answer inline (the loop goes on) or suspends; whoever
//! answers later drives the call on, on their own thread. No lock is held while host
//! code runs.

use crate::binding::{bind_arguments, bind_value_with, Mode};
use crate::call::{
    Call, CallKind, CompleteError, Completion, Gate, GateDecision, HandlerResult, Op, Platform,
    Resolution, Stage, Wait,
};
use crate::descriptor::FunctionKind;
use crate::error::ErrorCode;
use crate::handles;
use crate::log::LogLevel;
use crate::outcome::Outcome;
use crate::types::Type;
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

enum Next {
    Go,
    Wait,
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

/// Runs the call until it finishes or waits for the host. `input` is the host's answer
/// to the wait that suspended it.
pub(crate) fn drive(call: &Arc<Call>, mut input: Option<Completion>) {
    // one thread drives a call at a time: the stage is kept here while it runs, and
    // stored in the call when it waits for the host (await_host), for whoever answers
    let mut stage = call.ctl.lock().stage;
    loop {
        if let Some(Completion::Abort(code)) = input {
            return finish(call, abort_outcome(call, code));
        }
        // the scope begins even for a call cancelled before it started, so every begin
        // has its end
        if input.is_none() && stage != Stage::Begin {
            if let Some(code) = call.cancel_code() {
                return finish(call, abort_outcome(call, code));
            }
        }
        let step = catch_unwind(AssertUnwindSafe(|| step(call, &mut stage, input.take())));
        match step {
            Ok(Ok((Next::Go, next_input))) => input = next_input,
            Ok(Ok((Next::Wait, _))) => return,
            Ok(Err(outcome)) => return finish(call, outcome),
            Err(p) => {
                return finish(
                    call,
                    Outcome::error(
                        ErrorCode::InternalError,
                        format!("the pipeline failed unexpectedly: {}", panic_text(&*p)),
                    ),
                )
            }
        }
    }
}

type StepResult = Result<(Next, Option<Completion>), Outcome>;

fn go() -> StepResult {
    Ok((Next::Go, None))
}

/// Waits for a host answer: inline answers continue the loop at once.
fn waited(c: Option<Completion>) -> StepResult {
    match c {
        Some(c) => Ok((Next::Go, Some(c))),
        None => Ok((Next::Wait, None)),
    }
}

fn step(call: &Arc<Call>, stage: &mut Stage, input: Option<Completion>) -> StepResult {
    let snap = &call.snap;
    match *stage {
        Stage::Begin => {
            if call.parent.is_none() {
                if let Some(h) = &snap.scope_hooks {
                    call.ctl.lock().began = true;
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| h.begin(call))) {
                        return Err(Outcome::error(
                            ErrorCode::InternalError,
                            format!("the scope-begin hook failed: {}", panic_text(&*p)),
                        ));
                    }
                }
            }
            *stage = if call.parent.is_some() {
                Stage::Gates(0)
            } else {
                Stage::Find
            };
            go()
        }
        Stage::Find => {
            // execute looked the function up when it made the call
            let Some(entry) = call.entry() else {
                return Err(Outcome::error(
                    ErrorCode::FunctionNotFound,
                    snap.not_found_message(call.function_id()),
                ));
            };
            if !entry.is_enabled() {
                return Err(Outcome::error(
                    ErrorCode::Disabled,
                    format!("{} is disabled", call.function_id()),
                ));
            }
            if let Some(why) = snap.callers.refuses(call.caller_package()) {
                return Err(Outcome::error(
                    ErrorCode::Denied,
                    format!("{why} to call functions of this app"),
                ));
            }
            if let Some(why) = entry.desc.callers.refuses(call.caller_package()) {
                return Err(Outcome::error(
                    ErrorCode::Denied,
                    format!("{why} to call {}", call.function_id()),
                ));
            }
            *stage = Stage::Bind;
            go()
        }
        Stage::Bind => {
            if call.args_fixed.is_some() {
                // bound when the call was made, with no entity to resolve: shown from now on
                call.args_ready
                    .store(true, std::sync::atomic::Ordering::Release);
                *stage = Stage::Gates(0);
                return go();
            }
            let entry = call.entry().expect("found");
            let pre = call.pre_bound.lock().take();
            let bound = match pre {
                Some(b) => b,
                None => bind_arguments(&snap.types, &entry.desc.parameters, None, &snap.limits),
            }
            .map_err(|e| Outcome::error(ErrorCode::InvalidArgument, e.to_string()))?;
            if bound.entity_refs.is_empty() {
                publish_args(call, bound.json);
                *stage = Stage::Gates(0);
            } else {
                let mut groups: Vec<Resolution> = Vec::new();
                for r in &bound.entity_refs {
                    match groups.iter_mut().find(|g| g.entity == r.entity) {
                        Some(g) => {
                            if !g.ids.contains(&r.id) {
                                g.ids.push(r.id.clone());
                            }
                        }
                        None => groups.push(Resolution {
                            entity: r.entity,
                            ids: vec![r.id.clone()],
                            found: Vec::new(),
                        }),
                    }
                }
                let mut ctl = call.ctl.lock();
                ctl.bound = Some(bound);
                ctl.resolve = groups;
                *stage = Stage::Resolve(0);
            }
            go()
        }
        Stage::Resolve(i) => resolve(call, stage, i, input),
        Stage::Gates(i) => {
            if let Some(Completion::Gate(d)) = input {
                match d {
                    GateDecision::Allow => {}
                    GateDecision::Deny(msg) => return Err(Outcome::error(ErrorCode::Denied, msg)),
                    GateDecision::OpenApp(msg) => match (call.platform, call.foreground) {
                        (Platform::Apple, false) => return Err(Outcome::open_app(msg)),
                        // in the foreground the user is in the app already: the gate passes
                        (Platform::Apple, true) => {}
                        // android and in-process calls have no way to continue in the app
                        _ => return Err(Outcome::error(ErrorCode::Denied, msg)),
                    },
                }
                *stage = Stage::Gates(i + 1);
                return go();
            }
            let Some(d) = snap.delegates.get(i).cloned() else {
                *stage = if call.parent.is_some() {
                    Stage::Handler
                } else {
                    Stage::OpensApp
                };
                return go();
            };
            if d.has_on_invoking() {
                waited(call.await_host(Op::Gate, *stage, |seq| {
                    let gate = Gate::new(call.clone(), seq);
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| d.on_invoking(call, gate))) {
                        let _ = call.answer_gate(
                            seq,
                            GateDecision::Deny(format!("a delegate failed: {}", panic_text(&*p))),
                        );
                    }
                }))
            } else {
                *stage = Stage::Gates(i + 1);
                go()
            }
        }
        Stage::OpensApp => {
            let desc = &call.entry().expect("found").desc;
            if desc.opens_app && call.platform == Platform::Apple && !call.foreground {
                let name = desc.title.as_deref().unwrap_or(&desc.id);
                return Err(Outcome::open_app(format!("Continue in the app to {name}.")));
            }
            *stage = Stage::Permission;
            go()
        }
        Stage::Permission => {
            let desc = &call.entry().expect("found").desc;
            if let Some(Completion::Gate(d)) = input {
                return match d {
                    GateDecision::Allow => {
                        *stage = Stage::Handler;
                        go()
                    }
                    GateDecision::Deny(m) | GateDecision::OpenApp(m) => {
                        Err(Outcome::error(ErrorCode::PermissionDenied, m))
                    }
                };
            }
            if !desc.requires_permission {
                *stage = Stage::Handler;
                return go();
            }
            let Some(hook) = snap.permission.clone() else {
                return Err(Outcome::error(
                    ErrorCode::PermissionDenied,
                    format!(
                        "{} requires permission and the app has no permission hook to ask the user",
                        desc.id
                    ),
                ));
            };
            waited(call.await_host(Op::Gate, *stage, |seq| {
                let gate = Gate::new(call.clone(), seq);
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| hook.ask(call, gate))) {
                    let _ = call.answer_gate(
                        seq,
                        GateDecision::Deny(format!(
                            "the permission hook failed: {}",
                            panic_text(&*p)
                        )),
                    );
                }
            }))
        }
        Stage::Handler => {
            let entry = call.entry().expect("found");
            if let Some(Completion::Handler(r)) = input {
                if call.parent.is_some() {
                    // a lookup resolving ids: the call it serves checks the answer
                    // (bind_entity_list), once
                    return Err(match r {
                        Ok(text) => Outcome::success(text),
                        Err((code, msg)) => Outcome::error(code, msg),
                    });
                }
                return Err(handler_outcome(call, &entry.desc, r));
            }
            if entry.desc.kind == FunctionKind::Output {
                let args = call.args().map(str::to_owned);
                let mut o = match &entry.desc.result {
                    // an output function may declare the record its arguments make up
                    Some(_) => handler_outcome(call, &entry.desc, Ok(args)),
                    None => Outcome::success(args),
                };
                o.is_final = o.is_success();
                return Err(o);
            }
            let Some(handler) = entry.handler.as_deref() else {
                return Err(Outcome::error(
                    ErrorCode::NotSupported,
                    format!("{} has no handler", entry.desc.id),
                ));
            };
            waited(call.await_host(Op::Handler, *stage, |_| {
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| handler.invoke(call))) {
                    let _ = call.complete(Err((
                        ErrorCode::HandlerFailed,
                        format!("the handler panicked: {}", panic_text(&*p)),
                    )));
                }
            }))
        }
        Stage::Done => Ok((Next::Wait, None)),
    }
}

fn publish_args(call: &Call, mut json: String) {
    json.push('\0');
    if call.kind == CallKind::EntityLookup {
        let _ = call.lookup_request.set(json);
    } else {
        let _ = call.args.set(json);
    }
}

/// Resolves the entity ids of group `i` through the entity's lookup (a call of its own,
/// through the delegates).
fn resolve(call: &Arc<Call>, stage: &mut Stage, i: usize, input: Option<Completion>) -> StepResult {
    let snap = &call.snap;
    if let Some(Completion::Lookup(outcome)) = input {
        let entity = call.ctl.lock().resolve[i].entity;
        let def = &snap.types.entities[entity];
        if !outcome.is_success() {
            let mut o = outcome;
            if let Some(m) = &mut o.message {
                if o.error_code != Some(ErrorCode::Denied)
                    && o.status != crate::outcome::Status::OpenApp
                {
                    *m = format!("looking up {} failed: {m}", def.name);
                }
            }
            return Err(o);
        }
        let text = outcome.result.as_deref().unwrap_or("null");
        let (json, items) =
            crate::binding::bind_entity_list(&snap.types, entity, text, &snap.result_limits())
                .map_err(|e| {
                    let at = if e.path.is_empty() {
                        String::new()
                    } else {
                        format!(" at {}", e.path)
                    };
                    Outcome::error(
                        ErrorCode::HandlerFailed,
                        format!(
                            "the lookup of {} returned what is not an array of {} entities{at}: {}",
                            def.name, def.name, e.reason
                        ),
                    )
                })?;
        let mut ctl = call.ctl.lock();
        let g = &mut ctl.resolve[i];
        for (id, range) in items {
            if g.ids.contains(&id) && !g.found.iter().any(|(x, _)| *x == id) {
                g.found.push((id, json[range].to_owned()));
            }
        }
        drop(ctl);
        *stage = Stage::Resolve(i + 1);
        return go();
    }
    let group = {
        let ctl = call.ctl.lock();
        ctl.resolve.get(i).map(|g| {
            // {"ids":[...]} followed by a NUL, for the lookup to read
            let mut request =
                String::with_capacity(16 + g.ids.iter().map(|i| i.len() + 3).sum::<usize>());
            request.push_str("{\"ids\":[");
            for (n, id) in g.ids.iter().enumerate() {
                if n > 0 {
                    request.push(',');
                }
                crate::binding::write_json_str(&mut request, id);
            }
            request.push_str("]}\0");
            (g.entity, request)
        })
    };
    let Some((entity, request)) = group else {
        return substitute(call, stage);
    };
    let Some(search) = snap.search_slot(entity) else {
        return Err(Outcome::error(
            ErrorCode::InternalError,
            "the entity has no lookup",
        ));
    };
    let child = Arc::new(Call::new_lookup(call, search, entity, request));
    call.ctl.lock().child = Some(child.clone());
    let parent = call.clone();
    waited(call.await_host(Op::Lookup, *stage, move |seq| {
        {
            let mut ctl = child.ctl.lock();
            ctl.sink_wants_json = false;
            ctl.sink = Some(Box::new(move |o: Outcome, _json: &str| {
                parent.ctl.lock().child = None;
                let _ = parent.answer(Some(seq), Op::Lookup, Completion::Lookup(o));
            }));
        }
        drive(&child, None);
    }))
}

/// Replaces each entity id in the bound arguments by its entity; an unknown id is
/// `EntityNotFound`.
fn substitute(call: &Arc<Call>, stage: &mut Stage) -> StepResult {
    let (bound, groups) = {
        let mut ctl = call.ctl.lock();
        (ctl.bound.take(), std::mem::take(&mut ctl.resolve))
    };
    let bound = bound.expect("bound before resolving");
    let mut out = String::with_capacity(bound.json.len() * 2);
    let mut at = 0;
    for r in &bound.entity_refs {
        let group = groups
            .iter()
            .find(|g| g.entity == r.entity)
            .expect("grouped");
        let Some((_, json)) = group.found.iter().find(|(id, _)| *id == r.id) else {
            let name = &call.snap.types.entities[r.entity].name;
            return Err(Outcome::error(
                ErrorCode::EntityNotFound,
                format!(
                    "{}: no {name} with id {}",
                    r.path,
                    crate::types::quote_short(&r.id)
                ),
            ));
        };
        out.push_str(&bound.json[at..r.range.start]);
        out.push_str(json);
        at = r.range.end;
    }
    out.push_str(&bound.json[at..]);
    publish_args(call, out);
    *stage = Stage::Gates(0);
    go()
}

/// Checks a handler's result against the declared type.
fn handler_outcome(
    call: &Call,
    desc: &crate::descriptor::FunctionDescriptor,
    r: crate::call::HandlerResult,
) -> Outcome {
    let snap = &call.snap;
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
                            crate::types::quote_short(other)
                        ),
                    ),
                },
                Some(ty) => {
                    let text = result.as_deref().unwrap_or("null");
                    if desc.generated_for.is_none()
                        && crate::binding::is_normal_form(
                            ty,
                            desc.result_constraints.as_deref(),
                            text,
                        )
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
/// the outcome delivered.
pub(crate) fn finish(call: &Arc<Call>, mut outcome: Outcome) {
    // everything the end needs from the call's state, in one critical section
    // `_parked` (the call's own reference while it waited) is dropped when this returns
    let ((child, _parked), timer, began, sink, sink_wants_json, keep_outcome) = {
        let mut ctl = call.ctl.lock();
        if ctl.finished {
            return;
        }
        ctl.finished = true;
        ctl.stage = Stage::Done;
        ctl.wait = None;
        ctl.inline_result = None;
        (
            (ctl.child.take(), ctl.parked.take()),
            ctl.timer.take(),
            ctl.began,
            ctl.sink.take(),
            ctl.sink_wants_json,
            ctl.keep_outcome,
        )
    };
    if let Some(k) = timer {
        crate::timer::unschedule(k);
    }
    if let Some(c) = child {
        // a lookup still running for this call is not wanted any more
        c.cancel(outcome.error_code.unwrap_or(ErrorCode::Cancelled));
    }
    if let (Some(token), Some(id)) = (&call.token, call.token_sub.get()) {
        token.unsubscribe(*id);
    }
    if call.parent.is_none() {
        outcome.dialog = call.dialog();
    }
    // followed by a NUL in memory, so the C layer can lend it without copying
    // (made only when someone reads it)
    let wants_json = (sink_wants_json && !(sink.is_none() && keep_outcome))
        || call.snap.delegates.iter().any(|d| d.has_on_invoked());
    let json_nul = if wants_json {
        let mut j = outcome.to_json();
        j.push('\0');
        j
    } else {
        String::from("\0")
    };
    for d in call.snap.delegates.iter() {
        if d.has_on_invoked() {
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| {
                d.on_invoked_nul(call, &outcome, &json_nul)
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
    if began {
        if let Some(h) = &call.snap.scope_hooks {
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
    match sink {
        Some(s) => {
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| s(outcome, &json_nul))) {
                call.log(
                    LogLevel::Error,
                    &format!("the outcome callback failed: {}", panic_text(&*p)),
                );
            }
        }
        None => {
            // a synchronous waiter returns as soon as it sees the outcome: the call stops
            // counting as in flight first
            if let Some(shard) = call.in_flight_shard {
                call.shared().call_ended(shard);
            }
            let mut ctl = call.ctl.lock();
            if keep_outcome {
                ctl.outcome = Some(outcome);
            } else {
                ctl.outcome_json = Some(json_nul);
            }
            call.done.notify_all();
            return;
        }
    }
    // after the outcome callback returned
    if let Some(shard) = call.in_flight_shard {
        call.shared().call_ended(shard);
    }
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
        crate::threads::completions().submit(Box::new(move |w: crate::threads::Waited| {
            if w.at_cap {
                self.log(
                    LogLevel::Warn,
                    &format!(
                        "all {} completion threads are running host callbacks (the cap): ending the call to {} ({}) waited {} ms for one of them to return",
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

    /// The rest of a cancellation marked by [`Call::mark_cancelled`]: the cancel
    /// callbacks, a lookup in flight cancelled, and a call waiting for the host ended
    /// (`on_invoked`, scope end, the outcome).
    pub(crate) fn end_cancelled(self: &Arc<Self>, code: ErrorCode) {
        // the pending wait is abandoned before the host hears of the cancellation, so an
        // answer it gives in reaction is late, and the outcome is Cancelled / TimedOut
        let (resume, child, finished, _parked) = {
            let mut ctl = self.ctl.lock();
            let child = ctl.child.clone();
            let resume = !ctl.finished && matches!(&ctl.wait, Some(w) if !w.inline);
            let parked = if resume {
                ctl.wait = None;
                ctl.parked.take()
            } else {
                None
            };
            (resume, child, ctl.finished, parked)
        };
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
        if let Some(c) = child {
            c.cancel(code);
        }
        if resume {
            drive(self, Some(Completion::Abort(code)));
        }
    }

    /// Starts waiting for a host answer and runs `invoke` (the host callback) with the
    /// wait's sequence number. Returns the answer when it came inline, or `None` when the
    /// call is suspended (whoever answers later drives it on).
    pub(crate) fn await_host(
        self: &Arc<Self>,
        op: Op,
        stage: Stage,
        invoke: impl FnOnce(u32),
    ) -> Option<Completion> {
        if let Some(code) = self.cancel_code() {
            return Some(Completion::Abort(code));
        }
        let seq = {
            let mut ctl = self.ctl.lock();
            // whoever answers later drives the call on from this stage
            ctl.stage = stage;
            ctl.seq = ctl.seq.wrapping_add(1);
            if handles::seq_bits(ctl.seq) == 0 {
                ctl.seq = ctl.seq.wrapping_add(1);
            }
            ctl.wait = Some(Wait {
                seq: ctl.seq,
                op,
                inline: true,
            });
            ctl.inline_result = None;
            ctl.seq
        };
        invoke(seq);
        let mut ctl = self.ctl.lock();
        if let Some(c) = ctl.inline_result.take() {
            ctl.wait = None;
            return Some(c);
        }
        if ctl.finished {
            return None;
        }
        if let Some(code) = self.cancel_code() {
            ctl.wait = None;
            return Some(Completion::Abort(code));
        }
        match ctl.wait.as_mut() {
            Some(w) => {
                w.inline = false;
                // alive until answered, abandoned or finished, whatever the host keeps
                ctl.parked = Some(self.clone());
                None
            }
            // answered and taken already (cannot happen: answers while inline are stored)
            None => None,
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
        let what = match op {
            Op::Gate => "gate answer",
            Op::Handler => "handler result",
            Op::Lookup => "lookup result",
        };
        let mut ctl = self.ctl.lock();
        if self.cancel_code().is_some() {
            // cancelled or timed out: whatever answers now is late
            drop(ctl);
            return Err(CompleteError::AlreadyCompleted(
                self.function_id().to_string(),
            ));
        }
        let matches = match &ctl.wait {
            Some(w) => {
                w.op == op && seq.is_none_or(|s| handles::seq_bits(w.seq) == handles::seq_bits(s))
            }
            None => false,
        };
        if !matches {
            let waiting_for_other = ctl.wait.is_some() && !ctl.finished;
            drop(ctl);
            return Err(if waiting_for_other {
                CompleteError::NotWaiting(self.function_id().to_string(), what)
            } else {
                CompleteError::AlreadyCompleted(self.function_id().to_string())
            });
        }
        if ctl.wait.as_ref().is_some_and(|w| w.inline) {
            if ctl.inline_result.is_some() {
                return Err(CompleteError::AlreadyCompleted(
                    self.function_id().to_string(),
                ));
            }
            ctl.inline_result = Some(c);
            return Ok(());
        }
        ctl.wait = None;
        let parked = ctl.parked.take();
        drop(ctl);
        drive(self, Some(c));
        drop(parked);
        Ok(())
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

impl crate::timer::Expire for Call {
    /// The call's deadline passed: marked timed out here, on the timer thread, and ended
    /// on the completion pool.
    fn expire(self: Arc<Self>) {
        if self.ctl.lock().finished {
            return;
        }
        if self.mark_cancelled(ErrorCode::TimedOut) {
            self.end_cancelled_later(ErrorCode::TimedOut);
        }
    }
}

impl Gate {
    pub fn answer(mut self, d: GateDecision) -> Result<(), CompleteError> {
        self.answered = true;
        self.call.answer_gate(self.seq, d)
    }
    pub fn allow(self) -> Result<(), CompleteError> {
        self.answer(GateDecision::Allow)
    }
    pub fn deny(self, msg: impl Into<String>) -> Result<(), CompleteError> {
        self.answer(GateDecision::Deny(msg.into()))
    }
    pub fn open_app(self, msg: impl Into<String>) -> Result<(), CompleteError> {
        self.answer(GateDecision::OpenApp(msg.into()))
    }
    /// Turns the gate into a handle for C (answered through [`Gate::answer_handle`]).
    /// `None` when the handle table is exhausted (the gate is then denied).
    pub fn into_handle(mut self) -> Option<usize> {
        let h = self.call.handle()?;
        self.answered = true;
        Some(handles::with_seq(h, self.seq))
    }

    /// Answers a gate through a handle made by [`Gate::into_handle`].
    pub fn answer_handle(h: usize, d: GateDecision) -> Result<(), CompleteError> {
        match crate::call::handle_table().get(h) {
            handles::Lookup::Live(c, seq) if seq != 0 => c.answer_gate(seq, d),
            handles::Lookup::Live(c, _) => Err(CompleteError::NotWaiting(
                c.function_id().to_string(),
                "gate answer",
            )),
            handles::Lookup::Ended(t) => {
                Err(CompleteError::AlreadyCompleted(crate::call::ended_id(&t)))
            }
            handles::Lookup::Unknown => Err(CompleteError::AlreadyCompleted(
                "an unknown function".into(),
            )),
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

impl crate::cancel::Cancellable for Call {
    fn mark_cancelled(&self, code: ErrorCode) -> bool {
        Call::mark_cancelled(self, code)
    }
    fn end_cancelled(self: Arc<Self>, code: ErrorCode) {
        Call::end_cancelled(&self, code)
    }
    fn end_cancelled_later(self: Arc<Self>, code: ErrorCode) {
        Call::end_cancelled_later(self, code)
    }
}
