//! Generation-checked handles for live calls and their pending gates.
//!
//! A handle is a `usize` that names a call to code outside the core, which keeps it as an
//! opaque value. It names a slot and the generation of the slot's occupant, so a handle kept after its call ended
//! (a second completion, a late answer from another thread) is recognised as stale and
//! refused with a status instead of touching freed memory. The low bits carry the
//! sequence number of one pending gate, so the answer to an old gate cannot be taken for
//! the answer to the current one.
//!
//! A [`Table`] holds live values `L` (calls) and, for released handles, tombstones `E`
//! (what a stale handle still tells). `call` keeps the process's one table of calls,
//! global because calls outlive dispatchers. Slots are recycled, never freed, so memory
//! stays flat, within twice the high-water mark of concurrent calls (slots come in chunks
//! that double, the first of 64: a cold start's first call makes 16 KiB of them).
//!
//! Every call whose host code is given a handle takes a slot and gives it back, so the
//! table is on the hot path: a slot is guarded by one lock of its own (taken once to
//! insert, once per look-up, once to release), freed slots are kept by the thread that
//! freed them for its next call (no shared lock), and a slot keeps the tombstones of two
//! kinds of occupant (a function of a dispatcher, and the lookups its calls make), so
//! releasing a handle usually makes nothing.

use parking_lot::Mutex;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

const SEQ_BITS: u32 = if usize::BITS == 64 { 8 } else { 6 };
const SLOT_BITS: u32 = if usize::BITS == 64 { 24 } else { 18 };
const GEN_BITS: u32 = usize::BITS - SEQ_BITS - SLOT_BITS;
const SEQ_MASK: usize = (1 << SEQ_BITS) - 1;
const SLOT_MASK: usize = (1 << SLOT_BITS) - 1;
const GEN_MASK: usize = if GEN_BITS >= usize::BITS {
    usize::MAX
} else {
    (1 << GEN_BITS) - 1
};
/// The first chunk's slots (as a power of two); each chunk after it holds twice as many as
/// the one before, so the table starts small (a process making a few calls at a time
/// allocates 16 KiB of slots when its first call takes one) and reaches every slot index
/// in a few chunks, and memory stays within twice the high-water mark of concurrent calls.
const FIRST_CHUNK_BITS: u32 = 6;
const FIRST_CHUNK: usize = 1 << FIRST_CHUNK_BITS;
/// Chunks enough for every slot index up to `SLOT_MASK`.
const CHUNKS: usize = (SLOT_BITS - FIRST_CHUNK_BITS + 1) as usize;

/// The chunk that holds slot `index`, and the slot's place in it.
fn locate(index: usize) -> (usize, usize) {
    let j = index + FIRST_CHUNK;
    let k = (usize::BITS - 1 - j.leading_zeros() - FIRST_CHUNK_BITS) as usize;
    (k, j - (FIRST_CHUNK << k))
}

const SHARDS: usize = 8;
/// How many freed slots a thread keeps for itself before it gives them back.
const LOCAL_FREE_MAX: usize = 64;

/// How many of a slot's latest generations keep their tombstone.
const RECENT: usize = 8;
/// A generation whose tombstone is gone.
const GONE: u8 = u8::MAX;

struct State<L, E> {
    generation: usize,
    live: Option<L>,
    /// The tombstones of the latest occupants: two kinds at most (a call and the lookups
    /// it makes alternate in one slot), so a run of calls of one or two functions makes
    /// no new tombstone.
    tombs: [Option<E>; 2],
    /// The latest released generations and which tombstone each left.
    recent: [(usize, u8); RECENT],
    next: usize,
}

impl<L, E> State<L, E> {
    fn tomb_of(&self, generation: usize) -> Option<&E> {
        self.recent
            .iter()
            .find(|(g, which)| *g == generation && *which != GONE)
            .and_then(|(_, which)| self.tombs[*which as usize].as_ref())
    }
}

/// Aligned so that the slots of calls running on different threads never share a cache
/// line.
#[repr(align(128))]
struct Slot<L, E> {
    state: Mutex<State<L, E>>,
}

/// One shard per cache line pair, so threads working on their own shards do not share
/// a line.
#[repr(align(128))]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A run of slots, allocated when first needed.
type Chunk<L, E> = OnceLock<Box<[Slot<L, E>]>>;

/// The free slots no thread keeps, sharded by thread.
type FreeLists = [Padded<Mutex<Vec<usize>>>; SHARDS];

/// The free slots this thread keeps, for one table (the one it used last).
struct LocalFree {
    owner: Option<Arc<FreeLists>>,
    slots: Vec<usize>,
}

