//! The per-call scope: what a delegate, a handler or a lookup can read and set during one
//! call, and the completions through which the host answers (now or later, from any
//! thread).

use crate::engine::cancel::CancelToken;
use crate::engine::handles;
use crate::engine::log::LogLevel;
use crate::engine::registry::{self, Shared, Slot};
use crate::model::error::ErrorCode;
use crate::model::outcome::Outcome;
use crate::model::terminated::{self, terminated, unterminated, Terminated};
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Runs a function (or an entity lookup). Complete the call exactly once, now or later
/// from any thread, with [`Call::complete`] (keep a clone of the `Arc` to answer later).
/// A call its handler neither answers nor keeps does not vanish: it waits, like any
/// unanswered call, until its timeout (the dispatcher's default one included), its
/// cancellation token or a shutdown ends it.
pub trait Handler: Send + Sync {
    /// Runs the call; complete it now or keep the `Arc` and complete it later.
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
    /// `on_invoking` with the gate given by its sequence number, for a delegate inside the
    /// crate that passes it on as a handle without making a [`Gate`]. Sealed: nothing
    /// outside the crate can name [`GateSeq`], so only the default runs for other hosts
    /// (it makes the gate and calls `on_invoking`).
    #[doc(hidden)]
    fn on_invoking_seq(&self, call: &Arc<Call>, seq: GateSeq) {
        self.on_invoking(call, Gate::new(call.clone(), seq.0));
    }
    /// `on_invoked` with the outcome JSON as the core keeps it, with its terminator, for a
    /// delegate inside the crate that lends the stored bytes on without a copy. Sealed as
    /// `on_invoking_seq` is ([`Terminated`]); the default calls `on_invoked` with the text.
    #[doc(hidden)]
    fn on_invoked_terminated(&self, call: &Arc<Call>, outcome: &Outcome, json: Terminated<'_>) {
        self.on_invoked(call, outcome, json.text());
    }
    /// False when `on_invoked` is the default (the pipeline then skips it).
    fn has_on_invoked(&self) -> bool {
        true
    }
}

/// A gate's sequence number, as [`Delegate::on_invoking_seq`] gets it. Public in a private
/// module: no host outside the crate can name it, so none overrides that method.
pub struct GateSeq(pub(crate) u32);

/// The host's per-call scope (a DI scope): `begin` before anything else, `end` exactly
/// once after the last `on_invoked`.
pub trait ScopeHooks: Send + Sync {
    /// Opens the call's scope, before anything else runs for it.
    fn begin(&self, call: &Arc<Call>);
    /// Closes the call's scope, exactly once, after the last `on_invoked`.
    fn end(&self, call: &Arc<Call>);
}

/// Asks the user to approve a `requiresPermission` function; answer the gate once.
pub trait PermissionHook: Send + Sync {
    /// Asks the user about `call`; answer `gate` once, now or later.
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
    /// The platform's name in outcomes and logs: `other`, `apple` or `android`.
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Other => "other",
            Platform::Apple => "apple",
            Platform::Android => "android",
        }
    }
    /// The platform numbered `v` (0 other, 1 apple, 2 android); `None` for an unknown one.
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
    /// The function to run (its descriptor's `id`).
    pub function_id: String,
    /// Where the call comes from.
    pub platform: Platform,
    /// apple: the app is in the foreground for this run.
    pub is_foreground: bool,
    /// android: the calling agent's package ("" in-process or from the shell).
    pub caller_package: String,
    /// Cancels the call when cancelled ([`Invocation::cancel_token`]).
    pub cancel: Option<CancelTokenRef>,
    /// Ends the call `TimedOut` when it has not finished in time. `None`: the
    /// dispatcher's default timeout ([`crate::Dispatcher::set_default_timeout`]);
    /// [`Invocation::NO_TIMEOUT`]: no timeout at all.
    pub timeout: Option<std::time::Duration>,
    /// A host value the call carries, never read by the library (a binding's invocation
    /// context), read back with [`Call::invocation_context`] (also from the call's entity
    /// lookups). 0: none.
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

