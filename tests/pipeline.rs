//! The call pipeline through the Rust API: the seed's sentences, one test each.

use appfunctions::*;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn orders() -> Dispatcher {
    let d = Dispatcher::new();
    d.define_types(r#"{"enums":[{"name":"Priority","members":["Low","Normal","High"]}],
        "records":[{"name":"Order","fields":[{"name":"id","type":"string"},{"name":"customer","type":"string"},{"name":"quantity","type":"int32"},{"name":"priority","type":{"enum":"Priority"}}]}]}"#).unwrap();
    d.register_function(
        r#"{"id":"create_order","description":"Creates an order","parameters":[
            {"name":"customer","type":"string"},{"name":"quantity","type":"int32"},
            {"name":"priority","type":{"enum":"Priority"},"default":"Normal"}],
            "result":{"record":"Order"}}"#,
        Some(Arc::new(|call: &Arc<Call>| {
            let mut args: Value = serde_json::from_str(call.args().unwrap()).unwrap();
            args["id"] = json!("o-1");
            call.say("Order created.");
            call.complete(Ok(Some(args.to_string()))).unwrap();
        })),
    )
    .unwrap();
    d.register_entity(
        r#"{"name":"order","fields":[{"name":"id","type":"string"},{"name":"customer","type":"string"}]}"#,
        Arc::new(|call: &Arc<Call>| {
            let req: Value = serde_json::from_str(call.lookup_request().unwrap()).unwrap();
            let all = [json!({"id":"o-1","customer":"acme"}), json!({"id":"o-2","customer":"globex"})];
            let found: Vec<&Value> = match req.get("ids") {
                Some(ids) => all.iter().filter(|o| ids.as_array().unwrap().contains(&o["id"])).collect(),
                None => all.iter().collect(),
            };
            call.complete(Ok(Some(serde_json::to_string(&found).unwrap()))).unwrap();
        }),
    )
    .unwrap();
    d.register_function(
        r#"{"id":"cancel_order","parameters":[{"name":"order","type":{"entity":"order"}}],"result":"string"}"#,
        Some(Arc::new(|call: &Arc<Call>| {
            let args: Value = serde_json::from_str(call.args().unwrap()).unwrap();
            let customer = args["order"]["customer"].as_str().unwrap().to_owned();
            call.complete(Ok(Some(json!(format!("cancelled for {customer}")).to_string()))).unwrap();
        })),
    )
    .unwrap();
    d
}

fn run(d: &Dispatcher, inv: Invocation, args: &str) -> Outcome {
    d.execute_outcome(&inv, Some(args))
}

#[test]
fn execute_binds_runs_and_returns_the_outcome() {
    let d = orders();
    let o = run(
        &d,
        Invocation::new("create_order"),
        r#"{"customer":"acme","quantity":2,"priority":"Normal"}"#,
    );
    assert_eq!(o.status, Status::Success, "{o:?}");
    assert_eq!(o.dialog.as_deref(), Some("Order created."));
    let r: Value = serde_json::from_str(o.result.as_deref().unwrap()).unwrap();
    assert_eq!(
        r,
        json!({"customer":"acme","quantity":2,"priority":"Normal","id":"o-1"})
    );
}

