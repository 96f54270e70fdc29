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
//! with [`LabelSelector::matches`](crate::LabelSelector::matches). A selector with no positive requirement starts from all
//! entries of the chunk: that is the scan, and it allocates nothing per entry.
//!
//! Chunks are shared between snapshots behind [`Arc`]s. A batch copies only the chunks it
//! touches (their bitmaps are shared too, and copied only where a bit changes), so a batch
//! of a hundred changes over a hundred thousand runners costs a few hundred chunk copies at
//! most, not a rebuild.

mod batch;
mod bits;
mod chunk;
mod plan;
mod select;
mod snapshot;
mod term;

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

/// How full [`Snapshot::from_entries`] packs a chunk, leaving room for inserts.
const BUILD_FILL: usize = CHUNK_CAPACITY * 3 / 4;

/// A chunk that shrinks below this is merged with its successor when they fit together.
const MERGE_BELOW: usize = CHUNK_CAPACITY / 4;

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
