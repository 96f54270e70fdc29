//! Unit tests of `Release::task_manifest`: the released owner leaves, everything else
//! stays, a task released already writes nothing, and a stale view is refused.

use chrono::{DateTime, Utc};
use model_ids::{TaskId, TenantId, Uid};
use model_task::task::{
    Annotations, ManifestMeta, OwnerKind, OwnerReference, Precondition, Task, TaskManifest,
};
use model_task::{SubprocessMode, TaskEnv, TaskKind, TaskSpec};

use crate::collect::collect;
use crate::error::RetentionError;
use crate::kind::ResourceKind;
use crate::lifecycle::Lifecycle;
use crate::resource::OwnedResource;

fn now() -> DateTime<Utc> {
    "2026-11-22T00:00:00Z".parse().unwrap()
}

fn acme() -> TenantId {
    TenantId::new("acme").unwrap()
}

fn flow_ref(name: &str, uid: u128) -> OwnerReference {
    OwnerReference::new(OwnerKind::Flow, name, Uid::from_u128(uid)).unwrap()
}

/// Task `name` (uid `uid`) with an annotation and the owners given, the first its controller.
fn task(name: &str, uid: u128, owners: Vec<OwnerReference>) -> Task {
    let kind = TaskKind::subprocess(
        SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
        TaskEnv::empty(),
        None,
    )
    .unwrap();
    let meta = ManifestMeta::new(TaskId::new(name).unwrap())
        .with_annotations(Annotations::from_pairs([("team", "data")]).unwrap())
        .with_owner_references(owners)
        .unwrap();
    let spec = TaskSpec::builder("s", kind, 1_000).build().unwrap();
    Task::create(
        TaskManifest::new(meta, spec),
        acme(),
        Uid::from_u128(uid),
        now(),
    )
    .unwrap()
}

/// A live flow `name` with `uid`.
fn live_flow(name: &str, uid: u128) -> OwnedResource {
    OwnedResource::builder(ResourceKind::Flow, acme(), name, Lifecycle::Draft)
        .uid(Uid::from_u128(uid))
        .build()
        .unwrap()
}

#[test]
fn the_released_owner_leaves_and_everything_else_stays() {
    let mut owned = task(
        "job",
        10,
        vec![flow_ref("gone", 1).controlling(), flow_ref("kept", 2)],
    );
    let views = [
        OwnedResource::from_task(&owned).unwrap(),
        live_flow("kept", 2),
    ];
    let collection = collect(now(), &views);
    let [release] = collection.releases() else {
        panic!("one release: {collection:?}");
    };
    assert_eq!(release.owner().uid(), Uid::from_u128(1));
    let manifest = release.task_manifest(&owned).unwrap().unwrap();
    let names: Vec<&str> = manifest
        .metadata()
        .owner_references()
        .iter()
        .map(|o| o.name())
        .collect();
    assert_eq!(names, ["kept"]);
    assert_eq!(
        manifest.metadata().annotations(),
        owned.metadata().annotations()
    );
    assert_eq!(manifest.spec(), owned.spec());
    // Applied, only the version moves: the spec and its generation stay.
    let changes = owned
        .apply(
            manifest,
            Precondition::version(1).and_uid(Uid::from_u128(10)),
            now(),
        )
        .unwrap();
    assert!(changes.owner_references && !changes.spec && !changes.annotations);
    assert_eq!(
        (owned.resource_version(), owned.metadata().generation()),
        (2, 1)
    );

    // Released already: nothing to write.
    assert_eq!(release.task_manifest(&owned).unwrap(), None);
}

#[test]
fn a_task_the_release_was_not_decided_for_is_refused() {
    let owned = task("job", 10, vec![flow_ref("gone", 1), flow_ref("kept", 2)]);
    let views = [
        OwnedResource::from_task(&owned).unwrap(),
        live_flow("kept", 2),
    ];
    let collection = collect(now(), &views);
    let release = collection.releases().first().unwrap();
    let check = |other: &Task| {
        assert!(
            matches!(release.task_manifest(other), Err(RetentionError::Invalid { ref path, .. }) if path == "task"),
            "{}",
            other.id()
        );
    };
    // The same name under another uid (created again), and another name.
    check(&task("job", 11, vec![flow_ref("gone", 1)]));
    check(&task("other", 10, vec![flow_ref("gone", 1)]));
}