/// An invocation borrowed for the making of a call (a host layer makes one from its
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

    /// An in-process invocation of `function_id` with no caller, token or timeout of its own.
    pub fn new(function_id: impl Into<String>) -> Invocation {
        Invocation {
            function_id: function_id.into(),
            ..Default::default()
        }
    }
    /// Sets where the call comes from.
    pub fn platform(mut self, p: Platform) -> Self {
        self.platform = p;
        self
    }
    /// Sets whether the app is in the foreground for this run (apple).
    pub fn foreground(mut self, f: bool) -> Self {
        self.is_foreground = f;
        self
    }
    /// Sets the calling package (android).
    pub fn caller(mut self, package: impl Into<String>) -> Self {
        self.caller_package = package.into();
        self
    }
    /// Makes the call cancellable with `t` (the call keeps a clone).
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
    /// A function call: the handler runs with the bound arguments.
    Function = 0,
    /// An entity lookup: the entity's lookup handler runs with the request.
    EntityLookup = 1,
}

/// A delegate's (or the permission hook's) answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateDecision {
    /// The call goes on.
    Allow,
    /// The call ends `PermissionDenied` with this message.
    Deny(String),
    /// The call ends `openApp` with this message (continue in the app).
    OpenApp(String),
}

/// What a handler (or lookup) reports.
pub type HandlerResult = Result<Option<String>, (ErrorCode, String)>;

/// Why a completion was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompleteError {
    #[error("the call to {0} has already been completed or has ended; this completion is ignored")]
    /// The call (to the function named) has already been completed or has ended.
    AlreadyCompleted(String),
    #[error("the call to {0} is not waiting for a {1} now")]
    /// The call (to the function named) is not waiting for this kind of answer now.
    NotWaiting(String, &'static str),
}

/// What a call waits for from the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Op {
    Gate = 1,
    Handler = 2,
    Lookup = 3,
}

pub(crate) enum Completion {
    Gate(GateDecision),
    Handler(HandlerResult),
    Lookup(Box<Outcome>),
    Abort(ErrorCode),
}

