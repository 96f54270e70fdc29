//! Attempts and leases through the public API: one or more tests for each rule of
//! `docs/attempts.md` (each section names its rule), and a property test of random
//! interleavings.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use model_ids::{RunnerId, TaskId, TenantId, Uid};
use model_policy::{BackoffPolicy, JitterPolicy, RestartPolicy, SeededRandom};
use model_task::attempt::{GoneReason, LogCursor};
use model_task::lifecycle::MAX_STATUS_ERROR_BYTES;
use model_task::{
    Applied, AttemptOutcome, AttemptResult, AttemptState, LeaseId, RestartDecision, SubprocessMode,
    Task, TaskEnv, TaskError, TaskKind, TaskManifest, TaskPhase, TaskRun, TaskSpec,
};
use proptest::prelude::*;

fn t(secs: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap() + TimeDelta::seconds(secs)
}

fn spec(restart: RestartPolicy, max_retries: Option<u32>) -> TaskSpec {
    let mode = SubprocessMode::command("/bin/true".into(), vec![]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::empty(), None).unwrap();
    let mut builder = TaskSpec::builder("lane", kind, 1_000)
        .restart(restart)
        .backoff(BackoffPolicy::new(JitterPolicy::None, 1_000, 1_000, 1.0).unwrap());
    if let Some(max) = max_retries {
        builder = builder.max_retries(max);
    }
    builder.build().unwrap()
}

fn task(restart: RestartPolicy, max_retries: Option<u32>) -> Task {
    Task::create(
        TaskManifest::named(TaskId::new("job").unwrap(), spec(restart, max_retries)),
        TenantId::new("tenant").unwrap(),
        Uid::from_u128(1),
        t(0),
    )
    .unwrap()
}

fn runner() -> RunnerId {
    RunnerId::new("r-1").unwrap()
}

fn rng() -> SeededRandom {
    SeededRandom::new(1)
}

/// The lease of attempt `n` in these tests.
fn lease_of(attempt: u32) -> LeaseId {
    LeaseId::new(100 + u64::from(attempt))
}

/// Leases the next attempt at `now` for 30 s, after `previous`.
fn lease(task: &mut Task, previous: Option<&TaskRun>, now: DateTime<Utc>) -> TaskRun {
    let attempt = task.status().attempt() + 1;
    let run = task
        .lease_attempt(
            None,
            previous,
            runner(),
            lease_of(attempt),
            now + TimeDelta::seconds(30),
            now,
        )
        .unwrap();
    assert_eq!(run.attempt(), attempt);
    run
}

/// A task with attempt 1 leased at t(0) until t(30) and started at t(1).
fn running(restart: RestartPolicy, max_retries: Option<u32>) -> (Task, TaskRun) {
    let mut task = task(restart, max_retries);
    let mut run = lease(&mut task, None, t(0));
    assert_eq!(
        task.start_attempt(&mut run, lease_of(1), t(1)).unwrap(),
        Applied::Changed(())
    );
    (task, run)
}

/// A task whose attempt 1 failed at t(2) under `restart`, waiting for its restart, and the
/// attempt's record.
fn requeued(restart: RestartPolicy) -> (Task, TaskRun) {
    let (mut task, mut first) = running(restart, None);
    let _ = task
        .report_result(
            &mut first,
            lease_of(1),
            result(AttemptOutcome::Failed),
            &mut rng(),
            t(2),
        )
        .unwrap();
    assert_eq!(task.phase(), TaskPhase::Pending);
    (task, first)
}

fn result(outcome: AttemptOutcome) -> AttemptResult {
    AttemptResult::new(outcome)
}

#[track_caller]
fn assert_gone(result: Result<impl std::fmt::Debug, TaskError>, want: GoneReason) {
    match result {
        Err(TaskError::Gone { reason, .. }) => assert_eq!(reason, want),
        other => panic!("want gone ({want:?}), got {other:?}"),
    }
}

// ---- Stale leases are gone: a stale or unknown lease cannot start, heartbeat, report logs
// ---- or a result.

#[test]
fn a_stale_or_unknown_lease_is_gone_for_every_runner_call() {
    let mut rng = rng();
    // Attempt 1 failed and was requeued; attempt 2 holds lease_of(2).
    let (mut task, first) = requeued(RestartPolicy::OnFailure);
    let mut run = lease(&mut task, Some(&first), t(5));
    for lease in [lease_of(1), LeaseId::new(999)] {
        let (task_before, run_before) = (task.clone(), run.clone());
        assert_gone(
            task.start_attempt(&mut run, lease, t(6)),
            GoneReason::NotCurrentLease,
        );
        assert_gone(
            task.heartbeat_attempt(&mut run, lease, t(60), t(6)),
            GoneReason::NotCurrentLease,
        );
        assert_gone(
            task.check_lease(&run, lease, t(6)),
            GoneReason::NotCurrentLease,
        );
        assert_gone(
            task.report_result(
                &mut run,
                lease,
                result(AttemptOutcome::Succeeded),
                &mut rng,
                t(6),
            ),
            GoneReason::NotCurrentLease,
        );
        assert_eq!(
            (&task, &run),
            (&task_before, &run_before),
            "nothing changed"
        );
    }
    // The current lease works.
    assert!(
        task.start_attempt(&mut run, lease_of(2), t(6))
            .unwrap()
            .is_changed()
    );
}

