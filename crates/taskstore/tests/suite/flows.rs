//! Flows through a store: jobs become tasks in dependency order, a failure skips what
//! depends on it, and concurrent job ends each advance the flow once.

use taskmodel::SeededRandom;
use taskmodel::flow::{FailurePolicy, FlowJob, FlowSpec, FlowStatus, JobState, TriggerRule};
use taskmodel::ids::{FlowId, JobName};
use taskmodel::task::{AttemptOutcome, AttemptResult, LeaseId, OwnerKind, Precondition, TaskPhase};
use taskstore::{Store, StoreError, StoredFlow};

use super::fixtures::*;

/// A flow named `name` of `jobs` (name, dependencies), each job in its own slot (named
/// after the flow and the job), no retries.
fn flow(name: &str, policy: FailurePolicy, jobs: &[(&str, &[&str])]) -> FlowSpec {
    let jobs = jobs.iter().map(|(job, deps)| {
        FlowJob::new(
            JobName::new(*job).unwrap(),
            spec(&format!("{name}-{job}"), 0),
            deps.iter().map(|d| JobName::new(*d).unwrap()).collect(),
            TriggerRule::AllSucceeded,
        )
    });
    FlowSpec::builder(name)
        .failure_policy(policy)
        .jobs(jobs)
        .build()
        .unwrap()
}

/// extract -> (left, right) -> load.
fn diamond() -> FlowSpec {
    flow(
        "etl",
        FailurePolicy::FailFast,
        &[
            ("extract", &[]),
            ("left", &["extract"]),
            ("right", &["extract"]),
            ("load", &["left", "right"]),
        ],
    )
}

fn flow_id(name: &str) -> FlowId {
    FlowId::new(name).unwrap()
}

/// Each job's state, in declaration order.
fn states(flow: &StoredFlow) -> Vec<(&str, JobState)> {
    flow.jobs
        .iter()
        .map(|job| (job.name.as_str(), job.state))
        .collect()
}

/// Claims the job's task as runner `runner` under `lease`, starts it and reports `outcome`.
fn run_job(store: &mut impl Store, runner: &str, lease: u64, outcome: AttemptOutcome, ms: i64) {
    let task = id(&start_next(store, runner, lease, ms));
    let result =
        AttemptResult::new(outcome).with_exit_code(i32::from(outcome != AttemptOutcome::Succeeded));
    store
        .report(
            &tenant(),
            &task,
            LeaseId::new(lease),
            result,
            &mut SeededRandom::new(1),
            at(ms + 2),
        )
        .unwrap();
}

/// A diamond runs in dependency order: only ready jobs have tasks, each owned by the flow,
/// and the flow finishes with its last job.
pub fn a_diamond_flow_runs_in_order<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let uid = uid_of("etl");
    let created = store
        .create_flow(&tenant(), &diamond(), uid, at(0))
        .unwrap();
    use JobState::{Running, Succeeded, Waiting};
    assert_eq!(
        states(&created),
        [
            ("extract", Running),
            ("left", Waiting),
            ("right", Waiting),
            ("load", Waiting)
        ]
    );
    assert_eq!(created.resource_version, 1);
    let task = store.get(&tenant(), &id("etl.extract")).unwrap().task;
    let owner = task.metadata().controller().unwrap();
    assert_eq!(
        (owner.kind(), owner.name(), owner.uid()),
        (OwnerKind::Flow, "etl", uid)
    );
    assert!(matches!(
        store.get(&tenant(), &id("etl.left")),
        Err(StoreError::NotFound { .. })
    ));

    run_job(&mut store, "r1", 1, AttemptOutcome::Succeeded, 10);
    let after_extract = store.flow(&tenant(), &flow_id("etl")).unwrap();
    assert_eq!(
        states(&after_extract),
        [
            ("extract", Succeeded),
            ("left", Running),
            ("right", Running),
            ("load", Waiting)
        ]
    );
    assert_eq!(after_extract.resource_version, 2);
    assert_eq!(after_extract.jobs[1].task, Some(id("etl.left")));
    assert_eq!(after_extract.jobs[3].task, None);

    run_job(&mut store, "r1", 2, AttemptOutcome::Succeeded, 20);
    let one_side = store.flow(&tenant(), &flow_id("etl")).unwrap();
    assert_eq!(one_side.jobs[3].state, Waiting, "load waits for both sides");
    run_job(&mut store, "r1", 3, AttemptOutcome::Succeeded, 30);
    assert_eq!(
        store.flow(&tenant(), &flow_id("etl")).unwrap().jobs[3].state,
        Running
    );
    run_job(&mut store, "r1", 4, AttemptOutcome::Succeeded, 40);

    let done = store.flow(&tenant(), &flow_id("etl")).unwrap();
    assert!(done.jobs.iter().all(|job| job.state == Succeeded));
    assert_eq!(done.run.status(), FlowStatus::Finished);
    assert_eq!((done.resource_version, done.finished_at), (5, Some(at(42))));
    assert_eq!(done.spec, diamond());

    let again = store
        .create_flow(&tenant(), &diamond(), uid_of("etl-2"), at(50))
        .unwrap_err();
    assert!(matches!(again, StoreError::FlowExists { .. }), "{again}");
    let missing = store.flow(&tenant(), &flow_id("nope")).unwrap_err();
    assert!(
        matches!(missing, StoreError::FlowNotFound { .. }),
        "{missing}"
    );
}

