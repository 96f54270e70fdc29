//! Answering a query: which groups a label set matches (testing each distinct selector filed
//! under one of its labels once), then their keys in key order, read from the slot masks the
//! matched groups hold in each run of the index.

use std::fmt;

use super::{
    groups::Groups,
    runs::{self, Runs},
};
use crate::labels::Labels;

#[cfg(test)]
mod tests;

/// The groups `labels` matches: each group filed under one of its labels (and each with
/// nothing to file it under) tested once.
pub(super) fn matched<K: Ord + Clone>(groups: &Groups<K>, labels: &Labels) -> Vec<u32> {
    let mut ids = Vec::new();
    for list in groups.postings().lists(labels.iter()) {
        for &id in list {
            if groups
                .get(id)
                .is_some_and(|group| group.selector.matches(labels))
            {
                ids.push(id);
            }
        }
    }
    ids
}

/// The keys of a [`SelectorIndex`](super::SelectorIndex) whose selectors match a label set, in
/// key order, from [`SelectorIndex::matching`](super::SelectorIndex::matching).
///
/// Made by or-ing each matched group's slot masks into one mask per run of the index (a
/// step per run a matched group has keys in), then read run by run in key order: a run's
/// mask of slots becomes a mask of positions (a step per kept key), whose bits hand out the
/// keys. Keys of groups that did not match are never read.
pub struct Matching<'i, 'l, K> {
    labels: &'l Labels,
    runs: runs::Slices<'i, K, u32>,
    /// The kept slots of each run, by run id.
    kept: Vec<u128>,
    /// The current run's keys, and the positions among them still to hand out.
    block: &'i [K],
    positions: u128,
}

impl<'i, 'l, K: Ord + Clone> Matching<'i, 'l, K> {
    pub(super) fn new(keys: &'i Runs<K, u32>, groups: &'i Groups<K>, labels: &'l Labels) -> Self {
        let mut kept = vec![0_u128; keys.id_bound()];
        for id in matched(groups, labels) {
            let Some(group) = groups.get(id) else {
                continue;
            };
            for &(run, slots) in &group.spots {
                if let Some(mask) = kept.get_mut(run as usize) {
                    *mask |= slots;
                }
            }
        }
        Self {
            labels,
            runs: keys.slices(),
            kept,
            block: &[],
            positions: 0,
        }
    }
}

impl<K> fmt::Debug for Matching<'_, '_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Matching")
            .field("labels", self.labels)
            .finish_non_exhaustive()
    }
}

impl<'i, K> Iterator for Matching<'i, '_, K> {
    type Item = &'i K;

    fn next(&mut self) -> Option<&'i K> {
        while self.positions == 0 {
            let run = self.runs.next()?;
            let slots = self.kept.get(run.id() as usize).copied().unwrap_or(0);
            if slots != 0 {
                self.positions = run.positions(slots);
                self.block = run.keys();
            }
        }
        let at = self.positions.trailing_zeros() as usize;
        self.positions &= self.positions - 1;
        self.block.get(at)
    }

    /// Hands out a run's keys in one loop per half of its position mask (what `count`,
    /// `collect` and `for_each` use), without the checks between keys that `next` makes.
    fn fold<B, F: FnMut(B, &'i K) -> B>(self, init: B, mut f: F) -> B {
        let mut emit = |mut acc: B, block: &'i [K], positions: u128| {
            // The two halves of the mask as 64-bit words, whose bit scans are one instruction.
            for (base, mut half) in [(0, positions as u64), (64, (positions >> 64) as u64)] {
                while half != 0 {
                    let at = base + half.trailing_zeros() as usize;
                    half &= half - 1;
                    if let Some(key) = block.get(at) {
                        acc = f(acc, key);
                    }
                }
            }
            acc
        };
        let mut acc = emit(init, self.block, self.positions);
        for run in self.runs {
            let slots = self.kept.get(run.id() as usize).copied().unwrap_or(0);
            if slots != 0 {
                acc = emit(acc, run.keys(), run.positions(slots));
            }
        }
        acc
    }
}
