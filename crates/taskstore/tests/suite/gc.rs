//! Garbage collection through a store: model-retention decides, the store deletes in
//! bounded batches (a task with its attempts and log lines, a flow after its tasks, the
//! attempts past a live task's history limits, finished actions) and removes the owner
//! references of owners that are gone; a tenant larger than one page is collected in pages.

use chrono::TimeDelta;
use taskmodel::SeededRandom;
use taskmodel::flow::{FailurePolicy, FlowJob, FlowSpec, JobNames, TriggerRule};
use taskmodel::ids::ActionId;
use taskmodel::ids::{FlowId, JobName};
use taskmodel::schedule::Action;
use taskmodel::task::{
    AttemptOutcome, AttemptResult, LeaseId, ManifestMeta, OwnerKind, OwnerReference, Task,
    TaskManifest, TaskSpec,
};
use taskstore::{ActionOutcome, LogLine, LogStream, MAX_GC_BATCH, Store, StoreError};

use super::fixtures::*;

/// A spec in its own slot kept `ttl_ms` after it finishes, when given.
fn kept_spec(slot: &str, ttl_ms: Option<u64>) -> TaskSpec {
    let spec = TaskSpec::builder(slot, kind(), 60_000);
    match ttl_ms {
        Some(ms) => spec.ttl_after_finished_ms(ms),
        None => spec,
    }
    .build()
    .unwrap()
}

/// Claims the head of the queue as runner "r" under `lease` at `ms`, starts it, logs a line
/// and reports success; returns its id.
fn finish_next(store: &mut impl Store, lease: u64, ms: i64) -> String {
    let claimed = store
        .claim(&tenant(), &request("r", lease, at(ms)), at(ms))
        .unwrap()
        .expect("a task is queued");
    let task = claimed.task.id().clone();
    let lease = LeaseId::new(lease);
    store.start(&tenant(), &task, lease, at(ms + 1)).unwrap();
    let line = LogLine::new(0, LogStream::Stdout, "done", at(ms + 1)).unwrap();
    store
        .append_logs(&tenant(), &task, lease, &[line], at(ms + 1))
        .unwrap();
    let done = AttemptResult::new(AttemptOutcome::Succeeded).with_exit_code(0);
    store
        .report(
            &tenant(),
            &task,
            lease,
            done,
            &mut SeededRandom::new(1),
            at(ms + 2),
        )
        .unwrap();
    task.as_str().to_owned()
}

/// Tasks past their time to live go with their attempts and log lines, two per
/// transaction; a task within the default day and a pending one stay.
pub fn gc_deletes_expired_tasks_in_batches_with_their_attempts_and_logs<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let mut expiring: Vec<String> = (0..5).map(|n| format!("t{n}")).collect();
    for name in &expiring {
        create_all(
            &mut store,
            &[new_task(
                &tenant(),
                id(name),
                kept_spec(name, Some(1_000)),
                at(0),
            )],
        );
    }
    create_all(
        &mut store,
        &[new_task(
            &tenant(),
            id("keep"),
            kept_spec("keep", None),
            at(0),
        )],
    );
    let mut finished = Vec::new();
    for lease in 1..=6 {
        finished.push(finish_next(&mut store, lease, 10 * lease as i64));
    }
    assert_eq!(
        finished.last().map(String::as_str),
        Some("t4"),
        "keep comes first in id order"
    );
    create_all(
        &mut store,
        &[new_task(
            &tenant(),
            id("wait"),
            kept_spec("wait", Some(1)),
            at(100),
        )],
    );

    let error = store
        .collect_garbage(&tenant(), at(100_000), 0)
        .unwrap_err();
    assert!(
        matches!(error, StoreError::OutOfRange { field: "batch", .. }),
        "{error}"
    );
    let collected = store.collect_garbage(&tenant(), at(100_000), 2).unwrap();
    let mut deleted: Vec<String> = collected
        .deleted_tasks
        .iter()
        .map(|t| t.to_string())
        .collect();
    deleted.sort();
    expiring.sort();
    assert_eq!(deleted, expiring);
    assert!(
        collected.complete && collected.released.is_empty() && collected.deleted_flows.is_empty()
    );
    let keep = store.get(&tenant(), &id("keep")).unwrap().task;
    let keep_finished = keep.status().finished_at().unwrap();
    assert_eq!(
        collected.next_expiry,
        Some(keep_finished + TimeDelta::days(1))
    );
    for name in &expiring {
        assert!(matches!(
            store.get(&tenant(), &id(name)),
            Err(StoreError::NotFound { .. })
        ));
        assert!(
            store
                .attempts(&tenant(), &id(name), None, 10)
                .unwrap()
                .is_empty()
        );
        assert!(
            store
                .logs(&tenant(), &id(name), None, 10)
                .unwrap()
                .is_empty()
        );
    }
    assert_eq!(
        store.logs(&tenant(), &id("keep"), None, 10).unwrap().len(),
        1
    );
    store.get(&tenant(), &id("wait")).unwrap();

    // Nothing more to collect until the default day runs out.
    let again = store.collect_garbage(&tenant(), at(100_000), 2).unwrap();
    assert!(again.deleted_tasks.is_empty() && again.complete);
    let later = store
        .collect_garbage(&tenant(), keep_finished + TimeDelta::days(1), 2)
        .unwrap();
    assert_eq!(later.deleted_tasks, [id("keep")]);
}

