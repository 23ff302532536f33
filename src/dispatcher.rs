//! The dispatcher: the registry (copy-on-write snapshots, so every call sees one
//! consistent registry while registration goes on) and the entry points of a call.

use crate::binding::Limits;
use crate::call::{Call, CallKind, Gate, Invocation, OutcomeSink};
use crate::descriptor::{parse_entity_with, CallerPolicy, FunctionDescriptor, ParseContext};
use crate::error::{Error, Result};
use crate::log::{LogLevel, LogSink};
use crate::outcome::Outcome;
use crate::schema;
use crate::types::TypeSet;
use parking_lot::{Mutex, RwLock};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Runs a function (or an entity lookup). Complete the call exactly once, now or later
/// from any thread, with [`Call::complete`].
pub trait Handler: Send + Sync {
    fn invoke(&self, call: &Arc<Call>);
}

impl<F: Fn(&Arc<Call>) + Send + Sync> Handler for F {
    fn invoke(&self, call: &Arc<Call>) {
        self(call)
    }
}

/// A handler that answers synchronously: the closure's result completes the call.
///
/// ```
/// use appfunctions::{Dispatcher, Invocation, sync_handler};
/// let d = Dispatcher::new();
/// d.register_function(
///     r#"{"id":"add","parameters":[{"name":"a","type":"int32"},{"name":"b","type":"int32"}],"result":"int32"}"#,
///     Some(sync_handler(|call| {
///         let v: serde_json::Value = serde_json::from_str(call.args().unwrap()).unwrap();
///         Ok(Some((v["a"].as_i64().unwrap() + v["b"].as_i64().unwrap()).to_string()))
///     })),
/// ).unwrap();
/// let o = d.execute_outcome(&Invocation::new("add"), Some(r#"{"a":2,"b":3}"#));
/// assert_eq!(o.result.as_deref(), Some("5"));
/// ```
pub fn sync_handler<F>(f: F) -> Arc<dyn Handler>
where
    F: Fn(&Arc<Call>) -> crate::call::HandlerResult + Send + Sync + 'static,
{
    Arc::new(move |call: &Arc<Call>| {
        let r = f(call);
        let _ = call.complete(r);
    })
}

/// Cross-cutting concerns: sign-in gates, feature flags, telemetry.
pub trait Delegate: Send + Sync {
    /// Runs after binding, before the handler. Answer the gate once, now or later.
    fn on_invoking(&self, call: &Arc<Call>, gate: Gate) {
        let _ = call;
        let _ = gate.allow();
    }
    /// Sees every outcome (refusals included). Failures here are logged and ignored.
    fn on_invoked(&self, call: &Arc<Call>, outcome: &Outcome, outcome_json: &str) {
        let _ = (call, outcome, outcome_json);
    }
    /// False when `on_invoking` is the default (lets the pipeline skip it).
    fn has_on_invoking(&self) -> bool {
        true
    }
    /// False when `on_invoked` is the default.
    /// `on_invoked` with the outcome JSON followed by its NUL (`json_nul` ends with
    /// `'\0'`), for hosts that lend it to C. By default it calls `on_invoked`.
    #[doc(hidden)]
    fn on_invoked_nul(&self, call: &Arc<Call>, outcome: &Outcome, json_nul: &str) {
        self.on_invoked(call, outcome, crate::call::strip_nul(json_nul));
    }
    fn has_on_invoked(&self) -> bool {
        true
    }
}

/// The host's per-call scope (a DI scope): `begin` before anything else, `end` exactly
/// once after the last `on_invoked`.
pub trait ScopeHooks: Send + Sync {
    fn begin(&self, call: &Arc<Call>);
    fn end(&self, call: &Arc<Call>);
}

/// Asks the user to approve a `requiresPermission` function; answer the gate once.
pub trait PermissionHook: Send + Sync {
    fn ask(&self, call: &Arc<Call>, gate: Gate);
}

