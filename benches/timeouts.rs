//! How late timeouts fire (issue 18), with host callbacks that block 0 ms and 100 ms.
//! Prints one JSON object (ci/bench.sh merges it into target/bench/summary.json).
//!
//! Each round starts 50 asynchronous calls back to back, each with a 20 ms timeout, to a
//! function whose handler never answers; a telemetry delegate's `on_invoked` blocks for
//! 0 ms or 100 ms in every call (the issue's scenario). Per call:
//! - lateness: from the deadline to the moment host code learns the call timed out (the
//!   cancel callback its handler registered runs);
//! - outcome lateness: from the deadline to the outcome callback (after the call's own
//!   `on_invoked`, so it includes that call's own blocking).
//!
//! `cargo bench -p appfunctions-benches --bench timeouts -- [--rounds N]`

use appfunctions::{Call, Delegate, Dispatcher, Invocation, Outcome};
use serde_json::json;
use std::cell::Cell;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const CALLS: usize = 50;
const TIMEOUT: Duration = Duration::from_millis(20);

thread_local! {
    /// The index of the call being started (its handler runs inline, on this thread).
    static INDEX: Cell<usize> = const { Cell::new(0) };
}

struct Telemetry(Duration);
impl Delegate for Telemetry {
    fn has_on_invoking(&self) -> bool {
        false
    }
    fn on_invoked(&self, _: &Arc<Call>, _: &Outcome, _: &str) {
        if !self.0.is_zero() {
            std::thread::sleep(self.0);
        }
    }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v.get(i).copied().unwrap_or(f64::NAN)
}

/// Lateness and outcome lateness (ms) of every call over `rounds` rounds, and the most
/// completion threads seen at once.
fn measure(block: Duration, rounds: usize) -> (Vec<f64>, Vec<f64>, usize) {
    let d = Dispatcher::new();
    let fired: Arc<Mutex<Vec<Option<Instant>>>> = Arc::new(Mutex::new(vec![None; CALLS]));
    let kept: Arc<Mutex<Vec<Arc<Call>>>> = Arc::default();
    let (f, k) = (fired.clone(), kept.clone());
    d.register_function(
        r#"{"id":"never","result":"int32"}"#,
        Some(Arc::new(move |c: &Arc<Call>| {
            let i = INDEX.with(Cell::get);
            let f = f.clone();
            // (on_cancel answers an id once callbacks become removable, issue 11)
            #[allow(clippy::let_unit_value)]
            let _ = c.on_cancel(Box::new(move || {
                f.lock().unwrap()[i] = Some(Instant::now())
            }));
            k.lock().unwrap().push(c.clone());
        })),
    )
    .unwrap();
    d.add_delegate(Arc::new(Telemetry(block)));
    let (mut late, mut outcome_late) = (Vec::new(), Vec::new());
    let mut peak_threads = 0;
    for _ in 0..rounds {
        let (tx, rx) = mpsc::channel::<(usize, Instant)>();
        let mut deadlines = Vec::with_capacity(CALLS);
        for i in 0..CALLS {
            INDEX.with(|x| x.set(i));
            let tx = tx.clone();
            deadlines.push(Instant::now() + TIMEOUT);
            d.execute_async(
                &Invocation::new("never").timeout(TIMEOUT),
                None,
                move |_, _| {
                    let _ = tx.send((i, Instant::now()));
                },
            );
        }
        drop(tx);
        for (i, at) in rx.iter() {
            peak_threads = peak_threads.max(appfunctions::threads::completion_threads());
            let fired_at = fired.lock().unwrap()[i].take().unwrap_or(at);
            late.push(
                fired_at
                    .saturating_duration_since(deadlines[i])
                    .as_secs_f64()
                    * 1e3,
            );
            outcome_late.push(at.saturating_duration_since(deadlines[i]).as_secs_f64() * 1e3);
        }
        kept.lock().unwrap().clear();
    }
    (late, outcome_late, peak_threads)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(20usize);
    let mut out = serde_json::Map::new();
    for (block_ms, suffix) in [(0u64, ""), (100, "_blocking_100ms")] {
        let (mut late, mut outcome, peak) = measure(Duration::from_millis(block_ms), rounds);
        out.insert(
            format!("timeout_lateness_median_ms{suffix}"),
            json!(percentile(&mut late, 0.5)),
        );
        out.insert(
            format!("timeout_lateness_p99_ms{suffix}"),
            json!(percentile(&mut late, 0.99)),
        );
        out.insert(
            format!("timeout_lateness_max_ms{suffix}"),
            json!(percentile(&mut late, 1.0)),
        );
        out.insert(
            format!("timeout_outcome_lateness_median_ms{suffix}"),
            json!(percentile(&mut outcome, 0.5)),
        );
        out.insert(
            format!("timeout_outcome_lateness_p99_ms{suffix}"),
            json!(percentile(&mut outcome, 0.99)),
        );
        out.insert(
            format!("timeout_completion_threads_peak{suffix}"),
            json!(peak),
        );
    }
    out.insert("timeout_lateness_calls".into(), json!(rounds * CALLS));
    println!("{}", serde_json::Value::Object(out));
}
