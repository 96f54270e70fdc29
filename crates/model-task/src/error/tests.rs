//! Unit tests for `error`: path joining, quoting and messages.

use super::*;

#[test]
fn join_path_cases() {
    fn check(prefix: &str, path: &str, want: &str) {
        assert_eq!(
            join_path(prefix, path),
            want,
            "join_path({prefix:?}, {path:?})"
        );
    }
    check("kind", "mode.body", "kind.mode.body");
    check("env", "[2].key", "env[2].key");
    check("labels", "[\"x\"]", "labels[\"x\"]");
    check("cwd", "", "cwd");
    check("", "mode", "mode");
    check("", "", "");
}

#[test]
fn at_prefixes_only_path_errors() {
    let err = TaskError::invalid("[2].key", InvalidReason::Empty)
        .at("env")
        .at("kind");
    assert_eq!(err.path(), Some("kind.env[2].key"));
    let conflict = TaskError::Conflict {
        expected: 1,
        actual: 2,
    }
    .at("spec");
    assert_eq!(conflict.path(), None);
}

#[test]
fn quoted_input_is_cut_by_the_shared_rule() {
    use model_ids::text::ERROR_INPUT_MAX_CHARS;
    let quoted = |input: &str| match TaskError::invalid_input("p", input, InvalidReason::Empty) {
        TaskError::Invalid { input, .. } => input.unwrap(),
        other => panic!("{other:?}"),
    };
    assert_eq!(quoted("short"), "short");
    let exact = "a".repeat(ERROR_INPUT_MAX_CHARS);
    assert_eq!(quoted(&exact), exact);
    let long = "é".repeat(ERROR_INPUT_MAX_CHARS + 5);
    assert_eq!(
        quoted(&long),
        format!("{}…", "é".repeat(ERROR_INPUT_MAX_CHARS))
    );
    assert_eq!(quoted(&long), shorten(&long));
}

#[test]
fn messages_are_lowercase_with_path_reason_and_input() {
    fn check(err: TaskError, want: &str) {
        assert_eq!(err.to_string(), want);
    }
    check(
        TaskError::invalid_input(
            "kind.env[0].key",
            "A=B",
            InvalidReason::EqualsSign { index: 1 },
        ),
        "invalid kind.env[0].key \"A=B\": holds '=' at index 1",
    );
    check(
        TaskError::invalid("timeoutMs", InvalidReason::Zero),
        "invalid timeoutMs: must be greater than zero",
    );
    check(
        TaskError::Conflict {
            expected: 3,
            actual: 4,
        },
        "conflict: expected resource version 3, found 4",
    );
    check(
        TaskError::InvalidTransition {
            from: TaskPhase::Succeeded,
            to: TaskPhase::Running,
        },
        "invalid transition from succeeded to running",
    );
    check(
        TaskError::UnknownTaskPhase {
            input: "done".into(),
        },
        "unknown task phase \"done\", expected one of pending, running, succeeded, failed, timeout, canceled, exhausted",
    );
    check(
        TaskError::VersionOverflow { version: u64::MAX },
        "resource version 18446744073709551615 cannot be incremented",
    );
    check(
        TaskError::NameMismatch {
            task: model_ids::TaskId::new("job").unwrap(),
            manifest: model_ids::TaskId::new("other").unwrap(),
        },
        "invalid metadata.name: the manifest is for task \"other\", not task \"job\"",
    );
    check(
        TaskError::ApplyRefused {
            path: "spec.slot".into(),
            phase: TaskPhase::Running,
            rule: "the slot cannot change while an attempt runs in it",
        },
        "apply refused at spec.slot: the slot cannot change while an attempt runs in it (the task is running)",
    );
}

/// A value validated on its own (a `Timeout` read by itself) has an empty path: the message
/// says "value" instead of leaving a gap before the colon, and prefixed errors name the field.
#[test]
fn empty_paths_read_cleanly() {
    fn check(err: TaskError, want: &str) {
        assert_eq!(err.to_string(), want);
    }
    let zero = crate::spec::Timeout::new(0).unwrap_err();
    check(zero.clone(), "invalid value: must be greater than zero");
    check(
        zero.at("timeoutMs"),
        "invalid timeoutMs: must be greater than zero",
    );
    check(
        TaskError::invalid_input("", "A=B", InvalidReason::EqualsSign { index: 1 }),
        "invalid value \"A=B\": holds '=' at index 1",
    );
    let serde_err = serde_json::from_str::<crate::spec::Timeout>("0").unwrap_err();
    assert!(
        serde_err
            .to_string()
            .starts_with("invalid value: must be greater than zero"),
        "{serde_err}"
    );
    let id_error = model_ids::Slot::new("").unwrap_err();
    let id = TaskError::Id {
        path: String::new(),
        error: id_error.clone(),
    };
    check(id.clone(), &id_error.to_string());
    check(id.at("slot"), &format!("slot: {id_error}"));
    let policy_error =
        model_policy::BackoffPolicy::new(model_policy::JitterPolicy::None, 0, 1, 2.0).unwrap_err();
    let policy = TaskError::Policy {
        path: String::new(),
        error: policy_error.clone(),
    };
    check(policy, &policy_error.to_string());
}

