//! Shared by the integration tests: the reference collection, random views of owners
//! (forests, with now and then a cycle, a stale or missing owner, a shared uid), and small
//! helpers to build resources.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test helpers fail loudly, as the tests do"
)]

pub(crate) mod reference;

use chrono::{DateTime, TimeDelta, Utc};
use model_ids::TenantId;
pub(crate) use model_ids::Uid;
use model_retention::{
    CascadePolicy, HistoryLimits, Lifecycle, Outcome, OwnedResource, ResourceKind, RetentionPolicy,
    RetentionRule,
};
pub(crate) use model_task::task::{OwnerKind, OwnerReference};
use proptest::prelude::*;

/// The `now` of every random view.
pub(crate) fn now() -> DateTime<Utc> {
    "2026-11-22T00:00:00Z".parse().unwrap()
}

/// A tenant.
pub(crate) fn tenant(name: &str) -> TenantId {
    TenantId::new(name).unwrap()
}

/// The owner kind of a kind that can own.
pub(crate) fn owner_kind(kind: ResourceKind) -> OwnerKind {
    match kind {
        ResourceKind::Flow => OwnerKind::Flow,
        ResourceKind::Schedule => OwnerKind::Schedule,
        _ => OwnerKind::Task,
    }
}

/// A reference to the owner of `kind` named `name` with `uid`, the controller or not.
pub(crate) fn reference(kind: OwnerKind, name: &str, uid: Uid, controller: bool) -> OwnerReference {
    let owner = OwnerReference::new(kind, name, uid).unwrap();
    if controller {
        owner.controlling()
    } else {
        owner
    }
}

/// A reference to `owner`, as its dependents write it.
pub(crate) fn reference_to(owner: &OwnedResource, controller: bool) -> OwnerReference {
    reference(
        owner_kind(owner.kind()),
        owner.name(),
        owner.uid().unwrap(),
        controller,
    )
}

const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

/// Finish times around `now`, with the exact boundaries of the time-to-live choices.
const OFFSETS_MS: [i64; 10] = [
    -3 * DAY,
    -2 * DAY,
    -DAY - 1,
    -DAY,
    -DAY + 1,
    -HOUR,
    -1,
    0,
    HOUR,
    -2 * DAY,
];

/// Times to live, in milliseconds.
const TTLS_MS: [u64; 5] = [0, 1, HOUR as u64, DAY as u64, 2 * DAY as u64];

/// How one random resource is made.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    kind: ResourceKind,
    other_tenant: bool,
    /// 0: its own uid; 1: the uid of the resource before it; 2: none (attempts and actions).
    uid: u8,
    /// (target, controller, how: 0..=5 exact, 6 stale uid, 7 wrong name, 8 any target).
    owners: Vec<(usize, bool, u8)>,
    sealed: Option<(usize, bool)>,
    ttl: Option<usize>,
    cascade: Option<CascadePolicy>,
    history: Option<(u32, u32)>,
}

fn kind() -> impl Strategy<Value = ResourceKind> {
    prop_oneof![
        3 => Just(ResourceKind::Attempt),
        1 => Just(ResourceKind::Action),
        4 => Just(ResourceKind::Task),
        2 => Just(ResourceKind::Flow),
        2 => Just(ResourceKind::Schedule),
    ]
}

fn cascade() -> impl Strategy<Value = CascadePolicy> {
    prop_oneof![
        Just(CascadePolicy::Background),
        Just(CascadePolicy::Foreground),
        Just(CascadePolicy::Orphan),
    ]
}

fn plan() -> impl Strategy<Value = Plan> {
    (
        kind(),
        prop::bool::weighted(0.05),
        prop_oneof![20 => Just(0_u8), 1 => Just(1), 3 => Just(2)],
        prop::collection::vec((any::<usize>(), any::<bool>(), 0_u8..9), 0..3),
        prop::option::weighted(0.7, (0..OFFSETS_MS.len(), any::<bool>())),
        prop::option::weighted(0.4, 0..TTLS_MS.len()),
        prop::option::weighted(0.2, cascade()),
        prop::option::weighted(0.2, (0_u32..3, 0_u32..3)),
    )
        .prop_map(
            |(kind, other_tenant, uid, owners, sealed, ttl, cascade, history)| Plan {
                kind,
                other_tenant,
                uid,
                owners,
                sealed,
                ttl,
                cascade,
                history,
            },
        )
}

