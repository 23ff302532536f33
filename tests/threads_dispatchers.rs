//! One dispatcher's blocked callbacks never delay another dispatcher's timeouts: each
//! dispatcher has a completion pool of its own (issue 28). A test binary of its own, since
//! it changes the process-wide cap.

use appfunctions::*;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

type Logs = Arc<Mutex<Vec<String>>>;

fn dispatcher_with_log() -> (Dispatcher, Logs) {
    let d = Dispatcher::new();
    let logs: Logs = Arc::default();
    let l = logs.clone();
    d.set_log_sink(Some(Arc::new(move |_, m: &str| {
        l.lock().unwrap().push(m.to_owned())
    })));
    (d, logs)
}

/// Every on_invoked blocks until the latch opens.
struct Blocking(Arc<(Mutex<bool>, Condvar)>, Arc<Mutex<usize>>);
impl Delegate for Blocking {
    fn has_on_invoking(&self) -> bool {
        false
    }
    fn on_invoked(&self, _: &Arc<Call>, _: &Outcome, _: &str) {
        *self.1.lock().unwrap() += 1;
        let g = self.0 .0.lock().unwrap();
        let _ = self
            .0
             .1
            .wait_timeout_while(g, Duration::from_secs(60), |open| !*open)
            .unwrap();
    }
}

fn never_completes(d: &Dispatcher, kept: Arc<Mutex<Vec<Arc<Call>>>>) {
    d.register_function(
        r#"{"id":"never","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            kept.lock().unwrap().push(c.clone())
        })),
    )
    .unwrap();
}

#[test]
fn one_dispatchers_blocked_callbacks_do_not_delay_another_dispatchers_timeouts() {
    threads::set_completion_threads_max(2);
    let kept: Arc<Mutex<Vec<Arc<Call>>>> = Arc::default();
    // a: every completion thread it may have is blocked in on_invoked, and more wait
    let (a, a_logs) = dispatcher_with_log();
    never_completes(&a, kept.clone());
    let latch: Arc<(Mutex<bool>, Condvar)> = Arc::default();
    let entered: Arc<Mutex<usize>> = Arc::default();
    a.add_delegate(Arc::new(Blocking(latch.clone(), entered.clone())));
    let (a_tx, a_rx) = std::sync::mpsc::channel();
    for _ in 0..4 {
        let tx = a_tx.clone();
        a.execute_async(
            &Invocation::new("never").timeout(Duration::from_millis(5)),
            None,
            move |o, _| tx.send(o.error_code).unwrap(),
        );
    }
    while *entered.lock().unwrap() < 2 {
        std::thread::sleep(Duration::from_millis(5));
    }
    // b: an unrelated dispatcher's call times out and ends while a's threads stay blocked
    let (b, b_logs) = dispatcher_with_log();
    never_completes(&b, kept.clone());
    let (b_tx, b_rx) = std::sync::mpsc::channel();
    // (two: within b's own cap, so b's log has no warning of its own)
    for _ in 0..2 {
        let tx = b_tx.clone();
        b.execute_async(
            &Invocation::new("never").timeout(Duration::from_millis(20)),
            None,
            move |o, _| tx.send(o.error_code).unwrap(),
        );
    }
    for _ in 0..2 {
        // (a liveness bound, not a timing: with one process-wide pool this never came
        // before the latch opened)
        assert_eq!(
            b_rx.recv_timeout(Duration::from_secs(20)),
            Ok(Some(ErrorCode::TimedOut))
        );
    }
    assert_eq!(
        *entered.lock().unwrap(),
        2,
        "a's calls still wait for its own threads"
    );
    // the cap warning goes to the log of the dispatcher whose call waited
    *latch.0.lock().unwrap() = true;
    latch.1.notify_all();
    for _ in 0..4 {
        assert_eq!(
            a_rx.recv_timeout(Duration::from_secs(20)),
            Ok(Some(ErrorCode::TimedOut))
        );
    }
    let capped = |logs: &Logs| {
        logs.lock()
            .unwrap()
            .iter()
            .filter(|m| m.contains("the cap"))
            .cloned()
            .collect::<Vec<_>>()
    };
    let a_capped = capped(&a_logs);
    assert_eq!(a_capped.len(), 1, "{a_capped:?}");
    assert!(a_capped[0].contains("all 2 completion threads of this dispatcher"));
    assert!(capped(&b_logs).is_empty(), "{:?}", b_logs.lock().unwrap());
}
