//! Unit tests for `status`: `TaskStatus` reads only what the lifecycle can produce, each
//! rule at its boundary, and the error names the field and the rule.

use serde_json::{Value, json};

use super::*;
use crate::lifecycle::condition::{Conditions, Facts};

/// Parses `value` as a status; `Ok(())` or the error message.
fn parse(value: &Value) -> Result<TaskStatus, String> {
    serde_json::from_value::<TaskStatus>(value.clone()).map_err(|e| e.to_string())
}

/// The fields every table row would otherwise repeat: `queuedAt` while pending (the
/// restart's `nextAttemptAt`, or a creation time), `finishedAt` in a final phase and one
/// failure in a row after a failed outcome, unless the row gives them.
fn timed(mut value: Value) -> Value {
    let phase = value["phase"].as_str().unwrap_or_default().to_owned();
    let object = value.as_object_mut().unwrap();
    if phase == "pending" && !object.contains_key("queuedAt") {
        let queued = object
            .get("nextAttemptAt")
            .cloned()
            .unwrap_or_else(|| json!("2025-01-01T00:00:00Z"));
        object.insert("queuedAt".into(), queued);
    }
    let fin = ["succeeded", "failed", "timeout", "canceled", "exhausted"];
    if fin.contains(&phase.as_str()) && !object.contains_key("finishedAt") {
        object.insert("finishedAt".into(), json!("2025-01-01T00:00:09Z"));
    }
    let outcome = object
        .get("outcome")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let failed = ["failed", "timeout"].contains(&outcome);
    if failed && !object.contains_key("consecutiveFailures") {
        object.insert("consecutiveFailures".into(), json!(1));
    }
    value
}

/// `value` with generation 1 once an attempt started and the conditions its phase and
/// generations give, unless it has them.
fn with_conditions(mut value: Value) -> Value {
    let object = value.as_object_mut().unwrap();
    let attempt = object
        .get("attempt")
        .and_then(Value::as_u64)
        .unwrap_or_default();
    if attempt > 0 && !object.contains_key("observedGeneration") {
        object.insert("observedGeneration".into(), json!(1));
    }
    if !object.contains_key("conditions") {
        let observed = object
            .get("observedGeneration")
            .and_then(Value::as_u64)
            .unwrap_or_default();
        let phase = object.get("phase").cloned().unwrap_or_default();
        let facts = Facts {
            phase: serde_json::from_value(phase).unwrap_or(TaskPhase::Pending),
            attempt: u32::try_from(attempt).unwrap_or(u32::MAX),
            observed_generation: observed,
            generation: observed.max(1),
            queued_at: None,
        };
        let conditions = Conditions::new(&facts, "2025-01-01T00:00:00Z".parse().unwrap());
        object.insert(
            "conditions".into(),
            serde_json::to_value(&conditions).unwrap(),
        );
    }
    value
}

#[track_caller]
fn check(value: Value, want: Result<(), &str>) {
    check_exact(timed(value), want);
}

/// `check` without the time fields filled in (but with the conditions).
#[track_caller]
fn check_exact(value: Value, want: Result<(), &str>) {
    let value = with_conditions(value);
    match (parse(&value), want) {
        (Ok(status), Ok(())) => {
            let again: TaskStatus =
                serde_json::from_str(&serde_json::to_string(&status).unwrap()).unwrap();
            assert_eq!(again, status, "{value}");
        }
        (Err(err), Err(needle)) => assert!(err.contains(needle), "{value}: {err}"),
        (got, want) => panic!("{value}: got {got:?}, want {want:?}"),
    }
}

