//! Generation-checked handles for live calls and their pending gates.
//!
//! A handle is a `usize` that a binding passes through C as an opaque pointer. It names a
//! slot and the generation of the slot's occupant, so a handle kept after its call ended
//! (a second completion, a late answer from another thread) is recognised as stale and
//! refused with a status instead of touching freed memory. The low bits carry the
//! sequence number of one pending gate, so the answer to an old gate cannot be taken for
//! the answer to the current one.
//!
//! A [`Table`] holds live values `L` (calls) and, for a released handle, a tombstone `E`
//! (what a stale handle still tells). `call` keeps the process's one table of calls,
//! global because calls outlive dispatchers. Slots are recycled, never freed, so memory
//! stays flat at the high-water mark of concurrent calls.

use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

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
const CHUNK: usize = 1024;
const MAX_CHUNKS: usize = (1 << SLOT_BITS) / CHUNK;
const SHARDS: usize = 8;

enum Entry<L, E> {
    Free,
    Live(L),
    Ended(E),
}

/// Aligned so that the slots of calls running on different threads never share a cache
/// line.
#[repr(align(128))]
struct Slot<L, E> {
    state: Mutex<(usize, Entry<L, E>)>,
    /// The tombstone of the slot's previous occupant and its generation, kept when the
    /// slot is reused, so a late completion through its handle is still recognised
    /// (and logged) as "ended" rather than "unknown".
    prev: Mutex<Option<(usize, E)>>,
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

/// A table of handles naming live values `L`; a released handle leaves a tombstone `E`.
pub(crate) struct Table<L, E> {
    chunks: Vec<Chunk<L, E>>,
    fresh: AtomicUsize,
    free: [Padded<Mutex<Vec<usize>>>; SHARDS],
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
    /// reused since by more than one occupant (the tombstone is gone).
    Ended(Option<E>),
    Unknown,
}

impl<L: Clone, E: Clone> Table<L, E> {
    pub(crate) fn new() -> Self {
        Table {
            chunks: (0..MAX_CHUNKS).map(|_| OnceLock::new()).collect(),
            // slot 0 is never used, so no handle is 0 (NULL)
            fresh: AtomicUsize::new(1),
            free: std::array::from_fn(|_| Padded(Mutex::new(Vec::new()))),
        }
    }

    fn slot(&self, index: usize) -> Option<&Slot<L, E>> {
        let chunk = self.chunks.get(index / CHUNK)?.get()?;
        chunk.get(index % CHUNK)
    }

    /// Registers a live value; returns its handle (`seq` bits zero), or `None` when the
    /// table is full.
    pub(crate) fn insert(&self, live: L) -> Option<usize> {
        let me = shard();
        let index = {
            let mut found = self.free[me].lock().pop();
            if found.is_none() {
                for i in 1..SHARDS {
                    found = self.free[(me + i) % SHARDS].lock().pop();
                    if found.is_some() {
                        break;
                    }
                }
            }
            match found {
                Some(i) => i,
                None => {
                    let i = self.fresh.fetch_add(1, Ordering::Relaxed);
                    if i > SLOT_MASK {
                        return None;
                    }
                    self.chunks[i / CHUNK].get_or_init(|| {
                        (0..CHUNK)
                            .map(|_| Slot {
                                state: Mutex::new((0, Entry::Free)),
                                prev: Mutex::new(None),
                            })
                            .collect()
                    });
                    i
                }
            }
        };
        let s = self.slot(index)?;
        let handle = {
            let mut st = s.state.lock();
            let old_generation = st.0;
            st.0 = (st.0 + 1) & GEN_MASK;
            if st.0 == 0 {
                st.0 = 1;
            }
            // a free slot holds no live value, so nothing of the host's is dropped here
            if let Entry::Ended(t) = std::mem::replace(&mut st.1, Entry::Live(live)) {
                *s.prev.lock() = Some((old_generation, t));
            }
            (st.0 << (SLOT_BITS + SEQ_BITS)) | (index << SEQ_BITS)
        };
        Some(handle)
    }

    pub(crate) fn get(&self, handle: usize) -> Lookup<L, E> {
        let index = (handle >> SEQ_BITS) & SLOT_MASK;
        let generation = (handle >> (SLOT_BITS + SEQ_BITS)) & GEN_MASK;
        let seq = (handle & SEQ_MASK) as u32;
        if index == 0 {
            return Lookup::Unknown;
        }
        let Some(s) = self.slot(index) else {
            return Lookup::Unknown;
        };
        let st = s.state.lock();
        if st.0 != generation {
            // the slot was reused: a handle of an earlier generation names a value released
            if let Some((g, t)) = &*s.prev.lock() {
                if *g == generation {
                    return Lookup::Ended(Some(t.clone()));
                }
            }
            let age = st.0.wrapping_sub(generation) & GEN_MASK;
            if generation != 0 && age != 0 && age < (GEN_MASK >> 1) {
                return Lookup::Ended(None);
            }
            return Lookup::Unknown;
        }
        match &st.1 {
            Entry::Live(c) => Lookup::Live(c.clone(), seq),
            Entry::Ended(t) => Lookup::Ended(Some(t.clone())),
            Entry::Free => Lookup::Unknown,
        }
    }

    /// Ends a handle: later uses find `tomb` until the slot is reused.
    pub(crate) fn release(&self, handle: usize, tomb: E) {
        let index = (handle >> SEQ_BITS) & SLOT_MASK;
        let generation = (handle >> (SLOT_BITS + SEQ_BITS)) & GEN_MASK;
        let Some(s) = self.slot(index) else { return };
        let old = {
            let mut st = s.state.lock();
            if st.0 != generation || !matches!(st.1, Entry::Live(_)) {
                return;
            }
            std::mem::replace(&mut st.1, Entry::Ended(tomb))
        };
        // the value (and what it holds) is dropped outside the slot's lock
        drop(old);
        self.free[shard()].lock().push(index);
    }
}

/// A handle for one pending gate of the call named by `handle`.
pub(crate) fn with_seq(handle: usize, seq: u32) -> usize {
    (handle & !SEQ_MASK) | (seq as usize & SEQ_MASK)
}

/// The low bits of a gate sequence number as carried in handles.
pub(crate) fn seq_bits(seq: u32) -> u32 {
    (seq as usize & SEQ_MASK) as u32
}
