//! The JSON wire form of the policies: exact output, defaults, and every rejection.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use model_policy::{AdmissionPolicy, BackoffPolicy, JitterPolicy, RestartPolicy};

fn parse(json: &str) -> Result<BackoffPolicy, String> {
    serde_json::from_str(json).map_err(|err| err.to_string())
}

fn check_ok(json: &str, expected: (JitterPolicy, u64, u64, f64)) {
    let (jitter, first, max, factor) = expected;
    assert_eq!(
        parse(json),
        Ok(BackoffPolicy::new(jitter, first, max, factor).unwrap()),
        "{json}"
    );
}

/// The error message must start with `expected` (serde_json then appends the position).
fn check_err(json: &str, expected: &str) {
    match parse(json) {
        Ok(policy) => panic!("{json} parsed as {policy:?}"),
        Err(message) => assert!(
            message.starts_with(expected),
            "{json}\n  got:      {message}\n  expected: {expected}..."
        ),
    }
}

#[test]
fn backoff_serializes_every_field_in_camel_case() {
    assert_eq!(
        serde_json::to_string(&BackoffPolicy::default()).unwrap(),
        r#"{"jitter":"full","firstMs":1000,"maxMs":30000,"factor":2.0}"#
    );
}

#[test]
fn backoff_accepts_valid_objects_and_fills_defaults() {
    use JitterPolicy::*;
    check_ok("{}", (Full, 1000, 30_000, 2.0));
    check_ok(r#"{"jitter":"none"}"#, (None, 1000, 30_000, 2.0));
    check_ok(r#"{"firstMs":1,"maxMs":1,"factor":1}"#, (Full, 1, 1, 1.0));
    check_ok(r#"{"firstMs":500}"#, (Full, 500, 30_000, 2.0));
    check_ok(r#"{"maxMs":1000}"#, (Full, 1000, 1000, 2.0));
    check_ok(r#"{"maxMs":604800000}"#, (Full, 1000, 604_800_000, 2.0));
    check_ok(
        r#"{"jitter":"decorrelated","firstMs":250,"maxMs":60000,"factor":1.5}"#,
        (Decorrelated, 250, 60_000, 1.5),
    );
    check_ok(r#"{"factor":1e300}"#, (Full, 1000, 30_000, 1e300));
}

#[test]
fn backoff_reads_null_as_an_absent_field() {
    use JitterPolicy::*;
    check_ok(r#"{"jitter":null}"#, (Full, 1000, 30_000, 2.0));
    check_ok(r#"{"firstMs":null}"#, (Full, 1000, 30_000, 2.0));
    check_ok(r#"{"maxMs":null}"#, (Full, 1000, 30_000, 2.0));
    check_ok(r#"{"factor":null}"#, (Full, 1000, 30_000, 2.0));
    check_ok(
        r#"{"jitter":null,"firstMs":null,"maxMs":null,"factor":null}"#,
        (Full, 1000, 30_000, 2.0),
    );
    check_ok(
        r#"{"jitter":"equal","firstMs":null,"maxMs":5000,"factor":null}"#,
        (Equal, 1000, 5000, 2.0),
    );
    // `null` is still a value given: naming the field twice is an error either way.
    check_err(r#"{"factor":null,"factor":2}"#, "duplicate field `factor`");
    check_err(
        r#"{"firstMs":1,"firstMs":null}"#,
        "duplicate field `firstMs`",
    );
    // The policy itself is not optional here (a task's `backoff: null` is model-task's rule).
    check_err("null", "invalid type: null");
}

#[test]
fn backoff_rejections_name_the_field_and_why() {
    check_err(
        r#"{"firstMs":0}"#,
        "invalid backoff: firstMs must be greater than 0, got 0",
    );
    check_err(
        r#"{"firstMs":604800001,"maxMs":604800001}"#,
        "invalid backoff: firstMs must be at most 604800000, got 604800001",
    );
    check_err(
        r#"{"firstMs":5000,"maxMs":1000}"#,
        "invalid backoff: maxMs must be at least firstMs (5000), got 1000",
    );
    check_err(
        r#"{"firstMs":31000}"#,
        "invalid backoff: maxMs must be at least firstMs (31000), got 30000",
    );
    check_err(
        r#"{"maxMs":604800001}"#,
        "invalid backoff: maxMs must be at most 604800000, got 604800001",
    );
    check_err(
        r#"{"factor":0.5}"#,
        "invalid backoff: factor must be at least 1.0, got 0.5",
    );
    check_err(
        r#"{"factor":0}"#,
        "invalid backoff: factor must be at least 1.0, got 0",
    );
    check_err(
        r#"{"factor":-1.5}"#,
        "invalid backoff: factor must be at least 1.0, got -1.5",
    );
    // JSON has no NaN or infinity, and serde_json refuses a literal that overflows f64.
    check_err(r#"{"factor":1e400}"#, "number out of range");
    check_err(r#"{"factor":NaN}"#, "expected value");
    check_err(
        r#"{"firstMs":-1}"#,
        "invalid value: integer `-1`, expected u64",
    );
    check_err(
        r#"{"firstMs":1.5}"#,
        "invalid type: floating point `1.5`, expected u64",
    );
    check_err(
        r#"{"firstMs":18446744073709551616}"#,
        "invalid type: floating point",
    );
    check_err(
        r#"{"first_ms":1}"#,
        "unknown field `first_ms`, expected one of `jitter`, `firstMs`, `maxMs`, `factor`",
    );
    check_err(r#"{"retries":3}"#, "unknown field `retries`");
    check_err(r#"{"firstMs":1,"firstMs":2}"#, "duplicate field `firstMs`");
    check_err(
        r#"{"jitter":"none","jitter":"none"}"#,
        "duplicate field `jitter`",
    );
    check_err(
        r#"{"jitter":"Full"}"#,
        r#"unknown jitter policy "Full": expected one of none, full, equal, decorrelated"#,
    );
    check_err(
        r#"{"jitter":7}"#,
        "invalid type: integer `7`, expected a jitter policy: one of none, full, equal, decorrelated",
    );
    check_err(
        "[]",
        "invalid type: sequence, expected a backoff policy object",
    );
    check_err(
        r#"["full",1000,30000,2.0]"#,
        "invalid type: sequence, expected a backoff policy object",
    );
    check_err("null", "invalid type: null");
}

#[test]
fn enums_deserialize_only_the_wire_form() {
    assert_eq!(
        serde_json::from_str::<RestartPolicy>(r#""onFailure""#).unwrap(),
        RestartPolicy::OnFailure
    );
    assert_eq!(
        serde_json::from_str::<AdmissionPolicy>(r#""queue""#).unwrap(),
        AdmissionPolicy::Queue
    );
    let cases = [
        (
            serde_json::from_str::<RestartPolicy>(r#""on-failure""#).map(|_| ()),
            r#"unknown restart policy "on-failure": expected one of never, onFailure, always"#,
        ),
        (
            serde_json::from_str::<RestartPolicy>(r#""OnFailure""#).map(|_| ()),
            r#"unknown restart policy "OnFailure""#,
        ),
        (
            serde_json::from_str::<AdmissionPolicy>(r#""drop_if_running""#).map(|_| ()),
            r#"unknown admission policy "drop_if_running": expected one of dropIfRunning, replace, queue"#,
        ),
        (
            serde_json::from_str::<JitterPolicy>("null").map(|_| ()),
            "invalid type: null, expected a jitter policy: one of none, full, equal, decorrelated",
        ),
        (
            serde_json::from_str::<RestartPolicy>(r#""\u00e9""#).map(|_| ()),
            r#"unknown restart policy "é""#,
        ),
    ];
    for (result, expected) in cases {
        let message = result.unwrap_err().to_string();
        assert!(
            message.starts_with(expected),
            "got {message}, expected {expected}..."
        );
    }
}

#[test]
fn a_long_unknown_string_is_quoted_shortened() {
    let json = format!("\"{}\"", "q".repeat(100_000));
    let message = serde_json::from_str::<JitterPolicy>(&json)
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with(&format!(
            "unknown jitter policy \"{}…\": expected one of",
            "q".repeat(64)
        )),
        "{}",
        &message[..120]
    );
    assert!(message.len() < 200, "{} bytes", message.len());
}
