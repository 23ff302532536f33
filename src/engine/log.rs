//! The core's warnings go to a host-installed sink.

use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i32)]
pub enum LogLevel {
    Debug = 0,
    Info = 1,
    Warn = 2,
    Error = 3,
}

/// Receives `(level, message)`; may be called from any thread.
pub type LogSink = Arc<dyn Fn(LogLevel, &str) + Send + Sync>;
