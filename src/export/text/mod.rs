//! Tool lists of registry entries in the export formats. Each entry's tool object is
//! rendered once per format and kept with the entry (its [`Memo`](crate::engine::registry::Memo));
//! a list joins them. Only what depends on the metadata (a templated entry, a toolkit's
//! container) is rendered again. The registry knows nothing of formats; this module
//! brings the two together for the dispatcher's exports and the agent views.
//!
//! An entry's tool object and Android XML element are written straight as text from its
//! descriptor ([`json`], [`android`]): the bytes `export` makes of the entry's JSON
//! Schemas and registry document, without building them. Where that writer declines (a
//! name the format refuses, a schema Gemini cannot express), `export` itself renders the
//! entry and says what is wrong.

mod android;
mod json;

use crate::engine::registry::{Entry, Host, Snapshot};
use crate::export::{self, AndroidXmlWriter, ExportError, Format, ToolSpec};
use crate::model::types::TypeSet;
pub(crate) use json::Pass;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeSet;

/// The memo slot of a format's tool object.
fn slot(format: Format) -> usize {
    Format::ALL.iter().position(|f| *f == format).unwrap_or(0)
}

/// What a list in `format` starts and ends with (Gemini: one tool holding every
/// declaration).
pub(crate) fn list_ends(format: Format) -> (&'static str, &'static str) {
    if format == Format::Gemini {
        ("[{\"functionDeclarations\":[", "]}]")
    } else {
        ("[", "]")
    }
}

/// One tool's object in a JSON format (for Gemini, its declaration).
pub(crate) fn fragment(format: Format, spec: &ToolSpec<'_>) -> Result<String, ExportError> {
    let v = export::tools_value(format, std::slice::from_ref(spec))?;
    let one = match format {
        Format::Gemini => v.pointer("/0/functionDeclarations/0"),
        _ => v.get(0),
    }
    .unwrap_or(&Value::Null);
    Ok(serde_json::to_string(one).unwrap_or_default())
}

impl<H: Host> Entry<H> {
    /// Whether MCP wraps this function's structured result (`None`: no output schema).
    pub(crate) fn mcp_wraps(&self, types: &TypeSet) -> Option<bool> {
        let schemas = self.schemas(types);
        let schema = schemas.1.as_ref()?;
        Some(
            *self
                .memo()
                .flag
                .get_or_init(|| export::mcp_wraps_result(schema)),
        )
    }

    /// The entry's tool object in a JSON format, its texts rendered with the pass's
    /// metadata: made once and kept when the entry is not templated (what it shows does
    /// not depend on the metadata), else made for this metadata.
    pub(crate) fn fragment(
        &self,
        pass: &mut Pass<'_>,
        format: Format,
    ) -> Result<Cow<'_, str>, ExportError> {
        let memo = &self.memo().texts[slot(format)];
        if let Some(s) = memo.get() {
            return Ok(Cow::Borrowed(s));
        }
        let (text, templated) = match pass.tool(format, &self.desc) {
            Some(t) => t,
            None => self.reference_fragment(pass.types(), format, pass.metadata())?,
        };
        if templated {
            return Ok(Cow::Owned(text));
        }
        Ok(Cow::Borrowed(memo.get_or_init(|| text)))
    }

    /// The entry's tool object as `export` makes it of the entry's JSON Schemas (what
    /// [`Pass::tool`] writes straight from the descriptor), and whether it is templated.
    fn reference_fragment(
        &self,
        types: &TypeSet,
        format: Format,
        metadata: &Value,
    ) -> Result<(String, bool), ExportError> {
        let sch = self.rendered_schemas(types, metadata);
        let d = &self.desc;
        let render = |t: &str| crate::model::condition::render(t, metadata);
        let title = d.title.as_deref().map(render);
        let description = render(d.description.as_deref().unwrap_or(""));
        let text = fragment(
            format,
            &ToolSpec {
                name: &d.id,
                title: title.as_deref(),
                description: &description,
                input_schema: &sch.0,
                output_schema: sch.1.as_ref(),
                hints: d.hints,
                deprecated: d.deprecated,
            },
        )?;
        Ok((text, self.templated(types)))
    }
}

/// Every enabled function of `snap` in a JSON format, placeholders rendered with the
/// metadata schema's defaults.
pub(crate) fn tool_list<H: Host>(
    snap: &Snapshot<H>,
    format: Format,
) -> Result<String, ExportError> {
    let (open, close) = list_ends(format);
    let mut pass = Pass::new(&snap.types, &snap.metadata_defaults);
    let fragments = snap
        .entries()
        .filter(|e| e.is_enabled())
        .map(|e| e.fragment(&mut pass, format))
        .collect::<Result<Vec<_>, _>>()?;
    // one allocation of the list's size: megabytes at 10,000 functions
    let size = fragments.iter().map(|f| f.len() + 1).sum::<usize>();
    let mut out = String::with_capacity(open.len() + close.len() + size);
    out.push_str(open);
    for (i, f) in fragments.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(f);
    }
    out.push_str(close);
    Ok(out)
}

/// An entry's `<appfunction>` element and the object types it refers to.
#[derive(Clone)]
struct AndroidFragment {
    xml: String,
    reached: Vec<String>,
}

impl<H: Host> Entry<H> {
    /// The entry's element of the Android XML, made once per enabled state and kept when
    /// nothing it shows depends on the metadata.
    fn android_fragment(
        &self,
        types: &TypeSet,
        metadata: &Value,
        scratch: &mut String,
    ) -> Cow<'_, AndroidFragment> {
        let enabled = self.is_enabled();
        let memo = &self.memo().objects[usize::from(enabled)];
        if let Some(f) = memo.get().and_then(|b| b.downcast_ref::<AndroidFragment>()) {
            return Cow::Borrowed(f);
        }
        let mut r = json::Render::new(metadata);
        let (xml, reached) = android::element(types, &self.desc, enabled, &mut r, scratch);
        let f = AndroidFragment { xml, reached };
        if r.templated {
            return Cow::Owned(f);
        }
        let kept = memo.get_or_init(|| Box::new(f));
        Cow::Borrowed(
            kept.downcast_ref::<AndroidFragment>()
                .expect("the slot holds Android fragments"),
        )
    }
}

/// The registry as Android's AppFunctions schema XML (disabled functions included with
/// `enabledByDefault` false): the document `export::android_xml` makes of the registry
/// JSON, from each entry's kept element.
pub(crate) fn android_xml<H: Host>(snap: &Snapshot<H>) -> Result<String, ExportError> {
    let types = &snap.types;
    let mut doc = Map::new();
    doc.insert("types".into(), types.to_json());
    doc.insert(
        "entities".into(),
        Value::Array(
            types
                .entities
                .iter()
                .map(|e| types.entity_json(e))
                .collect(),
        ),
    );
    let mut doc = Value::Object(doc);
    crate::model::condition::render_json(&mut doc, &snap.metadata_defaults);
    let w = AndroidXmlWriter::new(&doc, &Default::default())?;
    let mut scratch = String::new();
    let fragments: Vec<_> = snap
        .entries()
        .map(|e| e.android_fragment(types, &snap.metadata_defaults, &mut scratch))
        .collect();
    let reached: BTreeSet<&str> = fragments
        .iter()
        .flat_map(|f| f.reached.iter().map(String::as_str))
        .collect();
    let reached = reached.into_iter().map(str::to_owned).collect();
    w.document(fragments.iter().map(|f| f.xml.as_str()), &reached)
}