/// Under failFast, a failed job skips its dependents (no task is made for them) while a
/// running job goes on; a job whose task is canceled ends canceled, and the flow rolls up
/// as model-flow says (a canceled job makes it canceled) once every job is final.
pub fn a_failed_job_skips_its_dependents_under_fail_fast<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let spec = flow(
        "nightly",
        FailurePolicy::FailFast,
        &[("fetch", &[]), ("index", &["fetch"]), ("report", &[])],
    );
    store
        .create_flow(&tenant(), &spec, uid_of("nightly"), at(0))
        .unwrap();
    // Two roots: fetch (claimed first, by id order of equal queue keys) fails.
    let claimed = store
        .claim(&tenant(), &request("r1", 1, at(10)), at(10))
        .unwrap()
        .unwrap();
    assert_eq!(claimed.task.id(), &id("nightly.fetch"));
    store
        .start(&tenant(), claimed.task.id(), LeaseId::new(1), at(11))
        .unwrap();
    let failed = AttemptResult::new(AttemptOutcome::Failed).with_exit_code(1);
    let change = store
        .report(
            &tenant(),
            claimed.task.id(),
            LeaseId::new(1),
            failed,
            &mut SeededRandom::new(1),
            at(12),
        )
        .unwrap();
    assert!(change.task.phase().is_final());

    let after = store.flow(&tenant(), &flow_id("nightly")).unwrap();
    assert_eq!(after.jobs[0].state, JobState::Failed);
    assert!(
        matches!(after.jobs[1].state, JobState::Skipped(_)),
        "{:?}",
        after.jobs[1]
    );
    assert_eq!(after.jobs[1].task, None);
    assert_eq!(
        after.jobs[2].state,
        JobState::Running,
        "a running job goes on"
    );
    assert!(after.finished_at.is_none());
    assert!(matches!(
        store.get(&tenant(), &id("nightly.index")),
        Err(StoreError::NotFound { .. })
    ));

    // The other root is canceled before any runner takes it: the flow ends.
    store
        .cancel(
            &tenant(),
            &id("nightly.report"),
            Precondition::default(),
            at(20),
        )
        .unwrap();
    let done = store.flow(&tenant(), &flow_id("nightly")).unwrap();
    assert_eq!(done.jobs[2].state, JobState::Canceled);
    assert_eq!(done.run.status(), FlowStatus::Canceled);
    assert_eq!(done.finished_at, Some(at(20)));
    assert_eq!(
        store
            .get(&tenant(), &id("nightly.report"))
            .unwrap()
            .task
            .phase(),
        TaskPhase::Canceled
    );
}

