//! Unit tests of `convert`: each model type's view, state by state, and a collection over
//! views made from them.

use chrono::{DateTime, TimeDelta, Utc};
use model_ids::{ActionId, RunnerId, ScheduleId, TaskId, TenantId};
use model_policy::SeededRandom;
use model_schedule::{Action, Schedule};
use model_task::task::{ManifestMeta, TaskManifest};
use model_task::{AttemptOutcome, AttemptResult, LeaseId, TaskSpec};

use super::*;
use crate::collect::{DeleteReason, collect};
use model_task::task::OwnerKind;

fn now() -> DateTime<Utc> {
    "2026-11-22T02:00:00Z".parse().unwrap()
}

fn acme() -> TenantId {
    TenantId::new("acme").unwrap()
}

fn schedule() -> Schedule {
    serde_json::from_str(
        r#"{"name": "nightly", "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m.wasm"}, "timeoutMs": 1000}, "trigger": {"cron": "0 2 * * *"}}"#,
    )
    .unwrap()
}

/// Action `n`, due `n` hours before now, moved on to `state` at its due time plus a minute.
fn action(n: u128, state: ActionState) -> Action {
    let due = now() - TimeDelta::hours(n as i64);
    let done = due + TimeDelta::minutes(1);
    let mut action = Action::scheduled(ActionId::from_u128(n), "nightly", due, None, due).unwrap();
    if state != ActionState::Pending {
        action.start(due).unwrap();
    }
    match state {
        ActionState::Completed => action.complete(serde_json::json!({}), done).unwrap(),
        ActionState::Failed => action.fail("boom", done).unwrap(),
        _ => {}
    }
    action
}

fn owner() -> OwnerReference {
    OwnerReference::new(OwnerKind::Schedule, "nightly", Uid::from_u128(1000))
        .unwrap()
        .controlling()
}

#[test]
fn a_schedule_is_active_until_it_ended() {
    let active =
        OwnedResource::from_schedule(&schedule(), acme(), Uid::from_u128(1000), None).unwrap();
    assert_eq!(active.kind(), ResourceKind::Schedule);
    assert_eq!(active.name(), ScheduleId::new("nightly").unwrap().as_str());
    assert_eq!(active.uid(), Some(Uid::from_u128(1000)));
    assert_eq!(active.lifecycle(), Lifecycle::Draft);
    let ended =
        OwnedResource::from_schedule(&schedule(), acme(), Uid::from_u128(1000), Some(now()))
            .unwrap();
    assert_eq!(
        ended.lifecycle(),
        Lifecycle::sealed(now(), Outcome::Succeeded)
    );
}

#[test]
fn an_action_is_sealed_when_it_ended() {
    let minute = TimeDelta::minutes(1);
    let cases = [
        (ActionState::Pending, Lifecycle::Draft),
        (ActionState::Running, Lifecycle::Draft),
        (
            ActionState::Completed,
            Lifecycle::sealed(now() - TimeDelta::hours(3) + minute, Outcome::Succeeded),
        ),
        (
            ActionState::Failed,
            Lifecycle::sealed(now() - TimeDelta::hours(3) + minute, Outcome::Failed),
        ),
    ];
    for (state, lifecycle) in cases {
        let action = action(3, state);
        let view = OwnedResource::from_action(&action, acme(), owner()).unwrap();
        assert_eq!(view.lifecycle(), lifecycle, "{state:?}");
        assert_eq!(view.name(), action.id().to_string());
        assert_eq!(
            view.uid().map(|uid| *uid.as_bytes()),
            Some(*action.id().as_bytes())
        );
        assert_eq!(view.controller(), Some(&owner()));
    }
}

#[test]
fn a_schedule_keeps_its_newest_actions() {
    let mut views = vec![
        OwnedResource::from_schedule(&schedule(), acme(), Uid::from_u128(1000), None).unwrap(),
    ];
    for n in 1..=5 {
        views.push(
            OwnedResource::from_action(&action(n, ActionState::Completed), acme(), owner())
                .unwrap(),
        );
    }
    views.push(
        OwnedResource::from_action(&action(6, ActionState::Running), acme(), owner()).unwrap(),
    );
    let collection = collect(now(), &views);
    let deleted: Vec<(usize, DeleteReason)> = collection
        .deletions()
        .iter()
        .map(|d| (d.index(), d.reason()))
        .collect();
    // CronJob's three newest succeeded stay (actions 1 to 3); 4 and 5 go; 6 runs.
    assert_eq!(
        deleted,
        [
            (4, DeleteReason::HistoryLimit),
            (5, DeleteReason::HistoryLimit)
        ]
    );
}