/// A registered function (declared, or generated for an entity).
pub struct Entry {
    pub desc: FunctionDescriptor,
    /// The id followed by a NUL, shared by every call of this function.
    pub(crate) id_nul: Arc<str>,
    /// The parameters and result schemas, made on first use (named types only grow, so
    /// they never change).
    schemas: std::sync::OnceLock<Arc<Schemas>>,
    /// MCP wraps the result as `{"result": ...}` (its schema's root is not an object).
    mcp_wraps: std::sync::OnceLock<bool>,
    /// Some text the function shows (title, description, a description in its schemas)
    /// holds a `{metadata.X}` placeholder, so what it shows depends on the metadata.
    templated: std::sync::OnceLock<bool>,
    /// The registry JSON of this entry, disabled and enabled (entries never change).
    json_cache: [std::sync::OnceLock<String>; 2],
    /// This entry's tool object in each JSON export format (by `Format` index).
    export_cache: [std::sync::OnceLock<String>; 6],
    pub(crate) handler: Option<Arc<dyn Handler>>,
    enabled: AtomicBool,
}

impl Entry {
    /// Whether MCP wraps this function's structured result (`None`: no output schema).
    pub(crate) fn mcp_wraps(&self, types: &TypeSet) -> Option<bool> {
        let schemas = self.schemas(types);
        let schema = schemas.1.as_ref()?;
        Some(
            *self
                .mcp_wraps
                .get_or_init(|| crate::export::mcp_wraps_result(schema)),
        )
    }

    /// The entry's registry JSON (made once per enabled state).
    pub(crate) fn json(&self, types: &TypeSet) -> &str {
        let enabled = self.is_enabled();
        self.json_cache[usize::from(enabled)].get_or_init(|| {
            serde_json::to_string(&self.desc.to_json(types, enabled)).unwrap_or_default()
        })
    }

    /// Whether what the function shows depends on the metadata (made once).
    pub(crate) fn templated(&self, types: &TypeSet) -> bool {
        *self.templated.get_or_init(|| {
            let text = |t: &Option<String>| t.as_deref().is_some_and(|t| t.contains("{metadata."));
            let sch = self.schemas(types);
            text(&self.desc.title)
                || text(&self.desc.description)
                || crate::condition::json_has_placeholders(&sch.0)
                || sch
                    .1
                    .as_ref()
                    .is_some_and(crate::condition::json_has_placeholders)
        })
    }

    /// The entry's schemas with their placeholders rendered for `metadata` (the shared ones
    /// when there is none to render).
    pub(crate) fn rendered_schemas(&self, types: &TypeSet, metadata: &Value) -> Arc<Schemas> {
        let sch = self.schemas(types);
        if !self.templated(types) {
            return sch;
        }
        let (mut p, mut r) = (sch.0.clone(), sch.1.clone());
        crate::condition::render_json(&mut p, metadata);
        if let Some(r) = &mut r {
            crate::condition::render_json(r, metadata);
        }
        Arc::new((p, r))
    }

    /// The entry's tool object in a JSON export format (made once, or every time for a
    /// templated entry, rendered with the metadata schema's defaults).
    fn export_fragment(
        &self,
        types: &TypeSet,
        format: crate::export::Format,
        metadata: &Value,
    ) -> std::result::Result<std::borrow::Cow<'_, str>, crate::export::ExportError> {
        use crate::export::Format;
        use std::borrow::Cow;
        let templated = self.templated(types);
        let slot = &self.export_cache[Format::ALL.iter().position(|f| *f == format).unwrap_or(0)];
        if let Some(s) = slot.get() {
            return Ok(Cow::Borrowed(s));
        }
        let sch = self.rendered_schemas(types, metadata);
        let d = &self.desc;
        let render = |t: &str| crate::condition::render(t, metadata);
        let title = d.title.as_deref().map(render);
        let description = render(d.description.as_deref().unwrap_or(""));
        let spec = crate::export::ToolSpec {
            name: &d.id,
            title: title.as_deref(),
            description: &description,
            input_schema: &sch.0,
            output_schema: sch.1.as_ref(),
            hints: crate::view::hints_of(d),
            deprecated: d.deprecated,
        };
        let v = crate::export::tools_value(format, std::slice::from_ref(&spec))?;
        // the array of one tool (gemini: one tool holding one declaration)
        let one = match format {
            Format::Gemini => v.pointer("/0/functionDeclarations/0").cloned(),
            _ => v.get(0).cloned(),
        }
        .unwrap_or(Value::Null);
        let text = serde_json::to_string(&one).unwrap_or_default();
        if templated {
            return Ok(Cow::Owned(text));
        }
        Ok(Cow::Borrowed(slot.get_or_init(|| text)))
    }

    /// The entry's (parameters, result) JSON Schemas.
    pub(crate) fn schemas(&self, types: &TypeSet) -> Arc<Schemas> {
        self.schemas
            .get_or_init(|| {
                Arc::new((
                    schema::parameters_schema(types, &self.desc),
                    schema::result_schema(types, &self.desc),
                ))
            })
            .clone()
    }

    fn new(
        desc: FunctionDescriptor,
        handler: Option<Arc<dyn Handler>>,
        enabled: AtomicBool,
    ) -> Entry {
        Entry {
            id_nul: Arc::from(crate::call::with_nul(&desc.id).as_str()),
            schemas: std::sync::OnceLock::new(),
            mcp_wraps: std::sync::OnceLock::new(),
            templated: std::sync::OnceLock::new(),
            json_cache: Default::default(),
            export_cache: Default::default(),
            desc,
            handler,
            enabled,
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }
}

