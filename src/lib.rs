//! appfunctions: one dispatch core that lets an app offer its functions to assistants
//! and agents. See `docs/descriptors.md` and DESIGN.md.

pub mod binding;
pub mod call;
pub mod cancel;
pub mod condition;
pub mod constraints;
pub(crate) mod decimal;
pub mod descriptor;
pub mod descriptor_schema;
pub mod dispatcher;
pub(crate) mod ecma_regex;
pub mod error;
pub mod formats;
pub(crate) mod handles;
pub(crate) mod listing;
pub mod log;
pub mod mcp;
pub mod outcome;
pub(crate) mod pipeline;
pub(crate) mod registry;
pub mod schema;
pub(crate) mod text;
pub mod threads;
pub(crate) mod timer;
pub(crate) mod toolkit;
pub mod types;
pub mod view;

pub use binding::Limits;
pub use call::{sync_handler, Delegate, Handler, PermissionHook, ScopeHooks};
pub use call::{Call, CallKind, Gate, GateDecision, HandlerResult, Invocation, Platform};
pub use cancel::CancelToken;
pub use descriptor::{CallerPolicy, FunctionDescriptor};
pub use dispatcher::Dispatcher;
pub use error::{Error, ErrorCode};
pub use log::LogLevel;
pub use outcome::{Outcome, Status};
pub mod export;
pub mod ffi;
