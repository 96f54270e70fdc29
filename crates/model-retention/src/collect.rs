//! `collect`: what may be deleted now and in which order, which owner references the
//! caller removes first, and when to look again.

mod history;
mod order;
mod release;

use chrono::{DateTime, Utc};

use self::history::Marks;
use crate::graph::Forest;
use crate::policy::{CascadePolicy, RetentionPolicy};
use crate::resource::OwnedResource;
use model_task::task::OwnerReference;

/// Why a resource may be deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeleteReason {
    /// Its time to live after finishing has passed.
    Expired,
    /// Its controller keeps newer ones of its kind and outcome, up to its history limits.
    HistoryLimit,
    /// Every owner it names is gone (deleted, or deleted and created again under its name).
    OwnerGone,
    /// Its owners are being deleted and cascade to it (background or foreground).
    OwnerDeleted,
}

/// Why an owner reference must be removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReleaseReason {
    /// The owner is deleted with [`CascadePolicy::Orphan`]: the resource stays, unowned by it.
    Orphaned,
    /// The owner is deleted, and another owner that is not being deleted keeps the resource.
    Survives,
    /// The owner is gone already, and the resource has other owners.
    OwnerGone,
}

/// One resource to delete, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deletion<'a> {
    resource: &'a OwnedResource,
    index: usize,
    reason: DeleteReason,
}

impl<'a> Deletion<'a> {
    /// The resource (delete it with its uid as the precondition, when it has one).
    pub const fn resource(&self) -> &'a OwnedResource {
        self.resource
    }

    /// Its position in the slice given to [`collect`].
    pub const fn index(&self) -> usize {
        self.index
    }

    /// Why it may go.
    pub const fn reason(&self) -> DeleteReason {
        self.reason
    }
}

/// One owner reference to remove from a resource that stays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release<'a> {
    resource: &'a OwnedResource,
    index: usize,
    owner: &'a OwnerReference,
    reason: ReleaseReason,
}

impl<'a> Release<'a> {
    /// The resource that stays.
    pub const fn resource(&self) -> &'a OwnedResource {
        self.resource
    }

    /// Its position in the slice given to [`collect`].
    pub const fn index(&self) -> usize {
        self.index
    }

    /// The reference to remove from its `ownerReferences` (the one with this uid).
    pub const fn owner(&self) -> &'a OwnerReference {
        self.owner
    }

    /// Why it goes.
    pub const fn reason(&self) -> ReleaseReason {
        self.reason
    }
}

/// What [`collect`] decided: the deletions in cleanup order, the owner references to
/// remove first, and the next time a time to live runs out.
///
/// The caller writes every release first, then deletes in order, each with the resource's
/// uid as precondition. If a write fails (the resource changed since the view was read),
/// it stops and collects again from fresh rows: a later deletion may be an owner that
/// waits for the one that failed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collection<'a> {
    deletions: Vec<Deletion<'a>>,
    releases: Vec<Release<'a>>,
    next_expiry: Option<DateTime<Utc>>,
}

impl<'a> Collection<'a> {
    /// What to delete, in cleanup order: higher cleanup priority first, and never an owner
    /// before something it owns (an owner whose dependents have a lower priority goes right
    /// after them).
    pub fn deletions(&self) -> &[Deletion<'a>] {
        &self.deletions
    }

    /// Owner references to remove before deleting anything, by resource position and
    /// reference order.
    pub fn releases(&self) -> &[Release<'a>] {
        &self.releases
    }

    /// The earliest time after `now` at which a kept resource's time to live runs out:
    /// when to collect again if nothing else changes.
    pub const fn next_expiry(&self) -> Option<DateTime<Utc>> {
        self.next_expiry
    }

    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.deletions.is_empty() && self.releases.is_empty()
    }
}