/// Where an entry sits in its snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Declared(usize),
    Generated(usize),
}

/// One consistent view of the registry. Calls hold one for their whole life.
#[derive(Clone)]
pub(crate) struct Snapshot {
    pub types: Arc<TypeSet>,
    functions: Vec<Arc<Entry>>,
    /// Per entity (by entity index), its `search_{entity}`.
    generated: Vec<Arc<Entry>>,
    index: HashMap<Arc<str>, Slot>,
    pub delegates: Arc<[Arc<dyn Delegate>]>,
    pub scope_hooks: Option<Arc<dyn ScopeHooks>>,
    pub permission: Option<Arc<dyn PermissionHook>>,
    pub callers: CallerPolicy,
    pub limits: Limits,
    pub metadata_properties: Option<Arc<[String]>>,
    /// The `default` of each property of the metadata schema that has one (an object):
    /// what placeholders render to outside views, and where a view's metadata lacks them.
    pub metadata_defaults: Arc<Value>,
    pub toolkits: Vec<Arc<crate::toolkit::Toolkit>>,
    pub version: u64,
    /// The dispatcher's log sink and listeners (the same for every snapshot).
    pub shared: Arc<Shared>,
}

impl Snapshot {
    fn empty(shared: Arc<Shared>) -> Snapshot {
        Snapshot {
            shared,
            types: Arc::new(TypeSet::default()),
            functions: Vec::new(),
            generated: Vec::new(),
            index: HashMap::new(),
            delegates: Arc::from(Vec::new()),
            scope_hooks: None,
            permission: None,
            callers: CallerPolicy::default(),
            limits: Limits::default(),
            metadata_properties: None,
            metadata_defaults: Arc::new(Value::Object(Map::new())),
            toolkits: Vec::new(),
            version: 0,
        }
    }

    /// Where the function `id` sits.
    pub(crate) fn slot_of(&self, id: &str) -> Option<Slot> {
        self.index.get(id).copied()
    }

    /// The entry at a slot of this snapshot.
    pub(crate) fn entry_at(&self, slot: Slot) -> &Arc<Entry> {
        match slot {
            Slot::Declared(i) => &self.functions[i],
            Slot::Generated(i) => &self.generated[i],
        }
    }

    pub fn find(&self, id: &str) -> Option<Arc<Entry>> {
        match self.index.get(id)? {
            Slot::Declared(i) => self.functions.get(*i).cloned(),
            Slot::Generated(i) => self.generated.get(*i).cloned(),
        }
    }

    pub fn toolkit(&self, name: &str) -> Option<&crate::toolkit::Toolkit> {
        self.toolkits.iter().find(|t| t.name == name).map(|t| &**t)
    }

    /// Where the `search_{entity}` of an entity sits.
    pub(crate) fn search_slot(&self, entity: usize) -> Option<Slot> {
        (entity < self.generated.len()).then_some(Slot::Generated(entity))
    }

    /// Declared functions in registration order, then the generated ones.
    pub fn entries(&self) -> impl Iterator<Item = &Arc<Entry>> {
        self.functions.iter().chain(self.generated.iter())
    }

    pub fn not_found_message(&self, id: &str) -> String {
        let hint = if self.index.len() <= 2000 {
            crate::types::closest(self.index.keys().map(|k| &**k), id)
                .map(|c| format!(" (did you mean \"{c}\"?)"))
                .unwrap_or_default()
        } else {
            String::new()
        };
        format!("no function named {}{hint}", crate::types::quote_short(id))
    }

    pub fn result_limits(&self) -> Limits {
        Limits {
            max_input_bytes: usize::MAX,
            max_depth: self.limits.max_depth,
        }
    }

