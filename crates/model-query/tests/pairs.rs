//! Parsing queries from decoded URL query pairs, and back.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers unwrap fixtures known to be valid"
)]

mod common;

use model_query::{
    DEFAULT_LIMIT, MAX_LIMIT, MAX_PHASES, MAX_QUERY_PAIRS, MAX_VALUE_LEN, QueryError, SortOrder,
    TaskQuery,
};
use model_task::TaskPhase;
use proptest::prelude::*;

/// Reads `pairs` after a `tenant` pair (the fixtures' tenant).
fn parse(pairs: &[(&str, &str)]) -> Result<TaskQuery, QueryError> {
    TaskQuery::from_pairs(
        [("tenant", "team-a")]
            .into_iter()
            .chain(pairs.iter().copied()),
    )
}

/// Expects an error of the given variant naming `field`.
fn check_err(pairs: &[(&str, &str)], field: Option<&str>, variant: fn(&QueryError) -> bool) {
    let err = parse(pairs).unwrap_err();
    assert!(variant(&err), "{pairs:?}: {err:?}");
    assert_eq!(err.field(), field, "{pairs:?}: {err}");
}

fn check_ok(pairs: &[(&str, &str)], expect: impl Fn(&TaskQuery) -> bool) {
    let query = parse(pairs).unwrap_or_else(|e| panic!("{pairs:?}: {e}"));
    assert!(expect(&query), "{pairs:?}: {query:?}");
}

#[test]
fn accepted() {
    check_ok(&[], |q| {
        *q.tenant() == common::tenant()
            && q.limit() == DEFAULT_LIMIT
            && q.order() == SortOrder::Ascending
            && q.slot().is_none()
            && q.phases().is_empty()
            && q.label_selector().is_none()
            && q.continue_token().is_none()
    });
    check_ok(&[("slot", "a")], |q| q.slot().is_some_and(|s| s == "a"));
    check_ok(&[("phase", "running"), ("phase", "failed")], |q| {
        q.phases() == [TaskPhase::Running, TaskPhase::Failed]
    });
    check_ok(&[("phase", "Running"), ("phase", "running")], |q| {
        q.phases() == [TaskPhase::Running]
    });
    check_ok(&[("labelSelector", "zone=eu")], |q| {
        q.label_selector()
            .is_some_and(|s| s.to_string() == "zone=eu")
    });
    check_ok(&[("labelSelector", "")], |q| {
        q.label_selector().is_some_and(|s| s.is_empty())
    });
    check_ok(&[("limit", "1")], |q| q.limit() == 1);
    check_ok(&[("limit", "1000")], |q| q.limit() == MAX_LIMIT);
    check_ok(&[("limit", "007")], |q| q.limit() == 7);
    check_ok(&[("order", "desc")], |q| q.order() == SortOrder::Descending);
    check_ok(&[("order", "DESCENDING")], |q| {
        q.order() == SortOrder::Descending
    });
    check_ok(&[("order", "asc")], |q| q.order() == SortOrder::Ascending);
    check_ok(&[("createdSince", "2024-05-01T12:00:00+02:00")], |q| {
        q.created().since == Some(common::at(1_714_557_600))
    });
    check_ok(
        &[
            ("updatedSince", "2024-01-01T00:00:00Z"),
            ("updatedBefore", "2024-01-01T00:00:00.000000001Z"),
        ],
        |q| q.updated().before.is_some(),
    );
}