/// A finished flow past its time to live goes after its job's task; a task that names a
/// gone owner and a live one loses only the gone one's reference.
pub fn gc_deletes_a_flow_after_its_tasks_and_releases_a_gone_owner<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let flow = |name: &str, job: &str, ttl_ms: u64| {
        FlowSpec::builder(name)
            .failure_policy(FailurePolicy::FailFast)
            .ttl_after_finished_ms(ttl_ms)
            .job(FlowJob::new(
                JobName::new(job).unwrap(),
                kept_spec(&format!("{name}-{job}"), Some(1_000)),
                JobNames::new(),
                TriggerRule::AllSucceeded,
            ))
            .build()
            .unwrap()
    };
    store
        .create_flow(&tenant(), &flow("etl", "only", 1_000), uid_of("etl"), at(0))
        .unwrap();
    store
        .create_flow(
            &tenant(),
            &flow("live", "wait", 1_000),
            uid_of("live"),
            at(0),
        )
        .unwrap();
    let owners = vec![
        OwnerReference::new(OwnerKind::Flow, "ghost", uid_of("ghost")).unwrap(),
        OwnerReference::new(OwnerKind::Flow, "live", uid_of("live")).unwrap(),
    ];
    let meta = ManifestMeta::new(id("x"))
        .with_owner_references(owners)
        .unwrap();
    let x = Task::create(
        TaskManifest::new(meta, kept_spec("x", None)),
        tenant(),
        uid_of("x"),
        at(0),
    )
    .unwrap();
    store.create(&tenant(), &x, at(0)).unwrap();
    assert_eq!(finish_next(&mut store, 1, 10), "etl.only");

    let collected = store.collect_garbage(&tenant(), at(100_000), 10).unwrap();
    assert_eq!(collected.deleted_tasks, [id("etl.only")]);
    assert_eq!(collected.deleted_flows, [FlowId::new("etl").unwrap()]);
    assert_eq!(collected.released, [id("x")]);
    assert!(collected.complete);
    let missing = store
        .flow(&tenant(), &FlowId::new("etl").unwrap())
        .unwrap_err();
    assert!(
        matches!(missing, StoreError::FlowNotFound { .. }),
        "{missing}"
    );
    let x = store.get(&tenant(), &id("x")).unwrap().task;
    let names: Vec<&str> = x
        .metadata()
        .owner_references()
        .iter()
        .map(|o| o.name())
        .collect();
    assert_eq!(names, ["live"]);
    assert_eq!((x.resource_version(), x.metadata().generation()), (2, 1));
    assert!(
        store
            .owned(&tenant(), uid_of("ghost"), None, 10)
            .unwrap()
            .is_empty()
    );
    store
        .flow(&tenant(), &FlowId::new("live").unwrap())
        .unwrap();

    let again = store.collect_garbage(&tenant(), at(100_000), 10).unwrap();
    assert!(
        again.released.is_empty()
            && again.deleted_tasks.is_empty()
            && again.deleted_flows.is_empty()
    );
}

/// A live task restarted past its history limits (the default task rule keeps 100 failed
/// attempts) loses its oldest attempts with their log lines; the current one and the
/// newest hundred stay, and a second collection finds nothing more.
pub fn gc_trims_a_live_tasks_attempt_history_with_its_log_lines<B: Backend>(backend: &B) {
    const ATTEMPTS: u64 = 103;
    let mut store = backend.open();
    create_all(
        &mut store,
        &[new_task(&tenant(), id("loop"), spec("loop", 1_000), at(0))],
    );
    let mut ms = 0;
    for lease in 1..=ATTEMPTS {
        let claimed = store
            .claim(&tenant(), &request("r", lease, at(ms)), at(ms))
            .unwrap()
            .expect("the restart is due");
        assert_eq!(u64::from(claimed.attempt.attempt()), lease);
        let lease = LeaseId::new(lease);
        store
            .start(&tenant(), &id("loop"), lease, at(ms + 1))
            .unwrap();
        let line = LogLine::new(0, LogStream::Stderr, "boom", at(ms + 1)).unwrap();
        store
            .append_logs(&tenant(), &id("loop"), lease, &[line], at(ms + 1))
            .unwrap();
        let failed = AttemptResult::new(AttemptOutcome::Failed).with_exit_code(1);
        store
            .report(
                &tenant(),
                &id("loop"),
                lease,
                failed,
                &mut SeededRandom::new(1),
                at(ms + 2),
            )
            .unwrap();
        ms += 2_000;
    }
    let before = store.get(&tenant(), &id("loop")).unwrap().task;
    assert!(
        !before.phase().is_final(),
        "the task waits for its next restart"
    );

    let collected = store.collect_garbage(&tenant(), at(ms), 2).unwrap();
    assert_eq!(collected.deleted_attempts, 3);
    assert!(collected.complete && collected.deleted_tasks.is_empty());
    let numbers: Vec<u32> = store
        .attempts(&tenant(), &id("loop"), None, 1_000)
        .unwrap()
        .iter()
        .map(|run| run.attempt())
        .collect();
    assert_eq!(numbers, (4..=103).collect::<Vec<u32>>());
    let logs = store.logs(&tenant(), &id("loop"), None, 1_000).unwrap();
    assert_eq!(logs.len(), 100);
    assert_eq!(logs.first().map(|line| line.key.attempt()), Some(4));
    assert_eq!(store.get(&tenant(), &id("loop")).unwrap().task, before);

    let again = store.collect_garbage(&tenant(), at(ms), 2).unwrap();
    assert_eq!((again.deleted_attempts, again.complete), (0, true));
}

