use super::*;
use model_ids::{RunnerId, Slot, TaskId};
use model_policy::{AdmissionPolicy, BackoffPolicy, JitterPolicy, RestartPolicy};

fn check(err: impl Into<Error>, kind: ErrorKind) {
    let err = err.into();
    assert_eq!(err.kind(), kind, "{err}");
}

#[test]
fn kinds_of_layer_errors() {
    check(Slot::new("").unwrap_err(), ErrorKind::Invalid);
    check(TaskId::new("a b").unwrap_err(), ErrorKind::Invalid);
    check(RunnerId::new("..").unwrap_err(), ErrorKind::Invalid);
    check(
        "x".parse::<RestartPolicy>().unwrap_err(),
        ErrorKind::UnknownRestart,
    );
    check(
        "x".parse::<JitterPolicy>().unwrap_err(),
        ErrorKind::UnknownJitter,
    );
    check(
        "x".parse::<AdmissionPolicy>().unwrap_err(),
        ErrorKind::UnknownAdmission,
    );
    check(
        BackoffPolicy::new(JitterPolicy::None, 0, 1, 2.0).unwrap_err(),
        ErrorKind::Invalid,
    );
}

#[test]
fn kinds_of_schedule_errors() {
    use model_schedule::{Action, CronExpr};
    check(
        CronExpr::parse("0 0 32 * *").unwrap_err(),
        ErrorKind::Invalid,
    );
    let now = "2026-01-01T00:00:00Z".parse().unwrap();
    let mut action =
        Action::scheduled(model_ids::ActionId::from_u128(1), "a", now, None, now).unwrap();
    action.start(now).unwrap();
    check(action.start(now).unwrap_err(), ErrorKind::InvalidTransition);
}

#[test]
fn kinds_of_selector_and_task_errors() {
    use model_selector::{LabelSelector, Labels};
    use model_task::TaskPhase;
    check(
        "zone in (eu".parse::<LabelSelector>().unwrap_err(),
        ErrorKind::Invalid,
    );
    check(
        Labels::from_pairs([("-x", "1")]).unwrap_err(),
        ErrorKind::Invalid,
    );
    check(
        "sleeping".parse::<TaskPhase>().unwrap_err(),
        ErrorKind::UnknownTaskPhase,
    );
}

#[test]
fn kinds_of_attempt_errors() {
    use chrono::{TimeZone, Utc};
    use model_task::attempt::GoneReason;
    use model_task::{AttemptState, TaskError, TaskPhase};
    let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    check(
        TaskError::Gone {
            attempt: 1,
            reason: GoneReason::NotCurrentLease,
        },
        ErrorKind::Gone,
    );
    check(
        TaskError::AttemptConflict {
            attempt: 1,
            state: AttemptState::Failed,
            rule: "a different result is already recorded",
        },
        ErrorKind::Conflict,
    );
    check(
        TaskError::AttemptMismatch {
            task_attempt: 2,
            task_phase: TaskPhase::Pending,
            attempt: 1,
            state: AttemptState::Failed,
        },
        ErrorKind::Conflict,
    );
    check(
        TaskError::InvalidAttemptTransition {
            from: AttemptState::Leased,
            to: AttemptState::Failed,
        },
        ErrorKind::InvalidTransition,
    );
    check(
        TaskError::LeaseNotExpired {
            expires_at: now,
            now,
        },
        ErrorKind::InvalidTransition,
    );
}

#[test]
fn display_and_source_are_the_layer_error() {
    use std::error::Error as _;
    let inner = Slot::new("a/b").unwrap_err();
    let err = Error::from(inner.clone());
    assert_eq!(err.to_string(), inner.to_string());
    assert!(matches!(&err, Error::Id(e) if *e == inner));
    // transparent: the wrapper adds no level, so a report walking source() prints the cause once
    assert_eq!(
        err.source().map(ToString::to_string),
        inner.source().map(ToString::to_string)
    );
}

#[test]
fn kinds_of_query_errors() {
    use model_query::{MAX_LIMIT, QueryError, TaskQuery};
    let query = |pairs: &[(&str, &str)]| {
        TaskQuery::from_pairs(
            [("tenant", "infra")]
                .into_iter()
                .chain(pairs.iter().copied()),
        )
    };
    // A query names its tenant.
    let err: Error = TaskQuery::from_pairs([("slot", "a")]).unwrap_err().into();
    assert!(
        matches!(err, Error::Query(QueryError::MissingParameter { .. })),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::Invalid);
    check(
        query(&[("limit", &(MAX_LIMIT + 1).to_string())]).unwrap_err(),
        ErrorKind::Invalid,
    );
    check(query(&[("slot", "a b")]).unwrap_err(), ErrorKind::Invalid);
    check(
        query(&[("phase", "sleeping")]).unwrap_err(),
        ErrorKind::UnknownTaskPhase,
    );
    // Every continuation token error is an invalid input: the caller sends a bad token.
    for token in ["", "not base64!", "AAAA"] {
        let err = query(&[("continue", token)]).unwrap_err();
        assert!(err.is_token_error(), "{token:?}: {err}");
        check(err, ErrorKind::Invalid);
    }
    let err: Error = query(&[("limit", "0")]).unwrap_err().into();
    assert!(
        matches!(err, Error::Query(QueryError::LimitOutOfRange { .. })),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::Invalid);
}

#[test]
fn kinds_of_retention_errors() {
    use model_retention::{RetentionError, RetentionRule};
    let err = Error::from(RetentionRule::builder(101).build().unwrap_err());
    assert!(matches!(
        err,
        Error::Retention(RetentionError::Invalid { .. })
    ));
    assert_eq!(err.kind(), ErrorKind::Invalid);
    check(
        RetentionError::Duplicate {
            resource: "a".into(),
            other: "b".into(),
            what: "uid".into(),
        },
        ErrorKind::Conflict,
    );
}

#[test]
fn kinds_of_event_token_and_extension_errors() {
    use model_query::TaskRunQuery;
    use model_task::event::{OutputChunk, OutputStream, WatchWindow};
    use model_task::{ExtensionKind, KindSet, Token};
    let window = WatchWindow::new(10, 20).unwrap();
    // Compacted changes: the watcher lists again (gone); a version never issued is invalid.
    check(window.resume(5).unwrap_err(), ErrorKind::Gone);
    check(window.resume(21).unwrap_err(), ErrorKind::Invalid);
    check(WatchWindow::new(0, 1).unwrap_err(), ErrorKind::Invalid);
    let at = chrono::DateTime::UNIX_EPOCH;
    check(
        OutputChunk::new(1, OutputStream::Stdout, 0, at, Vec::new(), false).unwrap_err(),
        ErrorKind::Invalid,
    );
    check(Token::new("hunter2").unwrap_err(), ErrorKind::Invalid);
    check(
        ExtensionKind::new("no-slash", "Resize").unwrap_err(),
        ErrorKind::Invalid,
    );
    check(
        KindSet::from_name("embedded").unwrap_err(),
        ErrorKind::Invalid,
    );
    check(
        TaskRunQuery::from_pairs([("task", "a")]).unwrap_err(),
        ErrorKind::Invalid,
    );
}
