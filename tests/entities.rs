//! Entities looked up by id (`Dispatcher::entities`, `af_entities_json`): the entities in
//! the order of the ids asked for through the app's lookup, with the delegates, the
//! invocation's token and timeout, and every refusal as an outcome naming what is wrong.

use appfunctions::*;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Orders o-1..o-3; the lookup answers in its own order (reversed), with an entity that was
/// not asked for, and records every request it gets.
fn orders(requests: Arc<Mutex<Vec<Value>>>) -> Dispatcher {
    let d = Dispatcher::new();
    d.register_entity(
        r#"{"name":"order","fields":[{"name":"id","type":"string"},{"name":"customer","type":"string"},{"name":"quantity","type":"int32"}]}"#,
        Arc::new(move |call: &Arc<Call>| {
            let req: Value = serde_json::from_str(call.lookup_request().unwrap()).unwrap();
            requests.lock().unwrap().push(req.clone());
            let all = [
                json!({"id":"o-1","customer":"acme","quantity":1}),
                json!({"id":"o-2","customer":"globex","quantity":2}),
                json!({"id":"o-3","customer":"initech","quantity":3}),
            ];
            let mut found: Vec<&Value> = match req.get("ids") {
                Some(ids) => all
                    .iter()
                    .filter(|o| ids.as_array().unwrap().contains(&o["id"]))
                    .collect(),
                None => all.iter().collect(),
            };
            found.reverse();
            found.push(&all[2]); // not asked for (or a second time)
            call.complete(Ok(Some(serde_json::to_string(&found).unwrap())))
                .unwrap();
        }),
    )
    .unwrap();
    d
}

