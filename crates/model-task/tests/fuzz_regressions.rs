//! Hostile JSON for specs and tasks: deep nesting and huge numbers are rejected cleanly,
//! and inputs the fuzz targets (`fuzz/`) found are kept here so they stay fixed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use model_task::{Task, TaskSpec};

/// The deepest nesting serde_json reads recursively: its default recursion limit (128)
/// counts down on every array or object it enters and refuses the one that reaches zero.
const MAX_NESTING: usize = 127;

/// A wasm spec whose kind starts with an unknown key `x` holding `depth` nested arrays (so
/// the document nests `depth + 2` deep). The kind is read before its type is known, so the
/// value of `x` is skipped (read through), which is where the recursion limit applies.
fn spec_with_nested_unknown(depth: usize) -> String {
    format!(
        r#"{{"slot":"a","kind":{{"x":{}{},"type":"wasm","module":"m.wasm"}},"timeoutMs":1000}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    )
}

/// A task around [`spec_with_nested_unknown`] (nesting `depth + 3` deep).
fn task_with_nested_unknown(depth: usize) -> String {
    format!(
        r#"{{"apiVersion":"taskmodel.io/v1","kind":"Task","metadata":{{"name":"t","uid":"00000000-0000-0000-0000-000000000001","tenant":"a","resourceVersion":1,"generation":1,"createdAt":"2024-01-01T00:00:00Z","updatedAt":"2024-01-01T00:00:00Z"}},"spec":{}}}"#,
        spec_with_nested_unknown(depth)
    )
}

/// A spec with `field` set to the raw JSON `value`.
fn spec_with(field: &str, value: &str) -> String {
    let mut doc: Vec<String> = [
        ("slot", r#""a""#),
        ("kind", r#"{"type":"wasm","module":"m.wasm"}"#),
        ("timeoutMs", "1000"),
    ]
    .iter()
    .filter(|(name, _)| *name != field)
    .map(|(name, v)| format!(r#""{name}":{v}"#))
    .collect();
    doc.push(format!(r#""{field}":{value}"#));
    format!("{{{}}}", doc.join(","))
}

fn error_of<T: serde::de::DeserializeOwned + std::fmt::Debug>(json: &str) -> serde_json::Error {
    serde_json::from_str::<T>(json).expect_err(&json[..json.len().min(200)])
}

#[test]
fn deep_nesting_is_refused_cleanly_for_spec_and_task() {
    // A value under an unknown key is skipped without recursion (serde_json reads it with a
    // byte per level), so any depth ends in the unknown-key error, never a stack overflow.
    for depth in [MAX_NESTING - 3, MAX_NESTING, 10_000, 1_000_000] {
        let err = error_of::<TaskSpec>(&spec_with_nested_unknown(depth));
        assert!(
            err.to_string().starts_with("unknown field `x`"),
            "{depth}: {err}"
        );
        let err = error_of::<Task>(&task_with_nested_unknown(depth));
        assert!(
            err.to_string().starts_with("unknown field `x`"),
            "{depth}: {err}"
        );
    }
}

#[test]
fn recursive_reads_stop_at_the_recursion_limit() {
    // What reads JSON recursively (a `serde_json::Value`, as taskctl reads a document before
    // checking it) stops at the recursion limit with a clean error.
    let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    assert!(serde_json::from_str::<serde_json::Value>(&nested(MAX_NESTING)).is_ok());
    for depth in [MAX_NESTING + 1, 1_000_000] {
        let err = serde_json::from_str::<serde_json::Value>(&nested(depth)).unwrap_err();
        assert!(
            err.to_string().starts_with("recursion limit exceeded"),
            "{err}"
        );
    }
    // A spec inside such a document is refused the same way.
    let doc = spec_with_nested_unknown(MAX_NESTING);
    let err = serde_json::from_str::<serde_json::Value>(&doc).unwrap_err();
    assert!(
        err.to_string().starts_with("recursion limit exceeded"),
        "{err}"
    );
}

#[test]
fn deep_nesting_in_any_field_is_refused_without_a_crash() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_object = format!("{}1{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000));
    for field in [
        "slot",
        "kind",
        "timeoutMs",
        "restart",
        "backoff",
        "admission",
        "runnerSelector",
        "labels",
        "maxRetries",
        "unknown",
    ] {
        for value in [&deep, &deep_object] {
            let err = error_of::<TaskSpec>(&spec_with(field, value));
            assert!(err.is_data() || err.is_syntax(), "{field}: {err:?}");
        }
    }
    for doc in [deep.clone(), deep_object.clone()] {
        error_of::<TaskSpec>(&doc);
        error_of::<Task>(&doc);
    }
}

#[test]
fn huge_numbers_are_refused_cleanly() {
    fn check(field: &str, value: &str, fragment: &str) {
        let err = error_of::<TaskSpec>(&spec_with(field, value));
        assert!(err.to_string().contains(fragment), "{field}={value}: {err}");
    }
    check("timeoutMs", "1e400", "number out of range");
    check(
        "timeoutMs",
        "18446744073709551616",
        "invalid type: floating point",
    );
    check("timeoutMs", "-1", "invalid value: integer `-1`");
    check("timeoutMs", "1000.0", "invalid type: floating point");
    check(
        "maxRetries",
        "4294967296",
        "invalid value: integer `4294967296`, expected u32",
    );
    check(
        "maxRetries",
        "18446744073709551616",
        "invalid type: floating point",
    );
    check("maxRetries", "1e400", "number out of range");
    check("backoff", r#"{"factor":1e400}"#, "number out of range");
    check(
        "backoff",
        r#"{"firstMs":18446744073709551616}"#,
        "invalid type: floating point",
    );
    check(
        "backoff",
        r#"{"maxMs":1e19}"#,
        "invalid type: floating point",
    );
    check(
        "runnerSelector",
        r#"{"matchExpressions":[{"key":"a","operator":"Gt","values":["9223372036854775808"]}]}"#,
        "integer",
    );

    let meta = |version: &str| {
        format!(
            r#"{{"apiVersion":"taskmodel.io/v1","kind":"Task","metadata":{{"name":"t","uid":"00000000-0000-0000-0000-000000000001","tenant":"a","resourceVersion":{version},"generation":1,"createdAt":"2024-01-01T00:00:00Z","updatedAt":"2024-01-01T00:00:00Z"}},"spec":{}}}"#,
            spec_with("labels", "{}")
        )
    };
    let err = error_of::<Task>(&meta("18446744073709551616"));
    assert!(
        err.to_string().contains("invalid type: floating point"),
        "{err}"
    );
    let err = error_of::<Task>(&meta("1e400"));
    assert!(err.to_string().contains("number out of range"), "{err}");
}

#[test]
fn the_largest_finite_factor_parses_and_its_delays_stay_capped() {
    let spec: TaskSpec = serde_json::from_str(&spec_with(
        "backoff",
        r#"{"jitter":"none","factor":1.7976931348623157e308}"#,
    ))
    .unwrap();
    let backoff = spec.backoff();
    assert_eq!(backoff.factor(), f64::MAX);
    assert_eq!(backoff.base_delay_ms(1), backoff.first_ms());
    assert_eq!(backoff.base_delay_ms(2), backoff.max_ms());
    assert_eq!(backoff.base_delay_ms(u32::MAX), backoff.max_ms());
}

#[test]
fn status_error_text_is_bounded_on_the_wire() {
    use model_task::error::InvalidReason;
    use model_task::lifecycle::MAX_STATUS_ERROR_BYTES;

    let example = include_str!("../../../examples/task.json");
    let with_error = |text: &str| {
        example.replace(
            r#""error": "upload failed: connection reset""#,
            &format!(r#""error": "{text}""#),
        )
    };
    // Multi-byte characters: the bound is in bytes.
    let at_bound = "é".repeat(MAX_STATUS_ERROR_BYTES / 2);
    let task: Task = serde_json::from_str(&with_error(&at_bound)).unwrap();
    assert_eq!(
        task.status().error().map(str::len),
        Some(MAX_STATUS_ERROR_BYTES)
    );

    let over = format!("x{at_bound}");
    let err = serde_json::from_str::<Task>(&with_error(&over)).unwrap_err();
    let message = err.to_string();
    assert!(message.contains("status.error"), "{message}");
    let reason = InvalidReason::TooLong {
        len: MAX_STATUS_ERROR_BYTES + 1,
        max: MAX_STATUS_ERROR_BYTES,
    };
    assert!(message.contains(&reason.to_string()), "{message}");
}
