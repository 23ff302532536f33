//! Deadlines of asynchronous calls, and the HTTP exchange's sweeps of idle sessions. One
//! timer thread for the process, started when a deadline is first scheduled and gone again
//! after [`IDLE_EXIT`] with none (synchronous `execute` waits on its own thread and needs
//! none).
//!
//! The timer only decides: at a deadline it calls [`Expire::expire`], which must return
//! at once and run no host code (a call marks itself timed out and hands the rest to the
//! completion pool), so no host callback can make another call's timeout late. It knows
//! nothing of calls or dispatchers.
//!
//! A deadline is kept in one of two places. A call being driven on the thread that started
//! it is [`arm`]ed in a small table of slots (one per call driven so, so about one per
//! thread): arming and disarming it is a slot taken and given back, which is all the common
//! asynchronous call (its handler answering inline) pays. A call still waiting for the host
//! when that thread lets go of it is [`promote`]d to the ordered map of [`schedule`], which
//! holds any number of waiting calls. The timer thread wakes for the earliest of both, so a
//! handler blocking inline is marked timed out at its deadline either way.

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
    /// The armed deadlines of calls driven on the thread that started them ([`arm`]); a
    /// slot is in use from `arm` to `disarm`, its target taken when it fires.
    slots: Vec<Slot>,
    /// The slots not in use.
    free: Vec<u32>,
    /// How many slots hold a target that has not fired yet.
    armed: usize,
}

struct Slot {
    deadline: Instant,
    target: Option<Weak<dyn Expire>>,
}

/// How long the timer thread waits without a deadline before it exits: a minute, where the
/// library's other threads wait a second ([`crate::engine::threads::IDLE_EXIT`]). Every
/// asynchronous call with a timeout arms a deadline, so an app that an assistant calls a
/// few seconds apart (a model's turn between two tool calls, a user's between two
/// requests) would otherwise start the thread again for each call: measured 2026-12-05
/// (`benches/suite.rs`, `paced`), an `af_execute_async` answered inline took a median
/// 122 µs 1.5 s after the last call (the thread gone and started again), against 37 µs
/// 0.3 s after it. Waiting, the thread
/// costs its stack's address space and a wake-up a second ([`IDLE_WAKE`]).
#[cfg(not(miri))]
pub(crate) const IDLE_EXIT: std::time::Duration = std::time::Duration::from_secs(60);
/// Under miri a second, as before 2026-12-05: miri counts a thread still running when a test
/// binary ends as an error (ci/lanes/miri.sh), and its clock runs from the code it
/// interprets, so a timer that waited a minute would outlive every test binary that used it.
#[cfg(miri)]
pub(crate) const IDLE_EXIT: std::time::Duration = std::time::Duration::from_secs(1);

/// How long the timer thread waits at a time while it has no deadline (a new deadline
/// signals it only when it is earlier than that; see [`run`]).
const IDLE_WAKE: std::time::Duration = std::time::Duration::from_secs(1);

/// The bit that marks an [`arm`]ed slot's number, beside [`schedule`]'s numbers (which
/// count from 1 and never reach it).
const SLOT: u64 = 1 << 63;

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
            slots: Vec::new(),
            free: Vec::new(),
            armed: 0,
        }),
        wake: Condvar::new(),
    })
}

impl State {
    /// The earliest armed slot that has not fired: its deadline and number.
    fn first_slot(&self) -> Option<(Instant, usize)> {
        if self.armed == 0 {
            return None;
        }
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.target.is_some())
            .map(|(i, s)| (s.deadline, i))
            .min()
    }

    /// Starts the timer thread if it is not running, else wakes it when `deadline` is
    /// earlier than it would wake by itself. It is started with the lock held: started
    /// after the lock was let go, it took the lock while the call that started it went
    /// on, and the call found it taken when it gave its deadline back (the first
    /// asynchronous call of a cold start, measured 2026-12-05 with the libraries taken in
    /// turn: 0.108 ms started under the lock, 0.122 ms after it).
    fn wake_for(&mut self, t: &Timer, deadline: Instant) {
        if !self.running {
            let spawned = std::thread::Builder::new()
                .name("appfunctions-timer".into())
                .spawn(run);
            // if the system refuses a thread now, the next deadline tries again
            self.running = spawned.is_ok();
        } else if self.wake_at.is_some_and(|w| deadline < w) {
            // a waiting thread that wakes by itself before this deadline needs no signal
            t.wake.notify_one();
            #[cfg(test)]
            SIGNALS.with(|n| n.set(n.get() + 1));
        }
    }
}

