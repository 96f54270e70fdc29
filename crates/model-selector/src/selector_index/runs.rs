//! `Runs`: a sorted map kept as short sorted runs under a B-tree of their lower bounds, so
//! reading it in order walks contiguous memory, while an insert or remove costs a B-tree
//! lookup and moves at most one run. Each entry also has a place (its run's id and a slot in
//! the run) that stays put while entries before it come and go, so a caller can keep sets of
//! entries as bit masks per run and read them back in key order.

use std::{
    collections::{BTreeMap, btree_map},
    slice,
};

/// Most entries in one run (the bits of a slot mask): a full run is split in two before an
/// entry goes in.
pub(super) const RUN: usize = 128;

/// Where an entry sits: its run's id and its slot in the run. It changes only when the entry
/// moves to another run (a run split or joined to a neighbour), which the caller is told of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Place {
    pub(super) run: u32,
    pub(super) slot: u8,
}

impl Place {
    /// The slot as a bit of a run's slot mask.
    pub(super) fn bit(self) -> u128 {
        1_u128.checked_shl(u32::from(self.slot)).unwrap_or(0)
    }
}

/// A sorted map from `K` to `V` in runs of at most [`RUN`] entries.
#[derive(Debug, Clone)]
pub(super) struct Runs<K, V> {
    /// Each run by its bound: every entry of a run is at least its bound and below the next
    /// run's bound. A run is never empty.
    runs: BTreeMap<K, Filed<K, V>>,
    len: usize,
    ids: Ids,
}

/// Run ids in use are below `bound`; `free` lists those below it not in use.
#[derive(Debug, Clone, Default)]
struct Ids {
    bound: u32,
    free: Vec<u32>,
}

impl Ids {
    fn take(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            // At most one run per entry, and entries are bounded far below u32::MAX.
            self.bound = self.bound.saturating_add(1);
            self.bound - 1
        })
    }
}

/// Entries in key order, keys and values apart, and each entry's slot; `ranks` maps a used
/// slot back to its entry's position.
///
/// `keys` and `shift` lead (in this order, `repr(C)`), so a query reads one cache line of a
/// run to hand out its keys when its slots are in order.
#[derive(Debug, Clone)]
#[repr(C)]
pub(super) struct Run<K, V> {
    keys: Vec<K>,
    /// When the slots rise with the positions and the used slots are contiguous, the first
    /// slot: a slot mask shifted down by it is the position mask.
    shift: Option<u8>,
    id: u32,
    values: Vec<V>,
    /// The slot of each entry, in key order.
    slots: Vec<u8>,
    /// The position of the entry in each used slot.
    ranks: [u8; RUN],
    /// The used slots.
    used: u128,
    /// Whether the slots rise with the positions.
    ordered: bool,
}

impl<K, V> Run<K, V> {
    fn new(id: u32) -> Self {
        Self {
            id,
            shift: Some(0),
            keys: Vec::new(),
            values: Vec::new(),
            slots: Vec::new(),
            ranks: [0; RUN],
            used: 0,
            ordered: true,
        }
    }