    fn reindex(&mut self) {
        self.index.clear();
        for (i, e) in self.functions.iter().enumerate() {
            self.index
                .insert(Arc::from(e.desc.id.as_str()), Slot::Declared(i));
        }
        for (i, e) in self.generated.iter().enumerate() {
            self.index
                .insert(Arc::from(e.desc.id.as_str()), Slot::Generated(i));
        }
    }
}

/// A function's (parameters, result) JSON Schemas.
pub type Schemas = (Value, Option<Value>);

/// Called after every change of the registry.
pub type ChangeListener = Arc<dyn Fn() + Send + Sync>;

/// What outlives a dispatcher for as long as its calls run.
pub struct Shared {
    log: RwLock<Option<LogSink>>,
    listeners: Mutex<Vec<(u64, ChangeListener)>>,
    next_listener: AtomicU64,
    /// Bumped by every change of the registry (registration, enabling, hooks, ...).
    generation: AtomicU64,
    /// The timeout of invocations that name none, in milliseconds; 0: none.
    default_timeout_ms: AtomicU64,
    /// `shutdown` was called: new calls end at once with `LimitExceeded`.
    shutting_down: AtomicBool,
    /// Calls started and not yet ended, per thread group (a call ends on the shard it
    /// started on, so each shard is exact and never negative).
    in_flight: [InFlightShard; SNAPSHOT_COPIES],
    /// `shutdown` waits here for the calls in flight.
    drain: Mutex<()>,
    drained: parking_lot::Condvar,
}

/// One in-flight counter, on cache lines of its own.
#[repr(align(128))]
#[derive(Default)]
struct InFlightShard(AtomicU64);

/// The default timeout of a dispatcher (30 s).
pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

impl Shared {
    pub(crate) fn log(&self, level: LogLevel, msg: &str) {
        let sink = self.log.read().clone();
        if let Some(s) = sink {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s(level, msg)));
        }
    }

    /// Counts a new call; `None` (and not counted) when the dispatcher is shutting down.
    fn call_started(&self) -> Option<usize> {
        let shard = copy_index();
        self.in_flight[shard].0.fetch_add(1, Ordering::SeqCst);
        if self.shutting_down.load(Ordering::SeqCst) {
            self.call_ended(shard);
            return None;
        }
        Some(shard)
    }

    /// A call counted on `shard` has ended (its outcome delivered).
    pub(crate) fn call_ended(&self, shard: usize) {
        self.in_flight[shard].0.fetch_sub(1, Ordering::SeqCst);
        if self.shutting_down.load(Ordering::SeqCst) {
            let _g = self.drain.lock();
            self.drained.notify_all();
        }
    }

    fn in_flight(&self) -> u64 {
        self.in_flight
            .iter()
            .map(|s| s.0.load(Ordering::SeqCst))
            .sum()
    }
}

struct Inner {
    /// The registry as writers keep it.
    snap: RwLock<Arc<Snapshot>>,
    /// `snap`'s version, read by calls without taking its lock.
    version: AtomicU64,
    /// Per-thread-group copies of `snap` that calls take: each copy has a reference count
    /// and a lock of its own, so calls on different threads touch no shared cache line.
    /// Made on first use after each change (writers empty them, releasing what they held).
    copies: [CopyShard; SNAPSHOT_COPIES],
    shared: Arc<Shared>,
    /// Serialises writers (registration), so validation runs outside the snapshot lock.
    writer: Mutex<()>,
}

const SNAPSHOT_COPIES: usize = 4;

/// One copy of the snapshot, on cache lines of its own.
#[repr(align(128))]
#[derive(Default)]
struct CopyShard(RwLock<Option<Arc<Snapshot>>>);

fn copy_index() -> usize {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    thread_local! { static INDEX: usize = NEXT.fetch_add(1, Ordering::Relaxed) as usize % SNAPSHOT_COPIES; }
    INDEX.with(|i| *i)
}

/// The dispatcher. Thread-safe; cheap to clone (clones share one registry).
#[derive(Clone)]
pub struct Dispatcher {
    inner: Arc<Inner>,
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

impl Dispatcher {
    pub fn new() -> Dispatcher {
        let shared = Arc::new(Shared {
            log: RwLock::new(None),
            listeners: Mutex::new(Vec::new()),
            next_listener: AtomicU64::new(1),
            generation: AtomicU64::new(1),
            default_timeout_ms: AtomicU64::new(DEFAULT_TIMEOUT.as_millis() as u64),
            shutting_down: AtomicBool::new(false),
            in_flight: Default::default(),
            drain: Mutex::new(()),
            drained: parking_lot::Condvar::new(),
        });
        Dispatcher {
            inner: Arc::new(Inner {
                snap: RwLock::new(Arc::new(Snapshot::empty(shared.clone()))),
                version: AtomicU64::new(0),
                copies: Default::default(),
                shared,
                writer: Mutex::new(()),
            }),
        }
    }

