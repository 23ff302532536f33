//! The registry's data: entries (a registered function and what is made from it once),
//! snapshots (one consistent registry, which a call holds for its whole life), the
//! copy-on-write store that hands snapshots to calls while registration goes on, and the
//! state that outlives a dispatcher for as long as its calls run.
//!
//! It knows nothing of calls or of export formats: the host objects it keeps (handlers,
//! delegates, hooks) have the types the layer above chooses ([`Host`]), and text a layer
//! above renders once per entry is kept in the entry's [`Memo`] without the registry
//! knowing what it is. `docs/architecture.md` draws the layers.

use crate::engine::log::{LogLevel, LogSink};
use crate::engine::toolkit::Toolkit;
use crate::model::binding::Limits;
use crate::model::descriptor::{CallerPolicy, FunctionDescriptor};
use crate::model::error::Result;
use crate::model::schema;
use crate::model::types::TypeSet;
use parking_lot::{Mutex, RwLock};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The types of the host objects the registry keeps: their interfaces name calls, which
/// live in a layer above (`call::Hosted` names them).
pub trait Host: 'static {
    type Handler: ?Sized + Send + Sync;
    type Delegate: ?Sized + Send + Sync;
    type ScopeHooks: ?Sized + Send + Sync;
    type PermissionHook: ?Sized + Send + Sync;
}

/// A function's (parameters, result) JSON Schemas.
pub type Schemas = (Value, Option<Value>);

/// How many texts [`Memo`] keeps per entry.
pub(crate) const MEMO_TEXTS: usize = 8;

/// What is made once per entry and kept with it: the entry's own registry JSON, and what a
/// layer above makes (the listing's tool object in each export format) in slots the
/// registry hands out without knowing what they hold. Entries never change, so nothing
/// here is ever stale (only the enabled state does, and each state has its own slot).
#[derive(Default)]
pub(crate) struct Memo {
    /// The registry JSON of this entry, disabled and enabled.
    json: [OnceLock<String>; 2],
    pub texts: [OnceLock<String>; MEMO_TEXTS],
    pub flag: OnceLock<bool>,
    /// Anything else (of the type the layer above chooses), two slots.
    pub objects: [OnceLock<Box<dyn std::any::Any + Send + Sync>>; 2],
}

/// A registered function (declared, or generated for an entity).
pub struct Entry<H: Host> {
    pub desc: FunctionDescriptor,
    /// The id kept with its terminator ([`crate::model::terminated`]), shared by every
    /// call of this function.
    pub(crate) id_terminated: Arc<str>,
    /// The index of its toolkit in the snapshot's toolkits (toolkits are never removed,
    /// and a function names only a toolkit defined before it).
    pub(crate) toolkit: Option<usize>,
    /// The parameters and result schemas, made on first use (named types only grow, so
    /// they never change).
    schemas: OnceLock<Arc<Schemas>>,
    /// Some text the function shows (title, description, a description in its schemas)
    /// holds a `{metadata.X}` placeholder, so what it shows depends on the metadata.
    templated: OnceLock<bool>,
    /// What is made of it on first use, allocated then: an app that registers 10,000
    /// functions and exports none carries no empty slots (376 bytes each on x86_64), and
    /// registration writes less memory.
    memo: OnceLock<Box<Memo>>,
    pub(crate) handler: Option<Arc<H::Handler>>,
    enabled: AtomicBool,
}

impl<H: Host> Entry<H> {
    pub(crate) fn new(
        desc: FunctionDescriptor,
        handler: Option<Arc<H::Handler>>,
        enabled: bool,
        toolkit: Option<usize>,
    ) -> Entry<H> {
        Entry {
            id_terminated: crate::model::terminated::terminated_arc(&desc.id),
            toolkit,
            schemas: OnceLock::new(),
            templated: OnceLock::new(),
            memo: OnceLock::new(),
            desc,
            handler,
            enabled: AtomicBool::new(enabled),
        }
    }

    /// The entry's [`Memo`] (allocated on first use).
    pub(crate) fn memo(&self) -> &Memo {
        self.memo.get_or_init(Default::default)
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }

    /// Enables or disables the entry; `true` when that changed it.
    pub(crate) fn set_enabled(&self, enabled: bool) -> bool {
        self.enabled.swap(enabled, Ordering::AcqRel) != enabled
    }

