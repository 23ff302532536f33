//! A Server-Sent Events stream handed to the host: the core queues complete SSE frames,
//! the host's web server writes them as they come. The host already has the response's
//! status and headers when it gets the stream, so it sends them before the first event
//! (a client sees the stream open at once, not with its first message).
//!
//! The host reads with [`EventStream::next`] (blocking up to a timeout) and drops the
//! stream when the client goes away or the stream ends; dropping it runs the stream's
//! close action (cancelling the call it carries, ending a subscription, freeing a slot).

use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Frames a stream keeps for a host that does not read; past this the oldest change
/// notifications are dropped (a later `list_changed` says the same) and the log says so.
pub(crate) const MAX_QUEUED_FRAMES: usize = 256;

/// What [`EventStream::next`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// One complete SSE frame (`event: message\ndata: …\n\n`): write it and flush.
    Event(String),
    /// Nothing within the timeout: the stream is still open (a host may write an SSE
    /// comment, `:\n\n`, as a keep-alive, which also finds a client that went away).
    Idle,
    /// The stream is over: finish the response.
    End,
}

#[derive(Default)]
struct Queue {
    frames: VecDeque<String>,
    ended: bool,
    closed: bool,
    /// When the host closed the stream (with `closed`).
    closed_at: Option<Instant>,
    dropped: u64,
}

#[derive(Default)]
pub(crate) struct Shared {
    q: Mutex<Queue>,
    cv: Condvar,
}

/// The core's end of a stream.
#[derive(Clone)]
pub(crate) struct Sender(Arc<Shared>);

impl Sender {
    /// Queues one JSON-RPC message as an SSE `message` event; false when the host has
    /// closed the stream (nothing more can reach the client).
    pub(crate) fn send(&self, json: &str) -> bool {
        let mut q = self.0.q.lock();
        if q.closed || q.ended {
            return false;
        }
        if q.frames.len() >= MAX_QUEUED_FRAMES {
            q.frames.pop_front();
            q.dropped += 1;
        }
        q.frames.push_back(frame(json));
        drop(q);
        self.0.cv.notify_all();
        true
    }

    /// Ends the stream after what is queued.
    pub(crate) fn end(&self) {
        self.0.q.lock().ended = true;
        self.0.cv.notify_all();
    }

    /// Whether the host has closed the stream.
    pub(crate) fn is_closed(&self) -> bool {
        self.0.q.lock().closed
    }

    /// When the host closed the stream; `None` while it is open. Set in the same step
    /// that closes it, before the stream's close action runs: an idle time counted from
    /// here has no window where the stream reads as closed and its end as long ago.
    pub(crate) fn closed_at(&self) -> Option<Instant> {
        self.0.q.lock().closed_at
    }
}

/// An SSE frame carrying one message. JSON text has no raw newline, so one `data:` line
/// holds it.
pub(crate) fn frame(json: &str) -> String {
    let mut s = String::with_capacity(json.len() + 24);
    s.push_str("event: message\ndata: ");
    s.push_str(json);
    s.push_str("\n\n");
    s
}

/// The host's end of a stream. Dropping it closes the stream (for the core: the client
/// went away).
pub struct EventStream {
    shared: Arc<Shared>,
    on_close: Option<Box<dyn FnOnce() + Send>>,
}

impl std::fmt::Debug for EventStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventStream")
    }
}

impl EventStream {
    pub(crate) fn new(on_close: Option<Box<dyn FnOnce() + Send>>) -> (EventStream, Sender) {
        let shared = Arc::new(Shared::default());
        (
            EventStream {
                shared: shared.clone(),
                on_close,
            },
            Sender(shared),
        )
    }

    /// The next frame, waiting at most `timeout`.
    pub fn next(&self, timeout: Duration) -> Next {
        let deadline = Instant::now() + timeout;
        let mut q = self.shared.q.lock();
        loop {
            if let Some(f) = q.frames.pop_front() {
                return Next::Event(f);
            }
            if q.ended || q.closed {
                return Next::End;
            }
            if self.shared.cv.wait_until(&mut q, deadline).timed_out() {
                return match q.frames.pop_front() {
                    Some(f) => Next::Event(f),
                    None if q.ended => Next::End,
                    None => Next::Idle,
                };
            }
        }
    }

    /// Change notifications dropped because the host did not read them.
    pub fn dropped(&self) -> u64 {
        self.shared.q.lock().dropped
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        {
            let mut q = self.shared.q.lock();
            q.closed = true;
            q.closed_at = Some(Instant::now());
            q.frames.clear();
        }
        self.shared.cv.notify_all();
        if let Some(f) = self.on_close.take() {
            f();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_arrive_in_order_then_the_end() {
        let (s, tx) = EventStream::new(None);
        assert_eq!(s.next(Duration::from_millis(1)), Next::Idle);
        assert!(tx.send("{\"a\":1}"));
        tx.send("{\"b\":2}");
        tx.end();
        assert_eq!(
            s.next(Duration::ZERO),
            Next::Event("event: message\ndata: {\"a\":1}\n\n".into())
        );
        assert!(matches!(s.next(Duration::ZERO), Next::Event(_)));
        assert_eq!(s.next(Duration::ZERO), Next::End);
        assert!(!tx.send("late"));
    }

    #[test]
    fn dropping_the_stream_runs_its_close_action_and_refuses_more() {
        let hit = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let h = hit.clone();
        let (s, tx) = EventStream::new(Some(Box::new(move || {
            h.store(true, std::sync::atomic::Ordering::SeqCst)
        })));
        assert_eq!(tx.closed_at(), None);
        let before = Instant::now();
        drop(s);
        assert!(hit.load(std::sync::atomic::Ordering::SeqCst));
        assert!(tx.is_closed());
        assert!(tx
            .closed_at()
            .is_some_and(|t| t >= before && t <= Instant::now()));
        assert!(!tx.send("{}"));
    }

    #[test]
    fn a_host_that_does_not_read_holds_a_bounded_queue() {
        let (s, tx) = EventStream::new(None);
        for i in 0..(MAX_QUEUED_FRAMES + 10) {
            tx.send(&format!("{{\"n\":{i}}}"));
        }
        assert_eq!(s.dropped(), 10);
        assert_eq!(s.next(Duration::ZERO), Next::Event(frame("{\"n\":10}")));
    }

    #[test]
    fn a_waiting_reader_wakes_for_a_frame_sent_from_another_thread() {
        let (s, tx) = EventStream::new(None);
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            tx.send("{}");
        });
        assert_eq!(s.next(Duration::from_secs(10)), Next::Event(frame("{}")));
        t.join().unwrap();
    }
}
