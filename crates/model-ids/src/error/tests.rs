//! Unit tests for `IdError`: messages, accessors, and the shortened input it quotes.

use super::IdError;
use crate::{ERROR_INPUT_MAX_CHARS, IdKind, Slot, TaskId, decode_base36};

#[test]
fn messages_table() {
    let check = |err: IdError, want: &str| assert_eq!(err.to_string(), want);
    check(Slot::new("").unwrap_err(), r#"invalid slot "": empty"#);
    check(
        Slot::new("a b").unwrap_err(),
        r#"invalid slot "a b": invalid character ' ' at byte 1 (allowed: A-Z a-z 0-9 . _ -)"#,
    );
    check(
        TaskId::new("a\tb").unwrap_err(),
        r#"invalid task id "a\tb": invalid character '\t' at byte 1 (allowed: A-Z a-z 0-9 . _ -)"#,
    );
    check(
        TaskId::new("a\0").unwrap_err(),
        r#"invalid task id "a\0": invalid character '\0' at byte 1 (allowed: A-Z a-z 0-9 . _ -)"#,
    );
    check(
        TaskId::new("x\"y").unwrap_err(),
        r#"invalid task id "x\"y": invalid character '"' at byte 1 (allowed: A-Z a-z 0-9 . _ -)"#,
    );
    check(
        TaskId::new("café").unwrap_err(),
        r#"invalid task id "café": invalid character 'é' at byte 3 (allowed: A-Z a-z 0-9 . _ -)"#,
    );
    check(
        Slot::new("a".repeat(65)).unwrap_err(),
        &format!(
            r#"invalid slot "{}…": too long (65 bytes, maximum 64)"#,
            "a".repeat(ERROR_INPUT_MAX_CHARS)
        ),
    );
    check(
        TaskId::new(format!("{} {}", "b".repeat(70), "c")).unwrap_err(),
        &format!(
            r#"invalid task id "{}…": invalid character ' ' at byte 70 (allowed: A-Z a-z 0-9 . _ -)"#,
            "b".repeat(ERROR_INPUT_MAX_CHARS)
        ),
    );
    check(
        Slot::new("..").unwrap_err(),
        r#"invalid slot "..": reserved name ("." and ".." are not allowed)"#,
    );
    check(
        decode_base36("").unwrap_err(),
        r#"invalid base-36 slug "": empty"#,
    );
    check(
        decode_base36("9i!x").unwrap_err(),
        r#"invalid base-36 slug "9i!x": invalid character '!' at byte 2 (allowed: 0-9 a-z A-Z)"#,
    );
    check(
        decode_base36("3w5e11264sgsg").unwrap_err(),
        r#"invalid base-36 slug "3w5e11264sgsg": out of range (maximum 3w5e11264sgsf)"#,
    );
    check(
        decode_base36("00000000000000").unwrap_err(),
        r#"invalid base-36 slug "00000000000000": too long (14 bytes, maximum 13)"#,
    );
}

#[test]
fn accessors() {
    let long = format!("{}/", "a".repeat(80));
    let table = [
        (Slot::new("").unwrap_err(), IdKind::Slot, String::new()),
        (
            TaskId::new("a/b").unwrap_err(),
            IdKind::TaskId,
            "a/b".to_owned(),
        ),
        (
            TaskId::new(&long).unwrap_err(),
            IdKind::TaskId,
            format!("{}…", "a".repeat(ERROR_INPUT_MAX_CHARS)),
        ),
        (Slot::new(".").unwrap_err(), IdKind::Slot, ".".to_owned()),
        (
            decode_base36("zzzzzzzzzzzzz").unwrap_err(),
            IdKind::Base36Slug,
            "zzzzzzzzzzzzz".to_owned(),
        ),
    ];
    for (err, kind, input) in table {
        assert_eq!(err.id_kind(), kind, "{err}");
        assert_eq!(err.input(), input, "{err}");
    }
}

#[test]
fn kind_names() {
    let names: Vec<String> = IdKind::ALL.iter().map(ToString::to_string).collect();
    assert_eq!(
        names,
        [
            "task id",
            "slot",
            "agent id",
            "runner id",
            "base-36 slug",
            "flow id",
            "job name",
            "schedule id",
            "tenant id",
            "action id",
            "uid"
        ]
    );
    assert_eq!(format!("{:>6}", IdKind::Slot), "  slot");
}