fn outcome(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

fn ids_of(o: &Value) -> Vec<&str> {
    o["result"]
        .as_array()
        .unwrap_or_else(|| panic!("no result in {o}"))
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect()
}

#[test]
fn the_entities_come_in_the_order_of_the_ids_unknown_ones_left_out_each_once() {
    let requests = Arc::new(Mutex::new(Vec::new()));
    let d = orders(requests.clone());
    let o = outcome(&d.entities(
        &Invocation::default(),
        "order",
        &["o-2", "nope", "o-1", "o-2"],
    ));
    assert_eq!(o["status"], "success", "{o}");
    assert_eq!(ids_of(&o), ["o-2", "o-1"]);
    // whole entities, normalised
    assert_eq!(
        o["result"][0],
        json!({"id":"o-2","customer":"globex","quantity":2})
    );
    // the lookup got each id once, in the order asked
    assert_eq!(
        *requests.lock().unwrap(),
        [json!({"ids":["o-2","nope","o-1"]})]
    );
}

#[test]
fn no_ids_is_an_empty_list_without_calling_the_lookup() {
    let requests = Arc::new(Mutex::new(Vec::new()));
    let d = orders(requests.clone());
    let o = outcome(&d.entities(&Invocation::default(), "order", &[]));
    assert_eq!(o["status"], "success");
    assert_eq!(o["result"], json!([]));
    assert!(requests.lock().unwrap().is_empty());
}

#[test]
fn an_unknown_entity_is_an_invalid_argument_naming_it() {
    let d = orders(Arc::default());
    let o = outcome(&d.entities(&Invocation::default(), "ordr", &["o-1"]));
    assert_eq!(o["errorCode"], "InvalidArgument");
    assert_eq!(
        o["message"],
        "no entity named \"ordr\" (did you mean \"order\"?)"
    );
    let o = outcome(&Dispatcher::new().entities(&Invocation::default(), "order", &["o-1"]));
    assert_eq!(
        o["message"],
        "no entity named \"order\" (the dispatcher has no entities)"
    );
}

fn failing(answer: HandlerResult) -> Dispatcher {
    let d = Dispatcher::new();
    d.register_entity(
        r#"{"name":"note","fields":[{"name":"id","type":"string"},{"name":"title","type":"string"}]}"#,
        Arc::new(move |call: &Arc<Call>| {
            call.complete(answer.clone()).unwrap();
        }),
    )
    .unwrap();
    d
}

#[test]
fn a_failing_lookup_keeps_its_code_and_names_the_entity() {
    let d = failing(Err((
        ErrorCode::HandlerFailed,
        "the database is down".into(),
    )));
    let o = outcome(&d.entities(&Invocation::default(), "note", &["n-1"]));
    assert_eq!(o["errorCode"], "HandlerFailed");
    assert_eq!(o["message"], "looking up note failed: the database is down");
    let d = failing(Err((ErrorCode::Denied, "not yours".into())));
    let o = outcome(&d.entities(&Invocation::default(), "note", &["n-1"]));
    assert_eq!(o["errorCode"], "Denied");
}

#[test]
fn an_answer_that_is_not_a_list_of_the_entity_fails_naming_where() {
    let d = failing(Ok(Some(r#"[{"id":"n-1","title":7}]"#.into())));
    let o = outcome(&d.entities(&Invocation::default(), "note", &["n-1"]));
    assert_eq!(o["errorCode"], "HandlerFailed");
    let m = o["message"].as_str().unwrap();
    assert!(
        m.starts_with(
            "the lookup of note returned what is not an array of note entities at [0].title:"
        ),
        "{m}"
    );
    let d = failing(Ok(None));
    let o = outcome(&d.entities(&Invocation::default(), "note", &["n-1"]));
    assert_eq!(o["errorCode"], "HandlerFailed", "{o}");
}

/// A lookup that answers only when cancelled (its cancel callback completes nothing).
fn never() -> (Dispatcher, Arc<AtomicUsize>) {
    let cancels = Arc::new(AtomicUsize::new(0));
    let seen = cancels.clone();
    let d = Dispatcher::new();
    d.register_entity(
        r#"{"name":"note","fields":[{"name":"id","type":"string"}]}"#,
        Arc::new(move |call: &Arc<Call>| {
            let seen = seen.clone();
            call.on_cancel(Box::new(move || {
                seen.fetch_add(1, Ordering::SeqCst);
            }));
        }),
    )
    .unwrap();
    (d, cancels)
}

#[test]
fn a_lookup_that_does_not_answer_in_time_is_timed_out() {
    let (d, cancels) = never();
    let o = outcome(&d.entities(
        &Invocation::default().timeout(Duration::from_millis(20)),
        "note",
        &["n-1"],
    ));
    assert_eq!(o["errorCode"], "TimedOut");
    assert_eq!(
        o["message"],
        "looking up note by id did not finish within 20 ms"
    );
    assert_eq!(cancels.load(Ordering::SeqCst), 1);
    assert_eq!(d.in_flight(), 0);
}

#[test]
fn cancelling_the_token_cancels_the_lookup() {
    let (d, cancels) = never();
    let token = CancelToken::new();
    let (tx, rx) = std::sync::mpsc::channel();
    d.entities_async(
        &Invocation::default().cancel_token(&token),
        "note",
        &["n-1"],
        move |o, json| tx.send((o.clone(), json.to_owned())).unwrap(),
    );
    assert!(rx.try_recv().is_err(), "answered before the cancel");
    token.cancel();
    let (o, json) = rx.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(o.error_code, Some(ErrorCode::Cancelled));
    assert_eq!(
        outcome(&json)["message"],
        "looking up note by id was cancelled"
    );
    assert_eq!(cancels.load(Ordering::SeqCst), 1);
    assert!(rx.try_recv().is_err(), "one outcome");
}

/// What a delegate saw of a call: its kind, function id and lookup request.
type Seen = (CallKind, String, Option<String>);

/// Refuses entity lookups unless signed in; records what it saw.
struct SignIn {
    signed_in: bool,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Delegate for SignIn {
    fn on_invoking(&self, call: &Arc<Call>, gate: Gate) {
        self.seen.lock().unwrap().push((
            call.kind(),
            call.function_id().to_owned(),
            call.lookup_request().map(str::to_owned),
        ));
        if self.signed_in {
            gate.allow().unwrap();
        } else {
            gate.open_app("Sign in to see your orders.").unwrap();
        }
    }
}

#[test]
fn the_delegates_gate_it_as_they_gate_the_lookup_of_an_entity_parameter() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let d = orders(Arc::default());
    d.add_delegate(Arc::new(SignIn {
        signed_in: false,
        seen: seen.clone(),
    }));
    let o = outcome(&d.entities(
        &Invocation::default().platform(Platform::Apple),
        "order",
        &["o-1"],
    ));
    assert_eq!(o["status"], "openApp", "{o}");
    assert_eq!(o["message"], "Sign in to see your orders.");
    let o = outcome(&d.entities(
        &Invocation::default().platform(Platform::Android),
        "order",
        &["o-1"],
    ));
    assert_eq!(o["errorCode"], "Denied");
    // in the foreground the gate passes
    let o = outcome(
        &d.entities(
            &Invocation::default()
                .platform(Platform::Apple)
                .foreground(true),
            "order",
            &["o-1"],
        ),
    );
    assert_eq!(ids_of(&o), ["o-1"]);
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen[0],
        (
            CallKind::EntityLookup,
            "search_order".to_owned(),
            Some(r#"{"ids":["o-1"]}"#.to_owned())
        )
    );
}

#[test]
fn a_disabled_search_function_does_not_stop_the_lookup_by_id() {
    let d = orders(Arc::default());
    d.set_enabled("search_order", false).unwrap();
    let o = outcome(&d.entities(&Invocation::default(), "order", &["o-3"]));
    assert_eq!(ids_of(&o), ["o-3"]);
}

#[test]
fn the_scope_hooks_and_on_invoked_run_once_around_it() {
    struct Hooks(Arc<Mutex<Vec<String>>>);
    impl ScopeHooks for Hooks {
        fn begin(&self, call: &Arc<Call>) {
            self.0
                .lock()
                .unwrap()
                .push(format!("begin {}", call.function_id()));
        }
        fn end(&self, call: &Arc<Call>) {
            self.0
                .lock()
                .unwrap()
                .push(format!("end {}", call.function_id()));
        }
    }
    struct Watch(Arc<Mutex<Vec<String>>>);
    impl Delegate for Watch {
        fn has_on_invoking(&self) -> bool {
            false
        }
        fn on_invoked(&self, _: &Arc<Call>, o: &Outcome, _: &str) {
            self.0
                .lock()
                .unwrap()
                .push(format!("invoked {}", o.result.as_deref().unwrap_or("")));
        }
    }
    let log = Arc::new(Mutex::new(Vec::new()));
    let d = orders(Arc::default());
    d.set_scope_hooks(Some(Arc::new(Hooks(log.clone()))));
    d.add_delegate(Arc::new(Watch(log.clone())));
    let o = outcome(&d.entities(&Invocation::default(), "order", &["o-1"]));
    assert_eq!(ids_of(&o), ["o-1"]);
    assert_eq!(
        *log.lock().unwrap(),
        [
            "begin search_order".to_owned(),
            // on_invoked sees the ordered answer
            format!("invoked {}", o["result"]),
            "end search_order".to_owned(),
        ]
    );
}

#[test]
fn a_shut_down_dispatcher_refuses_at_once() {
    let requests = Arc::new(Mutex::new(Vec::new()));
    let d = orders(requests.clone());
    assert_eq!(d.shutdown(Duration::ZERO), 0);
    let o = outcome(&d.entities(&Invocation::default(), "order", &["o-1"]));
    assert_eq!(o["errorCode"], "LimitExceeded");
    assert_eq!(
        o["message"],
        "looking up \"order\" by id: the dispatcher is shutting down"
    );
    let (tx, rx) = std::sync::mpsc::channel();
    d.entities_async(&Invocation::default(), "order", &["o-1"], move |o, _| {
        tx.send(o.error_code).unwrap()
    });
    assert_eq!(rx.try_recv().unwrap(), Some(ErrorCode::LimitExceeded));
    assert!(requests.lock().unwrap().is_empty());
}

#[test]
fn a_lookup_answered_later_from_another_thread_completes_the_async_form() {
    let d = Dispatcher::new();
    d.register_entity(
        r#"{"name":"note","fields":[{"name":"id","type":"string"}]}"#,
        Arc::new(|call: &Arc<Call>| {
            let call = call.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(10));
                call.complete(Ok(Some(r#"[{"id":"b"},{"id":"a"}]"#.into())))
                    .unwrap();
            });
        }),
    )
    .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    d.entities_async(
        &Invocation::default(),
        "note",
        &["a", "b"],
        move |_, json| tx.send(json.to_owned()).unwrap(),
    );
    let o = outcome(&rx.recv_timeout(Duration::from_secs(5)).unwrap());
    assert_eq!(ids_of(&o), ["a", "b"]);
    // and the blocking form waits for it
    let o = outcome(&d.entities(&Invocation::default(), "note", &["b"]));
    assert_eq!(ids_of(&o), ["b"]);
}