    /// The entry's registry JSON (made once per enabled state).
    pub(crate) fn json(&self, types: &TypeSet) -> &str {
        let enabled = self.is_enabled();
        self.memo().json[usize::from(enabled)].get_or_init(|| {
            serde_json::to_string(&self.desc.to_json(types, enabled)).unwrap_or_default()
        })
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

    /// Whether what the function shows depends on the metadata (made once).
    pub(crate) fn templated(&self, types: &TypeSet) -> bool {
        *self.templated.get_or_init(|| {
            let text = |t: &Option<String>| t.as_deref().is_some_and(|t| t.contains("{metadata."));
            let sch = self.schemas(types);
            text(&self.desc.title)
                || text(&self.desc.description)
                || crate::model::condition::json_has_placeholders(&sch.0)
                || sch
                    .1
                    .as_ref()
                    .is_some_and(crate::model::condition::json_has_placeholders)
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
        crate::model::condition::render_json(&mut p, metadata);
        if let Some(r) = &mut r {
            crate::model::condition::render_json(r, metadata);
        }
        Arc::new((p, r))
    }
}

/// The function index's hash: a multiply-rotate over the id's words (FxHash). Every call
/// looks its function up, and SipHash's keying buys nothing here: the table's keys are
/// the ids the app registers, so whoever chooses the id looked up cannot crowd them.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        // the last 0 to 7 bytes, little-endian, made in a register (a copy into an array
        // would call memcpy and read back what it has just written)
        let rest = chunks.remainder();
        let tail = rest
            .iter()
            .rev()
            .fold(0u64, |t, &b| (t << 8) | u64::from(b));
        self.0 = (self.0.rotate_left(5) ^ tail ^ rest.len() as u64).wrapping_mul(K);
    }
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type IdIndex = HashMap<IdKey, Slot, std::hash::BuildHasherDefault<IdHasher>>;

/// A key of the function index: the entry's own terminated id ([`Entry::id_terminated`],
/// shared, so a registration allocates no second copy of the id), hashed and compared as
/// its text, which is what a look-up by `&str` finds it by.
#[derive(Clone)]
struct IdKey(Arc<str>);

impl IdKey {
    fn of<H: Host>(e: &Entry<H>) -> IdKey {
        IdKey(e.id_terminated.clone())
    }

    fn text(&self) -> &str {
        crate::model::terminated::unterminated(&self.0)
    }
}

impl std::borrow::Borrow<str> for IdKey {
    fn borrow(&self) -> &str {
        self.text()
    }
}

impl std::hash::Hash for IdKey {
    fn hash<S: std::hash::Hasher>(&self, state: &mut S) {
        self.text().hash(state)
    }
}

impl PartialEq for IdKey {
    fn eq(&self, other: &IdKey) -> bool {
        self.text() == other.text()
    }
}

impl Eq for IdKey {}

/// Where an entry sits in its snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Declared(usize),
    Generated(usize),
}

/// One consistent view of the registry. Calls hold one for their whole life.
pub(crate) struct Snapshot<H: Host> {
    pub types: Arc<TypeSet>,
    functions: Vec<Arc<Entry<H>>>,
    /// Per entity (by entity index), its `search_{entity}`.
    generated: Vec<Arc<Entry<H>>>,
    index: IdIndex,
    pub delegates: Arc<[Arc<H::Delegate>]>,
    pub scope_hooks: Option<Arc<H::ScopeHooks>>,
    pub permission: Option<Arc<H::PermissionHook>>,
    pub callers: CallerPolicy,
    pub limits: Limits,
    pub metadata_properties: Option<Arc<[String]>>,
    /// The `default` of each property of the metadata schema that has one (an object):
    /// what placeholders render to outside views, and where a view's metadata lacks them.
    pub metadata_defaults: Arc<Value>,
    pub toolkits: Vec<Arc<Toolkit>>,
    pub version: u64,
    /// The dispatcher's log sink and listeners (the same for every snapshot).
    pub shared: Arc<Shared>,
}

impl<H: Host> Clone for Snapshot<H> {
    fn clone(&self) -> Self {
        Snapshot {
            types: self.types.clone(),
            functions: self.functions.clone(),
            generated: self.generated.clone(),
            index: self.index.clone(),
            delegates: self.delegates.clone(),
            scope_hooks: self.scope_hooks.clone(),
            permission: self.permission.clone(),
            callers: self.callers.clone(),
            limits: self.limits,
            metadata_properties: self.metadata_properties.clone(),
            metadata_defaults: self.metadata_defaults.clone(),
            toolkits: self.toolkits.clone(),
            version: self.version,
            shared: self.shared.clone(),
        }
    }
}

impl<H: Host> Snapshot<H> {
    fn empty(shared: Arc<Shared>) -> Snapshot<H> {
        Snapshot {
            shared,
            types: Arc::new(TypeSet::default()),
            functions: Vec::new(),
            generated: Vec::new(),
            index: IdIndex::default(),
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

    /// Whether `id` names a function (declared or generated).
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.index.contains_key(id)
    }

    /// The entry at a slot of this snapshot.
    pub(crate) fn entry_at(&self, slot: Slot) -> &Arc<Entry<H>> {
        match slot {
            Slot::Declared(i) => &self.functions[i],
            Slot::Generated(i) => &self.generated[i],
        }
    }

    pub fn find(&self, id: &str) -> Option<Arc<Entry<H>>> {
        self.slot_of(id).map(|s| self.entry_at(s).clone())
    }

    pub fn toolkit(&self, name: &str) -> Option<&Toolkit> {
        self.toolkits.iter().find(|t| t.name == name).map(|t| &**t)
    }

    /// The index of the toolkit `name` in [`Snapshot::toolkits`].
    pub(crate) fn toolkit_index(&self, name: &str) -> Option<usize> {
        self.toolkits.iter().position(|t| t.name == name)
    }

    /// The toolkit of an entry of this snapshot.
    pub(crate) fn toolkit_of(&self, e: &Entry<H>) -> Option<&Toolkit> {
        e.toolkit.and_then(|i| self.toolkits.get(i)).map(|t| &**t)
    }

    /// Where the `search_{entity}` of an entity sits.
    pub(crate) fn search_slot(&self, entity: usize) -> Option<Slot> {
        (entity < self.generated.len()).then_some(Slot::Generated(entity))
    }

    /// Declared functions in registration order, then the generated ones.
    pub fn entries(&self) -> impl Iterator<Item = &Arc<Entry<H>>> {
        self.functions.iter().chain(self.generated.iter())
    }

    /// How many functions there are (declared and generated).
    pub fn len(&self) -> usize {
        self.functions.len() + self.generated.len()
    }

    pub fn not_found_message(&self, id: &str) -> String {
        let hint = if self.index.len() <= 2000 {
            crate::model::types::closest(self.index.keys().map(IdKey::text), id)
                .map(|c| format!(" (did you mean \"{c}\"?)"))
                .unwrap_or_default()
        } else {
            String::new()
        };
        format!(
            "no function named {}{hint}",
            crate::model::types::quote_short(id)
        )
    }

    pub fn result_limits(&self) -> Limits {
        Limits {
            max_input_bytes: usize::MAX,
            max_depth: self.limits.max_depth,
        }
    }

    /// Adds a declared function (its id is not registered yet).
    pub(crate) fn push_function(&mut self, e: Entry<H>) {
        self.index
            .insert(IdKey::of(&e), Slot::Declared(self.functions.len()));
        self.functions.push(Arc::new(e));
    }

    /// Adds the `search_{entity}` of the entity just added to `types`.
    pub(crate) fn push_generated(&mut self, e: Entry<H>) {
        self.index
            .insert(IdKey::of(&e), Slot::Generated(self.generated.len()));
        self.generated.push(Arc::new(e));
    }

    /// The declared function at `i`.
    pub(crate) fn function(&self, i: usize) -> &Arc<Entry<H>> {
        &self.functions[i]
    }

    /// Replaces the declared function at `i` (same id).
    pub(crate) fn replace_function(&mut self, i: usize, e: Entry<H>) {
        self.functions[i] = Arc::new(e);
    }

    /// Removes the declared function at `i`.
    pub(crate) fn remove_function(&mut self, i: usize) {
        self.functions.remove(i);
        self.index.clear();
        for (i, e) in self.functions.iter().enumerate() {
            self.index.insert(IdKey::of(e), Slot::Declared(i));
        }
        for (i, e) in self.generated.iter().enumerate() {
            self.index.insert(IdKey::of(e), Slot::Generated(i));
        }
    }
}

/// Called after every change of the registry.
pub type ChangeListener = Arc<dyn Fn() + Send + Sync>;

/// The default timeout of a dispatcher (30 s).
pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// What outlives a dispatcher for as long as its calls run.
pub struct Shared {
    log: RwLock<Option<LogSink>>,
    /// Extra readers of the log (the debug page's feed), besides the host's sink.
    log_taps: RwLock<Vec<(u64, LogSink)>>,
    listeners: Mutex<Vec<(u64, ChangeListener)>>,
    next_listener: AtomicU64,
    /// Bumped by every change of the registry (registration, enabling, hooks, ...).
    pub(crate) generation: AtomicU64,
    /// The timeout of invocations that name none, in milliseconds; 0: none.
    pub(crate) default_timeout_ms: AtomicU64,
    /// `shutdown` was called: new calls end at once with `LimitExceeded`.
    pub(crate) shutting_down: AtomicBool,
    /// Calls started and not yet ended, per thread group (a call ends on the shard it
    /// started on, so each shard is exact and never negative).
    in_flight: [InFlightShard; SNAPSHOT_COPIES],
    /// `shutdown` waits here for the calls in flight.
    pub(crate) drain: Mutex<()>,
    pub(crate) drained: parking_lot::Condvar,
    /// The plain form of `{metadata.X}` (no metadata schema): the names the registry's
    /// texts use, as of a generation, and the names already logged as unset in a view.
    pub(crate) plain_placeholders: Mutex<(u64, Arc<[String]>)>,
    pub(crate) unset_placeholders_logged: Mutex<std::collections::HashSet<String>>,
    /// This dispatcher's completion threads: the rest of its timed-out and cancelled calls
    /// (its own, so another dispatcher's blocked callbacks never delay them).
    pub(crate) completions: crate::engine::threads::Pool,
}

/// One in-flight counter, on cache lines of its own.
#[repr(align(128))]
#[derive(Default)]
struct InFlightShard(AtomicU64);

impl Shared {
    fn new() -> Shared {
        Shared {
            log: RwLock::new(None),
            log_taps: RwLock::new(Vec::new()),
            listeners: Mutex::new(Vec::new()),
            next_listener: AtomicU64::new(1),
            generation: AtomicU64::new(1),
            default_timeout_ms: AtomicU64::new(DEFAULT_TIMEOUT.as_millis() as u64),
            shutting_down: AtomicBool::new(false),
            in_flight: Default::default(),
            drain: Mutex::new(()),
            drained: parking_lot::Condvar::new(),
            plain_placeholders: Mutex::new((0, Arc::from(Vec::new()))),
            unset_placeholders_logged: Mutex::new(Default::default()),
            completions: crate::engine::threads::Pool::completions(),
        }
    }