#[test]
fn an_expired_lease_is_gone_even_before_the_reaper_runs() {
    let mut rng = rng();
    let (task, mut run) = running(RestartPolicy::Never, None);
    let mut task = task;
    let expiry = run.lease_expires_at();
    assert_gone(
        task.heartbeat_attempt(
            &mut run,
            lease_of(1),
            expiry + TimeDelta::seconds(30),
            expiry,
        ),
        GoneReason::LeaseExpired,
    );
    assert_gone(
        task.check_lease(&run, run.lease(), expiry),
        GoneReason::LeaseExpired,
    );
    assert_gone(
        task.report_result(
            &mut run,
            lease_of(1),
            result(AttemptOutcome::Succeeded),
            &mut rng,
            expiry,
        ),
        GoneReason::LeaseExpired,
    );
    assert_eq!(run.state(), AttemptState::Running);
}

// ---- Expiry, Retries and the exhausted state: lease expiry requeues, then ends the task at
// ---- the retry limit.

#[test]
fn lease_expiry_requeues_then_exhausts_at_the_retry_limit() {
    let mut rng = rng();
    let (mut task, mut first) = running(RestartPolicy::OnFailure, Some(1));
    let version = task.resource_version();
    assert!(matches!(
        task.expire_attempt(&mut first, &mut rng, t(29)),
        Err(TaskError::LeaseNotExpired { .. })
    ));
    let decision = task.expire_attempt(&mut first, &mut rng, t(31)).unwrap();
    assert_eq!(
        decision,
        Applied::Changed(RestartDecision::Restart {
            retry: 1,
            delay_ms: 1_000,
            at: t(32)
        })
    );
    assert_eq!(first.state(), AttemptState::Expired);
    assert_eq!(first.finished_at(), Some(t(31)));
    assert_eq!(task.phase(), TaskPhase::Pending);
    assert_eq!(task.status().next_attempt_at(), Some(t(32)));
    assert_eq!(task.status().outcome(), Some(AttemptOutcome::Failed));
    assert_eq!(task.resource_version(), version + 1);

    // The next attempt waits for the restart time, then expires too: the budget is spent.
    let early = task.lease_attempt(None, Some(&first), runner(), lease_of(2), t(60), t(31));
    assert!(matches!(early, Err(TaskError::RestartNotDue { .. })));
    let mut second = lease(&mut task, Some(&first), t(32));
    let decision = task.expire_attempt(&mut second, &mut rng, t(62)).unwrap();
    assert_eq!(decision, Applied::Changed(RestartDecision::Exhausted));
    assert_eq!(
        second.state(),
        AttemptState::Expired,
        "never started, still expired"
    );
    assert_eq!(task.phase(), TaskPhase::Exhausted);
    assert_eq!(task.status().attempt(), 2);
}

#[test]
fn lease_expiry_respects_a_never_restart_policy() {
    let mut rng = rng();
    let (mut task, mut run) = running(RestartPolicy::Never, Some(5));
    let decision = task.expire_attempt(&mut run, &mut rng, t(30)).unwrap();
    assert_eq!(
        decision,
        Applied::Changed(RestartDecision::Final(TaskPhase::Failed))
    );
    assert_eq!(
        (task.phase(), run.state()),
        (TaskPhase::Failed, AttemptState::Expired)
    );
}

#[test]
fn lease_expiry_after_a_cancel_request_ends_canceled_without_retry() {
    for started in [false, true] {
        let mut rng = rng();
        let mut task = task(RestartPolicy::always(), None);
        let mut run = lease(&mut task, None, t(0));
        if started {
            let _ = task.start_attempt(&mut run, lease_of(1), t(1)).unwrap();
        }
        let _ = task.cancel_attempt(None, &mut run, t(2)).unwrap();
        let decision = task.expire_attempt(&mut run, &mut rng, t(30)).unwrap();
        assert_eq!(
            decision,
            Applied::Changed(RestartDecision::Final(TaskPhase::Canceled))
        );
        assert_eq!(run.state(), AttemptState::Canceled);
        assert!(run.cancel_requested());
        assert_eq!(task.phase(), TaskPhase::Canceled);
        assert_eq!(task.status().outcome(), Some(AttemptOutcome::Canceled));
    }
}

// ---- Cancel intent wins: in-flight cancel goes to Cancelling and can only end Canceled.

