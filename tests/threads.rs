//! The library's own threads (src/engine/threads.rs): the completion pool stops at its cap and
//! says so in the log, and its threads exit when idle. A test binary of its own, since it
//! changes the process-wide cap and counts the process's completion threads.

use appfunctions::*;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

#[test]
fn the_completion_pool_stops_at_its_cap_logs_it_and_its_threads_exit_when_idle() {
    threads::set_completion_threads_max(2);
    assert_eq!(threads::completion_threads_max(), 2);
    let d = Dispatcher::new();
    let kept: Mutex<Vec<Arc<Call>>> = Mutex::default();
    d.register_function(
        r#"{"id":"never","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            kept.lock().unwrap().push(c.clone())
        })),
    )
    .unwrap();
    let logs: Arc<Mutex<Vec<String>>> = Arc::default();
    let l = logs.clone();
    d.set_log_sink(Some(Arc::new(move |_, m: &str| {
        l.lock().unwrap().push(m.to_owned())
    })));
    // every on_invoked blocks until the test opens the latch
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
                .wait_timeout_while(g, Duration::from_secs(30), |open| !*open)
                .unwrap();
        }
    }
    let latch: Arc<(Mutex<bool>, Condvar)> = Arc::default();
    let entered: Arc<Mutex<usize>> = Arc::default();
    d.add_delegate(Arc::new(Blocking(latch.clone(), entered.clone())));
    let (tx, rx) = std::sync::mpsc::channel();
    for _ in 0..5 {
        let tx = tx.clone();
        d.execute_async(
            &Invocation::new("never").timeout(Duration::from_millis(5)),
            None,
            move |o, _| tx.send(o.error_code).unwrap(),
        );
    }
    // two completion threads are blocked in on_invoked; the three other calls wait
    let t0 = Instant::now();
    while *entered.lock().unwrap() < 2 && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(*entered.lock().unwrap(), 2);
    assert_eq!(threads::completion_threads(), 2);
    *latch.0.lock().unwrap() = true;
    latch.1.notify_all();
    for _ in 0..5 {
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(10)).unwrap(),
            Some(ErrorCode::TimedOut)
        );
    }
    let capped: Vec<String> = logs
        .lock()
        .unwrap()
        .iter()
        .filter(|m| m.contains("the cap"))
        .cloned()
        .collect();
    assert_eq!(capped.len(), 1, "one line per episode: {capped:?}");
    assert!(
        capped[0].contains("all 2 completion threads") && capped[0].contains("never"),
        "{}",
        capped[0]
    );
    // idle threads exit (after a second without work)
    let t0 = Instant::now();
    while threads::completion_threads() > 0 && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(threads::completion_threads(), 0);
}
