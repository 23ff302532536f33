//! The timer thread (src/engine/timer.rs) outlives a pause between calls: an assistant calls
//! an app seconds apart, and each asynchronous call with a timeout needs the thread, so it
//! is not started again for each call. A test binary of its own: it names the process's
//! threads, and another test's deadlines would keep the timer busy. Linux only: it reads the
//! threads' names from /proc.
#![cfg(target_os = "linux")]

use appfunctions::*;
use std::sync::Arc;
use std::time::Duration;

/// The thread ids of the process's threads whose name starts with `prefix` (the kernel
/// keeps the first 15 bytes of a name).
fn threads_named(prefix: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for e in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let e = e.unwrap();
        let comm = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
        if comm.trim_end().starts_with(prefix) {
            ids.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    ids
}

/// An asynchronous call with a timeout of 50 ms, its handler answering inline (a short one:
/// a thread that saw the deadline before the call ended waits for it, and then the test's
/// pause is all without one).
fn call(d: &Dispatcher) {
    let (tx, rx) = std::sync::mpsc::channel();
    let inv = Invocation::new("ping").timeout(Duration::from_millis(50));
    d.execute_async(&inv, None, move |o, _| tx.send(o.is_success()).unwrap());
    assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(true));
}

#[test]
fn the_timer_thread_outlives_a_pause_of_seconds_between_calls() {
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id":"ping","result":"string"}"#,
        Some(sync_handler(|_: &Arc<Call>| Ok(Some("\"pong\"".into())))),
    )
    .unwrap();
    assert!(
        threads_named("appfunctions-ti").is_empty(),
        "no deadline yet"
    );
    call(&d);
    // the first deadline started it (which names itself once it runs)
    let mut first = threads_named("appfunctions-ti");
    for _ in 0..1000 {
        if !first.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
        first = threads_named("appfunctions-ti");
    }
    assert_eq!(first.len(), 1, "one timer thread: {first:?}");
    // past the second the library's other threads wait before they exit, no deadline at all
    std::thread::sleep(Duration::from_millis(1600));
    assert_eq!(
        threads_named("appfunctions-ti"),
        first,
        "still the same thread"
    );
    // the next call's deadline goes to the same thread: none is started for it
    call(&d);
    assert_eq!(threads_named("appfunctions-ti"), first);
}
