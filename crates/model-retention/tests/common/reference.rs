//! A plain reference of `collect`: every rule of `docs/retention.md` written as its
//! definition, each fixpoint found by iterating until nothing changes, with no index, no
//! order and no cleverness. Slow (polynomial) and obviously right on small views.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use model_retention::{
    CascadePolicy, DeleteReason, Outcome, OwnedResource, ReleaseReason, RetentionPolicy,
};

use super::OwnerReference;

/// What the reference decided about a view.
#[derive(Debug)]
pub(crate) struct Reference {
    pub(crate) stuck: Vec<bool>,
    pub(crate) needed: Vec<bool>,
    pub(crate) doomed: Vec<bool>,
    pub(crate) deleted: Vec<bool>,
    pub(crate) reasons: Vec<Option<DeleteReason>>,
    /// (resource position, reference position, reason), in that order.
    pub(crate) releases: Vec<(usize, usize, ReleaseReason)>,
    pub(crate) effective: Vec<u8>,
    pub(crate) next_expiry: Option<DateTime<Utc>>,
    /// The live owners of each resource.
    pub(crate) owners: Vec<Vec<usize>>,
}

enum Resolved {
    Live(usize),
    Gone,
    Ambiguous,
}

fn resolve(resources: &[OwnedResource], holder: &OwnedResource, r: &OwnerReference) -> Resolved {
    let same_uid: Vec<usize> = (0..resources.len())
        .filter(|&i| resources[i].kind().can_own() && resources[i].uid() == Some(r.uid()))
        .collect();
    match same_uid[..] {
        [] => Resolved::Gone,
        [o] => {
            let owner = &resources[o];
            let kind = model_retention::ResourceKind::of_owner(r.kind());
            if Some(owner.kind()) == kind
                && owner.name() == r.name()
                && owner.tenant() == holder.tenant()
            {
                Resolved::Live(o)
            } else {
                Resolved::Gone
            }
        }
        _ => Resolved::Ambiguous,
    }
}

/// Iterates `step` from all-false until it changes nothing.
fn fixpoint(n: usize, step: impl Fn(&[bool], usize) -> bool) -> Vec<bool> {
    let mut flags = vec![false; n];
    loop {
        let next: Vec<bool> = (0..n).map(|i| step(&flags, i)).collect();
        if next == flags {
            return flags;
        }
        flags = next;
    }
}