#[test]
fn what_the_lifecycle_produces_reads() {
    let at = "2025-01-01T00:00:01Z";
    check(json!({"phase": "pending", "attempt": 0}), Ok(()));
    check(json!({"phase": "running", "attempt": 1}), Ok(()));
    check(
        json!({"phase": "running", "attempt": 2, "lastDelayMs": 5}),
        Ok(()),
    );
    check(
        json!({"phase": "pending", "attempt": 1, "outcome": "failed", "exitCode": 1,
               "nextAttemptAt": at, "lastDelayMs": 1000}),
        Ok(()),
    );
    check(
        json!({"phase": "succeeded", "attempt": 1, "outcome": "succeeded", "exitCode": 0}),
        Ok(()),
    );
    check(
        json!({"phase": "exhausted", "attempt": 1, "outcome": "failed"}),
        Ok(()),
    );
    check(
        json!({"phase": "exhausted", "attempt": 3, "outcome": "timeout", "lastDelayMs": 4}),
        Ok(()),
    );
    // Canceled before any attempt, while one ran, or while waiting for a restart.
    check(json!({"phase": "canceled", "attempt": 0}), Ok(()));
    check(
        json!({"phase": "canceled", "attempt": 1, "outcome": "canceled"}),
        Ok(()),
    );
    check(
        json!({"phase": "canceled", "attempt": 2, "outcome": "failed", "exitCode": 1,
               "lastDelayMs": 9}),
        Ok(()),
    );
    // Canceled while it waited for the restart after attempt 1.
    check(
        json!({"phase": "canceled", "attempt": 1, "outcome": "failed", "lastDelayMs": 9}),
        Ok(()),
    );
}

#[test]
fn impossible_states_are_refused() {
    let at = "2025-01-01T00:00:01Z";
    // No outcome, exit code or error before any attempt started.
    check(
        json!({"phase": "succeeded", "attempt": 0, "outcome": "succeeded"}),
        Err("invalid outcome: no attempt has started"),
    );
    check(
        json!({"phase": "failed", "attempt": 0, "outcome": "failed"}),
        Err("invalid outcome: no attempt has started"),
    );
    check(
        json!({"phase": "canceled", "attempt": 0, "outcome": "succeeded", "exitCode": 3}),
        Err("invalid outcome: no attempt has started"),
    );
    check(
        json!({"phase": "timeout", "attempt": 0}),
        Err("invalid outcome: a final attempt phase needs the matching outcome"),
    );
    // A canceled task that ran says how its last attempt ended.
    check(
        json!({"phase": "canceled", "attempt": 3}),
        Err("invalid outcome: a canceled task that ran has its last attempt's outcome"),
    );
    check(
        json!({"phase": "canceled", "attempt": 1, "exitCode": 1}),
        Err("exitCode and error need an outcome"),
    );
    // The delay of a restart exists only once a restart was scheduled.
    check(
        json!({"phase": "pending", "attempt": 0, "lastDelayMs": 5}),
        Err("invalid lastDelayMs: no restart was scheduled"),
    );
    check(
        json!({"phase": "canceled", "attempt": 0, "lastDelayMs": 0}),
        Err("invalid lastDelayMs: no restart was scheduled"),
    );
    check(
        json!({"phase": "running", "attempt": 1, "lastDelayMs": 5}),
        Err("invalid lastDelayMs: no restart was scheduled"),
    );
    check(
        json!({"phase": "failed", "attempt": 1, "outcome": "failed", "lastDelayMs": 5}),
        Err("invalid lastDelayMs: no restart was scheduled"),
    );
    check(
        json!({"phase": "canceled", "attempt": 1, "outcome": "canceled", "lastDelayMs": 5}),
        Err("invalid lastDelayMs: no restart was scheduled"),
    );
    // A canceled attempt is never restarted.
    check(
        json!({"phase": "pending", "attempt": 1, "outcome": "canceled", "nextAttemptAt": at,
               "lastDelayMs": 5}),
        Err("invalid outcome: a canceled attempt is never restarted"),
    );
}

