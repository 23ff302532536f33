//! Tool lists of registry entries in the export formats. Each entry's tool object is
//! rendered once per format and kept with the entry (its [`Memo`](crate::registry::Memo));
//! a list joins them. Only what depends on the metadata (a templated entry, a toolkit's
//! container) is rendered again. The registry knows nothing of formats; this module
//! brings the two together for the dispatcher's exports and the agent views.

use crate::descriptor::FunctionDescriptor;
use crate::export::{self, AndroidXmlWriter, ExportError, Format, Hints, ToolSpec};
use crate::registry::{Entry, Host, Snapshot};
use crate::types::TypeSet;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeSet;

/// A function's behaviour hints as the exporters take them.
pub(crate) fn hints_of(d: &FunctionDescriptor) -> Hints {
    Hints {
        read_only: d.hints.read_only,
        destructive: d.hints.destructive,
        idempotent: d.hints.idempotent,
        open_world: d.hints.open_world,
    }
}

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
                .memo
                .flag
                .get_or_init(|| export::mcp_wraps_result(schema)),
        )
    }

    /// The entry's tool object in a JSON format, its texts rendered with `metadata`: made
    /// once and kept when the entry is not templated (what it shows does not depend on
    /// the metadata), else made for this metadata.
    pub(crate) fn fragment(
        &self,
        types: &TypeSet,
        format: Format,
        metadata: &Value,
    ) -> Result<Cow<'_, str>, ExportError> {
        let memo = &self.memo.texts[slot(format)];
        if let Some(s) = memo.get() {
            return Ok(Cow::Borrowed(s));
        }
        let sch = self.rendered_schemas(types, metadata);
        let d = &self.desc;
        let render = |t: &str| crate::condition::render(t, metadata);
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
                hints: hints_of(d),
                deprecated: d.deprecated,
            },
        )?;
        if self.templated(types) {
            return Ok(Cow::Owned(text));
        }
        Ok(Cow::Borrowed(memo.get_or_init(|| text)))
    }
}

/// Every enabled function of `snap` in a JSON format, placeholders rendered with the
/// metadata schema's defaults.
pub(crate) fn tool_list<H: Host>(
    snap: &Snapshot<H>,
    format: Format,
) -> Result<String, ExportError> {
    let (open, close) = list_ends(format);
    let mut out = String::with_capacity(open.len() + close.len() + 512 * snap.len());
    out.push_str(open);
    let mut first = true;
    for e in snap.entries().filter(|e| e.is_enabled()) {
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str(&e.fragment(&snap.types, format, &snap.metadata_defaults)?);
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
    /// The entry's element of the Android XML (`i`: its place, for messages), made once
    /// per enabled state and kept when `keep` (nothing it shows depends on the metadata).
    fn android_fragment(
        &self,
        w: &AndroidXmlWriter<'_>,
        types: &TypeSet,
        metadata: &Value,
        i: usize,
        keep: bool,
    ) -> Result<Cow<'_, AndroidFragment>, ExportError> {
        let enabled = self.is_enabled();
        let memo = &self.memo.objects[usize::from(enabled)];
        if let Some(f) = memo.get().and_then(|b| b.downcast_ref::<AndroidFragment>()) {
            return Ok(Cow::Borrowed(f));
        }
        let mut doc = self.desc.to_json(types, enabled);
        let keep = keep && !crate::condition::json_has_placeholders(&doc);
        crate::condition::render_json(&mut doc, metadata);
        let (xml, reached) = w.function(&doc, &format!("functions[{i}]"))?;
        let f = AndroidFragment {
            xml,
            reached: reached.into_iter().collect(),
        };
        if !keep {
            return Ok(Cow::Owned(f));
        }
        let kept = memo.get_or_init(|| Box::new(f));
        Ok(Cow::Borrowed(
            kept.downcast_ref::<AndroidFragment>()
                .expect("the slot holds Android fragments"),
        ))
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
    // an element shows enum descriptions: it is kept only when no type text is templated
    let keep = !crate::condition::json_has_placeholders(&doc);
    crate::condition::render_json(&mut doc, &snap.metadata_defaults);
    let w = AndroidXmlWriter::new(&doc, &Default::default())?;
    let fragments = snap
        .entries()
        .enumerate()
        .map(|(i, e)| e.android_fragment(&w, types, &snap.metadata_defaults, i, keep))
        .collect::<Result<Vec<_>, _>>()?;
    let reached: BTreeSet<&str> = fragments
        .iter()
        .flat_map(|f| f.reached.iter().map(String::as_str))
        .collect();
    let reached = reached.into_iter().map(str::to_owned).collect();
    w.document(fragments.iter().map(|f| f.xml.as_str()), &reached)
}
