//! The per-call scope: what a delegate, a handler or a lookup can read and set during one
//! call, and the completions through which the host answers (now or later, from any
//! thread).

use crate::cancel::CancelToken;
use crate::error::ErrorCode;
use crate::handles;
use crate::log::LogLevel;
use crate::outcome::Outcome;
use crate::registry::{self, Shared, Slot};
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Runs a function (or an entity lookup). Complete the call exactly once, now or later
/// from any thread, with [`Call::complete`] (keep a clone of the `Arc` to answer later).
/// A call its handler neither answers nor keeps does not vanish: it waits, like any
/// unanswered call, until its timeout (the dispatcher's default one included), its
/// cancellation token or a shutdown ends it.
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
    F: Fn(&Arc<Call>) -> HandlerResult + Send + Sync + 'static,
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
        self.on_invoked(call, outcome, strip_nul(json_nul));
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

/// The host objects the registry keeps for calls: the traits above.
pub(crate) enum Hosted {}

impl registry::Host for Hosted {
    type Handler = dyn Handler;
    type Delegate = dyn Delegate;
    type ScopeHooks = dyn ScopeHooks;
    type PermissionHook = dyn PermissionHook;
}

/// A registered function, as calls see it.
pub(crate) type Entry = registry::Entry<Hosted>;
/// One consistent registry, as calls hold it.
pub(crate) type Snapshot = registry::Snapshot<Hosted>;

/// Where the call comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(i32)]
pub enum Platform {
    /// An in-process call (a test, an in-app assistant, MCP).
    #[default]
    Other = 0,
    /// Siri, Shortcuts, Spotlight (App Intents).
    Apple = 1,
    /// Gemini and other callers through Android AppFunctions.
    Android = 2,
}

impl Platform {
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Other => "other",
            Platform::Apple => "apple",
            Platform::Android => "android",
        }
    }
    pub fn from_i32(v: i32) -> Option<Platform> {
        match v {
            0 => Some(Platform::Other),
            1 => Some(Platform::Apple),
            2 => Some(Platform::Android),
            _ => None,
        }
    }
}

/// A request to run a function.
#[derive(Clone, Debug, Default)]
pub struct Invocation {
    pub function_id: String,
    pub platform: Platform,
    /// apple: the app is in the foreground for this run.
    pub is_foreground: bool,
    /// android: the calling agent's package ("" in-process or from the shell).
    pub caller_package: String,
    pub cancel: Option<CancelTokenRef>,
    /// Ends the call `TimedOut` when it has not finished in time. `None`: the
    /// dispatcher's default timeout ([`crate::Dispatcher::set_default_timeout`]);
    /// [`Invocation::NO_TIMEOUT`]: no timeout at all.
    pub timeout: Option<std::time::Duration>,
    /// A host value the call carries, never read by the library: the C ABI's
    /// `af_invocation.host_context`, read back with [`Call::invocation_context`] (also
    /// from the call's entity lookups). 0: none.
    pub host_context: usize,
}

/// A cancellation token carried by an invocation.
#[derive(Clone, Default)]
pub struct CancelTokenRef(pub CancelToken);

impl std::fmt::Debug for CancelTokenRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CancelToken(cancelled: {})", self.0.is_cancelled())
    }
}

/// An invocation borrowed for the making of a call (the C layer makes one from its
/// arguments without copying them).
#[derive(Clone, Copy)]
pub(crate) struct InvocationRef<'a> {
    pub function_id: &'a str,
    pub platform: Platform,
    pub is_foreground: bool,
    pub caller_package: &'a str,
    pub cancel: Option<&'a CancelToken>,
    pub timeout: Option<std::time::Duration>,
    pub host_context: usize,
}

