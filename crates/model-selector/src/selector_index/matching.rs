//! Answering a query: which groups a label set matches (testing each distinct selector filed
//! under one of its labels once), then their keys in key order, by walking every key or by
//! merging the matched groups' keys, whichever reads less.

use std::{
    cmp::Reverse,
    collections::{BinaryHeap, binary_heap::PeekMut},
    fmt,
};

use super::{
    groups::Groups,
    runs::{self, Runs},
};
use crate::labels::Labels;

#[cfg(test)]
mod tests;

/// The groups a label set matches: their ids, as a set over group ids, and how many keys
/// they hold in all.
pub(super) struct Matched {
    pub(super) ids: Vec<u32>,
    set: Vec<u64>,
    keys: usize,
}

impl Matched {
    /// Tests each group filed under one of `labels`' labels (and each with nothing to file
    /// it under) once.
    pub(super) fn find<K: Ord + Clone>(groups: &Groups<K>, labels: &Labels) -> Self {
        let mut matched = Self {
            ids: Vec::new(),
            set: vec![0; groups.id_bound().div_ceil(64)],
            keys: 0,
        };
        for list in groups.postings().lists(labels.iter()) {
            for &id in list {
                if let Some(group) = groups.get(id)
                    && group.selector.matches(labels)
                {
                    matched.ids.push(id);
                    matched.keys = matched.keys.saturating_add(group.members.len());
                    if let Some(word) = matched.set.get_mut(id as usize / 64) {
                        *word |= 1 << (id % 64);
                    }
                }
            }
        }
        matched
    }

    /// Whether walking all `len` keys costs less than merging the matched groups' keys: a
    /// step of the merge (a sift down over the groups, comparing keys at each level) costs
    /// about three times a level per key of the walk (a group id read in order and a bit
    /// test), as measured at 100,000 keys (docs/performance.md, "Selector index").
    fn prefers_walk(&self, len: usize) -> bool {
        let depth = (usize::BITS - self.ids.len().leading_zeros()) as usize;
        let merge = self.keys.saturating_mul(depth.saturating_add(2));
        merge.saturating_mul(3) > len
    }

    fn contains(&self, id: u32) -> bool {
        self.set
            .get(id as usize / 64)
            .is_some_and(|word| word & (1 << (id % 64)) != 0)
    }
}

/// The next key of one matched group, ordered by key (then by group, which never decides: a
/// key is in one group).
struct Head<'i, K> {
    key: &'i K,
    cursor: usize,
}

impl<K: Ord> PartialEq for Head<'_, K> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl<K: Ord> Eq for Head<'_, K> {}

impl<K: Ord> PartialOrd for Head<'_, K> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<K: Ord> Ord for Head<'_, K> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(other.key).then(self.cursor.cmp(&other.cursor))
    }
}

/// How the keys of the matched groups come out in key order.
enum Order<'i, K> {
    /// Every key in key order, each kept when its group matched: reads every key, a few
    /// nanoseconds each, so it is chosen when the matched groups hold many of them. A run's
    /// kept keys are gathered into `kept` without a branch per key (whether a key is kept
    /// follows no pattern a branch predictor could learn), then handed out from there.
    Walk {
        runs: runs::Slices<'i, K, u32>,
        matched: Matched,
        kept: Vec<&'i K>,
        at: usize,
    },
    /// A heap merge of the matched groups' keys: reads only those, a heap step each.
    Merge {
        cursors: Vec<runs::Iter<'i, K, ()>>,
        heads: BinaryHeap<Reverse<Head<'i, K>>>,
    },
}

/// The keys of a [`SelectorIndex`](super::SelectorIndex) whose selectors match a label set, in
/// key order, from [`SelectorIndex::matching`](super::SelectorIndex::matching).
pub struct Matching<'i, 'l, K> {
    labels: &'l Labels,
    order: Order<'i, K>,
}

impl<'i, 'l, K: Ord + Clone> Matching<'i, 'l, K> {
    pub(super) fn new(keys: &'i Runs<K, u32>, groups: &'i Groups<K>, labels: &'l Labels) -> Self {
        let matched = Matched::find(groups, labels);
        let walk = matched.prefers_walk(keys.len());
        Self::ordered(keys, groups, labels, matched, walk)
    }

    /// The keys of the `matched` groups, by walking `keys` or by merging the groups' keys.
    pub(super) fn ordered(
        keys: &'i Runs<K, u32>,
        groups: &'i Groups<K>,
        labels: &'l Labels,
        matched: Matched,
        walk: bool,
    ) -> Self {
        if walk {
            return Self {
                labels,
                order: Order::Walk {
                    runs: keys.slices(),
                    matched,
                    kept: Vec::new(),
                    at: 0,
                },
            };
        }
        let mut cursors = Vec::with_capacity(matched.ids.len());
        let mut heads = BinaryHeap::with_capacity(matched.ids.len());
        for &id in &matched.ids {
            let Some(group) = groups.get(id) else {
                continue;
            };
            let mut cursor = group.members.iter();
            if let Some((key, ())) = cursor.next() {
                heads.push(Reverse(Head {
                    key,
                    cursor: cursors.len(),
                }));
                cursors.push(cursor);
            }
        }
        Self {
            labels,
            order: Order::Merge { cursors, heads },
        }
    }
}

impl<K> fmt::Debug for Matching<'_, '_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let order = match self.order {
            Order::Walk { .. } => "walk",
            Order::Merge { .. } => "merge",
        };
        f.debug_struct("Matching")
            .field("labels", self.labels)
            .field("order", &order)
            .finish_non_exhaustive()
    }
}

impl<'i, K: Ord> Iterator for Matching<'i, '_, K> {
    type Item = &'i K;

    fn next(&mut self) -> Option<&'i K> {
        match &mut self.order {
            Order::Walk {
                runs,
                matched,
                kept,
                at,
            } => loop {
                if let Some(key) = kept.get(*at) {
                    *at += 1;
                    return Some(*key);
                }
                let run = runs.next()?;
                *at = 0;
                kept.clear();
                let Some(first) = run.keys().first() else {
                    continue;
                };
                // Every key is written at the end of the kept ones, which grow by one when
                // its group matched.
                kept.resize(run.keys().len(), first);
                let mut len = 0;
                for (key, id) in run.keys().iter().zip(run.values()) {
                    if let Some(slot) = kept.get_mut(len) {
                        *slot = key;
                    }
                    len += usize::from(matched.contains(*id));
                }
                kept.truncate(len);
            },
            Order::Merge { cursors, heads } => {
                // The smallest head is replaced in place by its group's next key (one sift
                // down), or dropped when the group is done.
                let mut top = heads.peek_mut()?;
                let key = top.0.key;
                match cursors.get_mut(top.0.cursor).and_then(Iterator::next) {
                    Some((next, ())) => top.0.key = next,
                    None => {
                        PeekMut::pop(top);
                    }
                }
                Some(key)
            }
        }
    }
}