#[cfg(test)]
thread_local! {
    /// The signals [`State::wake_for`] gave the timer thread from this thread.
    static SIGNALS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn run() {
    let t = timer();
    let mut st = t.state.lock();
    // since when it has had no deadline
    let mut idle_since: Option<Instant> = None;
    loop {
        let now = Instant::now();
        let first = st.due.first_key_value().map(|(k, _)| *k);
        let slot = st.first_slot();
        let earliest = match (first, slot) {
            (Some(k), Some((d, _))) => Some(k.0.min(d)),
            (Some(k), None) => Some(k.0),
            (None, Some((d, _))) => Some(d),
            (None, None) => None,
        };
        if earliest.is_some() {
            idle_since = None;
        }
        match earliest {
            None => {
                // no deadline: it waits a second at a time (IDLE_WAKE), so that a new
                // deadline, which is nearly always later than that (the default timeout is
                // 30 s), finds it due to wake before the deadline and needs no signal: a
                // thread waiting the whole minute at once had to be woken by every call
                let since = *idle_since.get_or_insert(now);
                let exit_at = since + IDLE_EXIT;
                if now >= exit_at {
                    st.running = false;
                    return;
                }
                let until = (now + IDLE_WAKE).min(exit_at);
                st.wake_at = Some(until);
                t.wake.wait_until(&mut st, until);
                st.wake_at = None;
            }
            Some(at) if at > now => {
                st.wake_at = Some(at);
                t.wake.wait_until(&mut st, at);
                st.wake_at = None;
            }
            Some(_) => {
                let target = match (first, slot) {
                    (Some(k), _) if k.0 <= now => st.due.remove(&k),
                    (_, Some((_, i))) => {
                        // (the slot stays in use until its call disarms it)
                        st.armed -= 1;
                        st.slots[i].target.take()
                    }
                    _ => None,
                };
                drop(st);
                if let Some(target) = target.and_then(|w| w.upgrade()) {
                    target.expire();
                }
                st = t.state.lock();
            }
        }
    }
}

/// Arms `target`'s deadline for the call being driven on this thread; returns the slot's
/// number (never 0), which [`disarm`] gives back when the call ends, or [`promote`] when it
/// goes on waiting for the host past this thread. Cheaper than [`schedule`]: no ordered
/// insertion, no removal.
pub(crate) fn arm(deadline: Instant, target: Weak<dyn Expire>) -> u64 {
    let t = timer();
    let mut st = t.state.lock();
    let slot = Slot {
        deadline,
        target: Some(target),
    };
    let i = match st.free.pop() {
        Some(i) => {
            st.slots[i as usize] = slot;
            i
        }
        None => {
            st.slots.push(slot);
            (st.slots.len() - 1) as u32
        }
    };
    st.armed += 1;
    st.wake_for(t, deadline);
    SLOT | u64::from(i)
}

/// Gives back what [`arm`] or [`schedule`] returned (`number`, for the deadline
/// `deadline`): the call ended first, or its deadline is elsewhere now. 0 is ignored.
pub(crate) fn disarm(deadline: Instant, number: u64) {
    if number & SLOT == 0 {
        if number != 0 {
            unschedule(deadline, number);
        }
        return;
    }
    let t = timer();
    let target = {
        let mut st = t.state.lock();
        let i = (number & !SLOT) as u32;
        let target = st.slots[i as usize].target.take();
        if target.is_some() {
            st.armed -= 1;
        }
        st.free.push(i);
        target
    };
    // the weak reference is released with no lock held
    drop(target);
}

/// Moves the deadline armed as `number` ([`arm`]) to the ordered map: its call waits for
/// the host past the thread that armed it. `word` is where the call keeps its number: it
/// is swapped for the new one, unless whoever ends the call took it first (then it has
/// disarmed the slot, and the new deadline is taken off again).
pub(crate) fn promote(
    deadline: Instant,
    number: u64,
    target: Weak<dyn Expire>,
    word: &std::sync::atomic::AtomicU64,
) {
    use std::sync::atomic::Ordering::SeqCst;
    // on the map before the slot is given back: no moment without a deadline
    let seq = schedule(deadline, target);
    match word.compare_exchange(number, seq, SeqCst, SeqCst) {
        Ok(_) => disarm(deadline, number),
        Err(_) => unschedule(deadline, seq),
    }
}

/// Expires `target` at `deadline` unless it is unscheduled first; returns the deadline's
/// number (never 0), which with `deadline` unschedules it.
pub(crate) fn schedule(deadline: Instant, target: Weak<dyn Expire>) -> u64 {
    let t = timer();
    let mut st = t.state.lock();
    st.next += 1;
    let key = Key(deadline, st.next);
    st.due.insert(key, target);
    st.wake_for(t, deadline);
    key.1
}

/// Forgets a deadline (its target finished in time). Unknown ones are ignored.
pub(crate) fn unschedule(deadline: Instant, seq: u64) {
    let t = timer();
    let removed = t.state.lock().due.remove(&Key(deadline, seq));
    // the weak reference is released with no lock held
    drop(removed);
}

/// Whether the deadline `seq` at `deadline` ([`schedule`]) is still on the timer (tests of
/// what schedules: that it takes its deadlines off).
#[cfg(all(test, feature = "http"))]
pub(crate) fn is_scheduled(deadline: Instant, seq: u64) -> bool {
    timer().state.lock().due.contains_key(&Key(deadline, seq))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    use std::time::Duration;

    #[derive(Default)]
    struct Probe {
        fired: AtomicUsize,
    }

    impl Expire for Probe {
        fn expire(self: Arc<Self>) {
            self.fired.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn target(p: &Arc<Probe>) -> Weak<dyn Expire> {
        Arc::downgrade(p) as Weak<dyn Expire>
    }

    /// Waits up to two seconds for `p` to have fired `n` times.
    fn fired(p: &Probe, n: usize) -> bool {
        let until = Instant::now() + Duration::from_secs(2);
        while Instant::now() < until {
            if p.fired.load(Ordering::SeqCst) >= n {
                return true;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        false
    }

    #[test]
    fn an_armed_slot_fires_at_its_deadline_and_once() {
        let p = Arc::new(Probe::default());
        let start = Instant::now();
        let n = arm(start + Duration::from_millis(30), target(&p));
        assert_ne!(n, 0);
        assert!(fired(&p, 1));
        assert!(start.elapsed() >= Duration::from_millis(30));
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(p.fired.load(Ordering::SeqCst), 1);
        // given back after it fired (the call ends later): the slot is free again
        disarm(start, n);
    }

    #[test]
    fn a_disarmed_slot_never_fires_and_its_slot_is_reused_safely() {
        let quiet = Arc::new(Probe::default());
        let deadline = Instant::now() + Duration::from_millis(20);
        let n = arm(deadline, target(&quiet));
        disarm(deadline, n);
        // the freed slot (perhaps the same one) serves the next call, which fires
        let next = Arc::new(Probe::default());
        let m = arm(Instant::now() + Duration::from_millis(20), target(&next));
        assert!(fired(&next, 1));
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(quiet.fired.load(Ordering::SeqCst), 0);
        disarm(deadline, m);
    }

    #[test]
    fn a_promoted_deadline_fires_from_the_map_and_the_slot_is_given_back() {
        let p = Arc::new(Probe::default());
        let deadline = Instant::now() + Duration::from_millis(40);
        let n = arm(deadline, target(&p));
        let word = AtomicU64::new(n);
        promote(deadline, n, target(&p), &word);
        let seq = word.load(Ordering::SeqCst);
        assert!(
            seq != n && seq & SLOT == 0,
            "the call now keeps the map's number"
        );
        assert!(fired(&p, 1));
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(p.fired.load(Ordering::SeqCst), 1, "not again from the slot");
        disarm(deadline, word.swap(0, Ordering::SeqCst));
    }

    #[test]
    fn a_promotion_that_loses_to_the_end_of_the_call_takes_its_deadline_off() {
        let p = Arc::new(Probe::default());
        let deadline = Instant::now() + Duration::from_millis(30);
        let n = arm(deadline, target(&p));
        let word = AtomicU64::new(n);
        // the call ends first: whoever ends it takes the number and gives the slot back
        disarm(deadline, word.swap(0, Ordering::SeqCst));
        promote(deadline, n, target(&p), &word);
        assert_eq!(word.load(Ordering::SeqCst), 0);
        std::thread::sleep(Duration::from_millis(80));
        assert_eq!(p.fired.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_call_needs_no_signal_while_the_thread_waits_without_a_deadline() {
        // the thread started, and waiting with no deadline (other tests' gone too)
        let p = Arc::new(Probe::default());
        let first = Instant::now() + Duration::from_millis(5);
        let n = arm(first, target(&p));
        assert!(fired(&p, 1));
        disarm(first, n);
        let idle = || {
            let st = timer().state.lock();
            st.running && st.wake_at.is_some() && st.due.is_empty() && st.armed == 0
        };
        let until = Instant::now() + Duration::from_secs(5);
        while !idle() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
        // calls with the default timeout, their deadlines armed and disarmed: the thread
        // wakes by itself sooner than any of them, so none signals it (signalling it was a
        // futex wake and a context switch per call)
        let before = SIGNALS.with(|n| n.get());
        let quiet = Arc::new(Probe::default());
        for _ in 0..100 {
            let deadline = Instant::now() + Duration::from_secs(30);
            let n = arm(deadline, target(&quiet));
            disarm(deadline, n);
        }
        assert_eq!(SIGNALS.with(|n| n.get()) - before, 0);
    }

    #[test]
    fn slots_and_the_map_fire_in_deadline_order() {
        let early = Arc::new(Probe::default());
        let late = Arc::new(Probe::default());
        let now = Instant::now();
        let a = schedule(now + Duration::from_millis(120), target(&late));
        let b = arm(now + Duration::from_millis(20), target(&early));
        assert!(fired(&early, 1));
        assert_eq!(late.fired.load(Ordering::SeqCst), 0);
        assert!(fired(&late, 1));
        disarm(now, b);
        disarm(now + Duration::from_millis(120), a);
    }
}