#[test]
fn unknown_functions_and_bad_arguments_are_outcomes() {
    let d = orders();
    let o = run(&d, Invocation::new("create_ordr"), "{}");
    assert_eq!(o.error_code, Some(ErrorCode::FunctionNotFound));
    assert!(o.message.unwrap().contains("did you mean \"create_order\""));
    let o = run(
        &d,
        Invocation::new("create_order"),
        r#"{"customer":"acme","quantity":"two"}"#,
    );
    assert_eq!(o.error_code, Some(ErrorCode::InvalidArgument));
    assert_eq!(
        o.message.as_deref(),
        Some(r#"quantity: expected int32, got string "two""#)
    );
}

#[test]
fn entity_ids_resolve_before_the_handler() {
    let d = orders();
    let o = run(&d, Invocation::new("cancel_order"), r#"{"order":"o-2"}"#);
    assert_eq!(
        o.result.as_deref(),
        Some("\"cancelled for globex\""),
        "{o:?}"
    );
    let o = run(&d, Invocation::new("cancel_order"), r#"{"order":"o-9"}"#);
    assert_eq!(o.error_code, Some(ErrorCode::EntityNotFound));
    assert_eq!(
        o.message.as_deref(),
        Some("order: no order with id \"o-9\"")
    );
    let o = run(
        &d,
        Invocation::new("search_order"),
        r#"{"query":"","limit":1}"#,
    );
    assert_eq!(
        o.result.as_deref(),
        Some(r#"[{"id":"o-1","customer":"acme"}]"#),
        "{o:?}"
    );
}

/// Ids however they are written: an escaped id in the arguments or in the lookup's answer
/// is the string it stands for, an id given twice is looked up once, and an entity the
/// lookup returns twice is its first.
#[test]
fn entity_ids_match_as_the_strings_they_stand_for() {
    let d = Dispatcher::new();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    d.register_entity(
        r#"{"name":"order","fields":[{"name":"id","type":"string"},{"name":"customer","type":"string"}]}"#,
        Arc::new(move |call: &Arc<Call>| {
            seen.lock().unwrap().push(call.lookup_request().unwrap().to_owned());
            let answer = r#"[{"id":"o\"1","customer":"first"},{"id":"o\u002d2","customer":"second"},{"id":"o\"1","customer":"again"}]"#;
            call.complete(Ok(Some(answer.into()))).unwrap();
        }),
    )
    .unwrap();
    d.register_function(
        r#"{"id":"merge","parameters":[{"name":"a","type":{"entity":"order"}},{"name":"b","type":{"entity":"order"}}],"result":"string"}"#,
        Some(Arc::new(|call: &Arc<Call>| {
            let args: Value = serde_json::from_str(call.args().unwrap()).unwrap();
            let text = format!("{} {}", args["a"]["customer"], args["b"]["customer"]);
            call.complete(Ok(Some(json!(text).to_string()))).unwrap();
        })),
    )
    .unwrap();
    let cases = [
        // an escaped id in the arguments (the parsing binder), one in the answer
        (
            r#"{"a":"o\"1","b":"o\u002d2"}"#,
            r#"{"ids":["o\"1","o-2"]}"#,
            r#""first" "second""#,
        ),
        // compact arguments (no parse), one id twice
        (
            r#"{"a":"o-2","b":"o-2"}"#,
            r#"{"ids":["o-2"]}"#,
            r#""second" "second""#,
        ),
    ];
    for (args, request, result) in cases {
        let o = run(&d, Invocation::new("merge"), args);
        assert_eq!(
            o.result.as_deref(),
            Some(json!(result).to_string().as_str()),
            "{args}: {o:?}"
        );
        assert_eq!(
            requests.lock().unwrap().pop().as_deref(),
            Some(request),
            "{args}"
        );
    }
    let o = run(&d, Invocation::new("merge"), r#"{"a":"o-2","b":"o\"9"}"#);
    assert_eq!(o.error_code, Some(ErrorCode::EntityNotFound));
    assert_eq!(o.message.as_deref(), Some(r#"b: no order with id "o\"9""#));
}

struct SignIn {
    signed_in: Arc<Mutex<bool>>,
}
impl Delegate for SignIn {
    fn on_invoking(&self, call: &Arc<Call>, gate: Gate) {
        if call.function_id() == "cancel_order" && !*self.signed_in.lock().unwrap() {
            gate.open_app("Sign in to cancel orders.").unwrap();
        } else {
            gate.allow().unwrap();
        }
    }
    fn has_on_invoked(&self) -> bool {
        false
    }
}

#[test]
fn open_app_passes_in_the_foreground_everywhere_asks_on_apple_and_is_refused_elsewhere() {
    let d = orders();
    d.add_delegate(Arc::new(SignIn {
        signed_in: Arc::new(Mutex::new(false)),
    }));
    let args = r#"{"order":"o-1"}"#;
    let o = run(
        &d,
        Invocation::new("cancel_order").platform(Platform::Apple),
        args,
    );
    assert_eq!(
        (o.status, o.message.as_deref()),
        (Status::OpenApp, Some("Sign in to cancel orders."))
    );
    let o = run(
        &d,
        Invocation::new("cancel_order")
            .platform(Platform::Apple)
            .foreground(true),
        args,
    );
    assert_eq!(o.status, Status::Success);
    for p in [Platform::Android, Platform::Other] {
        // not in the foreground: refused with the gate's message (the default invocation)
        let o = run(&d, Invocation::new("cancel_order").platform(p), args);
        assert_eq!(
            (o.error_code, o.message.as_deref()),
            (Some(ErrorCode::Denied), Some("Sign in to cancel orders."))
        );
        // in the foreground (the user is in the app: an in-app assistant) it passes
        let o = run(
            &d,
            Invocation::new("cancel_order").platform(p).foreground(true),
            args,
        );
        assert_eq!(o.status, Status::Success, "{p:?} in the foreground: {o:?}");
    }
}

#[test]
fn asynchronous_completion_cancellation_and_timeouts() {
    let d = Dispatcher::new();
    let pending: Arc<Mutex<Vec<Arc<Call>>>> = Arc::default();
    let p2 = pending.clone();
    d.register_function(
        r#"{"id":"slow","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            p2.lock().unwrap().push(c.clone())
        })),
    )
    .unwrap();
    // completed later from another thread
    let p3 = pending.clone();
    let t = std::thread::spawn(move || loop {
        if let Some(c) = p3.lock().unwrap().pop() {
            c.complete(Ok(Some("7".into()))).unwrap();
            assert!(
                c.complete(Ok(Some("8".into()))).is_err(),
                "a second completion is refused"
            );
            return;
        }
        std::thread::yield_now();
    });
    assert_eq!(
        d.execute_outcome(&Invocation::new("slow"), None)
            .result
            .as_deref(),
        Some("7")
    );
    t.join().unwrap();
    // timed out: the late completion is refused
    let o = d.execute_outcome(
        &Invocation::new("slow").timeout(Duration::from_millis(20)),
        None,
    );
    assert_eq!(o.error_code, Some(ErrorCode::TimedOut));
    let late = pending.lock().unwrap().pop().unwrap();
    assert!(late.complete(Ok(Some("1".into()))).is_err());
    // cancelled through a token while waiting
    let token = CancelToken::new();
    let (tx, rx) = std::sync::mpsc::channel();
    d.execute_async(
        &Invocation::new("slow").cancel_token(&token),
        None,
        move |o, _| tx.send(o.clone()).unwrap(),
    );
    token.cancel();
    assert_eq!(rx.recv().unwrap().error_code, Some(ErrorCode::Cancelled));
    // async timeout through the timer
    let (tx, rx) = std::sync::mpsc::channel();
    d.execute_async(
        &Invocation::new("slow").timeout(Duration::from_millis(10)),
        None,
        move |o, _| tx.send(o.clone()).unwrap(),
    );
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(5)).unwrap().error_code,
        Some(ErrorCode::TimedOut)
    );
}

struct Scopes(Arc<AtomicUsize>, Arc<AtomicUsize>);
impl ScopeHooks for Scopes {
    fn begin(&self, call: &Arc<Call>) {
        self.0.fetch_add(1, Ordering::SeqCst);
        call.set_host_data(42);
    }
    fn end(&self, call: &Arc<Call>) {
        assert_eq!(call.host_data(), 42);
        self.1.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn scope_end_runs_once_on_every_path() {
    let d = orders();
    let (b, e) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    d.set_scope_hooks(Some(Arc::new(Scopes(b.clone(), e.clone()))));
    run(&d, Invocation::new("nope"), "{}");
    run(&d, Invocation::new("create_order"), "{}");
    run(
        &d,
        Invocation::new("create_order"),
        r#"{"customer":"a","quantity":1}"#,
    );
    run(&d, Invocation::new("cancel_order"), r#"{"order":"o-1"}"#);
    let t = CancelToken::new();
    t.cancel();
    let o = run(
        &d,
        Invocation::new("create_order").cancel_token(&t),
        r#"{"customer":"a","quantity":1}"#,
    );
    assert_eq!(o.error_code, Some(ErrorCode::Cancelled));
    assert_eq!(b.load(Ordering::SeqCst), 5);
    assert_eq!(e.load(Ordering::SeqCst), 5);
}

#[test]
fn permission_is_denied_without_a_hook() {
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id":"delete_file","requiresPermission":true}"#,
        Some(Arc::new(|c: &Arc<Call>| c.complete(Ok(None)).unwrap())),
    )
    .unwrap();
    let o = d.execute_outcome(&Invocation::new("delete_file"), None);
    assert_eq!(o.error_code, Some(ErrorCode::PermissionDenied));
    struct Yes;
    impl PermissionHook for Yes {
        fn ask(&self, _c: &Arc<Call>, g: Gate) {
            std::thread::spawn(move || g.allow().unwrap());
        }
    }
    d.set_permission_hook(Some(Arc::new(Yes)));
    assert_eq!(
        d.execute_outcome(&Invocation::new("delete_file"), None)
            .status,
        Status::Success
    );
}

#[test]
fn a_panicking_handler_is_an_outcome() {
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id":"boom"}"#,
        Some(Arc::new(|_: &Arc<Call>| panic!("kaput"))),
    )
    .unwrap();
    let o = d.execute_outcome(&Invocation::new("boom"), None);
    assert_eq!(o.error_code, Some(ErrorCode::HandlerFailed));
    assert!(o.message.unwrap().contains("kaput"));
}

// ---- timeouts fire on time whatever host code does (issue 18) ----------------------------

/// A latch the test opens; waiting on it gives up after 30 s so a failure cannot hang.
#[derive(Clone, Default)]
struct Latch(Arc<(Mutex<bool>, std::sync::Condvar)>);
impl Latch {
    fn open(&self) {
        *self.0 .0.lock().unwrap() = true;
        self.0 .1.notify_all();
    }
    fn wait(&self) {
        let g = self.0 .0.lock().unwrap();
        let _ = self
            .0
             .1
            .wait_timeout_while(g, Duration::from_secs(30), |open| !*open)
            .unwrap();
    }
}

fn thread_name() -> String {
    std::thread::current().name().unwrap_or("").to_owned()
}

/// A dispatcher whose `never` function never answers (its handler keeps the call and
/// returns).
/// The dispatcher's warnings, as its log sink gets them.
fn warnings(d: &Dispatcher) -> Arc<Mutex<Vec<String>>> {
    let logged: Arc<Mutex<Vec<String>>> = Arc::default();
    let l2 = logged.clone();
    d.set_log_sink(Some(Arc::new(move |level, msg: &str| {
        if level == LogLevel::Warn {
            l2.lock().unwrap().push(msg.to_owned())
        }
    })));
    logged
}

fn never_answers() -> Dispatcher {
    let d = Dispatcher::new();
    let kept: Mutex<Vec<Arc<Call>>> = Mutex::default();
    d.register_function(
        r#"{"id":"never","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            kept.lock().unwrap().push(c.clone())
        })),
    )
    .unwrap();
    d
}

