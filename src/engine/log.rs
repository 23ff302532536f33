//! The core's warnings go to a host-installed sink.

use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i32)]
/// How much a log line matters.
pub enum LogLevel {
    /// Detail for debugging.
    Debug = 0,
    /// Something worth knowing happened.
    Info = 1,
    /// Something was ignored or refused (a late answer, a bad value).
    Warn = 2,
    /// Something failed.
    Error = 3,
}

/// Receives `(level, message)`; may be called from any thread.
pub type LogSink = Arc<dyn Fn(LogLevel, &str) + Send + Sync>;
