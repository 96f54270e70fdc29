//! The task's identity and stage-2 fields through a store: every field reads back equal,
//! a uid names one incarnation, and a task belongs to one tenant.

use taskmodel::SeededRandom;
use taskmodel::ids::TenantId;
use taskmodel::query::TaskQuery;
use taskmodel::selector::Labels;
use taskmodel::task::spec::{MAX_PRIORITY, MAX_TTL_AFTER_FINISHED_MS, MIN_PRIORITY};
use taskmodel::task::{
    Annotations, AttemptOutcome, AttemptResult, LeaseId, ManifestMeta, OwnerKind, OwnerReference,
    Precondition, Task, TaskManifest, TaskPhase, TaskSpec,
};
use taskmodel::{ErrorKind, Uid};
use taskstore::{Store, StoreError};

use super::fixtures::*;

/// A task with every field a manifest sets: labels, annotations, a controlling owner and
/// another owner, a priority and a TTL.
fn full(name: &str, priority: i32, ttl_ms: u64, created: chrono::DateTime<chrono::Utc>) -> Task {
    let spec = TaskSpec::builder(name, kind(), 60_000)
        .priority(priority)
        .ttl_after_finished_ms(ttl_ms)
        .build()
        .unwrap();
    let owners = vec![
        OwnerReference::new(OwnerKind::Flow, "nightly", uid_of("flow"))
            .unwrap()
            .controlling(),
        OwnerReference::new(OwnerKind::Schedule, "hourly", uid_of("schedule")).unwrap(),
    ];
    let meta = ManifestMeta::new(id(name))
        .with_labels(Labels::from_pairs([("team", "infra"), ("tier", "1")]).unwrap())
        .with_annotations(
            Annotations::from_pairs([("example.com/note", "ünïcode \"quoted\"\n")]).unwrap(),
        )
        .with_owner_references(owners)
        .unwrap();
    let uid = uid_of(name);
    Task::create(TaskManifest::new(meta, spec), tenant(), uid, created).unwrap()
}

/// Every task written reads back equal, by get and by list, after each step of its life:
/// created, leased, started, finished (`finishedAt` set); the extreme priorities and TTL
/// too.
pub fn every_task_written_reads_back_equal<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let tasks = [
        full("low", MIN_PRIORITY, 0, at(1)),
        full("high", MAX_PRIORITY, MAX_TTL_AFTER_FINISHED_MS, at(2)),
        full("mid", 0, 1_000, at(3)),
    ];
    create_all(&mut store, &tasks);
    let query = TaskQuery::builder(tenant()).build().unwrap();
    assert_eq!(store.list(&query).unwrap().items, tasks);
    for task in &tasks {
        assert_eq!(&store.get(&tenant(), task.id()).unwrap().task, task);
    }
    // Claimed in priority order; each step's task is what a get reads back.
    for (lease, name) in [(1, "high"), (2, "mid"), (3, "low")] {
        let claimed = store
            .claim(&tenant(), &request("r", lease, at(10)), at(10))
            .unwrap()
            .unwrap();
        assert_eq!(claimed.task.id(), &id(name));
        let stored = store.get(&tenant(), &id(name)).unwrap();
        assert_eq!(
            (stored.task, stored.attempt),
            (claimed.task, Some(claimed.attempt))
        );
        let lease = LeaseId::new(lease);
        let started = store.start(&tenant(), &id(name), lease, at(11)).unwrap();
        assert_eq!(store.get(&tenant(), &id(name)).unwrap().task, started.task);
        let done = AttemptResult::new(AttemptOutcome::Succeeded).with_exit_code(0);
        let mut rng = SeededRandom::new(1);
        let ended = store
            .report(&tenant(), &id(name), lease, done, &mut rng, at(12))
            .unwrap();
        assert_eq!(ended.task.phase(), TaskPhase::Succeeded);
        assert_eq!(ended.task.status().finished_at(), Some(at(12)));
        let stored = store.get(&tenant(), &id(name)).unwrap();
        assert_eq!((stored.task, stored.attempt), (ended.task, ended.attempt));
    }
    let listed = store.list(&query).unwrap().items;
    for task in &listed {
        assert_eq!(&store.get(&tenant(), task.id()).unwrap().task, task);
        assert_eq!(task.metadata().owner_references().len(), 2);
    }
    assert_eq!(listed.len(), 3);
}