/// Telemetry whose `on_invoked` runs `f` (which may block) and notes the thread it ran on.
struct Telemetry<F: Fn(&Arc<Call>) + Send + Sync>(F, Arc<Mutex<Vec<String>>>);
impl<F: Fn(&Arc<Call>) + Send + Sync> Delegate for Telemetry<F> {
    fn has_on_invoking(&self) -> bool {
        false
    }
    fn on_invoked(&self, call: &Arc<Call>, _: &Outcome, _: &str) {
        self.1.lock().unwrap().push(thread_name());
        (self.0)(call)
    }
}

#[test]
#[cfg_attr(miri, ignore = "waits on real time")]
fn an_on_invoked_blocked_forever_holds_up_no_other_timeout() {
    let d = never_answers();
    let latch = Latch::default();
    let blocked = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let threads = Arc::new(Mutex::new(Vec::new()));
    let (l, b) = (latch.clone(), blocked.clone());
    let me = thread_name();
    d.add_delegate(Arc::new(Telemetry(
        move |_: &Arc<Call>| {
            // the first call ended on the completion pool blocks until every other one has
            // ended (one whose deadline passed while its handler still ran on the test's
            // thread ends there: blocking it would block the test, not the library)
            if thread_name() != me && !b.swap(true, Ordering::SeqCst) {
                l.wait();
            }
        },
        threads.clone(),
    )));
    let (tx, rx) = std::sync::mpsc::channel();
    let n = 20;
    let timeout = Duration::from_millis(20);
    let mut took = Vec::new();
    for i in 0..n {
        let tx = tx.clone();
        let start = std::time::Instant::now();
        d.execute_async(
            &Invocation::new("never").timeout(timeout),
            None,
            move |o, _| tx.send((i, o.error_code, thread_name())).unwrap(),
        );
        took.push(start.elapsed());
    }
    let mut got = Vec::new();
    for _ in 0..n - 1 {
        got.push(
            rx.recv_timeout(Duration::from_secs(10))
                .expect("the other calls time out while one on_invoked is blocked"),
        );
    }
    assert!(
        blocked.load(Ordering::SeqCst),
        "no call ended on the completion pool: {got:?}"
    );
    latch.open();
    got.push(rx.recv_timeout(Duration::from_secs(10)).unwrap());
    assert!(
        got.iter().all(|g| g.1 == Some(ErrorCode::TimedOut)),
        "{got:?}"
    );
    // the timer only decides: the host code of timed-out calls runs on the completion
    // pool, except for a call whose deadline passed while its handler still ran inline on
    // the calling thread (the thread driving the call runs its callbacks), which needs its
    // execute_async to have lasted at least its timeout
    let me = thread_name();
    for g in &got {
        assert!(
            g.2.starts_with("appfunctions-completion") || (g.2 == me && took[g.0] >= timeout),
            "call {} ended on {:?} (execute_async took {:?}): {got:?}",
            g.0,
            g.2,
            took[g.0]
        );
    }
    let t = threads.lock().unwrap();
    assert_eq!(t.len(), n);
    let inline = got.iter().filter(|g| g.2 == me).count();
    assert_eq!(
        t.iter()
            .filter(|n| n.starts_with("appfunctions-completion"))
            .count(),
        n - inline,
        "{t:?}"
    );
}