    pub(super) fn keys(&self) -> &[K] {
        &self.keys
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    fn place(&self, at: usize) -> Option<Place> {
        Some(Place {
            run: self.id,
            slot: *self.slots.get(at)?,
        })
    }

    /// The positions of the entries in the slots of `mask`, as a mask: costs a step per
    /// slot in `mask`, not per entry.
    pub(super) fn positions(&self, mut mask: u128) -> u128 {
        if let Some(shift) = self.shift {
            return mask >> shift;
        }
        let mut positions = 0;
        while mask != 0 {
            let slot = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let rank = self.ranks.get(slot).copied().unwrap_or(0);
            positions |= 1_u128.checked_shl(u32::from(rank)).unwrap_or(0);
        }
        positions
    }

    /// Sets the ranks of the entries from position `from` on, and `shift`.
    fn rank_from(&mut self, from: usize) {
        self.ordered = self.slots.windows(2).all(|pair| pair.first() < pair.last());
        self.shift = match (self.ordered, self.slots.first()) {
            (true, Some(&low)) => {
                let run = u128::MAX >> (u128::BITS as usize - self.len().clamp(1, RUN));
                (self.used >> low == run).then_some(low)
            }
            (true, None) => Some(0),
            (false, _) => None,
        };
        for (at, &slot) in self.slots.iter().enumerate().skip(from) {
            if let Some(rank) = self.ranks.get_mut(usize::from(slot)) {
                // A run holds at most RUN entries, so the position fits.
                *rank = u8::try_from(at).unwrap_or(u8::MAX);
            }
        }
    }

    /// Puts an entry at position `at` (the run has room) in the lowest free slot between its
    /// neighbours' slots, which keeps the slots rising with the positions, else in the
    /// lowest free slot.
    fn insert_at(&mut self, at: usize, key: K, value: V) -> Place {
        let free = !self.used;
        let above = at
            .checked_sub(1)
            .and_then(|before| self.slots.get(before))
            .map_or(u128::MAX, |&slot| {
                u128::MAX.checked_shl(u32::from(slot) + 1).unwrap_or(0)
            });
        let below = self.slots.get(at).map_or(u128::MAX, |&slot| {
            1_u128
                .checked_shl(u32::from(slot))
                .unwrap_or(0)
                .wrapping_sub(1)
        });
        let between = free & above & below;
        let pick = if between == 0 { free } else { between };
        let slot = u8::try_from(pick.trailing_zeros()).unwrap_or(u8::MAX);
        let place = Place { run: self.id, slot };
        self.used |= place.bit();
        self.keys.insert(at, key);
        self.values.insert(at, value);
        self.slots.insert(at, slot);
        self.rank_from(at);
        place
    }

    fn remove_at(&mut self, at: usize) -> Option<(V, Place)> {
        if at >= self.len() {
            return None;
        }
        let place = self.place(at)?;
        self.used &= !place.bit();
        self.keys.remove(at);
        self.slots.remove(at);
        let value = self.values.remove(at);
        self.rank_from(at);
        Some((value, place))
    }

    /// Moves `other`'s entries (all above this run's) to the end of this run, in free slots.
    fn append(&mut self, other: &mut Self, moved: &mut impl FnMut(&V, Place, Place)) {
        let slots = std::mem::take(&mut other.slots);
        other.used = 0;
        for ((key, value), slot) in other.keys.drain(..).zip(other.values.drain(..)).zip(slots) {
            let from = Place {
                run: other.id,
                slot,
            };
            let to = self.insert_at(self.len(), key, value);
            if let Some(value) = self.values.last() {
                moved(value, from, to);
            }
        }
    }

    /// Moves the upper half out into a run of its own, with id `id`.
    fn split(&mut self, id: u32, moved: &mut impl FnMut(&V, Place, Place)) -> Self {
        let mut upper = Self::new(id);
        let at = self.len() / 2;
        let keys = self.keys.split_off(at);
        let values = self.values.split_off(at);
        let slots = self.slots.split_off(at);
        for &slot in &slots {
            self.used &= !(Place { run: self.id, slot }).bit();
        }
        self.rank_from(at);
        for ((key, value), slot) in keys.into_iter().zip(values).zip(slots) {
            let from = Place { run: self.id, slot };
            let to = upper.insert_at(upper.len(), key, value);
            if let Some(value) = upper.values.last() {
                moved(value, from, to);
            }
        }
        upper
    }
}

/// A run as the B-tree holds it: its id beside it, its entries behind a pointer, so that a
/// walk over the runs that reads only their ids reads the B-tree's nodes alone.
#[derive(Debug, Clone)]
pub(super) struct Filed<K, V>(u32, Box<Run<K, V>>);

impl<K, V> Filed<K, V> {
    pub(super) fn id(&self) -> u32 {
        self.0
    }
}

impl<K, V> Filed<K, V> {
    /// Splits this full run in two: the upper half moves to a run of its own, and the lower
    /// half too when its slots are out of order (they stay so until the entries move, and
    /// they move now anyway), so both halves start in order.
    fn split(&mut self, ids: &mut Ids, moved: &mut impl FnMut(&V, Place, Place)) -> Run<K, V> {
        let upper = self.1.split(ids.take(), moved);
        if self.shift.is_none() {
            let mut renumbered = Run::new(ids.take());
            renumbered.append(self, moved);
            ids.free.push(self.0);
            *self = renumbered.into();
        }
        upper
    }
}

impl<K, V> From<Run<K, V>> for Filed<K, V> {
    fn from(run: Run<K, V>) -> Self {
        Self(run.id, Box::new(run))
    }
}

impl<K, V> std::ops::Deref for Filed<K, V> {
    type Target = Run<K, V>;