/// A write that names a uid reaches only that incarnation: after a delete and a new task
/// under the same name, the old uid is gone (not a conflict: re-reading cannot give the
/// caller back the task it meant); the new uid, or none, reaches the new task.
pub fn a_uid_mismatch_is_gone<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let first = task("a", at(0));
    store.create(&tenant(), &first, at(0)).unwrap();
    let old = first.metadata().uid();
    store
        .delete(&tenant(), &id("a"), Precondition::version(1).and_uid(old))
        .unwrap();
    let second = task("a", at(5));
    assert_ne!(second.metadata().uid(), old);
    store.create(&tenant(), &second, at(5)).unwrap();
    let stale = Precondition::default().and_uid(old);
    for error in [
        store.cancel(&tenant(), &id("a"), stale, at(6)).unwrap_err(),
        store.delete(&tenant(), &id("a"), stale).unwrap_err(),
    ] {
        assert!(
            matches!(error, StoreError::Gone { .. }) && !error.is_retryable(),
            "{error}"
        );
        assert_eq!(error.kind(), Some(ErrorKind::Gone));
    }
    assert_eq!(store.get(&tenant(), &id("a")).unwrap().task, second);
    let canceled = store
        .cancel(
            &tenant(),
            &id("a"),
            Precondition::version(1).and_uid(second.metadata().uid()),
            at(7),
        )
        .unwrap();
    assert_eq!(canceled.task.phase(), TaskPhase::Canceled);
}

/// A uid names one task of a tenant: a second task with it is refused and nothing is
/// stored; another tenant may hold it.
pub fn a_uid_is_taken_once_in_a_tenant<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let uid = Uid::from_u128(7);
    let make = |tenant: &TenantId, name: &str| {
        Task::create(
            TaskManifest::named(id(name), spec(name, 0)),
            tenant.clone(),
            uid,
            at(0),
        )
        .unwrap()
    };
    store
        .create(&tenant(), &make(&tenant(), "a"), at(0))
        .unwrap();
    assert!(matches!(
        store.create(&tenant(), &make(&tenant(), "b"), at(0)),
        Err(StoreError::Exists { .. })
    ));
    assert!(matches!(
        store.import(&tenant(), &[make(&tenant(), "c"), make(&tenant(), "d")]),
        Err(StoreError::Exists { .. })
    ));
    assert!(matches!(
        store.get(&tenant(), &id("b")),
        Err(StoreError::NotFound { .. })
    ));
    let other = TenantId::new("other").unwrap();
    store.create(&other, &make(&other, "b"), at(0)).unwrap();
}

/// A task is written only by a call of its own tenant.
pub fn a_task_of_another_tenant_is_refused<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let other = TenantId::new("other").unwrap();
    let foreign = new_task(&other, id("a"), spec("a", 0), at(0));
    for error in [
        store.create(&tenant(), &foreign, at(0)).unwrap_err(),
        store
            .import(&tenant(), &[task("b", at(0)), foreign.clone()])
            .unwrap_err(),
    ] {
        assert!(
            matches!(&error, StoreError::TenantMismatch { tenant: t, found, .. } if *t == tenant() && *found == other),
            "{error}"
        );
        assert_eq!(error.kind(), Some(ErrorKind::Invalid));
    }
    let query = TaskQuery::builder(tenant()).build().unwrap();
    assert!(store.list(&query).unwrap().items.is_empty());
    let theirs = TaskQuery::builder(other.clone()).build().unwrap();
    assert!(store.list(&theirs).unwrap().items.is_empty());
}
