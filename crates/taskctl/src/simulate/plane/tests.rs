#![allow(clippy::unwrap_used, reason = "tests fail on any error")]

use taskmodel::fleet::KindSet;
use taskmodel::selector::Labels;
use taskmodel::task::{AttemptOutcome, TaskSpec};
use taskmodel::{AttemptState, TaskPhase};

use super::*;

/// A spec in `slot` with `priority`, runner selector `selector`, retried once after 100 ms.
fn spec(slot: &str, priority: i32, selector: &str) -> TaskSpec {
    serde_json::from_str(&format!(
        r#"{{"slot": "{slot}", "kind": {{"type": "subprocess", "mode": {{"type": "command", "command": "/bin/true"}}}},
            "timeoutMs": 5000, "restart": "onFailure", "maxRetries": 1, "priority": {priority},
            "backoff": {{"jitter": "none", "firstMs": 100, "maxMs": 100, "factor": 1.0}},
            "runnerSelector": {selector}}}"#
    ))
    .unwrap()
}

fn plane() -> MemoryPlane {
    let mut plane = MemoryPlane::new(TenantId::new("t").unwrap(), SeededRandom::new(0));
    for (name, zone, capacity) in [("eu-1", "eu", 1), ("us-1", "us", 2)] {
        let runner = Runner::builder(RunnerId::new(name).unwrap(), KindSet::ALL)
            .labels(Labels::from_pairs([("zone", zone)]).unwrap())
            .max_concurrent(capacity)
            .build()
            .unwrap();
        plane.register(runner, instant(0)).unwrap();
    }
    plane
}

fn submit(plane: &mut MemoryPlane, name: &str, spec: TaskSpec) {
    let manifest = TaskManifest::named(TaskId::new(name).unwrap(), spec);
    plane.submit(manifest, instant(0)).unwrap();
}

fn claimed(plane: &mut MemoryPlane, runner: &str, at: Millis) -> Option<String> {
    plane
        .claim(&RunnerId::new(runner).unwrap(), 1_000, instant(at))
        .unwrap()
        .map(|claim| claim.task.to_string())
}

#[test]
fn claims_follow_priority_then_queue_time_then_name_among_eligible_tasks() {
    let mut plane = plane();
    let any = "{}";
    let eu = r#"{"matchLabels": {"zone": "eu"}}"#;
    submit(&mut plane, "b-low", spec("b", 0, any));
    submit(&mut plane, "a-low", spec("a", 0, any));
    submit(&mut plane, "eu-high", spec("e", 5, eu));
    // us-1 may not take eu-high: it takes the first of the rest, by name at equal times.
    assert_eq!(claimed(&mut plane, "us-1", 0).as_deref(), Some("a-low"));
    assert_eq!(claimed(&mut plane, "eu-1", 0).as_deref(), Some("eu-high"));
    assert_eq!(claimed(&mut plane, "us-1", 0).as_deref(), Some("b-low"));
    submit(&mut plane, "c-low", spec("c", 0, any));
    assert_eq!(
        claimed(&mut plane, "us-1", 0),
        None,
        "us-1 runs two at most"
    );
    assert_eq!(
        claimed(&mut plane, "eu-1", 0),
        None,
        "eu-1 runs one at most"
    );
    assert_eq!(
        claimed(&mut plane, "nobody", 0),
        None,
        "an unknown runner takes nothing"
    );
}

#[test]
fn one_task_runs_at_a_time_in_a_slot_as_in_the_store() {
    let mut plane = plane();
    let any = "{}";
    submit(&mut plane, "first", spec("lane", 0, any));
    submit(&mut plane, "second", spec("lane", 0, any));
    submit(&mut plane, "other", spec("other", 0, any));
    assert_eq!(claimed(&mut plane, "us-1", 0).as_deref(), Some("first"));
    // The slot is busy: the next in queue order that may run is in another slot.
    assert_eq!(claimed(&mut plane, "us-1", 0).as_deref(), Some("other"));
    assert_eq!(
        claimed(&mut plane, "eu-1", 0),
        None,
        "second waits for its slot"
    );
    let first = TaskId::new("first").unwrap();
    let lease = plane.observe(&first).unwrap().attempts[0].lease();
    let _ = plane.start(&first, lease, instant(10)).unwrap();
    let done = AttemptResult::new(AttemptOutcome::Succeeded).with_exit_code(0);
    let _ = plane.finish(&first, lease, done, instant(20)).unwrap();
    assert_eq!(claimed(&mut plane, "eu-1", 20).as_deref(), Some("second"));
}

#[test]
fn a_failed_attempt_waits_its_backoff_then_is_queued_again() {
    let mut plane = plane();
    submit(&mut plane, "job", spec("job", 0, "{}"));
    let id = TaskId::new("job").unwrap();
    let claim = plane
        .claim(&RunnerId::new("eu-1").unwrap(), 1_000, instant(0))
        .unwrap()
        .unwrap();
    assert_eq!(plane.next_expiry(), Some(instant(1_000)));
    assert!(
        plane
            .start(&id, claim.lease, instant(10))
            .unwrap()
            .is_changed()
    );
    let failed = AttemptResult::new(AttemptOutcome::Failed);
    let decision = plane.finish(&id, claim.lease, failed, instant(20)).unwrap();
    assert!(matches!(
        decision,
        Applied::Changed(RestartDecision::Restart { .. })
    ));
    assert_eq!(plane.next_expiry(), None, "no live lease");
    assert_eq!(plane.next_due(), Some(instant(120)));
    assert_eq!(plane.release_due(instant(119)), 0);
    assert_eq!(claimed(&mut plane, "eu-1", 119), None, "not due yet");
    assert_eq!(plane.release_due(instant(120)), 1);
    assert_eq!(plane.next_due(), None);
    assert_eq!(claimed(&mut plane, "us-1", 120).as_deref(), Some("job"));
    let observed = plane.observe(&id).unwrap();
    assert_eq!(observed.task.status().attempt(), 2);
    let states: Vec<AttemptState> = observed.attempts.iter().map(TaskRun::state).collect();
    assert_eq!(states, [AttemptState::Failed, AttemptState::Leased]);
}

