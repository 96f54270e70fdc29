//! `NameIndex`: from a job's name to its position, an open-addressing table of positions
//! over the names it indexes (no copy of a name, no reference count touched).
//!
//! A slot is four bytes: the position and 15 bits of the name's hash, so a probe compares
//! a name's text only when those bits match, and the table for 100,000 jobs takes 1 MiB
//! (it stays in a core's cache more than a table of keys would). The hash is foldhash with
//! a random seed per index: several times faster than std's SipHash on short names, and a
//! flow cannot be written to collide without knowing the seed. The seed decides only where a
//! name sits in the table: no position, order, error or `Debug` output depends on it. The
//! table is at most three quarters full, and probing is linear.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use model_ids::JobName;

use crate::limits::MAX_FLOW_JOBS;

/// Bits of a slot that hold `position + 1`.
const POSITION_BITS: u32 = 17;
const POSITION_MASK: u32 = (1 << POSITION_BITS) - 1;

// Every position fits its bits, with 0 left for an empty slot.
const _: () = assert!(MAX_FLOW_JOBS < POSITION_MASK as usize);

/// What [`NameIndex::get_all`] gives for a name it does not hold.
pub(super) const UNKNOWN: u32 = u32::MAX;

/// Job name to position.
#[derive(Clone)]
pub(super) struct NameIndex {
    hasher: RandomState,
    /// 0 for an empty slot, else `tag << POSITION_BITS | (position + 1)`.
    slots: Vec<u32>,
    mask: usize,
}

impl NameIndex {
    /// Indexes `names` (at most `MAX_FLOW_JOBS`); also returns the first name given twice,
    /// as `(later, first)` positions.
    pub(super) fn new(names: &[JobName]) -> (Self, Option<(usize, usize)>) {
        let capacity = (names.len() + names.len() / 3 + 1)
            .next_power_of_two()
            .max(8);
        let mut index = Self {
            hasher: RandomState::default(),
            slots: vec![0; capacity],
            mask: capacity - 1,
        };
        let mut duplicate = None;
        for (position, name) in names.iter().enumerate() {
            let hash = index.hasher.hash_one(name.as_str());
            match index.find(names, name, hash) {
                Ok(first) => duplicate = duplicate.or(Some((position, first as usize))),
                Err(slot) => {
                    if let Some(empty) = index.slots.get_mut(slot) {
                        *empty = tag(hash) | (position as u32 + 1);
                    }
                }
            }
        }
        (index, duplicate)
    }

    /// The position of `name` among `names` (the names this index was built over).
    pub(super) fn get(&self, names: &[JobName], name: &str) -> Option<u32> {
        self.find(names, name, self.hasher.hash_one(name)).ok()
    }

    /// Appends the position of each name of each list to `out` ([`UNKNOWN`] for a name
    /// not indexed), as [`NameIndex::get`] would give it.
    ///
    /// Lookups go in batches: first every hash of the batch, then every candidate slot, then
    /// every candidate's length, each step a loop of independent loads, so the processor
    /// waits for many cache misses at once instead of one after the other.
    pub(super) fn get_all<'a, L, D>(&self, names: &[JobName], lists: L, out: &mut Vec<u32>)
    where
        L: IntoIterator<Item = &'a [D]>,
        D: AsRef<str> + 'a,
    {
        const BATCH: usize = 16;
        let mut keys = lists.into_iter().flatten().map(AsRef::as_ref).peekable();
        while keys.peek().is_some() {
            let mut batch = [""; BATCH];
            let mut len = 0;
            for (slot, key) in batch.iter_mut().zip(keys.by_ref()) {
                *slot = key;
                len += 1;
            }
            let batch = batch.get(..len).unwrap_or_default();
            let mut hashes = [0u64; BATCH];
            for (hash, key) in hashes.iter_mut().zip(batch) {
                *hash = self.hasher.hash_one(key);
            }
            let mut entries = [0u32; BATCH];
            for (entry, hash) in entries.iter_mut().zip(&hashes) {
                *entry = self.candidate(*hash);
            }
            let mut lengths = [usize::MAX; BATCH];
            for (length, entry) in lengths.iter_mut().zip(&entries) {
                if let Some(name) = position_of(*entry).and_then(|p| names.get(p)) {
                    *length = name.len();
                }
            }
            for (key, ((hash, entry), length)) in
                batch.iter().zip(hashes.iter().zip(entries).zip(lengths))
            {
                let first =
                    (entry != 0 && entry & !POSITION_MASK == tag(*hash) && length == key.len())
                        .then(|| position_of(entry))
                        .flatten()
                        .filter(|&p| {
                            names
                                .get(p)
                                .is_some_and(|n| same(n.as_bytes(), key.as_bytes()))
                        });
                let found = match first {
                    Some(position) => Ok(position as u32),
                    None if entry == 0 => Err(0),
                    None => self.find(names, key, *hash),
                };
                out.push(found.unwrap_or(UNKNOWN));
            }
        }
    }

    /// `Ok(position)` when `name` is indexed, else `Err(slot)`: the empty slot it would take.
    fn find(&self, names: &[JobName], name: &str, hash: u64) -> Result<u32, usize> {
        let tag = tag(hash);
        let mut slot = self.start(hash);
        loop {
            let entry = self.slots.get(slot).copied().unwrap_or_default();
            if entry == 0 {
                return Err(slot);
            }
            if entry & !POSITION_MASK == tag
                && let Some(position) = position_of(entry)
                && names
                    .get(position)
                    .is_some_and(|n| n.len() == name.len() && same(n.as_bytes(), name.as_bytes()))
            {
                return Ok(position as u32);
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// The first slot, of the few probed first for `hash`, that is empty or has `hash`'s
    /// tag, or else the last of them: nearly every lookup ends in these slots (they share a
    /// cache line, mostly), so the batch waits for them together and only the rest go on to
    /// [`NameIndex::find`].
    fn candidate(&self, hash: u64) -> u32 {
        const NEAR: usize = 4;
        let tag = tag(hash);
        let start = self.start(hash);
        let mut entry = 0;
        for step in 0..NEAR {
            entry = self
                .slots
                .get((start + step) & self.mask)
                .copied()
                .unwrap_or_default();
            if entry == 0 || entry & !POSITION_MASK == tag {
                break;
            }
        }
        entry
    }

    /// The first slot probed for `hash`.
    fn start(&self, hash: u64) -> usize {
        (hash as usize) & self.mask
    }
}

impl std::fmt::Debug for NameIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NameIndex")
            .field("slots", &self.slots.len())
            .finish_non_exhaustive()
    }
}

/// The tag bits of a slot for `hash`: its top bits, which the slot index does not use.
const fn tag(hash: u64) -> u32 {
    ((hash >> (64 - (32 - POSITION_BITS))) as u32) << POSITION_BITS
}

/// Whether two names of the same length are equal: names of up to 16 bytes (nearly all)
/// compare as two overlapping words each, inline, instead of calling `memcmp`.
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    let word = |bytes: &[u8], at: usize| {
        bytes
            .get(at..at + 8)
            .and_then(|w| w.try_into().ok())
            .map_or(0, u64::from_ne_bytes)
    };
    match a.len() {
        len @ 8..=16 if b.len() == len => {
            word(a, 0) == word(b, 0) && word(a, len - 8) == word(b, len - 8)
        }
        _ => a == b,
    }
}

/// The position a slot holds, if any.
fn position_of(entry: u32) -> Option<usize> {
    ((entry & POSITION_MASK) as usize).checked_sub(1)
}