#[test]
fn rejected_values_name_their_parameter() {
    let out_of_range = |e: &QueryError| matches!(e, QueryError::LimitOutOfRange { .. });
    let invalid = |e: &QueryError| matches!(e, QueryError::InvalidValue { .. });
    check_err(&[("limit", "0")], Some("limit"), out_of_range);
    check_err(&[("limit", "1001")], Some("limit"), out_of_range);
    check_err(&[("limit", "-1")], Some("limit"), out_of_range);
    check_err(
        &[("limit", "99999999999999999999999")],
        Some("limit"),
        out_of_range,
    );
    check_err(&[("limit", "abc")], Some("limit"), invalid);
    check_err(&[("limit", "")], Some("limit"), invalid);
    check_err(&[("limit", "1.5")], Some("limit"), invalid);
    check_err(&[("limit", "+5")], Some("limit"), invalid);
    check_err(&[("limit", " 5")], Some("limit"), invalid);
    check_err(&[("order", "up")], Some("order"), invalid);
    check_err(
        &[("createdSince", "yesterday")],
        Some("createdSince"),
        invalid,
    );
    check_err(
        &[("updatedBefore", "2024-01-01")],
        Some("updatedBefore"),
        invalid,
    );
    check_err(&[("phase", "runing")], Some("phase"), |e| {
        matches!(e, QueryError::InvalidPhase { .. })
    });
    check_err(&[("phase", "")], Some("phase"), |e| {
        matches!(e, QueryError::InvalidPhase { .. })
    });
    check_err(&[("slot", "a b")], Some("slot"), |e| {
        matches!(e, QueryError::InvalidSlot { .. })
    });
    check_err(&[("slot", "")], Some("slot"), |e| {
        matches!(e, QueryError::InvalidSlot { .. })
    });
    check_err(
        &[("labelSelector", "zone in (")],
        Some("labelSelector"),
        |e| matches!(e, QueryError::InvalidSelector { .. }),
    );
    let empty = |e: &QueryError| matches!(e, QueryError::EmptyTimeRange { .. });
    check_err(
        &[
            ("createdSince", "2024-01-02T00:00:00Z"),
            ("createdBefore", "2024-01-01T00:00:00Z"),
        ],
        Some("createdBefore"),
        empty,
    );
    check_err(
        &[
            ("updatedSince", "2024-01-01T00:00:00Z"),
            ("updatedBefore", "2024-01-01T00:00:00Z"),
        ],
        Some("updatedBefore"),
        empty,
    );
}

#[test]
fn rejected_parameters() {
    let unknown = |e: &QueryError| matches!(e, QueryError::UnknownParameter { .. });
    check_err(&[("colour", "red")], Some("colour"), unknown);
    check_err(&[("Slot", "a")], Some("Slot"), unknown);
    check_err(&[("phases", "running")], Some("phases"), unknown);
    check_err(&[("", "")], Some(""), unknown);
    let dup = |e: &QueryError| matches!(e, QueryError::DuplicateParameter { .. });
    check_err(&[("slot", "a"), ("slot", "a")], Some("slot"), dup);
    check_err(&[("tenant", "team-a")], Some("tenant"), dup);
    check_err(&[("limit", "5"), ("limit", "6")], Some("limit"), dup);
    check_err(&[("order", "asc"), ("order", "desc")], Some("order"), dup);
    check_err(
        &[("labelSelector", ""), ("labelSelector", "")],
        Some("labelSelector"),
        dup,
    );

    let phases: Vec<(&str, &str)> = vec![("phase", "running"); MAX_PHASES];
    assert!(parse(&phases).is_ok());
    let mut too_many = phases.clone();
    too_many.push(("phase", "running"));
    check_err(&too_many, Some("phase"), |e| {
        matches!(e, QueryError::TooManyPhases { .. })
    });
}

