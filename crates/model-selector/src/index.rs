//! `RunnerIndex`: labeled entries behind lock-free snapshots, answering selectors from
//! an inverted index of per-chunk bitmaps.
//!
//! # Layout
//!
//! A [`Snapshot`] keeps its entries sorted by runner id and cut into chunks of at most
//! [`CHUNK_CAPACITY`] entries. Each chunk holds its ids, labels and payloads in parallel
//! vectors and, for every label term it contains, a bitmap over its positions: one for each
//! `(key, value)` pair (used by `matchLabels`, `In` and `NotIn`) and one for each key (used
//! by `Exists` and `DoesNotExist`). A query turns the selector into a plan once, then per
//! chunk ANDs the bitmaps of the positive requirements, clears the bits of the negative
//! ones, and walks the set bits in order, so results come in runner id order. Only `Gt`
//! and `Lt` cannot be answered from bitmaps; they are verified on the remaining candidates
//! with [`LabelSelector::matches`]. A selector with no positive requirement starts from all
//! entries of the chunk: that is the scan, and it allocates nothing per entry.
//!
//! Chunks are shared between snapshots behind [`Arc`]s. A batch copies only the chunks it
//! touches (their bitmaps are shared too, and copied only where a bit changes), so a batch
//! of a hundred changes over a hundred thousand runners costs a few hundred chunk copies at
//! most, not a rebuild.

use std::{
    borrow::Borrow,
    collections::HashMap,
    fmt,
    hash::{BuildHasherDefault, Hash, Hasher},
    ops::Deref,
    sync::{Arc, Mutex, PoisonError},
};

use arc_swap::ArcSwap;
use model_ids::RunnerId;

use crate::{
    error::SelectorError, labels::Labels, operator::SelectorOperator, selector::LabelSelector,
};

/// Most entries in one index (and one [`Snapshot`]).
pub const MAX_RUNNERS: usize = 1_000_000;

/// Most operations in one [`Batch`].
pub const MAX_BATCH_OPS: usize = 100_000;

/// Most entries in one chunk of a [`Snapshot`]: the width of its bitmaps.
pub const CHUNK_CAPACITY: usize = 1024;

/// Words in one chunk bitmap.
const WORDS: usize = CHUNK_CAPACITY / 64;

/// How full [`Snapshot::from_entries`] packs a chunk, leaving room for inserts.
const BUILD_FILL: usize = CHUNK_CAPACITY * 3 / 4;

/// A chunk that shrinks below this is merged with its successor when they fit together.
const MERGE_BELOW: usize = CHUNK_CAPACITY / 4;

/// One bit per position of a chunk.
type Bits = [u64; WORDS];

const NO_BITS: Bits = [0; WORDS];

// ---------------------------------------------------------------------------------------
// Terms: what a posting bitmap is keyed by.

/// A 64-bit fingerprint of a term: FNV-1a over the key, a separator byte that no key or
/// value contains (0 before a value, 1 for a key-only term), the value, then a splitmix64
/// finalizer so the low bits a hash table uses are well mixed.
fn fingerprint(key: &str, value: Option<&str>) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = OFFSET;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(PRIME);
        }
    };
    eat(key.as_bytes());
    match value {
        Some(value) => {
            eat(&[0]);
            eat(value.as_bytes());
        }
        None => eat(&[1]),
    }
    let mut z = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A term as a hash-map key, owned ([`TermKey`]) or borrowed ([`Probe`]), so lookups need
/// no allocation. Hashing writes only the fingerprint; equality compares the strings too.
trait Term {
    fn fp(&self) -> u64;
    fn key(&self) -> &str;
    fn value(&self) -> Option<&str>;
}

impl Hash for dyn Term + '_ {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.fp());
    }
}

impl PartialEq for dyn Term + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.fp() == other.fp() && self.key() == other.key() && self.value() == other.value()
    }
}

impl Eq for dyn Term + '_ {}

/// An owned term; the strings are shared with the chunk's copies.
#[derive(Clone)]
struct TermKey {
    fp: u64,
    key: Arc<str>,
    value: Option<Arc<str>>,
}

impl Term for TermKey {
    fn fp(&self) -> u64 {
        self.fp
    }
    fn key(&self) -> &str {
        &self.key
    }
    fn value(&self) -> Option<&str> {
        self.value.as_deref()
    }
}

