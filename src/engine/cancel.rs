//! Cancellation tokens: a host cancels; every call carrying the token ends `Cancelled`.

use crate::model::error::ErrorCode;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

/// What a token cancels (a call; the pipeline implements it).
pub(crate) trait Cancellable: Send + Sync {
    /// Marks it cancelled at once, running no host code; `false` when it was already.
    fn mark_cancelled(&self, code: ErrorCode) -> bool;
    /// Ends what was marked, on this thread (its host callbacks run here).
    fn end_cancelled(self: Arc<Self>, code: ErrorCode);
    /// Ends what was marked on a thread of the completion pool.
    fn end_cancelled_later(self: Arc<Self>, code: ErrorCode);
    /// It has ended (a token cancelled later leaves it alone).
    fn has_ended(&self) -> bool;
}

/// A cancellation token shared by the host and any number of calls. Cheap to clone.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<TokenInner>,
}

#[derive(Default)]
struct TokenInner {
    cancelled: AtomicBool,
    calls: Mutex<Calls>,
}

/// The calls carrying a token, in the order they subscribed, under one lock. A call does not
/// unsubscribe when it ends: that would take the lock a second time per call, and make the
/// call hold the token to find it. Its entry is left to die with it: a new call takes the
/// last entry when its call has ended, and the entries of ended calls are dropped when a
/// subscription finds the list grown to `prune_at`. A binding keeps one token per thread for
/// the calls it makes there, so the common list holds one entry, taken over by each call
/// (until then it keeps the ended call's memory, not its contents: a weak reference keeps
/// only the allocation), and each call takes the lock once.
struct Calls {
    list: Vec<Weak<dyn Cancellable>>,
    /// The length at which the next subscription first drops the ended calls' entries:
    /// twice what was left the last time (at least [`PRUNE_MIN`]), so a token carried by
    /// many calls at once is not scanned at every subscription.
    prune_at: usize,
}

/// The fewest entries a token's list prunes at.
const PRUNE_MIN: usize = 8;

impl Default for Calls {
    fn default() -> Calls {
        Calls {
            list: Vec::new(),
            prune_at: PRUNE_MIN,
        }
    }
}

impl CancelToken {
    /// A token that has not been cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Whether [`CancelToken::cancel`] has been called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Cancels every call carrying this token, now and later.
    ///
    /// Every call carrying it is marked cancelled before any host code runs (from then on
    /// `is_cancelled` is true and host answers are refused as late). Of the calls that
    /// still need ending, the first ends on this thread before `cancel` returns (its cancel
    /// callbacks, `on_invoked`, scope end and outcome run here); each other one ends on a
    /// thread of the completion pool ([`crate::threads`]), so no call's host callbacks
    /// hold up another's outcome.
    pub fn cancel(&self) {
        self.cancel_with(true);
    }

    /// Like [`CancelToken::cancel`], ending every call on the completion pool: for the
    /// library's own threads (the MCP transport's reader), which must run no host code.
    pub(crate) fn cancel_detached(&self) {
        self.cancel_with(false);
    }

    fn cancel_with(&self, first_here: bool) {
        if self.inner.cancelled.swap(true, Ordering::AcqRel) {
            return;
        }
        let calls = std::mem::take(&mut self.inner.calls.lock().list);
        // (the entries of calls that have ended are left out: see `Calls`)
        let marked: Vec<Arc<dyn Cancellable>> = calls
            .into_iter()
            .filter_map(|w| w.upgrade())
            .filter(|c| !c.has_ended() && c.mark_cancelled(ErrorCode::Cancelled))
            .collect();
        let mut marked = marked.into_iter();
        let here = if first_here { marked.next() } else { None };
        for c in marked {
            c.end_cancelled_later(ErrorCode::Cancelled);
        }
        if let Some(c) = here {
            c.end_cancelled(ErrorCode::Cancelled);
        }
    }

