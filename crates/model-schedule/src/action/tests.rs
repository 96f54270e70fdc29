//! Unit tests for actions: every status move, recurrence, recovery at its boundary, keys,
//! the due range, and the wire form with its bounds.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, Utc};
use model_ids::ActionId;
use serde_json::json;

use super::{
    Action, ActionKey, ActionStatus, ActionTrigger, RECOVERED_REASON, due_actions, due_upper_bound,
    startup_recovery,
};
use crate::ActionState;
use crate::{
    Interval, MAX_ACTION_REASON_BYTES, MAX_ACTION_RESULT_BYTES, MAX_WEBHOOK_PAYLOAD_BYTES,
    ScheduleError,
};

fn utc(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn id(n: u128) -> ActionId {
    ActionId::from_u128(n)
}

fn pending(n: u128, due: &str) -> Action {
    Action::scheduled(id(n), "job", utc(due), None, utc("2026-01-01T00:00:00Z")).unwrap()
}

/// An action in `state` (through the allowed moves).
fn in_state(state: ActionState) -> Action {
    let now = utc("2026-01-01T00:00:00Z");
    let mut action = pending(1, "2026-01-01T00:00:00Z");
    match state {
        ActionState::Pending => {}
        ActionState::Running => action.start(now).unwrap(),
        ActionState::Completed => {
            action.start(now).unwrap();
            action.complete(json!(1), now).unwrap();
        }
        ActionState::Failed => {
            action.start(now).unwrap();
            action.fail("boom", now).unwrap();
        }
    }
    action
}

#[test]
fn status_moves_table() {
    use ActionState::{Completed, Failed, Pending, Running};
    let now = utc("2026-01-01T00:00:05Z");
    let all = [Pending, Running, Completed, Failed];
    for from in all {
        for to in [Running, Completed, Failed] {
            let mut action = in_state(from);
            let before = action.clone();
            let result = match to {
                Running => action.start(now),
                Completed => action.complete(json!({"ok": true}), now),
                Failed => action.fail("exit 1", now),
                Pending => unreachable!(),
            };
            let allowed = matches!(
                (from, to),
                (Pending, Running) | (Running, Completed | Failed)
            );
            if allowed {
                result.unwrap();
                assert_eq!(action.state(), to);
                assert_eq!(action.updated_at(), now);
            } else {
                let err = result.unwrap_err();
                assert!(
                    matches!(err, ScheduleError::ActionTransition { from: f, to: t, .. } if f == from && t == to),
                    "{from} -> {to}: {err}"
                );
                assert_eq!(err.kind(), model_ids::ErrorKind::InvalidTransition);
                assert_eq!(action, before, "a refused move changes nothing");
            }
        }
    }
    let err = in_state(Completed).start(now).unwrap_err();
    assert_eq!(
        err.to_string(),
        "action 00000000000000000000000000000001: cannot go from completed to running"
    );
}

#[test]
fn updated_at_never_goes_back() {
    let mut action = pending(1, "2026-01-01T00:00:00Z");
    action.start(utc("2025-12-31T00:00:00Z")).unwrap();
    assert_eq!(action.updated_at(), utc("2026-01-01T00:00:00Z"));
}

#[test]
fn fail_cuts_a_long_reason_on_a_character_boundary() {
    let now = utc("2026-01-01T00:00:00Z");
    let mut action = in_state(ActionState::Running);
    action
        .fail("é".repeat(MAX_ACTION_REASON_BYTES), now)
        .unwrap();
    let ActionStatus::Failed { reason } = action.status() else {
        panic!()
    };
    assert_eq!(reason.len(), MAX_ACTION_REASON_BYTES);
    let mut action = in_state(ActionState::Running);
    action
        .fail(format!("a{}", "é".repeat(MAX_ACTION_REASON_BYTES / 2)), now)
        .unwrap();
    let ActionStatus::Failed { reason } = action.status() else {
        panic!()
    };
    assert_eq!(reason.len(), MAX_ACTION_REASON_BYTES - 1);
}

#[test]
fn complete_refuses_a_result_over_the_bound() {
    let now = utc("2026-01-01T00:00:00Z");
    // One value plus the bytes of the string: exactly the bound, then one more.
    let fits = json!("x".repeat(MAX_ACTION_RESULT_BYTES - 1));
    in_state(ActionState::Running).complete(fits, now).unwrap();
    let over = json!("x".repeat(MAX_ACTION_RESULT_BYTES));
    let mut action = in_state(ActionState::Running);
    let err = action.complete(over, now).unwrap_err();
    assert!(
        matches!(err, ScheduleError::TooLong { ref path, .. } if path == "status.result"),
        "{err}"
    );
    assert_eq!(action.state(), ActionState::Running);
}

#[test]
fn recovery_boundary_table() {
    let now = utc("2026-01-01T01:00:00Z");
    let max_age_ms = 120_000;
    // (state, updated this long before now, changed)
    let table = [
        (ActionState::Running, TimeDelta::minutes(10), true),
        (ActionState::Running, TimeDelta::milliseconds(120_001), true),
        (
            ActionState::Running,
            TimeDelta::milliseconds(120_000),
            false,
        ),
        (ActionState::Running, TimeDelta::seconds(30), false),
        (ActionState::Running, TimeDelta::seconds(-30), false),
        (ActionState::Pending, TimeDelta::hours(5), false),
        (ActionState::Completed, TimeDelta::hours(5), false),
        (ActionState::Failed, TimeDelta::hours(5), false),
    ];
    for (state, age, changed) in table {
        let mut action = in_state(state);
        action.updated_at = now - age;
        let before = action.clone();
        assert_eq!(action.recover(now, max_age_ms), changed, "{state} {age}");
        if changed {
            assert_eq!(
                action.status(),
                &ActionStatus::Failed {
                    reason: RECOVERED_REASON.to_owned()
                }
            );
            assert_eq!(action.updated_at(), now);
        } else {
            assert_eq!(action, before);
        }
    }
    let mut actions = vec![
        in_state(ActionState::Running),
        in_state(ActionState::Running),
    ];
    actions[1].updated_at = now;
    assert_eq!(startup_recovery(&mut actions, now, max_age_ms), 1);
    assert_eq!(actions[0].state(), ActionState::Failed);
    assert_eq!(actions[1].state(), ActionState::Running);
    assert_eq!(RECOVERED_REASON, "recovered from restart");
}

#[test]
fn next_recurring_keeps_the_phase_and_skips_missed_ticks() {
    let hourly = Interval::from_ms(3_600_000).unwrap();
    let tick = utc("2026-01-01T10:00:00Z");
    let created = utc("2026-01-01T09:00:00Z");
    let check = |completed_at: &str, want: &str| {
        let mut action = Action::scheduled(id(1), "sync", tick, Some(hourly), created).unwrap();
        let now = utc(completed_at);
        action.start(now).unwrap();
        action.complete(json!(null), now).unwrap();
        let next = action.next_recurring(id(2), now).unwrap().unwrap();
        assert_eq!(next.due_at(), utc(want), "completed at {completed_at}");
        assert_eq!(next.id(), id(2));
        assert_eq!(next.label(), "sync");
        assert_eq!(next.state(), ActionState::Pending);
        assert_eq!(next.recurrence(), Some(hourly));
        assert_eq!((next.created_at(), next.updated_at()), (now, now));
    };
    check("2026-01-01T10:00:05Z", "2026-01-01T11:00:00Z");
    check("2026-01-01T10:59:59Z", "2026-01-01T11:00:00Z");
    check("2026-01-01T11:00:00Z", "2026-01-01T12:00:00Z");
    check("2026-01-01T13:30:00Z", "2026-01-01T14:00:00Z");
    // Completed before its own tick (started early): the next is one period after the tick.
    check("2026-01-01T09:30:00Z", "2026-01-01T11:00:00Z");
}

#[test]
fn next_recurring_needs_a_completed_recurring_action() {
    let now = utc("2026-01-01T00:00:00Z");
    for state in [
        ActionState::Pending,
        ActionState::Running,
        ActionState::Failed,
    ] {
        let err = in_state(state).next_recurring(id(2), now).unwrap_err();
        assert!(matches!(err, ScheduleError::NotCompleted { state: s, .. } if s == state));
        assert_eq!(err.kind(), model_ids::ErrorKind::InvalidTransition);
    }
    assert_eq!(
        in_state(ActionState::Completed)
            .next_recurring(id(2), now)
            .unwrap(),
        None
    );
}

#[test]
fn keys_sort_by_time_then_id_and_the_due_range_is_exact() {
    let now = utc("2026-01-01T00:00:00.500Z");
    let mut index = BTreeMap::new();
    let entries = [
        (5, "2026-01-01T00:00:00.501Z"),
        (4, "2026-01-01T00:00:00.500999Z"),
        (3, "2026-01-01T00:00:00.500Z"),
        (2, "1969-07-20T20:17:00Z"),
        (1, "2026-01-01T00:00:00.499Z"),
        (6, "2026-01-01T00:00:00.499Z"),
    ];
    for (n, due) in entries {
        let action = pending(n, due);
        index.insert(action.key(), action);
    }
    let mut running = pending(7, "2025-01-01T00:00:00Z");
    running.start(now).unwrap();
    index.insert(running.key(), running);
    let due: Vec<u128> = due_actions(&index, now).map(|a| a.id().to_u128()).collect();
    // 1969 first, then the two at .499 by id, then .500 and .500999 (same millisecond).
    assert_eq!(due, [2, 1, 6, 3, 4]);
    for action in index.values() {
        assert_eq!(action.is_due(now), due.contains(&action.id().to_u128()));
    }
    let bound = due_upper_bound(now);
    assert_eq!(bound.millis(), now.timestamp_millis());
    assert_eq!(bound.id(), ActionId::from_bytes([0xff; 16]));
}

#[test]
fn key_bytes_table() {
    let check = |time: &str, first: [u8; 8]| {
        let key = ActionKey::new(utc(time), id(0x0102));
        assert_eq!(key.as_bytes()[..8], first, "{time}");
        assert_eq!(key.as_bytes()[8..], id(0x0102).as_bytes()[..]);
        assert_eq!(ActionKey::from_bytes(*key.as_bytes()), key);
        assert_eq!(key.time(), Some(utc(time)));
    };
    check("1970-01-01T00:00:00Z", [0x80, 0, 0, 0, 0, 0, 0, 0]);
    check("1970-01-01T00:00:00.001Z", [0x80, 0, 0, 0, 0, 0, 0, 1]);
    check(
        "1969-12-31T23:59:59.999Z",
        [0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
    );
    let min = ActionKey::from_bytes([0; 24]);
    assert_eq!(min.millis(), i64::MIN);
    assert_eq!(min.time(), None);
}

#[test]
fn wire_round_trip_and_shapes() {
    let now = utc("2026-11-22T02:00:00Z");
    let mut webhook = Action::webhook(id(9), "deploy hook", vec![0, 1, 2, 255], now, now).unwrap();
    webhook.start(now).unwrap();
    webhook.fail("bad signature", now).unwrap();
    let json = serde_json::to_value(&webhook).unwrap();
    assert_eq!(
        json,
        json!({
            "id": "00000000000000000000000000000009",
            "label": "deploy hook",
            "trigger": {"type": "webhook", "payload": "AAEC/w==", "receivedAt": "2026-11-22T02:00:00Z"},
            "status": {"state": "failed", "reason": "bad signature"},
            "createdAt": "2026-11-22T02:00:00Z",
            "updatedAt": "2026-11-22T02:00:00Z"
        })
    );
    assert_eq!(serde_json::from_value::<Action>(json).unwrap(), webhook);
    let ActionTrigger::Webhook { payload, .. } = webhook.trigger() else {
        panic!()
    };
    assert_eq!(payload, &[0, 1, 2, 255]);

    let base = json!({
        "id": "00000000000000000000000000000001", "label": "x",
        "trigger": {"type": "scheduled", "nextTickAt": "2026-01-01T00:00:00Z"},
        "status": {"state": "pending"},
        "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"
    });
    assert!(serde_json::from_value::<Action>(base.clone()).is_ok());
    let check = |path: &str, value: serde_json::Value, want: &str| {
        let mut doc = base.clone();
        doc[path] = value;
        let err = serde_json::from_value::<Action>(doc)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(want), "{path}: {err}");
    };
    check("label", json!(""), r#"label: "": must not be empty"#);
    check(
        "label",
        json!("a\nb"),
        r#"label: "a\nb": must not hold a control character"#,
    );
    check(
        "label",
        json!("x".repeat(257)),
        "label: too long (257 bytes, maximum 256)",
    );
    check(
        "recurrenceMs",
        json!(10),
        "recurrenceMs: 10 is out of range 1000 to",
    );
    check(
        "updatedAt",
        json!("2025-01-01T00:00:00Z"),
        "updatedAt: 2025-01-01 00:00:00 UTC is before createdAt",
    );
    check(
        "status",
        json!({"state": "failed"}),
        "status: a failed status has a reason",
    );
    check(
        "status",
        json!({"state": "pending", "reason": "x"}),
        "status: only a completed status has a result, and only a failed one a reason",
    );
    check(
        "trigger",
        json!({"type": "scheduled", "receivedAt": "2026-01-01T00:00:00Z"}),
        "trigger: a scheduled trigger has nextTickAt and nothing else",
    );
    check(
        "trigger",
        json!({"type": "webhook", "payload": "@@", "receivedAt": "2026-01-01T00:00:00Z"}),
        "trigger.payload: not standard base64",
    );
    check("id", json!("xyz"), r#"invalid action id "xyz""#);
    let mut doc = base.clone();
    doc["trigger"] =
        json!({"type": "webhook", "payload": "", "receivedAt": "2026-01-01T00:00:00Z"});
    doc["recurrenceMs"] = json!(60_000);
    let err = serde_json::from_value::<Action>(doc)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("recurrenceMs: only a scheduled action recurs"),
        "{err}"
    );
}

#[test]
fn wire_bounds_hold_while_reading() {
    let doc = |status: &str, trigger: &str| {
        format!(
            r#"{{"id": "00000000000000000000000000000001", "label": "x", "trigger": {trigger},
                "status": {status}, "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"}}"#
        )
    };
    let scheduled = r#"{"type": "scheduled", "nextTickAt": "2026-01-01T00:00:00Z"}"#;
    // A result array of one value too many: the reader stops at the first value past the bound.
    let items = vec!["0"; MAX_ACTION_RESULT_BYTES].join(",");
    let over = doc(
        &format!(r#"{{"state": "completed", "result": [{items}]}}"#),
        scheduled,
    );
    let err = serde_json::from_str::<Action>(&over)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("status.result: too long"), "{err}");
    let fits = vec!["0"; MAX_ACTION_RESULT_BYTES - 1].join(",");
    let ok = doc(
        &format!(r#"{{"state": "completed", "result": [{fits}]}}"#),
        scheduled,
    );
    assert!(serde_json::from_str::<Action>(&ok).is_ok());
    // A payload whose base64 is longer than the largest payload's.
    let big = "A".repeat(crate::MAX_WEBHOOK_PAYLOAD_ENCODED_BYTES + 4);
    let webhook = format!(
        r#"{{"type": "webhook", "payload": "{big}", "receivedAt": "2026-01-01T00:00:00Z"}}"#
    );
    let err = serde_json::from_str::<Action>(&doc(r#"{"state": "pending"}"#, &webhook))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("trigger.payload: too long"), "{err}");
    // Exactly the largest payload is accepted; one byte more is not.
    assert!(
        Action::webhook(
            id(1),
            "x",
            vec![0; MAX_WEBHOOK_PAYLOAD_BYTES],
            utc("2026-01-01T00:00:00Z"),
            utc("2026-01-01T00:00:00Z")
        )
        .is_ok()
    );
    assert!(matches!(
        Action::webhook(
            id(1),
            "x",
            vec![0; MAX_WEBHOOK_PAYLOAD_BYTES + 1],
            utc("2026-01-01T00:00:00Z"),
            utc("2026-01-01T00:00:00Z")
        ),
        Err(ScheduleError::TooLong { .. })
    ));
}