/// What may be deleted at `now` among `resources`, under the default
/// [`RetentionPolicy`] (use [`collect_with`] for another).
///
/// A resource may be deleted when it is finished (sealed), no owner still needs it, and
/// either its own reasons hold (its time to live passed, it is past its controller's
/// history limits, every owner it names is gone) or all its owners are being deleted and
/// one of them cascades. An owner needs what it owns while it is active if its kind holds
/// (`holdWhileActive`), within its history limits, and always its newest finished resource
/// of each kind it controls (a task's last attempt, a schedule's last run). An owner with
/// foreground cascade goes only after everything it owns goes in the same collection or
/// stays through another owner; with background it goes at once; with orphan it goes
/// alone and what it owns is released. Nothing running is ever collected, and a resource
/// on or under an ownership cycle, or whose uid (its own, or the one it names as owner) two
/// tasks, flows or schedules share, is left alone ([`check`](crate::check) reports both). `docs/retention.md` has the rules and the default table.
///
/// Time and memory are linear in the resources and their owner references.
///
/// ```
/// use chrono::{TimeDelta, TimeZone, Utc};
/// use model_ids::TenantId;
/// use model_retention::{DeleteReason, Lifecycle, OwnedResource, Outcome, ResourceKind, collect};
/// use model_ids::Uid;
/// use model_task::task::{OwnerKind, OwnerReference};
///
/// let tenant = TenantId::new("acme")?;
/// let done = Utc.with_ymd_and_hms(2026, 11, 21, 2, 0, 0).unwrap();
/// let flow = OwnedResource::builder(ResourceKind::Flow, tenant.clone(), "etl", Lifecycle::sealed(done, Outcome::Succeeded))
///     .uid(Uid::from_u128(1))
///     .build()?;
/// let owner = OwnerReference::new(OwnerKind::Flow, "etl", Uid::from_u128(1))?.controlling();
/// let task = OwnedResource::builder(ResourceKind::Task, tenant, "etl.load", Lifecycle::sealed(done, Outcome::Succeeded))
///     .uid(Uid::from_u128(2))
///     .owner(owner)
///     .build()?;
/// let resources = [flow, task];
///
/// // A day later both have expired: the task goes first, then its flow.
/// let collection = collect(done + TimeDelta::days(1), &resources);
/// let order: Vec<_> = collection.deletions().iter().map(|d| (d.resource().name(), d.reason())).collect();
/// assert_eq!(order, [("etl.load", DeleteReason::Expired), ("etl", DeleteReason::Expired)]);
///
/// // A millisecond earlier, nothing goes, and the collection says when to look again.
/// let collection = collect(done + TimeDelta::days(1) - TimeDelta::milliseconds(1), &resources);
/// assert!(collection.is_empty());
/// assert_eq!(collection.next_expiry(), Some(done + TimeDelta::days(1)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn collect(now: DateTime<Utc>, resources: &[OwnedResource]) -> Collection<'_> {
    collect_with(&RetentionPolicy::DEFAULT, now, resources)
}

/// The rules that apply to one resource: its own settings over its kind's.
#[derive(Debug, Clone, Copy)]
struct Settings {
    expires_at: Option<DateTime<Utc>>,
    cascade: CascadePolicy,
    holds: bool,
    priority: u8,
    has_references: bool,
}

impl Settings {
    fn of(policy: &RetentionPolicy, resource: &OwnedResource) -> Self {
        let rule = policy.rule(resource.kind());
        let ttl = resource
            .ttl_after_finished_ms()
            .or(rule.ttl_after_finished_ms());
        Self {
            expires_at: resource.lifecycle().expires_at(ttl),
            cascade: resource.cascade().unwrap_or(rule.cascade()),
            holds: rule.hold_while_active(),
            priority: rule.cleanup_priority(),
            has_references: !resource.owner_references().is_empty(),
        }
    }
}

