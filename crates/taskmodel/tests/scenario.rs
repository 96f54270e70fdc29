//! Cross-layer scenarios through the facade only: a spec's life from submission to cancel.
//!
//! Routing among runners (RunnerRouter) and paging through a query (model-query) join these
//! scenarios when those parts of the layers are in the workspace.

#![allow(
    clippy::unwrap_used,
    reason = "helpers of tests: a bad fixture fails the test"
)]

use chrono::{DateTime, TimeDelta, Utc};
use taskmodel::prelude::*;
use taskmodel::task::{AttemptOutcome, AttemptResult, SubprocessMode, TaskEnv};

fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_735_689_600 + seconds, 0).unwrap()
}

fn spec() -> TaskSpec {
    let mode = SubprocessMode::command("/usr/bin/rsync".into(), vec!["-a".into()]).unwrap();
    let kind = TaskKind::subprocess(mode, TaskEnv::default(), None).unwrap();
    TaskSpec::builder("nightly-backup", kind, 60_000)
        .restart(RestartPolicy::OnFailure)
        .backoff(BackoffPolicy::new(JitterPolicy::None, 1_000, 30_000, 2.0).unwrap())
        .runner_selector("zone=eu,!draining".parse().unwrap())
        .labels(Labels::from_pairs([("team", "infra")]).unwrap())
        .max_retries(3)
        .build()
        .unwrap()
}

#[test]
fn a_spec_survives_the_wire_and_passes_the_submit_boundary() {
    let spec = spec();
    let json = serde_json::to_string(&spec).unwrap();
    let parsed: TaskSpec = serde_json::from_str(&json).unwrap();
    assert_eq!(
        serde_json::to_value(&parsed).unwrap(),
        serde_json::to_value(&spec).unwrap()
    );
    parsed.validate().unwrap();
    let runner = Labels::from_pairs([("zone", "eu"), ("ssd", "true")]).unwrap();
    assert!(parsed.runner_selector().matches(&runner));
}

#[test]
fn two_attempts_with_a_failure_and_a_backoff_then_cancel() {
    let mut rng = SeededRandom::new(7);
    let mut task = Task::new(TaskId::new("nightly-backup.1").unwrap(), spec(), at(0));
    assert_eq!(task.phase(), TaskPhase::Pending);
    assert_eq!(task.resource_version(), 1);

    assert_eq!(task.start_attempt(Some(1), at(1)).unwrap(), 1);
    let failed = AttemptResult::new(AttemptOutcome::Failed).with_exit_code(1);
    let decision = task
        .finish_attempt(Some(2), failed, &mut rng, at(10))
        .unwrap();
    // No jitter: the first retry waits first_ms.
    let due = at(10) + TimeDelta::milliseconds(1_000);
    assert_eq!(
        decision,
        RestartDecision::Restart {
            retry: 1,
            delay_ms: 1_000,
            at: due
        }
    );
    assert_eq!(task.phase(), TaskPhase::Pending);
    assert_eq!(task.status().next_attempt_at(), Some(due));

    // Starting before the restart is due is refused, and says so through the facade's kind.
    let early = Error::from(task.start_attempt(None, at(10)).unwrap_err());
    assert_eq!(early.kind(), ErrorKind::InvalidTransition);

    // A writer holding a stale version loses.
    let stale = Error::from(task.start_attempt(Some(1), at(11)).unwrap_err());
    assert_eq!(stale.kind(), ErrorKind::Conflict);

    let version = task.resource_version();
    assert_eq!(task.start_attempt(Some(version), at(11)).unwrap(), 2);
    assert_eq!(task.phase(), TaskPhase::Running);

    task.cancel(None, at(12)).unwrap();
    assert_eq!(task.phase(), TaskPhase::Canceled);
    // Nothing leaves a final phase.
    let again = Error::from(task.start_attempt(None, at(13)).unwrap_err());
    assert_eq!(again.kind(), ErrorKind::InvalidTransition);

    // The whole task round-trips through JSON.
    let json = serde_json::to_string(&task).unwrap();
    let back: Task = serde_json::from_str(&json).unwrap();
    assert_eq!(back.phase(), TaskPhase::Canceled);
    assert_eq!(back.resource_version(), task.resource_version());
}