impl Hash for TermKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.fp);
    }
}

impl PartialEq for TermKey {
    fn eq(&self, other: &Self) -> bool {
        (self as &dyn Term) == (other as &dyn Term)
    }
}

impl Eq for TermKey {}

impl<'a> Borrow<dyn Term + 'a> for TermKey {
    fn borrow(&self) -> &(dyn Term + 'a) {
        self
    }
}

/// A borrowed term to look up.
#[derive(Clone, Copy)]
struct Probe<'q> {
    fp: u64,
    key: &'q str,
    value: Option<&'q str>,
}

impl<'q> Probe<'q> {
    fn new(key: &'q str, value: Option<&'q str>) -> Self {
        Self {
            fp: fingerprint(key, value),
            key,
            value,
        }
    }
}

impl Term for Probe<'_> {
    fn fp(&self) -> u64 {
        self.fp
    }
    fn key(&self) -> &str {
        self.key
    }
    fn value(&self) -> Option<&str> {
        self.value
    }
}

/// A hasher for keys that are already fingerprints: it passes the `u64` through.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used by the term keys; fold anything else in anyway.
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type Postings = HashMap<TermKey, Arc<Bits>, BuildHasherDefault<PassThrough>>;

// ---------------------------------------------------------------------------------------
// Bit helpers.

fn live_mask(len: usize) -> Bits {
    let mut bits = NO_BITS;
    for (i, word) in bits.iter_mut().enumerate() {
        let from = i * 64;
        if len >= from + 64 {
            *word = u64::MAX;
        } else if len > from {
            *word = (1_u64 << (len - from)) - 1;
        }
    }
    bits
}

fn set_bit(bits: &mut Bits, pos: usize, on: bool) {
    if let Some(word) = bits.get_mut(pos / 64) {
        let mask = 1_u64 << (pos % 64);
        if on {
            *word |= mask;
        } else {
            *word &= !mask;
        }
    }
}

fn is_zero(bits: &Bits) -> bool {
    bits.iter().all(|&w| w == 0)
}

/// Makes room at `pos`: every bit at `pos` or above moves up by one; bit `pos` becomes 0.
/// The top bit falls off (callers never insert into a full chunk).
fn shift_up(bits: &mut Bits, pos: usize) {
    let (w, b) = (pos / 64, pos % 64);
    let low = (1_u64 << b) - 1;
    let mut carry = 0;
    for (j, word) in bits.iter_mut().enumerate().skip(w) {
        let old = *word;
        *word = if j == w {
            (old & low) | ((old & !low) << 1)
        } else {
            (old << 1) | carry
        };
        carry = old >> 63;
    }
}

/// Closes the gap at `pos`: bit `pos` is dropped and every bit above moves down by one.
fn shift_down(bits: &mut Bits, pos: usize) {
    let (w, b) = (pos / 64, pos % 64);
    let low = (1_u64 << b) - 1;
    for j in w..WORDS {
        // The lowest bit of the next word (read before that word is shifted) comes down.
        let carry = bits.get(j + 1).map_or(0, |next| next << 63);
        if let Some(word) = bits.get_mut(j) {
            *word = if j == w {
                (*word & low) | ((*word >> 1) & !low) | carry
            } else {
                (*word >> 1) | carry
            };
        }
    }
}

// ---------------------------------------------------------------------------------------
// Chunks.

/// Up to [`CHUNK_CAPACITY`] consecutive entries (by runner id) and their postings.
struct Chunk<P> {
    ids: Vec<RunnerId>,
    labels: Vec<Arc<Labels>>,
    payloads: Vec<P>,
    postings: Postings,
}

impl<P: Clone> Clone for Chunk<P> {
    fn clone(&self) -> Self {
        Self {
            ids: self.ids.clone(),
            labels: self.labels.clone(),
            payloads: self.payloads.clone(),
            postings: self.postings.clone(),
        }
    }
}

