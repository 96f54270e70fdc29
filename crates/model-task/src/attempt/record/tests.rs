//! Unit tests for `record`: the wire form of `TaskRun` (every consistency rule, with its
//! boundary), `Applied`, the outcome mapping and how results are stored.

use serde_json::{Value, json};

use super::*;
use crate::attempt::Applied;
use crate::lifecycle::AttemptOutcome;

/// A valid running attempt on the wire.
fn running() -> Value {
    json!({
        "taskId": "job",
        "generation": 1,
        "attempt": 2,
        "runner": "r-1",
        "lease": "9ix",
        "leaseExpiresAt": "2025-01-01T00:00:30Z",
        "state": "running",
        "cancelRequested": false,
        "leasedAt": "2025-01-01T00:00:00Z",
        "startedAt": "2025-01-01T00:00:01Z"
    })
}

/// `running()` with `changes` applied (`null` removes a field).
fn with(changes: Value) -> Value {
    let mut value = running();
    for (key, new) in changes.as_object().unwrap() {
        if new.is_null() {
            value.as_object_mut().unwrap().remove(key);
        } else {
            value[key] = new.clone();
        }
    }
    value
}

/// Parses `value`; `Ok(())` or the error's path.
fn parse(value: Value) -> Result<TaskRun, String> {
    serde_json::from_value::<TaskRun>(value).map_err(|e| e.to_string())
}

#[test]
fn wire_rules() {
    #[track_caller]
    fn check(changes: Value, want: Result<(), &str>) {
        match (parse(with(changes.clone())), want) {
            (Ok(run), Ok(())) => {
                let again: TaskRun =
                    serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
                assert_eq!(again, run, "{changes}");
            }
            (Err(err), Err(needle)) => assert!(err.contains(needle), "{changes}: {err}"),
            (got, want) => panic!("{changes}: got {got:?}, want {want:?}"),
        }
    }
    let max_error = "é".repeat(MAX_STATUS_ERROR_BYTES / 2);
    let over_error = format!("{max_error}x");
    let finished = |state: &str| json!({"state": state, "finishedAt": "2025-01-01T00:00:05Z"});
    check(json!({}), Ok(()));
    check(json!({"attempt": 1}), Ok(()));
    check(
        json!({"attempt": 0}),
        Err("invalid attempt: must be greater than zero"),
    );
    check(json!({"attempt": -1}), Err("invalid value"));
    check(json!({"lease": "no spaces"}), Err("base-36"));
    check(json!({"runner": ""}), Err("runner id"));
    check(json!({"extra": 1}), Err("unknown field"));
    check(json!({"cancelRequested": null}), Ok(()));
    // The lease expires after it was taken: the exact boundary.
    check(
        json!({"leaseExpiresAt": "2025-01-01T00:00:00.001Z", "state": "leased", "startedAt": null}),
        Ok(()),
    );
    check(
        json!({"leaseExpiresAt": "2025-01-01T00:00:00Z"}),
        Err("leaseExpiresAt"),
    );
    // Start: never before the lease; needed once running, absent while leased.
    check(json!({"startedAt": "2025-01-01T00:00:00Z"}), Ok(()));
    check(
        json!({"startedAt": "2024-12-31T23:59:59.999Z"}),
        Err("invalid startedAt"),
    );
    check(json!({"startedAt": null}), Err("invalid startedAt"));
    check(json!({"state": "leased"}), Err("invalid startedAt"));
    check(json!({"state": "leased", "startedAt": null}), Ok(()));
    // Finish: exactly when final, never before the start (or the lease).
    check(finished("succeeded"), Ok(()));
    check(json!({"state": "succeeded"}), Err("invalid finishedAt"));
    check(
        json!({"finishedAt": "2025-01-01T00:00:05Z"}),
        Err("invalid finishedAt"),
    );
    check(
        json!({"state": "failed", "finishedAt": "2025-01-01T00:00:01Z"}),
        Ok(()),
    );
    check(
        json!({"state": "failed", "finishedAt": "2025-01-01T00:00:00.999Z"}),
        Err("finishedAt is before the start"),
    );
    check(
        json!({"state": "expired", "startedAt": null, "finishedAt": "2025-01-01T00:00:30Z"}),
        Ok(()),
    );
    check(
        json!({"state": "expired", "startedAt": null, "finishedAt": "2024-12-31T23:59:59Z"}),
        Err("finishedAt is before the start"),
    );
    // Expiry ends an attempt at or after its lease's expiry, never before: the boundary.
    check(
        json!({"state": "expired", "finishedAt": "2025-01-01T00:00:30Z"}),
        Ok(()),
    );
    check(
        json!({"state": "expired", "finishedAt": "2025-01-01T00:00:29.999Z"}),
        Err("invalid finishedAt: an expired attempt ends at or after its lease expiry"),
    );
    // A runner starts and reports only under a live lease.
    check(json!({"startedAt": "2025-01-01T00:00:29.999Z"}), Ok(()));
    check(
        json!({"startedAt": "2025-01-01T00:00:30Z"}),
        Err("invalid startedAt: the attempt started after its lease expired"),
    );
    check(
        json!({"state": "cancelling", "cancelRequested": true, "startedAt": "2025-01-01T00:00:31Z"}),
        Err("invalid startedAt: the attempt started after its lease expired"),
    );
    check(
        json!({"state": "succeeded", "finishedAt": "2025-01-01T00:00:29.999Z"}),
        Ok(()),
    );
    for state in ["succeeded", "failed", "timeout"] {
        check(
            json!({"state": state, "finishedAt": "2025-01-01T00:00:30Z"}),
            Err("invalid finishedAt: a reported result comes in before the lease expires"),
        );
    }
    // A canceled attempt may end by expiry, after the lease.
    check(
        json!({"state": "canceled", "cancelRequested": true, "finishedAt": "2025-01-01T00:01:00Z"}),
        Ok(()),
    );
    // A reported state needs a start; an expired or canceled attempt may never have started.
    check(
        json!({"state": "succeeded", "startedAt": null, "finishedAt": "2025-01-01T00:00:05Z"}),
        Err("invalid startedAt"),
    );
    // Exit code and error: only on a final, reported attempt; error bounded.
    let mut ok = finished("failed");
    ok["exitCode"] = json!(2);
    ok["error"] = json!(max_error);
    check(ok.clone(), Ok(()));
    ok["error"] = json!(over_error);
    check(
        ok,
        Err("invalid error: 32769 bytes long, at most 32768 allowed"),
    );
    check(
        json!({"exitCode": 1}),
        Err("exitCode and error need a final state"),
    );
    check(
        json!({"error": "x"}),
        Err("exitCode and error need a final state"),
    );
    let mut expired = json!({"state": "expired", "finishedAt": "2025-01-01T00:00:40Z"});
    expired["exitCode"] = json!(1);
    check(expired, Err("an expired attempt has no reported result"));
    // Cancel intent: set in cancelling, may stay in canceled, nowhere else.
    check(
        json!({"state": "cancelling", "cancelRequested": true}),
        Ok(()),
    );
    check(
        json!({"state": "cancelling"}),
        Err("invalid cancelRequested"),
    );
    check(
        json!({"cancelRequested": true}),
        Err("cancel intent can only end canceled"),
    );
    let mut canceled = finished("canceled");
    canceled["cancelRequested"] = json!(true);
    check(canceled, Ok(()));
    check(finished("canceled"), Ok(()));
    let mut expired = json!({"state": "expired", "finishedAt": "2025-01-01T00:00:40Z"});
    expired["cancelRequested"] = json!(true);
    check(expired, Err("cancel intent can only end canceled"));
}

