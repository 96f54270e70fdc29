//! `Runs`: a sorted map kept as short sorted runs under a B-tree of their lower bounds, so
//! reading it in order walks contiguous memory (a `BTreeMap` of 100,000 keys built among
//! other allocations spreads its nodes over the heap, and a walk misses the cache at every
//! node), while an insert or remove costs a B-tree lookup and moves at most one run.

use std::{
    collections::{BTreeMap, btree_map},
    slice,
};

/// Most entries in one run; a run that grows past it is split in two.
const RUN: usize = 128;

/// A sorted map from `K` to `V` in runs of at most [`RUN`] entries.
#[derive(Debug, Clone)]
pub(super) struct Runs<K, V> {
    /// Each run by its bound: every entry of a run is at least its bound and below the next
    /// run's bound. A run is never empty.
    runs: BTreeMap<K, Run<K, V>>,
    len: usize,
}

/// Entries in key order, keys and values apart, so that reading the values alone (the walk
/// of a query reads a group id per key) reads contiguous memory and no key.
#[derive(Debug, Clone)]
pub(super) struct Run<K, V> {
    keys: Vec<K>,
    values: Vec<V>,
}

impl<K, V> Run<K, V> {
    pub(super) fn keys(&self) -> &[K] {
        &self.keys
    }

    pub(super) fn values(&self) -> &[V] {
        &self.values
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    fn append(&mut self, other: &mut Self) {
        self.keys.append(&mut other.keys);
        self.values.append(&mut other.values);
    }

    /// Moves the upper half out into a run of its own.
    fn split(&mut self) -> Self {
        let at = self.len() / 2;
        Self {
            keys: self.keys.split_off(at),
            values: self.values.split_off(at),
        }
    }
}

/// The runs of a [`Runs`] in key order.
pub(super) type Slices<'a, K, V> = btree_map::Values<'a, K, Run<K, V>>;

/// The entries of a [`Runs`] in key order.
#[derive(Debug)]
pub(super) struct Iter<'a, K, V> {
    runs: Slices<'a, K, V>,
    keys: slice::Iter<'a, K>,
    values: slice::Iter<'a, V>,
}

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let (Some(key), Some(value)) = (self.keys.next(), self.values.next()) {
                return Some((key, value));
            }
            let run = self.runs.next()?;
            self.keys = run.keys.iter();
            self.values = run.values.iter();
        }
    }
}

impl<K, V> Default for Runs<K, V> {
    fn default() -> Self {
        Self {
            runs: BTreeMap::new(),
            len: 0,
        }
    }
}

impl<K, V> Runs<K, V> {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every entry in key order.
    pub(super) fn iter(&self) -> Iter<'_, K, V> {
        Iter {
            runs: self.runs.values(),
            keys: [].iter(),
            values: [].iter(),
        }
    }

    /// Every run in key order.
    pub(super) fn slices(&self) -> Slices<'_, K, V> {
        self.runs.values()
    }

    /// The smallest key.
    pub(super) fn first(&self) -> Option<&K> {
        self.runs.values().next()?.keys.first()
    }
}

impl<K: Ord + Clone, V> Runs<K, V> {
    /// The value of `key`.
    pub(super) fn get(&self, key: &K) -> Option<&V> {
        let (_, run) = self.runs.range(..=key).next_back()?;
        let at = run.keys.binary_search(key).ok()?;
        run.values.get(at)
    }

    /// Stores `value` under `key`, returning the value it replaces (the stored key is kept).
    pub(super) fn insert(&mut self, key: K, value: V) -> Option<V> {
        let Some((_, run)) = self.runs.range_mut(..=&key).next_back() else {
            // Below every bound (or empty): the first run takes it and `key` as its bound.
            let mut run = self.runs.pop_first().map_or_else(
                || Run {
                    keys: Vec::new(),
                    values: Vec::new(),
                },
                |(_, run)| run,
            );
            run.keys.insert(0, key.clone());
            run.values.insert(0, value);
            self.len += 1;
            self.put(key, run);
            return None;
        };
        match run.keys.binary_search(&key) {
            Ok(at) => {
                return run
                    .values
                    .get_mut(at)
                    .map(|old| std::mem::replace(old, value));
            }
            Err(at) => {
                run.keys.insert(at, key);
                run.values.insert(at, value);
            }
        }
        self.len += 1;
        if run.len() > RUN {
            let upper = run.split();
            if let Some(bound) = upper.keys.first() {
                self.runs.insert(bound.clone(), upper);
            }
        }
        None
    }

    /// Files `run` under `bound`, split when it is too long.
    fn put(&mut self, bound: K, mut run: Run<K, V>) {
        if run.len() > RUN {
            let upper = run.split();
            if let Some(upper_bound) = upper.keys.first() {
                self.runs.insert(upper_bound.clone(), upper);
            }
        }
        self.runs.insert(bound, run);
    }

    /// Removes `key`, returning its value. A run left with under a quarter of [`RUN`]
    /// entries joins a neighbour when they fit in one run, else gives back its spare room, so
    /// memory stays within a small factor of the entries.
    pub(super) fn remove(&mut self, key: &K) -> Option<V> {
        let (bound, run) = self.runs.range_mut(..=key).next_back()?;
        let at = run.keys.binary_search(key).ok()?;
        run.keys.remove(at);
        let value = run.values.remove(at);
        self.len -= 1;
        if run.len() >= RUN / 4 {
            return Some(value);
        }
        let bound = bound.clone();
        let Some(mut run) = self.runs.remove(&bound) else {
            return Some(value);
        };
        if let Some((_, previous)) = self.runs.range_mut(..&bound).next_back()
            && previous.len() + run.len() <= RUN
        {
            previous.append(&mut run);
            return Some(value);
        }
        if let Some((next_bound, next)) = self.runs.range(&bound..).next()
            && next.len() + run.len() <= RUN
        {
            let next_bound = next_bound.clone();
            if let Some(mut next) = self.runs.remove(&next_bound) {
                run.append(&mut next);
            }
        }
        if run.len() > 0 {
            run.keys.shrink_to_fit();
            run.values.shrink_to_fit();
            self.runs.insert(bound, run);
        }
        Some(value)
    }
}

#[cfg(test)]
mod tests;
