//! The Task lifecycle through the public API: every (from, to) pair of phases, version bumps,
//! timestamps, optimistic concurrency, failed calls leaving the task unchanged, admission.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use model_ids::{TaskId, TenantId, Uid};
use model_policy::{AdmissionPolicy, BackoffPolicy, JitterPolicy, RestartPolicy, SeededRandom};
use model_task::lifecycle::MAX_STATUS_ERROR_BYTES;
use model_task::task::{AdmissionDecision, admit};
use model_task::{
    AttemptOutcome, AttemptResult, RestartDecision, SubprocessMode, Task, TaskEnv, TaskError,
    TaskKind, TaskManifest, TaskPhase, TaskSpec,
};

fn t(secs: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap() + TimeDelta::seconds(secs)
}

fn kind() -> TaskKind {
    let mode = SubprocessMode::command("/bin/true".into(), vec![]).unwrap();
    TaskKind::subprocess(mode, TaskEnv::empty(), None).unwrap()
}

fn task(restart: RestartPolicy, max_retries: Option<u32>) -> Task {
    let mut builder = TaskSpec::builder("lane", kind(), 1_000)
        .restart(restart)
        .backoff(BackoffPolicy::new(JitterPolicy::None, 1_000, 1_000, 1.0).unwrap());
    if let Some(max) = max_retries {
        builder = builder.max_retries(max);
    }
    Task::create(
        TaskManifest::named(TaskId::new("job").unwrap(), builder.build().unwrap()),
        TenantId::new("tenant").unwrap(),
        Uid::from_u128(1),
        t(0),
    )
    .unwrap()
}

fn rng() -> SeededRandom {
    SeededRandom::new(1)
}

fn finish(
    task: &mut Task,
    outcome: AttemptOutcome,
    now: DateTime<Utc>,
) -> Result<RestartDecision, TaskError> {
    task.end_attempt(None, AttemptResult::new(outcome), &mut rng(), now)
}

/// A task in `phase`, reached through the public API only.
fn task_in(phase: TaskPhase) -> Task {
    let (restart, max, outcome) = match phase {
        TaskPhase::Pending | TaskPhase::Running => (RestartPolicy::Never, None, None),
        TaskPhase::Succeeded => (RestartPolicy::Never, None, Some(AttemptOutcome::Succeeded)),
        TaskPhase::Failed => (RestartPolicy::Never, None, Some(AttemptOutcome::Failed)),
        TaskPhase::Timeout => (RestartPolicy::Never, None, Some(AttemptOutcome::Timeout)),
        TaskPhase::Canceled => (RestartPolicy::Never, None, Some(AttemptOutcome::Canceled)),
        TaskPhase::Exhausted => (
            RestartPolicy::always(),
            Some(0),
            Some(AttemptOutcome::Failed),
        ),
        other => panic!("unknown phase {other}"),
    };
    let mut task = task(restart, max);
    if phase != TaskPhase::Pending {
        task.begin_attempt(None, t(1)).unwrap();
    }
    if let Some(outcome) = outcome {
        finish(&mut task, outcome, t(2)).unwrap();
    }
    assert_eq!(task.phase(), phase);
    task
}

/// The same task with another restart policy and retry budget (rewritten through its wire
/// form, so a task can sit in any phase with any spec).
fn with_policy(task: &Task, restart: RestartPolicy, max_retries: Option<u32>) -> Task {
    let mut json = serde_json::to_value(task).unwrap();
    json["spec"]["restart"] = serde_json::to_value(restart).unwrap();
    json["spec"]["maxRetries"] = serde_json::to_value(max_retries).unwrap();
    serde_json::from_value(json).unwrap()
}

/// A task in `from` with a spec under which the operation below leads to `to`.
fn setup(from: TaskPhase, to: TaskPhase) -> Task {
    let task = task_in(from);
    match to {
        TaskPhase::Pending => with_policy(&task, RestartPolicy::always(), None),
        TaskPhase::Exhausted => with_policy(&task, RestartPolicy::always(), Some(0)),
        _ => with_policy(&task, RestartPolicy::Never, None),
    }
}

/// The operation whose target phase is `to`.
fn operate(task: &mut Task, to: TaskPhase) -> Result<(), TaskError> {
    let outcome = match to {
        TaskPhase::Running => return task.begin_attempt(None, t_now()).map(drop),
        TaskPhase::Canceled => return task.cancel(None, t_now()),
        TaskPhase::Succeeded => AttemptOutcome::Succeeded,
        TaskPhase::Timeout => AttemptOutcome::Timeout,
        _ => AttemptOutcome::Failed,
    };
    finish(task, outcome, t_now()).map(drop)
}

fn t_now() -> DateTime<Utc> {
    t(10)
}

