//! Cancellation tokens: a host cancels; every call carrying the token ends `Cancelled`.

use crate::call::Call;
use crate::error::ErrorCode;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

/// A cancellation token shared by the host and any number of calls. Cheap to clone.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<TokenInner>,
}

#[derive(Default)]
struct TokenInner {
    cancelled: AtomicBool,
    calls: Mutex<Vec<(u64, Weak<Call>)>>,
    next: Mutex<u64>,
}

impl CancelToken {
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Cancels every call carrying this token, now and later. Runs the calls' remaining
    /// pipeline (on_invoked, scope end, outcome delivery) on this thread when they are
    /// waiting for the host.
    pub fn cancel(&self) {
        if self.inner.cancelled.swap(true, Ordering::AcqRel) {
            return;
        }
        let calls = std::mem::take(&mut *self.inner.calls.lock());
        for (_, w) in calls {
            if let Some(c) = w.upgrade() {
                c.cancel(ErrorCode::Cancelled);
            }
        }
    }

    /// Registers a call; `None` when the token is already cancelled.
    pub(crate) fn subscribe(&self, call: &Arc<Call>) -> Option<u64> {
        let mut calls = self.inner.calls.lock();
        if self.is_cancelled() {
            return None;
        }
        let id = {
            let mut n = self.inner.next.lock();
            *n += 1;
            *n
        };
        calls.push((id, Arc::downgrade(call)));
        Some(id)
    }

    pub(crate) fn unsubscribe(&self, id: u64) {
        self.inner.calls.lock().retain(|(i, _)| *i != id);
    }
}
