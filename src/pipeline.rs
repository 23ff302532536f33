//! One call, start to finish (DESIGN.md): scope begin, find, bind, resolve entities,
//! delegates, opensApp and permission, the handler, the outcome, `on_invoked`, scope end.
//!
//! The pipeline is a state machine. Each step that waits for the host (a gate, a lookup,
//! the handler) either gets its answer inline (the loop goes on) or suspends; whoever
//! answers later drives the call on, on their own thread. No lock is held while host
//! code runs.

use crate::binding::{bind_arguments, bind_value_with, Mode};
use crate::call::{Call, CallKind, Completion, Gate, GateDecision, Op, Platform};
use crate::descriptor::FunctionKind;
use crate::error::ErrorCode;
use crate::log::LogLevel;
use crate::outcome::Outcome;
use crate::types::Type;
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Stage {
    #[default]
    Begin,
    Find,
    Bind,
    Resolve(usize),
    Gates(usize),
    OpensApp,
    Permission,
    Handler,
    Done,
}

/// The ids of one entity to resolve before the handler runs.
pub(crate) struct Resolution {
    entity: usize,
    ids: Vec<String>,
    /// id → the entity's JSON, filled by the lookup.
    found: Vec<(String, String)>,
}

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

fn set_stage(call: &Call, s: Stage) {
    call.ctl.lock().stage = s;
}

/// Runs the call until it finishes or waits for the host. `input` is the host's answer
/// to the wait that suspended it.
pub(crate) fn drive(call: &Arc<Call>, mut input: Option<Completion>) {
    loop {
        if let Some(Completion::Abort(code)) = input {
            return finish(call, abort_outcome(call, code));
        }
        let stage = call.ctl.lock().stage;
        // the scope begins even for a call cancelled before it started, so every begin
        // has its end
        if input.is_none() && stage != Stage::Begin {
            if let Some(code) = call.cancel_code() {
                return finish(call, abort_outcome(call, code));
            }
        }
        let step = catch_unwind(AssertUnwindSafe(|| step(call, stage, input.take())));
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

fn step(call: &Arc<Call>, stage: Stage, input: Option<Completion>) -> StepResult {
    let snap = &call.snap;
    match stage {
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
            set_stage(
                call,
                if call.parent.is_some() {
                    Stage::Gates(0)
                } else {
                    Stage::Find
                },
            );
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
            set_stage(call, Stage::Bind);
            go()
        }
        Stage::Bind => {
            let entry = call.entry().expect("found");
            let pre = call.pre_bound.lock().take();
            let bound = match pre {
                Some(b) => b,
                None => bind_arguments(&snap.types, &entry.desc.parameters, None, &snap.limits),
            }
            .map_err(|e| Outcome::error(ErrorCode::InvalidArgument, e.to_string()))?;
            if bound.entity_refs.is_empty() {
                publish_args(call, bound.json);
                set_stage(call, Stage::Gates(0));
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
                ctl.stage = Stage::Resolve(0);
            }
            go()
        }
        Stage::Resolve(i) => resolve(call, i, input),
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
                set_stage(call, Stage::Gates(i + 1));
                return go();
            }
            let Some(d) = snap.delegates.get(i).cloned() else {
                set_stage(
                    call,
                    if call.parent.is_some() {
                        Stage::Handler
                    } else {
                        Stage::OpensApp
                    },
                );
                return go();
            };
            if d.has_on_invoking() {
                waited(call.await_host(Op::Gate, |seq| {
                    let gate = Gate::new(call.clone(), seq);
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| d.on_invoking(call, gate))) {
                        let _ = call.answer_gate(
                            seq,
                            GateDecision::Deny(format!("a delegate failed: {}", panic_text(&*p))),
                        );
                    }
                }))
            } else {
                set_stage(call, Stage::Gates(i + 1));
                go()
            }
        }
        Stage::OpensApp => {
            let desc = &call.entry().expect("found").desc;
            if desc.opens_app && call.platform == Platform::Apple && !call.foreground {
                let name = desc.title.as_deref().unwrap_or(&desc.id);
                return Err(Outcome::open_app(format!("Continue in the app to {name}.")));
            }
            set_stage(call, Stage::Permission);
            go()
        }
        Stage::Permission => {
            let desc = &call.entry().expect("found").desc;
            if let Some(Completion::Gate(d)) = input {
                return match d {
                    GateDecision::Allow => {
                        set_stage(call, Stage::Handler);
                        go()
                    }
                    GateDecision::Deny(m) | GateDecision::OpenApp(m) => {
                        Err(Outcome::error(ErrorCode::PermissionDenied, m))
                    }
                };
            }
            if !desc.requires_permission {
                set_stage(call, Stage::Handler);
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
            waited(call.await_host(Op::Gate, |seq| {
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
            waited(call.await_host(Op::Handler, |_| {
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
fn resolve(call: &Arc<Call>, i: usize, input: Option<Completion>) -> StepResult {
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
        set_stage(call, Stage::Resolve(i + 1));
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
        return substitute(call);
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
    waited(call.await_host(Op::Lookup, move |seq| {
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
fn substitute(call: &Arc<Call>) -> StepResult {
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
    set_stage(call, Stage::Gates(0));
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
    let (child, timer) = {
        let mut ctl = call.ctl.lock();
        if ctl.finished {
            return;
        }
        ctl.finished = true;
        ctl.stage = Stage::Done;
        ctl.wait = None;
        ctl.inline_result = None;
        (ctl.child.take(), ctl.timer.take())
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
    let wants_json = {
        let c = call.ctl.lock();
        c.sink_wants_json && !(c.sink.is_none() && c.keep_outcome)
    } || call.snap.delegates.iter().any(|d| d.has_on_invoked());
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
    let began = call.ctl.lock().began;
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
    let sink = call.ctl.lock().sink.take();
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
            if ctl.keep_outcome {
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
