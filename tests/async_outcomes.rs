//! Every asynchronous call gets exactly one outcome, under races: many threads start calls
//! whose deadlines (50 µs to 2 ms) fall while the starting thread still drives them (the
//! deadline armed in a timer slot), while it moves the deadline to the timer's ordered map
//! as the call goes on waiting past it (`Dispatcher::drive_async`, `timer::promote`), or
//! after; with handlers that never answer (ended by the timeout, with and without a cancel
//! callback), handlers answered at once from another thread (racing the end of
//! `execute_async`, the promotion and the timeout), and handlers answering inline. Each
//! call's outcome is counted by its ticket; a call without one, or with two, is named
//! (function, timeout); every scope begin must have its end and every cancel callback be
//! released. `AF_ASYNC_RACE_SECONDS` (default 1.5) runs it longer.

use appfunctions::{Call, Dispatcher, Invocation, ScopeHooks};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Default)]
struct Scopes {
    begins: AtomicUsize,
    ends: AtomicUsize,
}

impl ScopeHooks for Scopes {
    fn begin(&self, _call: &Arc<Call>) {
        self.begins.fetch_add(1, Ordering::SeqCst);
    }
    fn end(&self, _call: &Arc<Call>) {
        self.ends.fetch_add(1, Ordering::SeqCst);
    }
}

/// Calls handed to the answering threads, completed as soon as one takes them.
#[derive(Default)]
struct Handoff {
    queue: Mutex<Vec<Arc<Call>>>,
    ready: Condvar,
}

const KINDS: [&str; 4] = ["never", "handoff", "inline", "never_watch"];