#[test]
fn the_reaper_ends_exactly_the_leases_expired_by_now() {
    let mut plane = plane();
    submit(&mut plane, "one", spec("one", 0, "{}"));
    submit(&mut plane, "two", spec("two", 0, "{}"));
    let first = plane
        .claim(&RunnerId::new("eu-1").unwrap(), 1_000, instant(0))
        .unwrap()
        .unwrap();
    plane
        .claim(&RunnerId::new("us-1").unwrap(), 1_000, instant(500))
        .unwrap()
        .unwrap();
    assert!(plane.reap(instant(999)).unwrap().is_empty());
    let reaped = plane.reap(instant(1_000)).unwrap();
    assert_eq!(reaped.len(), 1);
    assert_eq!(reaped.first().unwrap().task, first.task);
    assert_eq!(plane.next_expiry(), Some(instant(1_500)));
    let one = plane.observe(&first.task).unwrap();
    assert_eq!(
        one.task.phase(),
        TaskPhase::Pending,
        "retried after its backoff"
    );
    assert_eq!(one.attempts.last().unwrap().state(), AttemptState::Expired);
    // A task submitted twice is refused.
    let again = TaskManifest::named(TaskId::new("one").unwrap(), spec("one", 0, "{}"));
    assert!(matches!(
        plane.submit(again, instant(0)),
        Err(PlaneError::Duplicate("task", _))
    ));
}

/// Cancels a queued task and a running one on `plane`: what each step answered and left.
fn cancel_steps<P: ControlPlane>(plane: &mut P) -> Vec<String> {
    let runner = Runner::builder(RunnerId::new("eu-1").unwrap(), KindSet::ALL)
        .build()
        .unwrap();
    plane.register(runner, instant(0)).unwrap();
    for (name, slot) in [("busy", "a"), ("queued", "b")] {
        let manifest = TaskManifest::named(TaskId::new(name).unwrap(), spec(slot, 0, "{}"));
        plane.submit(manifest, instant(0)).unwrap();
    }
    let (busy, queued) = (TaskId::new("busy").unwrap(), TaskId::new("queued").unwrap());
    let claim = plane
        .claim(&RunnerId::new("eu-1").unwrap(), 1_000, instant(0))
        .unwrap()
        .unwrap();
    assert_eq!(claim.task, busy);
    assert!(
        plane
            .start(&busy, claim.lease, instant(1))
            .unwrap()
            .is_changed()
    );
    let state = |plane: &P, task: &TaskId| {
        let observed = plane.observe(task).unwrap();
        let attempt = observed.attempts.last().map(|run| run.state().as_str());
        format!("{} {attempt:?}", observed.task.phase().as_str())
    };
    let mut steps = Vec::new();
    let applied = plane.cancel(&queued, instant(2)).unwrap();
    steps.push(format!("{applied:?} {}", state(plane, &queued)));
    let applied = plane.cancel(&busy, instant(3)).unwrap();
    steps.push(format!("{applied:?} {}", state(plane, &busy)));
    let again = plane.cancel(&busy, instant(4)).unwrap();
    steps.push(format!("{again:?} {}", state(plane, &busy)));
    let beat = plane
        .heartbeat(&busy, claim.lease, 1_000, instant(5))
        .unwrap();
    steps.push(format!("cancelling {}", beat.cancelling));
    let failed = AttemptResult::new(AttemptOutcome::Failed);
    let refused = plane
        .finish(&busy, claim.lease, failed, instant(6))
        .unwrap_err();
    steps.push(format!("gone {}", refused.is_gone()));
    let canceled = AttemptResult::new(AttemptOutcome::Canceled);
    let ended = plane
        .finish(&busy, claim.lease, canceled, instant(7))
        .unwrap();
    steps.push(format!("{ended:?} {}", state(plane, &busy)));
    steps
}

#[test]
fn a_cancel_ends_a_queued_task_at_once_and_a_running_one_when_its_runner_reports() {
    let expected = [
        r#"Changed(()) canceled None"#,
        r#"Changed(()) running Some("cancelling")"#,
        r#"Unchanged running Some("cancelling")"#,
        "cancelling true",
        "gone false",
        r#"Changed(Final(Canceled)) canceled Some("canceled")"#,
    ];
    let tenant = || TenantId::new("t").unwrap();
    let mut memory = MemoryPlane::new(tenant(), SeededRandom::new(0));
    assert_eq!(cancel_steps(&mut memory), expected, "memory");
    let mut store = StorePlane::open(None, tenant(), SeededRandom::new(0)).unwrap();
    assert_eq!(cancel_steps(&mut store), expected, "sqlite");
}