    fn deref(&self) -> &Run<K, V> {
        &self.1
    }
}

impl<K, V> std::ops::DerefMut for Filed<K, V> {
    fn deref_mut(&mut self) -> &mut Run<K, V> {
        &mut self.1
    }
}

/// The runs of a [`Runs`] in key order.
pub(super) type Slices<'a, K, V> = btree_map::Values<'a, K, Filed<K, V>>;

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
            ids: Ids::default(),
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

    /// One more than the largest run id in use (the size of a table by run id).
    pub(super) fn id_bound(&self) -> usize {
        self.ids.bound as usize
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
}

impl<K: Ord + Clone, V> Runs<K, V> {
    /// The value of `key`.
    pub(super) fn get(&self, key: &K) -> Option<&V> {
        let (_, run) = self.runs.range(..=key).next_back()?;
        let at = run.keys.binary_search(key).ok()?;
        run.values.get(at)
    }

    /// Stores `value` under `key`, returning the value it replaces (the stored key is kept)
    /// and the entry's place. Entries that move to another run on the way (a full run is
    /// split first) are passed to `moved` with their old and new places.
    pub(super) fn insert(
        &mut self,
        key: K,
        value: V,
        moved: &mut impl FnMut(&V, Place, Place),
    ) -> (Option<V>, Place) {
        loop {
            let Some((_, run)) = self.runs.range_mut(..=&key).next_back() else {
                return (None, self.insert_first(key, value, moved));
            };
            let at = match run.keys.binary_search(&key) {
                Ok(at) => {
                    let place = run.place(at).unwrap_or(Place { run: 0, slot: 0 });
                    let old = run
                        .values
                        .get_mut(at)
                        .map(|old| std::mem::replace(old, value));
                    return (old, place);
                }
                Err(at) => at,
            };
            if run.len() < RUN {
                self.len += 1;
                return (None, run.insert_at(at, key, value));
            }
            let upper = run.split(&mut self.ids, moved);
            if let Some(bound) = upper.keys.first() {
                self.runs.insert(bound.clone(), upper.into());
            }
        }
    }

    /// Puts `key`, below every bound (or into an empty map), first in the first run, which
    /// takes `key` as its bound.
    fn insert_first(
        &mut self,
        key: K,
        value: V,
        moved: &mut impl FnMut(&V, Place, Place),
    ) -> Place {
        let mut run: Filed<K, V> = match self.runs.pop_first() {
            Some((_, run)) => run,
            None => Run::new(self.ids.take()).into(),
        };
        if run.len() == RUN {
            let upper = run.split(&mut self.ids, moved);
            if let Some(bound) = upper.keys.first() {
                self.runs.insert(bound.clone(), upper.into());
            }
        }
        let place = run.insert_at(0, key.clone(), value);
        self.len += 1;
        self.runs.insert(key, run);
        place
    }

    /// Removes `key`, returning its value and the place it had. A run left with under a
    /// quarter of [`RUN`] entries joins a neighbour when they fit in one run (the entries
    /// that move are passed to `moved`), else gives back its spare room, so memory stays
    /// within a small factor of the entries.
    pub(super) fn remove(
        &mut self,
        key: &K,
        moved: &mut impl FnMut(&V, Place, Place),
    ) -> Option<(V, Place)> {
        let (bound, run) = self.runs.range_mut(..=key).next_back()?;
        let at = run.keys.binary_search(key).ok()?;
        let removed = run.remove_at(at)?;
        self.len -= 1;
        if run.len() >= RUN / 4 {
            return Some(removed);
        }
        let bound = bound.clone();
        let mut run = self.runs.remove(&bound)?;
        if let Some((_, previous)) = self.runs.range_mut(..&bound).next_back()
            && previous.len() + run.len() <= RUN
        {
            previous.append(&mut run, moved);
            self.ids.free.push(run.id);
            return Some(removed);
        }
        if let Some((next_bound, next)) = self.runs.range(&bound..).next()
            && next.len() + run.len() <= RUN
        {
            let next_bound = next_bound.clone();
            if let Some(mut next) = self.runs.remove(&next_bound) {
                run.append(&mut next, moved);
                self.ids.free.push(next.id);
            }
        }
        if run.len() > 0 {
            run.keys.shrink_to_fit();
            run.values.shrink_to_fit();
            run.slots.shrink_to_fit();
            self.runs.insert(bound, run);
        } else {
            self.ids.free.push(run.id);
        }
        Some(removed)
    }
}

#[cfg(test)]
mod tests;
