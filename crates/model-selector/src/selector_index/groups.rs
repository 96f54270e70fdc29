//! Groups: the distinct selectors of an index, each with the keys stored under it, so a query
//! tests each distinct selector once and takes its keys without testing them.

use std::collections::{BTreeMap, BTreeSet, btree_map};

use super::{
    postings::{Anchor, Postings},
    runs::Place,
};
use crate::selector::LabelSelector;

/// One distinct selector, the requirement it is filed under, and its keys: in key order, and
/// as the slots they hold in the index's runs.
#[derive(Debug, Clone)]
pub(super) struct Group<K> {
    pub(super) selector: LabelSelector,
    anchor: Anchor,
    pub(super) members: BTreeSet<K>,
    /// For each run of the index holding some of the keys, the run's id and the slots they
    /// hold there (never 0), in no order: a query reads them all, contiguously.
    pub(super) spots: Vec<(u32, u128)>,
}

/// The groups by id, and each distinct selector's group by its canonical form.
#[derive(Debug, Clone)]
pub(super) struct Groups<K> {
    /// The groups by id; `None` for a free id (listed in `free`).
    slots: Vec<Option<Group<K>>>,
    free: Vec<u32>,
    /// Each group's id by the canonical string form of its selector (the form `Display`
    /// prints, equal exactly for equal selectors).
    by_form: BTreeMap<Box<str>, u32>,
    postings: Postings,
    /// Where each (group id, run id) pair sits in the group's `spots`.
    spot_at: BTreeMap<(u32, u32), usize>,
}

impl<K> Default for Groups<K> {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            free: Vec::new(),
            by_form: BTreeMap::new(),
            postings: Postings::default(),
            spot_at: BTreeMap::new(),
        }
    }
}

impl<K> Groups<K> {
    /// Group `id`.
    pub(super) fn get(&self, id: u32) -> Option<&Group<K>> {
        self.slots.get(id as usize)?.as_ref()
    }

    pub(super) fn postings(&self) -> &Postings {
        &self.postings
    }
}

impl<K: Ord + Clone> Groups<K> {
    /// Adds `key` to the group of `selector`, making the group if it is new; returns the
    /// group's id. Costs a lookup by the selector's form, and for a new group a lookup per
    /// requirement and per listed value of its anchor.
    pub(super) fn join(&mut self, selector: &LabelSelector, key: K) -> u32 {
        let form = selector.to_string();
        let found = self
            .by_form
            .get(form.as_str())
            .copied()
            .filter(|&id| self.get(id).is_some_and(|g| g.selector == *selector));
        let id = match found {
            Some(id) => id,
            None => self.make(selector, form),
        };
        if let Some(Some(group)) = self.slots.get_mut(id as usize) {
            group.members.insert(key);
        }
        id
    }

    fn make(&mut self, selector: &LabelSelector, form: String) -> u32 {
        let anchor = self.postings.choose(selector);
        // At most MAX_SELECTORS groups are in use (each has a key), and a free id is reused
        // first, so the id fits.
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.slots.push(None);
                u32::try_from(self.slots.len() - 1).unwrap_or(u32::MAX)
            }
        };
        self.postings.add(&anchor, id);
        if let Some(slot) = self.slots.get_mut(id as usize) {
            *slot = Some(Group {
                selector: selector.clone(),
                anchor,
                members: BTreeSet::new(),
                spots: Vec::new(),
            });
        }
        // A form already taken by an unequal selector (not expected: the form is canonical)
        // keeps its group; this one is found through its keys only.
        self.by_form.entry(form.into_boxed_str()).or_insert(id);
        id
    }

    /// Records that a key of group `id` holds `place` in the index's runs.
    pub(super) fn settle(&mut self, id: u32, place: Place) {
        let Some(Some(group)) = self.slots.get_mut(id as usize) else {
            return;
        };
        match self.spot_at.entry((id, place.run)) {
            btree_map::Entry::Occupied(at) => {
                if let Some((_, slots)) = group.spots.get_mut(*at.get()) {
                    *slots |= place.bit();
                }
            }
            btree_map::Entry::Vacant(at) => {
                at.insert(group.spots.len());
                group.spots.push((place.run, place.bit()));
            }
        }
    }

    /// Records that a key of group `id` no longer holds `place`.
    pub(super) fn vacate(&mut self, id: u32, place: Place) {
        let Some(Some(group)) = self.slots.get_mut(id as usize) else {
            return;
        };
        let Some(&at) = self.spot_at.get(&(id, place.run)) else {
            return;
        };
        let Some((_, slots)) = group.spots.get_mut(at) else {
            return;
        };
        *slots &= !place.bit();
        if *slots != 0 {
            return;
        }
        self.spot_at.remove(&(id, place.run));
        group.spots.swap_remove(at);
        if let Some(&(run, _)) = group.spots.get(at) {
            self.spot_at.insert((id, run), at);
        }
        if group.spots.len() < group.spots.capacity() / 4 {
            group.spots.shrink_to(group.spots.len() * 2);
        }
    }

    /// Records that a key of group `id` moved from one place in the index's runs to another.
    pub(super) fn relocate(&mut self, id: u32, from: Place, to: Place) {
        self.vacate(id, from);
        self.settle(id, to);
    }

    /// Takes `key` out of group `id`, dropping the group when it was the last key; returns
    /// the group's selector.
    pub(super) fn leave(&mut self, id: u32, key: &K) -> Option<LabelSelector> {
        let slot = self.slots.get_mut(id as usize)?;
        let group = slot.as_mut()?;
        group.members.remove(key);
        if !group.members.is_empty() {
            return Some(group.selector.clone());
        }
        let group = slot.take()?;
        self.postings.take(&group.anchor, id);
        let form = group.selector.to_string();
        if self.by_form.get(form.as_str()) == Some(&id) {
            self.by_form.remove(form.as_str());
        }
        self.free.push(id);
        Some(group.selector)
    }
}