impl LocalFree {
    /// Gives the slots back to their table (the thread ends, or moves to another table).
    fn give_back(&mut self) {
        if let Some(owner) = self.owner.take() {
            if !self.slots.is_empty() {
                owner[shard()].lock().append(&mut self.slots);
            }
        }
    }
}

impl Drop for LocalFree {
    fn drop(&mut self) {
        self.give_back();
    }
}

thread_local! {
    static LOCAL_FREE: RefCell<LocalFree> = const {
        RefCell::new(LocalFree { owner: None, slots: Vec::new() })
    };
}

/// A table of handles naming live values `L`; a released handle leaves a tombstone `E`.
pub(crate) struct Table<L, E> {
    chunks: [Chunk<L, E>; CHUNKS],
    fresh: AtomicUsize,
    free: Arc<FreeLists>,
}

fn shard() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! { static SHARD: usize = NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS; }
    SHARD.with(|s| *s)
}

/// The result of looking a handle up.
pub(crate) enum Lookup<L, E> {
    Live(L, u32),
    /// A handle whose value was released: its tombstone, or `None` when the slot has been
    /// reused many times since, or by occupants of two other kinds (the tombstone is gone).
    Ended(Option<E>),
    Unknown,
}

fn split(handle: usize) -> (usize, usize, u32) {
    (
        (handle >> SEQ_BITS) & SLOT_MASK,
        (handle >> (SLOT_BITS + SEQ_BITS)) & GEN_MASK,
        (handle & SEQ_MASK) as u32,
    )
}

impl<L: Clone, E: Clone> Table<L, E> {
    pub(crate) fn new() -> Self {
        Table {
            chunks: std::array::from_fn(|_| OnceLock::new()),
            // slot 0 is never used, so no handle is 0 (NULL)
            fresh: AtomicUsize::new(1),
            free: Arc::new(std::array::from_fn(|_| Padded(Mutex::new(Vec::new())))),
        }
    }

    fn slot(&self, index: usize) -> Option<&Slot<L, E>> {
        let (k, at) = locate(index);
        self.chunks.get(k)?.get()?.get(at)
    }

    /// A free slot this thread kept, if it kept one of this table's.
    fn local_take(&self) -> Option<usize> {
        LOCAL_FREE
            .try_with(|lf| {
                let mut lf = lf.borrow_mut();
                match &lf.owner {
                    Some(o) if Arc::ptr_eq(o, &self.free) => lf.slots.pop(),
                    _ => None,
                }
            })
            .ok()
            .flatten()
    }

    /// Keeps a freed slot for this thread's next insert (or gives it to the shared lists).
    fn local_put(&self, index: usize) {
        let kept = LOCAL_FREE
            .try_with(|lf| {
                let mut lf = lf.borrow_mut();
                let mine = matches!(&lf.owner, Some(o) if Arc::ptr_eq(o, &self.free));
                if !mine {
                    lf.give_back();
                    lf.owner = Some(self.free.clone());
                }
                if lf.slots.len() >= LOCAL_FREE_MAX {
                    // a thread that only ends calls started elsewhere: share half
                    let half = lf.slots.split_off(LOCAL_FREE_MAX / 2);
                    self.free[shard()].lock().extend(half);
                }
                lf.slots.push(index);
            })
            .is_ok();
        if !kept {
            self.free[shard()].lock().push(index);
        }
    }

    /// Registers a live value; returns its handle (`seq` bits zero), or `None` when the
    /// table is full.
    pub(crate) fn insert(&self, live: L) -> Option<usize> {
        let index = match self.local_take() {
            Some(i) => i,
            None => self.shared_take()?,
        };
        let s = self.slot(index)?;
        let mut st = s.state.lock();
        st.generation = (st.generation + 1) & GEN_MASK;
        if st.generation == 0 {
            st.generation = 1;
        }
        // a free slot holds no live value, so nothing of the host's is dropped here
        st.live = Some(live);
        Some((st.generation << (SLOT_BITS + SEQ_BITS)) | (index << SEQ_BITS))
    }

    /// A free slot from the shared lists, or a fresh one.
    fn shared_take(&self) -> Option<usize> {
        let me = shard();
        for i in 0..SHARDS {
            if let Some(found) = self.free[(me + i) % SHARDS].lock().pop() {
                return Some(found);
            }
        }
        let i = self.fresh.fetch_add(1, Ordering::Relaxed);
        if i > SLOT_MASK {
            return None;
        }
        let (k, _) = locate(i);
        self.chunks[k].get_or_init(|| {
            (0..FIRST_CHUNK << k)
                .map(|_| Slot {
                    state: Mutex::new(State {
                        generation: 0,
                        live: None,
                        tombs: [None, None],
                        recent: [(0, GONE); RECENT],
                        next: 0,
                    }),
                })
                .collect()
        });
        Some(i)
    }

