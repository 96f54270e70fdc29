//! `NameIndex`: from a job's name to its position, an open-addressing table of positions
//! over the names it indexes (no copy of a name, no reference count touched).
//!
//! A slot is four bytes: the position and 15 bits of the name's hash, so a probe compares
//! a name only when those bits match, and the table for 100,000 jobs takes 1 MiB (it stays
//! in a core's cache more than a table of keys would; a table of 24-byte slots holding each
//! name's first bytes measured slower). Beside it, each name's first 16 bytes by position
//! (1.6 MB at 100,000 jobs): a probe compares those and the name's length, and reads the
//! name's own text (an allocation of its own, a cache miss away) only past its 16th byte, so
//! nearly every lookup is a slot and one entry of an array. The hash is foldhash with
//! a random seed per index: several times faster than std's SipHash on short names, and a
//! flow cannot be written to collide without knowing the seed. The seed decides only where a
//! name sits in the table: no position, order, error or `Debug` output depends on it. The
//! table is at most three quarters full, and probing is linear.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;

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
    /// Each name's first bytes by position ([`head`]), so a lookup compares them here
    /// rather than following the name's pointer to its text.
    heads: Vec<[u64; 2]>,
}

impl NameIndex {
    /// Indexes `names` (at most `MAX_FLOW_JOBS`); also returns the first name given twice,
    /// as `(later, first)` positions.
    pub(super) fn new<N: AsRef<str>>(names: &[N]) -> (Self, Option<(usize, usize)>) {
        let capacity = (names.len() + names.len() / 3 + 1)
            .next_power_of_two()
            .max(8);
        let mut index = Self {
            hasher: RandomState::default(),
            slots: vec![0; capacity],
            mask: capacity - 1,
            heads: Vec::with_capacity(names.len()),
        };
        let mut duplicate = None;
        for (position, name) in names.iter().enumerate() {
            let name = name.as_ref();
            index.heads.push(head(name.as_bytes()));
            let hash = index.hasher.hash_one(name);
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
    pub(super) fn get<N: AsRef<str>>(&self, names: &[N], name: &str) -> Option<u32> {
        self.find(names, name, self.hasher.hash_one(name)).ok()
    }

    /// Appends the position of each of `keys` to `out` ([`UNKNOWN`] for a name not
    /// indexed), as [`NameIndex::get`] would give it.
    ///
    /// Lookups go in batches: first every hash of the batch, then every candidate slot, then
    /// every candidate's length, each step a loop of independent loads, so the processor
    /// waits for many cache misses at once instead of one after the other.
    pub(super) fn get_all<'a, N: AsRef<str>>(
        &self,
        names: &[N],
        keys: impl IntoIterator<Item = &'a str>,
        out: &mut Vec<u32>,
    ) {
        const BATCH: usize = 16;
        let mut keys = keys.into_iter().peekable();
        while keys.peek().is_some() {
            let mut batch = [""; BATCH];
            let mut len = 0;
            for (slot, key) in batch.iter_mut().zip(keys.by_ref()) {
                *slot = key;
                len += 1;
            }
            let batch = batch.get(..len).unwrap_or_default();
            let mut hashes = [0u64; BATCH];
            let mut keys = [[0u64; 2]; BATCH];
            for ((hash, head_of), name) in hashes.iter_mut().zip(&mut keys).zip(batch) {
                *hash = self.hasher.hash_one(name);
                *head_of = head(name.as_bytes());
            }
            let mut entries = [0u32; BATCH];
            for (entry, hash) in entries.iter_mut().zip(&hashes) {
                *entry = self.candidate(*hash);
            }
            let mut lengths = [usize::MAX; BATCH];
            let mut heads = [[0u64; 2]; BATCH];
            for ((length, head_of), entry) in lengths.iter_mut().zip(&mut heads).zip(&entries) {
                if let Some(p) = position_of(*entry)
                    && let (Some(name), Some(first)) = (names.get(p), self.heads.get(p))
                {
                    *length = name.as_ref().len();
                    *head_of = *first;
                }
            }
            for (i, name) in batch.iter().enumerate() {
                let (hash, entry) = (hashes.get(i).copied(), entries.get(i).copied());
                let (hash, entry) = (hash.unwrap_or_default(), entry.unwrap_or_default());
                let first = (entry != 0
                    && entry & !POSITION_MASK == tag(hash)
                    && lengths.get(i) == Some(&name.len())
                    && heads.get(i) == keys.get(i))
                .then(|| position_of(entry))
                .flatten()
                .filter(|&p| name.len() <= INLINE || same_rest(names, p, name));
                let found = match first {
                    Some(position) => Ok(position as u32),
                    None if entry == 0 => Err(0),
                    None => self.find(names, name, hash),
                };
                out.push(found.unwrap_or(UNKNOWN));
            }
        }
    }

    /// `Ok(position)` when `name` is indexed, else `Err(slot)`: the empty slot it would take.
    fn find<N: AsRef<str>>(&self, names: &[N], name: &str, hash: u64) -> Result<u32, usize> {
        let tag = tag(hash);
        let mut slot = self.start(hash);
        loop {
            let entry = self.slots.get(slot).copied().unwrap_or_default();
            if entry == 0 {
                return Err(slot);
            }
            if entry & !POSITION_MASK == tag
                && let Some(position) = position_of(entry)
                && names.get(position).map(|n| n.as_ref().len()) == Some(name.len())
                && self.heads.get(position) == Some(&head(name.as_bytes()))
                && (name.len() <= INLINE || same_rest(names, position, name))
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

/// Bytes of a name its head holds.
const INLINE: usize = 16;

/// A name's first 16 bytes as two words, read as whole words: of a name of 8 to 16 bytes,
/// its first 8 and its last 8 (they overlap below 16); of a shorter one, its bytes and
/// zeros. Two names of the same length up to 16 bytes are equal when their heads are.
#[inline]
fn head(bytes: &[u8]) -> [u64; 2] {
    let word = |at: usize| {
        bytes
            .get(at..at + 8)
            .and_then(|w| w.try_into().ok())
            .map_or(0, u64::from_le_bytes)
    };
    match bytes.len() {
        len @ 8..=INLINE => [word(0), word(len - 8)],
        0..8 => {
            let mut short = [0u8; 8];
            for (to, from) in short.iter_mut().zip(bytes) {
                *to = *from;
            }
            [u64::from_le_bytes(short), 0]
        }
        _ => [word(0), word(8)],
    }
}

/// Whether the name at `position` and `name` (of the same length and head) have the same
/// bytes past their heads.
fn same_rest<N: AsRef<str>>(names: &[N], position: usize, name: &str) -> bool {
    fn rest(n: &str) -> &[u8] {
        n.as_bytes().get(INLINE..).unwrap_or_default()
    }
    names
        .get(position)
        .is_some_and(|n| rest(n.as_ref()) == rest(name))
}

/// The position a slot holds, if any.
fn position_of(entry: u32) -> Option<usize> {
    ((entry & POSITION_MASK) as usize).checked_sub(1)
}
