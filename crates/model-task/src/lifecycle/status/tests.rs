//! Unit tests for `status`: `TaskStatus` reads only what the lifecycle can produce, each
//! rule at its boundary, and the error names the field and the rule.

use serde_json::{Value, json};

use super::*;

/// Parses `value` as a status; `Ok(())` or the error message.
fn parse(value: &Value) -> Result<TaskStatus, String> {
    serde_json::from_value::<TaskStatus>(value.clone()).map_err(|e| e.to_string())
}

/// The time fields every table row would otherwise repeat: `queuedAt` while pending (the
/// restart's `nextAttemptAt`, or a creation time) and `finishedAt` in a final phase, unless
/// the row gives them.
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
    value
}

#[track_caller]
fn check(value: Value, want: Result<(), &str>) {
    check_exact(timed(value), want);
}

/// `check` without the time fields filled in.
#[track_caller]
fn check_exact(value: Value, want: Result<(), &str>) {
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
               "lastDelayMs": 1000, "queuedAt": t2}),
        Ok(()),
    );
    check_exact(
        json!({"phase": "pending", "attempt": 1, "outcome": "failed", "nextAttemptAt": t2,
               "lastDelayMs": 1000, "queuedAt": t1}),
        Err("invalid queuedAt: a restart is queued at nextAttemptAt"),
    );
    check_exact(
        json!({"phase": "failed", "attempt": 1, "outcome": "failed", "finishedAt": t1}),
        Ok(()),
    );
    check_exact(
        json!({"phase": "failed", "attempt": 1, "outcome": "failed"}),
        Err("invalid finishedAt: set exactly in a final phase"),
    );
    check_exact(
        json!({"phase": "running", "attempt": 1, "finishedAt": t1}),
        Err("invalid finishedAt: set exactly in a final phase"),
    );
    let status: TaskStatus =
        serde_json::from_value(json!({"phase": "pending", "attempt": 0, "queuedAt": t1})).unwrap();
    let at = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
    assert!(!status.is_due(at("2025-01-01T00:00:00Z")));
    assert!(status.is_due(at(t1)));
    assert_eq!(status.queued_at(), Some(at(t1)));
    assert_eq!(status.finished_at(), None);
}
