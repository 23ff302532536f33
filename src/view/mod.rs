//! Agent views (seed 004): what one conversation's model sees of a dispatcher.
//!
//! - Collapsible toolkits: a toolkit with a description shows as one container tool until
//!   the model calls it; then its members appear, the call returns the toolkit's
//!   `functionResult` text (once per expansion) and its `systemPrompt` joins the
//!   instructions for every turn while it stays expanded.
//! - Conditional functions: `condition` over the view's metadata.
//! - Templated texts: `{metadata.Name}` in titles and descriptions (the function's, its
//!   parameters' and fields', the schemas' `title`s) render with the view's metadata, the
//!   metadata schema's `default`s standing in for properties the view lacks.
//! - Output tools: calling one ends the run; the bound arguments are the result.

use crate::engine::call::{Entry, Invocation, Snapshot};
use crate::engine::dispatcher::Dispatcher;
use crate::engine::registry::Schemas;
pub use crate::engine::toolkit::{parse_toolkit, Toolkit, ToolkitText, ToolkitTexts};
use crate::export::{self, Format, Hints, ToolSpec};
use crate::model::error::ErrorCode;
use crate::model::outcome::Outcome;
use crate::model::schema;
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The default confirmation of a void function's success, as tools see it.
pub const DEFAULT_CONFIRMATION: &str = "Done: the function completed successfully.";

/// How collapsible toolkits behave in a tool list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolkitMode {
    /// Per conversation (seed 004): a container is listed until the model calls it; the
    /// call expands it, so its members are listed instead from then on.
    Expanding,
    /// A fixed list, for protocols whose tool list must not change as a side effect of
    /// calls (MCP 2026-07-28): a container is always listed and its members never are;
    /// called without arguments it returns its members' definitions, called with
    /// `{"tool", "arguments"}` it runs that member. Nothing in the view changes.
    Routing,
}

/// One conversation's view of a dispatcher. Thread-safe.
pub struct View {
    dispatcher: Dispatcher,
    state: Mutex<ViewState>,
    listeners: Mutex<Vec<Arc<dyn Fn() + Send + Sync>>>,
    /// Bumped when the view's own state changes (metadata, expansion, reset).
    changes: std::sync::atomic::AtomicU64,
}

struct ViewState {
    metadata: Value,
    expanded: BTreeSet<String>,
    confirmation: String,
}

