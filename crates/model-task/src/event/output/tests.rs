//! Unit tests for `output`: the wire form of each event, the chunk bounds at their exact
//! edges, and the fields each type allows.

use base64::Engine as _;
use chrono::TimeZone as _;

use super::*;

fn at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap()
}

fn parse(json: &str) -> Result<OutputEvent, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

#[test]
fn each_event_writes_and_reads_back() {
    let cases = [
        (
            OutputEvent::Chunk(
                OutputChunk::new(2, OutputStream::Stdout, 0, at(), b"hi".to_vec(), false).unwrap(),
            ),
            r#"{"type":"chunk","attempt":2,"stream":"stdout","sequence":0,"at":"2025-01-01T00:00:00Z","data":"aGk="}"#,
        ),
        (
            OutputEvent::Chunk(
                OutputChunk::new(2, OutputStream::Stderr, 7, at(), vec![0xff, 0, b'a'], true)
                    .unwrap(),
            ),
            r#"{"type":"chunk","attempt":2,"stream":"stderr","sequence":7,"at":"2025-01-01T00:00:00Z","data":"/wBh","truncated":true}"#,
        ),
        (
            OutputEvent::run_started(1, at()).unwrap(),
            r#"{"type":"runStarted","attempt":1,"startedAt":"2025-01-01T00:00:00Z"}"#,
        ),
        (
            OutputEvent::run_finished(1, at(), AttemptOutcome::Failed, Some(-2)).unwrap(),
            r#"{"type":"runFinished","attempt":1,"finishedAt":"2025-01-01T00:00:00Z","outcome":"failed","exitCode":-2}"#,
        ),
        (
            OutputEvent::run_finished(1, at(), AttemptOutcome::Timeout, None).unwrap(),
            r#"{"type":"runFinished","attempt":1,"finishedAt":"2025-01-01T00:00:00Z","outcome":"timeout"}"#,
        ),
        (
            OutputEvent::lagged(42, 0).unwrap(),
            r#"{"type":"lagged","dropped":42}"#,
        ),
        (
            OutputEvent::lagged(1, 65_536).unwrap(),
            r#"{"type":"lagged","dropped":1,"droppedBytes":65536}"#,
        ),
    ];
    for (event, json) in cases {
        assert_eq!(serde_json::to_string(&event).unwrap(), json);
        assert_eq!(parse(json).unwrap(), event, "{json}");
        assert_eq!(event.type_name(), json.split('"').nth(3).unwrap());
    }
}

