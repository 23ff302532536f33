//! The threads the library owns, and which host code each one may run.
//!
//! The library starts no thread until it needs one, and every thread it starts exits
//! when it has had nothing to do for a second (the timer: for a minute,
//! [`crate::engine::timer::IDLE_EXIT`]), or at once when what owns its pool is dropped (a
//! dispatcher's completions, an HTTP exchange's workers: [`Pool`]'s drop):
//!
//! | thread | started by | runs host code? |
//! |---|---|---|
//! | `appfunctions-timer` (one) | the first asynchronous call with a timeout, or the first session of an HTTP exchange | never: it only decides. At a deadline it marks the call timed out (from then on `is_cancelled` is true and any host answer is refused as late) and hands the rest of the call to the completion pool; at an HTTP exchange's sweep it hands the sweep of idle sessions to that exchange's workers |
//! | `appfunctions-completion` (0 to [`completion_threads_max`] per dispatcher: 64 unless [`set_completion_threads_max`] says otherwise) | a timed-out call, or a cancellation token that ends several calls | yes: the rest of one call each — its cancel callbacks, every delegate's `on_invoked`, the scope-end hook, the outcome callback, the dispatcher's log sink |
//! | `appfunctions-mcp` (0 to 32 per [`crate::mcp::stdio::serve`]) | a `tools/call` arriving on the stdio transport | yes: the whole call (gates, handler, `on_invoked`, scope end) |
//! | `appfunctions-http` (0 to 32 per `http::HttpServer`) | a `tools/call` the HTTP exchange runs as a stream, or its sweep of idle sessions | yes: the whole call; the sweep itself none |
//!
//! The completion pool starts a thread whenever a completion is handed to it and no
//! thread of it is free, so a thread blocked in host code (a slow `on_invoked`, a scope end
//! that flushes a log) never holds up another call's completion: timeouts fire on time
//! however long host callbacks take. It stops growing at its cap; a completion handed to
//! it then waits for a thread to return from host code, and the first one that waited
//! says so in its dispatcher's log, with how long it waited. Each dispatcher has a
//! completion pool of its own, so one dispatcher's blocked callbacks never delay another
//! dispatcher's timeouts. The stdio transport's workers grow and stop the same way.
//!
//! Every other callback runs on a thread of the host's: the one that calls `execute`
//! (the pipeline up to the first host answer that does not come inline), the one that
//! answers later (it drives the call on from there), the one that cancels a token (see
//! [`crate::CancelToken::cancel`]).

use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a library thread waits for work before it exits.
pub(crate) const IDLE_EXIT: Duration = Duration::from_secs(1);

/// The completion pool's cap when none is set.
pub(crate) const COMPLETION_THREADS_MAX_DEFAULT: usize = 64;

/// The most worker threads the stdio MCP transport runs at once for one session.
pub(crate) const MCP_WORKERS_MAX: usize = 32;

static COMPLETION_CAP: AtomicUsize = AtomicUsize::new(COMPLETION_THREADS_MAX_DEFAULT);

/// The completion threads of every dispatcher's pool.
static COMPLETION_THREADS: AtomicUsize = AtomicUsize::new(0);

/// Sets the completion pools' cap (at least 1): the most threads one dispatcher may have
/// running host callbacks of its timed-out or cancelled calls at once (each dispatcher
/// has a pool of its own). A pool takes a new cap with its next job; threads above a
/// lowered cap exit when they finish what they run.
pub fn set_completion_threads_max(n: usize) {
    COMPLETION_CAP.store(n.max(1), Ordering::Relaxed);
}

/// The completion pools' cap (per dispatcher).
pub fn completion_threads_max() -> usize {
    COMPLETION_CAP.load(Ordering::Relaxed)
}

/// How many completion threads exist now in the process (busy or waiting for work).
pub fn completion_threads() -> usize {
    COMPLETION_THREADS.load(Ordering::Relaxed)
}

