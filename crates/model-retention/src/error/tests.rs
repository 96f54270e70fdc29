//! Unit tests of `error`: every variant's message and kind, and paths joined under a prefix.

use model_ids::ErrorKind;

use super::*;

fn uid(n: u128) -> Uid {
    Uid::from_u128(n)
}

#[test]
fn every_variant_says_what_is_wrong_and_has_a_kind() {
    let cases: [(RetentionError, &str, ErrorKind); 7] = [
        (
            RetentionError::invalid_input(
                "name",
                "a b",
                InvalidReason::InvalidChar { ch: ' ', index: 1 },
            ),
            "invalid name \"a b\": invalid character ' ' at byte 1 (allowed: A-Z a-z 0-9 . _ - /)",
            ErrorKind::Invalid,
        ),
        (
            RetentionError::SelfOwner {
                resource: "task \"t\"".into(),
                index: 0,
            },
            "invalid ownerReferences[0]: task \"t\" cannot own itself",
            ErrorKind::Invalid,
        ),
        (
            RetentionError::SecondController { first: 0, index: 2 },
            "invalid ownerReferences[2]: a second controller (ownerReferences[0] is the controller)",
            ErrorKind::Invalid,
        ),
        (
            RetentionError::MissingOwner {
                resource: "task \"t\"".into(),
                owner: "flow \"f\"".into(),
            },
            "task \"t\": owner flow \"f\" not found",
            ErrorKind::Invalid,
        ),
        (
            RetentionError::OwnerUidMismatch {
                resource: "task \"t\"".into(),
                owner: "flow \"f\"".into(),
                expected: uid(1),
                actual: uid(2),
            },
            "task \"t\": owner flow \"f\" has uid 00000000-0000-0000-0000-000000000002, the reference names uid 00000000-0000-0000-0000-000000000001",
            ErrorKind::Gone,
        ),
        (
            RetentionError::OwnerCycle {
                cycle: "task \"a\" -> task \"a\"".into(),
            },
            "owner references form a cycle: task \"a\" -> task \"a\"",
            ErrorKind::Invalid,
        ),
        (
            RetentionError::Duplicate {
                resource: "flow \"b\"".into(),
                other: "flow \"a\"".into(),
                what: "uid 1".into(),
            },
            "flow \"b\" and flow \"a\" are both uid 1",
            ErrorKind::Conflict,
        ),
    ];
    for (err, message, kind) in cases {
        assert_eq!(err.to_string(), message);
        assert_eq!(err.kind(), kind, "{err}");
    }
}

#[test]
fn a_long_input_is_quoted_short() {
    let err = RetentionError::invalid_input("name", &"x".repeat(300), InvalidReason::Empty);
    let RetentionError::Invalid {
        input: Some(ref input),
        ..
    } = err
    else {
        panic!("{err:?}");
    };
    assert_eq!(input.chars().count(), model_ids::ERROR_INPUT_MAX_CHARS + 1);
    assert!(err.to_string().contains('…'));
}

#[test]
fn a_prefix_joins_the_path() {
    let cases = [
        (
            "rules.task",
            "ttlAfterFinishedMs",
            "rules.task.ttlAfterFinishedMs",
        ),
        ("", "name", "name"),
        ("history", "", "history"),
    ];
    for (prefix, path, want) in cases {
        let err = RetentionError::invalid(path, InvalidReason::Empty).at(prefix);
        assert!(
            matches!(err, RetentionError::Invalid { ref path, .. } if path == want),
            "{err:?}"
        );
    }
    let other = RetentionError::SecondController { first: 0, index: 1 };
    assert_eq!(other.clone().at("x"), other);
}