    pub(crate) fn log(&self, level: LogLevel, msg: &str) {
        let sink = self.log.read().clone();
        if let Some(s) = sink {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s(level, msg)));
        }
        let taps = self.log_taps.read();
        for (_, t) in taps.iter() {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| t(level, msg)));
        }
    }

    pub(crate) fn add_log_tap(&self, id: u64, tap: LogSink) {
        self.log_taps.write().push((id, tap));
    }

    pub(crate) fn remove_log_tap(&self, id: u64) {
        self.log_taps.write().retain(|(i, _)| *i != id);
    }

    pub(crate) fn set_log_sink(&self, sink: Option<LogSink>) {
        *self.log.write() = sink;
    }

    /// Counts a new call; `None` (and not counted) when the dispatcher is shutting down.
    pub(crate) fn call_started(&self) -> Option<usize> {
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

    pub(crate) fn in_flight(&self) -> u64 {
        self.in_flight
            .iter()
            .map(|s| s.0.load(Ordering::SeqCst))
            .sum()
    }

    /// Calls `f` after every change of the registry; returns an id for `unsubscribe`.
    pub(crate) fn subscribe(&self, f: ChangeListener) -> u64 {
        let id = self.next_listener.fetch_add(1, Ordering::Relaxed);
        self.listeners.lock().push((id, f));
        id
    }

    pub(crate) fn unsubscribe(&self, id: u64) {
        self.listeners.lock().retain(|(i, _)| *i != id);
    }

    /// Runs every change listener (with no lock held).
    pub(crate) fn notify_changed(&self) {
        let listeners: Vec<_> = self
            .listeners
            .lock()
            .iter()
            .map(|(_, f)| f.clone())
            .collect();
        for f in listeners {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f()));
        }
    }
}