#[test]
fn every_asynchronous_call_gets_exactly_one_outcome_under_racing_deadlines() {
    let seconds: f64 = std::env::var("AF_ASYNC_RACE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.5);
    let threads = 8;
    let d = Dispatcher::new();
    let scopes = Arc::new(Scopes::default());
    d.set_scope_hooks(Some(scopes.clone()));
    let handoff = Arc::new(Handoff::default());
    let cancels_run = Arc::new(AtomicUsize::new(0));
    let cancels_dropped = Arc::new(AtomicUsize::new(0));
    let cancels_made = Arc::new(AtomicUsize::new(0));
    // never answers: its timeout ends it
    d.register_function(
        r#"{"id": "never", "result": "string"}"#,
        Some(Arc::new(|_c: &Arc<Call>| {})),
    )
    .unwrap();
    // never answers, and watches for its cancellation (as the soak's `never`)
    {
        let (run, dropped, made) = (
            cancels_run.clone(),
            cancels_dropped.clone(),
            cancels_made.clone(),
        );
        d.register_function(
            r#"{"id": "never_watch", "result": "string"}"#,
            Some(Arc::new(move |c: &Arc<Call>| {
                struct Guard(Arc<AtomicUsize>);
                impl Drop for Guard {
                    fn drop(&mut self) {
                        self.0.fetch_add(1, Ordering::SeqCst);
                    }
                }
                made.fetch_add(1, Ordering::SeqCst);
                let g = Guard(dropped.clone());
                let run = run.clone();
                let _ = c.on_cancel(Box::new(move || {
                    let _g = &g;
                    run.fetch_add(1, Ordering::SeqCst);
                }));
            })),
        )
        .unwrap();
    }
    // answered by another thread at once: the answer races the end of execute_async
    // and the deadline
    {
        let h = handoff.clone();
        d.register_function(
            r#"{"id": "handoff", "result": "string"}"#,
            Some(Arc::new(move |c: &Arc<Call>| {
                h.queue.lock().unwrap().push(c.clone());
                h.ready.notify_one();
            })),
        )
        .unwrap();
    }
    d.register_function(
        r#"{"id": "inline", "result": "string"}"#,
        Some(Arc::new(|c: &Arc<Call>| {
            let _ = c.complete(Ok(Some("\"ok\"".into())));
        })),
    )
    .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let answerers: Vec<_> = (0..2)
        .map(|_| {
            let (h, stop) = (handoff.clone(), stop.clone());
            std::thread::spawn(move || loop {
                let batch = {
                    let mut q = h.queue.lock().unwrap();
                    while q.is_empty() && !stop.load(Ordering::SeqCst) {
                        q = h.ready.wait_timeout(q, Duration::from_millis(5)).unwrap().0;
                    }
                    if q.is_empty() {
                        return;
                    }
                    std::mem::take(&mut *q)
                };
                for c in batch {
                    let _ = c.complete(Ok(Some("\"late\"".into())));
                }
            })
        })
        .collect();

    // outcomes[ticket]: how many each call got; kinds[ticket]: what it was
    let max_calls = 2_000_000usize;
    let outcomes: Arc<Vec<AtomicU8>> = Arc::new((0..max_calls).map(|_| AtomicU8::new(0)).collect());
    let next = Arc::new(AtomicUsize::new(0));
    let until = Instant::now() + Duration::from_secs_f64(seconds);
    let workers: Vec<_> = (0..threads)
        .map(|w| {
            let (d, outcomes, next) = (d.clone(), outcomes.clone(), next.clone());
            std::thread::spawn(move || {
                let mut r = 0x9e37_79b9_7f4a_7c15u64 ^ (w as u64 + 1);
                let mut made: Vec<(usize, &'static str, u64)> = Vec::new();
                while Instant::now() < until {
                    let t = next.fetch_add(1, Ordering::Relaxed);
                    if t >= max_calls {
                        break;
                    }
                    r ^= r << 13;
                    r ^= r >> 7;
                    r ^= r << 17;
                    let kind = KINDS[(r % 4) as usize];
                    // most deadlines fall within the few microseconds the call takes to
                    // start, answer or wait, and hand its deadline over; some later
                    let us = if (r >> 8) % 4 == 0 {
                        50 + (r >> 16) % 2000
                    } else {
                        50 + (r >> 16) % 150
                    };
                    made.push((t, kind, us));
                    let o = outcomes.clone();
                    d.execute_async(
                        &Invocation::new(kind).timeout(Duration::from_micros(us)),
                        None,
                        move |_outcome, _json| {
                            o[t].fetch_add(1, Ordering::SeqCst);
                        },
                    );
                }
                made
            })
        })
        .collect();
    let described: Vec<(usize, &'static str, u64)> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    let made = next.load(Ordering::SeqCst).min(max_calls);
    // every deadline is at most 2 ms away, but ending 100,000 timed-out calls takes a loaded
    // machine (a debug build, 2 cores shared with other builds) longer than any fixed bound:
    // a call is lost when the outcomes stop coming, not when they come slowly (10 s without
    // one more outcome; 5 minutes at most)
    let missing = |o: &Vec<AtomicU8>| {
        (0..made)
            .filter(|&t| o[t].load(Ordering::SeqCst) == 0)
            .count()
    };
    let give_up = Instant::now() + Duration::from_secs(300);
    let (mut left, mut progress) = (missing(&outcomes), Instant::now());
    while left > 0 && progress.elapsed() < Duration::from_secs(10) && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(5));
        let now_left = missing(&outcomes);
        if now_left < left {
            (left, progress) = (now_left, Instant::now());
        }
    }
    stop.store(true, Ordering::SeqCst);
    for a in answerers {
        a.join().unwrap();
    }
    let lost: Vec<_> = described
        .iter()
        .filter(|(t, _, _)| outcomes[*t].load(Ordering::SeqCst) == 0)
        .collect();
    let twice: Vec<_> = described
        .iter()
        .filter(|(t, _, _)| outcomes[*t].load(Ordering::SeqCst) > 1)
        .collect();
    assert!(
        lost.is_empty() && twice.is_empty(),
        "of {made} calls, {} got no outcome (ticket, function, timeout µs: {:?}), {} more than one ({:?}); in flight {}",
        lost.len(),
        &lost[..lost.len().min(10)],
        twice.len(),
        &twice[..twice.len().min(10)],
        d.in_flight()
    );
    assert_eq!(d.in_flight(), 0);
    assert_eq!(
        scopes.begins.load(Ordering::SeqCst),
        scopes.ends.load(Ordering::SeqCst),
        "every scope begin has its end"
    );
    // the calls are gone: each cancel callback was released (after it ran: all timed out)
    let until = Instant::now() + Duration::from_secs(2);
    while cancels_dropped.load(Ordering::SeqCst) < cancels_made.load(Ordering::SeqCst)
        && Instant::now() < until
    {
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(
        cancels_dropped.load(Ordering::SeqCst),
        cancels_made.load(Ordering::SeqCst)
    );
    eprintln!(
        "{made} asynchronous calls in {seconds} s on {threads} threads: each got one outcome; {} cancel callbacks ran",
        cancels_run.load(Ordering::SeqCst)
    );
}
