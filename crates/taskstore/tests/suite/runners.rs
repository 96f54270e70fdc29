//! Runners through a store: their records registered, kept alive, drained and removed as
//! model-fleet decides, listed in pages, and a claim made from a runner's row.

use chrono::TimeDelta;
use taskmodel::fleet::{KindSet, LivenessTtl, Runner, RunnerState};
use taskmodel::policy::AdmissionPolicy;
use taskmodel::selector::Labels;
use taskmodel::task::{Applied, LeaseId};
use taskstore::{Store, StoreError};

use super::fixtures::*;

fn ttl() -> LivenessTtl {
    LivenessTtl::from_ms(30_000).unwrap()
}

/// Runner `name` with `labels`, running every kind, `capacity` attempts at once.
fn runner_record(name: &str, labels: &[(&str, &str)], capacity: u32) -> Runner {
    Runner::builder(runner(name), KindSet::ALL)
        .labels(Labels::from_pairs(labels.iter().copied()).unwrap())
        .max_concurrent(capacity)
        .build()
        .unwrap()
}

fn ids(runners: &[Runner]) -> Vec<&str> {
    runners.iter().map(|r| r.id().as_str()).collect()
}

/// Register, heartbeat, drain and deregister apply the model's rules; listings page in id
/// order.
pub fn runners_register_heartbeat_drain_and_deregister<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let t = &tenant();
    let registered = store
        .register_runner(t, runner_record("r1", &[("zone", "a")], 2), ttl(), at(0))
        .unwrap();
    assert_eq!(
        (registered.state(), registered.last_seen_at()),
        (RunnerState::Online, Some(at(0)))
    );
    assert_eq!(store.runner(t, &runner("r1")).unwrap(), registered);
    let twice = store
        .register_runner(t, runner_record("r1", &[], 1), ttl(), at(1_000))
        .unwrap_err();
    assert!(
        matches!(twice, StoreError::RunnerRejected { .. }),
        "{twice}"
    );

    assert_eq!(
        store.runner_heartbeat(t, &runner("r1"), at(2_000)).unwrap(),
        Applied::Changed(())
    );
    assert_eq!(
        store.runner_heartbeat(t, &runner("r1"), at(2_000)).unwrap(),
        Applied::Unchanged
    );
    assert_eq!(
        store.runner(t, &runner("r1")).unwrap().last_seen_at(),
        Some(at(2_000))
    );

    for name in ["r3", "r0", "r2"] {
        store
            .register_runner(t, runner_record(name, &[], 1), ttl(), at(0))
            .unwrap();
    }
    assert_eq!(
        ids(&store.runners(t, None, 10).unwrap()),
        ["r0", "r1", "r2", "r3"]
    );
    assert_eq!(
        ids(&store.runners(t, Some(&runner("r1")), 1).unwrap()),
        ["r2"]
    );
    let other = taskmodel::ids::TenantId::new("other").unwrap();
    assert!(store.runners(&other, None, 10).unwrap().is_empty());
    assert!(matches!(
        store.runners(t, None, 0),
        Err(StoreError::OutOfRange { .. })
    ));

    assert_eq!(
        store.drain_runner(t, &runner("r1")).unwrap(),
        Applied::Changed(())
    );
    assert_eq!(
        store.runner(t, &runner("r1")).unwrap().state(),
        RunnerState::Draining
    );
    store.deregister_runner(t, &runner("r1")).unwrap();
    let gone = store.deregister_runner(t, &runner("r1")).unwrap_err();
    assert!(matches!(gone, StoreError::RunnerNotFound { .. }), "{gone}");
    assert!(matches!(
        store.runner(t, &runner("r1")),
        Err(StoreError::RunnerNotFound { .. })
    ));
    let missing = store
        .runner_heartbeat(t, &runner("r1"), at(3_000))
        .unwrap_err();
    assert!(
        matches!(missing, StoreError::RunnerNotFound { .. }),
        "{missing}"
    );

    // A runner whose record went stale registers again.
    let later = at(2_000) + TimeDelta::seconds(31);
    store
        .register_runner(t, runner_record("r2", &[("zone", "b")], 1), ttl(), later)
        .unwrap();
    assert_eq!(
        store.runner(t, &runner("r2")).unwrap().labels().get("zone"),
        Some("b")
    );
}

/// A claim as a registered runner takes its labels and capacity from its row, and a
/// draining, stale or unknown runner claims nothing.
pub fn claim_as_reads_labels_and_capacity_from_the_runner_row<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let t = &tenant();
    for (name, selector) in [
        ("a1", "zone=a"),
        ("a2", "zone=a"),
        ("a3", "zone=a"),
        ("b1", "zone=b"),
    ] {
        let spec = spec_with(name, AdmissionPolicy::Queue, selector, &[]);
        create_all(&mut store, &[new_task(t, id(name), spec, at(0))]);
    }
    store
        .register_runner(t, runner_record("r", &[("zone", "a")], 2), ttl(), at(0))
        .unwrap();
    let claim = |store: &mut B::Store, lease: u64, ms: i64| {
        store
            .claim_as(
                t,
                &runner("r"),
                LeaseId::new(lease),
                at(ms) + TimeDelta::seconds(30),
                ttl(),
                at(ms),
            )
            .unwrap()
            .map(|claimed| claimed.task.id().as_str().to_owned())
    };
    assert_eq!(claim(&mut store, 1, 10).as_deref(), Some("a1"));
    assert_eq!(claim(&mut store, 2, 11).as_deref(), Some("a2"));
    assert_eq!(claim(&mut store, 3, 12), None, "at capacity 2");
    // Stale past its TTL: nothing, though a task is queued and a place would be free.
    store
        .register_runner(t, runner_record("s", &[("zone", "a")], 1), ttl(), at(0))
        .unwrap();
    let stale = store
        .claim_as(
            t,
            &runner("s"),
            LeaseId::new(1),
            at(40_000),
            ttl(),
            at(31_000),
        )
        .unwrap();
    assert!(stale.is_none());
    assert!(
        store
            .runner_heartbeat(t, &runner("s"), at(31_000))
            .unwrap()
            .is_changed()
    );
    assert!(store.drain_runner(t, &runner("s")).unwrap().is_changed());
    let drained = store
        .claim_as(
            t,
            &runner("s"),
            LeaseId::new(1),
            at(40_000),
            ttl(),
            at(31_001),
        )
        .unwrap();
    assert!(drained.is_none());
    let unknown = store
        .claim_as(
            t,
            &runner("x"),
            LeaseId::new(1),
            at(40_000),
            ttl(),
            at(31_001),
        )
        .unwrap_err();
    assert!(
        matches!(unknown, StoreError::RunnerNotFound { .. }),
        "{unknown}"
    );
    assert_eq!(
        store.get(t, &id("b1")).unwrap().task.phase(),
        taskmodel::task::TaskPhase::Pending,
        "a task whose selector the runner's labels do not match stays queued"
    );
}
