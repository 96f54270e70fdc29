//! The ownership graph of a view: each reference resolved by uid within the tenant (live,
//! gone, or ambiguous), the owners and dependents of every resource, an order with owners
//! first, and the resources left out of it (on or under a cycle, or with an ambiguous
//! identity). [`check`] reports what makes a graph wrong.

mod check;

use std::collections::HashMap;

pub use self::check::check;
use crate::resource::OwnedResource;
use model_ids::Uid;
use model_task::task::OwnerReference;

// One bit per owner reference in `Forest::live`.
const _: () = assert!(crate::limits::MAX_OWNER_REFERENCES <= 32);

/// The slot of a uid that several resources share (an ambiguous identity); any other slot
/// is the one resource's position.
const SHARED: usize = usize::MAX;

/// The resolved ownership graph of a slice of resources, by position in the slice.
///
/// Memory is linear in the resources plus their references: two adjacency lists in
/// compressed form (offsets plus one flat list each) and a few vectors of one entry per
/// resource.
#[derive(Debug)]
pub(crate) struct Forest {
    /// `owner_start[i]..owner_start[i + 1]` is the range of `owners` that lists the live
    /// owners of resource `i`.
    owner_start: Vec<usize>,
    owners: Vec<usize>,
    /// The same for the live dependents of each resource, with whether the owner is the
    /// dependent's controller.
    dependent_start: Vec<usize>,
    dependents: Vec<Edge>,
    /// The live controller of each resource.
    controller: Vec<Option<usize>>,
    /// For each resource, bit `k` set when its reference `k` is live.
    live: Vec<u32>,
    /// Every resource that is not stuck, owners before what they own.
    order: Vec<usize>,
    /// Resources left alone: a uid two possible owners share (its own or the one it names),
    /// or on or under a cycle.
    stuck: Vec<bool>,
}

/// A live dependent and whether its owner is its controller.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Edge {
    pub(crate) dependent: usize,
    pub(crate) controlled: bool,
}

/// How one owner reference resolves.
enum Resolved {
    Live(usize),
    Gone,
    Ambiguous,
}

impl Forest {
    /// Resolves every reference of `resources` and orders them. Linear in the resources
    /// and their references: one hash insert per resource that can own (only tasks, flows
    /// and schedules are indexed, since a reference names nothing else) and one lookup per
    /// reference.
    pub(crate) fn new(resources: &[OwnedResource]) -> Self {
        let count = resources.len();
        let owners_count = resources.iter().filter(|r| r.kind().can_own()).count();
        let mut by_uid: HashMap<Uid, usize> = HashMap::with_capacity(owners_count);
        for (index, resource) in resources.iter().enumerate() {
            if let (true, Some(uid)) = (resource.kind().can_own(), resource.uid()) {
                by_uid
                    .entry(uid)
                    .and_modify(|slot| *slot = SHARED)
                    .or_insert(index);
            }
        }
        let resolve = |resource: &OwnedResource, reference: &OwnerReference| -> Resolved {
            match by_uid.get(&reference.uid()) {
                None => Resolved::Gone,
                Some(&SHARED) => Resolved::Ambiguous,
                Some(&owner) => match resources.get(owner) {
                    Some(found)
                        if found.is_named_by(reference) && found.tenant() == resource.tenant() =>
                    {
                        Resolved::Live(owner)
                    }
                    _ => Resolved::Gone,
                },
            }
        };

        let mut stuck = vec![false; count];
        let mut controller = vec![None; count];
        let mut live = vec![0_u32; count];
        let mut owner_start = Vec::with_capacity(count + 1);
        let references = resources.iter().map(|r| r.owner_references().len()).sum();
        let mut owners = Vec::with_capacity(references);
        let mut dependent_count = vec![0_usize; count];
        for (index, resource) in resources.iter().enumerate() {
            owner_start.push(owners.len());
            let own_slot = resource.uid().filter(|_| resource.kind().can_own());
            if own_slot.and_then(|uid| by_uid.get(&uid)) == Some(&SHARED) {
                set(&mut stuck, index);
            }
            for (position, reference) in resource.owner_references().iter().enumerate() {
                match resolve(resource, reference) {
                    Resolved::Live(owner) => {
                        owners.push(owner);
                        if let Some(mask) = live.get_mut(index) {
                            *mask |= 1_u32.checked_shl(position as u32).unwrap_or(0);
                        }
                        if let Some(count) = dependent_count.get_mut(owner) {
                            *count += 1;
                        }
                        if reference.is_controller()
                            && let Some(slot) = controller.get_mut(index)
                        {
                            *slot = Some(owner);
                        }
                    }
                    Resolved::Gone => {}
                    Resolved::Ambiguous => set(&mut stuck, index),
                }
            }
        }
        owner_start.push(owners.len());

        // Dependents: the same edges the other way round, by counting then filling.
        let mut dependent_start = Vec::with_capacity(count + 1);
        let mut total = 0;
        for &n in &dependent_count {
            dependent_start.push(total);
            total += n;
        }
        dependent_start.push(total);
        let mut fill = dependent_start.clone();
        let mut dependents = vec![
            Edge {
                dependent: 0,
                controlled: false
            };
            total
        ];
        for index in 0..count {
            let live = owner_range(&owner_start, &owners, index);
            let ctrl = controller.get(index).copied().flatten();
            for &owner in live {
                if let Some(slot) = fill.get_mut(owner)
                    && let Some(edge) = dependents.get_mut(*slot)
                {
                    *edge = Edge {
                        dependent: index,
                        controlled: ctrl == Some(owner),
                    };
                    *slot += 1;
                }
            }
        }

        let mut forest = Self {
            owner_start,
            owners,
            dependent_start,
            dependents,
            controller,
            live,
            order: Vec::with_capacity(count),
            stuck,
        };
        forest.order_owners_first();
        forest
    }