#[test]
#[cfg_attr(miri, ignore = "a bound on real time")]
fn fifty_timeouts_with_an_on_invoked_that_blocks_100_ms_all_end_within_a_second() {
    // the issue's scenario: with one timer thread running host code, the last outcome
    // came after 5 s; the bound here does not grow with the number of calls
    let d = never_answers();
    d.add_delegate(Arc::new(Telemetry(
        |_: &Arc<Call>| std::thread::sleep(Duration::from_millis(100)),
        Arc::default(),
    )));
    let (tx, rx) = std::sync::mpsc::channel();
    let start = std::time::Instant::now();
    for _ in 0..50 {
        let tx = tx.clone();
        d.execute_async(
            &Invocation::new("never").timeout(Duration::from_millis(20)),
            None,
            move |o, _| tx.send((o.error_code, start.elapsed())).unwrap(),
        );
    }
    let mut last = Duration::ZERO;
    for _ in 0..50 {
        let (code, at) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(code, Some(ErrorCode::TimedOut));
        last = last.max(at);
    }
    assert!(
        last < Duration::from_secs(1),
        "the last of 50 timeouts ended after {last:?}"
    );
}

#[test]
fn a_token_ends_its_first_call_on_the_cancelling_thread_and_the_others_on_the_pool() {
    let d = never_answers();
    let token = CancelToken::new();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let rx = Arc::new(Mutex::new(rx));
    let me = thread_name();
    let here = Arc::new(Mutex::new(Vec::new()));
    let (rx2, here2, me2) = (rx.clone(), here.clone(), me.clone());
    d.add_delegate(Arc::new(Telemetry(
        move |c: &Arc<Call>| {
            assert!(c.is_cancelled());
            if thread_name() == me2 {
                // the call ended on the cancelling thread waits here for the other two,
                // which must not wait for it
                let rx = rx2.lock().unwrap();
                let others: Vec<String> = (0..2)
                    .map(|_| rx.recv_timeout(Duration::from_secs(10)).unwrap())
                    .collect();
                here2.lock().unwrap().extend(others);
            }
        },
        Arc::default(),
    )));
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    for _ in 0..3 {
        let (tx, outcomes) = (tx.clone(), outcomes.clone());
        d.execute_async(
            &Invocation::new("never").cancel_token(&token),
            None,
            move |o, _| {
                outcomes.lock().unwrap().push(o.error_code);
                tx.send(thread_name()).unwrap();
            },
        );
    }
    token.cancel();
    // the first ended before cancel returned; the two others already had
    let others = here.lock().unwrap().clone();
    assert_eq!(others.len(), 2);
    assert!(
        others
            .iter()
            .all(|n| n.starts_with("appfunctions-completion")),
        "{others:?}"
    );
    assert_eq!(rx.lock().unwrap().recv().unwrap(), me);
    assert_eq!(
        *outcomes.lock().unwrap(),
        vec![Some(ErrorCode::Cancelled); 3]
    );
}