/// Two jobs whose tasks end at once, on two connections, both advance the flow, once each:
/// the join job is made once, and the flow's version counts every advance.
pub fn concurrent_job_ends_advance_the_flow_exactly_once<B: Backend>(backend: &B) {
    let mut store = backend.open();
    store
        .create_flow(&tenant(), &diamond(), uid_of("etl"), at(0))
        .unwrap();
    run_job(&mut store, "r0", 1, AttemptOutcome::Succeeded, 10);
    let mut leased = Vec::new();
    for (n, runner) in ["r1", "r2"].into_iter().enumerate() {
        let lease = 10 + n as u64;
        let claimed = store
            .claim(&tenant(), &request(runner, lease, at(20)), at(20))
            .unwrap()
            .unwrap();
        store
            .start(&tenant(), claimed.task.id(), LeaseId::new(lease), at(21))
            .unwrap();
        leased.push((claimed.task.id().clone(), lease));
    }
    let barrier = std::sync::Barrier::new(leased.len());
    std::thread::scope(|scope| {
        for (task, lease) in &leased {
            let barrier = &barrier;
            scope.spawn(move || {
                let mut store = backend.open();
                barrier.wait();
                retrying(|| {
                    let done = AttemptResult::new(AttemptOutcome::Succeeded).with_exit_code(0);
                    store.report(
                        &tenant(),
                        task,
                        LeaseId::new(*lease),
                        done,
                        &mut SeededRandom::new(1),
                        at(22),
                    )
                })
                .unwrap();
            });
        }
    });
    let flow = store.flow(&tenant(), &flow_id("etl")).unwrap();
    use JobState::{Running, Succeeded};
    assert_eq!(
        states(&flow),
        [
            ("extract", Succeeded),
            ("left", Succeeded),
            ("right", Succeeded),
            ("load", Running)
        ]
    );
    assert_eq!(
        flow.resource_version, 4,
        "create, then one advance per job end"
    );
    let owned = store.owned(&tenant(), uid_of("etl"), None, 10).unwrap();
    let names: Vec<&str> = owned.iter().map(|task| task.id().as_str()).collect();
    assert_eq!(names, ["etl.extract", "etl.left", "etl.load", "etl.right"]);
}

/// A job whose task's lease expires with no retry left ends failed when the reaper ends
/// its attempt, in the reaper's transaction, and the flow ends in error.
pub fn a_reaped_job_task_ends_its_job<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let spec = flow("solo", FailurePolicy::FailFast, &[("only", &[])]);
    store
        .create_flow(&tenant(), &spec, uid_of("solo"), at(0))
        .unwrap();
    let claimed = store
        .claim(&tenant(), &request("r", 1, at(10)), at(10))
        .unwrap()
        .unwrap();
    assert_eq!(claimed.task.id(), &id("solo.only"));
    let expiry = claimed.attempt.lease_expires_at();
    let reaped = store.reap(expiry, 10, &mut SeededRandom::new(1)).unwrap();
    assert_eq!(reaped.len(), 1);
    let done = store.flow(&tenant(), &flow_id("solo")).unwrap();
    assert_eq!(done.jobs[0].state, JobState::Failed);
    assert_eq!(done.run.status(), FlowStatus::Error);
    assert_eq!((done.finished_at, done.resource_version), (Some(expiry), 2));
}