#[test]
fn in_flight_cancel_goes_to_cancelling_and_only_ends_canceled() {
    let mut rng = rng();
    let (mut task, mut run) = running(RestartPolicy::always(), None);
    let version = task.resource_version();
    assert!(matches!(
        task.cancel_attempt(Some(version - 1), &mut run, t(2)),
        Err(TaskError::Conflict { .. })
    ));
    assert_eq!(
        task.cancel_attempt(Some(version), &mut run, t(2)).unwrap(),
        Applied::Changed(())
    );
    assert_eq!(run.state(), AttemptState::Cancelling);
    assert!(run.cancel_requested());
    assert_eq!(
        task.phase(),
        TaskPhase::Running,
        "the task waits for the run to end"
    );
    assert_eq!(
        task.resource_version(),
        version + 1,
        "the pair changed: one version up, so a result read before the cancel loses"
    );
    // Repeated cancel: idempotent.
    assert_eq!(
        task.cancel_attempt(None, &mut run, t(3)).unwrap(),
        Applied::Unchanged
    );
    // The runner may keep its lease alive while it winds down...
    assert!(
        task.heartbeat_attempt(&mut run, lease_of(1), t(40), t(3))
            .unwrap()
            .is_changed()
    );
    // ...but cannot start again or end any other way.
    let lease = run.lease();
    assert!(matches!(
        task.start_attempt(&mut run, lease, t(3)),
        Err(TaskError::AttemptConflict {
            state: AttemptState::Cancelling,
            ..
        })
    ));
    for outcome in [
        AttemptOutcome::Succeeded,
        AttemptOutcome::Failed,
        AttemptOutcome::Timeout,
    ] {
        let before = (task.clone(), run.clone());
        assert!(matches!(
            task.report_result(&mut run, lease, result(outcome), &mut rng, t(4)),
            Err(TaskError::AttemptConflict {
                state: AttemptState::Cancelling,
                ..
            })
        ));
        assert_eq!((task.clone(), run.clone()), before);
    }
    let done = task
        .report_result(
            &mut run,
            lease,
            result(AttemptOutcome::Canceled).with_exit_code(143),
            &mut rng,
            t(5),
        )
        .unwrap();
    assert_eq!(
        done,
        Applied::Changed(RestartDecision::Final(TaskPhase::Canceled))
    );
    assert_eq!(
        (task.phase(), run.state()),
        (TaskPhase::Canceled, AttemptState::Canceled)
    );
    assert_eq!(run.exit_code(), Some(143));
    // The cancel, the heartbeat and the result: one version each.
    assert_eq!(task.resource_version(), version + 3);
}

#[test]
fn a_leased_attempt_can_be_canceled_before_it_starts() {
    let mut rng = rng();
    let mut task = task(RestartPolicy::Never, None);
    let mut run = lease(&mut task, None, t(0));
    let lease = run.lease();
    // A result before start is not a transition the attempt has.
    assert!(matches!(
        task.report_result(
            &mut run,
            lease,
            result(AttemptOutcome::Succeeded),
            &mut rng,
            t(1)
        ),
        Err(TaskError::InvalidAttemptTransition {
            from: AttemptState::Leased,
            to: AttemptState::Succeeded
        })
    ));
    let _ = task.cancel_attempt(None, &mut run, t(1)).unwrap();
    assert!(matches!(
        task.start_attempt(&mut run, lease, t(2)),
        Err(TaskError::AttemptConflict { .. })
    ));
    let _ = task
        .report_result(
            &mut run,
            lease,
            result(AttemptOutcome::Canceled),
            &mut rng,
            t(2),
        )
        .unwrap();
    assert_eq!(run.state(), AttemptState::Canceled);
    assert_eq!(run.started_at(), None);
    assert_eq!(run.finished_at(), Some(t(2)));
}

#[test]
fn cancel_between_attempts_cancels_the_task() {
    let mut rng = rng();
    let (mut task, mut run) = running(RestartPolicy::OnFailure, None);
    let _ = task
        .report_result(
            &mut run,
            lease_of(1),
            result(AttemptOutcome::Failed),
            &mut rng,
            t(2),
        )
        .unwrap();
    assert_eq!(task.phase(), TaskPhase::Pending);
    let final_run = run.clone();
    assert_eq!(
        task.cancel_attempt(None, &mut run, t(3)).unwrap(),
        Applied::Changed(())
    );
    assert_eq!(task.phase(), TaskPhase::Canceled);
    assert_eq!(run, final_run, "the final run did not change");
}

// ---- Idempotency: duplicate start and heartbeat with the current lease change nothing.

#[test]
fn duplicate_start_and_heartbeat_are_idempotent() {
    let (mut task, mut run) = running(RestartPolicy::Never, None);
    let lease = run.lease();
    let before = run.clone();
    assert_eq!(
        task.start_attempt(&mut run, lease, t(2)).unwrap(),
        Applied::Unchanged
    );
    assert_eq!(run, before, "the start time stays the first one");
    assert_eq!(run.started_at(), Some(t(1)));

    assert_eq!(
        task.heartbeat_attempt(&mut run, lease, t(40), t(2))
            .unwrap(),
        Applied::Changed(())
    );
    let extended = run.clone();
    // The same heartbeat again, and an older one arriving late: no change.
    assert_eq!(
        task.heartbeat_attempt(&mut run, lease, t(40), t(3))
            .unwrap(),
        Applied::Unchanged
    );
    assert_eq!(
        task.heartbeat_attempt(&mut run, lease, t(35), t(3))
            .unwrap(),
        Applied::Unchanged
    );
    assert_eq!(run, extended);
    assert_eq!(run.lease_expires_at(), t(40));
    // A heartbeat cannot end the lease in the past.
    let err = task
        .heartbeat_attempt(&mut run, lease, t(3), t(3))
        .unwrap_err();
    assert_eq!(err.path(), Some("leaseExpiresAt"));
}

// ---- First write wins: a duplicate result is idempotent; a different payload is a conflict.