pub(crate) fn collect(
    policy: &RetentionPolicy,
    now: DateTime<Utc>,
    resources: &[OwnedResource],
) -> Reference {
    let n = resources.len();
    let rule = |i: usize| policy.rule(resources[i].kind());
    let ttl = |i: usize| {
        resources[i]
            .ttl_after_finished_ms()
            .or(rule(i).ttl_after_finished_ms())
    };
    let expires = |i: usize| resources[i].lifecycle().expires_at(ttl(i));
    let cascade = |i: usize| resources[i].cascade().unwrap_or(rule(i).cascade());
    let sealed = |i: usize| !resources[i].lifecycle().is_draft();

    // Resolution.
    let mut owners = vec![Vec::new(); n];
    let mut controller = vec![None; n];
    let mut ambiguous = vec![false; n];
    for d in 0..n {
        for r in resources[d].owner_references() {
            match resolve(resources, &resources[d], r) {
                Resolved::Live(o) => {
                    owners[d].push(o);
                    if r.is_controller() {
                        controller[d] = Some(o);
                    }
                }
                Resolved::Gone => {}
                Resolved::Ambiguous => ambiguous[d] = true,
            }
        }
    }
    let owners_ref = &owners;
    let dependents = |o: usize| (0..n).filter(move |&e| owners_ref[e].contains(&o));

    // Stuck: a uid two resources that can own share (its own or an owner's), or an owner
    // chain that reaches a cycle.
    let reach = |from: usize| {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<usize> = owners[from].clone();
        while let Some(x) = todo.pop() {
            if seen.insert(x) {
                todo.extend(owners[x].iter().copied());
            }
        }
        seen
    };
    let on_cycle: Vec<bool> = (0..n).map(|x| reach(x).contains(&x)).collect();
    let stuck: Vec<bool> = (0..n)
        .map(|d| {
            let owns = |i: usize| resources[i].kind().can_own();
            let shared = owns(d)
                && resources[d].uid().is_some_and(|uid| {
                    (0..n)
                        .filter(|&i| owns(i) && resources[i].uid() == Some(uid))
                        .count()
                        > 1
                });
            shared || ambiguous[d] || on_cycle[d] || reach(d).iter().any(|&x| on_cycle[x])
        })
        .collect();

    // History: each controller's finished resources by kind and outcome, newest first.
    let newest_first = |group: &mut Vec<usize>| {
        group.sort_by(|&a, &b| {
            let key = |i: usize| (resources[i].lifecycle().sealed_at(), resources[i].name(), i);
            key(b).cmp(&key(a))
        });
    };
    let mut surplus = vec![false; n];
    let mut latest = vec![false; n];
    for o in 0..n {
        if !resources[o].kind().can_own() {
            continue;
        }
        let limits = resources[o].history().or(rule(o).history());
        for kind in model_retention::ResourceKind::ALL {
            let controlled = |outcome: Option<Outcome>| {
                let mut group: Vec<usize> = (0..n)
                    .filter(|&d| {
                        controller[d] == Some(o)
                            && resources[d].kind() == kind
                            && sealed(d)
                            && outcome.is_none_or(|c| resources[d].lifecycle().outcome() == Some(c))
                    })
                    .collect();
                newest_first(&mut group);
                group
            };
            if !sealed(o)
                && let Some(&first) = controlled(None).first()
            {
                latest[first] = true;
            }
            if let Some(limits) = limits {
                for (outcome, keep) in [
                    (Outcome::Succeeded, limits.succeeded()),
                    (Outcome::Failed, limits.failed()),
                ] {
                    for &d in controlled(Some(outcome)).iter().skip(keep as usize) {
                        surplus[d] = true;
                    }
                }
            }
        }
    }

    let needed: Vec<bool> = (0..n)
        .map(|d| {
            latest[d]
                || owners[d].iter().any(|&o| {
                    !sealed(o)
                        && rule(o).hold_while_active()
                        && !(controller[d] == Some(o) && surplus[d])
                })
        })
        .collect();
    let own_reason = |d: usize| -> Option<DeleteReason> {
        if !sealed(d) || needed[d] {
            None
        } else if expires(d).is_some_and(|at| at <= now) {
            Some(DeleteReason::Expired)
        } else if surplus[d] {
            Some(DeleteReason::HistoryLimit)
        } else if !resources[d].owner_references().is_empty() && owners[d].is_empty() {
            Some(DeleteReason::OwnerGone)
        } else {
            None
        }
    };

    let doomed = fixpoint(n, |doomed, d| {
        !stuck[d]
            && (own_reason(d).is_some()
                || (!owners[d].is_empty()
                    && owners[d].iter().all(|&o| doomed[o])
                    && owners[d]
                        .iter()
                        .any(|&o| cascade(o) != CascadePolicy::Orphan)))
    });
    let deleted = fixpoint(n, |deleted, d| {
        !stuck[d]
            && doomed[d]
            && sealed(d)
            && !needed[d]
            && (cascade(d) != CascadePolicy::Foreground
                || dependents(d).all(|e| deleted[e] || (!doomed[e] && !stuck[e])))
    });
    let reasons = (0..n)
        .map(|d| deleted[d].then(|| own_reason(d).unwrap_or(DeleteReason::OwnerDeleted)))
        .collect();

    let mut releases = Vec::new();
    for e in 0..n {
        if deleted[e] || stuck[e] {
            continue;
        }
        for (position, r) in resources[e].owner_references().iter().enumerate() {
            let reason = match resolve(resources, &resources[e], r) {
                Resolved::Live(o) if deleted[o] => match cascade(o) {
                    CascadePolicy::Orphan => Some(ReleaseReason::Orphaned),
                    _ if !doomed[e] => Some(ReleaseReason::Survives),
                    _ => None,
                },
                Resolved::Gone if !owners[e].is_empty() => Some(ReleaseReason::OwnerGone),
                _ => None,
            };
            if let Some(reason) = reason {
                releases.push((e, position, reason));
            }
        }
    }

    // Effective priority: the lowest along every chain of deleted dependents.
    let mut effective: Vec<u8> = (0..n).map(|i| rule(i).cleanup_priority()).collect();
    loop {
        let next: Vec<u8> = (0..n)
            .map(|d| {
                dependents(d)
                    .filter(|&e| deleted[d] && deleted[e])
                    .map(|e| effective[e])
                    .fold(effective[d], u8::min)
            })
            .collect();
        if next == effective {
            break;
        }
        effective = next;
    }

    let next_expiry = (0..n)
        .filter(|&i| !deleted[i] && !stuck[i])
        .filter_map(expires)
        .filter(|&at| at > now)
        .min();
    Reference {
        stuck,
        needed,
        doomed,
        deleted,
        reasons,
        releases,
        effective,
        next_expiry,
        owners,
    }
}