#[test]
fn default_timeout_and_shutdown_that_drains() {
    let d = Dispatcher::new();
    assert_eq!(d.default_timeout(), Some(Duration::from_secs(30)));
    let pending: Arc<Mutex<Vec<Arc<Call>>>> = Arc::default();
    let p2 = pending.clone();
    d.register_function(
        r#"{"id":"slow","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            p2.lock().unwrap().push(c.clone())
        })),
    )
    .unwrap();
    let logged = warnings(&d);
    // an invocation without a timeout gets the dispatcher's default, logged when it fires
    d.set_default_timeout(Some(Duration::from_millis(10)));
    let o = d.execute_outcome(&Invocation::new("slow"), None);
    assert_eq!(o.error_code, Some(ErrorCode::TimedOut));
    assert!(
        logged
            .lock()
            .unwrap()
            .iter()
            .any(|m| m.contains("slow timed out after 10 ms (the dispatcher's default timeout)")),
        "{:?}",
        logged.lock().unwrap()
    );
    let (tx, rx) = std::sync::mpsc::channel();
    d.execute_async(&Invocation::new("slow"), None, move |o, _| {
        tx.send(o.error_code).unwrap()
    });
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(5)).unwrap(),
        Some(ErrorCode::TimedOut)
    );
    // no_timeout overrides the default; in flight until completed
    let (tx, rx) = std::sync::mpsc::channel();
    d.execute_async(&Invocation::new("slow").no_timeout(), None, move |o, _| {
        tx.send(o.result.clone()).unwrap()
    });
    assert!(rx.recv_timeout(Duration::from_millis(50)).is_err());
    assert_eq!(d.in_flight(), 1);
    assert_eq!(d.shutdown(Duration::ZERO), 1);
    let o = d.execute_outcome(&Invocation::new("slow"), None);
    assert_eq!(o.error_code, Some(ErrorCode::LimitExceeded));
    assert!(o.message.unwrap().contains("shutting down"));
    // the refused call ran no handler: three parked (two timed out, one waiting)
    assert_eq!(pending.lock().unwrap().len(), 3);
    let last = pending.lock().unwrap().pop().unwrap();
    let waiter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        last.complete(Ok(Some("7".into()))).unwrap();
    });
    assert_eq!(d.shutdown(Duration::from_secs(10)), 0);
    assert_eq!(rx.recv().unwrap().as_deref(), Some("7"));
    waiter.join().unwrap();
    assert_eq!(d.in_flight(), 0);
    // 0 / None: no default timeout
    d.set_default_timeout(None);
    assert_eq!(d.default_timeout(), None);
}

