//! Deadlines of asynchronous calls. One timer thread for the process, started when a
//! deadline is first scheduled and gone again after [`crate::engine::threads::IDLE_EXIT`] with
//! none (synchronous `execute` waits on its own thread and needs none).
//!
//! The timer only decides: at a deadline it calls [`Expire::expire`], which must return
//! at once and run no host code (a call marks itself timed out and hands the rest to the
//! completion pool), so no host callback can make another call's timeout late. It knows
//! nothing of calls or dispatchers.

use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Instant;

/// What a deadline ends. `expire` runs on the timer thread: it must not block or run
/// host code.
pub(crate) trait Expire: Send + Sync {
    fn expire(self: Arc<Self>);
}

/// A scheduled deadline: when, and its number (never 0), which [`schedule`] returns to
/// [`unschedule`] it when its target finishes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key(Instant, u64);

struct State {
    /// Deadlines in order; finished targets are removed, so this holds only what is live.
    due: BTreeMap<Key, Weak<dyn Expire>>,
    next: u64,
    running: bool,
    /// When the waiting timer thread wakes by itself (`None`: it is not waiting). A new
    /// deadline wakes it only when it is earlier: with a default timeout on every call,
    /// new deadlines are almost always later, and waking the thread for each one would
    /// cost a context switch per call.
    wake_at: Option<Instant>,
}

struct Timer {
    state: Mutex<State>,
    wake: Condvar,
}

fn timer() -> &'static Timer {
    static T: OnceLock<Timer> = OnceLock::new();
    T.get_or_init(|| Timer {
        state: Mutex::new(State {
            due: BTreeMap::new(),
            next: 0,
            running: false,
            wake_at: None,
        }),
        wake: Condvar::new(),
    })
}

fn run() {
    let t = timer();
    let mut st = t.state.lock();
    loop {
        let now = Instant::now();
        let first = st.due.first_key_value().map(|(k, _)| *k);
        match first {
            None => {
                let until = now + crate::engine::threads::IDLE_EXIT;
                st.wake_at = Some(until);
                let timed_out = t.wake.wait_until(&mut st, until).timed_out();
                st.wake_at = None;
                if timed_out && st.due.is_empty() {
                    st.running = false;
                    return;
                }
            }
            Some(k) if k.0 > now => {
                st.wake_at = Some(k.0);
                t.wake.wait_until(&mut st, k.0);
                st.wake_at = None;
            }
            Some(k) => {
                let target = st.due.remove(&k).and_then(|w| w.upgrade());
                drop(st);
                if let Some(target) = target {
                    target.expire();
                }
                st = t.state.lock();
            }
        }
    }
}

/// Expires `target` at `deadline` unless it is unscheduled first; returns the deadline's
/// number (never 0), which with `deadline` unschedules it.
pub(crate) fn schedule(deadline: Instant, target: Weak<dyn Expire>) -> u64 {
    let t = timer();
    let mut st = t.state.lock();
    st.next += 1;
    let key = Key(deadline, st.next);
    // a waiting thread that wakes by itself before this deadline needs no signal
    let wake = st.wake_at.is_some_and(|w| deadline < w);
    st.due.insert(key, target);
    if !st.running {
        let spawned = std::thread::Builder::new()
            .name("appfunctions-timer".into())
            .spawn(run);
        // if the system refuses a thread now, the next schedule tries again
        st.running = spawned.is_ok();
    } else if wake {
        t.wake.notify_one();
    }
    key.1
}

/// Forgets a deadline (its target finished in time). Unknown ones are ignored.
pub(crate) fn unschedule(deadline: Instant, seq: u64) {
    let t = timer();
    let removed = t.state.lock().due.remove(&Key(deadline, seq));
    // the weak reference is released with no lock held
    drop(removed);
}
