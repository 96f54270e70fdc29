//! Answering a query: which groups a label set matches (testing each distinct selector filed
//! under one of its labels once), then their keys in key order, by walking every key or by
//! merging the matched groups' keys, whichever reads less.

use std::{
    cmp::Reverse,
    collections::{BinaryHeap, binary_heap::PeekMut},
    fmt, hint,
};

use super::{
    groups::Groups,
    runs::{self, Runs},
};
use crate::labels::Labels;

#[cfg(test)]
mod tests;

/// The groups a label set matches: their ids, a flag per group id, and how many keys
/// they hold in all.
pub(super) struct Matched {
    pub(super) ids: Vec<u32>,
    /// A byte per group id, 1 when the group matched: a byte read per key tests a group in
    /// fewer steps than a bit of a bit set would.
    flags: Vec<u8>,
    keys: usize,
}

impl Matched {
    /// Tests each group filed under one of `labels`' labels (and each with nothing to file
    /// it under) once.
    pub(super) fn find<K: Ord + Clone>(groups: &Groups<K>, labels: &Labels) -> Self {
        let mut matched = Self {
            ids: Vec::new(),
            flags: vec![0; groups.id_bound()],
            keys: 0,
        };
        for list in groups.postings().lists(labels.iter()) {
            for &id in list {
                if let Some(group) = groups.get(id)
                    && group.selector.matches(labels)
                {
                    matched.ids.push(id);
                    matched.keys = matched.keys.saturating_add(group.members.len());
                    if let Some(flag) = matched.flags.get_mut(id as usize) {
                        *flag = 1;
                    }
                }
            }
        }
        matched
    }

    /// Whether walking all `len` keys costs less than merging the matched groups' keys: a
    /// step of the merge (a sift down over the groups, comparing keys at each level) costs
    /// about three times a level per key of the walk (a group id read in order and its flag
    /// read), as measured at 100,000 keys (docs/performance.md, "Selector index").
    fn prefers_walk(&self, len: usize) -> bool {
        let depth = (usize::BITS - self.ids.len().leading_zeros()) as usize;
        let merge = self.keys.saturating_mul(depth.saturating_add(2));
        merge.saturating_mul(3) > len
    }

    /// 1 when group `id` matched, else 0.
    fn flag(&self, id: u32) -> u8 {
        self.flags.get(id as usize).copied().unwrap_or(0)
    }
}

/// How many runs ahead of the one it tests the walk reads a group id, so that reading the
/// runs, which lie apart on the heap, does not wait for memory one run at a time.
const LOOK_AHEAD: usize = 1;

/// Most keys tested into one mask of kept positions.
const BLOCK: usize = u64::BITS as usize;

/// The positions of `ids` (at most [`BLOCK`]) whose group matched, as bits. A free function
/// over slices, not fields read through the iterator, so that the loop keeps everything in
/// registers.
fn mask(ids: &[u32], matched: &Matched) -> u64 {
    ids.iter()
        .take(BLOCK)
        .enumerate()
        .fold(0, |kept, (at, &id)| {
            kept | (u64::from(matched.flag(id)) << at)
        })
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

/// The state of [`Order::Walk`].
struct Walk<'i, K> {
    runs: runs::Slices<'i, K, u32>,
    /// The same runs [`LOOK_AHEAD`] ahead of `runs`.
    ahead: runs::Slices<'i, K, u32>,
    matched: Matched,
    /// The rest of the current run, past `block`.
    rest: (&'i [K], &'i [u32]),
    block: &'i [K],
    kept: u64,
}

/// How the keys of the matched groups come out in key order.
enum Order<'i, K> {
    /// Every key in key order, each kept when its group matched: reads every key's group id,
    /// about a nanosecond each, so it is chosen when the matched groups hold many keys. A
    /// block of up to 64 keys (a part of a run) is tested into a mask of
    /// the kept positions without a branch per key (whether a key is kept follows no pattern
    /// a branch predictor could learn), then its kept keys are handed out by the mask's set
    /// bits.
    Walk(Box<Walk<'i, K>>),
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
                order: Order::Walk(Box::new(Walk {
                    runs: keys.slices(),
                    ahead: {
                        let mut ahead = keys.slices();
                        ahead.nth(LOOK_AHEAD.saturating_sub(1));
                        ahead
                    },
                    matched,
                    rest: (&[], &[]),
                    block: &[],
                    kept: 0,
                })),
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
            Order::Walk(_) => "walk",
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
            Order::Walk(walk) => loop {
                let Walk {
                    runs,
                    ahead,
                    matched,
                    rest,
                    block,
                    kept,
                } = &mut **walk;
                if *kept != 0 {
                    let at = kept.trailing_zeros() as usize;
                    *kept &= *kept - 1;
                    if let Some(key) = block.get(at) {
                        return Some(key);
                    }
                    continue;
                }
                if rest.0.is_empty() {
                    let run = runs.next()?;
                    *rest = (run.keys(), run.values());
                    // The runs lie apart on the heap: reading the first group id of a run
                    // further on now, which nothing waits for, overlaps its cache miss with
                    // the work on this run and the next ones.
                    hint::black_box(
                        ahead
                            .next()
                            .and_then(|later| later.values().first().copied()),
                    );
                }
                let len = rest.0.len().min(BLOCK);
                let (keys, more_keys) = rest.0.split_at(len);
                let (ids, more_ids) = rest.1.split_at(len.min(rest.1.len()));
                *block = keys;
                *rest = (more_keys, more_ids);
                *kept = mask(ids, matched);
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
