//! appfunctions: one dispatch core that lets an app offer its functions to assistants
//! and agents. See `docs/descriptors.md` and DESIGN.md.
//!
//! The folders are the layers (docs/architecture.md); each uses only those before it:
//! [`model`] ← [`engine`] ← [`export`] ← `platform`, [`view`] ← [`mcp`] ← `http` ← [`ffi`].

mod engine;
mod model;

pub mod export;
pub mod ffi;
mod http;
pub mod mcp;
mod platform;
pub mod view;

// The modules' public paths from before the folders (the facade is curated separately).
pub use engine::{call, cancel, dispatcher, log, threads};
pub use model::{
    binding, condition, constraints, descriptor, descriptor_schema, error, formats, outcome,
    schema, types,
};

pub use binding::Limits;
pub use call::{sync_handler, Delegate, Handler, PermissionHook, ScopeHooks};
pub use call::{Call, CallKind, Gate, GateDecision, HandlerResult, Invocation, Platform};
pub use cancel::CancelToken;
pub use descriptor::{CallerPolicy, FunctionDescriptor};
pub use dispatcher::Dispatcher;
pub use error::{Error, ErrorCode};
pub use log::LogLevel;
pub use outcome::{Outcome, Status};