impl Invocation {
    pub(crate) fn as_ref(&self) -> InvocationRef<'_> {
        InvocationRef {
            function_id: &self.function_id,
            platform: self.platform,
            is_foreground: self.is_foreground,
            caller_package: &self.caller_package,
            cancel: self.cancel.as_ref().map(|t| &t.0),
            timeout: self.timeout,
            host_context: self.host_context,
        }
    }

    /// A timeout that never elapses: the call runs without one, whatever the dispatcher's
    /// default.
    pub const NO_TIMEOUT: std::time::Duration = std::time::Duration::MAX;

    pub fn new(function_id: impl Into<String>) -> Invocation {
        Invocation {
            function_id: function_id.into(),
            ..Default::default()
        }
    }
    pub fn platform(mut self, p: Platform) -> Self {
        self.platform = p;
        self
    }
    pub fn foreground(mut self, f: bool) -> Self {
        self.is_foreground = f;
        self
    }
    pub fn caller(mut self, package: impl Into<String>) -> Self {
        self.caller_package = package.into();
        self
    }
    pub fn cancel_token(mut self, t: &CancelToken) -> Self {
        self.cancel = Some(CancelTokenRef(t.clone()));
        self
    }
    /// Ends the call `TimedOut` after `d` ([`Invocation::NO_TIMEOUT`]: never).
    pub fn timeout(mut self, d: std::time::Duration) -> Self {
        self.timeout = Some(d);
        self
    }
    /// Runs the call without a timeout, whatever the dispatcher's default.
    pub fn no_timeout(self) -> Self {
        self.timeout(Self::NO_TIMEOUT)
    }
    /// A host value the call carries ([`Invocation::host_context`]).
    pub fn host_context(mut self, context: usize) -> Self {
        self.host_context = context;
        self
    }
}

/// A function call, or an entity lookup (which goes through the delegates too, with no
/// request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum CallKind {
    Function = 0,
    EntityLookup = 1,
}

/// A delegate's (or the permission hook's) answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateDecision {
    Allow,
    Deny(String),
    OpenApp(String),
}

/// What a handler (or lookup) reports.
pub type HandlerResult = Result<Option<String>, (ErrorCode, String)>;

/// Why a completion was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompleteError {
    #[error("the call to {0} has already been completed or has ended; this completion is ignored")]
    AlreadyCompleted(String),
    #[error("the call to {0} is not waiting for a {1} now")]
    NotWaiting(String, &'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Gate,
    Handler,
    Lookup,
}

pub(crate) enum Completion {
    Gate(GateDecision),
    Handler(HandlerResult),
    Lookup(Outcome),
    Abort(ErrorCode),
}

pub(crate) struct Wait {
    pub seq: u32,
    pub op: Op,
    /// The host callback that started the wait has not returned yet.
    pub inline: bool,
}

/// Receives the outcome and its JSON followed by a NUL (`'\0'`-terminated).
pub(crate) type OutcomeSink = Box<dyn FnOnce(Outcome, &str) + Send>;

/// Where a call's pipeline is (`pipeline` moves it on).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Stage {
    #[default]
    Begin,
    Find,
    Bind,
    Resolve(usize),
    Gates(usize),
    OpensApp,
    Permission,
    Handler,
    Done,
}

/// The ids of one entity to resolve before the handler runs.
pub(crate) struct Resolution {
    pub entity: usize,
    pub ids: Vec<String>,
    /// id → the entity's JSON, filled by the lookup.
    pub found: Vec<(String, String)>,
}

pub(crate) struct Ctl {
    pub stage: Stage,
    pub wait: Option<Wait>,
    pub inline_result: Option<Completion>,
    pub seq: u32,
    pub finished: bool,
    pub outcome_json: Option<String>,
    pub sink: Option<OutcomeSink>,
    pub child: Option<Arc<Call>>,
    pub bound: Option<crate::binding::Bound>,
    pub resolve: Vec<Resolution>,
    pub began: bool,
    /// The outcome sink reads the JSON (false for lookups serving a call).
    pub sink_wants_json: bool,
    /// A synchronous waiter wants the outcome itself, not its JSON.
    pub keep_outcome: bool,
    pub outcome: Option<Outcome>,
    /// The call's deadline on the timer, forgotten when the call finishes.
    pub timer: Option<crate::timer::Key>,
    /// The call itself while it waits for a later host answer: a host (a Rust handler
    /// above all) may let go of every reference it got, and the call must still end
    /// (timed out, cancelled, drained) rather than vanish without an outcome. Taken when
    /// the answer arrives, the wait is abandoned, or the call finishes.
    pub parked: Option<Arc<Call>>,
}