    /// Runs `f` on the live value a handle names (and its gate sequence bits), under the
    /// slot's lock: `f` must be short and must not run host code or use the table. `None`
    /// when the handle names no live value ([`Table::get`] tells why).
    pub(crate) fn with<R>(&self, handle: usize, f: impl FnOnce(&L, u32) -> R) -> Option<R> {
        let (index, generation, seq) = split(handle);
        if index == 0 {
            return None;
        }
        let s = self.slot(index)?;
        let st = s.state.lock();
        if st.generation != generation {
            return None;
        }
        st.live.as_ref().map(|l| f(l, seq))
    }

    pub(crate) fn get(&self, handle: usize) -> Lookup<L, E> {
        let (index, generation, seq) = split(handle);
        if index == 0 || generation == 0 {
            return Lookup::Unknown;
        }
        let Some(s) = self.slot(index) else {
            return Lookup::Unknown;
        };
        let st = s.state.lock();
        if st.generation == generation {
            if let Some(l) = &st.live {
                return Lookup::Live(l.clone(), seq);
            }
        }
        if let Some(t) = st.tomb_of(generation) {
            return Lookup::Ended(Some(t.clone()));
        }
        // a handle of an earlier generation names a value released since
        let age = st.generation.wrapping_sub(generation) & GEN_MASK;
        if st.generation != 0 && age != 0 && age < (GEN_MASK >> 1) {
            return Lookup::Ended(None);
        }
        Lookup::Unknown
    }

    /// Ends a handle: later uses find its tombstone while the generation is among the
    /// slot's latest and its kind is kept. A tombstone the slot keeps stands when `same`
    /// says it is this one's (nothing is made); otherwise `make` makes it, in place of
    /// the one the latest occupant did not leave.
    pub(crate) fn release(
        &self,
        handle: usize,
        same: impl Fn(&E) -> bool,
        make: impl FnOnce() -> E,
    ) {
        let (index, generation, _) = split(handle);
        let Some(s) = self.slot(index) else { return };
        let (old, gone) = {
            let mut st = s.state.lock();
            if st.generation != generation || st.live.is_none() {
                return;
            }
            let old = st.live.take();
            let mut gone = None;
            let which = match st.tombs.iter().position(|t| t.as_ref().is_some_and(&same)) {
                Some(i) => i as u8,
                None => {
                    // the kind the latest occupant did not leave makes room
                    let latest = st.recent[(st.next + RECENT - 1) % RECENT].1;
                    let i = if latest == 0 { 1 } else { 0 };
                    gone = st.tombs[i].replace(make());
                    for r in st.recent.iter_mut() {
                        if r.1 == i as u8 {
                            r.1 = GONE;
                        }
                    }
                    i as u8
                }
            };
            let at = st.next;
            st.recent[at] = (generation, which);
            st.next = (at + 1) % RECENT;
            (old, gone)
        };
        // the value (and what it holds) is dropped outside the slot's lock
        drop(old);
        drop(gone);
        self.local_put(index);
    }
}

/// A handle for one pending gate of the call named by `handle`.
pub(crate) fn with_seq(handle: usize, seq: u32) -> usize {
    (handle & !SEQ_MASK) | (seq as usize & SEQ_MASK)
}

/// The gate sequence bits a handle carries.
pub(crate) fn seq_of(handle: usize) -> u32 {
    (handle & SEQ_MASK) as u32
}

/// How many gates (and entity lookups) one call may wait for: a gate handle carries the
/// low bits of its wait's sequence number, so past this many a stale handle could name a
/// later gate. 255 on 64-bit targets, 63 on 32-bit ones.
pub(crate) const MAX_GATE_WAITS: u32 = SEQ_MASK as u32;

