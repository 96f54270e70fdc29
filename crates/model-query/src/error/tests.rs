//! Unit tests for `QueryError::kind`: every variant, as the wire paths produce it.

use model_ids::ErrorKind;

use crate::{QueryError, TaskQuery, TaskRunQuery};

/// The error `TaskQuery::from_pairs` gives for `pairs` after a `tenant` pair.
#[track_caller]
fn pairs_error(pairs: &[(&str, &str)]) -> QueryError {
    match TaskQuery::from_pairs([("tenant", "t")].into_iter().chain(pairs.iter().copied())) {
        Ok(query) => panic!("{pairs:?} parsed as {query:?}"),
        Err(err) => err,
    }
}

/// The error `TaskRunQuery::from_pairs` gives for `pairs`.
#[track_caller]
fn run_pairs_error(pairs: &[(&str, &str)]) -> QueryError {
    match TaskRunQuery::from_pairs(pairs.iter().copied()) {
        Ok(query) => panic!("{pairs:?} parsed as {query:?}"),
        Err(err) => err,
    }
}

#[test]
fn every_variant_has_its_kind() {
    let long = "x".repeat(crate::MAX_VALUE_LEN + 1);
    let many: Vec<(&str, &str)> = vec![("phase", "running"); crate::MAX_PHASES + 1];
    let a = TaskQuery::builder("t".parse().unwrap())
        .slot("a".parse().unwrap())
        .build()
        .unwrap();
    let b = TaskQuery::builder("t".parse().unwrap())
        .slot("b".parse().unwrap())
        .build()
        .unwrap();
    let token = a.continue_after(crate::SortKey::new(
        chrono::DateTime::UNIX_EPOCH,
        "t".parse().unwrap(),
    ));
    let table: Vec<(QueryError, ErrorKind)> = vec![
        (pairs_error(&[("limit", "0")]), ErrorKind::Invalid),
        (pairs_error(&[("limit", "many")]), ErrorKind::Invalid),
        (pairs_error(&[("slot", "a b")]), ErrorKind::Invalid),
        (
            pairs_error(&[("labelSelector", "zone in (eu")]),
            ErrorKind::Invalid,
        ),
        (
            pairs_error(&[("phase", "sleeping")]),
            ErrorKind::UnknownTaskPhase,
        ),
        (pairs_error(&many), ErrorKind::Invalid),
        (
            pairs_error(&[
                ("createdSince", "2024-01-02T00:00:00Z"),
                ("createdBefore", "2024-01-01T00:00:00Z"),
            ]),
            ErrorKind::Invalid,
        ),
        (pairs_error(&[("colour", "red")]), ErrorKind::Invalid),
        (
            TaskQuery::from_pairs([("slot", "a")]).unwrap_err(),
            ErrorKind::Invalid,
        ),
        (
            TaskQuery::from_pairs([("tenant", "a/b")]).unwrap_err(),
            ErrorKind::Invalid,
        ),
        (
            pairs_error(&[("slot", "a"), ("slot", "b")]),
            ErrorKind::Invalid,
        ),
        (pairs_error(&[("slot", &long)]), ErrorKind::Invalid),
        (pairs_error(&[("continue", "")]), ErrorKind::Invalid),
        (
            pairs_error(&[("continue", &"A".repeat(crate::MAX_TOKEN_LEN + 1))]),
            ErrorKind::Invalid,
        ),
        (pairs_error(&[("continue", "!!!")]), ErrorKind::Invalid),
        (
            b.with_continue(token.clone()).unwrap_err(),
            ErrorKind::Invalid,
        ),
        (
            run_pairs_error(&[("tenant", "t"), ("task", "a"), ("continue", token.as_str())]),
            ErrorKind::Invalid,
        ),
        (run_pairs_error(&[("task", "a")]), ErrorKind::Invalid),
        (
            run_pairs_error(&[("tenant", "t"), ("task", "a b")]),
            ErrorKind::Invalid,
        ),
        (
            run_pairs_error(
                &[("tenant", "t"), ("task", "a")]
                    .into_iter()
                    .chain(std::iter::repeat_n(
                        ("state", "failed"),
                        crate::MAX_STATES + 1,
                    ))
                    .collect::<Vec<_>>(),
            ),
            ErrorKind::Invalid,
        ),
        // Built directly: these need many pairs or hand-made token bytes
        // (`tests/pairs.rs` and `token/tests.rs` make them).
        (
            QueryError::TooManyParameters {
                max: crate::MAX_QUERY_PAIRS,
            },
            ErrorKind::Invalid,
        ),
        (
            QueryError::TokenMalformed {
                field: "continue".into(),
                input: "x".into(),
                reason: "truncated",
            },
            ErrorKind::Invalid,
        ),
        (
            QueryError::TokenVersion {
                field: "continue".into(),
                input: "x".into(),
                version: 9,
            },
            ErrorKind::Invalid,
        ),
        (
            QueryError::TokenChecksum {
                field: "continue".into(),
                input: "x".into(),
            },
            ErrorKind::Invalid,
        ),
    ];
    for (err, kind) in &table {
        assert_eq!(err.kind(), *kind, "{err}");
    }
    // The table names every variant; the `match` in `kind` is exhaustive, so a new variant
    // fails to compile there until it is classified, and this list shows which are tested.
    let mut seen: Vec<&str> = table.iter().map(|(err, _)| variant(err)).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(
        seen,
        [
            "DuplicateParameter",
            "EmptyTimeRange",
            "InvalidId",
            "InvalidPhase",
            "InvalidSelector",
            "InvalidSlot",
            "InvalidValue",
            "LimitOutOfRange",
            "MissingParameter",
            "TokenChecksum",
            "TokenEmpty",
            "TokenEncoding",
            "TokenListingMismatch",
            "TokenMalformed",
            "TokenQueryMismatch",
            "TokenTooLong",
            "TokenVersion",
            "TooManyParameters",
            "TooManyPhases",
            "TooManyStates",
            "UnknownParameter",
            "ValueTooLong",
        ]
    );
}

