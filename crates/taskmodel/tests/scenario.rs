//! Cross-layer scenarios through the facade only: a spec's life from submission to cancel,
//! routing it to a runner and leasing the attempt there, its attempts under leases, and
//! paging through a query over the tasks built.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "helpers of tests: a bad fixture fails the test"
)]

use chrono::{DateTime, TimeDelta, Utc};
use taskmodel::prelude::*;
use taskmodel::query::SortOrder;
use taskmodel::selector::FailureReason;
use taskmodel::task::route::{RouteOutcome, rendezvous_weight};
use taskmodel::task::{AttemptOutcome, AttemptResult, SubprocessMode, TaskEnv, TaskError};

/// The tenant the scenarios' tasks belong to.
fn infra() -> TenantId {
    TenantId::new("infra").unwrap()
}

/// A task named `id` created from `spec` at `now`, for the tenant "infra".
fn new_task(id: TaskId, spec: TaskSpec, now: DateTime<Utc>) -> Task {
    let uid = Uid::from_u128(u128::try_from(now.timestamp_micros()).unwrap());
    Task::create(TaskManifest::named(id, spec), infra(), uid, now).unwrap()
}

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

fn runner_id(id: &str) -> RunnerId {
    RunnerId::new(id).unwrap()
}

/// Five runners for the spec's `zone=eu,!draining` selector and subprocess kind: two
/// eligible, and one rejected for each reason (zone, draining, kind).
fn runners() -> RunnerRouter {
    let router = RunnerRouter::new();
    let mut batch = RouterBatch::new();
    let labels = |pairs: &[(&str, &str)]| Labels::from_pairs(pairs.iter().copied()).unwrap();
    batch
        .register(
            runner_id("eu-1"),
            labels(&[("zone", "eu"), ("ssd", "true")]),
            KindSet::SUBPROCESS.union(&KindSet::CONTAINER).unwrap(),
        )
        .register(runner_id("eu-2"), labels(&[("zone", "eu")]), KindSet::ALL)
        .register(
            runner_id("eu-old"),
            labels(&[("zone", "eu"), ("draining", "true")]),
            KindSet::ALL,
        )
        .register(
            runner_id("eu-wasm"),
            labels(&[("zone", "eu")]),
            KindSet::WASM,
        )
        .register(runner_id("us-1"), labels(&[("zone", "us")]), KindSet::ALL);
    router.apply(batch).unwrap();
    router
}

