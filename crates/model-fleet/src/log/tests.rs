//! Unit tests for `log`: which lines are new, the bounds at their edges, and the wire form.

use chrono::TimeZone;
use model_ids::ErrorKind;

use super::*;

fn at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap()
}

fn line(sequence: u64) -> LogLine {
    LogLine::new(
        sequence,
        LogStream::Stdout,
        format!("line {sequence}"),
        at(),
    )
    .unwrap()
}

fn batch(attempt: u32, sequences: &[u64]) -> LogBatch {
    LogBatch::new(attempt, sequences.iter().map(|s| line(*s)).collect()).unwrap()
}

/// The cursor's last key (attempt, sequence), the batch (attempt, sequences), the new
/// sequences, and the cursor's last key after.
type Case = (
    Option<(u32, u64)>,
    (u32, &'static [u64]),
    &'static [u64],
    Option<(u32, u64)>,
);

#[test]
fn the_new_lines_are_the_suffix_past_the_cursor() {
    let table: &[Case] = &[
        (None, (1, &[0, 1, 2]), &[0, 1, 2], Some((1, 2))),
        (Some((1, 2)), (1, &[0, 1, 2]), &[], Some((1, 2))),
        (Some((1, 1)), (1, &[0, 1, 2, 3]), &[2, 3], Some((1, 3))),
        (Some((1, 1)), (1, &[5, 9]), &[5, 9], Some((1, 9))),
        (Some((1, 900)), (2, &[0]), &[0], Some((2, 0))),
        (Some((2, 0)), (1, &[1_000]), &[], Some((2, 0))),
        (
            Some((1, u64::MAX)),
            (1, &[u64::MAX]),
            &[],
            Some((1, u64::MAX)),
        ),
    ];
    for (last, (attempt, sequences), new, after) in table {
        let mut cursor = match last {
            Some((a, s)) => LogCursor::after(LogKey::new(*a, *s)),
            None => LogCursor::new(),
        };
        let got: Vec<u64> = batch(*attempt, sequences)
            .accept(&mut cursor)
            .iter()
            .map(LogLine::sequence)
            .collect();
        assert_eq!(got, *new, "{last:?} {attempt} {sequences:?}");
        assert_eq!(
            cursor.last(),
            after.map(|(a, s)| LogKey::new(a, s)),
            "{last:?} {attempt} {sequences:?}"
        );
    }
}

#[test]
fn batches_and_lines_are_bounded() {
    let lines = |n: u64| (0..n).map(line).collect::<Vec<_>>();
    assert_eq!(
        LogBatch::new(1, lines(100)).unwrap().lines().len(),
        MAX_LOG_BATCH_LINES
    );
    assert_eq!(
        LogBatch::new(1, lines(101)),
        Err(FleetError::TooManyEntries {
            field: "lines",
            max: MAX_LOG_BATCH_LINES
        })
    );
    assert_eq!(LogBatch::new(1, vec![]), Err(FleetError::EmptyLogBatch));
    assert_eq!(LogBatch::new(0, lines(1)), Err(FleetError::InvalidAttempt));
    let err = LogBatch::new(1, vec![line(3), line(3)]).unwrap_err();
    assert_eq!(
        err,
        FleetError::LogSequenceOrder {
            index: 1,
            sequence: 3,
            before: 3
        }
    );
    assert_eq!(
        err.to_string(),
        "invalid lines[1].sequence: 3 is not above the line before it (3)"
    );
    assert_eq!(err.kind(), ErrorKind::Invalid);
    let text = |n: usize| LogLine::new(0, LogStream::Stderr, "é".repeat(n / 2), at());
    assert_eq!(
        text(MAX_LOG_LINE_BYTES).unwrap().line().len(),
        MAX_LOG_LINE_BYTES
    );
    assert_eq!(
        text(MAX_LOG_LINE_BYTES + 2),
        Err(FleetError::TooLong {
            field: "line".to_owned(),
            len: MAX_LOG_LINE_BYTES + 2,
            max: MAX_LOG_LINE_BYTES
        })
    );
    let b = batch(3, &[4, 7]);
    assert_eq!(b.attempt(), 3);
    let keys: Vec<LogKey> = b.keys().collect();
    assert_eq!(keys, [LogKey::new(3, 4), LogKey::new(3, 7)]);
    let l = line(1);
    assert_eq!(
        (l.stream(), l.line(), l.logged_at()),
        (LogStream::Stdout, "line 1", at())
    );
}

#[test]
fn the_wire_form_reads_back_and_checks_every_rule() {
    let json = r#"{"attempt":2,"lines":[{"sequence":17,"stream":"stdout","line":"copied 12 files","loggedAt":"2026-11-22T10:00:00Z"},{"sequence":18,"stream":"stderr","line":"","loggedAt":"2026-11-22T10:00:00.500Z"}]}"#;
    let read: LogBatch = serde_json::from_str(json).unwrap();
    assert_eq!(serde_json::to_string(&read).unwrap(), json);
    let line_json = |sequence: u64, text: &str| {
        format!(
            r#"{{"sequence":{sequence},"stream":"stdout","line":"{text}","loggedAt":"2026-11-22T10:00:00Z"}}"#
        )
    };
    let batch_json = |attempt: u32, lines: &[String]| {
        format!(r#"{{"attempt":{attempt},"lines":[{}]}}"#, lines.join(","))
    };
    let check = |json: &str, message: &str| {
        let err = serde_json::from_str::<LogBatch>(json)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(message), "{json}: {err}");
    };
    let many: Vec<String> = (0..=100).map(|s| line_json(s, "x")).collect();
    assert!(serde_json::from_str::<LogBatch>(&batch_json(1, many.get(..100).unwrap())).is_ok());
    check(
        &batch_json(1, &many),
        "invalid lines: more than 100 entries",
    );
    let long = "a".repeat(MAX_LOG_LINE_BYTES + 1);
    let at_bound = "a".repeat(MAX_LOG_LINE_BYTES);
    assert!(serde_json::from_str::<LogBatch>(&batch_json(1, &[line_json(0, &at_bound)])).is_ok());
    check(
        &batch_json(1, &[line_json(0, "x"), line_json(1, &long)]),
        "invalid lines[1].line: 8193 bytes is longer than 8192",
    );
    assert!(
        serde_json::from_str::<LogLine>(&line_json(0, &long))
            .unwrap_err()
            .to_string()
            .starts_with("invalid line: 8193 bytes is longer than 8192")
    );
    check(
        &batch_json(0, &[line_json(0, "x")]),
        "invalid attempt: must be greater than zero",
    );
    check(
        &batch_json(1, &[]),
        "invalid lines: a batch holds at least one line",
    );
    check(
        &batch_json(1, &[line_json(5, "x"), line_json(4, "y")]),
        "invalid lines[1].sequence: 4 is not above the line before it (5)",
    );
    check(r#"{"attempt":1}"#, "missing field `lines`");
    check(r#"{"attempt":1,"lines":null}"#, "invalid type: null");
    check(
        r#"{"attempt":1,"lines":[],"lease":"z"}"#,
        "unknown field `lease`",
    );
    check(
        r#"{"attempt":1,"lines":[{"sequence":0,"stream":"stdin","line":"","loggedAt":"2026-11-22T10:00:00Z"}]}"#,
        "unknown variant `stdin`",
    );
    check(
        r#"{"attempt":1,"lines":[{"sequence":0,"stream":"stdout","line":"","loggedAt":"2026-11-22T10:00:00Z","level":"info"}]}"#,
        "unknown field `level`",
    );
    check(r#"{"attempt":-1,"lines":[]}"#, "invalid value");
}

#[test]
fn a_stream_reads_back_from_its_wire_name_and_nothing_else_does() {
    for stream in [LogStream::Stdout, LogStream::Stderr] {
        assert_eq!(LogStream::from_name(stream.as_str()), Some(stream));
        let json = serde_json::to_string(&stream).unwrap();
        assert_eq!(json, format!("\"{}\"", stream.as_str()));
    }
    for name in ["", "STDOUT", "Stdout", "stdout ", "stdin", "err"] {
        assert_eq!(LogStream::from_name(name), None, "{name:?}");
    }
}
