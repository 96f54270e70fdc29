//! `check`: what makes an ownership graph wrong, found in time linear in the resources and
//! their references.

use std::collections::HashMap;

use model_ids::TenantId;
use model_ids::text::quote;

use super::Forest;
use crate::error::RetentionError;
use crate::kind::ResourceKind;
use crate::resource::OwnedResource;
use model_ids::Uid;

/// The most resources an [`RetentionError::OwnerCycle`] names; a longer cycle ends with `…`.
const CYCLE_SHOWN: usize = 8;

/// Checks the ownership graph of `resources` and returns its first problem: two resources
/// with one uid, or with one kind and name in a tenant
/// ([`Duplicate`](RetentionError::Duplicate)); an owner reference to a name that is not
/// there ([`MissingOwner`](RetentionError::MissingOwner)) or that now has another uid
/// ([`OwnerUidMismatch`](RetentionError::OwnerUidMismatch): the owner was deleted and
/// created again); owners that own each other round a cycle
/// ([`OwnerCycle`](RetentionError::OwnerCycle)). Problems are looked for in that order,
/// each in the order of the slice.
///
/// A store checks a write with the resource and its owners (and theirs, up the chain);
/// [`collect`](crate::collect) needs no check first: it treats a missing or recreated owner
/// as gone and leaves cycles and ambiguous identities alone.
///
/// ```
/// use chrono::DateTime;
/// use model_ids::TenantId;
/// use model_retention::{Lifecycle, OwnedResource, ResourceKind, RetentionError, check};
/// use model_ids::Uid;
/// use model_task::task::{OwnerKind, OwnerReference};
///
/// let tenant = TenantId::new("acme")?;
/// let flow = OwnedResource::builder(ResourceKind::Flow, tenant.clone(), "etl", Lifecycle::Draft)
///     .uid(Uid::from_u128(1))
///     .build()?;
/// // The task names the flow with an older uid: that flow was deleted and created again.
/// let stale = OwnerReference::new(OwnerKind::Flow, "etl", Uid::from_u128(9))?.controlling();
/// let task = OwnedResource::builder(ResourceKind::Task, tenant, "etl.load", Lifecycle::Draft)
///     .uid(Uid::from_u128(2))
///     .owner(stale)
///     .build()?;
/// let err = check(&[flow, task]).unwrap_err();
/// assert!(matches!(err, RetentionError::OwnerUidMismatch { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check(resources: &[OwnedResource]) -> Result<(), RetentionError> {
    let mut by_uid: HashMap<Uid, usize> = HashMap::with_capacity(resources.len());
    let mut by_name: HashMap<(&TenantId, ResourceKind, &str), usize> =
        HashMap::with_capacity(resources.len());
    for (index, resource) in resources.iter().enumerate() {
        if let Some(uid) = resource.uid()
            && let Some(&first) = by_uid.get(&uid)
        {
            return Err(duplicate(resources, first, resource, format!("uid {uid}")));
        }
        let name = (resource.tenant(), resource.kind(), resource.name());
        if let Some(&first) = by_name.get(&name) {
            let what = format!("named so in tenant {}", quote(resource.tenant().as_str()));
            return Err(duplicate(resources, first, resource, what));
        }
        if let Some(uid) = resource.uid() {
            by_uid.insert(uid, index);
        }
        by_name.insert(name, index);
    }
    for resource in resources {
        for reference in resource.owner_references() {
            let kind = ResourceKind::of_owner(reference.kind());
            let owner_label = match kind {
                Some(kind) => crate::resource::label(kind, reference.name()),
                None => format!("{} {}", reference.kind(), quote(reference.name())),
            };
            let found = kind
                .and_then(|kind| by_name.get(&(resource.tenant(), kind, reference.name())))
                .and_then(|&owner| resources.get(owner));
            let Some(owner) = found else {
                return Err(RetentionError::MissingOwner {
                    resource: resource.label(),
                    owner: owner_label,
                });
            };
            match owner.uid() {
                Some(actual) if actual == reference.uid() => {}
                Some(actual) => {
                    return Err(RetentionError::OwnerUidMismatch {
                        resource: resource.label(),
                        owner: owner_label,
                        expected: reference.uid(),
                        actual,
                    });
                }
                // Owners always carry a uid (a rule of the view); without one, it cannot be
                // the owner named.
                None => {
                    return Err(RetentionError::MissingOwner {
                        resource: resource.label(),
                        owner: owner_label,
                    });
                }
            }
        }
    }
    // Every reference is live now, and no identity is ambiguous: whatever is stuck is on or
    // under a cycle.
    let forest = Forest::new(resources);
    match (0..resources.len()).find(|&i| forest.is_stuck(i)) {
        Some(start) => Err(cycle(resources, &forest, start)),
        None => Ok(()),
    }
}

/// `resource` shares `what` with the resource at `first`.
fn duplicate(
    resources: &[OwnedResource],
    first: usize,
    resource: &OwnedResource,
    what: String,
) -> RetentionError {
    RetentionError::Duplicate {
        resource: resource.label(),
        other: resources
            .get(first)
            .map(OwnedResource::label)
            .unwrap_or_default(),
        what,
    }
}

/// The cycle reached from `start` by following stuck owners: every stuck resource has one
/// (a resource on a cycle has the next one, one under a cycle has the owner it is under).
fn cycle(resources: &[OwnedResource], forest: &Forest, start: usize) -> RetentionError {
    let mut seen: HashMap<usize, usize> = HashMap::new();
    let mut path = Vec::new();
    let mut at = start;
    while !seen.contains_key(&at) {
        seen.insert(at, path.len());
        path.push(at);
        match forest.owners_of(at).iter().find(|&&o| forest.is_stuck(o)) {
            Some(&owner) => at = owner,
            None => break,
        }
    }
    let from = seen.get(&at).copied().unwrap_or(0);
    // The walk went from each resource to its owner; the message goes owner first.
    let mut members: Vec<usize> = path.get(from..).unwrap_or_default().to_vec();
    members.reverse();
    // Start at the member listed first in the slice, so the message does not depend on
    // where the walk came in.
    if let Some(first) = (0..members.len()).min_by_key(|&k| members.get(k)) {
        members.rotate_left(first);
    }
    let mut labels: Vec<String> = members
        .iter()
        .take(CYCLE_SHOWN)
        .filter_map(|&i| resources.get(i).map(OwnedResource::label))
        .collect();
    if members.len() > CYCLE_SHOWN {
        labels.push("…".to_owned());
    }
    if let Some(first) = members.first().and_then(|&i| resources.get(i)) {
        labels.push(first.label());
    }
    RetentionError::OwnerCycle {
        cycle: labels.join(" -> "),
    }
}