#[test]
fn queued_and_finished_times_follow_the_phase() {
    let (t1, t2) = ("2025-01-01T00:00:01Z", "2025-01-01T00:00:02Z");
    check_exact(
        json!({"phase": "pending", "attempt": 0, "queuedAt": t1}),
        Ok(()),
    );
    check_exact(
        json!({"phase": "pending", "attempt": 0}),
        Err("invalid queuedAt: set exactly while pending"),
    );
    check_exact(
        json!({"phase": "running", "attempt": 1, "queuedAt": t1}),
        Err("invalid queuedAt: set exactly while pending"),
    );
    check_exact(
        json!({"phase": "pending", "attempt": 1, "outcome": "failed", "nextAttemptAt": t2,
               "lastDelayMs": 1000, "queuedAt": t2, "consecutiveFailures": 1}),
        Ok(()),
    );
    check_exact(
        json!({"phase": "pending", "attempt": 1, "outcome": "failed", "nextAttemptAt": t2,
               "lastDelayMs": 1000, "queuedAt": t1, "consecutiveFailures": 1}),
        Err("invalid queuedAt: a restart is queued at nextAttemptAt"),
    );
    check_exact(
        json!({"phase": "failed", "attempt": 1, "outcome": "failed", "finishedAt": t1,
               "consecutiveFailures": 1}),
        Ok(()),
    );
    check_exact(
        json!({"phase": "failed", "attempt": 1, "outcome": "failed", "consecutiveFailures": 1}),
        Err("invalid finishedAt: set exactly in a final phase"),
    );
    check_exact(
        json!({"phase": "running", "attempt": 1, "finishedAt": t1}),
        Err("invalid finishedAt: set exactly in a final phase"),
    );
    let status: TaskStatus = serde_json::from_value(with_conditions(
        json!({"phase": "pending", "attempt": 0, "queuedAt": t1}),
    ))
    .unwrap();
    let at = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
    assert!(!status.is_due(at("2025-01-01T00:00:00Z")));
    assert!(status.is_due(at(t1)));
    assert_eq!(status.queued_at(), Some(at(t1)));
    assert_eq!(status.finished_at(), None);
}

#[test]
fn failures_in_a_row_agree_with_the_attempts_and_the_outcome() {
    let t1 = "2025-01-01T00:00:01Z";
    let waiting = |outcome: &str, failures: u32| {
        json!({"phase": "pending", "attempt": 3, "outcome": outcome, "nextAttemptAt": t1,
               "lastDelayMs": 5, "consecutiveFailures": failures})
    };
    check(waiting("failed", 1), Ok(()));
    check(waiting("timeout", 3), Ok(()));
    check(
        waiting("failed", 4),
        Err("invalid consecutiveFailures: more failures in a row than attempts that ended"),
    );
    check(
        waiting("failed", 0),
        Err("invalid consecutiveFailures: a failure counts"),
    );
    check(waiting("succeeded", 0), Ok(()));
    check(
        waiting("succeeded", 1),
        Err("invalid consecutiveFailures: a success starts the count again"),
    );
    // While attempt 3 runs, at most attempts 1 and 2 failed.
    check(
        json!({"phase": "running", "attempt": 3, "lastDelayMs": 5, "consecutiveFailures": 2}),
        Ok(()),
    );
    check(
        json!({"phase": "running", "attempt": 3, "lastDelayMs": 5, "consecutiveFailures": 3}),
        Err("more failures in a row than attempts that ended"),
    );
    let status = parse(&with_conditions(timed(waiting("timeout", 2)))).unwrap();
    assert_eq!(status.consecutive_failures(), 2);
    assert_eq!(
        status.restart_history(),
        RestartHistory {
            attempts: 3,
            failures_in_a_row: 2,
            last_delay_ms: Some(5)
        }
    );
}

#[test]
fn the_observed_generation_is_set_from_the_first_attempt_on() {
    check(
        json!({"phase": "running", "attempt": 1, "observedGeneration": 3}),
        Ok(()),
    );
    check(
        json!({"phase": "running", "attempt": 1, "observedGeneration": 0}),
        Err("invalid observedGeneration: set from the first attempt on"),
    );
    check(
        json!({"phase": "pending", "attempt": 0, "observedGeneration": 1}),
        Err("invalid observedGeneration: set from the first attempt on"),
    );
}

#[test]
fn running_and_succeeded_conditions_follow_the_phase() {
    let mut value = with_conditions(timed(json!({"phase": "running", "attempt": 1})));
    check_exact(value.clone(), Ok(()));
    // Running says True; make it False.
    value["conditions"][1]["status"] = json!("False");
    check_exact(
        value.clone(),
        Err("invalid conditions[1].status: the condition disagrees"),
    );
    value["conditions"][1]["status"] = json!("True");
    value["conditions"][2]["status"] = json!("True");
    check_exact(value, Err("invalid conditions[2].status"));
    let status = parse(&with_conditions(timed(
        json!({"phase": "running", "attempt": 2}),
    )))
    .unwrap();
    assert_eq!(
        status.condition(ConditionType::Running).status(),
        crate::lifecycle::ConditionStatus::True
    );
    assert_eq!(status.conditions().map(Condition::kind), ConditionType::ALL);
}
