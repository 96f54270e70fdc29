//! `NameIndex`: from a job's name to its position, an open-addressing table of positions
//! over the names it indexes (no copy of a name, no reference count touched).
//!
//! Each slot holds a position and 32 bits of the name's hash, so a probe compares a name's
//! text only when the hash bits match. The hash is foldhash with a random seed per index:
//! several times faster than std's SipHash on short names, and a flow cannot be written to
//! collide without knowing the seed. The table is at most half full, and probing is linear.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;

use model_ids::JobName;

/// Job name to position.
#[derive(Clone)]
pub(super) struct NameIndex {
    hasher: RandomState,
    /// 0 for an empty slot, else `(hash >> 32) << 32 | (position + 1)`.
    slots: Vec<u64>,
    mask: usize,
}

impl NameIndex {
    /// Indexes `names` (at most `MAX_FLOW_JOBS`); also returns the first name given twice,
    /// as `(later, first)` positions.
    pub(super) fn new(names: &[JobName]) -> (Self, Option<(usize, usize)>) {
        let capacity = (names.len() * 2).next_power_of_two().max(8);
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
                        *empty = (hash & TAG) | (position as u64 + 1);
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

    /// Appends the position of each of `keys` to `out` ([`UNKNOWN`] for a name not
    /// indexed), as [`NameIndex::get`] would give it.
    ///
    /// Lookups go in batches: first every hash of the batch, then every first slot, then
    /// every candidate name, each step a loop of independent loads, so the processor waits
    /// for many cache misses at once instead of one after the other.
    pub(super) fn get_all<D: AsRef<str>>(&self, names: &[JobName], keys: &[D], out: &mut Vec<u32>) {
        const BATCH: usize = 16;
        for batch in keys.chunks(BATCH) {
            let mut hashes = [0u64; BATCH];
            for (hash, key) in hashes.iter_mut().zip(batch) {
                *hash = self.hasher.hash_one(key.as_ref());
            }
            let mut entries = [0u64; BATCH];
            for (entry, hash) in entries.iter_mut().zip(&hashes) {
                *entry = self
                    .slots
                    .get((*hash as usize) & self.mask)
                    .copied()
                    .unwrap_or_default();
            }
            let mut lengths = [0usize; BATCH];
            for (length, entry) in lengths.iter_mut().zip(&entries) {
                *length = position_of(*entry)
                    .and_then(|p| names.get(p))
                    .map_or(0, |n| n.len());
            }
            for ((key, hash), (entry, length)) in
                batch.iter().zip(hashes).zip(entries.iter().zip(lengths))
            {
                let key = key.as_ref();
                let first = (*entry & TAG == hash & TAG && length == key.len())
                    .then(|| position_of(*entry))
                    .flatten()
                    .filter(|&p| names.get(p).is_some_and(|n| n.as_str() == key));
                let found = match first {
                    Some(position) => Ok(position as u32),
                    None if *entry == 0 => Err(0),
                    None => self.find(names, key, hash),
                };
                out.push(found.unwrap_or(UNKNOWN));
            }
        }
    }

    /// `Ok(position)` when `name` is indexed, else `Err(slot)`: the empty slot it would take.
    fn find(&self, names: &[JobName], name: &str, hash: u64) -> Result<u32, usize> {
        let tag = hash & TAG;
        let mut slot = (hash as usize) & self.mask;
        loop {
            let entry = self.slots.get(slot).copied().unwrap_or_default();
            if entry == 0 {
                return Err(slot);
            }
            if entry & TAG == tag
                && let Some(position) = position_of(entry)
                && names.get(position).is_some_and(|n| n.as_str() == name)
            {
                return Ok(position as u32);
            }
            slot = (slot + 1) & self.mask;
        }
    }
}

impl std::fmt::Debug for NameIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NameIndex")
            .field("slots", &self.slots.len())
            .finish_non_exhaustive()
    }
}

/// The position a slot holds, if any.
fn position_of(entry: u64) -> Option<usize> {
    ((entry & !TAG) as usize).checked_sub(1)
}

/// What [`NameIndex::get_all`] gives for a name it does not hold.
pub(super) const UNKNOWN: u32 = u32::MAX;

/// The bits of a slot that hold the hash tag.
const TAG: u64 = 0xFFFF_FFFF_0000_0000;
