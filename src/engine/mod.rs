//! The engine: a dispatcher's registry and every call through it. Registration with
//! every check, the copy-on-write registry, the per-call scope and the host's traits, the
//! pipeline of one call, handles, cancellation, deadlines, the library's threads,
//! toolkits and the log sink. It knows nothing of export formats or C.

pub mod bundle;
pub mod call;
pub mod cancel;
pub mod dispatcher;
pub(crate) mod entities;
pub(crate) mod handles;
pub mod log;
pub(crate) mod pipeline;
pub mod publish;
pub(crate) mod registry;
pub mod threads;
pub(crate) mod timer;
pub(crate) mod toolkit;