/// Receives the outcome and its JSON, kept with its terminator.
pub(crate) enum OutcomeSink {
    /// A closure (the Rust API's callbacks, a view's).
    Boxed(Box<dyn FnOnce(Outcome, Terminated<'_>) + Send>),
    /// A function and two words of its own, given the JSON only: what a host layer hands
    /// its own callback and data to, with no allocation per call.
    Json(JsonSink),
}

/// A function called with its two words and the outcome JSON ([`OutcomeSink::Json`]).
#[derive(Clone, Copy)]
pub(crate) struct JsonSink {
    pub f: fn(usize, usize, Terminated<'_>),
    pub a: usize,
    pub b: usize,
}

impl OutcomeSink {
    pub(crate) fn boxed(f: impl FnOnce(Outcome, Terminated<'_>) + Send + 'static) -> OutcomeSink {
        OutcomeSink::Boxed(Box::new(f))
    }
    /// Hands over the outcome (a JSON sink reads only `json`).
    pub(crate) fn deliver(self, outcome: Outcome, json: Terminated<'_>) {
        match self {
            OutcomeSink::Boxed(f) => f(outcome, json),
            OutcomeSink::Json(s) => (s.f)(s.a, s.b, json),
        }
    }
}

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
}

/// The ids of one entity to resolve before the handler runs.
pub(crate) struct Resolution {
    pub entity: usize,
    /// Each id once: the first of the bound arguments' entity refs that holds it, and where
    /// its entity is in `found_json` once the lookup returned it.
    pub wanted: Vec<(usize, Option<std::ops::Range<usize>>)>,
    /// The lookup's answer, normalised.
    pub found_json: String,
}

/// Arguments bound when a call was made that the Bind stage still has to look at (an
/// error, or entities to look up): `None` for the common call, whose arguments are final.
pub(crate) type PreBound =
    Option<Box<Result<crate::model::binding::Bound, crate::model::binding::BindError>>>;

/// What the thread driving a call keeps while it drives: a call moves from one thread to
/// another only when it waits for the host, and then this waits in [`Ctl::suspended`]
/// for whoever answers.
#[derive(Default)]
pub(crate) struct DriveState {
    pub stage: Stage,
    /// The sequence number of the latest wait.
    pub seq: u32,
    /// The scope-begin hook ran (so the scope-end hook runs).
    pub began: bool,
    /// Arguments bound when the call was made, for the Bind stage (an error, or entities
    /// to look up). Boxed, like `bound`: the common call has neither, and the drive state
    /// moves with every step of the call's start.
    pub pre_bound: PreBound,
    /// The arguments whose entities are being resolved: always `Ok` (the box the call was
    /// made with, kept).
    pub bound: PreBound,
    pub resolve: Vec<Resolution>,
    /// A lookup was started for this call (its `Ctl::child` is to be looked at when the
    /// call ends).
    pub looked_up: bool,
}

/// The state of a call's wait for the host, in one word ([`Call::wait`]): the wait's
/// sequence number (high 32 bits), its [`Op`] (bits 8..16) and one of these states.
pub(crate) mod wait {
    /// No wait: answers now are late.
    pub(crate) const IDLE: u64 = 0;
    /// Waiting, and the host callback that started the wait has not returned yet.
    pub(crate) const INLINE: u64 = 1;
    /// Answered inline: a gate allowed (nothing more to hand over).
    pub(crate) const ALLOWED: u64 = 2;
    /// Answered inline on the thread running that callback: the answer is in the
    /// thread's frame (`pipeline`).
    pub(crate) const ANSWERED_HERE: u64 = 3;
    /// Answered inline from another thread: the answer is in `Ctl::inline_result`.
    pub(crate) const ANSWERED: u64 = 4;
    /// Waiting after the callback returned: the call is parked, its drive state in
    /// `Ctl::suspended`; whoever moves the word back to IDLE drives it on.
    pub(crate) const SUSPENDED: u64 = 5;

    pub(crate) fn pack(seq: u32, op: super::Op, state: u64) -> u64 {
        (u64::from(seq) << 32) | ((op as u64) << 8) | state
    }
    pub(crate) fn seq(w: u64) -> u32 {
        (w >> 32) as u32
    }
    pub(crate) fn op(w: u64) -> u8 {
        (w >> 8) as u8
    }
    pub(crate) fn state(w: u64) -> u64 {
        w & 0xff
    }
}

/// What other threads may touch of a call's progress (under `Call::ctl`).
#[derive(Default)]
pub(crate) struct Ctl {
    /// An answer given inline from another thread than the one running the callback.
    pub inline_result: Option<Box<Completion>>,
    /// The drive state of a suspended call.
    pub suspended: Option<Box<DriveState>>,
    pub outcome_json: Option<String>,
    pub sink: Option<OutcomeSink>,
    /// The latest lookup started for this call.
    pub child: Option<Arc<Call>>,
    pub outcome: Option<Box<Outcome>>,
    /// The call itself while it waits for a later host answer: a host (a Rust handler
    /// above all) may let go of every reference it got, and the call must still end
    /// (timed out, cancelled, drained) rather than vanish without an outcome. Taken by
    /// whoever ends the wait (the answer, a cancellation).
    pub parked: Option<Arc<Call>>,
}

/// One call's scope. Valid from scope begin to scope end; accessors used after that
/// answer as if empty.
pub struct Call {
    /// The registry the call sees (`None` for a lookup: its call's, [`Call::snap`]).
    own_snap: Option<Arc<Snapshot>>,
    /// The id as called, for a function that is not registered (else the entry's).
    function_id: Option<Arc<str>>,
    pub(crate) platform: Platform,
    pub(crate) foreground: bool,
    pub(crate) caller_package: std::borrow::Cow<'static, str>,
    pub(crate) kind: CallKind,
    /// The function's place in `snap` (no reference count is touched per call).
    entry_slot: Option<Slot>,
    /// Bound when the call was made and final, kept with its terminator
    /// ([`crate::model::terminated`]): a function's arguments
    /// (with no entity to resolve) or a lookup's request, shown from the Bind stage on
    /// (`args_ready`; a lookup serving a call shows its request from the start).
    pub(crate) args_fixed: Option<String>,
    pub(crate) args_ready: AtomicBool,
    /// The arguments once their entities are resolved, kept with their terminator.
    pub(crate) args: OnceLock<String>,
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
    /// Host data with a release was ever set: the end of the call takes `host_data_guard`'s
    /// lock only then (the common call has none).
    has_host_release: std::sync::atomic::AtomicBool,
    /// A cancel callback was ever registered: the end of the call takes
    /// `cancel_callbacks`' lock only then. Each flag is its own, so a call with a cancel
    /// callback (a binding's context that handed out its token) does not pay the host data's
    /// lock too: every lock is two atomic instructions, and an atomic instruction measured
    /// 8 to 16 ns each on the 2-core machines (2026-12-06, `perf annotate` of the realistic
    /// .NET call, where the core's atomic instructions were 12% of all samples).
    ///
    /// Both are set with `Release` and read with `Acquire`: a flag only spares the end of
    /// the call a lock. A registration that the end of the call does not see (one made on
    /// another thread as the call ends) is dropped with the call, whatever the ordering.
    has_cancel_callbacks: std::sync::atomic::AtomicBool,
    pub(crate) ctl: Mutex<Ctl>,
    pub(crate) done: Condvar,
    /// The wait for the host ([`wait`]): answers and cancellations agree through it.
    pub(crate) wait: AtomicU64,
    /// The call has ended (its outcome is being or has been delivered).
    pub(crate) finished: AtomicBool,
    /// A synchronous waiter, or the outcome sink, wants the outcome itself, not only its JSON.
    pub(crate) keep_outcome: bool,
    /// The number of the call's deadline on the timer (0: none), forgotten when the call
    /// finishes; set before the call is driven, so it needs no lock of `ctl`.
    pub(crate) timer_seq: AtomicU64,
    /// The outcome goes to `Ctl::sink` (an asynchronous call).
    pub(crate) has_sink: bool,
    /// For a lookup: the sequence number of the wait of the call it serves.
    pub(crate) lookup_seq: u32,
    /// A lookup of entities by ids of its own ([`Call::new_by_ids`]): its answer is put in
    /// the order of the ids asked for.
    pub(crate) by_ids: bool,
    /// The call's handle ([`crate::engine::handles`]): 0 until first asked for,
    /// `usize::MAX` when the handle table is exhausted.
    handle: AtomicUsize,
    pub(crate) parent: Option<Arc<Call>>,
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

/// What differs between the calls [`Call::make`] makes.
struct Making<'a> {
    own_snap: Option<Arc<Snapshot>>,
    function_id: Option<Arc<str>>,
    inv: &'a InvocationRef<'a>,
    caller_package: std::borrow::Cow<'static, str>,
    entry: Option<Slot>,
    kind: CallKind,
    entity: Option<usize>,
    args_fixed: Option<String>,
    args_ready: bool,
    parent: Option<Arc<Call>>,
    started: Instant,
    timeout: Option<std::time::Duration>,
    timeout_is_default: bool,
    in_flight_shard: Option<usize>,
    keep_outcome: bool,
    sink: Option<OutcomeSink>,
    lookup_seq: u32,
    by_ids: bool,
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
    list: CallbackList,
    /// Ids of the callbacks running now (taken from `list` by a cancellation).
    running: Vec<u64>,
    /// The call has ended: callbacks registered from now on are dropped at once.
    closed: bool,
}

/// A cancel callback and its id.
type CancelCallback = (u64, Box<dyn FnOnce() + Send>);

/// Cancel callbacks in the order they were registered. The first is kept inline: a call
/// that has one as a rule has exactly one (a binding's context that handed out its token),
/// and a `Vec` would allocate for it and free it at the end of every such call.
#[derive(Default)]
struct CallbackList {
    /// Registered before every one in `rest` (a callback goes here only when both are empty).
    first: Option<CancelCallback>,
    rest: Vec<CancelCallback>,
}

impl CallbackList {
    fn push(&mut self, cb: CancelCallback) {
        if self.first.is_none() && self.rest.is_empty() {
            self.first = Some(cb);
        } else {
            self.rest.push(cb);
        }
    }

    /// Takes callback `id` out.
    fn remove(&mut self, id: u64) -> Option<CancelCallback> {
        if self.first.as_ref().is_some_and(|(x, _)| *x == id) {
            return self.first.take();
        }
        let i = self.rest.iter().position(|(x, _)| *x == id)?;
        Some(self.rest.remove(i))
    }

    fn is_empty(&self) -> bool {
        self.first.is_none() && self.rest.is_empty()
    }

    fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.first.iter().chain(&self.rest).map(|(id, _)| *id)
    }
}

impl IntoIterator for CallbackList {
    type Item = CancelCallback;
    type IntoIter =
        std::iter::Chain<std::option::IntoIter<CancelCallback>, std::vec::IntoIter<CancelCallback>>;
    fn into_iter(self) -> Self::IntoIter {
        self.first.into_iter().chain(self.rest)
    }
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
    /// A call of the function at `entry` of `snap` (`None`: not registered, named by
    /// `inv`), counted in flight on `shard`, with `default_timeout` when the invocation
    /// names none, its outcome to `sink` (else to whoever drives it first, or a waiter;
    /// `keep_outcome`: as an [`Outcome`]). Returns the call and the arguments the Bind
    /// stage still has to look at (an error, or entities to resolve), which the thread
    /// that drives it first starts from. Arguments bound with no entity in them are final
    /// now, shown from the Bind stage on.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        snap: Arc<Snapshot>,
        inv: &InvocationRef<'_>,
        entry: Option<Slot>,
        bound: Option<Result<crate::model::binding::Bound, crate::model::binding::BindError>>,
        kind: CallKind,
        entity: Option<usize>,
        shard: usize,
        default_timeout: Option<std::time::Duration>,
        keep_outcome: bool,
        sink: Option<OutcomeSink>,
    ) -> (Arc<Call>, PreBound) {
        let (args_fixed, pre_bound) = match bound {
            Some(Ok(b)) if b.entity_refs.is_empty() => {
                let mut json = b.json;
                json.push(terminated::TERMINATOR);
                (Some(json), None)
            }
            other => (None, other.map(Box::new)),
        };
        let (timeout, timeout_is_default) = match inv.timeout {
            None => (default_timeout, true),
            Some(t) => ((t != Invocation::NO_TIMEOUT).then_some(t), false),
        };
        let call = Call::make(Making {
            own_snap: Some(snap),
            function_id: match entry {
                Some(_) => None,
                None => Some(terminated(inv.function_id).into()),
            },
            inv,
            caller_package: if inv.caller_package.is_empty() {
                std::borrow::Cow::Borrowed(terminated::EMPTY)
            } else {
                std::borrow::Cow::Owned(terminated(inv.caller_package))
            },
            entry,
            kind,
            entity,
            args_fixed,
            args_ready: false,
            parent: None,
            started: Instant::now(),
            timeout,
            timeout_is_default,
            in_flight_shard: Some(shard),
            keep_outcome,
            sink,
            lookup_seq: 0,
            by_ids: false,
        });
        (call, pre_bound)
    }

    /// A lookup of entities of `entity` by ids, a call of its own (not serving another):
    /// the entity's lookup at `search` answers `request` (`{"ids":[...]}`, terminated)
    /// after the scope hook and the delegates, as a lookup serving a call does; counted in
    /// flight on `shard`, with `default_timeout` when the invocation names none.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new_by_ids(
        snap: Arc<Snapshot>,
        inv: &InvocationRef<'_>,
        search: Slot,
        entity: usize,
        request: String,
        shard: usize,
        default_timeout: Option<std::time::Duration>,
        keep_outcome: bool,
        sink: Option<OutcomeSink>,
    ) -> Arc<Call> {
        let (timeout, timeout_is_default) = match inv.timeout {
            None => (default_timeout, true),
            Some(t) => ((t != Invocation::NO_TIMEOUT).then_some(t), false),
        };
        Call::make(Making {
            own_snap: Some(snap),
            function_id: None,
            inv,
            caller_package: if inv.caller_package.is_empty() {
                std::borrow::Cow::Borrowed(terminated::EMPTY)
            } else {
                std::borrow::Cow::Owned(terminated(inv.caller_package))
            },
            entry: Some(search),
            kind: CallKind::EntityLookup,
            entity: Some(entity),
            args_fixed: Some(request),
            args_ready: false,
            parent: None,
            started: Instant::now(),
            timeout,
            timeout_is_default,
            in_flight_shard: Some(shard),
            keep_outcome,
            sink,
            lookup_seq: 0,
            by_ids: true,
        })
    }