/// What the view shows for one entry.
enum Shown<'a> {
    Function(&'a Arc<Entry>),
    Container(&'a Toolkit),
}

impl View {
    /// A view with the given metadata (an object; `null` is `{}`).
    ///
    /// ```
    /// use appfunctions::{export::Format, sync_handler, view::View, Dispatcher};
    /// use serde_json::json;
    /// let d = Dispatcher::new();
    /// d.register_function(
    ///     r#"{"id": "refund", "condition": "isAdmin", "result": "string"}"#,
    ///     Some(sync_handler(|_| Ok(Some("\"refunded\"".into())))),
    /// )?;
    /// let view = View::new(&d, json!({"isAdmin": false})).unwrap();
    /// assert_eq!(view.tools(Format::OpenAi).unwrap(), "[]");
    /// view.set_metadata(json!({"isAdmin": true})).unwrap();
    /// assert!(view.tools(Format::OpenAi).unwrap().contains("refund"));
    /// assert_eq!(view.execute("refund", None).outcome.result.as_deref(), Some("\"refunded\""));
    /// # Ok::<(), appfunctions::Error>(())
    /// ```
    pub fn new(dispatcher: &Dispatcher, metadata: Value) -> Result<View, String> {
        let metadata = check_metadata(metadata)?;
        dispatcher.note_unset_placeholders(&metadata);
        Ok(View {
            dispatcher: dispatcher.clone(),
            state: Mutex::new(ViewState {
                metadata,
                expanded: BTreeSet::new(),
                confirmation: DEFAULT_CONFIRMATION.into(),
            }),
            listeners: Mutex::new(Vec::new()),
            changes: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// A counter that changes whenever what the view shows (its tools or its
    /// instructions) may have changed: a registry change, a metadata change, an
    /// expansion, a reset. Never 0.
    pub fn generation(&self) -> u64 {
        self.dispatcher.generation() + self.changes.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The dispatcher the view shows.
    pub fn dispatcher(&self) -> &Dispatcher {
        &self.dispatcher
    }

    /// Replaces the metadata; visibility and descriptions follow at once.
    pub fn set_metadata(&self, metadata: Value) -> Result<(), String> {
        let metadata = check_metadata(metadata)?;
        self.dispatcher.note_unset_placeholders(&metadata);
        self.state.lock().metadata = metadata;
        self.notify();
        Ok(())
    }

    /// The conversation's metadata now.
    pub fn metadata(&self) -> Value {
        self.state.lock().metadata.clone()
    }

    /// Collapses every toolkit again.
    pub fn reset(&self) {
        let changed = {
            let mut s = self.state.lock();
            let changed = !s.expanded.is_empty();
            s.expanded.clear();
            changed
        };
        if changed {
            self.notify();
        }
    }

    /// The text tools show for a void function's success.
    pub fn set_confirmation(&self, text: &str) {
        self.state.lock().confirmation = text.to_owned();
    }

    /// The text an empty success answers with ([`DEFAULT_CONFIRMATION`] unless set).
    pub fn confirmation(&self) -> String {
        self.state.lock().confirmation.clone()
    }

    /// Calls `f` when what the model sees may have changed (expansion, metadata).
    pub fn subscribe(&self, f: Arc<dyn Fn() + Send + Sync>) {
        self.listeners.lock().push(f);
    }

    fn notify(&self) {
        self.changes
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        let ls: Vec<_> = self.listeners.lock().clone();
        for f in ls {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f()));
        }
    }

    /// The toolkits expanded in this conversation, in the order expanded.
    pub fn expanded(&self) -> Vec<String> {
        self.state.lock().expanded.iter().cloned().collect()
    }

    fn shown<'s>(
        snap: &'s Snapshot,
        metadata: &Value,
        expanded: &BTreeSet<String>,
    ) -> Vec<Shown<'s>> {
        // per toolkit (by index): collapsed in this view, and its container listed already
        let collapsed: Vec<bool> = snap
            .toolkits
            .iter()
            .map(|t| t.collapsible() && !expanded.contains(&t.name))
            .collect();
        let mut listed = vec![false; collapsed.len()];
        let mut out = Vec::new();
        for e in snap.entries() {
            if !e.is_enabled() {
                continue;
            }
            if let Some(c) = &e.desc.condition {
                if !c.eval(metadata) {
                    continue;
                }
            }
            match e.toolkit {
                Some(i) if collapsed[i] => {
                    if !std::mem::replace(&mut listed[i], true) {
                        out.push(Shown::Container(&snap.toolkits[i]));
                    }
                }
                _ => out.push(Shown::Function(e)),
            }
        }
        out
    }

    /// What the model sees now, in an export format.
    pub fn tools(&self, format: Format) -> Result<String, export::ExportError> {
        let snap = self.dispatcher.snapshot();
        let (metadata, expanded) = {
            let s = self.state.lock();
            (s.metadata.clone(), s.expanded.clone())
        };
        if !format.is_json() {
            return Err(export::ExportError::Unsupported {
                format,
                subject: "a view".into(),
                reason: "views render tool lists; export the registry instead".into(),
            });
        }
        // each function's tool object is the one the registry's export keeps (rendered
        // again only when its texts hold placeholders); containers are rendered here
        let texts = with_defaults(&snap, &metadata);
        let shown = Self::shown(&snap, &metadata, &expanded);
        let (open, close) = crate::export::text::list_ends(format);
        let mut out = String::with_capacity(open.len() + close.len() + 512 * shown.len());
        out.push_str(open);
        let mut pass = crate::export::text::Pass::new(&snap.types, &texts);
        for (i, s) in shown.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match s {
                Shown::Function(e) => out.push_str(&e.fragment(&mut pass, format)?),
                Shown::Container(tk) => out.push_str(&crate::export::text::fragment(
                    format,
                    &container_tool(tk, &texts).spec(),
                )?),
            }
        }
        out.push_str(close);
        Ok(out)
    }

    /// The MCP tool objects the model sees now (for the MCP adapter).
    pub fn mcp_tools(&self) -> Vec<Value> {
        self.mcp_tools_in(ToolkitMode::Expanding)
    }

    /// The MCP tool objects the model sees now, with toolkits in `mode`.
    pub fn mcp_tools_in(&self, mode: ToolkitMode) -> Vec<Value> {
        let snap = self.dispatcher.snapshot();
        let (metadata, expanded) = {
            let s = self.state.lock();
            let expanded = match mode {
                ToolkitMode::Expanding => s.expanded.clone(),
                ToolkitMode::Routing => BTreeSet::new(),
            };
            (s.metadata.clone(), expanded)
        };
        let shown = Self::shown(&snap, &metadata, &expanded);
        let texts = with_defaults(&snap, &metadata);
        match mode {
            ToolkitMode::Expanding => render_all(&snap, &shown, &texts),
            ToolkitMode::Routing => render_routing(&snap, &shown, &metadata, &texts),
        }
        .iter()
        .map(|r| export::mcp_tool(&r.spec()))
        .collect()
    }

    /// The functions of a toolkit the view's metadata lets the model see (enabled, their
    /// condition holding), in registration order.
    fn members<'s>(snap: &'s Snapshot, toolkit: &str, metadata: &Value) -> Vec<&'s Arc<Entry>> {
        snap.entries()
            .filter(|e| e.desc.toolkit.as_deref() == Some(toolkit))
            .filter(|e| {
                e.is_enabled() && e.desc.condition.as_ref().is_none_or(|c| c.eval(metadata))
            })
            .collect()
    }

    /// Runs a tool the model sees now in `mode`; `None` when `name` is not one of them
    /// (unknown, disabled, hidden by a condition, inside a collapsed toolkit, or a
    /// container already expanded): nothing runs and nothing says why, so a caller can
    /// answer exactly as for a name that does not exist.
    pub fn execute_tool(
        &self,
        name: &str,
        args: Option<&str>,
        inv: &Invocation,
        mode: ToolkitMode,
    ) -> Option<ViewOutcome> {
        if self.dispatcher.is_shutting_down() {
            return Some(ViewOutcome::plain(Outcome::error(
                ErrorCode::LimitExceeded,
                format!(
                    "{}: the dispatcher is shutting down",
                    crate::model::types::quote_short(name)
                ),
            )));
        }
        let snap = self.dispatcher.snapshot();
        let metadata = {
            let s = self.state.lock();
            if !Self::visible_in(&snap, &s.metadata, &s.expanded, name, mode) {
                return None;
            }
            s.metadata.clone()
        };
        if let Some(tk) = snap.toolkit(name).filter(|t| t.collapsible()) {
            let members = Self::members(&snap, name, &metadata);
            return Some(match mode {
                ToolkitMode::Expanding => self.expand(&snap, tk, &members, &metadata),
                ToolkitMode::Routing => self.route(&snap, tk, &members, args, inv, &metadata),
            });
        }
        let entry = snap.find(name)?;
        Some(self.run(&entry, name, args, inv))
    }

    /// Whether `name` is a tool the model sees now in `mode` (what
    /// [`View::execute_tool`] would run), without rendering the list.
    pub fn shows(&self, name: &str, mode: ToolkitMode) -> bool {
        let snap = self.dispatcher.snapshot();
        let s = self.state.lock();
        Self::visible_in(&snap, &s.metadata, &s.expanded, name, mode)
    }

    fn visible_in(
        snap: &Snapshot,
        metadata: &Value,
        expanded: &BTreeSet<String>,
        name: &str,
        mode: ToolkitMode,
    ) -> bool {
        let shown = |e: &Arc<Entry>| {
            e.is_enabled() && e.desc.condition.as_ref().is_none_or(|c| c.eval(metadata))
        };
        if snap.toolkit(name).is_some_and(|t| t.collapsible()) {
            let collapsed = mode == ToolkitMode::Routing || !expanded.contains(name);
            return collapsed
                && snap
                    .entries()
                    .any(|e| e.desc.toolkit.as_deref() == Some(name) && shown(e));
        }
        let Some(entry) = snap.find(name) else {
            return false;
        };
        shown(&entry)
            && match entry.desc.toolkit.as_deref().and_then(|t| snap.toolkit(t)) {
                Some(tk) if tk.collapsible() => {
                    mode == ToolkitMode::Expanding && expanded.contains(&tk.name)
                }
                _ => true,
            }
    }

    /// Expands a collapsed toolkit: its members become visible; the first expansion
    /// returns its `functionResult` and system prompt.
    fn expand(
        &self,
        snap: &Snapshot,
        tk: &Toolkit,
        members: &[&Arc<Entry>],
        metadata: &Value,
    ) -> ViewOutcome {
        let texts = with_defaults(snap, metadata);
        let newly = self.state.lock().expanded.insert(tk.name.clone());
        let names: Vec<&str> = members.iter().map(|e| e.desc.id.as_str()).collect();
        let text = if newly {
            tk.text(ToolkitText::FunctionResult, &texts)
                .unwrap_or_else(|| {
                    format!(
                        "The {} tools are now available: {}.",
                        tk.name,
                        names.join(", ")
                    )
                })
        } else {
            format!(
                "The {} tools are already available: {}.",
                tk.name,
                names.join(", ")
            )
        };
        let instructions = if newly {
            tk.text(ToolkitText::SystemPrompt, &texts)
        } else {
            None
        };
        if newly {
            self.notify();
        }
        ViewOutcome {
            outcome: Outcome::success(Some(serde_json::to_string(&text).unwrap_or_default())),
            expanded: newly.then(|| tk.name.clone()),
            instructions,
            void_result: false,
            ran: None,
        }
    }

    /// A routing container's call: without `tool`, its members' definitions (with the
    /// `functionResult` and the system prompt); with `tool`, that member's call.
    fn route(
        &self,
        snap: &Snapshot,
        tk: &Toolkit,
        members: &[&Arc<Entry>],
        args: Option<&str>,
        inv: &Invocation,
        metadata: &Value,
    ) -> ViewOutcome {
        let invalid =
            |msg: String| ViewOutcome::plain(Outcome::error(ErrorCode::InvalidArgument, msg));
        let names: Vec<&str> = members.iter().map(|e| e.desc.id.as_str()).collect();
        let texts = with_defaults(snap, metadata);
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct RouteArgs<'a> {
            #[serde(borrow, default)]
            tool: Option<std::borrow::Cow<'a, str>>,
            #[serde(borrow, default)]
            arguments: Option<&'a serde_json::value::RawValue>,
        }
        let parsed: RouteArgs<'_> = match args {
            None => RouteArgs {
                tool: None,
                arguments: None,
            },
            Some(a) => match serde_json::from_str(a) {
                Ok(r) => r,
                Err(e) => {
                    return invalid(format!(
                        "{}: expected {{\"tool\": one of {}, \"arguments\": {{...}}}}, or no arguments to list the tools ({e})",
                        tk.name,
                        names.join(", ")
                    ))
                }
            },
        };
        let Some(tool) = parsed.tool else {
            if parsed.arguments.is_some() {
                return invalid("arguments: given without \"tool\"; name the tool to run".into());
            }
            let rendered = render_all(
                snap,
                &members
                    .iter()
                    .map(|e| Shown::Function(e))
                    .collect::<Vec<_>>(),
                &texts,
            );
            let defs: Vec<Value> = rendered
                .iter()
                .map(|r| export::mcp_tool(&r.spec()))
                .collect();
            let intro = tk
                .text(ToolkitText::FunctionResult, &texts)
                .unwrap_or_else(|| format!("The {} tools: {}.", tk.name, names.join(", ")));
            let text = format!(
                "{intro}\n\nCall {} with {{\"tool\": <name>, \"arguments\": {{...}}}} to run one of these tools:\n{}",
                tk.name,
                Value::Array(defs)
            );
            return ViewOutcome {
                outcome: Outcome::success(Some(serde_json::to_string(&text).unwrap_or_default())),
                expanded: None,
                instructions: tk.text(ToolkitText::SystemPrompt, &texts),
                void_result: false,
                ran: None,
            };
        };
        let Some(entry) = members.iter().find(|e| e.desc.id == tool) else {
            return invalid(format!(
                "tool: {} is not one of the {} tools ({})",
                crate::model::types::quote_short(&tool),
                tk.name,
                names.join(", ")
            ));
        };
        let args = match parsed.arguments.map(|a| a.get()) {
            None | Some("null") => None,
            Some(a) if a.starts_with('{') => Some(a),
            Some(_) => return invalid("arguments: expected a JSON object".into()),
        };
        let name = entry.desc.id.clone();
        self.run(entry, &name, args, inv)
    }

    /// Runs a visible function through the full pipeline with the invocation's options.
    fn run(
        &self,
        entry: &Arc<Entry>,
        name: &str,
        args: Option<&str>,
        inv: &Invocation,
    ) -> ViewOutcome {
        let mut inv = inv.clone();
        inv.function_id = name.to_owned();
        let void = entry.desc.result.is_none()
            && entry.desc.kind != crate::model::descriptor::FunctionKind::Output;
        let outcome = self.dispatcher.execute_outcome(&inv, args);
        let mut vo = finish_run(outcome, void.then(|| self.confirmation()));
        vo.ran = Some(name.to_owned());
        vo
    }

    /// The system prompts of the toolkits expanded now, for the host to add to the system
    /// instructions every turn.
    pub fn instructions(&self) -> String {
        let snap = self.dispatcher.snapshot();
        let (metadata, expanded) = {
            let s = self.state.lock();
            (s.metadata.clone(), s.expanded.clone())
        };
        expanded
            .iter()
            .filter_map(|name| snap.toolkit(name))
            .filter_map(|tk| tk.text(ToolkitText::SystemPrompt, &with_defaults(&snap, &metadata)))
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// Runs what the model called: a container expands; a visible function runs through
    /// the full pipeline (platform `other`, in the foreground, the dispatcher's default
    /// timeout); anything else is `FunctionNotFound` saying how to make it visible.
    ///
    /// In the foreground because a view is the app's own assistant: the user is in the app,
    /// so an `OpenApp` gate passes. A caller outside the app (an MCP client, a remote
    /// agent) goes through [`View::execute_with`] with an invocation that is not.
    pub fn execute(&self, name: &str, args: Option<&str>) -> ViewOutcome {
        self.execute_with(name, args, &Invocation::new(name).foreground(true))
    }

    /// [`View::execute`] with an invocation's platform, foreground flag, caller,
    /// cancellation and timeout (its `function_id` is replaced by `name`).
    pub fn execute_with(&self, name: &str, args: Option<&str>, inv: &Invocation) -> ViewOutcome {
        match self.prepare(name, inv) {
            Prepared::Done(vo) => vo,
            Prepared::Run { inv, void } => {
                let outcome = self.dispatcher.execute_outcome(&inv, args);
                finish_run(outcome, void.then(|| self.confirmation()))
            }
        }
    }

    /// [`View::execute_with`] that returns at once: `on_outcome` receives the outcome
    /// exactly once, on the thread that finishes the call (this one for a container, a
    /// refusal, or a call that answers inline).
    pub fn execute_async(
        &self,
        name: &str,
        args: Option<&str>,
        inv: &Invocation,
        on_outcome: impl FnOnce(ViewOutcome) + Send + 'static,
    ) {
        match self.prepare(name, inv) {
            Prepared::Done(vo) => on_outcome(vo),
            Prepared::Run { inv, void } => {
                let confirmation = void.then(|| self.confirmation());
                self.dispatcher
                    .execute_async(&inv, args, move |o: &Outcome, _json: &str| {
                        on_outcome(finish_run(o.clone(), confirmation))
                    });
            }
        }
    }

    /// What a call of `name` comes to before any host code runs: a container's
    /// expansion or a refusal (done), or a function to run.
    fn prepare(&self, name: &str, inv: &Invocation) -> Prepared {
        if self.dispatcher.is_shutting_down() {
            return Prepared::Done(ViewOutcome::plain(Outcome::error(
                ErrorCode::LimitExceeded,
                format!(
                    "{}: the dispatcher is shutting down",
                    crate::model::types::quote_short(name)
                ),
            )));
        }
        let snap = self.dispatcher.snapshot();
        let metadata = self.state.lock().metadata.clone();
        if let Some(tk) = snap.toolkit(name).filter(|t| t.collapsible()) {
            let members = Self::members(&snap, name, &metadata);
            return Prepared::Done(self.expand(&snap, tk, &members, &metadata));
        }
        let Some(entry) = snap.find(name) else {
            return Prepared::Done(ViewOutcome::plain(Outcome::error(
                ErrorCode::FunctionNotFound,
                snap.not_found_message(name),
            )));
        };
        if let Some(c) = &entry.desc.condition {
            if !c.eval(&metadata) {
                return Prepared::Done(ViewOutcome::plain(Outcome::error(
                    ErrorCode::FunctionNotFound,
                    format!(
                        "{name} is not available in this conversation: it is shown only when \"{}\" holds for the app's metadata",
                        entry.desc.condition_text.as_deref().unwrap_or("")
                    ),
                )));
            }
        }
        if let Some(tk) = snap.toolkit_of(&entry) {
            if tk.collapsible() && !self.state.lock().expanded.contains(&tk.name) {
                return Prepared::Done(ViewOutcome::plain(Outcome::error(
                    ErrorCode::FunctionNotFound,
                    format!("{name} is in the collapsed toolkit \"{}\": call {} first to make its tools visible", tk.name, tk.name),
                )));
            }
        }
        let mut inv = inv.clone();
        inv.function_id = name.to_owned();
        Prepared::Run {
            inv,
            void: entry.desc.result.is_none()
                && entry.desc.kind != crate::model::descriptor::FunctionKind::Output,
        }
    }
}