/// The variant's name.
fn variant(err: &QueryError) -> &'static str {
    match err {
        QueryError::LimitOutOfRange { .. } => "LimitOutOfRange",
        QueryError::InvalidValue { .. } => "InvalidValue",
        QueryError::InvalidSlot { .. } => "InvalidSlot",
        QueryError::InvalidSelector { .. } => "InvalidSelector",
        QueryError::InvalidPhase { .. } => "InvalidPhase",
        QueryError::TooManyPhases { .. } => "TooManyPhases",
        QueryError::TooManyStates { .. } => "TooManyStates",
        QueryError::InvalidId { .. } => "InvalidId",
        QueryError::MissingParameter { .. } => "MissingParameter",
        QueryError::EmptyTimeRange { .. } => "EmptyTimeRange",
        QueryError::UnknownParameter { .. } => "UnknownParameter",
        QueryError::DuplicateParameter { .. } => "DuplicateParameter",
        QueryError::TooManyParameters { .. } => "TooManyParameters",
        QueryError::ValueTooLong { .. } => "ValueTooLong",
        QueryError::TokenEmpty { .. } => "TokenEmpty",
        QueryError::TokenTooLong { .. } => "TokenTooLong",
        QueryError::TokenEncoding { .. } => "TokenEncoding",
        QueryError::TokenMalformed { .. } => "TokenMalformed",
        QueryError::TokenVersion { .. } => "TokenVersion",
        QueryError::TokenChecksum { .. } => "TokenChecksum",
        QueryError::TokenListingMismatch { .. } => "TokenListingMismatch",
        QueryError::TokenQueryMismatch { .. } => "TokenQueryMismatch",
    }
}
