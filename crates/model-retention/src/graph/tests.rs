//! Unit tests of `graph`: how references resolve (live, gone, ambiguous), what is left
//! alone, the owners-first order, and every error of `check`.

use chrono::{DateTime, Utc};
use model_ids::TenantId;

use super::*;
use crate::error::RetentionError;
use crate::kind::ResourceKind;
use crate::lifecycle::Lifecycle;
use model_task::task::{OwnerKind, OwnerReference};

fn tenant(name: &str) -> TenantId {
    TenantId::new(name).unwrap()
}

/// A draft resource of `kind` named `name` with uid `uid`, in `tenant`, owned by `owners`
/// (each a kind, a name, a uid and whether it is the controller).
fn resource(
    kind: ResourceKind,
    tenant_name: &str,
    name: &str,
    uid: u128,
    owners: &[(OwnerKind, &str, u128, bool)],
) -> OwnedResource {
    owners
        .iter()
        .fold(
            OwnedResource::builder(kind, tenant(tenant_name), name, Lifecycle::Draft)
                .uid(Uid::from_u128(uid)),
            |builder, &(kind, name, uid, controller)| {
                let owner = OwnerReference::new(kind, name, Uid::from_u128(uid)).unwrap();
                builder.owner(if controller {
                    owner.controlling()
                } else {
                    owner
                })
            },
        )
        .build()
        .unwrap()
}

fn task(name: &str, uid: u128, owners: &[(OwnerKind, &str, u128, bool)]) -> OwnedResource {
    resource(ResourceKind::Task, "acme", name, uid, owners)
}

fn flow(name: &str, uid: u128) -> OwnedResource {
    resource(ResourceKind::Flow, "acme", name, uid, &[])
}

#[test]
fn a_reference_is_live_only_by_uid_kind_name_and_tenant() {
    use OwnerKind::{Flow, Schedule};
    let cases: [(OwnedResource, bool); 5] = [
        (task("t", 10, &[(Flow, "etl", 1, true)]), true),
        // The uid is not there: the owner is gone.
        (task("t", 10, &[(Flow, "etl", 9, true)]), false),
        // The uid is another name's, or another kind's: gone too.
        (task("t", 10, &[(Flow, "other", 1, true)]), false),
        (task("t", 10, &[(Schedule, "etl", 1, true)]), false),
        // An owner in another tenant is not an owner.
        (
            resource(
                ResourceKind::Task,
                "other",
                "t",
                10,
                &[(Flow, "etl", 1, true)],
            ),
            false,
        ),
    ];
    for (dependent, live) in cases {
        let resources = [flow("etl", 1), dependent];
        let forest = Forest::new(&resources);
        assert_eq!(forest.owners_of(1) == [0], live, "{:?}", resources[1]);
        assert_eq!(forest.controller(1) == Some(0), live);
        assert_eq!(forest.dependents_of(0).len(), usize::from(live));
        assert!(!forest.is_stuck(1));
    }
}

#[test]
fn an_ambiguous_uid_leaves_its_holders_and_their_dependents_alone() {
    let resources = [
        flow("a", 1),
        flow("b", 1),
        task("t", 10, &[(OwnerKind::Flow, "a", 1, true)]),
        task("u", 11, &[]),
    ];
    let forest = Forest::new(&resources);
    let stuck: Vec<bool> = (0..resources.len()).map(|i| forest.is_stuck(i)).collect();
    assert_eq!(stuck, [true, true, true, false]);
    assert_eq!(forest.order(), [3]);
}

#[test]
fn a_cycle_and_what_it_owns_are_left_out_of_the_order() {
    use OwnerKind::Task;
    let resources = [
        task("a", 1, &[(Task, "b", 2, true)]),
        task("b", 2, &[(Task, "a", 1, true)]),
        task("c", 3, &[(Task, "b", 2, true)]),
        task("d", 4, &[]),
        task("e", 5, &[(Task, "d", 4, true)]),
    ];
    let forest = Forest::new(&resources);
    let stuck: Vec<bool> = (0..resources.len()).map(|i| forest.is_stuck(i)).collect();
    assert_eq!(stuck, [true, true, true, false, false]);
    assert_eq!(forest.order(), [3, 4]);
}

