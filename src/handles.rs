//! Generation-checked handles for live calls and their pending gates.
//!
//! A handle is a `usize` that a binding passes through C as an opaque pointer. It names a
//! slot and the generation of the slot's occupant, so a handle kept after its call ended
//! (a second completion, a late answer from another thread) is recognised as stale and
//! refused with a status instead of touching freed memory. The low bits carry the
//! sequence number of one pending gate, so the answer to an old gate cannot be taken for
//! the answer to the current one.
//!
//! The table is global because calls outlive dispatchers. Slots are recycled, never
//! freed, so memory stays flat at the high-water mark of concurrent calls.

use crate::call::Call;
use parking_lot::Mutex;
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
const CHUNK: usize = 1024;
const MAX_CHUNKS: usize = (1 << SLOT_BITS) / CHUNK;
const SHARDS: usize = 8;

/// What a stale handle still tells: which function it was, for the log.
#[derive(Clone)]
pub(crate) struct Tombstone {
    pub function_id: Arc<str>,
    pub shared: std::sync::Weak<crate::dispatcher::Shared>,
}

enum Entry {
    Free,
    Live(Arc<Call>),
    Ended(Tombstone),
}

/// Aligned so that the slots of calls running on different threads never share a cache
/// line.
#[repr(align(128))]
struct Slot {
    state: Mutex<(usize, Entry)>,
    /// The tombstone of the slot's previous occupant and its generation, kept when the
    /// slot is reused, so a late completion through its handle is still recognised
    /// (and logged) as "ended" rather than "unknown".
    prev: Mutex<Option<(usize, Tombstone)>>,
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

struct Table {
    chunks: Vec<OnceLock<Box<[Slot]>>>,
    fresh: AtomicUsize,
    free: [Padded<Mutex<Vec<usize>>>; SHARDS],
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table {
        chunks: (0..MAX_CHUNKS).map(|_| OnceLock::new()).collect(),
        // slot 0 is never used, so no handle is 0 (NULL)
        fresh: AtomicUsize::new(1),
        free: std::array::from_fn(|_| Padded(Mutex::new(Vec::new()))),
    })
}

fn shard() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! { static SHARD: usize = NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS; }
    SHARD.with(|s| *s)
}

fn slot(index: usize) -> Option<&'static Slot> {
    let t = table();
    let chunk = t.chunks.get(index / CHUNK)?.get()?;
    chunk.get(index % CHUNK)
}

/// The result of looking a handle up.
pub(crate) enum Lookup {
    Live(Arc<Call>, u32),
    Ended(Tombstone),
    Unknown,
}

/// Registers a live call; returns its handle (`seq` bits zero), or `None` when the table is
/// full.
pub(crate) fn insert(call: Arc<Call>) -> Option<usize> {
    let t = table();
    let me = shard();
    let index = {
        let mut found = t.free[me].lock().pop();
        if found.is_none() {
            for i in 1..SHARDS {
                found = t.free[(me + i) % SHARDS].lock().pop();
                if found.is_some() {
                    break;
                }
            }
        }
        match found {
            Some(i) => i,
            None => {
                let i = t.fresh.fetch_add(1, Ordering::Relaxed);
                if i > SLOT_MASK {
                    return None;
                }
                t.chunks[i / CHUNK].get_or_init(|| {
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
    let s = slot(index)?;
    let handle = {
        let mut st = s.state.lock();
        let old_generation = st.0;
        st.0 = (st.0 + 1) & GEN_MASK;
        if st.0 == 0 {
            st.0 = 1;
        }
        // a free slot holds no live call, so nothing of the host's is dropped here
        if let Entry::Ended(t) = std::mem::replace(&mut st.1, Entry::Live(call)) {
            *s.prev.lock() = Some((old_generation, t));
        }
        (st.0 << (SLOT_BITS + SEQ_BITS)) | (index << SEQ_BITS)
    };
    Some(handle)
}

/// A handle for one pending gate of the call named by `handle`.
pub(crate) fn with_seq(handle: usize, seq: u32) -> usize {
    (handle & !SEQ_MASK) | (seq as usize & SEQ_MASK)
}

/// The low bits of a gate sequence number as carried in handles.
pub(crate) fn seq_bits(seq: u32) -> u32 {
    (seq as usize & SEQ_MASK) as u32
}

pub(crate) fn get(handle: usize) -> Lookup {
    let index = (handle >> SEQ_BITS) & SLOT_MASK;
    let generation = (handle >> (SLOT_BITS + SEQ_BITS)) & GEN_MASK;
    let seq = (handle & SEQ_MASK) as u32;
    if index == 0 {
        return Lookup::Unknown;
    }
    let Some(s) = slot(index) else {
        return Lookup::Unknown;
    };
    let st = s.state.lock();
    if st.0 != generation {
        // the slot was reused: a handle of an earlier generation names a call that ended
        if let Some((g, t)) = &*s.prev.lock() {
            if *g == generation {
                return Lookup::Ended(t.clone());
            }
        }
        let age = st.0.wrapping_sub(generation) & GEN_MASK;
        if generation != 0 && age != 0 && age < (GEN_MASK >> 1) {
            return Lookup::Ended(Tombstone {
                function_id: Arc::from("an earlier call\0"),
                shared: std::sync::Weak::new(),
            });
        }
        return Lookup::Unknown;
    }
    match &st.1 {
        Entry::Live(c) => Lookup::Live(c.clone(), seq),
        Entry::Ended(t) => Lookup::Ended(t.clone()),
        Entry::Free => Lookup::Unknown,
    }
}

/// Ends a call's handle: later uses find a tombstone until the slot is reused.
pub(crate) fn release(handle: usize, tomb: Tombstone) {
    let index = (handle >> SEQ_BITS) & SLOT_MASK;
    let generation = (handle >> (SLOT_BITS + SEQ_BITS)) & GEN_MASK;
    let Some(s) = slot(index) else { return };
    let old = {
        let mut st = s.state.lock();
        if st.0 != generation || !matches!(st.1, Entry::Live(_)) {
            return;
        }
        std::mem::replace(&mut st.1, Entry::Ended(tomb))
    };
    // the call (and what it holds) is dropped outside the slot's lock
    drop(old);
    table().free[shard()].lock().push(index);
}
