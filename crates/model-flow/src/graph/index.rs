//! `NameIndex`: from a job's name to its position, an open-addressing table of positions
//! over the names it indexes (no copy of a name, no reference count touched).
//!
//! A slot is four bytes: the position and 15 bits of the name's hash, so a probe compares
//! a name only when those bits match, and the table for 100,000 jobs takes 1 MiB (it stays
//! in a core's cache more than a table of keys would; a table of 24-byte slots holding each
//! name's first bytes measured slower). Beside it, each name's [`Key`] by position (1.6 MB
//! at 100,000 jobs): its first 16 bytes with its length folded into their free top bits, so
//! a probe compares one entry of that array, and reads the name's own text (a cache miss
//! away) only past its 16th byte: nearly every lookup is a slot and one key. The hash is
//! foldhash with a random seed per index, of the key's two words for a name of up to 16
//! bytes (the words the lookup reads anyway) and of the whole name past that: several
//! times faster than std's SipHash, and a flow cannot be written to collide without knowing
//! the seed. The seed decides only where a name sits in the table: no position, order,
//! error or `Debug` output depends on it. The table is at most three quarters full, and
//! probing is linear.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use model_ids::JOB_NAME_MAX_LEN;

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
    /// Each name's key by position, so a lookup compares it here rather than following the
    /// name's pointer to its text.
    keys: Vec<Key>,
}