    /// Kahn's algorithm on the live edges: a resource comes once all its owners came. What
    /// never comes is on a cycle or owned through one, and is stuck.
    fn order_owners_first(&mut self) {
        let count = self.stuck.len();
        let mut waiting: Vec<usize> = (0..count).map(|i| self.owners_of(i).len()).collect();
        let mut order = Vec::with_capacity(count);
        order.extend((0..count).filter(|&i| waiting.get(i) == Some(&0)));
        let mut next = 0;
        while let Some(&owner) = order.get(next) {
            next += 1;
            for edge in self.dependents_of(owner) {
                if let Some(left) = waiting.get_mut(edge.dependent) {
                    *left -= 1;
                    if *left == 0 {
                        order.push(edge.dependent);
                    }
                }
            }
        }
        for (index, left) in waiting.iter().enumerate() {
            if *left > 0 {
                set(&mut self.stuck, index);
            }
        }
        order.retain(|&i| !self.is_stuck(i));
        self.order = order;
    }

    /// The live owners of resource `index`.
    pub(crate) fn owners_of(&self, index: usize) -> &[usize] {
        owner_range(&self.owner_start, &self.owners, index)
    }

    /// The live dependents of resource `index`.
    pub(crate) fn dependents_of(&self, index: usize) -> &[Edge] {
        let start = self.dependent_start.get(index).copied().unwrap_or(0);
        let end = self
            .dependent_start
            .get(index + 1)
            .copied()
            .unwrap_or(start);
        self.dependents.get(start..end).unwrap_or_default()
    }

    /// Its live controller.
    pub(crate) fn controller(&self, index: usize) -> Option<usize> {
        self.controller.get(index).copied().flatten()
    }

    /// Whether its reference at `position` is live (its owners in
    /// [`owners_of`](Self::owners_of) are its live references in order).
    pub(crate) fn is_live(&self, index: usize, position: usize) -> bool {
        let mask = self.live.get(index).copied().unwrap_or(0);
        u32::try_from(position)
            .ok()
            .and_then(|position| mask.checked_shr(position))
            .is_some_and(|bits| bits & 1 == 1)
    }

    /// Whether it is left alone.
    pub(crate) fn is_stuck(&self, index: usize) -> bool {
        self.stuck.get(index).copied().unwrap_or(true)
    }

    /// Every resource that is not stuck, owners before what they own.
    pub(crate) fn order(&self) -> &[usize] {
        &self.order
    }
}

/// `owners[start[i]..start[i + 1]]`, or nothing out of range.
fn owner_range<'a>(start: &[usize], owners: &'a [usize], index: usize) -> &'a [usize] {
    let from = start.get(index).copied().unwrap_or(0);
    let to = start.get(index + 1).copied().unwrap_or(from);
    owners.get(from..to).unwrap_or_default()
}

/// Marks `index`.
fn set(flags: &mut [bool], index: usize) {
    if let Some(flag) = flags.get_mut(index) {
        *flag = true;
    }
}

#[cfg(test)]
mod tests;
