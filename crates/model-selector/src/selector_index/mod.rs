//! `SelectorIndex`: many stored selectors keyed by the caller, asked which of them one label
//! set matches (the reverse of the runner index: queued tasks' runner selectors, and a runner
//! asking for work).

use std::{collections::BTreeMap, fmt};

use crate::{error::SelectorError, labels::Labels, selector::LabelSelector};

/// Most selectors in one [`SelectorIndex`].
pub const MAX_SELECTORS: usize = 1_000_000;

/// Selectors stored under keys of the caller's choice, answering which of them a label set
/// matches, in key order.
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
    entries: BTreeMap<K, LabelSelector>,
}

impl<K> Default for SelectorIndex<K> {
    fn default() -> Self {
        Self {
            entries: BTreeMap::new(),
        }
    }
}

impl<K: fmt::Debug> fmt::Debug for SelectorIndex<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.entries.iter()).finish()
    }
}

impl<K: Ord + Clone> SelectorIndex<K> {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of stored selectors.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no selector is stored.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
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
        if self.entries.len() == MAX_SELECTORS && !self.entries.contains_key(&key) {
            return Err(SelectorError::TooMany {
                path: String::new(),
                what: "selectors",
                limit: MAX_SELECTORS,
            });
        }
        Ok(self.entries.insert(key, selector.clone()))
    }

    /// Removes the selector stored under `key`, returning it.
    pub fn remove(&mut self, key: &K) -> Option<LabelSelector> {
        self.entries.remove(key)
    }

    /// The selector stored under `key`.
    pub fn get(&self, key: &K) -> Option<&LabelSelector> {
        self.entries.get(key)
    }

    /// Whether a selector is stored under `key`.
    pub fn contains_key(&self, key: &K) -> bool {
        self.entries.contains_key(key)
    }

    /// Every key and its selector, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &LabelSelector)> + '_ {
        self.entries.iter()
    }

    /// The keys whose selectors match `labels`, in key order, computed as the iterator
    /// advances: exactly the keys for which [`LabelSelector::matches`] holds.
    pub fn matching<'i, 'l>(&'i self, labels: &'l Labels) -> Matching<'i, 'l, K> {
        Matching {
            entries: self.entries.iter(),
            labels,
        }
    }

    /// The first key in key order whose selector matches `labels`.
    pub fn first_matching(&self, labels: &Labels) -> Option<&K> {
        self.matching(labels).next()
    }
}

/// The keys of a [`SelectorIndex`] whose selectors match a label set, in key order, from
/// [`SelectorIndex::matching`].
pub struct Matching<'i, 'l, K> {
    entries: std::collections::btree_map::Iter<'i, K, LabelSelector>,
    labels: &'l Labels,
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
        let labels = self.labels;
        self.entries
            .find(|(_, selector)| selector.matches(labels))
            .map(|(key, _)| key)
    }
}