/// A rule with random fields.
fn rule() -> impl Strategy<Value = RetentionRule> {
    (
        0_u8..=100,
        prop::option::of(0..TTLS_MS.len()),
        cascade(),
        prop::option::of((0_u32..3, 0_u32..3)),
        any::<bool>(),
    )
        .prop_map(|(priority, ttl, cascade, history, hold)| {
            let mut builder = RetentionRule::builder(priority)
                .cascade(cascade)
                .hold_while_active(hold);
            if let Some(ttl) = ttl {
                builder = builder.ttl_after_finished_ms(TTLS_MS[ttl]);
            }
            if let Some((succeeded, failed)) = history {
                builder = builder.history(HistoryLimits::new(succeeded, failed).unwrap());
            }
            builder.build().unwrap()
        })
}

/// The default policy, or one with some kinds' rules replaced.
pub(crate) fn policy() -> impl Strategy<Value = RetentionPolicy> {
    prop::collection::vec((0..ResourceKind::ALL.len(), rule()), 0..4).prop_map(|overrides| {
        overrides
            .into_iter()
            .fold(RetentionPolicy::DEFAULT, |policy, (kind, rule)| {
                policy.with_rule(ResourceKind::ALL[kind], rule)
            })
    })
}

/// Builds the resources of `plans`: each names the ones before it as owners (a forest),
/// and now and then a later one (a cycle), a stale uid or a wrong name (a gone owner).
pub(crate) fn build(plans: &[Plan]) -> Vec<OwnedResource> {
    let uid_of = |i: usize| -> Option<Uid> {
        let plan = &plans[i];
        match plan.uid {
            1 if i > 0 => Some(Uid::from_u128(i as u128)),
            2 if !plan.kind.can_own() => None,
            _ => Some(Uid::from_u128(i as u128 + 1)),
        }
    };
    let mut resources = Vec::with_capacity(plans.len());
    for (i, plan) in plans.iter().enumerate() {
        let lifecycle = match plan.sealed {
            None => Lifecycle::Draft,
            Some((offset, succeeded)) => Lifecycle::sealed(
                now() + TimeDelta::milliseconds(OFFSETS_MS[offset]),
                if succeeded {
                    Outcome::Succeeded
                } else {
                    Outcome::Failed
                },
            ),
        };
        let tenant = tenant(if plan.other_tenant { "other" } else { "acme" });
        let mut builder = OwnedResource::builder(plan.kind, tenant, &format!("r{i}"), lifecycle);
        let own_uid = uid_of(i);
        if let Some(uid) = own_uid {
            builder = builder.uid(uid);
        }
        let mut used = Vec::new();
        let mut has_controller = false;
        for &(target, controller, how) in &plan.owners {
            let target = if how == 8 || i == 0 {
                target % plans.len()
            } else {
                target % i
            };
            let owner = &plans[target];
            let Some(owner_uid) = uid_of(target) else {
                continue;
            };
            if target == i || !owner.kind.can_own() {
                continue;
            }
            let (uid, name) = match how {
                6 => (Uid::from_u128(10_000 + i as u128), format!("r{target}")),
                7 => (owner_uid, format!("x{target}")),
                _ => (owner_uid, format!("r{target}")),
            };
            if used.contains(&uid) || Some(uid) == own_uid {
                continue;
            }
            if plan.kind == owner.kind && name == format!("r{i}") {
                continue;
            }
            used.push(uid);
            let controller = controller && !has_controller;
            has_controller |= controller;
            builder = builder.owner(reference(owner_kind(owner.kind), &name, uid, controller));
        }
        if let Some(ttl) = plan.ttl {
            builder = builder.ttl_after_finished_ms(TTLS_MS[ttl]);
        }
        if let Some(cascade) = plan.cascade {
            builder = builder.cascade(cascade);
        }
        if let Some((succeeded, failed)) = plan.history {
            builder = builder.history(HistoryLimits::new(succeeded, failed).unwrap());
        }
        resources.push(builder.build().unwrap());
    }
    resources
}

/// Random views of up to `max` resources.
pub(crate) fn view(max: usize) -> impl Strategy<Value = Vec<OwnedResource>> {
    prop::collection::vec(plan(), 0..max).prop_map(|plans| build(&plans))
}
