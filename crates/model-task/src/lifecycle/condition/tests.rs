//! Unit tests for conditions: what each says for each phase and generation, transition
//! times that move only when a status flips, reasons and sizes at their bounds, and lists
//! that hold each type once.

use chrono::{TimeDelta, TimeZone};
use serde_json::json;

use super::*;

fn t(secs: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap() + TimeDelta::seconds(secs)
}

fn facts(phase: TaskPhase, attempt: u32, observed: u64, generation: u64) -> Facts {
    Facts {
        phase,
        attempt,
        observed_generation: observed,
        generation,
        queued_at: (phase == TaskPhase::Pending).then(|| t(5)),
    }
}

fn statuses(conditions: &Conditions) -> [(ConditionStatus, &str); 3] {
    conditions.as_array().map(|c| (c.status, c.reason.as_str()))
}

#[test]
fn each_condition_follows_the_phase_and_the_generations() {
    use ConditionStatus::{False, True, Unknown};
    use TaskPhase::*;
    let table = [
        (
            facts(Pending, 0, 0, 1),
            [(False, "Queued"), (False, "Queued"), (Unknown, "NotEnded")],
        ),
        (
            facts(Pending, 0, 0, 3),
            [(False, "Queued"), (False, "Queued"), (Unknown, "NotEnded")],
        ),
        (
            facts(Running, 1, 1, 1),
            [
                (True, "AttemptLeased"),
                (True, "AttemptActive"),
                (Unknown, "NotEnded"),
            ],
        ),
        (
            facts(Running, 2, 1, 2),
            [
                (False, "SpecChanged"),
                (True, "AttemptActive"),
                (Unknown, "NotEnded"),
            ],
        ),
        (
            facts(Pending, 2, 2, 2),
            [
                (True, "AttemptLeased"),
                (False, "RestartScheduled"),
                (Unknown, "NotEnded"),
            ],
        ),
        (
            facts(Pending, 2, 1, 2),
            [
                (False, "SpecChanged"),
                (False, "RestartScheduled"),
                (Unknown, "NotEnded"),
            ],
        ),
        (
            facts(Succeeded, 1, 1, 1),
            [
                (True, "AttemptLeased"),
                (False, "Ended"),
                (True, "Succeeded"),
            ],
        ),
        (
            facts(Failed, 1, 1, 1),
            [(True, "AttemptLeased"), (False, "Ended"), (False, "Failed")],
        ),
        (
            facts(Timeout, 1, 1, 1),
            [
                (True, "AttemptLeased"),
                (False, "Ended"),
                (False, "Timeout"),
            ],
        ),
        (
            facts(Exhausted, 4, 1, 1),
            [
                (True, "AttemptLeased"),
                (False, "Ended"),
                (False, "Exhausted"),
            ],
        ),
        (
            facts(Canceled, 0, 0, 1),
            [(False, "Queued"), (False, "Ended"), (False, "Canceled")],
        ),
    ];
    for (facts, want) in table {
        let conditions = Conditions::new(&facts, t(0));
        assert_eq!(statuses(&conditions), want, "{facts:?}");
        for condition in conditions.as_array() {
            assert!(condition.check().is_ok(), "{condition:?}");
            assert!(!condition.message.is_empty());
        }
    }
}

#[test]
fn a_transition_time_moves_only_when_the_status_flips() {
    let mut conditions = Conditions::new(&facts(TaskPhase::Pending, 0, 0, 1), t(0));
    // Attempt 1 starts: Scheduled and Running flip, Succeeded stays Unknown.
    conditions.refresh(&facts(TaskPhase::Running, 1, 1, 1), t(1));
    let times = conditions.as_array().map(|c| c.last_transition_time);
    assert_eq!(times, [t(1), t(1), t(0)]);
    // A new generation while it runs: Scheduled flips, Running does not.
    conditions.refresh(&facts(TaskPhase::Running, 1, 1, 2), t(2));
    assert_eq!(
        conditions.as_array().map(|c| c.last_transition_time),
        [t(2), t(1), t(0)]
    );
    // The same facts again at a later time: nothing moves, the messages neither.
    let before = conditions.clone();
    conditions.refresh(&facts(TaskPhase::Running, 1, 1, 2), t(3));
    assert_eq!(conditions, before);
    // The reason and the message follow the facts without a flip: waiting after attempt 1,
    // then after attempt 2.
    conditions.refresh(&facts(TaskPhase::Pending, 1, 1, 1), t(4));
    let waiting = conditions.running.clone();
    conditions.refresh(&facts(TaskPhase::Running, 2, 1, 1), t(5));
    conditions.refresh(&facts(TaskPhase::Pending, 2, 1, 1), t(6));
    assert_eq!(conditions.running.reason, waiting.reason);
    assert_ne!(conditions.running.message, waiting.message);
    assert_eq!(conditions.running.last_transition_time, t(6));
}