impl<P> Chunk<P> {
    fn build(ids: Vec<RunnerId>, labels: Vec<Arc<Labels>>, payloads: Vec<P>) -> Self {
        let mut chunk = Self {
            ids,
            labels,
            payloads,
            postings: Postings::default(),
        };
        for pos in 0..chunk.ids.len() {
            chunk.index(pos, true);
        }
        chunk
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn posting(&self, probe: &Probe<'_>) -> Option<&Bits> {
        self.postings
            .get(probe as &dyn Term)
            .map(|bits| bits.as_ref())
    }

    /// Sets (or clears) bit `pos` in the postings of every term of the labels at `pos`.
    fn index(&mut self, pos: usize, on: bool) {
        let Some(labels) = self.labels.get(pos).cloned() else {
            return;
        };
        for (key, value) in labels.iter() {
            self.mark(Probe::new(key, Some(value)), pos, on);
            self.mark(Probe::new(key, None), pos, on);
        }
    }

    fn mark(&mut self, probe: Probe<'_>, pos: usize, on: bool) {
        if let Some(bits) = self.postings.get_mut(&probe as &dyn Term) {
            let bits = Arc::make_mut(bits);
            set_bit(bits, pos, on);
            if !on && is_zero(bits) {
                self.postings.remove(&probe as &dyn Term);
            }
        } else if on {
            let mut bits = NO_BITS;
            set_bit(&mut bits, pos, true);
            let key = TermKey {
                fp: probe.fp,
                key: Arc::from(probe.key),
                value: probe.value.map(Arc::from),
            };
            self.postings.insert(key, Arc::new(bits));
        }
    }

    fn insert(&mut self, pos: usize, id: RunnerId, labels: Labels, payload: P) {
        for bits in self.postings.values_mut() {
            shift_up(Arc::make_mut(bits), pos);
        }
        self.ids.insert(pos, id);
        self.labels.insert(pos, Arc::new(labels));
        self.payloads.insert(pos, payload);
        self.index(pos, true);
    }

    fn replace(&mut self, pos: usize, labels: Labels, payload: P) {
        if let Some(slot) = self.payloads.get_mut(pos) {
            *slot = payload;
        }
        if self.labels.get(pos).is_some_and(|old| **old == labels) {
            return;
        }
        self.index(pos, false);
        if let Some(slot) = self.labels.get_mut(pos) {
            *slot = Arc::new(labels);
        }
        self.index(pos, true);
    }

    fn remove(&mut self, pos: usize) {
        self.index(pos, false);
        for bits in self.postings.values_mut() {
            shift_down(Arc::make_mut(bits), pos);
        }
        self.ids.remove(pos);
        self.labels.remove(pos);
        self.payloads.remove(pos);
    }

    /// The positions that satisfy every bitmap-answerable requirement of `plan`.
    fn eval(&self, plan: &Plan<'_>) -> Bits {
        let mut acc: Option<Bits> = None;
        for step in &plan.steps {
            let probes = plan.probes.get(step.start..step.end).unwrap_or(&[]);
            if step.negative {
                let acc = acc.get_or_insert_with(|| live_mask(self.len()));
                for probe in probes {
                    if let Some(bits) = self.posting(probe) {
                        for (a, b) in acc.iter_mut().zip(bits) {
                            *a &= !b;
                        }
                    }
                }
            } else {
                let mut union: Option<Bits> = None;
                for probe in probes {
                    if let Some(bits) = self.posting(probe) {
                        match &mut union {
                            None => union = Some(*bits),
                            Some(union) => {
                                for (u, b) in union.iter_mut().zip(bits) {
                                    *u |= b;
                                }
                            }
                        }
                    }
                }
                let Some(union) = union else {
                    return NO_BITS;
                };
                match &mut acc {
                    None => acc = Some(union),
                    Some(acc) => {
                        for (a, u) in acc.iter_mut().zip(&union) {
                            *a &= u;
                        }
                    }
                }
                if acc.as_ref().is_some_and(is_zero) {
                    return NO_BITS;
                }
            }
        }
        acc.unwrap_or_else(|| live_mask(self.len()))
    }

    fn entry(&self, pos: usize) -> Option<RunnerEntry<'_, P>> {
        Some(RunnerEntry {
            id: self.ids.get(pos)?,
            labels: self.labels.get(pos)?,
            payload: self.payloads.get(pos)?,
        })
    }
}

// ---------------------------------------------------------------------------------------
// Query plans.