/// What a job learns about its wait when it runs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Waited {
    /// How long it was queued.
    pub waited: Duration,
    /// It was the first job queued while every thread was busy at the cap: it reports the
    /// episode in the log.
    pub at_cap: bool,
    /// The pool's cap at the time.
    pub cap: usize,
}

pub(crate) type Job = Box<dyn FnOnce(Waited) + Send>;

struct Queued {
    job: Job,
    at: Instant,
    at_cap: bool,
}

struct State {
    queue: VecDeque<Queued>,
    threads: usize,
    idle: usize,
    cap: usize,
    /// Some job is queued because the pool is at its cap (reset when the queue empties).
    saturated: bool,
    /// `close` was called, or the pool was dropped: workers exit when the queue is empty.
    closing: bool,
    next_name: usize,
}

struct Shared {
    name: &'static str,
    state: Mutex<State>,
    work: Condvar,
    /// Signalled when a job finishes or a worker exits (for `drain`).
    quiet: Condvar,
    /// Jobs queued or running.
    busy: AtomicUsize,
    /// A completion pool: its cap is [`completion_threads_max`], its threads are counted in
    /// [`completion_threads`].
    completion: bool,
}

/// A pool of threads that grows while its threads are busy (blocked in host code), up to
/// a cap, and whose threads exit after [`IDLE_EXIT`] without work, or as soon as they have
/// run what is queued once the pool is dropped. The drop does not wait for them: it may
/// happen on one of the pool's own threads (a job holding the last reference to its
/// owner), where waiting would never end.
pub(crate) struct Pool {
    shared: std::sync::Arc<Shared>,
}

impl Pool {
    pub(crate) fn new(name: &'static str, cap: usize) -> Pool {
        Pool::make(name, cap, false)
    }

    /// A dispatcher's completion pool: the rest of its timed-out calls, and of all but the
    /// first call a cancellation token ends.
    pub(crate) fn completions() -> Pool {
        Pool::make("appfunctions-completion", completion_threads_max(), true)
    }

    fn make(name: &'static str, cap: usize, completion: bool) -> Pool {
        Pool {
            shared: std::sync::Arc::new(Shared {
                name,
                state: Mutex::new(State {
                    queue: VecDeque::new(),
                    threads: 0,
                    idle: 0,
                    cap: cap.max(1),
                    saturated: false,
                    closing: false,
                    next_name: 0,
                }),
                work: Condvar::new(),
                quiet: Condvar::new(),
                busy: AtomicUsize::new(0),
                completion,
            }),
        }
    }

    #[cfg(test)]
    pub(crate) fn threads(&self) -> usize {
        self.shared.state.lock().threads
    }

    /// Watches this pool's threads after the pool is gone (each of them holds the pool's
    /// state until it exits).
    #[cfg(test)]
    pub(crate) fn watch(&self) -> Watch {
        Watch(std::sync::Arc::downgrade(&self.shared))
    }

    /// Runs `job` on a thread of the pool: a free one, else a new one, else (at the cap)
    /// the first to become free. Never runs it on this thread, unless the system refuses
    /// a new thread while the pool has none.
    pub(crate) fn submit(&self, job: Job) {
        let s = &self.shared;
        s.busy.fetch_add(1, Ordering::AcqRel);
        let mut st = s.state.lock();
        if s.completion {
            st.cap = completion_threads_max();
        }
        let at_cap = st.queue.len() >= st.idle && st.threads >= st.cap;
        let first_at_cap = at_cap && !st.saturated;
        if at_cap {
            st.saturated = true;
        }
        st.queue.push_back(Queued {
            job,
            at: Instant::now(),
            at_cap: first_at_cap,
        });
        if st.queue.len() <= st.idle {
            s.work.notify_one();
            return;
        }
        if at_cap {
            return;
        }
        st.threads += 1;
        if s.completion {
            COMPLETION_THREADS.fetch_add(1, Ordering::Relaxed);
        }
        st.next_name += 1;
        let name = format!("{}-{}", s.name, st.next_name);
        drop(st);
        let shared = s.clone();
        let spawned = std::thread::Builder::new()
            .name(name)
            .spawn(move || work(&shared));
        if spawned.is_err() {
            let mut st = s.state.lock();
            st.threads -= 1;
            if s.completion {
                COMPLETION_THREADS.fetch_sub(1, Ordering::Relaxed);
            }
            if st.threads == 0 {
                // nothing would ever run the queue: run it here rather than never
                let jobs: Vec<Queued> = st.queue.drain(..).collect();
                st.saturated = false;
                drop(st);
                for q in jobs {
                    run(s, q);
                }
            }
        }
    }