/// Canceling a flow skips its waiting jobs, cancels a queued job's task at once and a
/// running one's by cancel intent; the flow ends when that runner reports, and canceling
/// again writes nothing.
pub fn canceling_a_flow_skips_waiting_jobs_and_cancels_running_tasks<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let spec = flow(
        "pair",
        FailurePolicy::Continue,
        &[("claimed", &[]), ("queued", &[]), ("after", &["claimed"])],
    );
    store
        .create_flow(&tenant(), &spec, uid_of("pair"), at(0))
        .unwrap();
    let claimed = store
        .claim(&tenant(), &request("r", 1, at(10)), at(10))
        .unwrap()
        .unwrap();
    assert_eq!(claimed.task.id(), &id("pair.claimed"));
    store
        .start(&tenant(), &id("pair.claimed"), LeaseId::new(1), at(11))
        .unwrap();

    let canceled = store
        .cancel_flow(&tenant(), &flow_id("pair"), at(20))
        .unwrap();
    assert_eq!(
        states(&canceled),
        [
            ("claimed", JobState::Running),
            ("queued", JobState::Canceled),
            (
                "after",
                JobState::Skipped(taskmodel::flow::SkipReason::Canceled)
            ),
        ]
    );
    let running = store.get(&tenant(), &id("pair.claimed")).unwrap();
    assert_eq!(
        running.attempt.map(|run| run.state()),
        Some(taskmodel::task::AttemptState::Cancelling)
    );
    assert_eq!(
        store
            .get(&tenant(), &id("pair.queued"))
            .unwrap()
            .task
            .phase(),
        TaskPhase::Canceled
    );
    assert!(matches!(
        store.get(&tenant(), &id("pair.after")),
        Err(StoreError::NotFound { .. })
    ));

    let stopped = AttemptResult::new(AttemptOutcome::Canceled);
    store
        .report(
            &tenant(),
            &id("pair.claimed"),
            LeaseId::new(1),
            stopped,
            &mut SeededRandom::new(1),
            at(22),
        )
        .unwrap();
    let done = store.flow(&tenant(), &flow_id("pair")).unwrap();
    assert_eq!(done.jobs[0].state, JobState::Canceled);
    assert_eq!(
        (done.run.status(), done.finished_at),
        (FlowStatus::Canceled, Some(at(22)))
    );
    let again = store
        .cancel_flow(&tenant(), &flow_id("pair"), at(30))
        .unwrap();
    assert_eq!(again.resource_version, done.resource_version);
}

/// A flow stored before its jobs had rows of their own (its run a document on the flow
/// row, the rows holding only state and task: `rewind` runs the SQL that puts it back so)
/// reads back the same from its document, and its next job end moves it into rows and on.
pub fn a_flow_stored_as_a_document_moves_into_rows<B: Backend>(
    backend: &B,
    rewind: impl FnOnce(&str),
) {
    let mut store = backend.open();
    store
        .create_flow(&tenant(), &diamond(), uid_of("etl"), at(0))
        .unwrap();
    run_job(&mut store, "r1", 1, AttemptOutcome::Succeeded, 10);
    let before = store.flow(&tenant(), &flow_id("etl")).unwrap();
    let run = serde_json::to_string(&before.run)
        .unwrap()
        .replace('\'', "''");
    rewind(&format!(
        "UPDATE flows SET job_rows = 0, run = '{run}', not_started = 0, running = 0, \
         failed = 0, canceled = 0, other_final = 0, failure_seen = 0, result_bytes = 0, \
         labels = '{{}}' WHERE name = 'etl'; \
         UPDATE flow_jobs SET rule = 'anyFailed', dependencies = 0, up_succeeded = 0, \
         up_failed = 0, up_skipped = 0, dependents = '', result = NULL, spec = NULL \
         WHERE flow = 'etl';"
    ));
    assert_eq!(store.flow(&tenant(), &flow_id("etl")).unwrap(), before);
    run_job(&mut store, "r2", 2, AttemptOutcome::Succeeded, 20);
    run_job(&mut store, "r3", 3, AttemptOutcome::Succeeded, 30);
    let after = store.flow(&tenant(), &flow_id("etl")).unwrap();
    use JobState::{Running, Succeeded};
    assert_eq!(
        states(&after),
        [
            ("extract", Succeeded),
            ("left", Succeeded),
            ("right", Succeeded),
            ("load", Running)
        ]
    );
    assert_eq!(after.resource_version, before.resource_version + 2);
    assert_eq!(after.run.status(), FlowStatus::Started);
    let load = store.get(&tenant(), &id("etl.load")).unwrap().task;
    assert_eq!(load.metadata().controller().unwrap().uid(), uid_of("etl"));
}