/// One requirement as bitmap work: the union of the postings of `probes[start..end]`,
/// intersected (positive) or subtracted (negative).
struct Step {
    negative: bool,
    start: usize,
    end: usize,
}

/// A selector turned into probes once per query.
struct Plan<'q> {
    probes: Vec<Probe<'q>>,
    steps: Vec<Step>,
    /// `Gt` or `Lt` present: candidates must be checked with `matches`.
    verify: bool,
}

impl<'q> Plan<'q> {
    fn new(selector: &'q LabelSelector) -> Self {
        let mut plan = Self {
            probes: Vec::new(),
            steps: Vec::new(),
            verify: false,
        };
        for (key, value) in selector.match_labels() {
            plan.step(false, [Probe::new(key, Some(value))]);
        }
        for req in selector.match_expressions() {
            let key = req.key();
            match req.operator() {
                SelectorOperator::In => {
                    plan.step(false, req.values().map(|v| Probe::new(key, Some(v))));
                }
                SelectorOperator::NotIn => {
                    plan.step(true, req.values().map(|v| Probe::new(key, Some(v))));
                }
                SelectorOperator::Exists => plan.step(false, [Probe::new(key, None)]),
                SelectorOperator::DoesNotExist => plan.step(true, [Probe::new(key, None)]),
                SelectorOperator::Gt | SelectorOperator::Lt => plan.verify = true,
            }
        }
        // Positive steps first (fewest probes first: equality narrows fastest), so the
        // first one seeds the candidates and an empty intersection stops a chunk early.
        plan.steps.sort_by_key(|s| (s.negative, s.end - s.start));
        plan
    }

    fn step(&mut self, negative: bool, probes: impl IntoIterator<Item = Probe<'q>>) {
        let start = self.probes.len();
        self.probes.extend(probes);
        self.steps.push(Step {
            negative,
            start,
            end: self.probes.len(),
        });
    }
}

// ---------------------------------------------------------------------------------------
// Snapshots.

/// One entry of an index, borrowed from a [`Snapshot`].
#[derive(Debug)]
pub struct RunnerEntry<'s, P> {
    id: &'s RunnerId,
    labels: &'s Labels,
    payload: &'s P,
}

impl<P> Clone for RunnerEntry<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for RunnerEntry<'_, P> {}

impl<'s, P> RunnerEntry<'s, P> {
    /// The runner id.
    pub fn id(&self) -> &'s RunnerId {
        self.id
    }

    /// The runner's labels.
    pub fn labels(&self) -> &'s Labels {
        self.labels
    }

    /// The caller's payload.
    pub fn payload(&self) -> &'s P {
        self.payload
    }
}

/// An immutable state of a [`RunnerIndex`]: entries in runner id order with their inverted
/// index. Readers keep using a snapshot for as long as they like; writers never change it.
///
/// ```
/// use model_ids::RunnerId;
/// use model_selector::{LabelSelector, Labels, Snapshot};
///
/// let runner = |id: &str, labels: &str| -> Result<_, Box<dyn std::error::Error>> {
///     let labels: Vec<(&str, &str)> = labels.split(',').filter_map(|kv| kv.split_once('=')).collect();
///     Ok((RunnerId::new(id)?, Labels::from_pairs(labels)?, ()))
/// };
/// let snapshot = Snapshot::from_entries([
///     runner("b", "zone=eu,gpu=h100")?,
///     runner("a", "zone=eu")?,
///     runner("c", "zone=us,gpu=h100")?,
/// ])?;
/// let selector: LabelSelector = "zone=eu,gpu".parse()?;
/// let ids: Vec<&str> = snapshot.select(&selector).map(|e| e.id().as_ref()).collect();
/// assert_eq!(ids, ["b"]);
/// assert_eq!(snapshot.count(&"gpu=h100".parse()?), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Snapshot<P> {
    chunks: Vec<Arc<Chunk<P>>>,
    len: usize,
}

impl<P> Default for Snapshot<P> {
    fn default() -> Self {
        Self {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<P> Clone for Snapshot<P> {
    fn clone(&self) -> Self {
        Self {
            chunks: self.chunks.clone(),
            len: self.len,
        }
    }
}

impl<P> fmt::Debug for Snapshot<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snapshot")
            .field("len", &self.len)
            .field("chunks", &self.chunks.len())
            .finish()
    }
}

impl<P> Snapshot<P> {
    /// An empty snapshot.
    pub fn new() -> Self {
        Self::default()
    }

