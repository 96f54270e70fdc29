//! History limits: which finished resources each owner keeps of every kind it controls,
//! and its newest one, found in time linear in what it controls.

use std::cmp::Ordering;

use chrono::{DateTime, Utc};

use crate::graph::Forest;
use crate::kind::ResourceKind;
use crate::lifecycle::Outcome;
use crate::policy::RetentionPolicy;
use crate::resource::OwnedResource;

/// For every resource: whether it is past its controller's history limits (surplus), and
/// whether it is the newest finished one of its kind under an active controller (latest).
#[derive(Debug)]
pub(super) struct Marks {
    surplus: Vec<bool>,
    latest: Vec<bool>,
}

/// A finished controlled resource as history ranks it.
#[derive(Debug, Clone, Copy)]
struct Entry<'a> {
    at: DateTime<Utc>,
    name: &'a str,
    index: usize,
}

/// Newest first: later `at`, then the greater name, then the later position.
fn newest_first(a: &Entry<'_>, b: &Entry<'_>) -> Ordering {
    b.at.cmp(&a.at)
        .then_with(|| b.name.cmp(a.name))
        .then_with(|| b.index.cmp(&a.index))
}

/// The groups one owner's controlled resources fall in: one per kind and outcome.
const GROUPS: usize = ResourceKind::ALL.len() * 2;

impl Marks {
    /// Marks every resource of `resources`.
    pub(super) fn new(
        policy: &RetentionPolicy,
        resources: &[OwnedResource],
        forest: &Forest,
    ) -> Self {
        let mut marks = Self {
            surplus: vec![false; resources.len()],
            latest: vec![false; resources.len()],
        };
        let mut groups: [Vec<Entry<'_>>; GROUPS] = Default::default();
        for (owner, resource) in resources.iter().enumerate() {
            if !resource.kind().can_own() {
                continue;
            }
            let limits = resource
                .history()
                .or(policy.rule(resource.kind()).history());
            let active = resource.lifecycle().is_draft();
            if limits.is_none() && !active {
                continue;
            }
            groups.iter_mut().for_each(Vec::clear);
            for edge in forest.dependents_of(owner) {
                let Some(dependent) = resources.get(edge.dependent) else {
                    continue;
                };
                let (Some(at), Some(outcome), true) = (
                    dependent.lifecycle().sealed_at(),
                    dependent.lifecycle().outcome(),
                    edge.controlled,
                ) else {
                    continue;
                };
                if let Some(group) = groups.get_mut(group_of(dependent.kind(), outcome)) {
                    group.push(Entry {
                        at,
                        name: dependent.name(),
                        index: edge.dependent,
                    });
                }
            }
            for kind in ResourceKind::ALL {
                let succeeded = group_of(kind, Outcome::Succeeded);
                let failed = group_of(kind, Outcome::Failed);
                if active {
                    let newest = groups
                        .get(succeeded)
                        .into_iter()
                        .chain(groups.get(failed))
                        .flatten()
                        .min_by(|a, b| newest_first(a, b));
                    if let Some(entry) = newest {
                        set(&mut marks.latest, entry.index);
                    }
                }
                if let Some(limits) = limits {
                    for (group, keep) in
                        [(succeeded, limits.succeeded()), (failed, limits.failed())]
                    {
                        if let Some(entries) = groups.get_mut(group) {
                            mark_surplus(entries, keep, &mut marks.surplus);
                        }
                    }
                }
            }
        }
        marks
    }

    /// Whether it is past its controller's history limits.
    pub(super) fn is_surplus(&self, index: usize) -> bool {
        self.surplus.get(index).copied().unwrap_or(false)
    }

    /// Whether it is the newest of its kind under an active controller.
    pub(super) fn is_latest(&self, index: usize) -> bool {
        self.latest.get(index).copied().unwrap_or(false)
    }
}

/// Marks all but the newest `keep` of `entries` (in linear time: a selection, not a sort).
fn mark_surplus(entries: &mut [Entry<'_>], keep: u32, surplus: &mut [bool]) {
    let keep = usize::try_from(keep).unwrap_or(usize::MAX);
    if entries.len() <= keep {
        return;
    }
    entries.select_nth_unstable_by(keep, newest_first);
    for entry in entries.get(keep..).unwrap_or_default() {
        set(surplus, entry.index);
    }
}

/// The group of a kind and an outcome.
fn group_of(kind: ResourceKind, outcome: Outcome) -> usize {
    kind.index() * 2 + usize::from(outcome == Outcome::Failed)
}

/// Marks `index`.
fn set(flags: &mut [bool], index: usize) {
    if let Some(flag) = flags.get_mut(index) {
        *flag = true;
    }
}
