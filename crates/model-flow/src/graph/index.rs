//! `NameIndex`: from a job's name to its position, an open-addressing table of buckets
//! over the names it indexes (no copy of a name, no reference count touched).
//!
//! A bucket is one cache line: up to three names' [`Key`]s and their positions. A key is a
//! name's first 16 bytes with its length folded into their free top bits, so a lookup
//! reads the one line its hash picks, compares keys there, and reads the name's own text
//! (a cache miss away) only past its 16th byte: nearly every lookup is one random access.
//! (Before, a table of 4-byte slots, position and hash tag, beside an array of keys by
//! position: two dependent accesses a lookup.) The table has one bucket for two names
//! (3.2 MB at 100,000 jobs), and probing is linear, bucket by bucket. The hash is foldhash
//! with a random seed per index, of the key's two words for a name of up to 16 bytes and
//! of the whole name past that: several times faster than std's SipHash, and a flow cannot
//! be written to collide without knowing the seed. The seed decides only where a name sits
//! in the table: no position, order, error or `Debug` output depends on it.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use model_ids::JOB_NAME_MAX_LEN;

/// What [`NameIndex::get_all`] gives for a name it does not hold.
pub(super) const UNKNOWN: u32 = u32::MAX;

/// Lookups [`NameIndex::get_all`] makes together.
const BATCH: usize = 16;

/// A name waiting for its lookup, with its key and first bucket.
#[derive(Clone, Copy, Default)]
struct Pending<'a> {
    name: &'a [u8],
    key: Key,
    home: usize,
}

/// Names a bucket holds.
const WIDTH: usize = 3;

/// One cache line of the table: up to three names' keys and their positions. A lookup
/// reads the line its name's hash picks, and the next only when that one is full.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Bucket {
    /// [`EMPTY`] for a free place; the places of a bucket fill in order.
    keys: [Key; WIDTH],
    positions: [u32; WIDTH],
}

impl Bucket {
    /// The position at the first place holding `key` ([`UNKNOWN`] if none), with `k0` its
    /// first place's key (loaded ahead by the caller). Chosen without a branch a place:
    /// which place holds a name is as good as random, so each branch would miss often.
    #[inline]
    fn holding(&self, k0: Key, key: Key) -> u32 {
        let [_, k1, k2] = self.keys;
        let [p0, p1, p2] = self.positions;
        let mut at = UNKNOWN;
        if k2 == key {
            at = p2;
        }
        if k1 == key {
            at = p1;
        }
        if k0 == key {
            at = p0;
        }
        at
    }
}

/// The key of a free place: no job name's (a name's length is in its key, and a job name
/// is not empty).
const EMPTY: Key = Key([0, 0]);

/// Job name to position.
#[derive(Clone)]
pub(super) struct NameIndex {
    hasher: RandomState,
    /// Two names a bucket on average, so at most two thirds of the places are taken, and
    /// every probe ends at a free place.
    buckets: Vec<Bucket>,
}

/// Names waiting to be indexed together ([`NameIndex::stage`]): each with its key and
/// first bucket, from position `start` on.
#[derive(Default)]
pub(super) struct Staged<'n> {
    pending: [(&'n [u8], Key, usize); BATCH],
    len: usize,
    start: usize,
}

impl Staged<'_> {
    /// Whether a batch is staged: then [`NameIndex::insert_staged`] before the next.
    pub(super) fn is_full(&self) -> bool {
        self.len == BATCH
    }
}

impl NameIndex {
    /// An empty index with room for `names` names (at most `MAX_FLOW_JOBS`).
    pub(super) fn with_capacity(names: usize) -> Self {
        Self {
            hasher: RandomState::default(),
            buckets: vec![Bucket::default(); names / 2 + 1],
        }
    }

    /// Indexes `names` (job names: at most `MAX_FLOW_JOBS`); also returns the first name
    /// given twice, as `(later, first)` positions.
    pub(super) fn new<N: AsRef<str>>(names: &[N]) -> (Self, Option<(usize, usize)>) {
        let mut index = Self::with_capacity(names.len());
        let mut staged = Staged::default();
        let mut duplicate = None;
        for name in names {
            if staged.is_full() {
                duplicate = duplicate.or(index.insert_staged(names, &mut staged));
            }
            index.stage(&mut staged, name.as_ref().as_bytes());
        }
        duplicate = duplicate.or(index.insert_staged(names, &mut staged));
        (index, duplicate)
    }