    #[inline(always)]
    fn make(m: Making<'_>) -> Arc<Call> {
        let has_sink = m.sink.is_some();
        Arc::new(Call {
            own_snap: m.own_snap,
            function_id: m.function_id,
            platform: m.inv.platform,
            foreground: m.inv.is_foreground,
            caller_package: m.caller_package,
            kind: m.kind,
            entry_slot: m.entry,
            args_fixed: m.args_fixed,
            args_ready: AtomicBool::new(m.args_ready),
            args: OnceLock::new(),
            entity: m.entity,
            items: Mutex::new(Vec::new()),
            dialog: Mutex::new(None),
            has_dialog: AtomicBool::new(false),
            host_data: AtomicUsize::new(0),
            host_data_guard: Mutex::new(HostDataGuard::default()),
            cancel_code: AtomicU8::new(0),
            cancel_callbacks: Mutex::new(CancelCallbacks::default()),
            has_host_release: AtomicBool::new(false),
            has_cancel_callbacks: AtomicBool::new(false),
            ctl: Mutex::new(Ctl {
                sink: m.sink,
                ..Default::default()
            }),
            done: Condvar::new(),
            wait: AtomicU64::new(wait::IDLE),
            finished: AtomicBool::new(false),
            keep_outcome: m.keep_outcome,
            timer_seq: AtomicU64::new(0),
            has_sink,
            lookup_seq: m.lookup_seq,
            by_ids: m.by_ids,
            handle: AtomicUsize::new(0),
            parent: m.parent,
            timeout: m.timeout,
            timeout_is_default: m.timeout_is_default,
            in_flight_shard: m.in_flight_shard,
            started: m.started,
            host_context: m.inv.host_context,
        })
    }