#[test]
fn cancel_callbacks_and_host_data_are_released_once() {
    struct Drops(Arc<AtomicUsize>);
    impl Drop for Drops {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let d = Dispatcher::new();
    let dropped = Arc::new(AtomicUsize::new(0));
    let ran = Arc::new(AtomicUsize::new(0));
    let (dr, r) = (dropped.clone(), ran.clone());
    d.register_function(
        r#"{"id":"f","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            // one removed, one left to the end of the call, one replaced host data
            let g = Drops(dr.clone());
            let id = match c.on_cancel(Box::new(move || drop(g))) {
                OnCancel::Registered(id) => id,
                other => panic!("{other:?}"),
            };
            assert!(c.remove_on_cancel(id));
            assert!(!c.remove_on_cancel(id));
            let (g, r) = (Drops(dr.clone()), r.clone());
            c.on_cancel(Box::new(move || {
                r.fetch_add(1, Ordering::SeqCst);
                drop(g)
            }));
            assert!(c.set_host_data_with(1, Some(Box::new(Drops(dr.clone())))));
            assert!(c.set_host_data_with(2, Some(Box::new(Drops(dr.clone())))));
            c.complete(Ok(Some("1".into()))).unwrap();
        })),
    )
    .unwrap();
    let o = d.execute_outcome(&Invocation::new("f"), None);
    assert_eq!(o.result.as_deref(), Some("1"));
    assert_eq!(dropped.load(Ordering::SeqCst), 4);
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

/// Starts `id` (whose handler never answers) with a token, cancels the token, and gives
/// the outcome's error code.
fn cancelled_while_waiting(d: &Dispatcher, id: &str) -> Option<ErrorCode> {
    let token = CancelToken::new();
    let (tx, rx) = std::sync::mpsc::channel();
    d.execute_async(
        &Invocation::new(id).cancel_token(&token),
        None,
        move |o, _| tx.send(o.error_code).unwrap(),
    );
    token.cancel();
    rx.recv().unwrap()
}

#[test]
fn cancel_callbacks_run_in_the_order_they_were_registered_whichever_were_removed() {
    // the first callback is kept apart from the others (no allocation for a call's only
    // one): removing it, or one after it, keeps the order of the rest, and one registered
    // after a removal runs last
    let d = Dispatcher::new();
    let ran = Arc::new(Mutex::new(Vec::new()));
    let r = ran.clone();
    d.register_function(
        r#"{"id":"f","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            let mut ids = Vec::new();
            for name in ["a", "b", "c"] {
                let r = r.clone();
                match c.on_cancel(Box::new(move || r.lock().unwrap().push(name))) {
                    OnCancel::Registered(id) => ids.push(id),
                    other => panic!("{other:?}"),
                }
            }
            assert!(c.remove_on_cancel(ids[0]), "the first");
            assert!(c.remove_on_cancel(ids[2]), "the last");
            let r2 = r.clone();
            assert!(matches!(
                c.on_cancel(Box::new(move || r2.lock().unwrap().push("d"))),
                OnCancel::Registered(_)
            ));
        })),
    )
    .unwrap();
    assert_eq!(cancelled_while_waiting(&d, "f"), Some(ErrorCode::Cancelled));
    assert_eq!(*ran.lock().unwrap(), ["b", "d"]);
    // a call with one callback, removed, then one more: that one runs
    let ran1 = Arc::new(Mutex::new(Vec::new()));
    let r = ran1.clone();
    d.register_function(
        r#"{"id":"g","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            let r1 = r.clone();
            let OnCancel::Registered(id) =
                c.on_cancel(Box::new(move || r1.lock().unwrap().push("x")))
            else {
                panic!("not registered")
            };
            assert!(c.remove_on_cancel(id));
            let r2 = r.clone();
            c.on_cancel(Box::new(move || r2.lock().unwrap().push("y")));
        })),
    )
    .unwrap();
    assert_eq!(cancelled_while_waiting(&d, "g"), Some(ErrorCode::Cancelled));
    assert_eq!(*ran1.lock().unwrap(), ["y"]);
}

