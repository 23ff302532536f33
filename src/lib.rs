//! appfunctions: one dispatch core that lets an app offer its functions to assistants
//! and agents. See `docs/descriptors.md` and `docs/architecture.md`.
//!
//! A function is registered from its descriptor with a handler, then called, exported
//! as a tool list, shown to a model through a [`view::View`] or served over MCP
//! ([`mcp::Session`]):
//!
//! ```
//! use appfunctions::{sync_handler, Dispatcher, Invocation, Status};
//! let d = Dispatcher::new();
//! d.register_function(
//!     r#"{"id": "greet", "description": "Greets someone",
//!         "parameters": [{"name": "name", "type": "string"}], "result": "string"}"#,
//!     Some(sync_handler(|call| {
//!         let args: serde_json::Value = serde_json::from_str(call.args().unwrap()).unwrap();
//!         Ok(Some(serde_json::to_string(&format!("Hello, {}!", args["name"].as_str().unwrap())).unwrap()))
//!     })),
//! )?;
//! let outcome = d.execute_outcome(&Invocation::new("greet"), Some(r#"{"name": "Ada"}"#));
//! assert_eq!(outcome.status, Status::Success);
//! assert_eq!(outcome.result.as_deref(), Some(r#""Hello, Ada!""#));
//! # Ok::<(), appfunctions::Error>(())
//! ```
//!
//! The folders are the layers (docs/architecture.md); each uses only those before it:
//! `model` ← `engine` ← [`export`] ← `platform`, [`view`] ← [`mcp`] ← `http` ← [`ffi`].

#![deny(unsafe_code)]
// A build that leaves out a size-optional part (a cargo feature, Cargo.toml) leaves dead the
// code only that part used; the full build, which the lanes check, keeps the lint.
#![cfg_attr(
    not(all(
        feature = "patterns",
        feature = "mcp",
        feature = "http",
        feature = "android",
        feature = "apple"
    )),
    allow(dead_code)
)]
#![deny(missing_docs)]

mod engine;
mod model;

pub mod export;
#[allow(unsafe_code)]
pub mod ffi;
#[cfg(feature = "http")]
pub mod http;
// without the `http` feature: what the C ABI's HTTP functions reach (they answer that the
// exchange is not in this build)
#[cfg(not(feature = "http"))]
pub(crate) mod http {
    mod off;
    mod types;
    pub(crate) use off::*;
    pub(crate) use types::*;
}
#[cfg(feature = "mcp")]
pub mod mcp;
// without the `mcp` feature: what the C ABI's MCP functions reach (they answer that the
// server is not in this build), and the settings a dispatcher keeps
#[cfg(not(feature = "mcp"))]
pub(crate) mod mcp {
    mod config;
    mod off;
    pub(crate) use off::*;
}
mod platform;
pub mod view;

// The facade: everything an app, a binding or a tool names, from the layer that owns it.

// Registration and calls (engine).
pub use engine::call::{
    sync_handler, Call, CallKind, CompleteError, Delegate, Gate, GateDecision, Handler,
    HandlerResult, Invocation, OnCancel, PermissionHook, Platform, Release, ScopeHooks,
};
pub use engine::cancel::CancelToken;
pub use engine::dispatcher::{
    ChangeListener, Dispatcher, FunctionInfo, Schemas, DEFAULT_PUBLICATION, DEFAULT_TIMEOUT,
};
pub use engine::log::{LogLevel, LogSink};

// Descriptor bundles: a dispatcher's registrations as one document, for build steps.
pub use engine::bundle;
pub use platform::export_bundle;

// What a function, an entity and an answer are (model).
pub use model::binding::Limits;
pub use model::descriptor::{AppShortcut, CallerPolicy, FunctionDescriptor};
pub use model::descriptor_schema::descriptor_schema;
pub use model::error::{Error, ErrorCode, Result};
pub use model::outcome::{Outcome, Status};

// Android AppFunctions calls (platform): the GenericDocument conversion (docs/android.md).
#[cfg(feature = "android")]
pub use platform::android;

/// Not the API: the binder and the descriptor reader as the fuzz targets and the crate's
/// own tests drive them directly. Nothing here is stable.
#[doc(hidden)]
#[allow(missing_docs)]
pub mod internals {
    pub use crate::model::binding::{bind_arguments, bind_value, BindError, Bound, Mode};
    pub use crate::model::condition;
    pub use crate::model::descriptor::{parse_entity, ParseContext};
    pub use crate::model::types::TypeSet;
}

/// The library's own threads (docs/threads.md): the completion pool's size and cap.
pub mod threads {
    pub use crate::engine::threads::{
        completion_threads, completion_threads_max, set_completion_threads_max,
    };
}