#[test]
fn a_task_is_routed_to_a_runner_and_its_attempt_leased_there() {
    let router = runners();
    assert_eq!(router.snapshot().len(), 5);
    let id = TaskId::new("nightly-backup.3").unwrap();
    let spec = spec();

    let pick = router.pick(&spec, &id).unwrap();
    assert_eq!(pick.eligible, 2);
    assert!(["eu-1", "eu-2"].contains(&pick.runner.as_str()), "{pick:?}");
    assert_eq!(pick.weight, rendezvous_weight(&id, &pick.runner));
    let other = if pick.runner.as_str() == "eu-1" {
        runner_id("eu-2")
    } else {
        runner_id("eu-1")
    };
    assert_eq!(
        router.candidates(&spec).unwrap(),
        [runner_id("eu-1"), runner_id("eu-2")]
    );

    // The explanation agrees with the pick and says why each other runner was not chosen.
    let explanation: RouteExplanation = router.explain(&spec, &id).unwrap();
    assert_eq!(explanation.kind, KindName::Subprocess);
    assert_eq!(explanation.picked.as_ref(), Some(&pick.runner));
    let names: Vec<&str> = explanation
        .runners
        .iter()
        .map(|v| v.runner.as_str())
        .collect();
    assert_eq!(names, ["eu-1", "eu-2", "eu-old", "eu-wasm", "us-1"]);
    for verdict in &explanation.runners {
        let failures: Vec<(&str, FailureReason)> = explanation
            .failures(verdict)
            .map(|f| (f.requirement.key.as_str(), f.reason))
            .collect();
        match (verdict.runner.as_str(), &verdict.outcome) {
            (name, RouteOutcome::Picked) => assert_eq!(name, pick.runner.as_str()),
            (name, RouteOutcome::Outranked { weight }) => {
                assert_eq!(name, other.as_str());
                assert_eq!(*weight, rendezvous_weight(&id, &other));
                assert!(*weight < pick.weight);
            }
            (
                "eu-old",
                RouteOutcome::Rejected {
                    kind_supported: true,
                    ..
                },
            ) => {
                assert_eq!(
                    failures,
                    [(
                        "draining",
                        FailureReason::KeyPresent {
                            value: "true".into()
                        }
                    )]
                );
            }
            (
                "eu-wasm",
                RouteOutcome::Rejected {
                    kind_supported: false,
                    ..
                },
            ) => {
                assert!(failures.is_empty());
                assert_eq!(
                    explanation.reason(verdict).to_string(),
                    "kind not supported"
                );
            }
            (
                "us-1",
                RouteOutcome::Rejected {
                    kind_supported: true,
                    ..
                },
            ) => {
                assert_eq!(
                    failures,
                    [("zone", FailureReason::ValueNotListed { value: "us".into() })]
                );
            }
            other => panic!("unexpected verdict {other:?}"),
        }
    }

    // The attempt is leased to the picked runner.
    let mut task = new_task(id.clone(), spec.clone(), at(0));
    let lease = LeaseId::new(1);
    let mut run = task
        .lease_attempt(Some(1), None, pick.runner.clone(), lease, at(30), at(1))
        .unwrap();
    assert_eq!(run.runner(), &pick.runner);
    assert_eq!((run.attempt(), run.state()), (1, AttemptState::Leased));
    assert!(
        task.start_attempt(&mut run, lease, at(2))
            .unwrap()
            .is_changed()
    );
    assert_eq!(task.phase(), TaskPhase::Running);

    // Rendezvous: the pick stays put when another runner goes, and moves to the other
    // eligible runner when the picked one goes.
    let mut batch = RouterBatch::new();
    batch.remove(runner_id("us-1"));
    router.apply(batch).unwrap();
    assert_eq!(router.pick(&spec, &id).unwrap().runner, pick.runner);
    let mut batch = RouterBatch::new();
    batch.remove(pick.runner.clone());
    router.apply(batch).unwrap();
    let moved = router.pick(&spec, &id).unwrap();
    assert_eq!((&moved.runner, moved.eligible), (&other, 1));

    // With no eligible runner left, the pick is a typed error whose counts say why: of the
    // two runners left, one runs subprocesses (eu-old, draining) and one matches the
    // selector (eu-wasm, wasm only), none both.
    let mut batch = RouterBatch::new();
    batch.remove(moved.runner);
    router.apply(batch).unwrap();
    let err = Error::from(router.pick(&spec, &id).unwrap_err());
    assert!(
        matches!(
            err,
            Error::Task(TaskError::NoRunner {
                runners: 2,
                supporting: 1,
                matching: 1,
                ..
            })
        ),
        "{err:?}"
    );
    assert_eq!(err.kind(), ErrorKind::Invalid);
    // Removing a runner the router does not hold is refused, and changes nothing.
    let mut batch = RouterBatch::new();
    batch.remove(pick.runner.clone());
    let err = Error::from(router.apply(batch).unwrap_err());
    assert!(err.to_string().contains("is not registered"), "{err}");
    assert_eq!(router.snapshot().len(), 2);
}

#[test]
fn two_attempts_with_a_failure_and_a_backoff_then_cancel() {
    let mut rng = SeededRandom::new(7);
    let mut task = new_task(TaskId::new("nightly-backup.1").unwrap(), spec(), at(0));
    assert_eq!(task.phase(), TaskPhase::Pending);
    assert_eq!(task.resource_version(), 1);

    assert_eq!(task.begin_attempt(Some(1), at(1)).unwrap(), 1);
    let failed = AttemptResult::new(AttemptOutcome::Failed).with_exit_code(1);
    let decision = task.end_attempt(Some(2), failed, &mut rng, at(10)).unwrap();
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
    let early = Error::from(task.begin_attempt(None, at(10)).unwrap_err());
    assert_eq!(early.kind(), ErrorKind::InvalidTransition);

    // A writer holding a stale version loses.
    let stale = Error::from(task.begin_attempt(Some(1), at(11)).unwrap_err());
    assert_eq!(stale.kind(), ErrorKind::Conflict);

    let version = task.resource_version();
    assert_eq!(task.begin_attempt(Some(version), at(11)).unwrap(), 2);
    assert_eq!(task.phase(), TaskPhase::Running);

    task.cancel(None, at(12)).unwrap();
    assert_eq!(task.phase(), TaskPhase::Canceled);
    // Nothing leaves a final phase.
    let again = Error::from(task.begin_attempt(None, at(13)).unwrap_err());
    assert_eq!(again.kind(), ErrorKind::InvalidTransition);

    // The whole task round-trips through JSON.
    let json = serde_json::to_string(&task).unwrap();
    let back: Task = serde_json::from_str(&json).unwrap();
    assert_eq!(back.phase(), TaskPhase::Canceled);
    assert_eq!(back.resource_version(), task.resource_version());
}