#[test]
#[cfg_attr(miri, ignore = "waits on real time")]
fn an_async_handler_blocked_inline_is_marked_timed_out_at_its_deadline() {
    // the handler works inline (on the thread that called execute_async) until the call
    // is cancelled: the deadline must mark it while it runs, and its cancel callback must
    // run then, not when the handler returns
    let d = Dispatcher::new();
    let saw = Arc::new(Mutex::new(None));
    let s = saw.clone();
    d.register_function(
        r#"{"id":"works_inline","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let _ = c.on_cancel(Box::new(move || {
                let _ = tx.send(());
            }));
            let stopped_by_cancel = rx.recv_timeout(Duration::from_secs(10)).is_ok();
            *s.lock().unwrap() = Some((stopped_by_cancel, c.is_cancelled()));
        })),
    )
    .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    d.execute_async(
        &Invocation::new("works_inline").timeout(Duration::from_millis(20)),
        None,
        move |o, _| tx.send(o.error_code).unwrap(),
    );
    assert_eq!(*saw.lock().unwrap(), Some((true, true)));
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(10)).unwrap(),
        Some(ErrorCode::TimedOut)
    );
}

#[test]
#[cfg_attr(miri, ignore = "waits on real time")]
fn a_shorter_deadline_scheduled_after_a_longer_one_fires_first() {
    // the timer thread sleeps until its earliest deadline and is woken only for an earlier
    // one: a 20 ms timeout behind a 60 s one must still fire at 20 ms
    let d = never_answers();
    let (tx, rx) = std::sync::mpsc::channel();
    for (name, ms) in [("long", 60_000u64), ("short", 20)] {
        let tx = tx.clone();
        d.execute_async(
            &Invocation::new("never").timeout(Duration::from_millis(ms)),
            None,
            move |o, _| {
                let _ = tx.send((name, o.error_code));
            },
        );
    }
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(10)).unwrap(),
        ("short", Some(ErrorCode::TimedOut))
    );
}

/// A Rust handler that lets go of its call without answering: the call still ends
/// (timed out or cancelled) with exactly one outcome, and no longer counts as in flight.
#[test]
fn a_call_its_handler_forgot_still_ends_with_an_outcome() {
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id":"forgetful","description":"Never answers and keeps nothing"}"#,
        Some(Arc::new(|_call: &Arc<Call>| {})),
    )
    .unwrap();
    // through its timeout
    let (tx, rx) = std::sync::mpsc::channel();
    d.execute_async(
        &Invocation::new("forgetful").timeout(Duration::from_millis(20)),
        None,
        move |o, _| tx.send(o.clone()).unwrap(),
    );
    let o = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(o.error_code, Some(ErrorCode::TimedOut));
    assert!(
        rx.recv_timeout(Duration::from_millis(50)).is_err(),
        "one outcome only"
    );
    // counted in flight until its outcome callback has returned (on another thread)
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while d.in_flight() != 0 && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(d.in_flight(), 0, "the timed-out call has ended");
    // through its cancellation token, with no timeout at all
    let token = CancelToken::new();
    let (tx, rx) = std::sync::mpsc::channel();
    d.execute_async(
        &Invocation::new("forgetful")
            .no_timeout()
            .cancel_token(&token),
        None,
        move |o, _| tx.send(o.clone()).unwrap(),
    );
    assert_eq!(d.in_flight(), 1, "the forgotten call is still running");
    token.cancel();
    let o = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(o.error_code, Some(ErrorCode::Cancelled));
    // a shutdown drains: nothing is left in flight
    assert_eq!(d.shutdown(Duration::from_secs(5)), 0);
}

