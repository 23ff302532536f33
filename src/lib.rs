//! appfunctions: one dispatch core that lets an app offer its functions to assistants
//! and agents. See `docs/descriptors.md` and DESIGN.md.

pub mod binding;
pub mod condition;
pub mod descriptor;
pub mod error;
pub mod formats;
pub mod schema;
pub mod types;
pub mod call;
pub mod cancel;
pub mod dispatcher;
pub(crate) mod handles;
pub mod log;
pub mod outcome;
pub(crate) mod pipeline;
pub(crate) mod timer;

pub use binding::Limits;
pub use call::{Call, CallKind, GateDecision, Gate, HandlerResult, Invocation, Platform};
pub use cancel::CancelToken;
pub use descriptor::{CallerPolicy, FunctionDescriptor};
pub use dispatcher::{Delegate, Dispatcher, Handler, PermissionHook, ScopeHooks};
pub use error::{Error, ErrorCode};
pub use log::LogLevel;
pub use outcome::{Outcome, Status};
