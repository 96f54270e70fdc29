//! `Snapshot`: an immutable state of the index, and the next state after a batch.

use std::{fmt, sync::Arc};

use model_ids::RunnerId;

use super::{
    BUILD_FILL, CHUNK_CAPACITY, CHUNK_TERM_CAPACITY, MAX_BATCH_OPS, MAX_RUNNERS, MERGE_BELOW,
    batch::{Batch, Op},
    bits::{NO_BITS, WORDS},
    chunk::Chunk,
    plan::Plan,
    select::Select,
};
use crate::{error::SelectorError, labels::Labels, selector::LabelSelector};

/// One entry of an index, borrowed from a [`Snapshot`].
#[derive(Debug)]
pub struct RunnerEntry<'s, P> {
    pub(super) id: &'s RunnerId,
    pub(super) labels: &'s Labels,
    pub(super) payload: &'s P,
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

/// An immutable state of a [`RunnerIndex`](super::RunnerIndex): entries in runner id order with their inverted
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
    pub(super) chunks: Vec<Arc<Chunk<P>>>,
    pub(super) len: usize,
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
        let mut chunks = Vec::new();
        let mut chunk = Chunk::build(Vec::new(), Vec::new(), Vec::new());
        for (id, labels, payload) in all {
            if chunk.len() > 0 && !chunk.fits(&labels, BUILD_FILL) {
                let mut full =
                    std::mem::replace(&mut chunk, Chunk::build(Vec::new(), Vec::new(), Vec::new()));
                full.shrink();
                chunks.push(Arc::new(full));
            }
            chunk.push(id, Arc::new(labels), payload);
        }
        if chunk.len() > 0 {
            chunk.shrink();
            chunks.push(Arc::new(chunk));
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
    pub(super) fn locate(&self, id: &str) -> Option<(usize, Result<usize, usize>)> {
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

    pub(super) fn apply(&mut self, op: Op<P>) -> Result<(), SelectorError> {
        match op {
            Op::Register(id, labels, payload) => self.register(id, labels, payload),
            Op::Update(id, labels, payload) => {
                let Some((c, Ok(pos))) = self.locate(&id) else {
                    return Err(unknown(id));
                };
                if let Some(chunk) = self.chunks.get_mut(c) {
                    Arc::make_mut(chunk).replace(pos, labels, payload);
                    if chunk.overfull() {
                        self.split(c);
                    }
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

    pub(super) fn register(
        &mut self,
        id: RunnerId,
        labels: Labels,
        payload: P,
    ) -> Result<(), SelectorError> {
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
            .is_some_and(|ch| ch.len() > 1 && !ch.fits(&labels, 4))
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

    /// Replaces chunk `c` by its two halves (by entries).
    pub(super) fn split(&mut self, c: usize) {
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
    pub(super) fn tidy(&mut self, c: usize) {
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
        let small = chunk.len() < CHUNK_CAPACITY * MERGE_BELOW / 4
            && chunk.terms() < CHUNK_TERM_CAPACITY * MERGE_BELOW / 4;
        let fit = chunk.len() + next.len() <= CHUNK_CAPACITY * BUILD_FILL / 4
            && chunk.terms() + next.terms() <= CHUNK_TERM_CAPACITY * BUILD_FILL / 4;
        if small && fit {
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

pub(super) fn too_many_runners() -> SelectorError {
    SelectorError::TooMany {
        path: String::new(),
        what: "runners",
        limit: MAX_RUNNERS,
    }
}

pub(super) fn unknown(id: RunnerId) -> SelectorError {
    SelectorError::UnknownRunner {
        path: String::new(),
        id,
    }
}
