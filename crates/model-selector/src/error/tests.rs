//! `message()` is the display without the path, and `kind()` the category, for every variant.

use model_ids::{ErrorKind, RunnerId};

use crate::{SelectorError, SelectorOperator};

/// `error` with `path` displays as `display`, `message()` is the same without the path, and
/// its kind is `Invalid`.
#[track_caller]
fn check(error: SelectorError, path: &str, display: &str, message: &str) {
    assert_eq!(error.path(), path);
    assert_eq!(error.to_string(), display);
    assert_eq!(error.message(), message);
    // Every selector error is an input to fix.
    assert_eq!(error.kind(), ErrorKind::Invalid, "{error}");
    // Prefixing moves the path, never the message.
    let prefixed = error.prefixed("runnerSelector");
    assert_eq!(prefixed.message(), message);
}

#[test]
fn message_is_the_display_without_the_path() {
    check(
        SelectorError::InvalidKey {
            path: "matchExpressions[1].key".into(),
            key: "\"A B\"".into(),
            reason: "bad",
        },
        "matchExpressions[1].key",
        "matchExpressions[1].key: invalid label key \"A B\": bad",
        "invalid label key \"A B\": bad",
    );
    check(
        SelectorError::InvalidValue {
            path: "[\"zone\"]".into(),
            value: "\"EU!\"".into(),
            reason: "bad",
        },
        "[\"zone\"]",
        "[\"zone\"]: invalid label value \"EU!\": bad",
        "invalid label value \"EU!\": bad",
    );
    check(
        SelectorError::DuplicateKey {
            path: "matchLabels[\"a\"]".into(),
            key: "\"a\"".into(),
        },
        "matchLabels[\"a\"]",
        "matchLabels[\"a\"]: duplicate label key \"a\"",
        "duplicate label key \"a\"",
    );
    check(
        SelectorError::TooMany {
            path: "values".into(),
            what: "values",
            limit: 128,
        },
        "values",
        "values: too many values: the limit is 128",
        "too many values: the limit is 128",
    );
    check(
        SelectorError::TooMany {
            path: String::new(),
            what: "labels",
            limit: 64,
        },
        "",
        "too many labels: the limit is 64",
        "too many labels: the limit is 64",
    );
    check(
        SelectorError::ValueCount {
            path: "values".into(),
            operator: SelectorOperator::In,
            expected: "needs at least one value",
            count: 0,
        },
        "values",
        "values: operator In needs at least one value, got 0",
        "operator In needs at least one value, got 0",
    );
    check(
        SelectorError::NotAnInteger {
            path: "values[0]".into(),
            operator: SelectorOperator::Gt,
            value: "\"x\"".into(),
        },
        "values[0]",
        "values[0]: operator Gt needs an integer value, got \"x\"",
        "operator Gt needs an integer value, got \"x\"",
    );
    check(
        SelectorError::UnknownOperator {
            path: "operator".into(),
            found: "\"Near\"".into(),
        },
        "operator",
        "operator: unknown operator \"Near\", expected In, NotIn, Exists, DoesNotExist, Gt or Lt",
        "unknown operator \"Near\", expected In, NotIn, Exists, DoesNotExist, Gt or Lt",
    );
    let id: RunnerId = "r1".parse().unwrap();
    check(
        SelectorError::RunnerExists {
            path: "[3]".into(),
            id: id.clone(),
        },
        "[3]",
        "[3]: runner \"r1\" is already registered",
        "runner \"r1\" is already registered",
    );
    check(
        SelectorError::UnknownRunner {
            path: "[0]".into(),
            id,
        },
        "[0]",
        "[0]: runner \"r1\" is not registered",
        "runner \"r1\" is not registered",
    );
    let syntax = SelectorError::Syntax {
        position: 4,
        expected: "a value",
        found: "end of input".into(),
    };
    let display = "selector syntax error at byte 4: expected a value, found end of input";
    check(syntax, "", display, display);
}