#[test]
fn attempts_under_leases_fail_back_off_and_end_canceled() {
    let mut rng = SeededRandom::new(7);
    let mut task = new_task(TaskId::new("nightly-backup.2").unwrap(), spec(), at(0));
    let runner = RunnerId::new("r-1").unwrap();
    let (lease1, lease2) = (LeaseId::new(1), LeaseId::new(2));

    // Attempt 1: leased, started (a repeat start changes nothing), failed.
    let mut run1 = task
        .lease_attempt(Some(1), None, runner.clone(), lease1, at(30), at(1))
        .unwrap();
    assert_eq!((run1.attempt(), run1.state()), (1, AttemptState::Leased));
    assert_eq!(task.phase(), TaskPhase::Running);
    assert_eq!(
        task.start_attempt(&mut run1, lease1, at(2)).unwrap(),
        Applied::Changed(())
    );
    assert_eq!(
        task.start_attempt(&mut run1, lease1, at(2)).unwrap(),
        Applied::Unchanged
    );
    let stranger = Error::from(task.start_attempt(&mut run1, lease2, at(2)).unwrap_err());
    assert_eq!(stranger.kind(), ErrorKind::Gone);

    let failed = AttemptResult::new(AttemptOutcome::Failed).with_exit_code(1);
    let decision = task
        .report_result(&mut run1, lease1, failed.clone(), &mut rng, at(5))
        .unwrap();
    let due = at(5) + TimeDelta::milliseconds(1_000);
    assert_eq!(
        decision,
        Applied::Changed(RestartDecision::Restart {
            retry: 1,
            delay_ms: 1_000,
            at: due
        })
    );
    assert_eq!(
        (run1.state(), run1.exit_code()),
        (AttemptState::Failed, Some(1))
    );
    assert_eq!(task.phase(), TaskPhase::Pending);
    // The same result again is an idempotent success; a different one is a conflict.
    assert_eq!(
        task.report_result(&mut run1, lease1, failed, &mut rng, at(6))
            .unwrap(),
        Applied::Unchanged
    );
    let succeeded = AttemptResult::new(AttemptOutcome::Succeeded);
    let other = task
        .report_result(&mut run1, lease1, succeeded.clone(), &mut rng, at(6))
        .unwrap_err();
    assert_eq!(Error::from(other).kind(), ErrorKind::Conflict);

    // Attempt 2 waits for the backoff.
    let early = task
        .lease_attempt(None, Some(&run1), runner.clone(), lease2, at(60), at(5))
        .unwrap_err();
    assert_eq!(Error::from(early).kind(), ErrorKind::InvalidTransition);
    let mut run2 = task
        .lease_attempt(
            Some(task.resource_version()),
            Some(&run1),
            runner,
            lease2,
            at(60),
            at(7),
        )
        .unwrap();
    assert_eq!((run2.attempt(), task.status().attempt()), (2, 2));
    assert!(
        task.start_attempt(&mut run2, lease2, at(8))
            .unwrap()
            .is_changed()
    );
    // The first attempt's lease is stale now.
    let stale = task
        .heartbeat_attempt(&mut run2, lease1, at(90), at(9))
        .unwrap_err();
    assert_eq!(Error::from(stale).kind(), ErrorKind::Gone);

    // Cancel: the run is cancelling until its runner reports; cancel intent wins.
    assert!(
        task.cancel_attempt(None, &mut run2, at(10))
            .unwrap()
            .is_changed()
    );
    assert_eq!(
        (run2.state(), run2.cancel_requested()),
        (AttemptState::Cancelling, true)
    );
    let late_success = task
        .report_result(&mut run2, lease2, succeeded, &mut rng, at(11))
        .unwrap_err();
    assert_eq!(Error::from(late_success).kind(), ErrorKind::Conflict);
    let canceled = AttemptResult::new(AttemptOutcome::Canceled).with_exit_code(143);
    let decision = task
        .report_result(&mut run2, lease2, canceled, &mut rng, at(12))
        .unwrap();
    assert_eq!(
        decision,
        Applied::Changed(RestartDecision::Final(TaskPhase::Canceled))
    );
    assert_eq!(
        (run2.state(), task.phase()),
        (AttemptState::Canceled, TaskPhase::Canceled)
    );

    // The attempts round-trip through JSON, and their leases through base 36.
    for run in [&run1, &run2] {
        let json = serde_json::to_string(run).unwrap();
        assert_eq!(&serde_json::from_str::<TaskRun>(&json).unwrap(), run);
    }
    assert_eq!(serde_json::to_value(run2.lease()).unwrap(), "2");
}

