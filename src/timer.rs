//! Timeouts of asynchronous calls. One timer thread for the process, started the first
//! time an asynchronous call carries a timeout (synchronous `execute` waits on its own
//! thread and needs none).

use crate::call::Call;
use crate::error::ErrorCode;
use parking_lot::{Condvar, Mutex};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{OnceLock, Weak};
use std::time::Instant;

struct Timer {
    heap: Mutex<BinaryHeap<Reverse<(Instant, u64, WeakCall)>>>,
    wake: Condvar,
}

struct WeakCall(Weak<Call>);
impl PartialEq for WeakCall {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for WeakCall {}
impl PartialOrd for WeakCall {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for WeakCall {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

fn timer() -> &'static Timer {
    static T: OnceLock<Timer> = OnceLock::new();
    static STARTED: OnceLock<()> = OnceLock::new();
    let t = T.get_or_init(|| Timer {
        heap: Mutex::new(BinaryHeap::new()),
        wake: Condvar::new(),
    });
    STARTED.get_or_init(|| {
        std::thread::Builder::new()
            .name("appfunctions-timer".into())
            .spawn(run)
            .expect("spawn the timer thread");
    });
    t
}

fn run() {
    let t = timer();
    let mut heap = t.heap.lock();
    loop {
        let now = Instant::now();
        match heap.peek() {
            None => {
                t.wake.wait(&mut heap);
            }
            Some(Reverse((deadline, _, _))) if *deadline > now => {
                let d = *deadline;
                t.wake.wait_until(&mut heap, d);
            }
            Some(_) => {
                let Reverse((_, _, call)) = heap.pop().expect("peeked");
                drop(heap);
                if let Some(c) = call.0.upgrade() {
                    c.cancel(ErrorCode::TimedOut);
                }
                heap = t.heap.lock();
            }
        }
    }
}

/// Times `call` out at `deadline` unless it has finished by then.
pub(crate) fn schedule(deadline: Instant, call: Weak<Call>) {
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let t = timer();
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    t.heap.lock().push(Reverse((deadline, seq, WeakCall(call))));
    t.wake.notify_one();
}
