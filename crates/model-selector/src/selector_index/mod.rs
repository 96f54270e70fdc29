//! `SelectorIndex`: many stored selectors keyed by the caller, asked which of them one label
//! set matches (the reverse of the runner index: queued tasks' runner selectors, and a runner
//! asking for work).

mod postings;

use std::{
    cmp::Reverse,
    collections::{BTreeMap, BinaryHeap, btree_map},
    fmt,
};

use self::postings::{Anchor, Postings};
use crate::{error::SelectorError, labels::Labels, selector::LabelSelector};

/// Most selectors in one [`SelectorIndex`].
pub const MAX_SELECTORS: usize = 1_000_000;

/// Selectors stored under keys of the caller's choice, answering which of them a label set
/// matches, in key order, without testing every selector.
///
/// Each selector is filed under one of its requirements that a matching label set must
/// satisfy through one of its labels (an equality, an `In` list, or a key that must be
/// present), the one whose lists are shortest when it comes in; a selector with none (only
/// `NotIn` and `DoesNotExist`, or empty) is tested for every label set. Each list is kept in
/// key order, so [`SelectorIndex::matching`] merges the lists the label set's labels name
/// and tests only their selectors. Insert and remove cost a lookup per requirement and per
/// listed value of the chosen one; a query allocates a cursor per list it reads (at most
/// two per label).
///
/// The key's order is the order answers come in: a caller that wants the first match in its
/// queue order uses keys that sort in queue order (priority, then time queued, then id), and
/// [`SelectorIndex::matching`] is lazy, so `matching(labels).next()` (or
/// [`SelectorIndex::first_matching`]) stops at the first match, and
/// `matching(labels).find(|key| ...)` at the first one the caller also accepts.
///
/// ```
/// use model_selector::{LabelSelector, Labels, SelectorIndex};
///
/// let mut queue = SelectorIndex::new();
/// queue.insert((0, "task-b"), &"zone=eu".parse()?)?;
/// queue.insert((0, "task-a"), &"zone=us".parse()?)?;
/// queue.insert((1, "task-c"), &LabelSelector::new())?;
///
/// let runner = Labels::from_pairs([("zone", "eu")])?;
/// let keys: Vec<_> = queue.matching(&runner).collect();
/// assert_eq!(keys, [&(0, "task-b"), &(1, "task-c")]);
/// assert_eq!(queue.first_matching(&runner), Some(&(0, "task-b")));
/// # Ok::<(), model_selector::SelectorError>(())
/// ```
#[derive(Clone)]
pub struct SelectorIndex<K> {
    /// Each key's slot in `stored`.
    keys: BTreeMap<K, u32>,
    /// The selectors by slot; `None` for a free slot (listed in `free`).
    stored: Vec<Option<Stored>>,
    free: Vec<u32>,
    postings: Postings<K>,
}

/// A stored selector and the requirement it is filed under.
#[derive(Clone)]
struct Stored {
    selector: LabelSelector,
    anchor: Anchor,
}

impl<K> Default for SelectorIndex<K> {
    fn default() -> Self {
        Self {
            keys: BTreeMap::new(),
            stored: Vec::new(),
            free: Vec::new(),
            postings: Postings::default(),
        }
    }
}

impl<K: fmt::Debug> fmt::Debug for SelectorIndex<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.keys
                    .iter()
                    .filter_map(|(k, &slot)| Some((k, &self.slot(slot)?.selector))),
            )
            .finish()
    }
}