#[test]
fn duplicate_results_are_idempotent_and_different_ones_conflict() {
    let mut rng = rng();
    let long = "é".repeat(MAX_STATUS_ERROR_BYTES);
    let first = result(AttemptOutcome::Failed)
        .with_exit_code(2)
        .with_error(long.clone());
    let (mut task, mut run) = running(RestartPolicy::Never, None);
    let lease = run.lease();
    let decision = task
        .report_result(&mut run, lease, first.clone(), &mut rng, t(2))
        .unwrap();
    assert_eq!(
        decision,
        Applied::Changed(RestartDecision::Final(TaskPhase::Failed))
    );
    assert_eq!(run.error().unwrap().len(), MAX_STATUS_ERROR_BYTES);
    let (task_after, run_after) = (task.clone(), run.clone());

    // The same payload again, even long after the lease ran out: idempotent.
    assert_eq!(
        task.report_result(&mut run, lease, first.clone(), &mut rng, t(3))
            .unwrap(),
        Applied::Unchanged
    );
    assert_eq!(
        task.report_result(&mut run, lease, first, &mut rng, t(300))
            .unwrap(),
        Applied::Unchanged
    );
    // Text that differs only past the cut is the same stored payload.
    let same_after_cut = result(AttemptOutcome::Failed)
        .with_exit_code(2)
        .with_error(format!("{long}tail"));
    assert_eq!(
        task.report_result(&mut run, lease, same_after_cut, &mut rng, t(3))
            .unwrap(),
        Applied::Unchanged
    );
    for different in [
        result(AttemptOutcome::Succeeded)
            .with_exit_code(2)
            .with_error(long.clone()),
        result(AttemptOutcome::Failed)
            .with_exit_code(3)
            .with_error(long.clone()),
        result(AttemptOutcome::Failed).with_exit_code(2),
        result(AttemptOutcome::Failed)
            .with_exit_code(2)
            .with_error("other"),
    ] {
        assert!(matches!(
            task.report_result(&mut run, lease, different, &mut rng, t(3)),
            Err(TaskError::AttemptConflict {
                state: AttemptState::Failed,
                ..
            })
        ));
    }
    assert_eq!((task, run), (task_after, run_after));
}

// ---- Cancel intent wins, First write wins: cancel and result in either order converge to
// ---- one final state.

#[test]
fn cancel_and_result_in_either_order_converge() {
    for outcome in AttemptOutcome::ALL {
        for restart in [RestartPolicy::Never, RestartPolicy::OnFailure] {
            let mut rng = rng();
            // Result first, then cancel.
            let (mut a, mut run_a) = running(restart, Some(0));
            let lease = run_a.lease();
            let _ = a
                .report_result(&mut run_a, lease, result(outcome), &mut rng, t(2))
                .unwrap();
            let cancel = a.cancel_attempt(None, &mut run_a, t(3));
            assert!(
                matches!(cancel, Err(TaskError::InvalidTransition { .. })),
                "{cancel:?}"
            );
            // Cancel first, then the result: only Canceled lands; the runner's other
            // result is a conflict, and it then reports the cancel.
            let (mut b, mut run_b) = running(restart, Some(0));
            let _ = b.cancel_attempt(None, &mut run_b, t(2)).unwrap();
            let reported = b.report_result(&mut run_b, lease, result(outcome), &mut rng, t(3));
            if outcome != AttemptOutcome::Canceled {
                assert!(matches!(reported, Err(TaskError::AttemptConflict { .. })));
                let _ = b
                    .report_result(
                        &mut run_b,
                        lease,
                        result(AttemptOutcome::Canceled),
                        &mut rng,
                        t(4),
                    )
                    .unwrap();
            }
            for (task, run) in [(&mut a, &mut run_a), (&mut b, &mut run_b)] {
                assert!(run.is_final() && task.phase().is_final(), "{outcome:?}");
                assert_eq!(run.state().outcome(), task.status().outcome());
                // One final state: repeating either call changes nothing.
                let before = (task.clone(), run.clone());
                let _ = task.cancel_attempt(None, run, t(9));
                let _ = task.report_result(run, lease, result(outcome), &mut rng, t(9));
                assert_eq!((task.clone(), run.clone()), before);
            }
            assert_eq!(run_b.state(), AttemptState::Canceled);
        }
    }
}

// ---- Expiry: racing with a late result neither moves a final attempt nor resurrects it.

#[test]
fn a_result_that_wins_the_race_stands_against_expiry() {
    let mut rng = rng();
    let (mut task, mut run) = running(RestartPolicy::OnFailure, Some(0));
    let lease = run.lease();
    let _ = task
        .report_result(
            &mut run,
            lease,
            result(AttemptOutcome::Succeeded),
            &mut rng,
            t(29),
        )
        .unwrap();
    let before = (task.clone(), run.clone());
    assert_eq!(
        task.expire_attempt(&mut run, &mut rng, t(31)).unwrap(),
        Applied::Unchanged
    );
    assert_eq!((task, run), before);
}

#[test]
fn a_late_result_after_expiry_is_gone_and_resurrects_nothing() {
    // Requeued task (budget left) and ended task (budget spent).
    for max_retries in [Some(1), Some(0)] {
        let mut rng = rng();
        let (mut task, mut run) = running(RestartPolicy::OnFailure, max_retries);
        let lease = run.lease();
        let _ = task.expire_attempt(&mut run, &mut rng, t(30)).unwrap();
        let before = (task.clone(), run.clone());
        for outcome in AttemptOutcome::ALL {
            assert_gone(
                task.report_result(&mut run, lease, result(outcome), &mut rng, t(31)),
                GoneReason::LeaseExpired,
            );
        }
        assert_gone(
            task.start_attempt(&mut run, lease, t(31)),
            GoneReason::LeaseExpired,
        );
        assert_eq!(
            task.expire_attempt(&mut run, &mut rng, t(32)).unwrap(),
            Applied::Unchanged
        );
        assert_eq!((task.clone(), run.clone()), before);
        let want = if max_retries == Some(0) {
            TaskPhase::Exhausted
        } else {
            TaskPhase::Pending
        };
        assert_eq!(task.phase(), want);
    }
}

