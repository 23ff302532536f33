//! The model: what a function, an entity and a value are. Named types, descriptors read
//! and validated, arguments bound, JSON Schemas, value constraints, outcomes, and the
//! leaves they share (errors, conditions and placeholders, decimals, formats). Nothing
//! here runs a call or knows an export format.
//!
//! Two readers of a function descriptor are twins: [`descriptor`] walks the JSON tree and
//! names what is wrong; [`descriptor::text`] reads the same descriptor straight from its
//! text, accepting only what it is sure of and leaving the rest to the tree walk.

pub mod binding;
pub mod condition;
pub mod constraints;
pub(crate) mod decimal;
pub mod descriptor;
pub mod descriptor_schema;
pub(crate) mod ecma_regex;
pub mod error;
pub mod formats;
pub mod outcome;
pub(crate) mod quote;
pub mod schema;
pub(crate) mod terminated;
pub mod types;