impl Default for Ctl {
    fn default() -> Self {
        Ctl {
            stage: Default::default(),
            wait: None,
            inline_result: None,
            seq: 0,
            finished: false,
            outcome_json: None,
            sink: None,
            child: None,
            bound: None,
            resolve: Vec::new(),
            began: false,
            sink_wants_json: true,
            keep_outcome: false,
            outcome: None,
            timer: None,
            parked: None,
        }
    }
}

/// One call's scope. Valid from scope begin to scope end; accessors used after that
/// answer as if empty.
pub struct Call {
    pub(crate) snap: Arc<Snapshot>,
    /// The id as called, for a function that is not registered (else the entry's).
    function_id: Option<Arc<str>>,
    pub(crate) platform: Platform,
    pub(crate) foreground: bool,
    pub(crate) caller_package: std::borrow::Cow<'static, str>,
    pub(crate) kind: CallKind,
    /// The function's place in `snap` (no reference count is touched per call).
    entry_slot: Option<Slot>,
    /// Arguments bound when the call was made (binding runs no host code, so it needs
    /// no scope), published at the Bind stage.
    pub(crate) pre_bound: Mutex<Option<Result<crate::binding::Bound, crate::binding::BindError>>>,
    /// The arguments, bound when the call was made and final (no entity to resolve),
    /// followed by a NUL: shown from the Bind stage on (`args_ready`).
    pub(crate) args_fixed: Option<String>,
    pub(crate) args_ready: std::sync::atomic::AtomicBool,
    /// The arguments once their entities are resolved, followed by a NUL.
    pub(crate) args: OnceLock<String>,
    pub(crate) lookup_request: OnceLock<String>,
    pub(crate) entity: Option<usize>,
    items: Mutex<Vec<(Box<str>, Box<str>)>>,
    dialog: Mutex<Option<String>>,
    /// `say` was called (the dialog is read without its lock otherwise).
    has_dialog: std::sync::atomic::AtomicBool,
    host_data: AtomicUsize,
    /// Released (dropped) when the host data is replaced or the call ends.
    host_data_guard: Mutex<HostDataGuard>,
    cancel_code: AtomicU8,
    cancel_callbacks: Mutex<CancelCallbacks>,
    /// A host release was ever attached (host data with a release, a cancel callback):
    /// the end of the call takes the two locks above only then (the common call has none).
    has_releases: std::sync::atomic::AtomicBool,
    pub(crate) ctl: Mutex<Ctl>,
    pub(crate) done: Condvar,
    /// The handle passed through C: 0 until first asked for, `usize::MAX` when the handle
    /// table is exhausted.
    handle: AtomicUsize,
    pub(crate) parent: Option<Arc<Call>>,
    pub(crate) token: Option<CancelToken>,
    pub(crate) token_sub: OnceLock<u64>,
    /// The timeout in force (the invocation's, or the dispatcher's default).
    pub(crate) timeout: Option<std::time::Duration>,
    /// `timeout` is the dispatcher's default (for the log line).
    pub(crate) timeout_is_default: bool,
    /// The in-flight shard this call counts in (`None`: not counted, e.g. a lookup).
    pub(crate) in_flight_shard: Option<usize>,
    pub(crate) started: Instant,
    /// The invocation's host value (a lookup's is its call's).
    host_context: usize,
}

/// Something released when dropped (a host's release callback for its data).
pub type Release = Box<dyn Send>;