// ---- First write wins: final attempts and final tasks reject every further change.

/// Every attempt-level call at `now`, each returning whether it changed anything (errors: no).
fn every_call(task: &mut Task, run: &mut TaskRun, now: DateTime<Utc>) -> Vec<(String, bool)> {
    let mut rng = rng();
    let lease = run.lease();
    let mut calls = vec![
        (
            "start",
            task.start_attempt(run, lease, now).map(|a| a.is_changed()),
        ),
        (
            "heartbeat",
            task.heartbeat_attempt(run, lease, now + TimeDelta::hours(1), now)
                .map(|a| a.is_changed()),
        ),
        (
            "cancel",
            task.cancel_attempt(None, run, now).map(|a| a.is_changed()),
        ),
        (
            "expire",
            task.expire_attempt(run, &mut rng, now)
                .map(|a| a.is_changed()),
        ),
        (
            "lease",
            task.lease_attempt(
                None,
                Some(&*run),
                runner(),
                LeaseId::new(1),
                now + TimeDelta::hours(1),
                now,
            )
            .map(|_| true),
        ),
        ("task cancel", task.cancel(None, now).map(|()| true)),
    ];
    for outcome in AttemptOutcome::ALL {
        calls.push((
            "result",
            task.report_result(run, lease, result(outcome), &mut rng, now)
                .map(|a| a.is_changed()),
        ));
    }
    calls
        .into_iter()
        .map(|(name, r)| (name.to_owned(), r.unwrap_or(false)))
        .collect()
}

#[test]
fn final_attempts_of_final_tasks_reject_every_change() {
    let mut rng = rng();
    let mut cases: Vec<(Task, TaskRun)> = Vec::new();
    for outcome in AttemptOutcome::ALL {
        let (mut task, mut run) = running(RestartPolicy::Never, None);
        let _ = task
            .report_result(&mut run, lease_of(1), result(outcome), &mut rng, t(2))
            .unwrap();
        cases.push((task, run));
    }
    let (mut task, mut run) = running(RestartPolicy::Never, None);
    let _ = task.expire_attempt(&mut run, &mut rng, t(30)).unwrap();
    cases.push((task, run));
    let (mut task, mut run) = running(RestartPolicy::always(), Some(0));
    let _ = task.expire_attempt(&mut run, &mut rng, t(30)).unwrap();
    assert_eq!(task.phase(), TaskPhase::Exhausted);
    cases.push((task, run));
    for (mut task, mut run) in cases {
        assert!(task.phase().is_final() && run.is_final());
        let before = (task.clone(), run.clone());
        for now in [t(3), t(100)] {
            for (call, changed) in every_call(&mut task, &mut run, now) {
                assert!(!changed, "{call} changed a final {} attempt", run.state());
            }
        }
        assert_eq!((task, run), before);
    }
}

#[test]
fn a_final_attempt_of_a_requeued_task_never_changes() {
    let mut rng = rng();
    let (mut task, mut run) = running(RestartPolicy::always(), None);
    let _ = task
        .report_result(
            &mut run,
            lease_of(1),
            result(AttemptOutcome::Succeeded),
            &mut rng,
            t(2),
        )
        .unwrap();
    let final_run = run.clone();
    let mut pending = task.clone();
    let mut copy = run.clone();
    for (call, changed) in every_call(&mut pending, &mut copy, t(3)) {
        assert_eq!(copy, final_run, "{call} changed the final attempt");
        // Only a lease of the next attempt or a cancel of the waiting task change the task.
        assert!(
            !changed || call == "lease" || call == "task cancel" || call == "cancel",
            "{call}"
        );
    }
}

// ---- Stale leases are gone: a lease id is new within a task.

#[test]
fn a_lease_id_is_new_within_a_task() {
    let (mut task, first) = requeued(RestartPolicy::always());
    let due = task.status().next_attempt_at().unwrap();
    // The previous attempt's lease id again: refused, nothing changes.
    let before = task.clone();
    let reused = task.lease_attempt(
        None,
        Some(&first),
        runner(),
        lease_of(1),
        due + TimeDelta::seconds(30),
        due,
    );
    assert!(
        matches!(reused, Err(TaskError::LeaseReused { attempt: 1, lease }) if lease == lease_of(1)),
        "{reused:?}"
    );
    assert_eq!(task, before);
    // Leasing without the previous attempt cannot check the lease: refused too.
    let blind = task.lease_attempt(
        None,
        None,
        runner(),
        lease_of(1),
        due + TimeDelta::seconds(30),
        due,
    );
    assert!(
        matches!(&blind, Err(TaskError::Invalid { path, .. }) if path == "previous"),
        "{blind:?}"
    );
    assert_eq!(task, before);
    // With a new lease id the old holder stays gone: its start changes nothing.
    let mut second = task
        .lease_attempt(
            None,
            Some(&first),
            runner(),
            lease_of(2),
            due + TimeDelta::seconds(30),
            due,
        )
        .unwrap();
    assert_gone(
        task.start_attempt(&mut second, lease_of(1), due),
        GoneReason::NotCurrentLease,
    );
    assert_eq!(second.state(), AttemptState::Leased);
}

