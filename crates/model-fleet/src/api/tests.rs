//! Unit tests for `api`: every kind's answer, the envelope on the wire, and its bounds.

use model_ids::ErrorKind;

use super::*;

#[test]
fn every_kind_answers_with_its_code_and_status() {
    // One row per kind, in ErrorKind::ALL's order; model-ids proves ALL lists every kind.
    let table = [
        ("invalid_request", 400),
        ("invalid_request", 400),
        ("invalid_request", 400),
        ("invalid_request", 400),
        ("invalid_request", 400),
        ("conflict", 409),
        ("conflict", 409),
        ("gone", 410),
        ("not_found", 404),
        ("unauthorized", 401),
        ("forbidden", 403),
        ("internal", 500),
    ];
    assert_eq!(table.len(), ErrorKind::ALL.len());
    for (kind, (code, status)) in ErrorKind::ALL.into_iter().zip(table) {
        let answer = ApiError::for_kind(kind, "x");
        assert_eq!(answer.code().as_str(), code, "{kind:?}");
        assert_eq!(answer.http_status(), status, "{kind:?}");
        let json = serde_json::to_string(&answer).unwrap();
        assert_eq!(
            json,
            format!(r#"{{"error":{{"code":"{code}","message":"x"}}}}"#)
        );
        assert_eq!(serde_json::from_str::<ApiError>(&json).unwrap(), answer);
    }
}

#[test]
fn a_fleet_error_answers_with_its_kind_and_text() {
    let err = FleetError::TtlOutOfRange { input: 0 };
    let answer = ApiError::from(&err);
    assert_eq!(answer.code(), ErrorCode::InvalidRequest);
    assert_eq!(answer.message(), err.to_string());
    assert_eq!(
        answer.to_string(),
        "invalid_request: invalid liveness ttl: 0 ms is out of range (1 to 604800000)"
    );
}

#[test]
fn long_messages_are_cut_on_a_character_boundary() {
    let check = |message: String, len: usize| {
        let answer = ApiError::new(ErrorCode::Internal, message.clone());
        assert_eq!(answer.message().len(), len);
        assert!(message.starts_with(answer.message()));
    };
    let max = MAX_API_ERROR_MESSAGE_BYTES;
    check("a".repeat(max), max);
    check("a".repeat(max + 1), max);
    // A two-byte character across the bound is left out whole.
    check(format!("{}é", "a".repeat(max - 1)), max - 1);
    check(format!("{}é", "a".repeat(max - 2)), max);
    check(String::new(), 0);
}

#[test]
fn the_envelope_reads_only_what_it_writes() {
    let check = |json: &str, message: &str| {
        let err = serde_json::from_str::<ApiError>(json)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(message), "{json}: {err}");
    };
    let at_bound = format!(
        r#"{{"error":{{"code":"gone","message":"{}"}}}}"#,
        "a".repeat(MAX_API_ERROR_MESSAGE_BYTES)
    );
    assert_eq!(
        serde_json::from_str::<ApiError>(&at_bound)
            .unwrap()
            .message()
            .len(),
        MAX_API_ERROR_MESSAGE_BYTES
    );
    check(
        &format!(
            r#"{{"error":{{"code":"gone","message":"{}"}}}}"#,
            "a".repeat(MAX_API_ERROR_MESSAGE_BYTES + 1)
        ),
        "invalid error.message: 4097 bytes is longer than 4096",
    );
    check(
        r#"{"error":{"code":"teapot","message":"x"}}"#,
        r#"unknown error code "teapot""#,
    );
    check(r#"{"error":{"code":"gone"}}"#, "missing field `message`");
    check(r#"{"error":{"message":"x"}}"#, "missing field `code`");
    check(
        r#"{"error":{"code":"gone","message":"x","details":[]}}"#,
        "unknown field `details`",
    );
    check(
        r#"{"error":{"code":"gone","message":"x"},"status":410}"#,
        "unknown field `status`",
    );
    check(r#"{"code":"gone","message":"x"}"#, "unknown field `code`");
    check(r#"{"error":null}"#, "invalid type: null");
    check(
        r#"{"error":{"code":"gone","message":null}}"#,
        "invalid type: null",
    );
    check(
        r#"{"error":{"code":410,"message":"x"}}"#,
        "invalid type: integer",
    );
    check("410", "invalid type: integer");
}