/// A function's outcome as the view shows it: a void function's success carries the
/// confirmation (`Some` for a void function) as its dialog.
fn finish_run(mut outcome: Outcome, confirmation: Option<String>) -> ViewOutcome {
    let void_result = confirmation.is_some() && outcome.is_success();
    if void_result && outcome.dialog.is_none() {
        outcome.dialog = confirmation;
    }
    ViewOutcome {
        outcome,
        expanded: None,
        instructions: None,
        void_result,
        ran: None,
    }
}

/// What [`View::prepare`] decided.
enum Prepared {
    Done(ViewOutcome),
    Run { inv: Invocation, void: bool },
}

/// What [`View::execute`] did.
pub struct ViewOutcome {
    /// The call's outcome.
    pub outcome: Outcome,
    /// The toolkit this call expanded.
    pub expanded: Option<String>,
    /// The expanded toolkit's system prompt (for the host's instructions).
    pub instructions: Option<String>,
    /// The function is void and succeeded (tools show the confirmation text).
    pub void_result: bool,
    /// The function that ran (a routing container's member when the container routed
    /// the call); `None` when no function ran (an expansion, a refusal).
    pub ran: Option<String>,
}

impl ViewOutcome {
    fn plain(outcome: Outcome) -> ViewOutcome {
        ViewOutcome {
            outcome,
            expanded: None,
            instructions: None,
            void_result: false,
            ran: None,
        }
    }
}