/// The registry as writers keep it and calls take it.
pub(crate) struct Registry<H: Host> {
    /// The registry as writers keep it.
    snap: RwLock<Arc<Snapshot<H>>>,
    /// `snap`'s version, read by calls without taking its lock.
    version: AtomicU64,
    /// Per-thread-group copies of `snap` that calls take: each copy has a reference count
    /// and a lock of its own, so calls on different threads touch no shared cache line.
    /// Made on first use after each change (writers empty them, releasing what they held).
    copies: [CopyShard<H>; SNAPSHOT_COPIES],
    pub shared: Arc<Shared>,
    /// Serialises writers (registration), so validation runs outside the snapshot lock.
    writer: Mutex<()>,
    /// Names this registry in the threads' memory of the snapshot they took last (never
    /// reused, unlike an address).
    id: u64,
}

/// The snapshot this thread took last: its registry, its version, and a weak reference
/// (what the copy shard holds stays the copy's: a writer that empties the shards releases
/// it, and the weak reference then answers nothing).
type LastSnapshot = (
    u64,
    u64,
    Option<std::sync::Weak<dyn std::any::Any + Send + Sync>>,
);

thread_local! {
    static LAST_SNAPSHOT: std::cell::RefCell<LastSnapshot> = const { std::cell::RefCell::new((0, 0, None)) };
}