#[test]
fn the_order_puts_owners_first() {
    use OwnerKind::{Flow, Task};
    // Listed dependents first, so the order must move them.
    let resources = [
        resource(
            ResourceKind::Attempt,
            "acme",
            "t/1",
            20,
            &[(Task, "t", 10, true)],
        ),
        task("t", 10, &[(Flow, "etl", 1, true)]),
        flow("etl", 1),
    ];
    let forest = Forest::new(&resources);
    assert_eq!(forest.order(), [2, 1, 0]);
}

#[test]
fn check_finds_each_problem() {
    use OwnerKind::{Flow, Task};
    let cases: [(Vec<OwnedResource>, &str); 5] = [
        (
            vec![flow("etl", 1), flow("other", 1)],
            "flow \"other\" and flow \"etl\" are both uid 00000000-0000-0000-0000-000000000001",
        ),
        (
            vec![flow("etl", 1), flow("etl", 2)],
            "flow \"etl\" and flow \"etl\" are both named so in tenant \"acme\"",
        ),
        (
            vec![task("t", 10, &[(Flow, "etl", 1, true)])],
            "task \"t\": owner flow \"etl\" not found",
        ),
        (
            vec![flow("etl", 2), task("t", 10, &[(Flow, "etl", 1, true)])],
            "task \"t\": owner flow \"etl\" has uid 00000000-0000-0000-0000-000000000002, the reference names uid 00000000-0000-0000-0000-000000000001",
        ),
        (
            vec![
                task("x", 9, &[(Task, "a", 1, true)]),
                task("a", 1, &[(Task, "c", 3, true)]),
                task("b", 2, &[(Task, "a", 1, true)]),
                task("c", 3, &[(Task, "b", 2, true)]),
            ],
            "owner references form a cycle: task \"a\" -> task \"b\" -> task \"c\" -> task \"a\"",
        ),
    ];
    for (resources, want) in cases {
        let err = check(&resources).unwrap_err();
        assert_eq!(err.to_string(), want);
    }
    let fine = [
        flow("etl", 1),
        task("t", 10, &[(Flow, "etl", 1, true)]),
        resource(ResourceKind::Flow, "other", "etl", 2, &[]),
    ];
    assert_eq!(check(&fine), Ok(()));
}

#[test]
fn check_shows_at_most_eight_resources_of_a_long_cycle() {
    let names: Vec<String> = (0..20).map(|i| format!("t{i:02}")).collect();
    let resources: Vec<OwnedResource> = (0..20)
        .map(|i| {
            let owner = (i + 1) % 20;
            task(
                &names[i],
                i as u128 + 1,
                &[(OwnerKind::Task, &names[owner], owner as u128 + 1, true)],
            )
        })
        .collect();
    let RetentionError::OwnerCycle { cycle } = check(&resources).unwrap_err() else {
        panic!("not a cycle");
    };
    assert_eq!(cycle.matches(" -> ").count(), 9, "{cycle}");
    assert!(cycle.contains("…"), "{cycle}");
}

#[test]
fn a_sealed_owner_resolves_like_a_draft() {
    let at: DateTime<Utc> = "2026-11-22T00:00:00Z".parse().unwrap();
    let sealed = OwnedResource::builder(
        ResourceKind::Flow,
        tenant("acme"),
        "etl",
        Lifecycle::sealed(at, crate::Outcome::Failed),
    )
    .uid(Uid::from_u128(1))
    .build()
    .unwrap();
    let resources = [sealed, task("t", 10, &[(OwnerKind::Flow, "etl", 1, false)])];
    let forest = Forest::new(&resources);
    assert_eq!(forest.owners_of(1), [0]);
    assert_eq!(forest.controller(1), None);
}