    pub(crate) fn snapshot(&self) -> Arc<Snapshot> {
        let version = self.inner.version.load(Ordering::Acquire);
        let shard = &self.inner.copies[copy_index()].0;
        if let Some(s) = &*shard.read() {
            if s.version == version {
                return s.clone();
            }
        }
        // first use after a change: copy the writers' snapshot (entries are shared)
        let master = self.inner.snap.read().clone();
        let copy = Arc::new((*master).clone());
        let mut g = shard.write();
        if g.as_ref().is_none_or(|s| s.version < copy.version) {
            *g = Some(copy.clone());
        }
        copy
    }

    /// Applies a validated change to the registry. `check` runs against the current
    /// snapshot outside the snapshot lock; `apply` must not fail.
    fn update<T>(
        &self,
        check: impl FnOnce(&Snapshot) -> Result<T>,
        apply: impl FnOnce(&mut Snapshot, T),
        notify: bool,
    ) -> Result<()> {
        let _w = self.inner.writer.lock();
        let prepared = {
            // the writers' snapshot itself (making a call's copy here would cost a clone of
            // the registry per registration)
            let cur = self.inner.snap.read().clone();
            check(&cur)?
        };
        {
            let mut g = self.inner.snap.write();
            // clones only when calls in flight hold the current snapshot
            let s = Arc::make_mut(&mut *g);
            apply(s, prepared);
            s.version += 1;
            self.inner.version.store(s.version, Ordering::Release);
        }
        self.inner.shared.generation.fetch_add(1, Ordering::AcqRel);
        // the copies are stale now; dropping them releases what only they held
        for c in &self.inner.copies {
            let old = c.0.write().take();
            drop(old);
        }
        drop(_w);
        if notify {
            self.notify_changed();
        }
        Ok(())
    }