    /// Waits until no job is queued or running.
    pub(crate) fn drain(&self) {
        let s = &self.shared;
        let mut st = s.state.lock();
        while s.busy.load(Ordering::Acquire) > 0 {
            s.quiet.wait(&mut st);
        }
    }

    /// Lets the pool's threads exit now, once they have run what is queued, and waits for
    /// them (the pool stays usable: a later job starts a thread again).
    pub(crate) fn close(&self) {
        let s = &self.shared;
        let mut st = s.state.lock();
        st.closing = true;
        s.work.notify_all();
        while st.threads > 0 {
            s.quiet.wait(&mut st);
        }
        st.closing = false;
    }
}

/// A pool's threads, watched from a test after the pool is dropped.
#[cfg(test)]
pub(crate) struct Watch(std::sync::Weak<Shared>);

#[cfg(test)]
impl Watch {
    /// Waits until every thread of the pool has exited, and says whether that was before
    /// `by` (a thread leaves on its own, without the pool's drop, no sooner than
    /// [`IDLE_EXIT`] after its last job: the tests ask for half of that after the moment
    /// they saw the job end).
    pub(crate) fn gone_before(&self, by: Instant) -> bool {
        let gone = || self.0.upgrade().is_none();
        let give_up = by + 10 * IDLE_EXIT;
        while !gone() && Instant::now() < give_up {
            std::thread::sleep(Duration::from_millis(2));
        }
        gone() && Instant::now() < by
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // nothing can hand the pool work any more: the idle threads leave now, the busy
        // ones once the queue they share is empty (the worker loop takes a queued job
        // before it looks at `closing`)
        let s = &self.shared;
        s.state.lock().closing = true;
        s.work.notify_all();
    }
}

fn run(s: &Shared, q: Queued) {
    let cap = s.state.lock().cap;
    let info = Waited {
        waited: q.at.elapsed(),
        at_cap: q.at_cap,
        cap,
    };
    let job = q.job;
    // the jobs catch the host's panics themselves; this keeps the worker alive regardless
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || job(info)));
    let _g = s.state.lock();
    s.busy.fetch_sub(1, Ordering::AcqRel);
    s.quiet.notify_all();
}

