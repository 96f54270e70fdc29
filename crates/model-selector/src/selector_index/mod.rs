//! `SelectorIndex`: many stored selectors keyed by the caller, asked which of them one label
//! set matches (the reverse of the runner index: queued tasks' runner selectors, and a runner
//! asking for work).

mod groups;
mod matching;
mod postings;
mod runs;

use std::fmt;

pub use self::matching::Matching;
use self::{groups::Groups, runs::Runs};
use crate::{error::SelectorError, labels::Labels, selector::LabelSelector};

/// Most selectors in one [`SelectorIndex`].
pub const MAX_SELECTORS: usize = 1_000_000;

/// Keys at the head of the key order that [`SelectorIndex::first_matching`] tests one by one
/// before it asks the groups.
pub const HEAD_PROBE: usize = 16;

/// Selectors stored under keys of the caller's choice, answering which of them a label set
/// matches, in key order, without testing every selector.
///
/// Equal selectors (in canonical form) are stored once, as a group holding their keys: queued tasks ask for a few zones, GPU types and teams, so a queue of 100,000 holds
/// a few thousand distinct selectors. Each group is filed under one of its requirements that a
/// matching label set must satisfy through one of its labels (an equality, an `In` list, or a
/// key that must be present), the one whose lists hold the fewest groups when it comes in; a
/// group with none (only `NotIn` and `DoesNotExist`, or empty) is tested for every label set.
/// [`SelectorIndex::matching`] tests each group filed under one of the label set's labels
/// once, then returns the matched groups' keys in key order without testing them and without
/// reading the keys of groups that did not match. Keys are kept in short sorted runs (at most
/// 128) under a B-tree, each key in a slot of its run that stays put while other keys come
/// and go; each group holds, per run with some of its keys, the mask of their slots. A query
/// ors the matched groups' masks into one mask per run, then reads the runs in key order,
/// turning each non-empty mask into the positions of its keys. So a query costs the groups'
/// tests, a step per (matched group, run) pair, a step per run, and a step per key handed
/// out. Insert and remove cost a lookup by the selector's canonical form, B-tree lookups and
/// a move within one run for the key (in the index and in its group's keys and masks), for
/// the first or last key of a group a lookup per requirement and per listed value of the
/// requirement the group is filed under, and, when a run splits or joins a neighbour (once
/// per a few dozen inserts or removes), a mask update per key that moves. Memory is linear
/// in the keys: a mask per (group, run) pair holding at least one key. A query allocates a
/// mask per run and a list of the matched groups.
///
/// The key's order is the order answers come in: a caller that wants the first match in its
/// queue order uses keys that sort in queue order (priority, then time queued, then id).
/// [`SelectorIndex::first_matching`] tests the first [`HEAD_PROBE`] keys' selectors, then
/// takes the smallest first key of the matched groups; [`SelectorIndex::matching`] is lazy
/// after the groups are tested and their masks gathered, so `matching(labels).find(|key| ...)` stops at the first
/// match the caller also accepts.
///
/// ```
/// use model_selector::{LabelSelector, Labels, SelectorIndex};
///
/// let mut queue = SelectorIndex::new();
/// queue.insert((0, "task-b"), &"zone=eu".parse()?)?;
/// queue.insert((0, "task-a"), &"zone=us".parse()?)?;
/// queue.insert((1, "task-c"), &LabelSelector::new())?;
/// queue.insert((2, "task-d"), &"zone=eu".parse()?)?;
///
/// let runner = Labels::from_pairs([("zone", "eu")])?;
/// let keys: Vec<_> = queue.matching(&runner).collect();
/// assert_eq!(keys, [&(0, "task-b"), &(1, "task-c"), &(2, "task-d")]);
/// assert_eq!(queue.first_matching(&runner), Some(&(0, "task-b")));
/// # Ok::<(), model_selector::SelectorError>(())
/// ```
#[derive(Clone)]
pub struct SelectorIndex<K> {
    /// Each key's group, in key order.
    keys: Runs<K, u32>,
    groups: Groups<K>,
}

impl<K> Default for SelectorIndex<K> {
    fn default() -> Self {
        Self {
            keys: Runs::default(),
            groups: Groups::default(),
        }
    }
}

impl<K: fmt::Debug + Ord> fmt::Debug for SelectorIndex<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Ord> SelectorIndex<K> {
    /// Every key and its selector, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &LabelSelector)> + '_ {
        self.keys
            .iter()
            .filter_map(|(k, id)| Some((k, &self.groups.get(*id)?.selector)))
    }
}

impl<K: Ord + Clone> SelectorIndex<K> {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of stored selectors.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no selector is stored.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Stores `selector` under `key`, returning the selector the key held before.
    ///
    /// # Errors
    ///
    /// [`SelectorError::TooMany`] when a new key would pass [`MAX_SELECTORS`]; the index is
    /// unchanged then.
    pub fn insert(
        &mut self,
        key: K,
        selector: &LabelSelector,
    ) -> Result<Option<LabelSelector>, SelectorError> {
        if self.keys.len() == MAX_SELECTORS && !self.contains_key(&key) {
            return Err(SelectorError::TooMany {
                path: String::new(),
                what: "selectors",
                limit: MAX_SELECTORS,
            });
        }
        let previous = self.remove(&key);
        let id = self.groups.join(selector, key.clone());
        let groups = &mut self.groups;
        let (_, place) = self.keys.insert(key, id, &mut |&moved, from, to| {
            groups.relocate(moved, from, to);
        });
        self.groups.settle(id, place);
        Ok(previous)
    }

    /// Removes the selector stored under `key`, returning it.
    pub fn remove(&mut self, key: &K) -> Option<LabelSelector> {
        let groups = &mut self.groups;
        let (id, place) = self.keys.remove(key, &mut |&moved, from, to| {
            groups.relocate(moved, from, to);
        })?;
        self.groups.vacate(id, place);
        self.groups.leave(id, key)
    }

    /// The selector stored under `key`.
    pub fn get(&self, key: &K) -> Option<&LabelSelector> {
        Some(&self.groups.get(*self.keys.get(key)?)?.selector)
    }

    /// Whether a selector is stored under `key`.
    pub fn contains_key(&self, key: &K) -> bool {
        self.keys.get(key).is_some()
    }

    /// The keys whose selectors match `labels`, in key order: exactly the keys for which
    /// [`LabelSelector::matches`] holds, found by testing each distinct selector filed under
    /// one of the labels (and each with nothing to file it under) once and gathering the
    /// matched ones' slot masks, before the first key comes out.
    pub fn matching<'i, 'l>(&'i self, labels: &'l Labels) -> Matching<'i, 'l, K> {
        Matching::new(&self.keys, &self.groups, labels)
    }

    /// The first key in key order whose selector matches `labels`: one of the first
    /// [`HEAD_PROBE`] keys when its selector matches (tested one by one, as a scan would, since
    /// a busy queue's first match is usually there), else the smallest first key of the
    /// matched groups, without reading their other keys.
    pub fn first_matching(&self, labels: &Labels) -> Option<&K> {
        for (key, id) in self.keys.iter().take(HEAD_PROBE) {
            if self
                .groups
                .get(*id)
                .is_some_and(|group| group.selector.matches(labels))
            {
                return Some(key);
            }
        }
        matching::matched(&self.groups, labels)
            .iter()
            .filter_map(|&id| self.groups.get(id)?.members.first())
            .min()
    }
}