/// The low bits of a gate sequence number as carried in handles.
pub(crate) fn seq_bits(seq: u32) -> u32 {
    (seq as usize & SEQ_MASK) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen_of(h: usize) -> usize {
        split(h).1
    }

    #[test]
    fn every_slot_index_has_one_place_in_the_doubling_chunks() {
        // the chunks tile the indexes without gaps or overlaps, up to the last index
        let run = |from: usize, to: usize| {
            let mut expected = locate(from);
            for index in from..=to {
                let (k, at) = locate(index);
                assert_eq!((k, at), expected, "{index}");
                assert!(k < CHUNKS && at < FIRST_CHUNK << k, "{index}");
                expected = if at + 1 == FIRST_CHUNK << k {
                    (k + 1, 0)
                } else {
                    (k, at + 1)
                };
            }
        };
        assert_eq!(locate(0), (0, 0));
        run(0, 5000);
        run(SLOT_MASK - 5000, SLOT_MASK);
        assert_eq!(locate(SLOT_MASK).0, CHUNKS - 1);
        // and the table makes slots in them: the first chunk full, the second begun
        let t: Table<u32, &'static str> = Table::new();
        let hs: Vec<usize> = (0..FIRST_CHUNK as u32 + 5)
            .map(|v| t.insert(v).unwrap())
            .collect();
        for (v, h) in hs.iter().enumerate() {
            assert_eq!(t.with(*h, |x, _| *x), Some(v as u32));
        }
        assert!(t.chunks[1].get().is_some() && t.chunks[2].get().is_none());
    }

    #[test]
    fn a_released_handle_is_ended_and_names_its_tombstone() {
        let t: Table<u32, &'static str> = Table::new();
        let h = t.insert(7).unwrap();
        assert!(matches!(t.get(h), Lookup::Live(7, 0)));
        assert_eq!(t.with(h, |v, _| *v), Some(7));
        assert!(matches!(t.get(with_seq(h, 3)), Lookup::Live(7, 3)));
        t.release(h, |_| false, || "a");
        assert!(matches!(t.get(h), Lookup::Ended(Some("a"))));
        assert_eq!(t.with(h, |v, _| *v), None);
        assert!(matches!(t.get(0), Lookup::Unknown));
        assert!(matches!(t.get(12345 << SEQ_BITS), Lookup::Unknown));
    }

    #[test]
    fn a_reused_slot_still_names_the_runs_of_its_previous_occupants() {
        let t: Table<u32, &'static str> = Table::new();
        // the same thread reuses the slot it freed
        let a1 = t.insert(1).unwrap();
        t.release(a1, |_| false, || "a");
        let a2 = t.insert(2).unwrap();
        assert_eq!(split(a1).0, split(a2).0);
        assert_eq!(gen_of(a2), gen_of(a1) + 1);
        // the same tombstone: kept, nothing made
        t.release(a2, |e| *e == "a", || unreachable!("the tombstone stands"));
        let b = t.insert(3).unwrap();
        assert!(matches!(t.get(b), Lookup::Live(3, 0)));
        assert!(matches!(t.get(a1), Lookup::Ended(Some("a"))));
        assert!(matches!(t.get(a2), Lookup::Ended(Some("a"))));
        t.release(b, |e| *e == "b", || "b");
        assert!(matches!(t.get(b), Lookup::Ended(Some("b"))));
        assert!(matches!(t.get(a2), Lookup::Ended(Some("a"))));
        // a third kind: the first run's tombstone is gone, its handles are still ended
        let c = t.insert(4).unwrap();
        t.release(c, |e| *e == "c", || "c");
        assert!(matches!(t.get(a1), Lookup::Ended(None)));
        assert!(matches!(t.get(b), Lookup::Ended(Some("b"))));
        assert!(matches!(t.get(c), Lookup::Ended(Some("c"))));
        // a handle of a generation the slot has not reached is unknown
        let future = (gen_of(c) + 5) << (SLOT_BITS + SEQ_BITS) | (split(c).0 << SEQ_BITS);
        assert!(matches!(t.get(future), Lookup::Unknown));
    }

    #[test]
    fn a_second_release_changes_nothing() {
        let t: Table<u32, &'static str> = Table::new();
        let h = t.insert(1).unwrap();
        t.release(h, |_| false, || "a");
        t.release(h, |_| false, || unreachable!("released already"));
        assert!(matches!(t.get(h), Lookup::Ended(Some("a"))));
    }

    #[test]
    fn slots_freed_on_other_threads_are_reused() {
        let t: Arc<Table<u32, &'static str>> = Arc::new(Table::new());
        let hs: Vec<usize> = (0..200).map(|i| t.insert(i).unwrap()).collect();
        let t2 = t.clone();
        std::thread::spawn(move || {
            for h in hs {
                t2.release(h, |_| false, || "x");
            }
        })
        .join()
        .unwrap();
        // the other thread kept at most LOCAL_FREE_MAX for itself and gave them back when
        // it ended: every slot is free again, none is fresh
        let fresh = t.fresh.load(Ordering::Relaxed);
        for i in 0..200 {
            t.insert(i).unwrap();
        }
        assert_eq!(t.fresh.load(Ordering::Relaxed), fresh);
    }
}