#[test]
fn bounds_on_pairs_and_values() {
    // The most pairs a valid query can have: every parameter once, phase MAX_PHASES times.
    let mut pairs: Vec<(&str, String)> = vec![
        ("tenant", "team-a".into()),
        ("slot", "a".into()),
        ("labelSelector", "zone=eu".into()),
        ("createdSince", "2024-01-01T00:00:00Z".into()),
        ("createdBefore", "2024-02-01T00:00:00Z".into()),
        ("updatedSince", "2024-01-01T00:00:00Z".into()),
        ("updatedBefore", "2024-02-01T00:00:00Z".into()),
        ("order", "asc".into()),
        ("limit", "10".into()),
    ];
    pairs.extend(std::iter::repeat_n(
        ("phase", "failed".to_owned()),
        MAX_PHASES,
    ));
    // A token for the query with these filters.
    let base = TaskQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str()))).unwrap();
    let token = base.continue_after(model_query::SortKey::new(
        common::at(0),
        "x".parse().unwrap(),
    ));
    pairs.push(("continue", token.to_string()));
    assert_eq!(pairs.len(), MAX_QUERY_PAIRS);
    assert!(TaskQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str()))).is_ok());
    pairs.push(("anything", String::new()));
    let err = TaskQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str()))).unwrap_err();
    assert!(
        matches!(
            err,
            QueryError::TooManyParameters {
                max: MAX_QUERY_PAIRS,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.field(), None);

    // Values: at the bound the value is parsed (here: a token too long), above it not.
    let at_bound = "A".repeat(MAX_VALUE_LEN);
    check_err(&[("continue", &at_bound)], Some("continue"), |e| {
        matches!(e, QueryError::TokenTooLong { .. })
    });
    let over = "A".repeat(MAX_VALUE_LEN + 1);
    let err = TaskQuery::from_pairs([("tenant", over.as_str())]).unwrap_err();
    assert!(matches!(err, QueryError::ValueTooLong { .. }), "{err:?}");
    for name in ["slot", "labelSelector", "continue", "phase", "createdSince"] {
        check_err(
            &[(name, &over)],
            Some(name),
            |e| matches!(e, QueryError::ValueTooLong { len, .. } if *len == MAX_VALUE_LEN + 1),
        );
    }
}

#[test]
fn long_unknown_names_are_shortened_in_errors() {
    let name = "x".repeat(10_000);
    let err = parse(&[(&name, "1")]).unwrap_err();
    assert!(err.to_string().len() < 300, "{err}");
}

#[test]
fn messages() {
    let msg = |pairs: &[(&str, &str)]| parse(pairs).unwrap_err().to_string();
    assert_eq!(
        msg(&[("limit", "0")]),
        r#"limit: "0" is out of range (1 to 1000)"#
    );
    assert_eq!(
        msg(&[("limit", "abc")]),
        r#"limit: invalid value "abc", expected an integer from 1 to 1000"#
    );
    assert_eq!(
        msg(&[("slot", "a"), ("slot", "b")]),
        "slot: given more than once"
    );
    assert!(
        msg(&[("colour", "red")])
            .starts_with(r#""colour": unknown parameter (expected one of tenant, slot, phase"#)
    );
}

#[test]
fn a_query_names_its_tenant() {
    let missing = |e: &QueryError| matches!(e, QueryError::MissingParameter { .. });
    for pairs in [
        &[][..],
        &[("slot", "a")],
        &[("limit", "5"), ("order", "desc")],
    ] {
        let err = TaskQuery::from_pairs(pairs.iter().copied()).unwrap_err();
        assert!(missing(&err), "{pairs:?}: {err:?}");
        assert_eq!(err.field(), Some("tenant"));
        assert_eq!(err.to_string(), "tenant: required");
    }
    for tenant in ["", "a/b", "Team A"] {
        let err = TaskQuery::from_pairs([("tenant", tenant)]).unwrap_err();
        assert!(
            matches!(err, QueryError::InvalidId { .. }),
            "{tenant:?}: {err:?}"
        );
        assert_eq!(err.field(), Some("tenant"));
    }
    let query = TaskQuery::from_pairs([("limit", "5"), ("tenant", "team-b")]).unwrap();
    assert_eq!(query.tenant().as_str(), "team-b");
    assert_eq!(query.to_pairs()[0], ("tenant", "team-b".to_owned()));
}

proptest! {
    #[test]
    fn to_pairs_round_trips(query in common::queries()) {
        let pairs = query.to_pairs();
        let back = TaskQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str()))).unwrap();
        prop_assert_eq!(back, query);
    }

    #[test]
    fn arbitrary_pairs_never_panic(
        pairs in prop::collection::vec(
            (prop::sample::select(vec!["tenant", "slot", "phase", "labelSelector", "createdSince", "order", "limit", "continue", "x"]), "\\PC{0,20}"),
            0..40,
        )
    ) {
        let _ = TaskQuery::from_pairs(pairs);
    }
}
