//! Applying a new desired state to a stored task: what changes, what conflicts, and what a
//! task that has ended still takes.

use taskmodel::ErrorKind;
use taskmodel::selector::Labels;
use taskmodel::task::{
    Applied, ManifestMeta, OwnerKind, OwnerReference, Precondition, TaskManifest, TaskPhase,
    TaskSpec,
};
use taskstore::{Store, StoreError};

use super::fixtures::*;

/// The manifest of task `name` with `labels` and a spec of `timeout_ms`.
fn manifest(name: &str, labels: &[(&str, &str)], timeout_ms: u64) -> TaskManifest {
    let meta = ManifestMeta::new(id(name))
        .with_labels(Labels::from_pairs(labels.iter().copied()).unwrap());
    TaskManifest::new(
        meta,
        TaskSpec::builder(name, kind(), timeout_ms).build().unwrap(),
    )
}

/// The generation goes up on a spec change only; labels alone bump the version; the same
/// manifest again writes nothing; a stale version conflicts and a stale uid is gone.
pub fn apply_bumps_the_generation_only_on_a_spec_change<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let first = manifest("a", &[], 60_000);
    let task = taskmodel::task::Task::create(first.clone(), tenant(), uid_of("a"), at(0)).unwrap();
    store.create(&tenant(), &task, at(0)).unwrap();
    let versions = |store: &mut B::Store| {
        let task = store.get(&tenant(), &id("a")).unwrap().task;
        (task.resource_version(), task.metadata().generation())
    };

    let same = store
        .apply(&tenant(), first, Precondition::version(1), at(1))
        .unwrap();
    assert_eq!(same.applied, Applied::Unchanged);
    assert_eq!(versions(&mut store), (1, 1));

    let labeled = store
        .apply(
            &tenant(),
            manifest("a", &[("team", "data")], 60_000),
            Precondition::version(1),
            at(2),
        )
        .unwrap();
    let Applied::Changed(changes) = labeled.applied else {
        panic!("labels changed: {labeled:?}");
    };
    assert!(changes.labels && !changes.spec);
    assert_eq!(versions(&mut store), (2, 1));

    let longer = store
        .apply(
            &tenant(),
            manifest("a", &[("team", "data")], 90_000),
            Precondition::version(2).and_uid(uid_of("a")),
            at(3),
        )
        .unwrap();
    assert!(matches!(longer.applied, Applied::Changed(c) if c.spec && !c.labels));
    assert_eq!(versions(&mut store), (3, 2));
    assert_eq!(
        store.get(&tenant(), &id("a")).unwrap().task.spec(),
        &TaskSpec::builder("a", kind(), 90_000).build().unwrap()
    );

    let stale = store
        .apply(
            &tenant(),
            manifest("a", &[], 60_000),
            Precondition::version(2),
            at(4),
        )
        .unwrap_err();
    assert!(
        matches!(stale, StoreError::Conflict { .. }) && stale.is_retryable(),
        "{stale}"
    );
    let gone = store
        .apply(
            &tenant(),
            manifest("a", &[], 60_000),
            Precondition::default().and_uid(uid_of("b")),
            at(4),
        )
        .unwrap_err();
    assert!(matches!(gone, StoreError::Gone { .. }), "{gone}");
    assert_eq!(versions(&mut store), (3, 2));

    let missing = store
        .apply(
            &tenant(),
            manifest("zz", &[], 60_000),
            Precondition::default(),
            at(4),
        )
        .unwrap_err();
    assert!(matches!(missing, StoreError::NotFound { .. }), "{missing}");
}

/// A task that has ended keeps its spec (the model refuses the change, nothing is written)
/// but still takes new labels; owner references applied are what `owned` finds.
pub fn apply_to_an_ended_task_changes_metadata_only<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let first = manifest("a", &[], 60_000);
    let task = taskmodel::task::Task::create(first, tenant(), uid_of("a"), at(0)).unwrap();
    store.create(&tenant(), &task, at(0)).unwrap();
    store
        .cancel(&tenant(), &id("a"), Precondition::default(), at(1))
        .unwrap();
    let refused = store
        .apply(
            &tenant(),
            manifest("a", &[], 90_000),
            Precondition::default(),
            at(2),
        )
        .unwrap_err();
    assert!(
        matches!(refused, StoreError::Rejected { .. })
            && refused.kind() != Some(ErrorKind::Conflict),
        "{refused}"
    );
    let stored = store.get(&tenant(), &id("a")).unwrap().task;
    assert_eq!(
        (stored.phase(), stored.resource_version()),
        (TaskPhase::Canceled, 2)
    );

    let owner = OwnerReference::new(OwnerKind::Flow, "nightly", uid_of("nightly")).unwrap();
    let meta = ManifestMeta::new(id("a"))
        .with_labels(Labels::from_pairs([("team", "data")]).unwrap())
        .with_owner_references(vec![owner])
        .unwrap();
    let owned = TaskManifest::new(meta, stored.spec().clone());
    let change = store
        .apply(&tenant(), owned, Precondition::version(2), at(3))
        .unwrap();
    assert!(
        matches!(change.applied, Applied::Changed(c) if c.labels && c.owner_references && !c.spec)
    );
    let found = store.owned(&tenant(), uid_of("nightly"), None, 10).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].metadata().generation(), 1);
    // Dropping the reference again: the owner no longer finds it.
    let plain = TaskManifest::new(ManifestMeta::new(id("a")), stored.spec().clone());
    store
        .apply(&tenant(), plain, Precondition::version(3), at(4))
        .unwrap();
    assert!(
        store
            .owned(&tenant(), uid_of("nightly"), None, 10)
            .unwrap()
            .is_empty()
    );
}