#[test]
fn check_holds_the_statuses_to_the_facts_and_the_times_to_the_task() {
    let running = facts(TaskPhase::Running, 1, 1, 1);
    let conditions = Conditions::new(&running, t(1));
    let all = ConditionType::ALL;
    assert!(conditions.check(&all, &running, t(0), t(1)).is_ok());
    let err = conditions.check(&all, &running, t(2), t(3)).unwrap_err();
    assert_eq!(err.path(), Some("[0].lastTransitionTime"));
    let pending = facts(TaskPhase::Pending, 0, 0, 1);
    let err = conditions.check(&all, &pending, t(0), t(9)).unwrap_err();
    assert_eq!(err.path(), Some("[0].status"));
    // Only the kinds asked for are checked.
    let stale = facts(TaskPhase::Running, 1, 1, 2);
    assert!(
        conditions
            .check(&[ConditionType::Running], &stale, t(0), t(9))
            .is_ok()
    );
    assert!(conditions.check(&all, &stale, t(0), t(9)).is_err());
}

#[test]
fn reasons_and_messages_are_bounded_and_checked() {
    let check = |reason: &str, message: &str| {
        serde_json::from_value::<Condition>(json!({
            "type": "Running", "status": "False", "reason": reason, "message": message,
            "lastTransitionTime": "2025-01-01T00:00:00Z",
        }))
        .map(drop)
        .map_err(|e| e.to_string())
    };
    assert!(check("Queued", "").is_ok());
    assert!(check("a", "").is_ok());
    assert!(check("Reason_With,Colon:And_", "").is_ok());
    assert!(check(&"R".repeat(MAX_CONDITION_REASON_BYTES), "").is_ok());
    let too_long = check(&"R".repeat(MAX_CONDITION_REASON_BYTES + 1), "").unwrap_err();
    assert!(
        too_long.contains("1025 bytes long, at most 1024 allowed"),
        "{too_long}"
    );
    for bad in ["", "1Queued", "Queued:", "Queued,", "Que ued", "Queued-"] {
        let err = check(bad, "").unwrap_err();
        assert!(err.starts_with("invalid reason"), "{bad:?}: {err}");
    }
    assert!(check("R", &"m".repeat(MAX_CONDITION_MESSAGE_BYTES)).is_ok());
    let err = check("R", &"m".repeat(MAX_CONDITION_MESSAGE_BYTES + 1)).unwrap_err();
    assert!(
        err.starts_with("invalid message: 32769 bytes long"),
        "{err}"
    );
    let unknown = serde_json::from_value::<Condition>(json!({
        "type": "Ready", "status": "True", "reason": "R", "lastTransitionTime": "2025-01-01T00:00:00Z",
    }));
    assert!(unknown.is_err());
    let wrong_case = serde_json::from_value::<Condition>(json!({
        "type": "Running", "status": "true", "reason": "R", "lastTransitionTime": "2025-01-01T00:00:00Z",
    }));
    assert!(wrong_case.is_err());
}

#[test]
fn a_list_holds_each_type_once_in_any_order() {
    let one = |kind: &str| json!({ "type": kind, "status": "False", "reason": "R", "lastTransitionTime": "2025-01-01T00:00:00Z" });
    let read = |list: serde_json::Value| {
        serde_json::from_value::<ConditionsRaw>(list)
            .map_err(|e| e.to_string())
            .and_then(|raw| read_conditions(raw).map_err(|e| e.to_string()))
    };
    let ordered = read(json!([one("Scheduled"), one("Running"), one("Succeeded")])).unwrap();
    let shuffled = read(json!([one("Succeeded"), one("Scheduled"), one("Running")])).unwrap();
    assert_eq!(ordered, shuffled);
    let written = serde_json::to_value(&shuffled).unwrap();
    assert_eq!(
        written,
        json!([one("Scheduled"), one("Running"), one("Succeeded")])
    );
    let twice = read(json!([one("Scheduled"), one("Running"), one("Running")])).unwrap_err();
    assert!(
        twice.contains("[2].type: each condition type appears once"),
        "{twice}"
    );
    let missing = read(json!([one("Scheduled"), one("Running")])).unwrap_err();
    assert!(
        missing.contains("a Scheduled, a Running and a Succeeded condition"),
        "{missing}"
    );
    let many = serde_json::Value::Array(vec![one("Running"); MAX_CONDITIONS + 1]);
    let over = read(many).unwrap_err();
    assert!(over.contains("more than 8 entries"), "{over}");
}
