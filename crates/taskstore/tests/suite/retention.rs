//! What garbage collection reads through a store: the tasks of an owner, and the finished
//! tasks whose time to live ran out.

use taskmodel::ids::TenantId;
use taskmodel::task::{
    ManifestMeta, OwnerKind, OwnerReference, Precondition, Task, TaskManifest, TaskSpec,
};
use taskmodel::{Uid, ids::TaskId};
use taskstore::{Store, StoreError};

use super::fixtures::*;

/// A new task of `tenant` created at t0, owned by the named owners (uids drawn from their
/// names), kept `ttl_ms` after it finishes when given.
fn owned_task(
    tenant: &TenantId,
    name: &str,
    owners: &[(OwnerKind, &str)],
    ttl_ms: Option<u64>,
) -> Task {
    let mut spec = TaskSpec::builder(name, kind(), 60_000);
    if let Some(ttl_ms) = ttl_ms {
        spec = spec.ttl_after_finished_ms(ttl_ms);
    }
    let owners = owners
        .iter()
        .map(|(kind, owner)| OwnerReference::new(*kind, *owner, uid_of(owner)).unwrap())
        .collect();
    let meta = ManifestMeta::new(id(name))
        .with_owner_references(owners)
        .unwrap();
    let manifest = TaskManifest::new(meta, spec.build().unwrap());
    Task::create(
        manifest,
        tenant.clone(),
        uid_of(&format!("{tenant}/{name}")),
        at(0),
    )
    .unwrap()
}

fn names(tasks: &[Task]) -> Vec<&str> {
    tasks.iter().map(|task| task.id().as_str()).collect()
}

/// An owner's tasks come in id order, a page at a time, of its tenant only; a deleted task
/// is no longer owned.
pub fn owned_lists_an_owners_tasks_in_pages<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let flow = (OwnerKind::Flow, "nightly");
    let schedule = (OwnerKind::Schedule, "hourly");
    let other = TenantId::new("other").unwrap();
    create_all(
        &mut store,
        &[
            owned_task(&tenant(), "c", &[flow], None),
            owned_task(&tenant(), "a", &[flow, schedule], None),
            owned_task(&tenant(), "b", &[flow], None),
            owned_task(&tenant(), "d", &[schedule], None),
            owned_task(&tenant(), "e", &[], None),
        ],
    );
    let foreign = owned_task(&other, "f", &[flow], None);
    store.create(&other, &foreign, at(0)).unwrap();
    let nightly = uid_of("nightly");
    let page = store.owned(&tenant(), nightly, None, 2).unwrap();
    assert_eq!(names(&page), ["a", "b"]);
    assert_eq!(page[0], store.get(&tenant(), &id("a")).unwrap().task);
    let next = store.owned(&tenant(), nightly, Some(&id("b")), 2).unwrap();
    assert_eq!(names(&next), ["c"]);
    assert!(
        store
            .owned(&tenant(), nightly, Some(&id("c")), 2)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        names(&store.owned(&tenant(), uid_of("hourly"), None, 10).unwrap()),
        ["a", "d"]
    );
    assert_eq!(
        names(&store.owned(&other, nightly, None, 10).unwrap()),
        ["f"]
    );
    assert!(
        store
            .owned(&tenant(), Uid::from_u128(1), None, 10)
            .unwrap()
            .is_empty()
    );
    store
        .delete(&tenant(), &id("a"), Precondition::default())
        .unwrap();
    assert_eq!(
        names(&store.owned(&tenant(), nightly, None, 10).unwrap()),
        ["b", "c"]
    );
    for limit in [0, taskstore::MAX_READ_PAGE + 1] {
        assert!(matches!(
            store.owned(&tenant(), nightly, None, limit),
            Err(StoreError::OutOfRange { field: "limit", .. })
        ));
    }
}

/// A finished task with a time to live is listed once `finishedAt` plus it has passed, at
/// that exact moment and not a nanosecond before, soonest first, of every tenant; an
/// unfinished task or one without a TTL never is.
pub fn ttl_expired_lists_finished_tasks_past_their_ttl<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let other = TenantId::new("other").unwrap();
    let keep = |tenant: &TenantId, name: &str, ttl| owned_task(tenant, name, &[], ttl);
    create_all(
        &mut store,
        &[
            keep(&tenant(), "x", Some(1_000)),
            keep(&tenant(), "y", Some(0)),
            keep(&tenant(), "z", None),
            keep(&tenant(), "w", Some(0)),
        ],
    );
    store
        .create(&other, &keep(&other, "v", Some(500)), at(0))
        .unwrap();
    for (tenant, name) in [
        (tenant(), "x"),
        (tenant(), "y"),
        (tenant(), "z"),
        (other.clone(), "v"),
    ] {
        store
            .cancel(&tenant, &id(name), Precondition::default(), at(12))
            .unwrap();
    }
    let expired = |store: &mut B::Store, ms| -> Vec<String> {
        let tasks = store.ttl_expired(at(ms), 10).unwrap();
        tasks.iter().map(|task| task.id().to_string()).collect()
    };
    assert!(store.ttl_expired(at(11), 10).unwrap().is_empty());
    assert_eq!(expired(&mut store, 12), ["y"]);
    assert_eq!(expired(&mut store, 511), ["y"]);
    assert_eq!(expired(&mut store, 512), ["y", "v"]);
    assert_eq!(expired(&mut store, 1_011), ["y", "v"]);
    assert_eq!(expired(&mut store, 1_012), ["y", "v", "x"]);
    let page = store.ttl_expired(at(1_012), 2).unwrap();
    assert_eq!(names(&page), ["y", "v"]);
    assert_eq!(page[1].metadata().tenant(), &other);
    // The collector deletes what it read, by uid: a task made under the name since is not
    // reached.
    let y = &page[0];
    let guard = Precondition::version(y.resource_version()).and_uid(y.metadata().uid());
    store
        .delete(&tenant(), &TaskId::new("y").unwrap(), guard)
        .unwrap();
    assert_eq!(expired(&mut store, 1_012), ["v", "x"]);
    assert!(matches!(
        store.ttl_expired(at(0), 0),
        Err(StoreError::OutOfRange { field: "limit", .. })
    ));
}