    fn notify_changed(&self) {
        let listeners: Vec<_> = self
            .inner
            .shared
            .listeners
            .lock()
            .iter()
            .map(|(_, f)| f.clone())
            .collect();
        for f in listeners {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f()));
        }
    }

    /// Calls `f` after every change of the registry (for `list_changed`); returns an id
    /// for [`Dispatcher::unsubscribe`].
    pub fn subscribe_changes(&self, f: ChangeListener) -> u64 {
        let id = self
            .inner
            .shared
            .next_listener
            .fetch_add(1, Ordering::Relaxed);
        self.inner.shared.listeners.lock().push((id, f));
        id
    }

    pub fn unsubscribe(&self, id: u64) {
        self.inner.shared.listeners.lock().retain(|(i, _)| *i != id);
    }

    /// A counter bumped by every registry change.
    pub fn version(&self) -> u64 {
        self.snapshot().version
    }

    /// A counter that changes with every change of the registry, enabling and disabling
    /// functions included (what views show may have changed).
    pub fn generation(&self) -> u64 {
        self.inner.shared.generation.load(Ordering::Acquire)
    }

    /// Sets the timeout of invocations that name none (default [`DEFAULT_TIMEOUT`], 30 s);
    /// `None` or zero: such calls run without a timeout. A call it ends is `TimedOut` and
    /// logged (warn) naming the function and the timeout.
    pub fn set_default_timeout(&self, timeout: Option<std::time::Duration>) {
        let ms = timeout.map_or(0, |t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
        self.inner
            .shared
            .default_timeout_ms
            .store(ms, Ordering::Release);
    }

    /// The timeout of invocations that name none; `None`: no timeout.
    pub fn default_timeout(&self) -> Option<std::time::Duration> {
        match self.inner.shared.default_timeout_ms.load(Ordering::Acquire) {
            0 => None,
            ms => Some(std::time::Duration::from_millis(ms)),
        }
    }

    /// How many calls are running now (started and their outcome not yet delivered).
    pub fn in_flight(&self) -> u64 {
        self.inner.shared.in_flight()
    }

    /// Whether [`Dispatcher::shutdown`] was called.
    pub fn is_shutting_down(&self) -> bool {
        self.inner.shared.shutting_down.load(Ordering::Acquire)
    }

    /// Refuses new calls from now on (they end at once with `LimitExceeded`, "the
    /// dispatcher is shutting down", running no host code) and waits up to `timeout` for
    /// the calls in flight. Returns how many still run (0: drained). Idempotent.
    pub fn shutdown(&self, timeout: std::time::Duration) -> u64 {
        let shared = &self.inner.shared;
        shared.shutting_down.store(true, Ordering::SeqCst);
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
    fn shutting_down_outcome(inv: &Invocation) -> Outcome {
        Outcome::error(
            crate::error::ErrorCode::LimitExceeded,
            format!(
                "{}: the dispatcher is shutting down",
                crate::types::quote_short(&inv.function_id)
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
    pub fn register_function(
        &self,
        descriptor_json: &str,
        handler: Option<Arc<dyn Handler>>,
    ) -> Result<()> {
        let doc = parse_json(descriptor_json, "descriptor")?;
        self.register_function_value(&doc, handler)
    }

    pub fn register_function_value(
        &self,
        doc: &Value,
        handler: Option<Arc<dyn Handler>>,
    ) -> Result<()> {
        let has_handler = handler.is_some();
        self.update(
            |s| {
                let cx = ParseContext {
                    metadata_properties: s.metadata_properties.as_deref(),
                    limits: s.limits,
                };
                let desc = FunctionDescriptor::parse(doc, &s.types, &cx)?;
                if s.index.contains_key(desc.id.as_str()) {
                    return Err(Error::Duplicate(format!("a function with id \"{}\" is already registered", desc.id)));
                }
                if s.toolkit(&desc.id).is_some() {
                    return Err(Error::Duplicate(format!("\"{}\" is the name of a toolkit", desc.id)));
                }
                if let Some(t) = &desc.toolkit {
                    if s.toolkit(t).is_none() {
                        return Err(Error::descriptor(
                            format!("{}.toolkit", desc.id),
                            format!("unknown toolkit \"{t}\" (define it with af_define_toolkit first)"),
                        ));
                    }
                }
                if !has_handler && desc.kind == crate::descriptor::FunctionKind::Function {
                    return Err(Error::descriptor(
                        format!("{}.kind", desc.id),
                        "a function needs a handler; only kind \"output\" may be registered without one",
                    ));
                }
                Ok(desc)
            },
            |s, desc| {
                let id: Arc<str> = Arc::from(desc.id.as_str());
                let enabled = AtomicBool::new(desc.enabled);
                s.functions.push(Arc::new(Entry::new(desc, handler, enabled)));
                s.index.insert(id, Slot::Declared(s.functions.len() - 1));
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
                if s.index.contains_key(search_id.as_str()) {
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
                s.generated.push(Arc::new(Entry::new(
                    desc,
                    Some(lookup),
                    AtomicBool::new(true),
                )));
                let i = s.generated.len() - 1;
                s.index.insert(
                    Arc::from(s.generated[i].desc.id.as_str()),
                    Slot::Generated(i),
                );
            },
            true,
        )
    }

    /// Removes a declared function. Calls in flight finish with what they hold.
    pub fn unregister_function(&self, id: &str) -> Result<()> {
        self.update(
            |s| match s.index.get(id) {
                Some(Slot::Declared(i)) => Ok(*i),
                Some(Slot::Generated(_)) => Err(Error::Invalid(format!(
                    "\"{id}\" is generated for an entity and cannot be unregistered"
                ))),
                None => Err(Error::NotFound(id.into())),
            },
            |s, i| {
                s.functions.remove(i);
                s.reindex();
            },
            true,
        )
    }

    /// Enables or disables a function at run time (a disabled one answers `Disabled`).
    pub fn set_enabled(&self, id: &str, enabled: bool) -> Result<()> {
        let entry = self
            .snapshot()
            .find(id)
            .ok_or_else(|| Error::NotFound(id.into()))?;
        if entry.enabled.swap(enabled, Ordering::AcqRel) != enabled {
            self.inner.shared.generation.fetch_add(1, Ordering::AcqRel);
            self.notify_changed();
        }
        Ok(())
    }

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

    pub fn set_scope_hooks(&self, hooks: Option<Arc<dyn ScopeHooks>>) {
        let _ = self.update(|_| Ok(()), |s, ()| s.scope_hooks = hooks, false);
    }

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
            |s| match s.index.get(id) {
                Some(Slot::Declared(i)) => Ok(*i),
                Some(Slot::Generated(_)) => Err(Error::Invalid(format!(
                    "\"{id}\" is generated; set the dispatcher's caller policy instead"
                ))),
                None => Err(Error::NotFound(id.into())),
            },
            |s, i| {
                let old = &s.functions[i];
                let mut desc = old.desc.clone();
                desc.callers = policy;
                s.functions[i] = Arc::new(Entry::new(
                    desc,
                    old.handler.clone(),
                    AtomicBool::new(old.is_enabled()),
                ));
            },
            false,
        )
    }

    pub fn set_limits(&self, limits: Limits) -> Result<()> {
        if limits.max_depth == 0 || limits.max_input_bytes == 0 {
            return Err(Error::Invalid("limits must be greater than zero".into()));
        }
        self.update(|_| Ok(()), |s, ()| s.limits = limits, false)
    }

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
        texts: Option<Arc<dyn crate::toolkit::ToolkitTexts>>,
    ) -> Result<()> {
        let doc = parse_json(json, "toolkit")?;
        self.update(
            |s| {
                let tk = crate::toolkit::parse_toolkit(&doc, texts)?;
                if s.toolkit(&tk.name).is_some() {
                    return Err(Error::Duplicate(format!(
                        "a toolkit named \"{}\" is already defined",
                        tk.name
                    )));
                }
                if s.index.contains_key(tk.name.as_str()) {
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
                        crate::condition::check_text(t, s.metadata_properties.as_deref())
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

    pub fn set_log_sink(&self, sink: Option<LogSink>) {
        *self.inner.shared.log.write() = sink;
    }

    /// Writes to the dispatcher's log sink.
    pub(crate) fn log(&self, level: LogLevel, msg: &str) {
        self.inner.shared.log(level, msg);
    }

    /// Starts a call; `sink` receives the outcome (else it is kept for `wait_outcome`).
    /// `Err` with the sink when the dispatcher is shutting down (no call is made).
    fn start(
        &self,
        inv: &Invocation,
        args: Option<&str>,
        sink: Option<OutcomeSink>,
    ) -> std::result::Result<Arc<Call>, Option<OutcomeSink>> {
        let Some(shard) = self.inner.shared.call_started() else {
            return Err(sink);
        };
        let snap = self.snapshot();
        let slot = snap.slot_of(&inv.function_id);
        let entry = slot.map(|sl| snap.entry_at(sl));
        let (kind, entity) = match entry.and_then(|e| e.desc.generated_for) {
            Some(i) => (CallKind::EntityLookup, Some(i)),
            None => (CallKind::Function, None),
        };
        // binding runs no host code, so it happens here, on the caller's borrowed text
        let bound = entry.map(|e| {
            crate::binding::bind_arguments(&snap.types, &e.desc.parameters, args, &snap.limits)
        });
        let mut call = Call::new(snap, inv, slot, bound, kind, entity, None);
        call.in_flight_shard = Some(shard);
        if inv.timeout.is_none() {
            call.timeout = self.default_timeout();
            call.timeout_is_default = true;
        }
        let call = Arc::new(call);
        call.ctl.lock().sink = sink;
        if let Some(t) = &inv.cancel {
            match t.0.subscribe(&call) {
                Some(id) => {
                    let _ = call.token_sub.set(id);
                }
                None => call.cancel(crate::error::ErrorCode::Cancelled),
            }
        }
        Ok(call)
    }

    /// When the call must end by (its timeout from its start).
    fn deadline(call: &Call) -> Option<std::time::Instant> {
        call.timeout.and_then(|t| call.started.checked_add(t))
    }

    /// Runs a call and blocks until its outcome (JSON). Never fails: every failure is an
    /// outcome.
    pub fn execute(&self, inv: &Invocation, args: Option<&str>) -> String {
        let mut json = self.execute_nul(inv, args);
        json.pop();
        json
    }

    /// [`Dispatcher::execute`] with the outcome followed by a NUL (for the C layer).
    #[doc(hidden)]
    pub fn execute_nul(&self, inv: &Invocation, args: Option<&str>) -> String {
        let Ok(call) = self.start(inv, args, None) else {
            return crate::call::with_nul(&Self::shutting_down_outcome(inv).to_json());
        };
        crate::pipeline::drive(&call, None);
        let deadline = Self::deadline(&call);
        match call.wait_outcome(deadline) {
            Some(o) => o,
            None => {
                call.cancel(crate::error::ErrorCode::TimedOut);
                call.wait_outcome(None).unwrap_or_else(|| "\0".into())
            }
        }
    }

    /// Like [`Dispatcher::execute`], as an [`Outcome`] (no JSON made unless a delegate
    /// reads it).
    pub fn execute_outcome(&self, inv: &Invocation, args: Option<&str>) -> Outcome {
        let Ok(call) = self.start(inv, args, None) else {
            return Self::shutting_down_outcome(inv);
        };
        call.ctl.lock().keep_outcome = true;
        crate::pipeline::drive(&call, None);
        let deadline = Self::deadline(&call);
        match call.wait_outcome_struct(deadline) {
            Some(o) => o,
            None => {
                call.cancel(crate::error::ErrorCode::TimedOut);
                call.wait_outcome_struct(None).unwrap_or_else(|| {
                    Outcome::error(
                        crate::error::ErrorCode::InternalError,
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
        let sink: OutcomeSink = Box::new(move |o: Outcome, json_nul: &str| {
            on_outcome(&o, crate::call::strip_nul(json_nul))
        });
        self.execute_async_sink(inv, args, sink);
    }

    /// [`Dispatcher::execute_async`] whose callback gets the outcome JSON followed by its
    /// NUL (for the C layer, which lends it without copying).
    #[doc(hidden)]
    pub fn execute_async_nul(
        &self,
        inv: &Invocation,
        args: Option<&str>,
        on_outcome: impl FnOnce(&str) + Send + 'static,
    ) {
        self.execute_async_sink(
            inv,
            args,
            Box::new(move |_o: Outcome, json_nul: &str| on_outcome(json_nul)),
        );
    }

    fn execute_async_sink(&self, inv: &Invocation, args: Option<&str>, sink: OutcomeSink) {
        let call = match self.start(inv, args, Some(sink)) {
            Ok(c) => c,
            Err(sink) => {
                // refused: the outcome goes to the sink at once, on this thread
                let o = Self::shutting_down_outcome(inv);
                let json = crate::call::with_nul(&o.to_json());
                if let Some(s) = sink {
                    s(o, &json);
                }
                return;
            }
        };
        // the deadline is on the timer before any host code runs: a handler (or gate) that
        // blocks inline, on this thread, is marked timed out at its deadline and its cancel
        // callbacks run then (they may be what stops it), not when it returns. A call that
        // finishes in time takes its deadline off again (pipeline::finish).
        if let Some(deadline) = Self::deadline(&call) {
            let target: std::sync::Weak<dyn crate::timer::Expire> = Arc::downgrade(&call) as _;
            let key = crate::timer::schedule(deadline, target);
            call.ctl.lock().timer = Some(key);
        }
        crate::pipeline::drive(&call, None);
    }

    /// The registry: declared functions, then generated ones; types; entities.
    pub fn registry_json(&self) -> String {
        let s = self.snapshot();
        let mut out = String::with_capacity(256 * (s.functions.len() + s.generated.len()) + 1024);
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

    /// Exports every enabled function as a tool list (`mcp`, `openai`, `openai-chat`,
    /// `anthropic`, `gemini`), or the registry as Android's AppFunctions schema XML
    /// (`android-xml`, disabled functions included with `enabledByDefault` false).
    pub fn export(
        &self,
        format: crate::export::Format,
    ) -> std::result::Result<String, crate::export::ExportError> {
        if format == crate::export::Format::AndroidXml {
            let mut registry = self.registry_value();
            crate::condition::render_json(&mut registry, &self.snapshot().metadata_defaults);
            return crate::export::android_xml(&registry);
        }
        let s = self.snapshot();
        // each entry renders (and keeps) its own tool object; an export joins them
        let mut out = String::from(if format == crate::export::Format::Gemini {
            "[{\"functionDeclarations\":["
        } else {
            "["
        });
        let mut first = true;
        for e in s.entries().filter(|e| e.is_enabled()) {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&e.export_fragment(&s.types, format, &s.metadata_defaults)?);
        }
        out.push_str(if format == crate::export::Format::Gemini {
            "]}]"
        } else {
            "]"
        });
        Ok(out)
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
    pub desc: FunctionDescriptor,
    pub enabled: bool,
    pub parameters_schema: Value,
    pub result_schema: Option<Value>,
}