struct RenderedTool {
    name: String,
    title: Option<String>,
    description: String,
    /// (parameters, result) schemas, shared with the registry entry.
    schemas: Arc<Schemas>,
    hints: Hints,
    deprecated: bool,
}

impl RenderedTool {
    fn spec(&self) -> ToolSpec<'_> {
        ToolSpec {
            name: &self.name,
            title: self.title.as_deref(),
            description: &self.description,
            input_schema: &self.schemas.0,
            output_schema: self.schemas.1.as_ref(),
            hints: self.hints,
            deprecated: self.deprecated,
        }
    }
}

fn render_all(snap: &Snapshot, shown: &[Shown<'_>], metadata: &Value) -> Vec<RenderedTool> {
    shown
        .iter()
        .map(|s| match s {
            Shown::Function(e) => {
                let d = &e.desc;
                RenderedTool {
                    name: d.id.clone(),
                    title: d
                        .title
                        .as_deref()
                        .map(|t| crate::model::condition::render(t, metadata)),
                    description: crate::model::condition::render(
                        d.description.as_deref().unwrap_or(""),
                        metadata,
                    ),
                    schemas: e.rendered_schemas(&snap.types, metadata),
                    hints: d.hints,
                    deprecated: d.deprecated,
                }
            }
            Shown::Container(tk) => container_tool(tk, metadata),
        })
        .collect()
}

/// A collapsed toolkit's container tool, its description rendered with `metadata`.
fn container_tool(tk: &Toolkit, metadata: &Value) -> RenderedTool {
    RenderedTool {
        name: tk.name.clone(),
        title: None,
        description: crate::model::condition::render(
            tk.description.as_deref().unwrap_or(""),
            metadata,
        ),
        schemas: container_schemas(),
        hints: Hints {
            read_only: Some(true),
            destructive: Some(false),
            idempotent: Some(true),
            open_world: Some(false),
        },
        deprecated: false,
    }
}

/// [`render_all`] with routing containers (`metadata` decides which members show;
/// `texts` renders the texts): their input schema names the members the
/// metadata shows, and they have no output schema (a routed call returns its member's).
fn render_routing(
    snap: &Snapshot,
    shown: &[Shown<'_>],
    metadata: &Value,
    texts: &Value,
) -> Vec<RenderedTool> {
    let mut out = render_all(snap, shown, texts);
    for (r, s) in out.iter_mut().zip(shown) {
        if let Shown::Container(tk) = s {
            let names: Vec<&str> = View::members(snap, &tk.name, metadata)
                .iter()
                .map(|e| e.desc.id.as_str())
                .collect();
            r.schemas = Arc::new((
                json!({
                    "$schema": schema::DRAFT_2020_12,
                    "type": "object",
                    "properties": {
                        "tool": {
                            "type": "string",
                            "enum": names,
                            "description": "The tool to run. Leave it out to get the tools' descriptions and parameters."
                        },
                        "arguments": {
                            "type": "object",
                            "description": "The arguments of that tool, as its parameters say."
                        }
                    },
                    "additionalProperties": false
                }),
                None,
            ));
            r.hints = Hints::default();
        }
    }
    out
}

/// A container tool's schemas: no parameters, a text result.
fn container_schemas() -> Arc<Schemas> {
    static S: std::sync::OnceLock<Arc<Schemas>> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        Arc::new((
            json!({"$schema": schema::DRAFT_2020_12, "type": "object", "properties": {}, "additionalProperties": false}),
            Some(json!({"$schema": schema::DRAFT_2020_12, "type": "string"})),
        ))
    })
    .clone()
}

/// The metadata texts render with: the view's, then the metadata schema's defaults for
/// the properties it lacks (conditions see the view's metadata alone).
fn with_defaults(snap: &Snapshot, metadata: &Value) -> Value {
    match (&*snap.metadata_defaults, metadata) {
        (Value::Object(d), Value::Object(m)) if d.keys().any(|k| !m.contains_key(k)) => {
            let mut out = m.clone();
            for (k, v) in d {
                out.entry(k.clone()).or_insert_with(|| v.clone());
            }
            Value::Object(out)
        }
        _ => metadata.clone(),
    }
}

fn check_metadata(v: Value) -> Result<Value, String> {
    match v {
        Value::Null => Ok(json!({})),
        Value::Object(_) => Ok(v),
        other => Err(format!(
            "metadata must be a JSON object of properties, got {}",
            crate::model::types::describe_json(&other)
        )),
    }
}
