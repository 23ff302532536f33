//! appfunctions: one dispatch core that lets an app offer its functions to assistants
//! and agents. See `docs/descriptors.md` and DESIGN.md.

pub mod binding;
pub mod condition;
pub mod descriptor;
pub mod error;
pub mod formats;
pub mod schema;
pub mod types;