/// Twelve tasks created a second apart, in two slots, half labeled `team=infra`, a third
/// of them running.
fn fleet() -> Vec<Task> {
    (0..12)
        .map(|i| {
            let slot = if i % 2 == 0 { "nightly" } else { "hourly" };
            let team = if i % 4 < 2 { "infra" } else { "web" };
            let mode = SubprocessMode::command("/bin/true".into(), vec![]).unwrap();
            let kind = TaskKind::subprocess(mode, TaskEnv::default(), None).unwrap();
            let spec = TaskSpec::builder(slot, kind, 1_000)
                .labels(Labels::from_pairs([("team", team)]).unwrap())
                .build()
                .unwrap();
            // Ids run against creation order, so the order is not the ids' order.
            let id = TaskId::new(format!("task-{:02}", 11 - i)).unwrap();
            let mut task = new_task(id, spec, at(i));
            if i % 3 == 0 {
                task.begin_attempt(None, at(i)).unwrap();
            }
            task
        })
        .collect()
}

#[test]
fn a_query_pages_through_the_tasks_it_built() {
    let tasks = fleet();
    let selector: LabelSelector = "team=infra".parse().unwrap();
    let expected: Vec<&str> = {
        let mut wanted: Vec<&Task> = tasks
            .iter()
            .filter(|t| t.spec().labels().get("team") == Some("infra"))
            .collect();
        wanted.sort_by_key(|t| std::cmp::Reverse((t.metadata().created_at(), t.id().clone())));
        wanted.iter().map(|t| t.id().as_str()).collect()
    };
    assert_eq!(expected.len(), 6);

    let mut query = TaskQuery::builder(infra())
        .label_selector(selector)
        .order(SortOrder::Descending)
        .limit(4)
        .build()
        .unwrap();
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page: TaskPage<&Task> = query.evaluate(&tasks);
        pages += 1;
        seen.extend(page.items.iter().map(|t| t.id().as_str()));
        match page.next {
            Some(token) => query = query.with_continue(token).unwrap(),
            None => break,
        }
    }
    assert_eq!((seen, pages), (expected, 2));

    // Running tasks of one slot, from URL pairs: the filters combine.
    let query = TaskQuery::from_pairs([
        ("tenant", "infra"),
        ("slot", "nightly"),
        ("phase", "running"),
    ])
    .unwrap();
    let page = query.evaluate(&tasks);
    let ids: Vec<&str> = page.items.iter().map(|t| t.id().as_str()).collect();
    assert_eq!(ids, ["task-11", "task-05"]);

    // A token belongs to its query: used with another, it is an invalid input.
    let first = TaskQuery::builder(infra())
        .limit(1)
        .build()
        .unwrap()
        .evaluate(&tasks);
    let token = first.next.unwrap();
    let other = TaskQuery::builder(infra())
        .slot(Slot::new("hourly").unwrap())
        .build()
        .unwrap();
    let err = Error::from(other.with_continue(token).unwrap_err());
    assert!(matches!(err, Error::Query(_)));
    assert_eq!(err.kind(), ErrorKind::Invalid);

    // Another tenant lists none of these tasks, and a query must name a tenant.
    let web = TaskQuery::builder(TenantId::new("web").unwrap())
        .build()
        .unwrap();
    assert!(web.evaluate(&tasks).items.is_empty());
    let err = Error::from(TaskQuery::from_pairs([("slot", "nightly")]).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::Invalid);
    assert_eq!(err.to_string(), "tenant: required");
}