/// A task `etl.load` of tenant acme with uid 2, owned by the flow `etl` (uid 1), created at
/// now; it restarts on failure when `restart` says so, and keeps an hour after finishing.
fn task(restart: &str) -> Task {
    let spec: TaskSpec = serde_json::from_str(&format!(
        r#"{{"slot": "etl", "kind": {{"type": "wasm", "module": "load.wasm"}}, "timeoutMs": 60000,
            "restart": "{restart}", "backoff": {{"jitter": "none", "firstMs": 1000, "maxMs": 1000, "factor": 1.0}},
            "ttlAfterFinishedMs": 3600000}}"#
    ))
    .unwrap();
    let flow = OwnerReference::new(OwnerKind::Flow, "etl", Uid::from_u128(1))
        .unwrap()
        .controlling();
    let meta = ManifestMeta::new(TaskId::new("etl.load").unwrap())
        .with_owner_references(vec![flow])
        .unwrap();
    Task::create(
        TaskManifest::new(meta, spec),
        acme(),
        Uid::from_u128(2),
        now(),
    )
    .unwrap()
}

/// What happens to a task and its first attempt, a minute apart from now on.
#[derive(Debug, Clone, Copy)]
enum Step {
    Lease,
    Start,
    End(AttemptOutcome),
    Cancel,
}

/// `task` after `steps`, and its first attempt if it was leased.
fn run(mut task: Task, steps: &[Step]) -> (Task, Option<TaskRun>) {
    let mut rng = SeededRandom::new(7);
    let lease = LeaseId::new(1);
    let mut attempt = None;
    for (minute, step) in (1..).zip(steps) {
        let at = now() + TimeDelta::minutes(minute);
        match *step {
            Step::Lease => {
                let runner = RunnerId::new("r-1").unwrap();
                let expires = at + TimeDelta::hours(1);
                attempt = Some(
                    task.lease_attempt(None, None, runner, lease, expires, at)
                        .unwrap(),
                );
            }
            Step::Start => {
                let run = attempt.as_mut().unwrap();
                assert!(task.start_attempt(run, lease, at).unwrap().is_changed());
            }
            Step::End(outcome) => {
                let result = AttemptResult::new(outcome);
                let run = attempt.as_mut().unwrap();
                let applied = task
                    .report_result(run, lease, result, &mut rng, at)
                    .unwrap();
                assert!(applied.is_changed());
            }
            Step::Cancel => task.cancel(None, at).unwrap(),
        }
    }
    (task, attempt)
}

#[test]
fn a_task_is_active_until_its_final_phase() {
    use AttemptOutcome::{Failed, Succeeded};
    use Step::{Cancel, End, Lease, Start};
    let minute = |n| now() + TimeDelta::minutes(n);
    let sealed = |n, outcome| Lifecycle::sealed(minute(n), outcome);
    let cases: [(&str, &str, &[Step], Lifecycle); 7] = [
        ("pending", "never", &[], Lifecycle::Draft),
        ("leased", "never", &[Lease], Lifecycle::Draft),
        ("running", "never", &[Lease, Start], Lifecycle::Draft),
        (
            "succeeded",
            "never",
            &[Lease, Start, End(Succeeded)],
            sealed(3, Outcome::Succeeded),
        ),
        (
            "failed",
            "never",
            &[Lease, Start, End(Failed)],
            sealed(3, Outcome::Failed),
        ),
        (
            "failed, a restart due",
            "onFailure",
            &[Lease, Start, End(Failed)],
            Lifecycle::Draft,
        ),
        (
            "canceled while pending",
            "never",
            &[Cancel],
            sealed(1, Outcome::Failed),
        ),
    ];
    for (what, restart, steps, lifecycle) in cases {
        let (task, _) = run(task(restart), steps);
        let view = OwnedResource::from_task(&task).unwrap();
        assert_eq!(view.lifecycle(), lifecycle, "{what}");
        assert_eq!(view.kind(), ResourceKind::Task, "{what}");
        assert_eq!(view.tenant(), &acme(), "{what}");
        assert_eq!(view.name(), "etl.load", "{what}");
        assert_eq!(view.uid(), Some(Uid::from_u128(2)), "{what}");
        assert_eq!(
            view.owner_references(),
            task.metadata().owner_references(),
            "{what}"
        );
        assert_eq!(view.ttl_after_finished_ms(), Some(3_600_000), "{what}");
    }
}