    /// A lookup serving `parent` (for its wait `seq`): resolves ids of `entity` through
    /// `search`, with `request` (`{"ids":[...]}`, kept with its terminator). It shares the parent's
    /// snapshot, platform and caller; it has no timeout of its own and is not counted in
    /// flight (its call is).
    pub(crate) fn new_lookup(
        parent: &Arc<Call>,
        search: Slot,
        entity: usize,
        request: String,
        seq: u32,
    ) -> Arc<Call> {
        Call::make(Making {
            own_snap: None,
            function_id: None,
            inv: &InvocationRef {
                function_id: "",
                platform: parent.platform,
                is_foreground: parent.foreground,
                caller_package: "",
                cancel: None,
                timeout: None,
                host_context: parent.host_context,
            },
            caller_package: parent.caller_package.clone(),
            entry: Some(search),
            kind: CallKind::EntityLookup,
            entity: Some(entity),
            args_fixed: Some(request),
            args_ready: true,
            parent: Some(parent.clone()),
            started: parent.started,
            timeout: None,
            timeout_is_default: false,
            in_flight_shard: None,
            keep_outcome: false,
            sink: None,
            lookup_seq: seq,
            by_ids: false,
        })
    }

    /// When the call must end by (its timeout from its start), if it has a timeout.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.timeout.and_then(|t| self.started.checked_add(t))
    }

    /// The registry the call sees (a lookup sees its call's).
    pub(crate) fn snap(&self) -> &Arc<Snapshot> {
        match (&self.own_snap, &self.parent) {
            (Some(s), _) => s,
            (None, Some(p)) => p.snap(),
            (None, None) => unreachable!("a call has a snapshot or a parent"),
        }
    }

    /// The function's id (for a lookup, the generated `search_{entity}` id).
    pub fn function_id(&self) -> &str {
        self.function_id_terminated().text()
    }

    /// The function's registry entry (borrowed from the call's snapshot).
    pub(crate) fn entry(&self) -> Option<&Arc<Entry>> {
        self.entry_slot.map(|s| self.snap().entry_at(s))
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.snap().shared
    }
    /// Where the call comes from.
    pub fn platform(&self) -> Platform {
        self.platform
    }
    /// Whether the app is in the foreground for this run (apple).
    pub fn is_foreground(&self) -> bool {
        self.foreground
    }
    /// The calling package ("" in-process).
    pub fn caller_package(&self) -> &str {
        unterminated(&self.caller_package)
    }
    /// A function call or an entity lookup.
    pub fn kind(&self) -> CallKind {
        self.kind
    }
    /// The bound, normalised request (entities resolved); `None` for entity lookups and
    /// before binding.
    pub fn args(&self) -> Option<&str> {
        self.args_terminated().map(Terminated::text)
    }
    /// For entity lookups: `{"ids": [...]}` or `{"query": "...", "limit": n}`.
    pub fn lookup_request(&self) -> Option<&str> {
        self.lookup_request_terminated().map(Terminated::text)
    }
    /// For entity lookups: the entity's name.
    pub fn entity_name(&self) -> Option<&str> {
        self.entity
            .map(|i| self.snap().types.entities[i].name.as_str())
    }
    /// The call's kept strings, lent with their terminator ([`crate::model::terminated`];
    /// each valid as long as the call lives).
    pub(crate) fn function_id_terminated(&self) -> Terminated<'_> {
        Terminated::new(match (&self.function_id, self.entry()) {
            (Some(id), _) => id,
            (None, Some(e)) => &e.id_terminated,
            (None, None) => terminated::EMPTY,
        })
    }
    pub(crate) fn caller_package_terminated(&self) -> Terminated<'_> {
        Terminated::new(&self.caller_package)
    }
    pub(crate) fn args_terminated(&self) -> Option<Terminated<'_>> {
        if self.kind == CallKind::EntityLookup {
            return None;
        }
        self.fixed_terminated()
            .or_else(|| self.args.get().map(|a| Terminated::new(a)))
    }
    /// The arguments or request bound when the call was made, once shown.
    fn fixed_terminated(&self) -> Option<Terminated<'_>> {
        let a = self.args_fixed.as_deref()?;
        self.args_ready
            .load(Ordering::Acquire)
            .then_some(Terminated::new(a))
    }
    pub(crate) fn lookup_request_terminated(&self) -> Option<Terminated<'_>> {
        if self.kind != CallKind::EntityLookup {
            return None;
        }
        self.fixed_terminated()
            .or_else(|| self.args.get().map(|a| Terminated::new(a)))
    }

    /// The function's normalised descriptor JSON (as listed by the registry).
    pub fn descriptor_json(&self) -> Option<String> {
        let e = self.entry()?;
        Some(
            e.desc
                .to_json(&self.snap().types, e.is_enabled())
                .to_string(),
        )
    }

    /// The function's descriptor, once found.
    pub fn descriptor(&self) -> Option<&crate::model::descriptor::FunctionDescriptor> {
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
    /// `say` was called on this call (not a lookup's: its `say` goes to its call).
    pub(crate) fn has_said(&self) -> bool {
        self.has_dialog.load(Ordering::Acquire)
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
            self.has_host_release.store(true, Ordering::Release);
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
        if !self.has_host_release.load(Ordering::Acquire) {
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
    /// The host value set with [`Call::set_host_data`]; 0 when none.
    pub fn host_data(&self) -> usize {
        match self.host_data.load(Ordering::Acquire) {
            0 => self.parent.as_ref().map_or(0, |p| p.host_data()),
            d => d,
        }
    }
    /// Whether the call has been cancelled (by its token, a timeout or a shutdown).
    pub fn is_cancelled(&self) -> bool {
        self.cancel_code.load(Ordering::Acquire) != 0
    }
    pub(crate) fn cancel_code(&self) -> Option<ErrorCode> {
        self.cancel_code_with(Ordering::Acquire)
    }
    pub(crate) fn cancel_code_with(&self, order: Ordering) -> Option<ErrorCode> {
        match self.cancel_code.load(order) {
            0 => None,
            c => ErrorCode::from_i32(c as i32),
        }
    }
    /// Runs `f` once when the call is cancelled or times out (at once if it already
    /// was), on the thread that cancels. `f` is dropped exactly once: after it ran, when
    /// removed ([`Call::remove_on_cancel`]), or when the call ends without cancellation.
    pub fn on_cancel(&self, f: Box<dyn FnOnce() + Send>) -> OnCancel {
        self.has_cancel_callbacks.store(true, Ordering::Release);
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
        if let Some((_, f)) = cbs.list.remove(id) {
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
            g.running = cbs.ids().collect();
            cbs
        };
        if !cbs.is_empty() {
            for (_, cb) in cbs {
                self.run_cancel_callback(cb);
            }
            self.cancel_callbacks.lock().running.clear();
        }
    }

    /// Drops the cancel callbacks that never ran: the call has ended. A call that ended
    /// cancelled (or timed out) runs those still registered first: the thread that ends
    /// it can get here before the one that marked it has run them (a timeout firing while
    /// the handler was still registering), and a callback of a cancelled call always runs.
    pub(crate) fn close_cancel_callbacks(&self) {
        if !self.has_cancel_callbacks.load(Ordering::Acquire) {
            return;
        }
        let left = {
            let mut cbs = self.cancel_callbacks.lock();
            cbs.closed = true;
            std::mem::take(&mut cbs.list)
        };
        if !left.is_empty() && self.is_cancelled() {
            for (_, cb) in left {
                self.run_cancel_callback(cb);
            }
            return;
        }
        if !left.is_empty()
            && std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(left))).is_err()
        {
            self.log(LogLevel::Error, "a cancel callback release panicked");
        }
    }

    /// The handle that names this call outside the core (allocated on first use, released
    /// at scope end). `None` when the handle table is exhausted.
    pub(crate) fn handle(self: &Arc<Self>) -> Option<usize> {
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

    /// The function id kept with its terminator, as the call shares it.
    fn function_id_arc(&self) -> Option<&Arc<str>> {
        match (&self.function_id, self.entry()) {
            (Some(id), _) => Some(id),
            (None, Some(e)) => Some(&e.id_terminated),
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
                function_id: id.cloned().unwrap_or_else(|| Arc::from(terminated::EMPTY)),
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
        // SeqCst: pairs with the suspending thread's wait word and check (pipeline)
        self.cancel_code
            .compare_exchange(0, code as i32 as u8, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// Blocks until the outcome is delivered, or `deadline` passes (then `None`).
    pub(crate) fn wait_outcome(&self, deadline: Option<Instant>) -> Option<String> {
        self.wait_for(deadline, |c| c.outcome_json.take())
    }

    /// Like `wait_outcome`, for a call made with `keep_outcome`.
    pub(crate) fn wait_outcome_struct(&self, deadline: Option<Instant>) -> Option<Outcome> {
        self.wait_for(deadline, |c| c.outcome.take().map(|o| *o))
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
    /// The call this gate decides.
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
pub(crate) enum HandleRef {
    /// A live call (and the gate sequence bits the handle carries; 0 for a call handle).
    Live(Arc<Call>, u32),
    /// A call that has ended: its function id.
    Ended(String),
    Unknown,
}

/// Runs `f` on the live call a call handle (not a gate handle) names, without taking a
/// reference to it: under the handle's lock, so `f` must be short and must run no host
/// code. `None` when the handle names no live call ([`resolve_handle`] tells why).
pub(crate) fn with_live_call<R>(h: usize, f: impl FnOnce(&Arc<Call>) -> R) -> Option<R> {
    handle_table()
        .with(h, |c, seq| (seq == 0).then(|| f(c)))
        .flatten()
}

/// Looks up a handle made by [`Call::handle`] or [`Gate::into_handle`]. A handle that has
/// ended is reported (and logged to its dispatcher) rather than used.
pub(crate) fn resolve_handle(h: usize) -> HandleRef {
    match handle_table().get(h) {
        handles::Lookup::Live(c, seq) => HandleRef::Live(c, seq),
        handles::Lookup::Ended(t) => HandleRef::Ended(ended_id(&t)),
        handles::Lookup::Unknown => HandleRef::Unknown,
    }
}

/// The function id of an ended call's handle, for messages.
pub(crate) fn ended_id(t: &Option<Tombstone>) -> String {
    match t {
        Some(t) => unterminated(&t.function_id).to_string(),
        None => "an earlier call".into(),
    }
}

/// Logs a late use of an ended call's handle to its dispatcher's log sink.
pub(crate) fn log_late(h: usize, what: &str) {
    if let handles::Lookup::Ended(Some(t)) = handle_table().get(h) {
        if let Some(s) = t.shared.upgrade() {
            s.log(
                LogLevel::Warn,
                &format!(
                    "{what} for the call to {} after it ended was ignored",
                    unterminated(&t.function_id)
                ),
            );
        }
    }
}
