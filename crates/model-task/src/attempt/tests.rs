//! Unit tests for `attempt`: which reason a gone call gets, the pair checks, the lease
//! checks of `lease_attempt`, and ending an attempt left behind by a task canceled at once.

use chrono::{TimeDelta, TimeZone};
use model_ids::{TaskId, TenantId, Uid};
use model_policy::{RestartPolicy, SeededRandom};

use super::*;
use crate::spec::{SubprocessMode, TaskEnv, TaskKind, TaskSpec};
use crate::task::TaskManifest;

fn t(secs: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap() + TimeDelta::seconds(secs)
}

fn task() -> Task {
    let mode = SubprocessMode::command("/bin/true".into(), vec![]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::empty(), None).unwrap();
    let spec = TaskSpec::builder("lane", kind, 1_000)
        .restart(RestartPolicy::OnFailure)
        .build()
        .unwrap();
    Task::create(
        TaskManifest::named(TaskId::new("job").unwrap(), spec),
        TenantId::new("tenant").unwrap(),
        Uid::from_u128(1),
        t(0),
    )
    .unwrap()
}

const LEASE: LeaseId = LeaseId::new(10);

/// A task with attempt 1 leased until t(30), started at t(1) when `started`.
fn leased(started: bool) -> (Task, TaskRun) {
    let mut task = task();
    let runner = RunnerId::new("r-1").unwrap();
    let mut run = task
        .lease_attempt(None, None, runner, LEASE, t(30), t(0))
        .unwrap();
    if started {
        let _ = task.start_attempt(&mut run, LEASE, t(1)).unwrap();
    }
    (task, run)
}

#[test]
fn gone_reasons() {
    #[track_caller]
    fn check(task: &Task, run: &TaskRun, lease: LeaseId, now: i64, want: Option<GoneReason>) {
        let got = match task.check_lease(run, lease, t(now)) {
            Ok(()) => None,
            Err(TaskError::Gone { reason, attempt }) => {
                assert_eq!(attempt, run.attempt());
                Some(reason)
            }
            Err(other) => panic!("unexpected {other:?}"),
        };
        assert_eq!(got, want);
    }
    let (task, run) = leased(true);
    check(&task, &run, LEASE, 2, None);
    check(
        &task,
        &run,
        LeaseId::new(9),
        2,
        Some(GoneReason::NotCurrentLease),
    );
    check(
        &task,
        &run,
        LeaseId::new(11),
        2,
        Some(GoneReason::NotCurrentLease),
    );
    // Live until just before the expiry, gone at it.
    let just_before = t(30) - TimeDelta::milliseconds(1);
    assert!(task.check_lease(&run, LEASE, just_before).is_ok());
    check(&task, &run, LEASE, 30, Some(GoneReason::LeaseExpired));

    let (mut task, mut run) = leased(true);
    let mut rng = SeededRandom::new(1);
    let done = AttemptResult::new(AttemptOutcome::Succeeded);
    let _ = task
        .report_result(&mut run, LEASE, done, &mut rng, t(2))
        .unwrap();
    check(&task, &run, LEASE, 3, Some(GoneReason::AttemptEnded));
    check(
        &task,
        &run,
        LeaseId::new(9),
        3,
        Some(GoneReason::NotCurrentLease),
    );

    let (mut task, mut run) = leased(true);
    let _ = task.expire_attempt(&mut run, &mut rng, t(30)).unwrap();
    check(&task, &run, LEASE, 31, Some(GoneReason::LeaseExpired));

    let (mut task, run) = leased(true);
    task.cancel(None, t(2)).unwrap();
    check(&task, &run, LEASE, 3, Some(GoneReason::TaskEnded));
}