    /// A snapshot of these entries, in any order.
    ///
    /// # Errors
    ///
    /// [`SelectorError::TooMany`] beyond [`MAX_RUNNERS`] (nothing past the limit is read);
    /// [`SelectorError::RunnerExists`] when an id appears twice (the path is the index of
    /// the second occurrence in id order).
    pub fn from_entries<I>(entries: I) -> Result<Self, SelectorError>
    where
        I: IntoIterator<Item = (RunnerId, Labels, P)>,
    {
        let mut all = Vec::new();
        for entry in entries {
            if all.len() == MAX_RUNNERS {
                return Err(too_many_runners());
            }
            all.push(entry);
        }
        all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let duplicate = all.windows(2).find_map(|pair| match pair {
            [(a, _, _), (b, _, _)] if a == b => Some(a),
            _ => None,
        });
        if let Some(id) = duplicate {
            let i = all.iter().position(|entry| &entry.0 == id).unwrap_or(0);
            return Err(SelectorError::RunnerExists {
                path: format!("[{}]", i + 1),
                id: id.clone(),
            });
        }
        let len = all.len();
        let mut chunks = Vec::with_capacity(len.div_ceil(BUILD_FILL));
        let mut rest = all.into_iter().peekable();
        while rest.peek().is_some() {
            let mut ids = Vec::with_capacity(BUILD_FILL);
            let mut labels = Vec::with_capacity(BUILD_FILL);
            let mut payloads = Vec::with_capacity(BUILD_FILL);
            for (id, l, p) in rest.by_ref().take(BUILD_FILL) {
                ids.push(id);
                labels.push(Arc::new(l));
                payloads.push(p);
            }
            chunks.push(Arc::new(Chunk::build(ids, labels, payloads)));
        }
        Ok(Self { chunks, len })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every entry, in runner id order.
    pub fn iter(&self) -> impl Iterator<Item = RunnerEntry<'_, P>> + '_ {
        self.chunks
            .iter()
            .flat_map(|c| (0..c.len()).filter_map(move |pos| c.entry(pos)))
    }

    /// The entry of runner `id`.
    pub fn get(&self, id: &str) -> Option<RunnerEntry<'_, P>> {
        let (c, found) = self.locate(id)?;
        let chunk = self.chunks.get(c)?;
        chunk.entry(found.ok()?)
    }

    /// The entries whose labels match `selector`, in runner id order, without collecting
    /// them. Exactly the entries for which [`LabelSelector::matches`] holds.
    pub fn select<'s>(&'s self, selector: &'s LabelSelector) -> Select<'s, P> {
        Select {
            chunks: self.chunks.iter(),
            current: None,
            bits: NO_BITS,
            word: WORDS,
            plan: Plan::new(selector),
            selector,
        }
    }

    /// How many entries match `selector`. Counts bits when the selector has no `Gt` or
    /// `Lt`; allocates only the query plan.
    pub fn count(&self, selector: &LabelSelector) -> usize {
        let plan = Plan::new(selector);
        if plan.verify {
            return self.select(selector).count();
        }
        self.chunks
            .iter()
            .map(|c| {
                c.eval(&plan)
                    .iter()
                    .map(|w| w.count_ones() as usize)
                    .sum::<usize>()
            })
            .sum()
    }