#[test]
fn an_attempt_is_active_while_it_holds_its_lease() {
    use AttemptOutcome::{Canceled, Failed, Succeeded};
    use Step::{End, Lease, Start};
    let sealed = |outcome| Lifecycle::sealed(now() + TimeDelta::minutes(3), outcome);
    let cases: [(&str, &[Step], Lifecycle); 5] = [
        ("leased", &[Lease], Lifecycle::Draft),
        ("running", &[Lease, Start], Lifecycle::Draft),
        (
            "succeeded",
            &[Lease, Start, End(Succeeded)],
            sealed(Outcome::Succeeded),
        ),
        (
            "failed",
            &[Lease, Start, End(Failed)],
            sealed(Outcome::Failed),
        ),
        (
            "canceled",
            &[Lease, Start, End(Canceled)],
            sealed(Outcome::Failed),
        ),
    ];
    for (what, steps, lifecycle) in cases {
        // A restart after a failure leaves the task pending; the attempt is over all the same.
        let (task, attempt) = run(task("onFailure"), steps);
        let view = OwnedResource::from_attempt(&attempt.unwrap(), &task).unwrap();
        assert_eq!(view.lifecycle(), lifecycle, "{what}");
        assert_eq!(view.kind(), ResourceKind::Attempt, "{what}");
        assert_eq!(view.name(), "etl.load/1", "{what}");
        assert_eq!(view.uid(), None, "{what}");
        let owner = view.controller().unwrap();
        assert_eq!(
            (owner.kind(), owner.name(), owner.uid()),
            (OwnerKind::Task, "etl.load", Uid::from_u128(2)),
            "{what}"
        );
    }
}

#[test]
fn an_attempt_is_seen_with_its_own_task() {
    let (_, attempt) = run(task("never"), &[Step::Lease]);
    let spec = task("never").spec().clone();
    let manifest = TaskManifest::named(TaskId::new("other").unwrap(), spec);
    let other = Task::create(manifest, acme(), Uid::from_u128(3), now()).unwrap();
    let err = OwnedResource::from_attempt(&attempt.unwrap(), &other).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid taskId \"etl.load\": an attempt's view is built with its own task"
    );
}

#[test]
fn a_finished_task_goes_after_its_attempts_once_its_time_to_live_ran_out() {
    use Step::{End, Lease, Start};
    let (task, attempt) = run(
        task("never"),
        &[Lease, Start, End(AttemptOutcome::Succeeded)],
    );
    // The flow that owns the task finished too, and is kept a day by default.
    let done = Lifecycle::sealed(now() + TimeDelta::minutes(3), Outcome::Succeeded);
    let flow = OwnedResource::builder(ResourceKind::Flow, acme(), "etl", done)
        .uid(Uid::from_u128(1))
        .build()
        .unwrap();
    let views = [
        flow,
        OwnedResource::from_task(&task).unwrap(),
        OwnedResource::from_attempt(&attempt.unwrap(), &task).unwrap(),
    ];
    let names = |at| -> Vec<String> {
        collect(at, &views)
            .deletions()
            .iter()
            .map(|d| views[d.index()].name().to_owned())
            .collect()
    };
    // Sealed at minute 3, an hour to live: kept until then, and the attempt goes first.
    let expiry = now() + TimeDelta::minutes(63);
    assert!(names(expiry - TimeDelta::milliseconds(1)).is_empty());
    assert_eq!(names(expiry), ["etl.load/1", "etl.load"]);
}

