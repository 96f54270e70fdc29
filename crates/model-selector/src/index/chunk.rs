//! `Chunk`: up to `CHUNK_CAPACITY` consecutive entries and the postings of their terms.

use std::sync::Arc;

use model_ids::RunnerId;

use super::{
    bits::{Bits, NO_BITS, is_zero, live_mask, set_bit, shift_down, shift_up},
    plan::Plan,
    snapshot::RunnerEntry,
    term::{Postings, Probe, Term, TermKey},
};
use crate::labels::Labels;

/// Up to [`CHUNK_CAPACITY`](super::CHUNK_CAPACITY) consecutive entries (by runner id) and their postings.
pub(super) struct Chunk<P> {
    pub(super) ids: Vec<RunnerId>,
    pub(super) labels: Vec<Arc<Labels>>,
    pub(super) payloads: Vec<P>,
    pub(super) postings: Postings,
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
        chunk
    }

    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(super) fn posting(&self, probe: &Probe<'_>) -> Option<&Bits> {
        self.postings
            .get(probe as &dyn Term)
            .map(|bits| bits.as_ref())
    }

    /// Sets (or clears) bit `pos` in the postings of every term of the labels at `pos`.
    pub(super) fn index(&mut self, pos: usize, on: bool) {
        let Some(labels) = self.labels.get(pos).cloned() else {
            return;
        };
        for (key, value) in labels.iter() {
            self.mark(Probe::new(key, Some(value)), pos, on);
            self.mark(Probe::new(key, None), pos, on);
        }
    }

    pub(super) fn mark(&mut self, probe: Probe<'_>, pos: usize, on: bool) {
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

    pub(super) fn insert(&mut self, pos: usize, id: RunnerId, labels: Labels, payload: P) {
        for bits in self.postings.values_mut() {
            shift_up(Arc::make_mut(bits), pos);
        }
        self.ids.insert(pos, id);
        self.labels.insert(pos, Arc::new(labels));
        self.payloads.insert(pos, payload);
        self.index(pos, true);
    }

    pub(super) fn replace(&mut self, pos: usize, labels: Labels, payload: P) {
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

    pub(super) fn remove(&mut self, pos: usize) {
        self.index(pos, false);
        for bits in self.postings.values_mut() {
            shift_down(Arc::make_mut(bits), pos);
        }
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

    pub(super) fn entry(&self, pos: usize) -> Option<RunnerEntry<'_, P>> {
        Some(RunnerEntry {
            id: self.ids.get(pos)?,
            labels: self.labels.get(pos)?,
            payload: self.payloads.get(pos)?,
        })
    }
}