impl NameIndex {
    /// Indexes `names` (job names: at most `MAX_FLOW_JOBS`); also returns the first name
    /// given twice, as `(later, first)` positions.
    pub(super) fn new<N: AsRef<str>>(names: &[N]) -> (Self, Option<(usize, usize)>) {
        let capacity = (names.len() + names.len() / 3 + 1)
            .next_power_of_two()
            .max(8);
        let mut index = Self {
            hasher: RandomState::default(),
            slots: vec![0; capacity],
            mask: capacity - 1,
            keys: Vec::with_capacity(names.len()),
        };
        let mut duplicate = None;
        for (position, name) in names.iter().enumerate() {
            let name = name.as_ref().as_bytes();
            let key = Key::of(name);
            index.keys.push(key);
            let hash = index.hash(key, name);
            match index.find(names, key, name, hash) {
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
    pub(super) fn get<N: AsRef<str>>(&self, names: &[N], name: &str) -> Option<u32> {
        // A key stands for its name only among job names (ASCII, at most JOB_NAME_MAX_LEN).
        if !is_job_name_shaped(name) {
            return None;
        }
        let name = name.as_bytes();
        let key = Key::of(name);
        self.find(names, key, name, self.hash(key, name)).ok()
    }

    /// Appends the position of each of `keys` to `out` ([`UNKNOWN`] for a name not
    /// indexed), as [`NameIndex::get`] would give it. Each key is a job name or empty, as
    /// a [`JobNames`](crate::JobNames) holds them.
    ///
    /// Lookups go in batches: first every key and hash of the batch, then every candidate
    /// slot, then every candidate's key, each step a loop of independent loads, so the
    /// processor waits for many cache misses at once instead of one after the other.
    pub(super) fn get_all<'a, N: AsRef<str>>(
        &self,
        names: &[N],
        keys: impl IntoIterator<Item = &'a [u8]>,
        out: &mut Vec<u32>,
    ) {
        const BATCH: usize = 16;
        let mut keys = keys.into_iter();
        loop {
            let mut batch: [&[u8]; BATCH] = [&[]; BATCH];
            let mut len = 0;
            for (slot, key) in batch.iter_mut().zip(keys.by_ref()) {
                *slot = key;
                len += 1;
            }
            let batch = batch.get(..len).unwrap_or_default();
            let mut wanted = [Key::default(); BATCH];
            let mut hashes = [0u64; BATCH];
            for ((key, hash), name) in wanted.iter_mut().zip(&mut hashes).zip(batch) {
                *key = Key::of(name);
                *hash = self.hash(*key, name);
            }
            let mut entries = [0u32; BATCH];
            for (entry, hash) in entries.iter_mut().zip(&hashes) {
                *entry = self.candidate(*hash);
            }
            let mut found = [Key::default(); BATCH];
            for (key, entry) in found.iter_mut().zip(&entries) {
                if let Some(p) = position_of(*entry)
                    && let Some(k) = self.keys.get(p)
                {
                    *key = *k;
                }
            }
            let mut positions = [UNKNOWN; BATCH];
            let lookups = batch
                .iter()
                .zip(&hashes)
                .zip(&entries)
                .zip(&wanted)
                .zip(&found);
            for (position, ((((name, &hash), &entry), &key), found)) in
                positions.iter_mut().zip(lookups)
            {
                let hit = entry != 0 && entry & !POSITION_MASK == tag(hash) && *found == key;
                *position = match position_of(entry) {
                    Some(p) if hit && (name.len() <= INLINE || same_rest(names, p, name)) => {
                        p as u32
                    }
                    _ if entry == 0 => UNKNOWN,
                    _ => self.find(names, key, name, hash).unwrap_or(UNKNOWN),
                };
            }
            out.extend_from_slice(positions.get(..len).unwrap_or_default());
            if len < BATCH {
                return;
            }
        }
    }

    /// `Ok(position)` when `name` (whose key is `key`) is indexed, else `Err(slot)`: the
    /// empty slot it would take.
    fn find<N: AsRef<str>>(
        &self,
        names: &[N],
        key: Key,
        name: &[u8],
        hash: u64,
    ) -> Result<u32, usize> {
        let tag = tag(hash);
        let mut slot = self.start(hash);
        loop {
            let entry = self.slots.get(slot).copied().unwrap_or_default();
            if entry == 0 {
                return Err(slot);
            }
            if entry & !POSITION_MASK == tag
                && let Some(position) = position_of(entry)
                && self.keys.get(position) == Some(&key)
                && (name.len() <= INLINE || same_rest(names, position, name))
            {
                return Ok(position as u32);
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// The hash of a name whose key is `key`: of the key's two words when they hold the
    /// whole name, else of the name.
    #[inline]
    fn hash(&self, key: Key, name: &[u8]) -> u64 {
        if name.len() <= INLINE {
            let [first, second] = key.0;
            self.hasher
                .hash_one((u128::from(first) << 64) | u128::from(second))
        } else {
            self.hasher.hash_one(name)
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

/// Bytes of a name its key holds.
const INLINE: usize = 16;

/// Whether `name` could be a job name as far as keys go: ASCII (each byte's top bit free
/// for the length) and at most `JOB_NAME_MAX_LEN` bytes.
fn is_job_name_shaped(name: &str) -> bool {
    name.len() <= JOB_NAME_MAX_LEN && name.is_ascii()
}

/// A job name's first 16 bytes as two words, read as whole words, with the name's length in
/// the top bits of the second word's bytes (free in a job name, which is ASCII): of a name
/// of 8 to 16 bytes, its first 8 and its last 8 (they overlap below 16); of a shorter one,
/// its bytes and zeros. Two job names of up to 16 bytes are equal when their keys are, and
/// longer ones have equal first 16 bytes and lengths.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Key([u64; 2]);

impl Key {
    #[inline]
    fn of(bytes: &[u8]) -> Self {
        let word = |at: usize| {
            bytes
                .get(at..at + 8)
                .and_then(|w| w.try_into().ok())
                .map_or(0, u64::from_le_bytes)
        };
        let [first, second] = match bytes.len() {
            len @ 8..=INLINE => [word(0), word(len - 8)],
            0..8 => {
                let mut short = [0u8; 8];
                for (to, from) in short.iter_mut().zip(bytes) {
                    *to = *from;
                }
                [u64::from_le_bytes(short), 0]
            }
            _ => [word(0), word(8)],
        };
        Self([first, second | length_bits(bytes.len())])
    }
}

/// `len`'s seven low bits spread over the top bits of a word's first seven bytes (bit `k`
/// to bit `8k + 7`): one multiplication puts a copy of `len` at every seventh bit from bit
/// 7, no two of whose bits meet (so nothing carries), and the mask keeps bit `k` of copy
/// `k`.
const fn length_bits(len: usize) -> u64 {
    const COPIES: u64 = 1 << 7 | 1 << 14 | 1 << 21 | 1 << 28 | 1 << 35 | 1 << 42 | 1 << 49;
    const TOP_BITS: u64 = 0x0080_8080_8080_8080;
    ((len as u64 & 0x7f) * COPIES) & TOP_BITS
}

// Seven bits hold every length.
const _: () = assert!(JOB_NAME_MAX_LEN < 128);

/// Whether the name at `position` and `name` (of the same key) have the same bytes past
/// their first 16.
fn same_rest<N: AsRef<str>>(names: &[N], position: usize, name: &[u8]) -> bool {
    names.get(position).is_some_and(|n| {
        n.as_ref().as_bytes().get(INLINE..).unwrap_or_default()
            == name.get(INLINE..).unwrap_or_default()
    })
}

/// The position a slot holds, if any.
fn position_of(entry: u32) -> Option<usize> {
    ((entry & POSITION_MASK) as usize).checked_sub(1)
}

#[cfg(test)]
mod tests;
