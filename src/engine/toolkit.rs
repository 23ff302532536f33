//! Toolkits (seed 004): named containers of functions, as the registry keeps them. With a
//! description a toolkit collapses in agent views until the model calls it; its texts
//! (`functionResult`, `systemPrompt`) may be static, templated with `{metadata.X}`, or
//! answered by the host ([`ToolkitTexts`]).

use serde_json::{json, Value};
use std::sync::Arc;

/// Which text of a toolkit a [`ToolkitTexts`] provider is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum ToolkitText {
    /// Returned once when the container expands.
    FunctionResult = 0,
    /// Added to the system instructions every turn while expanded.
    SystemPrompt = 1,
}

/// Dynamic toolkit texts (the seed's "Dynamic Instructions with Expressions"): asked
/// when the text is needed, with the view's metadata. `None` falls back to the static
/// text.
pub trait ToolkitTexts: Send + Sync {
    /// The text `which` of `toolkit` for this metadata; `None`: the static text.
    fn text(&self, toolkit: &str, which: ToolkitText, metadata: &Value) -> Option<String>;
}

/// A toolkit: a named container of functions.
#[derive(Clone)]
pub struct Toolkit {
    /// The toolkit's name, as functions name it in their `toolkit`.
    pub name: String,
    /// With a description, the toolkit collapses; without, its functions are always
    /// visible.
    pub description: Option<String>,
    /// Returned once when the container expands.
    pub function_result: Option<String>,
    /// Added to the system instructions every turn while expanded.
    pub system_prompt: Option<String>,
    /// Asked for the texts when they are needed (dynamic texts).
    pub texts: Option<Arc<dyn ToolkitTexts>>,
}

impl Toolkit {
    /// Whether the toolkit collapses into one container tool (it has a description).
    pub fn collapsible(&self) -> bool {
        self.description.is_some()
    }

    pub(crate) fn text(&self, which: ToolkitText, metadata: &Value) -> Option<String> {
        if let Some(t) = &self.texts {
            if let Ok(Some(s)) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                t.text(&self.name, which, metadata)
            })) {
                return Some(s);
            }
        }
        let s = match which {
            ToolkitText::FunctionResult => &self.function_result,
            ToolkitText::SystemPrompt => &self.system_prompt,
        };
        s.as_ref()
            .map(|s| crate::model::condition::render(s, metadata))
    }

    pub(crate) fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "functionResult": self.function_result,
            "systemPrompt": self.system_prompt,
            "dynamic": self.texts.is_some(),
        })
    }
}

/// Parses a toolkit definition `{"name", "description"?, "functionResult"?, "systemPrompt"?}`.
pub fn parse_toolkit(
    v: &Value,
    texts: Option<Arc<dyn ToolkitTexts>>,
) -> Result<Toolkit, crate::model::error::Error> {
    use crate::model::error::Error;
    use crate::model::types::{check_keys, opt_string};
    let o = v
        .as_object()
        .ok_or_else(|| Error::descriptor("toolkit", "expected a JSON object"))?;
    let name = o
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::descriptor("toolkit.name", "missing or not a string"))?
        .to_owned();
    if !crate::model::descriptor::is_function_id(&name) {
        return Err(Error::descriptor(
            format!("{}.name", crate::model::types::quote_short(&name)),
            "a toolkit name is snake_case (it is the container tool's name)",
        ));
    }
    check_keys(
        o,
        &name,
        &["name", "description", "functionResult", "systemPrompt"],
    )?;
    let tk = Toolkit {
        description: opt_string(o, "description", &name)?,
        function_result: opt_string(o, "functionResult", &name)?,
        system_prompt: opt_string(o, "systemPrompt", &name)?,
        name,
        texts,
    };
    for (k, t) in [
        ("description", &tk.description),
        ("functionResult", &tk.function_result),
        ("systemPrompt", &tk.system_prompt),
    ] {
        if let Some(t) = t {
            crate::model::condition::check_placeholders(t)
                .map_err(|e| Error::descriptor(format!("{}.{k}", tk.name), e))?;
        }
    }
    Ok(tk)
}