#[test]
fn chunk_size_bounds_are_exact() {
    assert_eq!(MAX_OUTPUT_CHUNK_ENCODED_BYTES, 87_384);
    let b64 = |n: usize| base64::engine::general_purpose::STANDARD.encode(vec![b'a'; n]);
    let json = |data: &str| {
        format!(
            r#"{{"type":"chunk","attempt":1,"stream":"stdout","sequence":0,"at":"2025-01-01T00:00:00Z","data":"{data}"}}"#
        )
    };
    let at_limit = parse(&json(&b64(MAX_OUTPUT_CHUNK_BYTES))).unwrap();
    let OutputEvent::Chunk(chunk) = at_limit else {
        panic!()
    };
    assert_eq!(chunk.data().len(), MAX_OUTPUT_CHUNK_BYTES);
    // One byte more still fits the encoded bound: it is caught after decoding.
    let encoded = b64(MAX_OUTPUT_CHUNK_BYTES + 1);
    assert_eq!(encoded.len(), MAX_OUTPUT_CHUNK_ENCODED_BYTES);
    let err = parse(&json(&encoded)).unwrap_err();
    assert!(
        err.starts_with("invalid data: 65537 bytes long, at most 65536 allowed"),
        "{err}"
    );
    // Longer text is refused by its length, before decoding (even when it is not base64).
    let err = parse(&json(&"!".repeat(MAX_OUTPUT_CHUNK_ENCODED_BYTES + 1))).unwrap_err();
    assert!(
        err.starts_with("invalid data: 87385 bytes long, at most 87384 allowed"),
        "{err}"
    );
    let err = parse(&json("")).unwrap_err();
    assert!(err.starts_with("invalid data: must not be empty"), "{err}");
    let err = parse(&json("aGk")).unwrap_err();
    assert!(
        err.starts_with(r#"invalid data "aGk": not standard base64"#),
        "{err}"
    );
}

#[test]
fn cut_keeps_the_limit_and_marks_the_rest() {
    let check = |len: usize, kept: usize, truncated: bool| {
        let chunk = OutputChunk::cut(1, OutputStream::Stdout, 3, at(), &vec![b'x'; len]).unwrap();
        assert_eq!(
            (chunk.data().len(), chunk.truncated()),
            (kept, truncated),
            "{len}"
        );
        assert_eq!(
            (chunk.attempt(), chunk.sequence(), chunk.at()),
            (1, 3, at())
        );
    };
    check(1, 1, false);
    check(MAX_OUTPUT_CHUNK_BYTES, MAX_OUTPUT_CHUNK_BYTES, false);
    check(MAX_OUTPUT_CHUNK_BYTES + 1, MAX_OUTPUT_CHUNK_BYTES, true);
    assert!(OutputChunk::cut(1, OutputStream::Stdout, 0, at(), b"").is_err());
}

#[test]
fn constructors_refuse_what_parsing_refuses() {
    let invalid = |result: Result<OutputEvent, TaskError>, field: &str| match result {
        Err(TaskError::Invalid { path, .. }) => assert_eq!(path, field),
        other => panic!("{field}: {other:?}"),
    };
    invalid(OutputEvent::run_started(0, at()), "attempt");
    invalid(
        OutputEvent::run_finished(0, at(), AttemptOutcome::Succeeded, Some(0)),
        "attempt",
    );
    invalid(OutputEvent::lagged(0, 10), "dropped");
    invalid(
        OutputChunk::new(0, OutputStream::Stdout, 0, at(), b"a".to_vec(), false)
            .map(OutputEvent::Chunk),
        "attempt",
    );
    for json in [
        r#"{"type":"runStarted","attempt":0,"startedAt":"2025-01-01T00:00:00Z"}"#,
        r#"{"type":"lagged","dropped":0,"droppedBytes":5}"#,
    ] {
        assert!(
            parse(json)
                .unwrap_err()
                .contains("must be greater than zero")
        );
    }
}

#[test]
fn fields_each_type_allows() {
    for (json, want) in [
        (
            r#"{"type":"lagged","dropped":1,"attempt":1}"#,
            "unknown field `attempt`, expected one of `type`, `dropped`, `droppedBytes`",
        ),
        (
            r#"{"attempt":1,"type":"lagged","dropped":1}"#,
            "unknown field `attempt`, expected one of `type`, `dropped`, `droppedBytes`",
        ),
        (
            r#"{"type":"runStarted","attempt":1,"startedAt":"2025-01-01T00:00:00Z","exitCode":0}"#,
            "unknown field `exitCode`",
        ),
        (
            r#"{"type":"runStarted","attempt":1}"#,
            "missing field `startedAt`",
        ),
        (
            r#"{"type":"runFinished","attempt":1,"finishedAt":"2025-01-01T00:00:00Z"}"#,
            "missing field `outcome`",
        ),
        (
            r#"{"type":"chunk","attempt":1,"stream":"stdin","sequence":0,"at":"2025-01-01T00:00:00Z","data":"aGk="}"#,
            "unknown variant `stdin`",
        ),
        (
            r#"{"type":"lagged","dropped":1,"dropped":2}"#,
            "duplicate field `dropped`",
        ),
        (r#"{"type":"progress"}"#, "unknown variant `progress`"),
    ] {
        let err = parse(json).unwrap_err();
        assert!(err.starts_with(want), "{json}: {err}");
    }
    // `null` in an optional field is the field left out.
    let event = parse(
        r#"{"type":"runFinished","attempt":1,"finishedAt":"2025-01-01T00:00:00Z","outcome":"succeeded","exitCode":null}"#,
    )
    .unwrap();
    assert_eq!(
        event,
        OutputEvent::run_finished(1, at(), AttemptOutcome::Succeeded, None).unwrap()
    );
}