#[test]
fn the_wire_shape_is_camel_case_and_omits_absent_fields() {
    let run = parse(running()).unwrap();
    assert_eq!(serde_json::to_value(&run).unwrap(), running());
    assert_eq!(run.lease(), LeaseId::new(12345));
    assert_eq!(run.log_key(7), LogKey::new(2, 7));
}

#[test]
fn applied_helpers() {
    assert!(Applied::Changed(()).is_changed());
    assert!(!Applied::<()>::Unchanged.is_changed());
    assert_eq!(Applied::Changed(3).changed(), Some(3));
    assert_eq!(Applied::<u8>::Unchanged.changed(), None);
}

#[test]
fn outcomes_map_to_final_states_and_back() {
    for outcome in AttemptOutcome::ALL {
        let state = AttemptState::of_outcome(outcome);
        assert!(state.is_final(), "{state}");
        assert_eq!(state.outcome(), Some(outcome));
    }
    for state in AttemptState::ALL {
        let reported = AttemptState::ALL
            .iter()
            .any(|s| s.outcome().is_some() && *s == state);
        assert_eq!(state.outcome().is_some(), reported);
        assert_eq!(state.is_active(), !state.is_final());
    }
    assert_eq!(AttemptState::Expired.outcome(), None);
    assert_eq!(AttemptState::Cancelling.to_string(), "cancelling");
}

#[test]
fn stored_results_cut_the_error_on_a_char_boundary() {
    #[track_caller]
    fn check(error: &str, want_len: usize) {
        let stored = stored_result(AttemptResult::new(AttemptOutcome::Failed).with_error(error));
        let text = stored.error.unwrap();
        assert_eq!(text.len(), want_len);
        assert!(error.starts_with(&text));
    }
    check(&"a".repeat(MAX_STATUS_ERROR_BYTES), MAX_STATUS_ERROR_BYTES);
    check(
        &"a".repeat(MAX_STATUS_ERROR_BYTES + 1),
        MAX_STATUS_ERROR_BYTES,
    );
    // A three-byte character straddling the limit is dropped whole.
    let straddling = format!("{}€", "a".repeat(MAX_STATUS_ERROR_BYTES - 1));
    check(&straddling, MAX_STATUS_ERROR_BYTES - 1);
    check("", 0);
}

#[test]
fn null_reads_as_absent_in_every_optional_run_field() {
    let base = r#""taskId":"t","attempt":1,"generation":1,"runner":"r","lease":"1","leaseExpiresAt":"2025-01-01T00:00:30Z","state":"leased","leasedAt":"2025-01-01T00:00:00Z""#;
    let without: TaskRun = serde_json::from_str(&format!("{{{base}}}")).unwrap();
    for field in [
        "cancelRequested",
        "startedAt",
        "finishedAt",
        "exitCode",
        "error",
    ] {
        let with_null = format!(r#"{{{base},"{field}":null}}"#);
        let parsed: TaskRun =
            serde_json::from_str(&with_null).unwrap_or_else(|e| panic!("{with_null}: {e}"));
        assert_eq!(parsed, without, "{with_null}");
    }
}