    /// Stages the next name (at the position after the last one staged) for
    /// [`NameIndex::insert_staged`], with its key and first bucket. Room for one more name
    /// is the caller's to make ([`Staged::is_full`]).
    pub(super) fn stage<'n>(&self, staged: &mut Staged<'n>, name: &'n [u8]) {
        let key = Key::of(name);
        let home = self.home(self.hash(key, name));
        if let Some(slot) = staged.pending.get_mut(staged.len) {
            *slot = (name, key, home);
            staged.len += 1;
        }
    }

    /// Indexes the staged names, at their positions among `names` (at most as many as the
    /// index has room for), and empties `staged`; returns the first of them given before,
    /// as `(later, first)` positions.
    ///
    /// First each name's first bucket is read, in a loop of nothing but those loads: they
    /// are independent, so their cache misses overlap, and the inserts after find their
    /// buckets in the cache. One after the other, each insert waited for its own miss
    /// (about a fifth of the wall time of a flow of 100,000 jobs).
    pub(super) fn insert_staged<N: AsRef<str>>(
        &mut self,
        names: &[N],
        staged: &mut Staged<'_>,
    ) -> Option<(usize, usize)> {
        let mut touched = 0u64;
        for &(_, _, home) in staged.pending.iter().take(staged.len) {
            touched ^= self.buckets.get(home).map_or(0, |b| b.keys[0].0[0]);
        }
        // The loads are kept (their values are used), not their result.
        std::hint::black_box(touched);
        let mut duplicate = None;
        for (offset, &(name, key, home)) in staged.pending.iter().take(staged.len).enumerate() {
            let position = staged.start + offset;
            if let Err(first) = self.insert(names, (position, name), key, home) {
                duplicate = duplicate.or(Some((position, first)));
            }
        }
        staged.start += staged.len;
        staged.len = 0;
        duplicate
    }

    /// Indexes `name`, at `position` among `names`, whose key is `key` and first bucket
    /// `home`, or gives the position of the same name indexed before.
    fn insert<N: AsRef<str>>(
        &mut self,
        names: &[N],
        (position, name): (usize, &[u8]),
        key: Key,
        home: usize,
    ) -> Result<(), usize> {
        // Most names are short and their first bucket has room: placed or found there
        // without the general probe (a call and its result through memory, about half
        // an insert's instructions).
        if name.len() <= INLINE
            && key != EMPTY
            && let Some(bucket) = self.buckets.get_mut(home)
            && let Some(place) = bucket.keys.iter().position(|&k| k == key || k == EMPTY)
            && let (Some(k), Some(p)) =
                (bucket.keys.get_mut(place), bucket.positions.get_mut(place))
        {
            if *k == key {
                return Err(*p as usize);
            }
            *k = key;
            *p = position as u32;
            return Ok(());
        }
        if name.len() <= INLINE && key != EMPTY {
            // A full first bucket: the same on through the buckets after, to the first
            // place holding the name or free. The walk is written out here and in
            // `after`: one iterator over the buckets after `home` for both cost 0.6 to
            // 1.6 M instructions a flow of 100,000 jobs (docs/performance.md).
            let len = self.buckets.len();
            let mut at = home;
            for _ in 1..len {
                at += 1;
                if at == len {
                    at = 0;
                }
                let Some(bucket) = self.buckets.get_mut(at) else {
                    break;
                };
                if let Some(place) = bucket.keys.iter().position(|&k| k == key || k == EMPTY)
                    && let (Some(k), Some(p)) =
                        (bucket.keys.get_mut(place), bucket.positions.get_mut(place))
                {
                    if *k == key {
                        return Err(*p as usize);
                    }
                    *k = key;
                    *p = position as u32;
                    return Ok(());
                }
            }
        }
        match self.find_from(names, key, name, home) {
            Ok(first) => Err(first as usize),
            Err((bucket, place)) => {
                if let Some(bucket) = self.buckets.get_mut(bucket)
                    && let (Some(k), Some(p)) =
                        (bucket.keys.get_mut(place), bucket.positions.get_mut(place))
                {
                    *k = key;
                    *p = position as u32;
                }
                Ok(())
            }
        }
    }

    /// The position of `name` among `names` (the names this index was built over).
    pub(super) fn get<N: AsRef<str>>(&self, names: &[N], name: &str) -> Option<u32> {
        // A key stands for its name only among job names (ASCII, at most JOB_NAME_MAX_LEN).
        if !is_job_name_shaped(name) || name.is_empty() {
            return None;
        }
        let name = name.as_bytes();
        let key = Key::of(name);
        self.find(names, key, name, self.hash(key, name)).ok()
    }

    /// Resolves the entries of `lists` (each as [`JobNames::as_encoded`] stores them: job
    /// names, or empty) to positions among `names`, appended to `deps` in order
    /// ([`UNKNOWN`] for a name not indexed, as [`NameIndex::get`] would give it), and
    /// appends where each list's end to `ends` (after a first 0).
    ///
    /// Lookups go in batches: first every key and bucket of the batch, then every
    /// bucket's first place, then the rest, each step a loop of independent loads, so the
    /// processor waits for many cache misses at once instead of one after the other.
    ///
    /// [`JobNames::as_encoded`]: crate::JobNames
    pub(super) fn get_all<N: AsRef<str>>(
        &self,
        names: &[N],
        lists: &[&str],
        deps: &mut Vec<u32>,
        ends: &mut Vec<u32>,
    ) {
        let mut batch = [Pending::default(); BATCH];
        let mut len = 0;
        let mut count = 0u32;
        ends.push(0);
        for (at, list) in lists.iter().enumerate() {
            if at % LISTS_AHEAD == 0 {
                touch_lists(lists.get(at + LISTS_AHEAD..).unwrap_or_default());
            }
            let mut rest = list.as_bytes();
            while let Some((&size, after)) = rest.split_first() {
                let Some((name, next)) = after.split_at_checked(usize::from(size)) else {
                    break;
                };
                rest = next;
                if len == BATCH {
                    self.flush(names, &batch, deps);
                    len = 0;
                }
                let key = Key::of(name);
                let home = self.home(self.hash(key, name));
                if let Some(slot) = batch.get_mut(len) {
                    *slot = Pending { name, key, home };
                }
                len += 1;
                count += 1;
            }
            ends.push(count);
        }
        self.flush(names, batch.get(..len).unwrap_or_default(), deps);
    }

    /// Looks up the names of `batch` and appends their positions to `deps`.
    fn flush<N: AsRef<str>>(&self, names: &[N], batch: &[Pending<'_>], deps: &mut Vec<u32>) {
        // Each lookup's first key, loaded before any compare waits on one: the loads are
        // independent, so their cache misses overlap.
        let mut firsts = [EMPTY; BATCH];
        for (first, pending) in firsts.iter_mut().zip(batch) {
            *first = self.buckets.get(pending.home).map_or(EMPTY, |b| b.keys[0]);
        }
        let mut found = [UNKNOWN; BATCH];
        for ((position, pending), &k0) in found.iter_mut().zip(batch).zip(&firsts) {
            let Pending { name, key, home } = *pending;
            // An empty name (text that is no job name): no such job.
            let Some(bucket) = self.buckets.get(home).filter(|_| key != EMPTY) else {
                continue;
            };
            let at = bucket.holding(k0, key);
            *position = if at != UNKNOWN && name.len() <= INLINE {
                at
            } else if at == UNKNOWN && bucket.keys[2] == EMPTY {
                // A bucket with room holds every name of its hash that is indexed.
                UNKNOWN
            } else if name.len() <= INLINE {
                // A full bucket: the name may be in the ones after.
                self.after(key, home)
            } else {
                // A long name: its rest to compare.
                self.find_from(names, key, name, home).unwrap_or(UNKNOWN)
            };
        }
        deps.extend_from_slice(found.get(..batch.len()).unwrap_or_default());
    }

    /// The position of the name of up to [`INLINE`] bytes whose key is `key`, looked for
    /// in the buckets after `home` (which is full and does not hold it), or [`UNKNOWN`]:
    /// [`NameIndex::find_from`]'s probe without its general compare and its result through
    /// memory.
    fn after(&self, key: Key, home: usize) -> u32 {
        let len = self.buckets.len();
        let mut at = home;
        // Every probe ends at a bucket with room; the bound only guards against a full table.
        for _ in 1..len {
            at += 1;
            if at == len {
                at = 0;
            }
            let Some(bucket) = self.buckets.get(at) else {
                break;
            };
            let found = bucket.holding(bucket.keys[0], key);
            if found != UNKNOWN || bucket.keys[2] == EMPTY {
                return found;
            }
        }
        UNKNOWN
    }

    /// `Ok(position)` when `name` (whose key is `key`, not [`EMPTY`]) is indexed, else
    /// `Err((bucket, place))`: the free place it would take.
    fn find<N: AsRef<str>>(
        &self,
        names: &[N],
        key: Key,
        name: &[u8],
        hash: u64,
    ) -> Result<u32, (usize, usize)> {
        self.find_from(names, key, name, self.home(hash))
    }

    /// [`NameIndex::find`] from bucket `home`, the one the name's hash picks.
    fn find_from<N: AsRef<str>>(
        &self,
        names: &[N],
        key: Key,
        name: &[u8],
        home: usize,
    ) -> Result<u32, (usize, usize)> {
        let len = self.buckets.len();
        let mut at = home;
        // Every probe ends at a free place; the bound only guards against a full table.
        for _ in 0..len {
            let Some(bucket) = self.buckets.get(at) else {
                break;
            };
            for (place, (&k, &position)) in bucket.keys.iter().zip(&bucket.positions).enumerate() {
                if k == EMPTY {
                    return Err((at, place));
                }
                if k == key && (name.len() <= INLINE || same_rest(names, position, name)) {
                    return Ok(position);
                }
            }
            at += 1;
            if at == len {
                at = 0;
            }
        }
        Err((len, 0))
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

    /// The bucket probed first for `hash`: its top bits scaled to the table's length.
    #[inline]
    fn home(&self, hash: u64) -> usize {
        // A last multiplication spreads every bit of the hash into the top ones: a short
        // name's hash is one folded multiplication of its key, and for names that differ
        // only in a few digits some seeds left its top bits clustered (probes of 2.5
        // buckets on average, against 1.23 for an even spread).
        let mixed = hash.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((u128::from(mixed) * self.buckets.len() as u128) >> 64) as usize
    }
}

impl std::fmt::Debug for NameIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NameIndex")
            .field("buckets", &self.buckets.len())
            .finish_non_exhaustive()
    }
}

/// Lists [`NameIndex::get_all`] reads ahead of the one it resolves.
const LISTS_AHEAD: usize = 8;

/// Reads the first and last byte of each of the first [`LISTS_AHEAD`] of `lists`, in a
/// loop of nothing but those loads: each list is an allocation of its own (a cache miss
/// away), and the loads are independent, so their misses overlap instead of each list's
/// parse waiting for its own (about a quarter of `get_all`'s samples).
fn touch_lists(lists: &[&str]) {
    let mut touched = 0u8;
    for list in lists.iter().take(LISTS_AHEAD) {
        let bytes = list.as_bytes();
        touched ^= bytes.first().copied().unwrap_or(0) ^ bytes.last().copied().unwrap_or(0);
    }
    // The loads are kept (their values are used), not their result.
    std::hint::black_box(touched);
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
fn same_rest<N: AsRef<str>>(names: &[N], position: u32, name: &[u8]) -> bool {
    names.get(position as usize).is_some_and(|n| {
        n.as_ref().as_bytes().get(INLINE..).unwrap_or_default()
            == name.get(INLINE..).unwrap_or_default()
    })
}

#[cfg(test)]
mod tests;