// ---- Retries and the exhausted state: a restart past the end of time ends the task.

#[test]
fn a_restart_past_the_end_of_time_exhausts_the_task_instead_of_stranding_it() {
    let end = DateTime::<Utc>::MAX_UTC;
    let leased_at = end - TimeDelta::seconds(10);
    // By a result: the restart (1 s later) would be past the last representable time.
    let mut reported = task(RestartPolicy::OnFailure, None);
    let mut run = reported
        .lease_attempt(None, None, runner(), lease_of(1), end, leased_at)
        .unwrap();
    assert!(
        reported
            .start_attempt(&mut run, lease_of(1), leased_at)
            .unwrap()
            .is_changed()
    );
    let failed = result(AttemptOutcome::Failed).with_error("disk full");
    let decision = reported
        .report_result(
            &mut run,
            lease_of(1),
            failed,
            &mut rng(),
            end - TimeDelta::milliseconds(500),
        )
        .unwrap();
    assert_eq!(decision, Applied::Changed(RestartDecision::Exhausted));
    assert_eq!(
        (reported.phase(), run.state()),
        (TaskPhase::Exhausted, AttemptState::Failed)
    );
    let error = reported.status().error().unwrap();
    assert!(
        error.starts_with("exhausted: the restart time is out of range:")
            && error.ends_with("; disk full"),
        "{error}"
    );
    // By expiry, at the last representable time.
    let mut expiring = task(RestartPolicy::always(), None);
    let mut run = expiring
        .lease_attempt(None, None, runner(), lease_of(1), end, leased_at)
        .unwrap();
    let decision = expiring.expire_attempt(&mut run, &mut rng(), end).unwrap();
    assert_eq!(decision, Applied::Changed(RestartDecision::Exhausted));
    assert_eq!(
        (expiring.phase(), run.state()),
        (TaskPhase::Exhausted, AttemptState::Expired)
    );
    assert!(
        expiring
            .status()
            .error()
            .unwrap()
            .starts_with("exhausted: the restart time is out of range:"),
        "{:?}",
        expiring.status().error()
    );
    // The ended tasks read back.
    for task in [reported, expiring] {
        let back: Task = serde_json::from_str(&serde_json::to_string(&task).unwrap()).unwrap();
        assert_eq!(back, task);
    }
}

// ---- One active attempt: the next attempt needs the previous one final.

#[test]
fn the_next_attempt_needs_the_previous_one_final() {
    let mut rng = rng();
    let (mut task, mut first) = running(RestartPolicy::always(), None);
    // While attempt 1 is active the task is Running: no second lease.
    let second = task.lease_attempt(None, Some(&first), runner(), lease_of(2), t(60), t(2));
    assert!(matches!(
        second,
        Err(TaskError::InvalidTransition {
            from: TaskPhase::Running,
            to: TaskPhase::Running
        })
    ));
    let _ = task
        .report_result(
            &mut first,
            lease_of(1),
            result(AttemptOutcome::Succeeded),
            &mut rng,
            t(2),
        )
        .unwrap();
    // A previous attempt that is not the task's current attempt is refused.
    let mut stale = first.clone();
    let mut next = lease(&mut task, Some(&first), t(3));
    let _ = task.start_attempt(&mut next, lease_of(2), t(4)).unwrap();
    let _ = task
        .report_result(
            &mut next,
            lease_of(2),
            result(AttemptOutcome::Failed),
            &mut rng,
            t(5),
        )
        .unwrap();
    let refused = task.lease_attempt(None, Some(&stale), runner(), lease_of(3), t(60), t(7));
    assert!(matches!(
        refused,
        Err(TaskError::AttemptMismatch {
            task_attempt: 2,
            attempt: 1,
            ..
        })
    ));
    // ...and so is any call with it.
    assert!(matches!(
        task.cancel_attempt(None, &mut stale, t(7)),
        Err(TaskError::AttemptMismatch { .. })
    ));
    let third = lease(&mut task, Some(&next), t(7));
    assert_eq!((third.attempt(), task.status().attempt()), (3, 3));
}

#[test]
fn concurrent_lease_claims_conflict_on_the_task_version() {
    // Two claimants read the task at the same version; the first claim is stored, the
    // second one's expected version no longer matches.
    let mut stored = task(RestartPolicy::Never, None);
    let read = stored.resource_version();
    let won = stored.lease_attempt(Some(read), None, runner(), LeaseId::new(1), t(30), t(0));
    assert!(won.is_ok());
    assert_eq!(stored.resource_version(), read + 1);
    let before = stored.clone();
    let lost = stored.lease_attempt(Some(read), None, runner(), LeaseId::new(2), t(30), t(0));
    assert!(matches!(
        lost,
        Err(TaskError::Conflict { expected, actual }) if expected == read && actual == read + 1
    ));
    assert_eq!(stored, before);
}

// ---- Log dedupe: duplicate log batches dedupe by (attempt, sequence).

#[test]
fn duplicate_log_batches_dedupe_by_attempt_and_sequence() {
    let (task, run) = running(RestartPolicy::Never, None);
    let mut cursor = LogCursor::new();
    let mut stored = Vec::new();
    let mut upload = |batch: &[u64], cursor: &mut LogCursor| {
        task.check_lease(&run, run.lease(), t(2)).unwrap();
        for &seq in batch {
            if cursor.accept(run.log_key(seq)) {
                stored.push(seq);
            }
        }
    };
    upload(&[0, 1, 2], &mut cursor);
    upload(&[0, 1, 2], &mut cursor);
    upload(&[2, 3], &mut cursor);
    assert_eq!(stored, [0, 1, 2, 3]);
    assert_eq!(cursor.last(), Some(run.log_key(3)));
}