/// Finished schedule actions are kept a day after they end (the default action rule), then
/// go, oldest end first; pending and running ones stay whatever their age.
pub fn gc_deletes_finished_actions_a_day_after_they_end<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let tick =
        |n: u128| Action::scheduled(ActionId::from_u128(n), "nightly", at(0), None, at(0)).unwrap();
    for n in 1..=4 {
        store.add_action(&tenant(), &tick(n)).unwrap();
    }
    assert_eq!(store.fire_due(&tenant(), at(10), 3).unwrap().len(), 3);
    let end = |store: &mut B::Store, n: u128, outcome: ActionOutcome, ms: i64| {
        store
            .finish_action(
                &tenant(),
                ActionId::from_u128(n),
                outcome,
                ActionId::from_u128(n + 100),
                at(ms),
            )
            .unwrap();
    };
    end(
        &mut store,
        1,
        ActionOutcome::Completed(serde_json::json!({})),
        100,
    );
    end(&mut store, 2, ActionOutcome::Failed("refused".into()), 200);
    let day = TimeDelta::days(1);

    let early = store
        .collect_garbage(&tenant(), at(100) + day - TimeDelta::milliseconds(1), 10)
        .unwrap();
    assert!(early.deleted_actions.is_empty() && early.complete);
    assert_eq!(early.next_expiry, Some(at(100) + day));

    let first = store.collect_garbage(&tenant(), at(100) + day, 10).unwrap();
    assert_eq!(first.deleted_actions, [ActionId::from_u128(1)]);
    assert_eq!(first.next_expiry, Some(at(200) + day));
    let gone = store.action(&tenant(), ActionId::from_u128(1)).unwrap_err();
    assert!(matches!(gone, StoreError::ActionNotFound { .. }), "{gone}");

    let later = store
        .collect_garbage(&tenant(), at(200) + day * 30, 1)
        .unwrap();
    assert_eq!(later.deleted_actions, [ActionId::from_u128(2)]);
    for kept in [3, 4] {
        store.action(&tenant(), ActionId::from_u128(kept)).unwrap();
    }
}

/// A tenant with more standalone finished tasks than one page of the collection's view
/// is collected in pages: every expired one goes in one call, the rest stay.
pub fn gc_collects_standalone_tasks_in_pages<B: Backend>(backend: &B) {
    const TASKS: usize = 1_050;
    let mut store = backend.open();
    let tasks: Vec<Task> = (0..TASKS)
        .map(|n| {
            let name = format!("t{n:04}");
            let ttl = if n % 10 == 0 { None } else { Some(1_000) };
            new_task(&tenant(), id(&name), kept_spec(&name, ttl), at(0))
        })
        .collect();
    store.import(&tenant(), &tasks).unwrap();
    for lease in 1..=TASKS as u64 {
        finish_next_quietly(&mut store, lease, 10);
    }
    let collected = store
        .collect_garbage(&tenant(), at(100_000), MAX_GC_BATCH)
        .unwrap();
    assert!(collected.complete);
    assert_eq!(collected.deleted_tasks.len(), TASKS - TASKS / 10);
    assert!(
        collected
            .deleted_tasks
            .iter()
            .all(|t| !t.as_str().ends_with('0'))
    );
    let kept = store.get(&tenant(), &id("t1040")).unwrap().task;
    assert_eq!(
        collected.next_expiry,
        Some(kept.status().finished_at().unwrap() + TimeDelta::days(1))
    );
    assert!(matches!(
        store.get(&tenant(), &id("t1049")),
        Err(StoreError::NotFound { .. })
    ));
}

/// Claims the head of the queue as runner "r" under `lease` at `ms`, starts it and reports
/// success.
fn finish_next_quietly(store: &mut impl Store, lease: u64, ms: i64) {
    let claimed = store
        .claim(&tenant(), &request("r", lease, at(ms)), at(ms))
        .unwrap()
        .expect("a task is queued");
    succeed(
        store,
        claimed.task.id().as_str(),
        lease,
        at(ms + 1),
        at(ms + 2),
    );
}