/// The flow `etl` with two jobs, `extract` then `load`, keeping its run `ttl` if given.
fn flow(ttl: Option<u64>) -> model_flow::FlowSpec {
    let job = |name: &str, deps: &str| {
        format!(
            r#"{{"name": "{name}", "dependsOn": [{deps}],
                "spec": {{"slot": "etl", "kind": {{"type": "wasm", "module": "m.wasm"}}, "timeoutMs": 1000}}}}"#
        )
    };
    let ttl = ttl.map_or(String::new(), |ms| {
        format!(r#""ttlAfterFinishedMs": {ms},"#)
    });
    serde_json::from_str(&format!(
        r#"{{"name": "etl", {ttl} "jobs": [{}, {}]}}"#,
        job("extract", ""),
        job("load", r#""extract""#)
    ))
    .unwrap()
}

#[test]
fn a_flow_is_active_until_its_run_is_done_and_keeps_its_own_time_to_live() {
    use model_flow::FlowRun;
    use model_task::{RestartDecision, TaskPhase};
    let end = |run: &mut FlowRun, job: &str, phase| {
        run.start(job).unwrap();
        run.end_attempt(job, RestartDecision::Final(phase), None)
            .unwrap();
    };
    let spec = flow(Some(7_200_000));
    let fresh = FlowRun::new(&spec);
    let mut running = FlowRun::new(&spec);
    running.start("extract").unwrap();
    let mut succeeded = FlowRun::new(&spec);
    end(&mut succeeded, "extract", TaskPhase::Succeeded);
    end(&mut succeeded, "load", TaskPhase::Succeeded);
    // Under failFast, load is skipped once extract fails: every job is final.
    let mut failed = FlowRun::new(&spec);
    end(&mut failed, "extract", TaskPhase::Failed);
    let mut canceled = FlowRun::new(&spec);
    canceled.cancel();
    let cases = [
        ("fresh", &fresh, Some(now()), Lifecycle::Draft),
        ("running", &running, Some(now()), Lifecycle::Draft),
        ("done, no end recorded", &succeeded, None, Lifecycle::Draft),
        (
            "succeeded",
            &succeeded,
            Some(now()),
            Lifecycle::sealed(now(), Outcome::Succeeded),
        ),
        (
            "failed",
            &failed,
            Some(now()),
            Lifecycle::sealed(now(), Outcome::Failed),
        ),
        (
            "canceled",
            &canceled,
            Some(now()),
            Lifecycle::sealed(now(), Outcome::Failed),
        ),
    ];
    for (what, run, ended_at, lifecycle) in cases {
        let view =
            OwnedResource::from_flow(&spec, run, acme(), Uid::from_u128(1), ended_at).unwrap();
        assert_eq!(view.lifecycle(), lifecycle, "{what}");
        assert_eq!(view.kind(), ResourceKind::Flow, "{what}");
        assert_eq!((view.tenant(), view.name()), (&acme(), "etl"), "{what}");
        assert_eq!(view.uid(), Some(Uid::from_u128(1)), "{what}");
        assert_eq!(view.ttl_after_finished_ms(), Some(7_200_000), "{what}");
        assert!(view.owner_references().is_empty(), "{what}");
    }
    // Without its own time to live, the view has none: the policy's rule for flows decides.
    let plain = flow(None);
    let view = OwnedResource::from_flow(
        &plain,
        &FlowRun::new(&plain),
        acme(),
        Uid::from_u128(1),
        None,
    )
    .unwrap();
    assert_eq!(view.ttl_after_finished_ms(), None);
}

#[test]
fn a_flow_is_seen_with_its_own_run() {
    let other: model_flow::FlowSpec = serde_json::from_str(
        r#"{"name": "other", "jobs": [{"name": "a", "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m.wasm"}, "timeoutMs": 1000}}]}"#,
    )
    .unwrap();
    let run = model_flow::FlowRun::new(&other);
    let err =
        OwnedResource::from_flow(&flow(None), &run, acme(), Uid::from_u128(1), None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid flow \"other\": a flow's view is built with a run of that flow"
    );
}

#[test]
fn a_schedule_brings_its_own_history_limits() {
    let with = |limits: &str| -> Schedule {
        let json = serde_json::to_string(&schedule()).unwrap();
        serde_json::from_str(&json.replacen('{', &format!("{{{limits}"), 1)).unwrap()
    };
    let cases = [
        ("", None),
        (
            r#""successfulHistoryLimit": 1, "failedHistoryLimit": 0,"#,
            Some((1, 0)),
        ),
        (r#""failedHistoryLimit": 4,"#, Some((3, 4))),
        (r#""successfulHistoryLimit": 10000,"#, Some((10_000, 1))),
    ];
    for (limits, want) in cases {
        let view = OwnedResource::from_schedule(&with(limits), acme(), Uid::from_u128(1000), None)
            .unwrap();
        let got = view.history().map(|h| (h.succeeded(), h.failed()));
        assert_eq!(got, want, "{limits}");
    }

    // Keeping one succeeded run instead of the policy's three: of five completed actions
    // only the newest stays.
    let mut views = vec![
        OwnedResource::from_schedule(
            &with(r#""successfulHistoryLimit": 1,"#),
            acme(),
            Uid::from_u128(1000),
            None,
        )
        .unwrap(),
    ];
    for n in 1..=5 {
        views.push(
            OwnedResource::from_action(&action(n, ActionState::Completed), acme(), owner())
                .unwrap(),
        );
    }
    let deleted: Vec<usize> = collect(now(), &views)
        .deletions()
        .iter()
        .map(|d| d.index())
        .collect();
    assert_eq!(deleted, [2, 3, 4, 5]);
}
