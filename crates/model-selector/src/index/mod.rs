//! `RunnerIndex`: labeled entries behind lock-free snapshots, answering selectors from
//! an inverted index of per-chunk postings.
//!
//! # Layout
//!
//! A [`Snapshot`] keeps its entries sorted by runner id and cut into chunks of at most
//! [`CHUNK_CAPACITY`] entries and about [`CHUNK_TERM_CAPACITY`] distinct terms. Each chunk
//! holds its ids, labels and payloads in parallel vectors and, for every label term it
//! contains, a posting of its positions: one for each `(key, value)` pair (used by
//! `matchLabels`, `In` and `NotIn`) and one for each key (used by `Exists` and
//! `DoesNotExist`). A query turns the selector into a plan once, then per chunk ANDs the
//! postings of the positive requirements as bitmaps, clears the bits of the negative ones,
//! and walks the set bits in order, so results come in runner id order. Only `Gt` and `Lt`
//! cannot be answered from postings; they are verified on the remaining candidates with
//! [`LabelSelector::matches`](crate::LabelSelector::matches). A selector with no positive
//! requirement starts from all entries of the chunk: that is the scan, and it allocates
//! nothing per entry.
//!
//! # Writes
//!
//! Chunks are shared between snapshots behind [`Arc`]s, and a batch copies only the chunks
//! it touches. A chunk's postings are flat vectors without a pointer per term (see
//! `postings.rs`), so that copy is a few `memcpy`s bounded by the two capacities, whatever
//! the fleet. After the copy, an update touches only the terms that change (at most two per
//! label of the runner), and a registration or removal also moves the positions after it.
//! So one change costs a bounded chunk copy plus work proportional to that runner's labels;
//! the term capacity is what keeps a fleet whose label values are unique to each runner
//! (64 labels, 65 terms a runner) from making chunks that are slow to copy.

mod batch;
mod bits;
mod chunk;
mod plan;
mod postings;
mod select;
mod snapshot;
mod text;

use std::{
    fmt,
    ops::Deref,
    sync::{Arc, Mutex, PoisonError},
};

use arc_swap::ArcSwap;
use model_ids::RunnerId;

pub use self::{
    batch::Batch,
    select::Select,
    snapshot::{RunnerEntry, Snapshot},
};
use crate::{error::SelectorError, labels::Labels};

/// Most entries in one index (and one [`Snapshot`]).
pub const MAX_RUNNERS: usize = 1_000_000;

/// Most operations in one [`Batch`].
pub const MAX_BATCH_OPS: usize = 100_000;

/// Most entries in one chunk of a [`Snapshot`]: the width of its bitmaps.
pub const CHUNK_CAPACITY: usize = 1024;

/// Most distinct terms (labels and keys) in one chunk of a [`Snapshot`]; a chunk that would
/// hold more is split (unless it holds a single runner, whose at most 64 labels make at most
/// 128 terms). It bounds what copying a chunk costs.
pub const CHUNK_TERM_CAPACITY: usize = 6144;

/// How full, in quarters of each capacity, [`Snapshot::from_entries`] packs a chunk,
/// leaving room for inserts.
const BUILD_FILL: usize = 3;

/// A chunk that shrinks below a quarter of either capacity is merged with its successor
/// when they fit together in [`BUILD_FILL`].
const MERGE_BELOW: usize = 1;

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
