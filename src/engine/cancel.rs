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

/// The calls carrying a token, in the order they subscribed, under one lock: a binding
/// keeps one token per thread for the calls it makes there, so the common list holds one
/// call, subscribed and unsubscribed once per call (the allocation is kept).
#[derive(Default)]
struct Calls {
    /// The last number given (numbers start at 1).
    next: u64,
    list: Vec<(u64, Weak<dyn Cancellable>)>,
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
        let marked: Vec<Arc<dyn Cancellable>> = calls
            .into_iter()
            .filter_map(|(_, w)| w.upgrade())
            .filter(|c| c.mark_cancelled(ErrorCode::Cancelled))
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

    /// Registers a call; its number (never 0) unsubscribes it. `None` when the token is
    /// already cancelled.
    pub(crate) fn subscribe(&self, call: Weak<dyn Cancellable>) -> Option<u64> {
        let mut calls = self.inner.calls.lock();
        // (`cancel` sets the flag before it takes the list under this lock: a call added
        // after that would never be ended)
        if self.is_cancelled() {
            return None;
        }
        calls.next += 1;
        let id = calls.next;
        calls.list.push((id, call));
        Some(id)
    }

    /// Forgets call number `id` (it has ended). Unknown numbers are ignored.
    pub(crate) fn unsubscribe(&self, id: u64) {
        let removed = {
            let mut calls = self.inner.calls.lock();
            // the latest calls end first, as a rule: look from the end
            calls
                .list
                .iter()
                .rposition(|(i, _)| *i == id)
                .map(|at| calls.list.remove(at))
        };
        // the weak reference is released with no lock held
        drop(removed);
    }
}