#[derive(Default)]
struct HostDataGuard {
    guard: Option<Release>,
    /// The call has ended: data set from now on is released at once.
    closed: bool,
}

/// The cancel callbacks of a call.
#[derive(Default)]
struct CancelCallbacks {
    next: u64,
    list: Vec<(u64, Box<dyn FnOnce() + Send>)>,
    /// Ids of the callbacks running now (taken from `list` by a cancellation).
    running: Vec<u64>,
    /// The call has ended: callbacks registered from now on are dropped at once.
    closed: bool,
}

/// What [`Call::on_cancel`] did with the callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnCancel {
    /// Registered with this id (for [`Call::remove_on_cancel`]).
    Registered(u64),
    /// The call was cancelled already: the callback ran (and was dropped) at once.
    RanNow(u64),
    /// The call has ended without cancellation: the callback was dropped unrun.
    Ended,
}

impl Call {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        snap: Arc<Snapshot>,
        inv: &InvocationRef<'_>,
        entry: Option<Slot>,
        bound: Option<Result<crate::binding::Bound, crate::binding::BindError>>,
        kind: CallKind,
        entity: Option<usize>,
        parent: Option<Arc<Call>>,
    ) -> Call {
        // arguments with no entity to resolve are final now; the rest waits for the
        // Bind stage (an error, or entities to look up)
        let (args_fixed, pre_bound) = match bound {
            Some(Ok(b)) if b.entity_refs.is_empty() && kind == CallKind::Function => {
                let mut json = b.json;
                json.push('\0');
                (Some(json), None)
            }
            other => (None, other),
        };
        Call {
            snap,
            function_id: match entry {
                Some(_) => None,
                None => Some(with_nul(inv.function_id).into()),
            },
            platform: inv.platform,
            foreground: inv.is_foreground,
            caller_package: if inv.caller_package.is_empty() {
                std::borrow::Cow::Borrowed("\0")
            } else {
                std::borrow::Cow::Owned(with_nul(inv.caller_package))
            },
            kind,
            entry_slot: entry,
            pre_bound: Mutex::new(pre_bound),
            args_fixed,
            args_ready: std::sync::atomic::AtomicBool::new(false),
            args: OnceLock::new(),
            lookup_request: OnceLock::new(),
            entity,
            items: Mutex::new(Vec::new()),
            dialog: Mutex::new(None),
            has_dialog: std::sync::atomic::AtomicBool::new(false),
            host_data: AtomicUsize::new(0),
            host_data_guard: Mutex::new(HostDataGuard::default()),
            cancel_code: AtomicU8::new(0),
            cancel_callbacks: Mutex::new(CancelCallbacks::default()),
            has_releases: std::sync::atomic::AtomicBool::new(false),
            ctl: Mutex::new(Ctl::default()),
            done: Condvar::new(),
            handle: AtomicUsize::new(0),
            parent,
            token: inv.cancel.cloned(),
            token_sub: OnceLock::new(),
            timeout: inv.timeout.filter(|t| *t != Invocation::NO_TIMEOUT),
            timeout_is_default: false,
            in_flight_shard: None,
            started: Instant::now(),
            host_context: inv.host_context,
        }
    }

    /// A lookup serving `parent`: resolves ids of `entity` through `search`.
    pub(crate) fn new_lookup(
        parent: &Arc<Call>,
        search: Slot,
        entity: usize,
        request: String,
    ) -> Call {
        let inv = InvocationRef {
            function_id: "",
            platform: parent.platform,
            is_foreground: parent.foreground,
            caller_package: "",
            cancel: None,
            timeout: None,
            host_context: parent.host_context,
        };
        let mut c = Call::new(
            parent.snap.clone(),
            &inv,
            Some(search),
            None,
            CallKind::EntityLookup,
            Some(entity),
            Some(parent.clone()),
        );
        c.caller_package = parent.caller_package.clone();
        let _ = c.lookup_request.set(request);
        c
    }

    /// The function's id (for a lookup, the generated `search_{entity}` id).
    pub fn function_id(&self) -> &str {
        strip_nul(self.function_id_nul())
    }

    /// The function's registry entry (borrowed from the call's snapshot).
    pub(crate) fn entry(&self) -> Option<&Arc<Entry>> {
        self.entry_slot.map(|s| self.snap.entry_at(s))
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.snap.shared
    }
    pub fn platform(&self) -> Platform {
        self.platform
    }
    pub fn is_foreground(&self) -> bool {
        self.foreground
    }
    /// The calling package ("" in-process).
    pub fn caller_package(&self) -> &str {
        strip_nul(&self.caller_package)
    }
    pub fn kind(&self) -> CallKind {
        self.kind
    }
    /// The bound, normalised request (entities resolved); `None` for entity lookups and
    /// before binding.
    pub fn args(&self) -> Option<&str> {
        self.args_nul().map(strip_nul)
    }
    /// For entity lookups: `{"ids": [...]}` or `{"query": "...", "limit": n}`.
    pub fn lookup_request(&self) -> Option<&str> {
        self.lookup_request.get().map(|s| strip_nul(s))
    }
    /// For entity lookups: the entity's name.
    pub fn entity_name(&self) -> Option<&str> {
        self.entity
            .map(|i| self.snap.types.entities[i].name.as_str())
    }
    /// NUL-terminated views for the C layer (each valid as long as the call lives).
    pub fn function_id_nul(&self) -> &str {
        match (&self.function_id, self.entry()) {
            (Some(id), _) => id,
            (None, Some(e)) => &e.id_nul,
            (None, None) => "\0",
        }
    }
    pub fn caller_package_nul(&self) -> &str {
        &self.caller_package
    }
    pub fn args_nul(&self) -> Option<&str> {
        if self.kind == CallKind::EntityLookup {
            return None;
        }
        if let Some(a) = &self.args_fixed {
            return self
                .args_ready
                .load(Ordering::Acquire)
                .then_some(a.as_str());
        }
        self.args.get().map(String::as_str)
    }
    pub fn lookup_request_nul(&self) -> Option<&str> {
        self.lookup_request.get().map(String::as_str)
    }

    /// The function's normalised descriptor JSON (as listed by the registry).
    pub fn descriptor_json(&self) -> Option<String> {
        let e = self.entry()?;
        Some(e.desc.to_json(&self.snap.types, e.is_enabled()).to_string())
    }

    /// The function's descriptor, once found.
    pub fn descriptor(&self) -> Option<&crate::descriptor::FunctionDescriptor> {
        self.entry().map(|e| &e.desc)
    }

    /// Sets an item (JSON text, checked) shared by the delegates and the handler.
    pub fn item_set(&self, key: &str, json: &str) -> Result<(), String> {
        serde_json::from_str::<serde::de::IgnoredAny>(json)
            .map_err(|e| format!("item \"{key}\" is not valid JSON: {e}"))?;
        let mut items = self.items.lock();
        match items.iter_mut().find(|(k, _)| &**k == key) {
            Some((_, v)) => *v = json.into(),
            None => items.push((key.into(), json.into())),
        }
        Ok(())
    }

    /// An item's JSON (a lookup inside a call sees the call's items).
    pub fn item_get(&self, key: &str) -> Option<String> {
        if let Some(v) = self.items.lock().iter().find(|(k, _)| &**k == key) {
            return Some(v.1.to_string());
        }
        // a lookup inside a call sees the call's items
        self.parent.as_ref().and_then(|p| p.item_get(key))
    }
    /// Sets the dialog text returned in the outcome (the last one wins).
    pub fn say(&self, text: &str) {
        match &self.parent {
            Some(p) => p.say(text),
            None => {
                *self.dialog.lock() = Some(text.to_owned());
                self.has_dialog.store(true, Ordering::Release);
            }
        }
    }
    /// The host value of the invocation that made this call (for a lookup, of the call it
    /// serves); 0 when none.
    pub fn invocation_context(&self) -> usize {
        self.host_context
    }
    /// The dialog said so far (a lookup's `say` goes to its call, and so does this).
    pub fn dialog(&self) -> Option<String> {
        if let Some(p) = &self.parent {
            return p.dialog();
        }
        // most calls say nothing: no lock for them
        if !self.has_dialog.load(Ordering::Acquire) {
            return None;
        }
        self.dialog.lock().clone()
    }
    /// Host data (a DI scope), set by the scope-begin hook; lookups see their call's.
    pub fn set_host_data(&self, data: usize) {
        self.set_host_data_with(data, None);
    }
    /// Sets host data with a release: `release` is dropped exactly once, when another
    /// set replaces it or after the scope-end hook when the call ends (at once when the
    /// call has ended already: then `false`).
    pub fn set_host_data_with(&self, data: usize, release: Option<Release>) -> bool {
        if release.is_some() {
            self.has_releases.store(true, Ordering::SeqCst);
        }
        let mut g = self.host_data_guard.lock();
        if g.closed {
            drop(g);
            drop(release);
            return false;
        }
        self.host_data.store(data, Ordering::Release);
        let old = std::mem::replace(&mut g.guard, release);
        drop(g);
        // the host's release runs with no lock held
        drop(old);
        true
    }
    /// Releases the host data's guard: the call has ended.
    pub(crate) fn release_host_data(&self) {
        // (a release attached while this runs, after the check, is dropped with the call)
        if !self.has_releases.load(Ordering::SeqCst) {
            return;
        }
        let old = {
            let mut g = self.host_data_guard.lock();
            g.closed = true;
            g.guard.take()
        };
        if old.is_some() {
            self.host_data.store(0, Ordering::Release);
        }
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(old))).is_err() {
            self.log(LogLevel::Error, "a host data release panicked");
        }
    }
    pub fn host_data(&self) -> usize {
        match self.host_data.load(Ordering::Acquire) {
            0 => self.parent.as_ref().map_or(0, |p| p.host_data()),
            d => d,
        }
    }
    pub fn is_cancelled(&self) -> bool {
        self.cancel_code.load(Ordering::Acquire) != 0
    }
    pub(crate) fn cancel_code(&self) -> Option<ErrorCode> {
        match self.cancel_code.load(Ordering::Acquire) {
            0 => None,
            c => ErrorCode::from_i32(c as i32),
        }
    }
    /// Runs `f` once when the call is cancelled or times out (at once if it already
    /// was), on the thread that cancels. `f` is dropped exactly once: after it ran, when
    /// removed ([`Call::remove_on_cancel`]), or when the call ends without cancellation.
    pub fn on_cancel(&self, f: Box<dyn FnOnce() + Send>) -> OnCancel {
        self.has_releases.store(true, Ordering::SeqCst);
        let mut cbs = self.cancel_callbacks.lock();
        cbs.next += 1;
        let id = cbs.next;
        if self.is_cancelled() {
            drop(cbs);
            self.run_cancel_callback(f);
            OnCancel::RanNow(id)
        } else if cbs.closed {
            drop(cbs);
            drop(f);
            OnCancel::Ended
        } else {
            cbs.list.push((id, f));
            OnCancel::Registered(id)
        }
    }

    /// Unregisters a cancel callback: `true` when it was registered (it is dropped now)
    /// or is running now (it is dropped when it returns).
    pub fn remove_on_cancel(&self, id: u64) -> bool {
        let mut cbs = self.cancel_callbacks.lock();
        if let Some(i) = cbs.list.iter().position(|(x, _)| *x == id) {
            let (_, f) = cbs.list.remove(i);
            drop(cbs);
            // the release runs with no lock held
            drop(f);
            return true;
        }
        cbs.running.contains(&id)
    }

    fn run_cancel_callback(&self, f: Box<dyn FnOnce() + Send>) {
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
            self.log(LogLevel::Error, "a cancel callback panicked");
        }
    }

    /// Runs the cancel callbacks registered so far (the call has been cancelled).
    pub(crate) fn run_cancel_callbacks(&self) {
        let cbs = {
            let mut g = self.cancel_callbacks.lock();
            let cbs = std::mem::take(&mut g.list);
            g.running = cbs.iter().map(|(id, _)| *id).collect();
            cbs
        };
        if !cbs.is_empty() {
            for (_, cb) in cbs {
                self.run_cancel_callback(cb);
            }
            self.cancel_callbacks.lock().running.clear();
        }
    }

    /// Drops the cancel callbacks that never ran: the call has ended.
    pub(crate) fn close_cancel_callbacks(&self) {
        if !self.has_releases.load(Ordering::SeqCst) {
            return;
        }
        let left = {
            let mut cbs = self.cancel_callbacks.lock();
            cbs.closed = true;
            std::mem::take(&mut cbs.list)
        };
        if !left.is_empty()
            && std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(left))).is_err()
        {
            self.log(LogLevel::Error, "a cancel callback release panicked");
        }
    }

    /// The handle bindings pass through C (allocated on first use, released at scope
    /// end). `None` when the handle table is exhausted.
    pub fn handle(self: &Arc<Self>) -> Option<usize> {
        match self.handle.load(Ordering::Acquire) {
            0 => {}
            usize::MAX => return None,
            h => return Some(h),
        }
        let made = handle_table().insert(self.clone());
        match self.handle.compare_exchange(
            0,
            made.unwrap_or(usize::MAX),
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => made,
            Err(first) => {
                // another thread asked at the same moment and its handle stands
                if let Some(h) = made {
                    self.release_handle_of(h);
                }
                (first != usize::MAX).then_some(first)
            }
        }
    }

    /// The function id followed by its NUL, as the call shares it.
    fn function_id_arc(&self) -> Option<&Arc<str>> {
        match (&self.function_id, self.entry()) {
            (Some(id), _) => Some(id),
            (None, Some(e)) => Some(&e.id_nul),
            (None, None) => None,
        }
    }

    pub(crate) fn release_handle(&self) {
        match self.handle.load(Ordering::Acquire) {
            0 | usize::MAX => {}
            h => self.release_handle_of(h),
        }
    }

    /// Ends handle `h` of this call: its tombstone names the function and the dispatcher
    /// (the slot's tombstone stands when it already says that: nothing is made).
    fn release_handle_of(&self, h: usize) {
        let id = self.function_id_arc();
        let shared = self.shared();
        handle_table().release(
            h,
            |t| {
                id.is_some_and(|id| Arc::ptr_eq(&t.function_id, id))
                    && std::ptr::eq(t.shared.as_ptr(), Arc::as_ptr(shared))
            },
            || Tombstone {
                function_id: id.cloned().unwrap_or_else(|| Arc::from("\0")),
                shared: Arc::downgrade(shared),
            },
        );
    }

    pub(crate) fn log(&self, level: LogLevel, msg: &str) {
        self.shared().log(level, msg);
    }

    /// Marks the call cancelled or timed out, at once and running no host code: from now
    /// on `is_cancelled` is true and host answers are refused as late. `false` when it
    /// was marked already. [`Call::end_cancelled`] (here or on another thread) does the
    /// rest.
    pub(crate) fn mark_cancelled(&self, code: ErrorCode) -> bool {
        self.cancel_code
            .compare_exchange(0, code as i32 as u8, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Blocks until the outcome is delivered, or `deadline` passes (then `None`).
    pub(crate) fn wait_outcome(&self, deadline: Option<Instant>) -> Option<String> {
        self.wait_for(deadline, |c| c.outcome_json.take())
    }

    /// Like `wait_outcome`, for a call made with `keep_outcome`.
    pub(crate) fn wait_outcome_struct(&self, deadline: Option<Instant>) -> Option<Outcome> {
        self.wait_for(deadline, |c| c.outcome.take())
    }

    fn wait_for<T>(
        &self,
        deadline: Option<Instant>,
        take: impl Fn(&mut Ctl) -> Option<T>,
    ) -> Option<T> {
        let mut ctl = self.ctl.lock();
        loop {
            if let Some(o) = take(&mut ctl) {
                return Some(o);
            }
            match deadline {
                Some(d) => {
                    if self.done.wait_until(&mut ctl, d).timed_out() {
                        return take(&mut ctl);
                    }
                }
                None => self.done.wait(&mut ctl),
            }
        }
    }
}

/// Text stored with a trailing NUL, so the C layer can lend it without copying.
pub(crate) fn with_nul(s: &str) -> String {
    let mut t = String::with_capacity(s.len() + 1);
    t.push_str(s);
    t.push('\0');
    t
}

pub(crate) fn strip_nul(s: &str) -> &str {
    s.strip_suffix('\0').unwrap_or(s)
}

/// An unanswered gate, handed to a delegate's `on_invoking` or the permission hook.
/// Answer it exactly once, now or later from any thread. Dropping it unanswered denies.
pub struct Gate {
    pub(crate) call: Arc<Call>,
    pub(crate) seq: u32,
    pub(crate) answered: bool,
}

impl Gate {
    pub(crate) fn new(call: Arc<Call>, seq: u32) -> Gate {
        Gate {
            call,
            seq,
            answered: false,
        }
    }
    pub fn call(&self) -> &Arc<Call> {
        &self.call
    }
}

/// What a stale handle still tells: which function it was, for the log.
#[derive(Clone)]
pub(crate) struct Tombstone {
    pub function_id: Arc<str>,
    pub shared: std::sync::Weak<Shared>,
}

/// The process's handles of live calls (global: calls outlive dispatchers).
pub(crate) fn handle_table() -> &'static handles::Table<Arc<Call>, Tombstone> {
    static TABLE: OnceLock<handles::Table<Arc<Call>, Tombstone>> = OnceLock::new();
    TABLE.get_or_init(handles::Table::new)
}