#[test]
fn every_pair_of_phases() {
    use TaskPhase::*;
    let allowed = [
        (Pending, Running),
        (Pending, Canceled),
        (Running, Pending),
        (Running, Succeeded),
        (Running, Failed),
        (Running, Timeout),
        (Running, Canceled),
        (Running, Exhausted),
    ];
    let mut checked = 0;
    for from in TaskPhase::ALL {
        for to in TaskPhase::ALL {
            let before = setup(from, to);
            let mut after = before.clone();
            let result = operate(&mut after, to);
            if allowed.contains(&(from, to)) {
                result.unwrap_or_else(|e| panic!("{from} -> {to}: {e}"));
                assert_eq!(after.phase(), to, "{from} -> {to}");
                assert_eq!(
                    after.resource_version(),
                    before.resource_version() + 1,
                    "{from} -> {to}"
                );
                assert_eq!(after.metadata().updated_at(), t_now(), "{from} -> {to}");
                assert_eq!(
                    after.metadata().created_at(),
                    before.metadata().created_at()
                );
            } else {
                match result {
                    Err(TaskError::InvalidTransition { from: f, to: tt }) => {
                        assert_eq!((f, tt), (from, to));
                    }
                    other => panic!("{from} -> {to}: want InvalidTransition, got {other:?}"),
                }
                assert_eq!(
                    after, before,
                    "{from} -> {to}: a rejected call changes nothing"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 49);
}

#[test]
fn only_a_running_attempt_ends() {
    // Pending may become Canceled, but by `cancel`: ending an attempt that does not run
    // would record an outcome for no attempt (attempt 0), or a canceled outcome for an
    // attempt that ended otherwise while the task waited for its restart.
    let fresh = task(RestartPolicy::always(), None);
    let mut waiting = fresh.clone();
    waiting.begin_attempt(None, t(1)).unwrap();
    finish(&mut waiting, AttemptOutcome::Failed, t(2)).unwrap();
    assert_eq!(waiting.phase(), TaskPhase::Pending);
    for before in [fresh, waiting] {
        for outcome in AttemptOutcome::ALL {
            let mut after = before.clone();
            let err = finish(&mut after, outcome, t(3)).unwrap_err();
            assert!(
                matches!(
                    err,
                    TaskError::InvalidTransition {
                        from: TaskPhase::Pending,
                        ..
                    }
                ),
                "{outcome:?}: {err}"
            );
            assert_eq!(
                after, before,
                "{outcome:?}: a rejected call changes nothing"
            );
        }
    }
}

#[test]
fn stale_version_is_a_conflict_with_both_versions() {
    let mut task = task(RestartPolicy::Never, None);
    let before = task.clone();
    let err = task.begin_attempt(Some(7), t(1)).unwrap_err();
    assert!(
        matches!(
            err,
            TaskError::Conflict {
                expected: 7,
                actual: 1
            }
        ),
        "{err:?}"
    );
    assert_eq!(task, before);
    // The conflict check comes before the lifecycle check.
    let mut done = task_in(TaskPhase::Succeeded);
    let err = done.cancel(Some(1), t(5)).unwrap_err();
    assert!(
        matches!(
            err,
            TaskError::Conflict {
                expected: 1,
                actual: 3
            }
        ),
        "{err:?}"
    );
    // The right version passes, then is stale.
    task.begin_attempt(Some(1), t(1)).unwrap();
    let err = task.cancel(Some(1), t(2)).unwrap_err();
    assert!(matches!(
        err,
        TaskError::Conflict {
            expected: 1,
            actual: 2
        }
    ));
    task.cancel(Some(2), t(2)).unwrap();
}

#[test]
fn restart_goes_back_to_pending_until_due() {
    let mut task = task(RestartPolicy::OnFailure, Some(2));
    assert_eq!(task.begin_attempt(None, t(1)).unwrap(), 1);
    let failed = AttemptResult::new(AttemptOutcome::Failed)
        .with_exit_code(3)
        .with_error("boom");
    let decision = task.end_attempt(None, failed, &mut rng(), t(2)).unwrap();
    assert_eq!(
        decision,
        RestartDecision::Restart {
            retry: 1,
            delay_ms: 1_000,
            at: t(3)
        }
    );
    let status = task.status();
    assert_eq!(
        (status.phase(), status.attempt(), status.outcome()),
        (TaskPhase::Pending, 1, Some(AttemptOutcome::Failed))
    );
    assert_eq!(
        (status.exit_code(), status.error(), status.next_attempt_at()),
        (Some(3), Some("boom"), Some(t(3)))
    );
    assert!(!task.phase().is_final());

    let before = task.clone();
    let err = task.begin_attempt(None, t(2)).unwrap_err();
    assert!(matches!(err, TaskError::RestartNotDue { due, now } if due == t(3) && now == t(2)));
    assert_eq!(task, before);

    assert_eq!(task.begin_attempt(None, t(3)).unwrap(), 2);
    let status = task.status();
    assert_eq!(
        (
            status.outcome(),
            status.exit_code(),
            status.error(),
            status.next_attempt_at()
        ),
        (None, None, None, None)
    );
    finish(&mut task, AttemptOutcome::Timeout, t(4)).unwrap();
    task.begin_attempt(None, t(5)).unwrap();
    assert_eq!(
        finish(&mut task, AttemptOutcome::Failed, t(6)).unwrap(),
        RestartDecision::Exhausted
    );
    assert_eq!(
        (
            task.phase(),
            task.status().attempt(),
            task.status().outcome()
        ),
        (TaskPhase::Exhausted, 3, Some(AttemptOutcome::Failed))
    );
}

#[test]
fn cancel_while_a_restart_is_scheduled() {
    let mut task = task(RestartPolicy::always(), None);
    task.begin_attempt(None, t(1)).unwrap();
    finish(&mut task, AttemptOutcome::Succeeded, t(2)).unwrap();
    assert_eq!(task.phase(), TaskPhase::Pending);
    task.cancel(None, t(2)).unwrap();
    assert_eq!(
        (task.phase(), task.status().next_attempt_at()),
        (TaskPhase::Canceled, None)
    );
}

#[test]
fn canceled_outcome_is_final_even_with_always() {
    let mut task = task(RestartPolicy::always(), None);
    task.begin_attempt(None, t(1)).unwrap();
    assert_eq!(
        finish(&mut task, AttemptOutcome::Canceled, t(2)).unwrap(),
        RestartDecision::Final(TaskPhase::Canceled)
    );
    assert_eq!(task.phase(), TaskPhase::Canceled);
}

#[test]
fn updated_at_never_goes_backwards() {
    let mut task = task(RestartPolicy::Never, None);
    task.begin_attempt(None, t(100)).unwrap();
    task.cancel(None, t(50)).unwrap();
    assert_eq!(task.metadata().updated_at(), t(100));
    assert_eq!(task.resource_version(), 3);
}

#[test]
fn error_text_is_cut_on_a_char_boundary() {
    let mut task = task(RestartPolicy::Never, None);
    task.begin_attempt(None, t(1)).unwrap();
    let long = format!("x{}", "é".repeat(MAX_STATUS_ERROR_BYTES));
    let result = AttemptResult::new(AttemptOutcome::Failed).with_error(long.clone());
    task.end_attempt(None, result, &mut rng(), t(2)).unwrap();
    let stored = task.status().error().unwrap();
    assert_eq!(
        stored.len(),
        MAX_STATUS_ERROR_BYTES - 1,
        "1 + 2k bytes fit below the odd cut"
    );
    assert!(long.starts_with(stored));
}

#[test]
fn version_overflow_is_an_error() {
    let task = task(RestartPolicy::Never, None);
    let mut json: serde_json::Value = serde_json::to_value(&task).unwrap();
    json["metadata"]["resourceVersion"] = u64::MAX.into();
    let mut task: Task = serde_json::from_value(json).unwrap();
    let before = task.clone();
    let err = task.begin_attempt(Some(u64::MAX), t(1)).unwrap_err();
    assert!(
        matches!(err, TaskError::VersionOverflow { version: u64::MAX }),
        "{err:?}"
    );
    assert_eq!(task, before);
}

#[test]
fn admission_for_each_policy_with_and_without_an_active_task() {
    let pending = task_in(TaskPhase::Pending);
    let running = task_in(TaskPhase::Running);
    let mut waiting = task(RestartPolicy::always(), None);
    waiting.begin_attempt(None, t(1)).unwrap();
    finish(&mut waiting, AttemptOutcome::Failed, t(2)).unwrap();
    let finals: Vec<Task> = TaskPhase::ALL
        .into_iter()
        .filter(|p| p.is_final())
        .map(task_in)
        .collect();

    let policies = [
        AdmissionPolicy::DropIfRunning,
        AdmissionPolicy::Replace,
        AdmissionPolicy::Queue,
    ];
    for policy in policies {
        assert_eq!(
            admit(None, policy),
            AdmissionDecision::Start,
            "{policy}: empty slot"
        );
        for done in &finals {
            assert_eq!(
                admit(Some(done), policy),
                AdmissionDecision::Start,
                "{policy}: {} is not active",
                done.phase()
            );
        }
        for active in [&pending, &running, &waiting] {
            let want = match policy {
                AdmissionPolicy::DropIfRunning => AdmissionDecision::Drop,
                AdmissionPolicy::Replace => AdmissionDecision::Replace(TaskId::new("job").unwrap()),
                _ => AdmissionDecision::Queue,
            };
            assert_eq!(
                admit(Some(active), policy),
                want,
                "{policy}: active {}",
                active.phase()
            );
        }
    }
}

/// A recurring `always` task with a retry budget keeps recurring: its successes never
/// spend the budget, which counts failures in a row.
#[test]
fn a_recurring_always_task_is_never_exhausted_by_its_successes() {
    let mut task = task(RestartPolicy::always(), Some(2));
    let mut now = t(0);
    for attempt in 1..=10 {
        task.begin_attempt(None, now).unwrap();
        let decision = finish(&mut task, AttemptOutcome::Succeeded, now).unwrap();
        let RestartDecision::Restart { at, .. } = decision else {
            panic!("attempt {attempt}: a success of an always task restarts, got {decision:?}");
        };
        assert_eq!(task.phase(), TaskPhase::Pending, "attempt {attempt}");
        now = at;
    }
    assert_eq!(task.status().attempt(), 10);
}

/// A periodic task waits its interval after each success, the backoff after a failure,
/// and exhausts only after `maxRetries` failures in a row.
#[test]
fn a_periodic_task_waits_its_interval_and_counts_failures_in_a_row() {
    let spec = TaskSpec::builder("lane", kind(), 1_000)
        .restart(RestartPolicy::periodic(60_000).unwrap())
        .backoff(BackoffPolicy::new(JitterPolicy::None, 1_000, 8_000, 2.0).unwrap())
        .max_retries(2)
        .build()
        .unwrap();
    let mut task = Task::create(
        TaskManifest::named(TaskId::new("hourly").unwrap(), spec),
        TenantId::new("tenant").unwrap(),
        Uid::from_u128(9),
        t(0),
    )
    .unwrap();
    let mut now = t(0);
    // (outcome, the delay after it, failures in a row after it)
    let script = [
        (AttemptOutcome::Succeeded, Some(60_000), 0),
        (AttemptOutcome::Failed, Some(1_000), 1),
        (AttemptOutcome::Timeout, Some(2_000), 2),
        // A success starts the count again, and the backoff with it.
        (AttemptOutcome::Succeeded, Some(60_000), 0),
        (AttemptOutcome::Failed, Some(1_000), 1),
        (AttemptOutcome::Failed, Some(2_000), 2),
        // The third failure in a row is one more than maxRetries.
        (AttemptOutcome::Failed, None, 3),
    ];
    for (step, (outcome, delay, failures)) in script.into_iter().enumerate() {
        task.begin_attempt(None, now).unwrap();
        let decision = finish(&mut task, outcome, now).unwrap();
        assert_eq!(
            task.status().consecutive_failures(),
            failures,
            "step {step}"
        );
        match (decision, delay) {
            (
                RestartDecision::Restart {
                    delay_ms,
                    at,
                    retry,
                },
                Some(want),
            ) => {
                assert_eq!(delay_ms, want, "step {step}");
                assert_eq!(retry, failures, "step {step}");
                assert_eq!(task.status().queued_at(), Some(at), "step {step}");
                now = at;
            }
            (RestartDecision::Exhausted, None) => {
                assert_eq!(task.phase(), TaskPhase::Exhausted);
                assert_eq!(task.status().finished_at(), Some(now));
            }
            (got, want) => panic!("step {step}: got {got:?}, want a delay of {want:?}"),
        }
    }
}

/// Without an interval, `always` waits the backoff's first delay after a success, whatever
/// came before.
#[test]
fn always_without_an_interval_waits_the_first_backoff_delay_after_a_success() {
    let spec = TaskSpec::builder("lane", kind(), 1_000)
        .restart(RestartPolicy::always())
        .backoff(BackoffPolicy::new(JitterPolicy::None, 500, 8_000, 2.0).unwrap())
        .build()
        .unwrap();
    let mut task = Task::create(
        TaskManifest::named(TaskId::new("loop").unwrap(), spec),
        TenantId::new("tenant").unwrap(),
        Uid::from_u128(10),
        t(0),
    )
    .unwrap();
    let mut now = t(0);
    for (outcome, want) in [
        (AttemptOutcome::Failed, 500),
        (AttemptOutcome::Failed, 1_000),
        (AttemptOutcome::Succeeded, 500),
        (AttemptOutcome::Succeeded, 500),
    ] {
        task.begin_attempt(None, now).unwrap();
        let RestartDecision::Restart { delay_ms, at, .. } =
            finish(&mut task, outcome, now).unwrap()
        else {
            panic!("always restarts");
        };
        assert_eq!(delay_ms, want, "{outcome:?}");
        now = at;
    }
}