fn work(s: &Shared) {
    let mut st = s.state.lock();
    loop {
        if let Some(q) = st.queue.pop_front() {
            if st.queue.is_empty() {
                st.saturated = false;
            }
            drop(st);
            run(s, q);
            st = s.state.lock();
            if st.threads > st.cap {
                break;
            }
            continue;
        }
        if st.closing {
            break;
        }
        st.idle += 1;
        let timed_out = s.work.wait_for(&mut st, IDLE_EXIT).timed_out();
        st.idle -= 1;
        if timed_out && st.queue.is_empty() {
            break;
        }
    }
    st.threads -= 1;
    if s.completion {
        COMPLETION_THREADS.fetch_sub(1, Ordering::Relaxed);
    }
    s.quiet.notify_all();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    #[test]
    fn a_blocked_thread_does_not_hold_up_the_next_job() {
        let p = Pool::new("test-pool", 8);
        let (tx, rx) = std::sync::mpsc::channel();
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        for i in 0..4 {
            let tx = tx.clone();
            let gate = gate.clone();
            p.submit(Box::new(move |_| {
                tx.send(i).unwrap();
                let mut open = gate.0.lock();
                while !*open {
                    gate.1.wait(&mut open);
                }
            }));
        }
        // all four run at once although none has returned
        let mut got: Vec<i32> = (0..4).map(|_| rx.recv().unwrap()).collect();
        got.sort();
        assert_eq!(got, vec![0, 1, 2, 3]);
        assert_eq!(p.threads(), 4);
        *gate.0.lock() = true;
        gate.1.notify_all();
        p.drain();
        p.close();
        assert_eq!(p.threads(), 0);
    }

    #[test]
    fn at_the_cap_jobs_wait_and_the_first_one_knows() {
        let p = Pool::new("test-pool", 2);
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let started = Arc::new(AtomicUsize::new(0));
        let reports: Arc<Mutex<Vec<bool>>> = Arc::default();
        for _ in 0..5 {
            let gate = gate.clone();
            let started = started.clone();
            let reports = reports.clone();
            p.submit(Box::new(move |w| {
                reports.lock().push(w.at_cap);
                started.fetch_add(1, Ordering::SeqCst);
                let mut open = gate.0.lock();
                while !*open {
                    gate.1.wait(&mut open);
                }
            }));
        }
        while started.load(Ordering::SeqCst) < 2 {
            std::thread::yield_now();
        }
        assert_eq!(p.threads(), 2, "the pool stops at its cap");
        *gate.0.lock() = true;
        gate.1.notify_all();
        p.drain();
        let r = reports.lock();
        assert_eq!(r.len(), 5);
        assert_eq!(r.iter().filter(|x| **x).count(), 1, "{r:?}");
        drop(r);
        p.close();
        assert_eq!(p.threads(), 0);
    }

    #[test]
    fn dropping_the_pool_lets_its_idle_threads_go_at_once() {
        let p = Pool::new("test-pool", 4);
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..3 {
            let (tx, gate) = (tx.clone(), gate.clone());
            p.submit(Box::new(move |_| {
                let mut open = gate.0.lock();
                tx.send(()).unwrap();
                while !*open {
                    gate.1.wait(&mut open);
                }
            }));
        }
        for _ in 0..3 {
            rx.recv().unwrap();
        }
        assert_eq!(p.threads(), 3);
        *gate.0.lock() = true;
        gate.1.notify_all();
        p.drain();
        let last_job = Instant::now();
        let gone = p.watch();
        drop(p);
        assert!(
            gone.gone_before(last_job + IDLE_EXIT / 2),
            "the threads left when the pool was dropped, not a second after their last job"
        );
    }

    #[test]
    fn a_pool_dropped_on_its_own_thread_does_not_wait_for_it() {
        let p = Arc::new(Pool::new("test-pool", 2));
        let gone = p.watch();
        let (tx, rx) = std::sync::mpsc::channel();
        let last = p.clone();
        p.submit(Box::new(move |_| {
            rx.recv().unwrap();
            drop(last); // the last reference: the pool is dropped here, on its own thread
        }));
        drop(p);
        let dropped = Instant::now();
        tx.send(()).unwrap();
        assert!(
            gone.gone_before(dropped + IDLE_EXIT / 2),
            "the thread that dropped its pool left when its job ended"
        );
    }

    #[test]
    fn jobs_queued_when_the_pool_is_dropped_still_run() {
        let p = Pool::new("test-pool", 1);
        let ran = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let first = ran.clone();
        p.submit(Box::new(move |_| {
            rx.recv().unwrap();
            first.fetch_add(1, Ordering::SeqCst);
        }));
        for _ in 0..3 {
            let ran = ran.clone();
            p.submit(Box::new(move |_| {
                ran.fetch_add(1, Ordering::SeqCst);
            }));
        }
        let gone = p.watch();
        drop(p); // with one job running and three queued at its cap
        tx.send(()).unwrap();
        assert!(gone.gone_before(Instant::now() + IDLE_EXIT / 2));
        assert_eq!(ran.load(Ordering::SeqCst), 4, "nothing queued was lost");
    }
}