    /// The chunk that holds or would hold `id`, and the position in it.
    fn locate(&self, id: &str) -> Option<(usize, Result<usize, usize>)> {
        if self.chunks.is_empty() {
            return None;
        }
        let c = self
            .chunks
            .partition_point(|c| c.ids.last().is_some_and(|last| last.as_ref() < id))
            .min(self.chunks.len() - 1);
        let chunk = self.chunks.get(c)?;
        Some((c, chunk.ids.binary_search_by(|x| x.as_ref().cmp(id))))
    }
}

impl<P: Clone> Snapshot<P> {
    /// The snapshot after `batch`, which applies in order and as a whole: on error, no
    /// operation applies. Chunks the batch does not touch are shared with `self`.
    ///
    /// # Errors
    ///
    /// [`SelectorError::TooMany`] for a batch over [`MAX_BATCH_OPS`] or an index over
    /// [`MAX_RUNNERS`]; [`SelectorError::RunnerExists`] when registering a present id;
    /// [`SelectorError::UnknownRunner`] when updating or removing an absent one. The path
    /// is the operation's index in the batch (`[3]`).
    pub fn with_batch(&self, batch: Batch<P>) -> Result<Self, SelectorError> {
        if batch.ops.len() > MAX_BATCH_OPS {
            return Err(SelectorError::TooMany {
                path: String::new(),
                what: "batch operations",
                limit: MAX_BATCH_OPS,
            });
        }
        let mut next = self.clone();
        for (i, op) in batch.ops.into_iter().enumerate() {
            next.apply(op).map_err(|e| e.prefixed(&format!("[{i}]")))?;
        }
        Ok(next)
    }

    fn apply(&mut self, op: Op<P>) -> Result<(), SelectorError> {
        match op {
            Op::Register(id, labels, payload) => self.register(id, labels, payload),
            Op::Update(id, labels, payload) => {
                let Some((c, Ok(pos))) = self.locate(&id) else {
                    return Err(unknown(id));
                };
                if let Some(chunk) = self.chunks.get_mut(c) {
                    Arc::make_mut(chunk).replace(pos, labels, payload);
                }
                Ok(())
            }
            Op::Remove(id) => {
                let Some((c, Ok(pos))) = self.locate(&id) else {
                    return Err(unknown(id));
                };
                if let Some(chunk) = self.chunks.get_mut(c) {
                    Arc::make_mut(chunk).remove(pos);
                }
                self.len -= 1;
                self.tidy(c);
                Ok(())
            }
        }
    }

    fn register(&mut self, id: RunnerId, labels: Labels, payload: P) -> Result<(), SelectorError> {
        if self.len == MAX_RUNNERS {
            return Err(too_many_runners());
        }
        let (c, pos) = match self.locate(&id) {
            None => {
                self.chunks
                    .push(Arc::new(Chunk::build(Vec::new(), Vec::new(), Vec::new())));
                (0, 0)
            }
            Some((_, Ok(_))) => {
                return Err(SelectorError::RunnerExists {
                    path: String::new(),
                    id,
                });
            }
            Some((c, Err(pos))) => (c, pos),
        };
        let (c, pos) = if self
            .chunks
            .get(c)
            .is_some_and(|ch| ch.len() >= CHUNK_CAPACITY)
        {
            self.split(c);
            match self.locate(&id) {
                Some((c, Err(pos))) => (c, pos),
                _ => (c, pos),
            }
        } else {
            (c, pos)
        };
        if let Some(chunk) = self.chunks.get_mut(c) {
            Arc::make_mut(chunk).insert(pos, id, labels, payload);
            self.len += 1;
        }
        Ok(())
    }

    /// Replaces chunk `c` by its two halves.
    fn split(&mut self, c: usize) {
        let Some(chunk) = self.chunks.get(c) else {
            return;
        };
        let half = chunk.len() / 2;
        let part = |range: std::ops::Range<usize>| {
            Arc::new(Chunk::build(
                chunk.ids.get(range.clone()).unwrap_or(&[]).to_vec(),
                chunk.labels.get(range.clone()).unwrap_or(&[]).to_vec(),
                chunk.payloads.get(range).unwrap_or(&[]).to_vec(),
            ))
        };
        let (low, high) = (part(0..half), part(half..chunk.len()));
        if let Some(slot) = self.chunks.get_mut(c) {
            *slot = low;
            self.chunks.insert(c + 1, high);
        }
    }