impl<K> SelectorIndex<K> {
    fn slot(&self, slot: u32) -> Option<&Stored> {
        self.stored.get(slot as usize)?.as_ref()
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
        if self.keys.len() == MAX_SELECTORS && !self.keys.contains_key(&key) {
            return Err(SelectorError::TooMany {
                path: String::new(),
                what: "selectors",
                limit: MAX_SELECTORS,
            });
        }
        let previous = self.remove(&key);
        let anchor = self.postings.choose(selector);
        // At most MAX_SELECTORS slots are in use, and a free one is reused first.
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.stored.push(None);
                u32::try_from(self.stored.len() - 1).unwrap_or(u32::MAX)
            }
        };
        self.postings.add(&anchor, &key, slot);
        if let Some(cell) = self.stored.get_mut(slot as usize) {
            *cell = Some(Stored {
                selector: selector.clone(),
                anchor,
            });
        }
        self.keys.insert(key, slot);
        Ok(previous)
    }

    /// Removes the selector stored under `key`, returning it.
    pub fn remove(&mut self, key: &K) -> Option<LabelSelector> {
        let slot = self.keys.remove(key)?;
        let stored = self.stored.get_mut(slot as usize)?.take()?;
        self.postings.take(&stored.anchor, key);
        self.free.push(slot);
        Some(stored.selector)
    }

    /// The selector stored under `key`.
    pub fn get(&self, key: &K) -> Option<&LabelSelector> {
        Some(&self.slot(*self.keys.get(key)?)?.selector)
    }

    /// Whether a selector is stored under `key`.
    pub fn contains_key(&self, key: &K) -> bool {
        self.keys.contains_key(key)
    }

    /// Every key and its selector, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &LabelSelector)> + '_ {
        self.keys
            .iter()
            .filter_map(|(k, &slot)| Some((k, &self.slot(slot)?.selector)))
    }

    /// The keys whose selectors match `labels`, in key order, computed as the iterator
    /// advances: exactly the keys for which [`LabelSelector::matches`] holds, found by
    /// testing only the selectors filed under one of the labels (and those with nothing to
    /// file them under).
    pub fn matching<'i, 'l>(&'i self, labels: &'l Labels) -> Matching<'i, 'l, K> {
        let mut cursors: Vec<btree_map::Iter<'i, K, u32>> = Vec::new();
        let mut heads = BinaryHeap::new();
        for list in self.postings.lists(labels.iter()) {
            let mut cursor = list.iter();
            if let Some((key, &slot)) = cursor.next() {
                heads.push(Reverse(Head {
                    key,
                    cursor: cursors.len(),
                    slot,
                }));
                cursors.push(cursor);
            }
        }
        Matching {
            index: self,
            labels,
            cursors,
            heads,
        }
    }

    /// The first key in key order whose selector matches `labels`.
    pub fn first_matching(&self, labels: &Labels) -> Option<&K> {
        self.matching(labels).next()
    }
}

/// The next selector of one list, ordered by key (then by list, which never decides: a
/// selector is in at most one of the lists a label set reads).
struct Head<'i, K> {
    key: &'i K,
    cursor: usize,
    slot: u32,
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

/// The keys of a [`SelectorIndex`] whose selectors match a label set, in key order, from
/// [`SelectorIndex::matching`].
pub struct Matching<'i, 'l, K> {
    index: &'i SelectorIndex<K>,
    labels: &'l Labels,
    /// The lists being merged, each past its head.
    cursors: Vec<btree_map::Iter<'i, K, u32>>,
    /// The head of each list not yet finished, smallest key first.
    heads: BinaryHeap<Reverse<Head<'i, K>>>,
}

impl<K> fmt::Debug for Matching<'_, '_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Matching")
            .field("labels", self.labels)
            .field("lists", &self.cursors.len())
            .finish_non_exhaustive()
    }
}

impl<'i, K: Ord> Iterator for Matching<'i, '_, K> {
    type Item = &'i K;

    fn next(&mut self) -> Option<&'i K> {
        while let Some(Reverse(head)) = self.heads.pop() {
            if let Some((key, &slot)) = self.cursors.get_mut(head.cursor).and_then(Iterator::next) {
                self.heads.push(Reverse(Head {
                    key,
                    cursor: head.cursor,
                    slot,
                }));
            }
            if self
                .index
                .slot(head.slot)
                .is_some_and(|stored| stored.selector.matches(self.labels))
            {
                return Some(head.key);
            }
        }
        None
    }
}