// ---- Wire form.

#[test]
fn attempts_round_trip_through_json_in_every_state() {
    let mut rng = rng();
    let mut runs = Vec::new();
    let (mut task, mut run) = running(RestartPolicy::Never, None);
    runs.push(run.clone());
    let _ = task.cancel_attempt(None, &mut run, t(2)).unwrap();
    runs.push(run.clone());
    let _ = task
        .report_result(
            &mut run,
            lease_of(1),
            result(AttemptOutcome::Canceled).with_error("stopped"),
            &mut rng,
            t(3),
        )
        .unwrap();
    runs.push(run);
    for run in runs {
        let json = serde_json::to_string(&run).unwrap();
        assert_eq!(
            serde_json::from_str::<TaskRun>(&json).unwrap(),
            run,
            "{json}"
        );
    }
}

// ---- The property: random interleavings keep every invariant.

#[derive(Debug, Clone)]
enum Op {
    Lease {
        ttl_ms: u32,
        pass_previous: bool,
    },
    Start {
        stale: bool,
    },
    Heartbeat {
        ttl_ms: u32,
        stale: bool,
    },
    Result {
        outcome: AttemptOutcome,
        exit_code: Option<i32>,
        stale: bool,
    },
    Cancel,
    Expire {
        jump: bool,
    },
}

fn op() -> impl Strategy<Value = (Op, i64)> {
    let outcome = prop_oneof![
        Just(AttemptOutcome::Succeeded),
        Just(AttemptOutcome::Failed),
        Just(AttemptOutcome::Timeout),
        Just(AttemptOutcome::Canceled),
    ];
    let op = prop_oneof![
        2 => (1u32..60_000, prop::bool::weighted(0.9))
            .prop_map(|(ttl_ms, pass_previous)| Op::Lease { ttl_ms, pass_previous }),
        4 => prop::bool::weighted(0.2).prop_map(|stale| Op::Start { stale }),
        2 => (0u32..60_000, prop::bool::weighted(0.2))
            .prop_map(|(ttl_ms, stale)| Op::Heartbeat { ttl_ms, stale }),
        4 => (outcome, prop::option::of(-1i32..3), prop::bool::weighted(0.2))
            .prop_map(|(outcome, exit_code, stale)| Op::Result { outcome, exit_code, stale }),
        1 => Just(Op::Cancel),
        1 => any::<bool>().prop_map(|jump| Op::Expire { jump }),
    ];
    // Time mostly moves forward, sometimes a little backwards (another server's clock).
    (op, -1_000i64..8_000)
}

fn restart() -> impl Strategy<Value = RestartPolicy> {
    prop_oneof![
        Just(RestartPolicy::Never),
        Just(RestartPolicy::OnFailure),
        Just(RestartPolicy::always()),
    ]
}