    /// Drops chunk `c` when empty, or merges it with its successor when it is small and
    /// they fit together, so queries visit few chunks.
    fn tidy(&mut self, c: usize) {
        let Some(chunk) = self.chunks.get(c) else {
            return;
        };
        if chunk.len() == 0 {
            self.chunks.remove(c);
            return;
        }
        let Some(next) = self.chunks.get(c + 1) else {
            return;
        };
        if chunk.len() < MERGE_BELOW && chunk.len() + next.len() <= BUILD_FILL {
            let merged = Chunk::build(
                chunk.ids.iter().chain(&next.ids).cloned().collect(),
                chunk.labels.iter().chain(&next.labels).cloned().collect(),
                chunk
                    .payloads
                    .iter()
                    .chain(&next.payloads)
                    .cloned()
                    .collect(),
            );
            if let Some(slot) = self.chunks.get_mut(c) {
                *slot = Arc::new(merged);
                self.chunks.remove(c + 1);
            }
        }
    }
}

fn too_many_runners() -> SelectorError {
    SelectorError::TooMany {
        path: String::new(),
        what: "runners",
        limit: MAX_RUNNERS,
    }
}

fn unknown(id: RunnerId) -> SelectorError {
    SelectorError::UnknownRunner {
        path: String::new(),
        id,
    }
}

/// Iterator over the entries that match a selector, in runner id order, from
/// [`Snapshot::select`].
pub struct Select<'s, P> {
    chunks: std::slice::Iter<'s, Arc<Chunk<P>>>,
    current: Option<&'s Chunk<P>>,
    bits: Bits,
    word: usize,
    plan: Plan<'s>,
    selector: &'s LabelSelector,
}

impl<P> fmt::Debug for Select<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Select")
            .field("selector", self.selector)
            .finish_non_exhaustive()
    }
}

impl<'s, P> Iterator for Select<'s, P> {
    type Item = RunnerEntry<'s, P>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(entry) = self.next_in_current() {
                return Some(entry);
            }
            let chunk = self.chunks.next()?;
            self.bits = chunk.eval(&self.plan);
            self.word = 0;
            self.current = Some(chunk);
        }
    }

    /// Internal iteration (used by `for_each`, `count`, `max_by_key`, ...): one tight loop
    /// per chunk instead of a resumable state machine.
    fn fold<B, F>(mut self, init: B, mut f: F) -> B
    where
        F: FnMut(B, Self::Item) -> B,
    {
        let mut acc = init;
        // First what a partly consumed iterator still holds.
        while let Some(entry) = self.next_in_current() {
            acc = f(acc, entry);
        }
        for chunk in self.chunks {
            let bits = chunk.eval(&self.plan);
            for (w, &word) in bits.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    let pos = w * 64 + word.trailing_zeros() as usize;
                    word &= word - 1;
                    let (Some(id), Some(labels), Some(payload)) = (
                        chunk.ids.get(pos),
                        chunk.labels.get(pos),
                        chunk.payloads.get(pos),
                    ) else {
                        continue;
                    };
                    if self.plan.verify && !self.selector.matches(labels) {
                        continue;
                    }
                    acc = f(
                        acc,
                        RunnerEntry {
                            id,
                            labels,
                            payload,
                        },
                    );
                }
            }
        }
        acc
    }
}

impl<'s, P> Select<'s, P> {
    /// The next match in the current chunk, without moving to the next chunk.
    fn next_in_current(&mut self) -> Option<RunnerEntry<'s, P>> {
        while let Some(word) = self.bits.get_mut(self.word) {
            if *word == 0 {
                self.word += 1;
                continue;
            }
            let pos = self.word * 64 + word.trailing_zeros() as usize;
            *word &= *word - 1;
            let entry = self.current.and_then(|c| c.entry(pos));
            if let Some(entry) = entry
                && (!self.plan.verify || self.selector.matches(entry.labels))
            {
                return Some(entry);
            }
        }
        None
    }
}

// ---------------------------------------------------------------------------------------
// Batches and the index.

#[derive(Clone, Debug)]
enum Op<P> {
    Register(RunnerId, Labels, P),
    Update(RunnerId, Labels, P),
    Remove(RunnerId),
}

/// Changes applied to a [`RunnerIndex`] together: readers see all of them or none.
/// Operations apply in the order they were added. At most [`MAX_BATCH_OPS`] of them.
#[derive(Clone, Debug)]
pub struct Batch<P> {
    ops: Vec<Op<P>>,
}

impl<P> Default for Batch<P> {
    fn default() -> Self {
        Self { ops: Vec::new() }
    }
}

impl<P> Batch<P> {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds runner `id`; applying fails if it is already present.
    pub fn register(&mut self, id: RunnerId, labels: Labels, payload: P) -> &mut Self {
        self.ops.push(Op::Register(id, labels, payload));
        self
    }