#[test]
fn messages() {
    let gone = TaskError::Gone {
        attempt: 3,
        reason: GoneReason::NotCurrentLease,
    };
    assert_eq!(
        gone.to_string(),
        "gone: attempt 3: the lease is not the attempt's current lease"
    );
    let mismatch = TaskError::AttemptMismatch {
        task_attempt: 2,
        task_phase: TaskPhase::Pending,
        attempt: 1,
        state: AttemptState::Failed,
    };
    assert_eq!(
        mismatch.to_string(),
        "attempt 1 (failed) does not match the task at attempt 2 (pending)"
    );
    let conflict = TaskError::AttemptConflict {
        attempt: 1,
        state: AttemptState::Cancelling,
        rule: "cancel was requested, the attempt cannot start",
    };
    assert_eq!(
        conflict.to_string(),
        "conflict: attempt 1 is cancelling, cancel was requested, the attempt cannot start"
    );
    let transition = TaskError::InvalidAttemptTransition {
        from: AttemptState::Leased,
        to: AttemptState::Failed,
    };
    assert_eq!(
        transition.to_string(),
        "invalid attempt transition from leased to failed"
    );
}

#[test]
fn a_run_of_another_task_or_attempt_is_a_mismatch() {
    let (task, run) = leased(true);
    let mut other = run.clone();
    other.task_id = TaskId::new("other").unwrap();
    let err = task.check_lease(&other, LEASE, t(2)).unwrap_err();
    assert_eq!(err.path(), Some("taskId"));
    let mut older = run.clone();
    older.attempt = 2;
    assert!(matches!(
        task.check_lease(&older, LEASE, t(2)),
        Err(TaskError::AttemptMismatch {
            task_attempt: 1,
            attempt: 2,
            ..
        })
    ));
    // A final attempt with a running task: the task has not taken the result in.
    let mut ended = run;
    ended.mark_final(AttemptState::Failed, None, None, t(3));
    assert!(matches!(
        task.check_lease(&ended, LEASE, t(3)),
        Err(TaskError::AttemptMismatch {
            task_phase: TaskPhase::Running,
            state: AttemptState::Failed,
            ..
        })
    ));
}

#[test]
fn a_lease_must_expire_after_now() {
    let mut task = task();
    let runner = RunnerId::new("r-1").unwrap();
    let err = task
        .lease_attempt(None, None, runner.clone(), LEASE, t(5), t(5))
        .unwrap_err();
    assert_eq!(err.path(), Some("leaseExpiresAt"));
    assert_eq!(task.resource_version(), 1, "nothing changed");
    let run = task
        .lease_attempt(
            None,
            None,
            runner,
            LEASE,
            t(5) + TimeDelta::milliseconds(1),
            t(5),
        )
        .unwrap();
    assert_eq!(run.lease_expires_at(), t(5) + TimeDelta::milliseconds(1));
}

#[test]
fn a_run_left_by_a_task_canceled_at_once_ends_and_bumps_only_the_version() {
    let mut rng = SeededRandom::new(1);
    let (mut task, mut run) = leased(true);
    task.cancel(None, t(2)).unwrap();
    let before = task.clone();
    assert!(matches!(
        task.expire_attempt(&mut run, &mut rng, t(29)),
        Err(TaskError::LeaseNotExpired { .. })
    ));
    let applied = task.expire_attempt(&mut run, &mut rng, t(30)).unwrap();
    assert_eq!(
        applied,
        Applied::Changed(RestartDecision::Final(TaskPhase::Canceled))
    );
    assert_eq!(run.state(), AttemptState::Canceled);
    // The task's status stays; the pair changed, so the version goes up by one.
    assert_eq!(task.status(), before.status());
    assert_eq!(task.spec(), before.spec());
    assert_eq!(task.resource_version(), before.resource_version() + 1);
    assert_eq!(task.metadata().updated_at(), t(30));
}

#[test]
fn expiry_records_the_lease_time_in_the_task_error() {
    let mut rng = SeededRandom::new(1);
    let (mut task, mut run) = leased(false);
    let _ = task.expire_attempt(&mut run, &mut rng, t(45)).unwrap();
    assert_eq!(
        task.status().error(),
        Some("lease expired at 2025-01-01T00:00:30Z")
    );
    assert_eq!(task.status().outcome(), Some(AttemptOutcome::Failed));
    assert_eq!(run.finished_at(), Some(t(45)));
    assert_eq!(run.started_at(), None);
    assert_eq!(run.error(), None);
}