proptest! {
    #[test]
    fn random_interleavings_keep_the_invariants(
        restart in restart(),
        max_retries in prop::option::of(0u32..4),
        ops in prop::collection::vec(op(), 0..60),
        seed in any::<u64>(),
    ) {
        let mut task = task(restart, max_retries);
        let mut rng = SeededRandom::new(seed);
        let mut runs: Vec<TaskRun> = Vec::new();
        let mut now = t(0);
        let mut next_lease = 1u64;
        for (op, step_ms) in ops {
            now += TimeDelta::milliseconds(step_ms);
            let (task_before, runs_before) = (task.clone(), runs.clone());
            let stale_lease = |run: &TaskRun, stale: bool| {
                if stale { LeaseId::new(run.lease().as_u64() + 1_000) } else { run.lease() }
            };
            let changed: Result<bool, TaskError> = match op {
                Op::Lease { ttl_ms, pass_previous } => {
                    if let Some(due) = task.status().next_attempt_at() { now = now.max(due); }
                    let previous = if pass_previous { runs.last() } else { None };
                    let expires = now + TimeDelta::milliseconds(i64::from(ttl_ms));
                    let lease = LeaseId::new(next_lease);
                    next_lease += 1;
                    let leased = task.lease_attempt(Some(task.resource_version()), previous, runner(), lease, expires, now);
                    leased.map(|run| { runs.push(run); true })
                }
                op => match runs.last_mut() {
                    None => Ok(false),
                    Some(run) => match op {
                        Op::Lease { .. } => unreachable!(),
                        Op::Start { stale } => {
                            let lease = stale_lease(run, stale);
                            task.start_attempt(run, lease, now).map(|a| a.is_changed())
                        }
                        Op::Heartbeat { ttl_ms, stale } => {
                            let lease = stale_lease(run, stale);
                            let expires = now + TimeDelta::milliseconds(i64::from(ttl_ms));
                            task.heartbeat_attempt(run, lease, expires, now).map(|a| a.is_changed())
                        }
                        Op::Result { outcome, exit_code, stale } => {
                            let lease = stale_lease(run, stale);
                            let mut result = AttemptResult::new(outcome);
                            result.exit_code = exit_code;
                            task.report_result(run, lease, result, &mut rng, now).map(|a| a.is_changed())
                        }
                        Op::Cancel => task.cancel_attempt(None, run, now).map(|a| a.is_changed()),
                        Op::Expire { jump } => {
                            if jump { now = now.max(run.lease_expires_at()); }
                            task.expire_attempt(run, &mut rng, now).map(|a| a.is_changed())
                        }
                    },
                },
            };
            match &changed {
                Ok(changed) => {
                    let any = task != task_before || runs != runs_before;
                    prop_assert_eq!(*changed, any, "Applied says whether anything changed");
                }
                Err(err) => {
                    prop_assert_eq!(&task, &task_before, "a failed call changes nothing: {}", err);
                    prop_assert_eq!(&runs, &runs_before, "a failed call changes nothing: {}", err);
                    let known = matches!(err,
                        TaskError::Gone { .. } | TaskError::AttemptConflict { .. }
                        | TaskError::InvalidAttemptTransition { .. } | TaskError::LeaseNotExpired { .. }
                        | TaskError::InvalidTransition { .. } | TaskError::RestartNotDue { .. }
                        | TaskError::Invalid { .. });
                    prop_assert!(known, "unexpected error {:?}", err);
                }
            }
            // At most one active attempt, and it is the current one, exactly while the task runs.
            let active = runs.iter().filter(|r| r.is_active()).count();
            prop_assert!(active <= 1);
            prop_assert_eq!(
                task.phase() == TaskPhase::Running,
                runs.last().is_some_and(TaskRun::is_active)
            );
            // Attempts only increase: record i is attempt i + 1, the task counts them.
            for (i, run) in runs.iter().enumerate() {
                prop_assert_eq!(run.attempt() as usize, i + 1);
            }
            prop_assert_eq!(task.status().attempt() as usize, runs.len());
            prop_assert!(task.status().attempt() >= task_before.status().attempt());
            // Final states never change; a final task never changes.
            for (before, after) in runs_before.iter().zip(&runs) {
                if before.is_final() {
                    prop_assert_eq!(before, after);
                }
                if let (Some(start), Some(end)) = (after.started_at(), after.finished_at()) {
                    prop_assert!(start <= end);
                }
            }
            if task_before.phase().is_final() {
                prop_assert_eq!(task.status(), task_before.status());
            }
            // The version grows by exactly one with every change of the task or its attempt.
            let changed = matches!(changed, Ok(true));
            let want = task_before.resource_version() + u64::from(changed);
            prop_assert_eq!(task.resource_version(), want);
            // Every reachable attempt and task is a valid wire value.
            for run in &runs {
                let back: TaskRun = serde_json::from_str(&serde_json::to_string(run).unwrap()).unwrap();
                prop_assert_eq!(&back, run);
            }
            let back: Task = serde_json::from_str(&serde_json::to_string(&task).unwrap()).unwrap();
            prop_assert_eq!(&back, &task);
        }
    }

    #[test]
    fn attempt_records_round_trip(
        attempt in 1u32..1_000,
        generation in 1u64..=u64::MAX,
        lease in any::<u64>(),
        state_index in 0usize..AttemptState::ALL.len(),
        cancel in any::<bool>(),
        offsets in (2i64..100_000, 0i64..100_000, 0i64..100_000),
        exit_code in prop::option::of(any::<i32>()),
        error in prop::option::of("[a-zé€ ]{0,40}"),
    ) {
        let state = AttemptState::ALL[state_index];
        let (ttl, start, finish) = offsets;
        let leased_at = t(0);
        let expires_at = leased_at + TimeDelta::milliseconds(ttl);
        let started = !matches!(state, AttemptState::Leased) && (start % 2 == 0 || state.outcome().is_some() && state != AttemptState::Canceled || state == AttemptState::Running);
        // A start needs a live lease.
        let start = start % ttl;
        let started_at = started.then(|| leased_at + TimeDelta::milliseconds(start));
        let earliest = started_at.unwrap_or(leased_at);
        let finished_at = state.is_final().then(|| match state {
            // Expiry ends an attempt at or after the lease's expiry...
            AttemptState::Expired => expires_at + TimeDelta::milliseconds(finish),
            // ...a reported result comes in while the lease is live...
            AttemptState::Succeeded | AttemptState::Failed | AttemptState::Timeout => {
                earliest + TimeDelta::milliseconds(finish % (ttl - start))
            }
            // ...and a cancel ends it either way.
            _ => earliest + TimeDelta::milliseconds(finish),
        });
        let reported = state.outcome().is_some();
        let json = serde_json::json!({
            "taskId": "job",
            "attempt": attempt,
            "generation": generation,
            "runner": "r-1",
            "lease": LeaseId::new(lease).to_string(),
            "leaseExpiresAt": expires_at,
            "state": state,
            "cancelRequested": state == AttemptState::Cancelling || (state == AttemptState::Canceled && cancel),
            "leasedAt": leased_at,
            "startedAt": started_at,
            "finishedAt": finished_at,
            "exitCode": if reported { exit_code } else { None },
            "error": if reported { error } else { None },
        });
        let run: TaskRun = serde_json::from_value(json).unwrap();
        prop_assert_eq!(run.state(), state);
        prop_assert_eq!(run.lease().as_u64(), lease);
        prop_assert_eq!(run.generation(), generation);
        let again: TaskRun = serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
        prop_assert_eq!(again, run);
    }
}
