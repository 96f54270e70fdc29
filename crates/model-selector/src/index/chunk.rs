//! `Chunk`: up to `CHUNK_CAPACITY` consecutive entries and the postings of their terms.

use std::{cmp::Ordering, sync::Arc};

use model_ids::RunnerId;

use super::{
    CHUNK_CAPACITY, CHUNK_TERM_CAPACITY,
    bits::{Bits, NO_BITS, is_zero, live_mask},
    plan::Plan,
    postings::{Found, Postings, Probe},
    snapshot::RunnerEntry,
};
use crate::labels::Labels;

/// Up to [`CHUNK_CAPACITY`] consecutive entries (by runner id) and their postings, which
/// hold up to about [`CHUNK_TERM_CAPACITY`] terms.
pub(super) struct Chunk<P> {
    pub(super) ids: Vec<RunnerId>,
    pub(super) labels: Vec<Arc<Labels>>,
    pub(super) payloads: Vec<P>,
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
    /// A chunk of these entries (in id order), indexed.
    pub(super) fn build(ids: Vec<RunnerId>, labels: Vec<Arc<Labels>>, payloads: Vec<P>) -> Self {
        let mut chunk = Self {
            ids,
            labels,
            payloads,
            postings: Postings::default(),
        };
        for pos in 0..chunk.ids.len() {
            chunk.index(pos, true);
        }
        chunk.shrink();
        chunk
    }

    /// Gives back the room vectors kept for growth, once the chunk is built.
    pub(super) fn shrink(&mut self) {
        self.ids.shrink_to_fit();
        self.labels.shrink_to_fit();
        self.payloads.shrink_to_fit();
        self.postings.shrink();
    }

    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Number of distinct terms in the postings.
    pub(super) fn terms(&self) -> usize {
        self.postings.len()
    }

    /// Whether an entry with `labels` fits without passing either capacity, if at most
    /// `fill` of [`CHUNK_CAPACITY`] entries and [`CHUNK_TERM_CAPACITY`] terms may be used
    /// (`fill` in quarters: 4 is all). A label brings at most two new terms.
    pub(super) fn fits(&self, labels: &Labels, fill: usize) -> bool {
        self.len() < CHUNK_CAPACITY * fill / 4
            && self.terms() + 2 * labels.len() <= CHUNK_TERM_CAPACITY * fill / 4
    }

    /// Whether the chunk is past a capacity and holds more than one entry, so it should be
    /// split.
    pub(super) fn overfull(&self) -> bool {
        self.len() > 1 && (self.len() > CHUNK_CAPACITY || self.terms() > CHUNK_TERM_CAPACITY)
    }

    /// Adds (or removes) position `pos` to the postings of every term of the labels at `pos`.
    fn index(&mut self, pos: usize, on: bool) {
        let Some(labels) = self.labels.get(pos).cloned() else {
            return;
        };
        for (key, value) in labels.iter() {
            self.mark(key, Some(value), pos, on);
            self.mark(key, None, pos, on);
        }
    }

    fn mark(&mut self, key: &str, value: Option<&str>, pos: usize, on: bool) {
        let probe = Probe::new(key, value);
        if on {
            self.postings.add(&probe, pos);
        } else {
            self.postings.remove(&probe, pos);
        }
    }

    /// Appends an entry that sorts after every entry of the chunk.
    pub(super) fn push(&mut self, id: RunnerId, labels: Arc<Labels>, payload: P) {
        self.ids.push(id);
        self.labels.push(labels);
        self.payloads.push(payload);
        self.index(self.len() - 1, true);
    }

    pub(super) fn insert(&mut self, pos: usize, id: RunnerId, labels: Labels, payload: P) {
        self.postings.shift_up(pos);
        self.ids.insert(pos, id);
        self.labels.insert(pos, Arc::new(labels));
        self.payloads.insert(pos, payload);
        self.index(pos, true);
    }

    /// Replaces the labels and payload at `pos`, touching only the terms that change.
    pub(super) fn replace(&mut self, pos: usize, labels: Labels, payload: P) {
        if let Some(slot) = self.payloads.get_mut(pos) {
            *slot = payload;
        }
        let Some(old) = self.labels.get(pos).cloned() else {
            return;
        };
        if *old == labels {
            return;
        }
        // Both sets are in key order: walk them together.
        let (mut was, mut now) = (old.iter().peekable(), labels.iter().peekable());
        loop {
            let order = match (was.peek(), now.peek()) {
                (None, None) => break,
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (Some((a, _)), Some((b, _))) => a.cmp(b),
            };
            match order {
                Ordering::Less => {
                    if let Some((key, value)) = was.next() {
                        self.mark(key, Some(value), pos, false);
                        self.mark(key, None, pos, false);
                    }
                }
                Ordering::Greater => {
                    if let Some((key, value)) = now.next() {
                        self.mark(key, Some(value), pos, true);
                        self.mark(key, None, pos, true);
                    }
                }
                Ordering::Equal => {
                    if let (Some((key, before)), Some((_, after))) = (was.next(), now.next())
                        && before != after
                    {
                        self.mark(key, Some(before), pos, false);
                        self.mark(key, Some(after), pos, true);
                    }
                }
            }
        }
        if let Some(slot) = self.labels.get_mut(pos) {
            *slot = Arc::new(labels);
        }
    }

    pub(super) fn remove(&mut self, pos: usize) {
        self.index(pos, false);
        self.postings.shift_down(pos);
        self.ids.remove(pos);
        self.labels.remove(pos);
        self.payloads.remove(pos);
    }

    /// The positions that satisfy every bitmap-answerable requirement of `plan`.
    pub(super) fn eval(&self, plan: &Plan<'_>) -> Bits {
        let mut acc: Option<Bits> = None;
        for step in &plan.steps {
            let probes = plan.probes.get(step.start..step.end).unwrap_or(&[]);
            if step.negative {
                let acc = acc.get_or_insert_with(|| live_mask(self.len()));
                for probe in probes {
                    if let Some(found) = self.postings.get(probe) {
                        found.clear_from(acc);
                    }
                }
            } else {
                let mut union: Option<Bits> = None;
                for probe in probes {
                    match (self.postings.get(probe), &mut union) {
                        (None, _) => {}
                        // The first bitmap is copied, not ORed into zeros.
                        (Some(Found::Many(bits)), None) => union = Some(*bits),
                        (Some(found), _) => found.or_into(union.get_or_insert(NO_BITS)),
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

    pub(super) fn entry(&self, pos: usize) -> Option<RunnerEntry<'_, P>> {
        Some(RunnerEntry {
            id: self.ids.get(pos)?,
            labels: self.labels.get(pos)?,
            payload: self.payloads.get(pos)?,
        })
    }
}
