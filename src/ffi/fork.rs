//! `fork()`: a child of a process that had used the library refuses every call.
//!
//! A child of a multi-threaded process has only the thread that forked: the library's
//! timer and completion threads stayed in the parent (in the child, timeouts would never
//! fire), and a lock that another thread held at the fork stays held forever (in the
//! child, the next call to take it would deadlock). So from the first dispatcher or cancel
//! token on, a `pthread_atfork` child handler marks the child, and every `af_` function
//! there refuses at once with its failure value and `af_last_error` saying why, touching
//! no lock: the child can report and exit, or `exec`. A process that forks before it first
//! uses the library (or a child that `exec`s) is not affected.

use std::sync::atomic::{AtomicBool, Ordering};

static FORKED: AtomicBool = AtomicBool::new(false);

/// What `af_last_error` says in a refusing child.
pub(crate) const FORKED_MESSAGE: &str = "appfunctions cannot be used in a child made by fork() after the parent used it: the library's threads and the locks they held stayed in the parent; use it in the parent, fork before its first use, or exec in the child";

/// Marks children from now on (called when the first dispatcher or cancel token is made).
pub(crate) fn watch() {
    #[cfg(unix)]
    {
        // (a handler, not an exported function: declared here, out of the ABI's list)
        extern "C" fn in_child() {
            FORKED.store(true, Ordering::Relaxed);
        }
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: registers a handler that only stores to an atomic (async-signal-safe).
            unsafe {
                libc::pthread_atfork(None, None, Some(in_child));
            }
        });
    }
}

/// This process is a child forked after the library was used.
#[inline(always)]
pub(crate) fn in_forked_child() -> bool {
    FORKED.load(Ordering::Relaxed)
}
