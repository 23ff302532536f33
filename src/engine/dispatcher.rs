//! The dispatcher: the registry's writer (registration, with every check) and the entry
//! points of a call (`execute`, `execute_async`), the exports and schemas. The registry's
//! data lives in `registry`, a call's scope in `call`, how it runs in `pipeline`.

use crate::engine::call::{
    Call, CallKind, Entry, Hosted, Invocation, InvocationRef, JsonSink, OutcomeSink, PreBound,
    Snapshot,
};
pub use crate::engine::call::{Delegate, Handler, PermissionHook, ScopeHooks};
use crate::engine::log::{LogLevel, LogSink};
use crate::engine::pipeline::{drive_new, Delivered};
pub use crate::engine::registry::{ChangeListener, Schemas, DEFAULT_TIMEOUT};
use crate::engine::registry::{Registry, Slot};
use crate::model::binding::Limits;
use crate::model::descriptor::{
    self, parse_entity_with, CallerPolicy, FunctionDescriptor, ParseContext,
};
use crate::model::error::{Error, Result};
use crate::model::outcome::Outcome;
use crate::model::terminated::Terminated;
use crate::model::types::TypeSet;
use serde_json::{Map, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The dispatcher. Thread-safe; cheap to clone (clones share one registry).
#[derive(Clone)]
pub struct Dispatcher {
    registry: Arc<Registry<Hosted>>,
}

impl Default for Dispatcher {
    fn default() -> Self {
        Dispatcher::new()
    }
}

/// The largest descriptor document accepted (types, a function, an entity, a toolkit,
/// the metadata schema): 4 MiB. A real one is a few KiB; the limit keeps a runaway or
/// hostile document from being parsed into a tree many times its size.
pub(crate) const MAX_DOCUMENT_BYTES: usize = 4 << 20;

fn parse_json(text: &str, what: &str) -> Result<Value> {
    if text.len() > MAX_DOCUMENT_BYTES {
        return Err(Error::Json {
            what: what.into(),
            reason: format!(
                "the document is {} bytes, more than the limit of {MAX_DOCUMENT_BYTES}",
                text.len()
            ),
        });
    }
    serde_json::from_str(text).map_err(|e| Error::Json {
        what: what.into(),
        reason: e.to_string(),
    })
}

/// The process's published dispatchers ([`Dispatcher::publish`]).
static PUBLISHED: super::publish::Table<Dispatcher> = super::publish::Table::new();

/// The name bindings publish under and wait for unless told otherwise.
pub const DEFAULT_PUBLICATION: &str = "default";

impl Dispatcher {
    /// Whether `other` shares this dispatcher's registry (is a clone of it).
    pub fn same_as(&self, other: &Dispatcher) -> bool {
        Arc::ptr_eq(&self.registry, &other.registry)
    }

    /// Publishes this dispatcher under `name` for the whole process, replacing what was
    /// published there, and wakes every [`Dispatcher::wait_published`] for that name. A
    /// platform call that arrives during a cold start (an Android service, an App Intent)
    /// waits for it, from any thread and any language in the process. `shutdown` removes
    /// the dispatcher's publications.
    pub fn publish(&self, name: &str) -> Result<()> {
        super::publish::check_name(name).map_err(Error::Invalid)?;
        if self.is_shutting_down() {
            return Err(Error::Invalid(format!(
                "cannot publish \"{name}\": the dispatcher is shutting down"
            )));
        }
        PUBLISHED.publish(name, self.clone());
        Ok(())
    }

    /// Removes the publication under `name`; `NotFound` when there is none.
    pub fn unpublish(name: &str) -> Result<()> {
        if PUBLISHED.remove_if(name, |_| true) {
            Ok(())
        } else {
            Err(Error::NotFound(format!(
                "no dispatcher is published as \"{name}\""
            )))
        }
    }

    /// Removes the publication under `name` only when it is this dispatcher; whether it was.
    pub fn unpublish_self(&self, name: &str) -> bool {
        PUBLISHED.remove_if(name, |d| d.same_as(self))
    }

    /// The dispatcher published under `name`, waiting up to `timeout` for one (`None`:
    /// without limit; zero: not at all). The error names what was not ready and how long
    /// it waited.
    pub fn wait_published(name: &str, timeout: Option<std::time::Duration>) -> Result<Dispatcher> {
        super::publish::check_name(name).map_err(Error::Invalid)?;
        PUBLISHED.wait(name, timeout).ok_or_else(|| {
            let waited = match timeout {
                Some(t) => format!("{} ms", t.as_millis()),
                None => "without limit".into(),
            };
            Error::NotFound(format!(
                "no dispatcher was published as \"{name}\" within {waited} (the app publishes \
                 its dispatcher at startup; was it built, or published under another name?)"
            ))
        })
    }

    /// Removes every publication of this dispatcher (under any name); how many.
    pub fn withdraw(&self) -> usize {
        PUBLISHED.remove_all(|d| d.same_as(self))
    }

    /// The names under which dispatchers are published now, sorted.
    pub fn published_names() -> Vec<String> {
        PUBLISHED.names()
    }

    /// An empty dispatcher: no types, functions, delegates or hooks; the default limits.
    pub fn new() -> Dispatcher {
        Dispatcher {
            registry: Arc::new(Registry::new()),
        }
    }

    pub(crate) fn snapshot(&self) -> Arc<Snapshot> {
        self.registry.snapshot()
    }

    fn update<T>(
        &self,
        check: impl FnOnce(&Snapshot) -> Result<T>,
        apply: impl FnOnce(&mut Snapshot, T),
        notify: bool,
    ) -> Result<()> {
        self.registry.update(check, apply, notify)
    }

    /// Calls `f` after every change of the registry (for `list_changed`); returns an id
    /// for [`Dispatcher::unsubscribe`].
    pub fn subscribe_changes(&self, f: ChangeListener) -> u64 {
        self.registry.shared.subscribe(f)
    }

    /// Removes the change listener [`Dispatcher::subscribe_changes`] returned `id` for.
    pub fn unsubscribe(&self, id: u64) {
        self.registry.shared.unsubscribe(id)
    }

    /// A counter bumped by every registry change.
    pub fn version(&self) -> u64 {
        self.snapshot().version
    }

    /// A counter that changes with every change of the registry, enabling and disabling
    /// functions included (what views show may have changed).
    pub fn generation(&self) -> u64 {
        self.registry.shared.generation.load(Ordering::Acquire)
    }

    /// Sets the timeout of invocations that name none (default [`DEFAULT_TIMEOUT`], 30 s);
    /// `None` or zero: such calls run without a timeout. A call it ends is `TimedOut` and
    /// logged (warn) naming the function and the timeout.
    pub fn set_default_timeout(&self, timeout: Option<std::time::Duration>) {
        let ms = timeout.map_or(0, |t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
        self.registry
            .shared
            .default_timeout_ms
            .store(ms, Ordering::Release);
    }

    /// The timeout of invocations that name none; `None`: no timeout.
    pub fn default_timeout(&self) -> Option<std::time::Duration> {
        match self
            .registry
            .shared
            .default_timeout_ms
            .load(Ordering::Acquire)
        {
            0 => None,
            ms => Some(std::time::Duration::from_millis(ms)),
        }
    }

    /// How many calls are running now (started and their outcome not yet delivered).
    pub fn in_flight(&self) -> u64 {
        self.registry.shared.in_flight()
    }

    /// Whether [`Dispatcher::shutdown`] was called.
    pub fn is_shutting_down(&self) -> bool {
        self.registry.shared.shutting_down.load(Ordering::Acquire)
    }

    /// Refuses new calls from now on (they end at once with `LimitExceeded`, "the
    /// dispatcher is shutting down", running no host code) and waits up to `timeout` for
    /// the calls in flight. Returns how many still run (0: drained). Idempotent.
    pub fn shutdown(&self, timeout: std::time::Duration) -> u64 {
        let shared = &self.registry.shared;
        shared.shutting_down.store(true, Ordering::SeqCst);
        // a dispatcher that refuses calls is no longer offered to waiters
        self.withdraw();
        let deadline = std::time::Instant::now().checked_add(timeout);
        let mut g = shared.drain.lock();
        loop {
            let n = shared.in_flight();
            if n == 0 {
                return 0;
            }
            match deadline {
                Some(d) => {
                    if std::time::Instant::now() >= d {
                        return n;
                    }
                    shared.drained.wait_until(&mut g, d);
                }
                None => shared.drained.wait(&mut g),
            }
        }
    }

    /// The outcome of a call refused because the dispatcher is shutting down.
    fn shutting_down_outcome(inv: &InvocationRef<'_>) -> Outcome {
        Outcome::error(
            crate::model::error::ErrorCode::LimitExceeded,
            format!(
                "{}: the dispatcher is shutting down",
                crate::model::types::quote_short(inv.function_id)
            ),
        )
    }

    /// Defines named enums and records (`{"enums": [...], "records": [...]}`).
    pub fn define_types(&self, json: &str) -> Result<()> {
        let doc = parse_json(json, "types")?;
        self.update(
            |s| {
                let mut t = (*s.types).clone();
                t.define_with(&doc, s.metadata_properties.as_deref())?;
                Ok(t)
            },
            |s, t| s.types = Arc::new(t),
            true,
        )
    }

    /// Registers a function. `handler` may be `None` only for output-kind functions.
    ///
    /// Every check happens here, and a refusal names the place and the reason:
    ///
    /// ```
    /// use appfunctions::{sync_handler, Dispatcher, Error};
    /// let d = Dispatcher::new();
    /// d.register_function(r#"{"id": "ping"}"#, Some(sync_handler(|_| Ok(None))))?;
    /// let refused = d.register_function(
    ///     r#"{"id": "pong", "parameters": [{"name": "n", "type": "int33"}]}"#,
    ///     Some(sync_handler(|_| Ok(None))),
    /// );
    /// assert!(matches!(refused, Err(Error::Descriptor { .. })), "{refused:?}");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn register_function(
        &self,
        descriptor_json: &str,
        handler: Option<Arc<dyn Handler>>,
    ) -> Result<()> {
        // A plain descriptor is read straight from its text (no JSON tree); anything the
        // direct reader declines is parsed into a tree and walked, which names what is wrong.
        let raw = (descriptor_json.len() <= MAX_DOCUMENT_BYTES)
            .then(|| descriptor::text::read(descriptor_json))
            .flatten();
        let Some(raw) = raw else {
            let doc = parse_json(descriptor_json, "descriptor")?;
            return self.register_function_value(&doc, handler);
        };
        self.register_parsed(
            |types, cx| match raw.resolve(types, cx) {
                Some(desc) => Ok(desc),
                None => {
                    let doc = parse_json(descriptor_json, "descriptor")?;
                    FunctionDescriptor::parse(&doc, types, cx)
                }
            },
            handler,
        )
    }

    /// [`Dispatcher::register_function`] for a descriptor already parsed as JSON.
    pub fn register_function_value(
        &self,
        doc: &Value,
        handler: Option<Arc<dyn Handler>>,
    ) -> Result<()> {
        self.register_parsed(
            |types, cx| FunctionDescriptor::parse(doc, types, cx),
            handler,
        )
    }

    /// Registers the function `parse` makes against the current types and context.
    fn register_parsed(
        &self,
        parse: impl FnOnce(&TypeSet, &ParseContext<'_>) -> Result<FunctionDescriptor>,
        handler: Option<Arc<dyn Handler>>,
    ) -> Result<()> {
        let has_handler = handler.is_some();
        self.update(
            |s| {
                let cx = ParseContext {
                    metadata_properties: s.metadata_properties.as_deref(),
                    limits: s.limits,
                };
                let desc = parse(&s.types, &cx)?;
                if s.contains(&desc.id) {
                    return Err(Error::Duplicate(format!("a function with id \"{}\" is already registered", desc.id)));
                }
                if s.toolkit(&desc.id).is_some() {
                    return Err(Error::Duplicate(format!("\"{}\" is the name of a toolkit", desc.id)));
                }
                let toolkit = match &desc.toolkit {
                    Some(t) => Some(s.toolkit_index(t).ok_or_else(|| {
                        Error::descriptor(
                            format!("{}.toolkit", desc.id),
                            format!("unknown toolkit \"{t}\" (define it with af_define_toolkit first)"),
                        )
                    })?),
                    None => None,
                };
                if !has_handler && desc.kind == crate::model::descriptor::FunctionKind::Function {
                    return Err(Error::descriptor(
                        format!("{}.kind", desc.id),
                        "a function needs a handler; only kind \"output\" may be registered without one",
                    ));
                }
                Ok((desc, toolkit))
            },
            |s, (desc, toolkit)| {
                let enabled = desc.enabled;
                s.push_function(Entry::new(desc, handler, enabled, toolkit));
            },
            true,
        )
    }

    /// Registers an entity and its generated `search_{entity}` function, whose handler is
    /// `lookup`.
    pub fn register_entity(&self, descriptor_json: &str, lookup: Arc<dyn Handler>) -> Result<()> {
        let doc = parse_json(descriptor_json, "entity")?;
        self.update(
            |s| {
                let def = parse_entity_with(&doc, &s.types, s.metadata_properties.as_deref())?;
                let search_id = format!("search_{}", def.name);
                if s.contains(&search_id) {
                    return Err(Error::Duplicate(format!(
                        "entity \"{}\" would generate \"{search_id}\", which is already registered",
                        def.name
                    )));
                }
                let mut t = (*s.types).clone();
                let index = t.add_entity(def);
                let desc = FunctionDescriptor::entity_search(index, &t.entities[index]);
                Ok((t, desc))
            },
            |s, (t, desc)| {
                s.types = Arc::new(t);
                s.push_generated(Entry::new(desc, Some(lookup), true, None));
            },
            true,
        )
    }

    /// Removes a declared function. Calls in flight finish with what they hold.
    pub fn unregister_function(&self, id: &str) -> Result<()> {
        self.update(
            |s| match s.slot_of(id) {
                Some(Slot::Declared(i)) => Ok(i),
                Some(Slot::Generated(_)) => Err(Error::Invalid(format!(
                    "\"{id}\" is generated for an entity and cannot be unregistered"
                ))),
                None => Err(Error::NotFound(id.into())),
            },
            |s, i| s.remove_function(i),
            true,
        )
    }

    /// Enables or disables a function at run time (a disabled one answers `Disabled`).
    pub fn set_enabled(&self, id: &str, enabled: bool) -> Result<()> {
        let entry = self
            .snapshot()
            .find(id)
            .ok_or_else(|| Error::NotFound(id.into()))?;
        if entry.set_enabled(enabled) {
            self.registry
                .shared
                .generation
                .fetch_add(1, Ordering::AcqRel);
            self.registry.shared.notify_changed();
        }
        Ok(())
    }

    /// Adds a delegate: it sees every call (`on_invoking`, `on_invoked`), in the order added.
    pub fn add_delegate(&self, d: Arc<dyn Delegate>) {
        let _ = self.update(
            |_| Ok(()),
            |s, ()| {
                let mut v: Vec<_> = s.delegates.iter().cloned().collect();
                v.push(d);
                s.delegates = Arc::from(v);
            },
            false,
        );
    }

    /// Sets (or with `None` removes) the host's per-call scope.
    pub fn set_scope_hooks(&self, hooks: Option<Arc<dyn ScopeHooks>>) {
        let _ = self.update(|_| Ok(()), |s, ()| s.scope_hooks = hooks, false);
    }

    /// Sets (or with `None` removes) what asks the user for `requiresPermission` functions.
    pub fn set_permission_hook(&self, hook: Option<Arc<dyn PermissionHook>>) {
        let _ = self.update(|_| Ok(()), |s, ()| s.permission = hook, false);
    }

    /// Which callers may call any function of this dispatcher.
    pub fn set_caller_policy(&self, policy: CallerPolicy) {
        let _ = self.update(|_| Ok(()), |s, ()| s.callers = policy, false);
    }

    /// Which callers may call one function (replaces the descriptor's `callers`).
    pub fn set_function_caller_policy(&self, id: &str, policy: CallerPolicy) -> Result<()> {
        self.update(
            |s| match s.slot_of(id) {
                Some(Slot::Declared(i)) => Ok(i),
                Some(Slot::Generated(_)) => Err(Error::Invalid(format!(
                    "\"{id}\" is generated; set the dispatcher's caller policy instead"
                ))),
                None => Err(Error::NotFound(id.into())),
            },
            |s, i| {
                let old = s.function(i);
                let mut desc = old.desc.clone();
                desc.callers = policy;
                let e = Entry::new(desc, old.handler.clone(), old.is_enabled(), old.toolkit);
                s.replace_function(i, e);
            },
            false,
        )
    }

    /// Sets the input limits arguments are bound under; refused while functions are registered.
    pub fn set_limits(&self, limits: Limits) -> Result<()> {
        if limits.max_depth == 0 || limits.max_input_bytes == 0 {
            return Err(Error::Invalid("limits must be greater than zero".into()));
        }
        self.update(|_| Ok(()), |s, ()| s.limits = limits, false)
    }

    /// The input limits in force.
    pub fn limits(&self) -> Limits {
        self.snapshot().limits
    }

    /// Declares the metadata properties that conditions and `{metadata.X}` placeholders
    /// may name; later registrations are checked against them.
    pub fn set_metadata_properties(&self, props: Option<Vec<String>>) {
        self.set_metadata(props, Map::new());
    }

    fn set_metadata(&self, props: Option<Vec<String>>, defaults: Map<String, Value>) {
        let _ = self.update(
            |_| Ok(()),
            |s, ()| {
                s.metadata_properties = props.map(Arc::from);
                s.metadata_defaults = Arc::new(Value::Object(defaults));
            },
            false,
        );
    }

    /// Defines a toolkit: `{"name", "description"?, "functionResult"?, "systemPrompt"?}`.
    /// With a description it collapses in agent views. `texts` answers the texts
    /// dynamically (falling back to the static ones).
    pub fn define_toolkit(
        &self,
        json: &str,
        texts: Option<Arc<dyn crate::engine::toolkit::ToolkitTexts>>,
    ) -> Result<()> {
        let doc = parse_json(json, "toolkit")?;
        self.update(
            |s| {
                let tk = crate::engine::toolkit::parse_toolkit(&doc, texts)?;
                if s.toolkit(&tk.name).is_some() {
                    return Err(Error::Duplicate(format!(
                        "a toolkit named \"{}\" is already defined",
                        tk.name
                    )));
                }
                if s.contains(&tk.name) {
                    return Err(Error::Duplicate(format!(
                        "\"{}\" is already the id of a function",
                        tk.name
                    )));
                }
                for (key, text) in [
                    ("description", &tk.description),
                    ("functionResult", &tk.function_result),
                    ("systemPrompt", &tk.system_prompt),
                ] {
                    if let Some(t) = text {
                        crate::model::condition::check_text(t, s.metadata_properties.as_deref())
                            .map_err(|e| Error::descriptor(format!("{}.{key}", tk.name), e))?;
                    }
                }
                Ok(tk)
            },
            |s, tk| s.toolkits.push(Arc::new(tk)),
            true,
        )
    }

    /// Declares the metadata schema: a JSON Schema object with `properties`, or an array
    /// of property names. Conditions and placeholders registered later are checked
    /// against it.
    pub fn set_metadata_schema(&self, json: &str) -> Result<()> {
        let doc = parse_json(json, "metadata schema")?;
        let props: Vec<String> = match &doc {
            Value::Array(a) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| Error::descriptor("metadata", "expected property names"))
                })
                .collect::<Result<_>>()?,
            Value::Object(o) => match o.get("properties") {
                Some(Value::Object(p)) => {
                    let defaults: Map<String, Value> = p
                        .iter()
                        .filter_map(|(k, v)| Some((k.clone(), v.get("default")?.clone())))
                        .collect();
                    self.set_metadata(Some(p.keys().cloned().collect()), defaults);
                    return Ok(());
                }
                _ => {
                    return Err(Error::descriptor(
                        "metadata",
                        "expected a JSON Schema object with \"properties\"",
                    ))
                }
            },
            _ => {
                return Err(Error::descriptor(
                    "metadata",
                    "expected a JSON Schema object or an array of property names",
                ))
            }
        };
        self.set_metadata_properties(Some(props));
        Ok(())
    }

    /// Sets (or with `None` removes) where the dispatcher's log lines go.
    pub fn set_log_sink(&self, sink: Option<LogSink>) {
        self.registry.shared.set_log_sink(sink);
    }

    /// Adds a reader of the log besides the host's sink (the debug page's feed); the id
    /// removes it. Taps run on the thread that logs: they must not block.
    pub fn add_log_tap(&self, tap: LogSink) -> u64 {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.registry.shared.add_log_tap(id, tap);
        id
    }

    /// Removes a tap added by [`Dispatcher::add_log_tap`].
    pub fn remove_log_tap(&self, id: u64) {
        self.registry.shared.remove_log_tap(id);
    }

    /// Writes to the dispatcher's log sink.
    pub(crate) fn log(&self, level: LogLevel, msg: &str) {
        self.registry.shared.log(level, msg);
    }

    /// Makes a call; `sink` receives the outcome (else it is handed back to the thread
    /// that drives it first, or kept for `wait_outcome`). `Err` with the sink when the
    /// dispatcher is shutting down (no call is made).
    fn start(
        &self,
        inv: &InvocationRef<'_>,
        args: Option<&str>,
        sink: Option<OutcomeSink>,
        keep_outcome: bool,
    ) -> std::result::Result<(Arc<Call>, PreBound), Option<OutcomeSink>> {
        let Some(shard) = self.registry.shared.call_started() else {
            return Err(sink);
        };
        let snap = self.snapshot();
        let slot = snap.slot_of(inv.function_id);
        let entry = slot.map(|sl| snap.entry_at(sl));
        let (kind, entity) = match entry.and_then(|e| e.desc.generated_for) {
            Some(i) => (CallKind::EntityLookup, Some(i)),
            None => (CallKind::Function, None),
        };
        // binding runs no host code, so it happens here, on the caller's borrowed text
        let bound = entry.map(|e| {
            crate::model::binding::bind_arguments(
                &snap.types,
                &e.desc.parameters,
                args,
                &snap.limits,
            )
        });
        let (call, st) = Call::new(
            snap,
            inv,
            slot,
            bound,
            kind,
            entity,
            shard,
            self.default_timeout(),
            keep_outcome,
            sink,
        );
        Self::watch_token(&call, inv);
        Ok((call, st))
    }

    /// Counts a new call in flight: its shard, or `None` when the dispatcher is shutting
    /// down (no call is to be made).
    pub(crate) fn call_started(&self) -> Option<usize> {
        self.registry.shared.call_started()
    }

    /// Cancels `call` when the invocation's token is cancelled (at once if it is already).
    #[inline(always)]
    pub(crate) fn watch_token(call: &Arc<Call>, inv: &InvocationRef<'_>) {
        if let Some(t) = inv.cancel {
            let weak: std::sync::Weak<dyn crate::engine::cancel::Cancellable> =
                Arc::downgrade(call) as _;
            if !t.subscribe(weak) {
                call.cancel(crate::model::error::ErrorCode::Cancelled);
            }
        }
    }

    /// When the call must end by (its timeout from its start).
    fn deadline(call: &Call) -> Option<std::time::Instant> {
        call.deadline()
    }

    /// Runs a call and blocks until its outcome (JSON). Never fails: every failure is an
    /// outcome.
    ///
    /// ```
    /// use appfunctions::{sync_handler, Dispatcher, Invocation};
    /// let d = Dispatcher::new();
    /// d.register_function(r#"{"id": "ping", "result": "string"}"#, Some(sync_handler(|_| Ok(Some("\"pong\"".into())))))?;
    /// let json: serde_json::Value = serde_json::from_str(&d.execute(&Invocation::new("ping"), None)).unwrap();
    /// assert_eq!(json["status"], "success");
    /// assert_eq!(json["result"], "pong");
    /// let json: serde_json::Value = serde_json::from_str(&d.execute(&Invocation::new("nope"), None)).unwrap();
    /// assert_eq!(json["errorCode"], "FunctionNotFound");
    /// # Ok::<(), appfunctions::Error>(())
    /// ```
    pub fn execute(&self, inv: &Invocation, args: Option<&str>) -> String {
        let mut json = self.execute_terminated_ref(&inv.as_ref(), args);
        json.pop(); // the terminator
        json
    }

    /// [`Dispatcher::execute`] for a borrowed invocation, the outcome JSON kept with its
    /// terminator ([`crate::model::terminated`]: a borrower is handed it without a copy).
    pub(crate) fn execute_terminated_ref(
        &self,
        inv: &InvocationRef<'_>,
        args: Option<&str>,
    ) -> String {
        let Ok((call, st)) = self.start(inv, args, None, false) else {
            return Self::shutting_down_outcome(inv).to_json_terminated();
        };
        Self::drive_blocking(&call, st)
    }

    /// Drives a call made without a sink on this thread and waits for its outcome JSON
    /// (followed by a NUL); at its deadline this thread ends it `TimedOut`.
    #[inline(always)]
    pub(crate) fn drive_blocking(call: &Arc<Call>, st: PreBound) -> String {
        // a call that ends on this thread hands its outcome back at once
        if let Some(Delivered::Json(o)) = drive_new(call, st, true) {
            return o;
        }
        let deadline = Self::deadline(call);
        match call.wait_outcome(deadline) {
            Some(o) => o,
            None => {
                call.cancel(crate::model::error::ErrorCode::TimedOut);
                call.wait_outcome(None)
                    .unwrap_or_else(|| crate::model::terminated::EMPTY.into())
            }
        }
    }

    /// Like [`Dispatcher::execute`], as an [`Outcome`] (no JSON made unless a delegate
    /// reads it).
    pub fn execute_outcome(&self, inv: &Invocation, args: Option<&str>) -> Outcome {
        let inv = &inv.as_ref();
        let Ok((call, st)) = self.start(inv, args, None, true) else {
            return Self::shutting_down_outcome(inv);
        };
        if let Some(Delivered::Outcome(o)) = drive_new(&call, st, true) {
            return o;
        }
        let deadline = Self::deadline(&call);
        match call.wait_outcome_struct(deadline) {
            Some(o) => o,
            None => {
                call.cancel(crate::model::error::ErrorCode::TimedOut);
                call.wait_outcome_struct(None).unwrap_or_else(|| {
                    Outcome::error(
                        crate::model::error::ErrorCode::InternalError,
                        "the call ended without an outcome",
                    )
                })
            }
        }
    }

    /// Starts a call and returns at once; `on_outcome` receives the outcome exactly once,
    /// on the thread that finishes the call: this one when everything answers inline, else
    /// the thread that answers the host's last wait, or cancels; for a timeout, a thread of
    /// the completion pool ([`crate::threads`]), never the timer's.
    pub fn execute_async(
        &self,
        inv: &Invocation,
        args: Option<&str>,
        on_outcome: impl FnOnce(&Outcome, &str) + Send + 'static,
    ) {
        let sink =
            OutcomeSink::boxed(move |o: Outcome, json: Terminated<'_>| on_outcome(&o, json.text()));
        // the callback reads the outcome itself
        self.execute_async_sink_ref(&inv.as_ref(), args, sink, true);
    }

    /// [`Dispatcher::execute_async`] whose sink gets the outcome JSON kept with its
    /// terminator (a borrower is lent it without a copy), for a borrowed invocation (the
    /// call copies what it keeps of it before any host code runs).
    pub(crate) fn execute_async_terminated_ref(
        &self,
        inv: &InvocationRef<'_>,
        args: Option<&str>,
        on_outcome: JsonSink,
    ) {
        // only the JSON is read: it is written in the result's buffer, as for a plain call
        self.execute_async_sink_ref(inv, args, OutcomeSink::Json(on_outcome), false);
    }

    /// Starts an asynchronous call whose outcome goes to `sink`; `keep_outcome`: the sink
    /// reads the [`Outcome`] it gets (else only the JSON, and the outcome it gets is empty).
    fn execute_async_sink_ref(
        &self,
        inv: &InvocationRef<'_>,
        args: Option<&str>,
        sink: OutcomeSink,
        keep_outcome: bool,
    ) {
        let (call, st) = match self.start(inv, args, Some(sink), keep_outcome) {
            Ok(c) => c,
            Err(sink) => {
                // refused: the outcome goes to the sink at once, on this thread
                let o = Self::shutting_down_outcome(inv);
                let json = o.to_json_terminated();
                if let Some(s) = sink {
                    s.deliver(o, Terminated::new(&json));
                }
                return;
            }
        };
        Self::drive_async(&call, st);
    }

    /// Drives a call made with a sink: its deadline on the timer, then the pipeline on this
    /// thread until it ends or waits for the host.
    #[inline(always)]
    pub(crate) fn drive_async(call: &Arc<Call>, st: PreBound) {
        // the deadline is on the timer before any host code runs: a handler (or gate) that
        // blocks inline, on this thread, is marked timed out at its deadline and its cancel
        // callbacks run then (they may be what stops it), not when it returns. A call that
        // finishes in time takes its deadline off again (pipeline::finish).
        // (a call with a sink: its end gives the deadline back, pipeline::finish)
        debug_assert!(call.has_sink, "drive_async drives calls made with a sink");
        let Some(deadline) = Self::deadline(call) else {
            drive_new(call, st, false);
            return;
        };
        use crate::engine::timer;
        use std::sync::atomic::Ordering::SeqCst;
        // armed in a slot while this thread drives it (the common call answers inline and
        // gives the slot back as it finishes)
        let target: std::sync::Weak<dyn timer::Expire> = Arc::downgrade(call) as _;
        let number = timer::arm(deadline, target);
        call.timer_seq.store(number, SeqCst);
        drive_new(call, st, false);
        // still waiting for the host: its deadline goes to the timer's ordered map, unless
        // the call ends meanwhile (then whoever ends it takes the number: pipeline::finish)
        if !call.finished.load(SeqCst) && call.timer_seq.load(SeqCst) == number {
            let target: std::sync::Weak<dyn timer::Expire> = Arc::downgrade(call) as _;
            timer::promote(deadline, number, target, &call.timer_seq);
        }
    }

    /// Seed 004's plain form (no metadata schema declared): logs each `{metadata.X}`
    /// placeholder of the registry that `metadata` gives no value for, once per name for
    /// this dispatcher, since it renders as empty text. With a schema declared, its
    /// `default`s stand in and names are checked at registration: nothing to say.
    pub(crate) fn note_unset_placeholders(&self, metadata: &Value) {
        let s = self.snapshot();
        if s.metadata_properties.is_some() {
            return;
        }
        let shared = &self.registry.shared;
        let generation = shared.generation.load(Ordering::Acquire);
        let names = {
            let cached = shared.plain_placeholders.lock();
            (cached.0 == generation).then(|| cached.1.clone())
        };
        let names = names.unwrap_or_else(|| {
            // the registry as registered keeps the placeholders (once per registry change)
            let json = self.registry_json();
            let mut names: Vec<String> = crate::model::condition::placeholders(&json)
                .into_iter()
                .map(str::to_owned)
                .collect();
            names.sort();
            names.dedup();
            let names: Arc<[String]> = Arc::from(names);
            *shared.plain_placeholders.lock() = (generation, names.clone());
            names
        });
        for name in names.iter() {
            if matches!(metadata.get(name), None | Some(Value::Null))
                && shared.unset_placeholders_logged.lock().insert(name.clone())
            {
                self.log(
                    LogLevel::Warn,
                    &format!(
                        "{{metadata.{name}}}: the view's metadata has no \"{name}\" and no metadata schema is declared (the plain form), so it renders as empty text"
                    ),
                );
            }
        }
    }

    /// The registry: declared functions, then generated ones; types; entities.
    pub fn registry_json(&self) -> String {
        let s = self.snapshot();
        let mut out = String::with_capacity(256 * s.len() + 1024);
        out.push_str("{\"functions\":[");
        for (i, e) in s.entries().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(e.json(&s.types));
        }
        out.push_str("],\"types\":");
        out.push_str(&serde_json::to_string(&s.types.to_json()).unwrap_or_default());
        out.push_str(",\"entities\":");
        let entities: Vec<Value> = s
            .types
            .entities
            .iter()
            .map(|e| s.types.entity_json(e))
            .collect();
        out.push_str(&serde_json::to_string(&entities).unwrap_or_default());
        out.push_str(",\"toolkits\":");
        let toolkits: Vec<Value> = s.toolkits.iter().map(|t| t.to_json()).collect();
        out.push_str(&serde_json::to_string(&toolkits).unwrap_or_default());
        out.push('}');
        out
    }

    /// [`Dispatcher::registry_json`] as a JSON value.
    pub fn registry_value(&self) -> Value {
        let s = self.snapshot();
        let functions: Vec<Value> = s
            .entries()
            .map(|e| e.desc.to_json(&s.types, e.is_enabled()))
            .collect();
        let entities: Vec<Value> = s
            .types
            .entities
            .iter()
            .map(|e| s.types.entity_json(e))
            .collect();
        let mut o = Map::new();
        o.insert("functions".into(), Value::Array(functions));
        o.insert("types".into(), s.types.to_json());
        o.insert("entities".into(), Value::Array(entities));
        o.insert(
            "toolkits".into(),
            Value::Array(s.toolkits.iter().map(|t| t.to_json()).collect()),
        );
        Value::Object(o)
    }

    /// The JSON Schema (2020-12) of a function's parameters.
    pub fn parameters_schema(&self, id: &str) -> Result<Value> {
        let s = self.snapshot();
        let e = s.find(id).ok_or_else(|| Error::NotFound(id.into()))?;
        Ok(e.rendered_schemas(&s.types, &s.metadata_defaults).0.clone())
    }

    /// The JSON Schema (2020-12) of a function's result; `None` for void.
    pub fn result_schema(&self, id: &str) -> Result<Option<Value>> {
        let s = self.snapshot();
        let e = s.find(id).ok_or_else(|| Error::NotFound(id.into()))?;
        Ok(e.rendered_schemas(&s.types, &s.metadata_defaults).1.clone())
    }

    /// The descriptors of every function (declared, then generated).
    pub fn functions(&self) -> Vec<FunctionInfo> {
        let s = self.snapshot();
        s.entries()
            .map(|e| FunctionInfo {
                desc: e.desc.clone(),
                enabled: e.is_enabled(),
                parameters_schema: e.schemas(&s.types).0.clone(),
                result_schema: e.schemas(&s.types).1.clone(),
            })
            .collect()
    }
}

/// A function as listed by [`Dispatcher::functions`].
#[derive(Clone, Debug)]
pub struct FunctionInfo {
    /// The validated descriptor.
    pub desc: FunctionDescriptor,
    /// Whether the function is enabled now.
    pub enabled: bool,
    /// The JSON Schema (2020-12) of its parameters.
    pub parameters_schema: Value,
    /// The JSON Schema (2020-12) of its result; `None` for void.
    pub result_schema: Option<Value>,
}
