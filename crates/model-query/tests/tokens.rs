//! Continuation tokens through the public API: bound to their query, and every damaged,
//! foreign or random token rejected with a typed error.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers unwrap fixtures known to be valid"
)]

mod common;

use common::{Row, row};
use model_query::{ContinueToken, MAX_TOKEN_LEN, QueryError, SortOrder, TaskQuery};
use model_task::TaskPhase;
use proptest::prelude::*;

/// Whether an error is the expected one.
type Expect = fn(&QueryError) -> bool;

fn rows() -> Vec<Row> {
    (0..20)
        .map(|n| row(n, i64::from(n), "a", TaskPhase::Running, "eu"))
        .collect()
}

fn query(limit: u32) -> TaskQuery {
    TaskQuery::builder(common::tenant())
        .limit(limit)
        .build()
        .unwrap()
}

fn token() -> ContinueToken {
    query(3).evaluate(rows()).next.unwrap()
}

#[test]
fn token_resumes_the_same_query_and_reports_its_key() {
    let first = query(3).evaluate(rows());
    let token = first.next.unwrap();
    assert_eq!(token.after().id, first.items[2].id);
    let parsed: ContinueToken = token.as_str().parse().unwrap();
    assert_eq!(parsed, token);
    let second = query(3).with_continue(parsed).unwrap().evaluate(rows());
    assert_eq!(second.items[0].id.as_str(), "t3");
}

#[test]
fn a_token_from_another_query_is_rejected() {
    let token = token();
    let others = [
        TaskQuery::builder("team-b".parse().unwrap())
            .build()
            .unwrap(),
        TaskQuery::builder(common::tenant())
            .order(SortOrder::Descending)
            .build()
            .unwrap(),
        TaskQuery::builder(common::tenant())
            .phase(TaskPhase::Running)
            .build()
            .unwrap(),
        TaskQuery::builder(common::tenant())
            .slot("a".parse().unwrap())
            .build()
            .unwrap(),
        TaskQuery::builder(common::tenant())
            .label_selector("zone=eu".parse().unwrap())
            .build()
            .unwrap(),
        TaskQuery::builder(common::tenant())
            .created_since(common::at(0))
            .build()
            .unwrap(),
        TaskQuery::builder(common::tenant())
            .updated_before(common::at(100))
            .build()
            .unwrap(),
    ];
    for other in others {
        let err = other.with_continue(token.clone()).unwrap_err();
        assert!(
            matches!(err, QueryError::TokenQueryMismatch { .. }),
            "{other:?}: {err}"
        );
        let err = other
            .to_builder()
            .continue_from(token.clone())
            .build()
            .unwrap_err();
        assert!(matches!(err, QueryError::TokenQueryMismatch { .. }));
        assert_eq!(err.field(), Some("continue"));
    }
    // Only the limit may differ.
    assert!(query(7).with_continue(token.clone()).is_ok());
    // Equivalent selectors written differently are the same query.
    let a = TaskQuery::builder(common::tenant())
        .label_selector("zone=eu,tier in (b,a)".parse().unwrap())
        .build()
        .unwrap();
    let b = TaskQuery::builder(common::tenant())
        .label_selector("tier in (a,b), zone=eu".parse().unwrap())
        .build()
        .unwrap();
    let token = a.evaluate(rows()).next;
    if let Some(token) = token {
        assert!(b.with_continue(token).is_ok());
    }
    assert!(
        a.continue_after(model_query::SortKey::new(
            common::at(1),
            "x".parse().unwrap()
        ))
        .as_str()
        .parse::<ContinueToken>()
        .is_ok_and(|t| b.with_continue(t).is_ok())
    );
}

#[test]
fn from_pairs_rejects_bad_tokens_naming_continue() {
    let good = token().to_string();
    let cases: Vec<(String, Expect)> = vec![
        (String::new(), |e| {
            matches!(e, QueryError::TokenEmpty { .. })
        }),
        ("not base64!".into(), |e| {
            matches!(e, QueryError::TokenEncoding { .. })
        }),
        (good[..good.len() / 2].into(), |e| e.is_token_error()),
        ("A".repeat(MAX_TOKEN_LEN + 1), |e| {
            matches!(e, QueryError::TokenTooLong { .. })
        }),
    ];
    for (input, expected) in cases {
        let err = TaskQuery::from_pairs([("tenant", "team-a"), ("continue", input.as_str())])
            .unwrap_err();
        assert!(expected(&err), "{input:?}: {err:?}");
        assert_eq!(err.field(), Some("continue"));
    }
    let err = TaskQuery::from_pairs([
        ("tenant", "team-a"),
        ("continue", good.as_str()),
        ("order", "desc"),
    ])
    .unwrap_err();
    assert!(matches!(err, QueryError::TokenQueryMismatch { .. }));
    assert!(
        TaskQuery::from_pairs([
            ("tenant", "team-a"),
            ("continue", good.as_str()),
            ("limit", "9")
        ])
        .is_ok()
    );
}

proptest! {
    #[test]
    fn every_single_character_edit_is_rejected(
        at in any::<prop::sample::Index>(),
        with in prop::sample::select(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=.!".chars().collect::<Vec<_>>()
        ),
    ) {
        let good = token().to_string();
        let i = at.index(good.len());
        prop_assume!(good.as_bytes()[i] != with as u8);
        let mut edited = good.clone();
        edited.replace_range(i..=i, &with.to_string());
        let err = ContinueToken::parse(&edited).unwrap_err();
        prop_assert!(err.is_token_error(), "{err}");
    }

    #[test]
    fn every_truncation_is_rejected(cut in any::<prop::sample::Index>()) {
        let good = token().to_string();
        let err = ContinueToken::parse(&good[..cut.index(good.len())]).unwrap_err();
        prop_assert!(err.is_token_error());
    }

    #[test]
    fn random_strings_are_rejected_without_panic(s in "\\PC{0,500}") {
        let result = TaskQuery::from_pairs([("tenant", "team-a"), ("continue", s.as_str())]);
        prop_assert!(result.is_err());
        let err = result.unwrap_err();
        let expected = err.is_token_error() || matches!(err, QueryError::ValueTooLong { .. });
        prop_assert!(expected, "{}", err);
    }

    #[test]
    fn random_url_safe_strings_are_rejected(s in "[A-Za-z0-9_-]{0,400}") {
        prop_assert!(ContinueToken::parse(&s).is_err());
    }
}
