//! The tree writers: one vendor format per file, each written from the JSON Schema trees
//! and registry document of a function ([`ToolSpec`](super::ToolSpec)). Their twins in
//! [`text`](super::text) write the same bytes straight from descriptors.

pub(super) mod android_xml;
pub(super) mod anthropic;
pub(super) mod gemini;
pub(super) mod mcp;
pub(super) mod openai;
pub(super) mod xml;

#[cfg(test)]
pub(super) mod fixtures;

pub(crate) use android_xml::AndroidXmlWriter;
pub use android_xml::{android_xml, android_xml_with, AndroidXmlOptions};
pub use gemini::gemini_schema;
pub(crate) use gemini::{format_note, tighter, INT32, INT64};
pub(crate) use gemini::{GEMINI_MAX_INLINED_TYPES, GEMINI_MAX_INLINE_DEPTH};
pub use mcp::{mcp_output_schema, mcp_tool, mcp_wraps_result};
pub use openai::{openai_parameters, openai_strict_blocker, OPENAI_STRICT_FORMATS};
pub(crate) use openai::{MAX_DEPTH, MAX_PROPERTIES, STRICT_MOVED};
pub(crate) use xml::escape_text_into;