/// What may be deleted at `now` among `resources` under `policy` (see [`collect`]).
pub fn collect_with<'a>(
    policy: &RetentionPolicy,
    now: DateTime<Utc>,
    resources: &'a [OwnedResource],
) -> Collection<'a> {
    let forest = Forest::new(resources);
    let settings: Vec<Settings> = resources
        .iter()
        .map(|resource| Settings::of(policy, resource))
        .collect();
    let marks = Marks::new(policy, resources, &forest);
    let flag = |flags: &[bool], i: usize| flags.get(i).copied().unwrap_or(false);
    // Read once here, so the passes below touch a byte per resource, not the whole view.
    let finished: Vec<bool> = resources
        .iter()
        .map(|r| !r.lifecycle().is_draft())
        .collect();
    let sealed = |i: usize| flag(&finished, i);
    let setting = |i: usize| settings.get(i).copied();

    // Needed: an active owner holds it (within its history limits), or it is the newest
    // of its kind under an active controller.
    let needed: Vec<bool> = (0..resources.len())
        .map(|i| {
            marks.is_latest(i)
                || forest.owners_of(i).iter().any(|&owner| {
                    !sealed(owner)
                        && setting(owner).is_some_and(|s| s.holds)
                        && !(forest.controller(i) == Some(owner) && marks.is_surplus(i))
                })
        })
        .collect();

    // Doomed, owners first: its own reasons hold, or every live owner is doomed and one
    // cascades.
    let mut doomed = vec![false; resources.len()];
    let mut reasons = vec![None; resources.len()];
    for &i in forest.order() {
        let own = if sealed(i) && !flag(&needed, i) {
            own_reason(now, setting(i), &marks, &forest, i)
        } else {
            None
        };
        let owners = forest.owners_of(i);
        let cascaded = !owners.is_empty()
            && owners.iter().all(|&o| flag(&doomed, o))
            && owners
                .iter()
                .any(|&o| setting(o).is_some_and(|s| s.cascade != CascadePolicy::Orphan));
        let reason = own.or(cascaded.then_some(DeleteReason::OwnerDeleted));
        if let (Some(slot), Some(reason_slot)) = (doomed.get_mut(i), reasons.get_mut(i)) {
            *slot = reason.is_some();
            *reason_slot = reason;
        }
    }

    // Deleted, dependents first: doomed, finished, not needed, and for a foreground owner
    // everything it owns goes now or stays through another owner.
    let mut deleted = vec![false; resources.len()];
    for &i in forest.order().iter().rev() {
        if !flag(&doomed, i) || !sealed(i) || flag(&needed, i) {
            continue;
        }
        let waits = setting(i).is_some_and(|s| s.cascade == CascadePolicy::Foreground)
            && forest.dependents_of(i).iter().any(|edge| {
                let e = edge.dependent;
                !flag(&deleted, e) && (flag(&doomed, e) || forest.is_stuck(e))
            });
        if !waits && let Some(slot) = deleted.get_mut(i) {
            *slot = true;
        }
    }

    let priority = |i: usize| setting(i).map_or(0, |s| s.priority);
    let deletions = order::cleanup_order(&forest, &deleted, priority)
        .into_iter()
        .filter_map(|index| {
            Some(Deletion {
                resource: resources.get(index)?,
                index,
                reason: reasons.get(index).copied().flatten()?,
            })
        })
        .collect();
    let releases = releases(resources, &forest, &settings, &doomed, &deleted);
    let next_expiry = (0..resources.len())
        .filter(|&i| !flag(&deleted, i) && !forest.is_stuck(i))
        .filter_map(|i| setting(i)?.expires_at)
        .filter(|&at| at > now)
        .min();
    Collection {
        deletions,
        releases,
        next_expiry,
    }
}

/// The reason a finished resource that nothing needs may go on its own, if any.
fn own_reason(
    now: DateTime<Utc>,
    settings: Option<Settings>,
    marks: &Marks,
    forest: &Forest,
    i: usize,
) -> Option<DeleteReason> {
    let settings = settings?;
    if settings.expires_at.is_some_and(|at| at <= now) {
        Some(DeleteReason::Expired)
    } else if marks.is_surplus(i) {
        Some(DeleteReason::HistoryLimit)
    } else if settings.has_references && forest.owners_of(i).is_empty() {
        Some(DeleteReason::OwnerGone)
    } else {
        None
    }
}

/// The owner references to remove, by resource position and reference order: from each
/// resource that stays (and is not left alone), a reference to an owner deleted now with
/// orphan cascade, or deleted now while another owner keeps the resource, or already gone
/// while other owners remain.
fn releases<'a>(
    resources: &'a [OwnedResource],
    forest: &Forest,
    settings: &[Settings],
    doomed: &[bool],
    deleted: &[bool],
) -> Vec<Release<'a>> {
    let flag = |flags: &[bool], i: usize| flags.get(i).copied().unwrap_or(false);
    let mut releases = Vec::new();
    for (index, resource) in resources.iter().enumerate() {
        let has_references = settings.get(index).is_some_and(|s| s.has_references);
        if !has_references || flag(deleted, index) || forest.is_stuck(index) {
            continue;
        }
        let live = forest.owners_of(index);
        // Its live owners are its live references in order, so one cursor pairs them.
        let mut next_live = live.iter();
        for (position, reference) in resource.owner_references().iter().enumerate() {
            let owner = if forest.is_live(index, position) {
                next_live.next().copied()
            } else {
                None
            };
            let reason = match owner {
                Some(o) => {
                    if !flag(deleted, o) {
                        continue;
                    }
                    match settings.get(o).map(|s| s.cascade) {
                        Some(CascadePolicy::Orphan) => ReleaseReason::Orphaned,
                        _ if !flag(doomed, index) => ReleaseReason::Survives,
                        // Background: it goes later, once it can (its owner being gone).
                        _ => continue,
                    }
                }
                None if !live.is_empty() => ReleaseReason::OwnerGone,
                None => continue,
            };
            releases.push(Release {
                resource,
                index,
                owner: reference,
                reason,
            });
        }
    }
    releases
}

#[cfg(test)]
mod tests;