    /// Replaces the labels and payload of runner `id`; applying fails if it is absent.
    pub fn update(&mut self, id: RunnerId, labels: Labels, payload: P) -> &mut Self {
        self.ops.push(Op::Update(id, labels, payload));
        self
    }

    /// Removes runner `id`; applying fails if it is absent.
    pub fn remove(&mut self, id: RunnerId) -> &mut Self {
        self.ops.push(Op::Remove(id));
        self
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the batch has no operations.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

/// A set of labeled runner entries (id, [`Labels`], a payload `P` of the caller's choice)
/// with lock-free reads.
///
/// Readers call [`RunnerIndex::load`] or [`RunnerIndex::snapshot`] and query the
/// [`Snapshot`] for as long as they like. Writers apply a [`Batch`] (or
/// [`RunnerIndex::replace_all`]): the next snapshot is built beside the current one, sharing
/// every chunk the batch does not touch, and swapped in atomically, so a reader sees a batch
/// entirely or not at all. Writers are serialized by an internal mutex; readers never wait.
///
/// ```
/// use model_ids::RunnerId;
/// use model_selector::{Batch, LabelSelector, Labels, RunnerIndex};
///
/// let index = RunnerIndex::new();
/// let mut batch = Batch::new();
/// batch
///     .register(RunnerId::new("r1")?, Labels::from_pairs([("zone", "eu")])?, 4_u32)
///     .register(RunnerId::new("r2")?, Labels::from_pairs([("zone", "us")])?, 8);
/// index.apply(batch)?;
///
/// let before = index.snapshot();
/// let mut batch = Batch::new();
/// batch.update(RunnerId::new("r2")?, Labels::from_pairs([("zone", "eu")])?, 8);
/// index.apply(batch)?;
///
/// let eu: LabelSelector = "zone=eu".parse()?;
/// assert_eq!(before.count(&eu), 1); // an old snapshot does not change
/// let payloads: Vec<u32> = index.load().select(&eu).map(|e| *e.payload()).collect();
/// assert_eq!(payloads, [4, 8]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RunnerIndex<P> {
    current: ArcSwap<Snapshot<P>>,
    writer: Mutex<()>,
}

impl<P> Default for RunnerIndex<P> {
    fn default() -> Self {
        Self::from_snapshot(Snapshot::new())
    }
}

impl<P> fmt::Debug for RunnerIndex<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunnerIndex")
            .field("snapshot", &*self.current.load())
            .finish()
    }
}

impl<P> RunnerIndex<P> {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// An index that starts at `snapshot`.
    pub fn from_snapshot(snapshot: Snapshot<P>) -> Self {
        Self {
            current: ArcSwap::from_pointee(snapshot),
            writer: Mutex::new(()),
        }
    }

    /// The current snapshot, borrowed cheaply for a short read (no reference count change
    /// in the common case). Hold [`RunnerIndex::snapshot`] instead across long work.
    pub fn load(&self) -> impl Deref<Target = Arc<Snapshot<P>>> + '_ {
        self.current.load()
    }

    /// The current snapshot, owned.
    pub fn snapshot(&self) -> Arc<Snapshot<P>> {
        self.current.load_full()
    }

    /// Replaces every entry by `entries`, atomically.
    ///
    /// # Errors
    ///
    /// As [`Snapshot::from_entries`]; the index is unchanged then.
    pub fn replace_all<I>(&self, entries: I) -> Result<(), SelectorError>
    where
        I: IntoIterator<Item = (RunnerId, Labels, P)>,
    {
        let next = Snapshot::from_entries(entries)?;
        let _writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        self.current.store(Arc::new(next));
        Ok(())
    }
}

impl<P: Clone> RunnerIndex<P> {
    /// Applies `batch` as a whole and swaps in the resulting snapshot.
    ///
    /// # Errors
    ///
    /// As [`Snapshot::with_batch`]; the index is unchanged then.
    pub fn apply(&self, batch: Batch<P>) -> Result<(), SelectorError> {
        let _writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let next = self.current.load().with_batch(batch)?;
        self.current.store(Arc::new(next));
        Ok(())
    }
}

#[cfg(test)]
mod tests;