const SNAPSHOT_COPIES: usize = 4;

/// One copy of the snapshot, on cache lines of its own.
#[repr(align(128))]
struct CopyShard<H: Host>(RwLock<Option<Arc<Snapshot<H>>>>);

impl<H: Host> Default for CopyShard<H> {
    fn default() -> Self {
        CopyShard(RwLock::new(None))
    }
}

fn copy_index() -> usize {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    thread_local! { static INDEX: usize = NEXT.fetch_add(1, Ordering::Relaxed) as usize % SNAPSHOT_COPIES; }
    INDEX.with(|i| *i)
}

impl<H: Host> Registry<H> {
    pub(crate) fn new() -> Registry<H> {
        let shared = Arc::new(Shared::new());
        Registry {
            snap: RwLock::new(Arc::new(Snapshot::empty(shared.clone()))),
            version: AtomicU64::new(0),
            copies: Default::default(),
            shared,
            writer: Mutex::new(()),
            id: {
                static NEXT: AtomicU64 = AtomicU64::new(1);
                NEXT.fetch_add(1, Ordering::Relaxed)
            },
        }
    }

    /// The current snapshot (this thread group's copy of it). A thread that took the
    /// current one last time takes it again through its weak reference: one reference
    /// count, no lock.
    pub(crate) fn snapshot(&self) -> Arc<Snapshot<H>> {
        let version = self.version.load(Ordering::Acquire);
        let again = LAST_SNAPSHOT
            .try_with(|last| {
                let last = last.borrow();
                if last.0 == self.id && last.1 == version {
                    last.2.as_ref().and_then(std::sync::Weak::upgrade)
                } else {
                    None
                }
            })
            .ok()
            .flatten()
            .and_then(|s| s.downcast::<Snapshot<H>>().ok());
        if let Some(s) = again {
            return s;
        }
        let s = self.snapshot_copy(version);
        let weak = Arc::downgrade(&s) as std::sync::Weak<dyn std::any::Any + Send + Sync>;
        let _ =
            LAST_SNAPSHOT.try_with(|last| *last.borrow_mut() = (self.id, s.version, Some(weak)));
        s
    }