    /// Registers a call for as long as it lives (it need not unsubscribe: see `Calls`);
    /// `false` when the token is already cancelled (the call is not registered).
    pub(crate) fn subscribe(&self, call: Weak<dyn Cancellable>) -> bool {
        let mut calls = self.inner.calls.lock();
        // (`cancel` sets the flag before it takes the list under this lock: a call added
        // after that would never be ended)
        if self.is_cancelled() {
            return false;
        }
        // the common case, a token kept for the calls of one thread: the last call has ended,
        // and the new one takes its entry
        if let Some(last) = calls.list.last_mut() {
            if last.strong_count() == 0 {
                let ended = std::mem::replace(last, call);
                drop(calls);
                // the ended call's memory is given back with no lock held
                drop(ended);
                return true;
            }
        }
        if calls.list.len() >= calls.prune_at {
            calls.list.retain(|w| w.strong_count() > 0);
            calls.prune_at = (calls.list.len() * 2).max(PRUNE_MIN);
        }
        calls.list.push(call);
        true
    }

    /// How many calls the token holds entries for, ended ones not yet dropped included
    /// (tests: the list stays bounded).
    #[cfg(test)]
    pub(crate) fn entries(&self) -> usize {
        self.inner.calls.lock().list.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A call as the token sees it: counts its marks and ends.
    #[derive(Default)]
    struct Fake {
        ended: AtomicBool,
        marked: AtomicUsize,
        ends: AtomicUsize,
    }

    impl Cancellable for Fake {
        fn mark_cancelled(&self, _: ErrorCode) -> bool {
            self.marked.fetch_add(1, Ordering::SeqCst) == 0
        }
        fn end_cancelled(self: Arc<Self>, _: ErrorCode) {
            self.ends.fetch_add(1, Ordering::SeqCst);
        }
        fn end_cancelled_later(self: Arc<Self>, _: ErrorCode) {
            self.ends.fetch_add(1, Ordering::SeqCst);
        }
        fn has_ended(&self) -> bool {
            self.ended.load(Ordering::SeqCst)
        }
    }

    fn weak(c: &Arc<Fake>) -> Weak<dyn Cancellable> {
        Arc::downgrade(c) as Weak<dyn Cancellable>
    }

    #[test]
    fn a_kept_token_holds_a_bounded_list_of_calls_that_end_one_after_another() {
        let token = CancelToken::new();
        for _ in 0..1_000 {
            let call = Arc::new(Fake::default());
            assert!(token.subscribe(weak(&call)));
            // the call ends and goes, as a binding's calls on its thread do
        }
        // each call took the entry of the one before it
        assert_eq!(token.entries(), 1);
    }

    #[test]
    fn live_calls_are_kept_when_the_list_is_pruned_and_all_of_them_are_cancelled() {
        let token = CancelToken::new();
        let live: Vec<Arc<Fake>> = (0..100).map(|_| Arc::new(Fake::default())).collect();
        for (i, call) in live.iter().enumerate() {
            assert!(token.subscribe(weak(call)));
            // an ended call between each two live ones
            let gone = Arc::new(Fake::default());
            assert!(token.subscribe(weak(&gone)));
            drop(gone);
            assert!(token.entries() <= 2 * (i + 1) + PRUNE_MIN);
        }
        token.cancel();
        for call in &live {
            assert_eq!(call.marked.load(Ordering::SeqCst), 1);
            assert_eq!(call.ends.load(Ordering::SeqCst), 1);
        }
        assert_eq!(token.entries(), 0);
    }

    #[test]
    fn a_call_that_has_ended_is_left_alone_by_a_later_cancel() {
        let token = CancelToken::new();
        let ended = Arc::new(Fake::default());
        let running = Arc::new(Fake::default());
        assert!(token.subscribe(weak(&ended)));
        assert!(token.subscribe(weak(&running)));
        // ended, still held (a host or a waiter keeps it a moment longer)
        ended.ended.store(true, Ordering::SeqCst);
        token.cancel();
        assert_eq!(ended.marked.load(Ordering::SeqCst), 0);
        assert_eq!(ended.ends.load(Ordering::SeqCst), 0);
        assert_eq!(running.ends.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_cancelled_token_refuses_new_calls() {
        let token = CancelToken::new();
        token.cancel();
        let call = Arc::new(Fake::default());
        assert!(!token.subscribe(weak(&call)));
        assert_eq!(token.entries(), 0);
    }
}