/// What a handle names.
pub enum HandleRef {
    /// A live call (and the gate sequence bits the handle carries; 0 for a call handle).
    Live(Arc<Call>, u32),
    /// A call that has ended: its function id.
    Ended(String),
    Unknown,
}

/// Runs `f` on the live call a call handle (not a gate handle) names, without taking a
/// reference to it: under the handle's lock, so `f` must be short and must run no host
/// code. `None` when the handle names no live call ([`resolve_handle`] tells why).
pub fn with_live_call<R>(h: usize, f: impl FnOnce(&Arc<Call>) -> R) -> Option<R> {
    handle_table()
        .with(h, |c, seq| (seq == 0).then(|| f(c)))
        .flatten()
}

/// Looks up a handle made by [`Call::handle`] or [`Gate::into_handle`]. A handle that has
/// ended is reported (and logged to its dispatcher) rather than used.
pub fn resolve_handle(h: usize) -> HandleRef {
    match handle_table().get(h) {
        handles::Lookup::Live(c, seq) => HandleRef::Live(c, seq),
        handles::Lookup::Ended(t) => HandleRef::Ended(ended_id(&t)),
        handles::Lookup::Unknown => HandleRef::Unknown,
    }
}

/// The function id of an ended call's handle, for messages.
pub(crate) fn ended_id(t: &Option<Tombstone>) -> String {
    match t {
        Some(t) => strip_nul(&t.function_id).to_string(),
        None => "an earlier call".into(),
    }
}

/// Logs a late use of an ended call's handle to its dispatcher's log sink.
pub fn log_late(h: usize, what: &str) {
    if let handles::Lookup::Ended(Some(t)) = handle_table().get(h) {
        if let Some(s) = t.shared.upgrade() {
            s.log(
                LogLevel::Warn,
                &format!(
                    "{what} for the call to {} after it ended was ignored",
                    strip_nul(&t.function_id)
                ),
            );
        }
    }
}