    /// This thread group's copy of the snapshot (made when the registry changed since).
    fn snapshot_copy(&self, version: u64) -> Arc<Snapshot<H>> {
        let shard = &self.copies[copy_index()].0;
        if let Some(s) = &*shard.read() {
            if s.version == version {
                return s.clone();
            }
        }
        // first use after a change: copy the writers' snapshot (entries are shared)
        let master = self.snap.read().clone();
        let copy = Arc::new((*master).clone());
        let mut g = shard.write();
        if g.as_ref().is_none_or(|s| s.version < copy.version) {
            *g = Some(copy.clone());
        }
        copy
    }

    /// Applies a validated change. `check` runs against the current snapshot outside the
    /// snapshot lock; `apply` must not fail. With `notify`, the change listeners run.
    pub(crate) fn update<T>(
        &self,
        check: impl FnOnce(&Snapshot<H>) -> Result<T>,
        apply: impl FnOnce(&mut Snapshot<H>, T),
        notify: bool,
    ) -> Result<()> {
        let w = self.writer.lock();
        let prepared = {
            // the writers' snapshot itself (making a call's copy here would cost a clone of
            // the registry per registration)
            let cur = self.snap.read().clone();
            check(&cur)?
        };
        {
            let mut g = self.snap.write();
            // clones only when calls in flight hold the current snapshot
            let s = Arc::make_mut(&mut *g);
            apply(s, prepared);
            s.version += 1;
            self.version.store(s.version, Ordering::Release);
        }
        self.shared.generation.fetch_add(1, Ordering::AcqRel);
        // the copies are stale now; dropping them releases what only they held
        for c in &self.copies {
            let old = c.0.write().take();
            drop(old);
        }
        drop(w);
        if notify {
            self.shared.notify_changed();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::descriptor::ParseContext;

    struct TestHost;
    impl Host for TestHost {
        type Handler = ();
        type Delegate = ();
        type ScopeHooks = ();
        type PermissionHook = ();
    }

    fn entry(types: &TypeSet) -> Entry<TestHost> {
        let doc = serde_json::json!({
            "id": "add_note",
            "description": "Adds a note.",
            "parameters": [{"name": "text", "type": "string"}],
            "result": "string"
        });
        let cx = ParseContext {
            metadata_properties: None,
            limits: Limits::default(),
        };
        Entry::new(
            FunctionDescriptor::parse(&doc, types, &cx).unwrap(),
            None,
            true,
            None,
        )
    }

    #[test]
    fn an_entry_allocates_what_is_made_of_it_on_first_use_only() {
        // what registering carries per function (392 bytes here, 400 with the bindings'
        // handler type, on x86_64): the memo's slots inline (ten texts, a flag, two
        // objects: 376 bytes) would nearly double it
        assert!(
            std::mem::size_of::<Entry<TestHost>>() <= 400,
            "an entry is {} bytes",
            std::mem::size_of::<Entry<TestHost>>()
        );
        let types = TypeSet::default();
        let e = entry(&types);
        assert!(e.memo.get().is_none(), "registration made the memo");
        let json = e.json(&types).to_owned();
        assert!(json.contains("\"add_note\""), "{json}");
        assert!(e.memo.get().is_some());
        // made once: the same text, from the same slot
        assert!(std::ptr::eq(e.json(&types), e.json(&types)));
        assert!(e.set_enabled(false));
        assert_ne!(e.json(&types), json, "the disabled entry's JSON is its own");
    }

    #[test]
    fn the_index_finds_a_function_by_its_text_through_the_entrys_own_id() {
        let types = TypeSet::default();
        let mut s = Snapshot::<TestHost>::empty(Arc::new(Shared::new()));
        s.push_function(entry(&types));
        // the key is the entry's terminated id, shared: no copy of it
        let e = s.find("add_note").expect("found by its text");
        assert_eq!(
            Arc::strong_count(&e.id_terminated),
            2,
            "the entry and its key"
        );
        assert_eq!(s.slot_of("add_note"), Some(Slot::Declared(0)));
        assert!(s.contains("add_note"));
        assert!(!s.contains("add_note\0") && !s.contains("add_not"));
        assert_eq!(
            s.not_found_message("add_nte"),
            "no function named \"add_nte\" (did you mean \"add_note\"?)"
        );
        s.remove_function(0);
        assert!(!s.contains("add_note"));
    }
}