#[test]
fn every_variant_has_its_kind() {
    use chrono::{TimeZone, Utc};
    use model_policy::{BackoffPolicy, JitterPolicy};

    let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    let id = model_ids::Slot::new("").unwrap_err();
    let policy = BackoffPolicy::new(JitterPolicy::None, 0, 1, 2.0).unwrap_err();
    let unknown_restart = "sometimes"
        .parse::<model_policy::RestartPolicy>()
        .unwrap_err();
    let selector = "zone in (eu"
        .parse::<model_selector::LabelSelector>()
        .unwrap_err();
    let cases: Vec<(TaskError, ErrorKind)> = vec![
        (
            TaskError::invalid("timeoutMs", InvalidReason::Zero),
            ErrorKind::Invalid,
        ),
        (
            TaskError::Id {
                path: "slot".into(),
                error: id,
            },
            ErrorKind::Invalid,
        ),
        (
            TaskError::Policy {
                path: "backoff.firstMs".into(),
                error: policy,
            },
            ErrorKind::Invalid,
        ),
        (
            TaskError::Policy {
                path: "restart".into(),
                error: unknown_restart,
            },
            ErrorKind::UnknownRestart,
        ),
        (TaskError::Selector(selector), ErrorKind::Invalid),
        (
            TaskError::UnknownKind { input: "x".into() },
            ErrorKind::Invalid,
        ),
        (
            TaskError::UnknownTaskPhase { input: "x".into() },
            ErrorKind::UnknownTaskPhase,
        ),
        (
            TaskError::NotRoutable { kind: "embedded" },
            ErrorKind::Invalid,
        ),
        (
            TaskError::NoRunner {
                kind: crate::spec::KindName::Wasm,
                selector: String::new(),
                runners: 0,
                supporting: 0,
                matching: 0,
            },
            ErrorKind::Invalid,
        ),
        (
            TaskError::Conflict {
                expected: 1,
                actual: 2,
            },
            ErrorKind::Conflict,
        ),
        (
            TaskError::InvalidTransition {
                from: TaskPhase::Succeeded,
                to: TaskPhase::Running,
            },
            ErrorKind::InvalidTransition,
        ),
        (
            TaskError::RestartNotDue { due: now, now },
            ErrorKind::InvalidTransition,
        ),
        (
            TaskError::VersionOverflow { version: u64::MAX },
            ErrorKind::Invalid,
        ),
        (
            TaskError::TimeOverflow { now, delay_ms: 1 },
            ErrorKind::Invalid,
        ),
        (
            TaskError::Gone {
                attempt: 1,
                reason: GoneReason::NotCurrentLease,
            },
            ErrorKind::Gone,
        ),
        (
            TaskError::AttemptConflict {
                attempt: 1,
                state: AttemptState::Failed,
                rule: "a different result is already recorded",
            },
            ErrorKind::Conflict,
        ),
        (
            TaskError::InvalidAttemptTransition {
                from: AttemptState::Leased,
                to: AttemptState::Failed,
            },
            ErrorKind::InvalidTransition,
        ),
        (
            TaskError::LeaseNotExpired {
                expires_at: now,
                now,
            },
            ErrorKind::InvalidTransition,
        ),
        (
            TaskError::LeaseReused {
                attempt: 1,
                lease: crate::attempt::LeaseId::new(7),
            },
            ErrorKind::Invalid,
        ),
        (
            TaskError::AttemptMismatch {
                task_attempt: 2,
                task_phase: TaskPhase::Pending,
                attempt: 1,
                state: AttemptState::Failed,
            },
            ErrorKind::Conflict,
        ),
        (TaskError::TooLarge { max: 4 }, ErrorKind::Invalid),
        (
            TaskError::Unreadable {
                line: 1,
                column: 1,
                message: "expected value".into(),
            },
            ErrorKind::Invalid,
        ),
        (
            TaskError::NameMismatch {
                task: model_ids::TaskId::new("a").unwrap(),
                manifest: model_ids::TaskId::new("b").unwrap(),
            },
            ErrorKind::Invalid,
        ),
        (
            TaskError::ApplyRefused {
                path: "spec".into(),
                phase: TaskPhase::Failed,
                rule: "a task that has ended keeps its spec; create a new task",
            },
            ErrorKind::InvalidTransition,
        ),
        (
            TaskError::UidMismatch {
                expected: model_ids::Uid::from_u128(1),
                actual: model_ids::Uid::from_u128(2),
            },
            ErrorKind::Gone,
        ),
    ];
    for (err, want) in cases {
        assert_eq!(err.kind(), want, "{err:?}");
    }
}