/// A handler that blocks inline in a blocking execute (no timer watches that call: its
/// waiting thread is the one the handler holds) and answers after the deadline: the answer
/// is late, as the timer would have made it in `execute_async`, and the call ends
/// `TimedOut` when the handler returns, its cancel callbacks run then (docs/threads.md).
#[test]
#[cfg_attr(miri, ignore = "waits on real time")]
fn a_blocking_execute_whose_handler_answers_inline_after_its_deadline_ends_timed_out() {
    let d = Dispatcher::new();
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let s = seen.clone();
    d.register_function(
        r#"{"id":"works_long","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            let s2 = s.clone();
            let _ = c.on_cancel(Box::new(move || {
                s2.lock().unwrap().push("on_cancel".into())
            }));
            std::thread::sleep(Duration::from_millis(60));
            let during = c.is_cancelled();
            let answer = c.complete(Ok(Some("1".into())));
            s.lock().unwrap().push(format!(
                "cancelled before answering {during}, answer refused {}, cancelled after {}",
                answer.is_err(),
                c.is_cancelled()
            ));
        })),
    )
    .unwrap();
    let logged = warnings(&d);
    let late = Invocation::new("works_long").timeout(Duration::from_millis(20));
    let o: Value = serde_json::from_str(&d.execute(&late, None)).unwrap();
    assert_eq!(o["errorCode"], "TimedOut", "{o}");
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "cancelled before answering false, answer refused true, cancelled after true",
            "on_cancel"
        ],
        "the handler's answer is refused, and its cancel callback runs once it has returned"
    );
    assert!(
        logged
            .lock()
            .unwrap()
            .iter()
            .any(|m| m.contains("works_long timed out after 20 ms")),
        "{:?}",
        logged.lock().unwrap()
    );
    // the same through execute_outcome, and as execute_async ends it (its timer marks it)
    seen.lock().unwrap().clear();
    assert_eq!(
        d.execute_outcome(&late, None).error_code,
        Some(ErrorCode::TimedOut)
    );
    let (tx, rx) = std::sync::mpsc::channel();
    d.execute_async(&late, None, move |o, _| tx.send(o.error_code).unwrap());
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(10)).unwrap(),
        Some(ErrorCode::TimedOut)
    );
    // in time, the same handler's answer is the outcome
    let o: Value = serde_json::from_str(&d.execute(
        &Invocation::new("works_long").timeout(Duration::from_secs(30)),
        None,
    ))
    .unwrap();
    assert_eq!(o["status"], "success", "{o}");
    assert_eq!(o["result"], 1);
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("cancelled before answering false, answer refused false")),
        "{:?}",
        seen.lock().unwrap()
    );
}

/// What counts is when the answer comes: a handler that answers at once and then holds
/// its thread past the deadline has answered in time, in a blocking execute as in
/// `execute_async`.
#[test]
#[cfg_attr(miri, ignore = "waits on real time")]
fn an_answer_in_time_stands_however_long_the_handler_holds_its_thread() {
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id":"answers_then_lingers","result":"int32"}"#,
        Some(Arc::new(|c: &Arc<Call>| {
            c.complete(Ok(Some("7".into()))).unwrap();
            std::thread::sleep(Duration::from_millis(50));
        })),
    )
    .unwrap();
    let inv = Invocation::new("answers_then_lingers").timeout(Duration::from_millis(20));
    let o: Value = serde_json::from_str(&d.execute(&inv, None)).unwrap();
    assert_eq!(
        (o["status"].as_str(), o["result"].as_i64()),
        (Some("success"), Some(7)),
        "{o}"
    );
    let (tx, rx) = std::sync::mpsc::channel();
    d.execute_async(&inv, None, move |o, _| tx.send(o.error_code).unwrap());
    assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap(), None);
}

/// A gate that answers inline after a blocking call's deadline: the handler never runs.
#[test]
#[cfg_attr(miri, ignore = "waits on real time")]
fn a_gate_answering_after_a_blocking_calls_deadline_ends_it_timed_out_before_the_handler() {
    struct SlowGate;
    impl Delegate for SlowGate {
        fn on_invoking(&self, _call: &Arc<Call>, gate: Gate) {
            std::thread::sleep(Duration::from_millis(50));
            assert!(gate.allow().is_err(), "a late gate answer is refused");
        }
    }
    let d = Dispatcher::new();
    let ran = Arc::new(AtomicUsize::new(0));
    let r = ran.clone();
    d.register_function(
        r#"{"id":"gated","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            r.fetch_add(1, Ordering::SeqCst);
            c.complete(Ok(Some("1".into()))).unwrap();
        })),
    )
    .unwrap();
    d.add_delegate(Arc::new(SlowGate));
    let o = d.execute_outcome(
        &Invocation::new("gated").timeout(Duration::from_millis(20)),
        None,
    );
    assert_eq!(o.error_code, Some(ErrorCode::TimedOut));
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}
