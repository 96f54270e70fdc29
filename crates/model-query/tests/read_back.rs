//! Every value the crate writes reads back equal, over the whole time range chrono holds
//! (years -262143 to 262142, leap seconds included): query JSON, URL pairs, continuation
//! tokens, and a token inside a query's JSON and pairs.
#![allow(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions may fail loudly"
)]

use chrono::{DateTime, Utc};
use model_ids::{TaskId, TenantId};
use model_query::{ContinueToken, SortKey, SortOrder, TaskQuery};
use proptest::prelude::*;

/// Any instant chrono can hold: every second of its range, every nanosecond, and the
/// leap-second nanoseconds (1e9 and up) where chrono allows them (the 59th second).
fn any_time() -> impl Strategy<Value = DateTime<Utc>> {
    let (min, max) = (DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC);
    (min.timestamp()..=max.timestamp(), 0u32..2_000_000_000).prop_filter_map(
        "outside chrono's range, or a leap second off the 59th second",
        |(secs, nanos)| DateTime::from_timestamp(secs, nanos),
    )
}

/// Times at the ends of the range and at the edges of four-digit years.
fn edge_times() -> Vec<DateTime<Utc>> {
    let t = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
    vec![
        DateTime::<Utc>::MIN_UTC,
        DateTime::<Utc>::MAX_UTC,
        DateTime::UNIX_EPOCH,
        t("0000-01-01T00:00:00Z"),
        t("9999-12-31T23:59:59.999999999Z"),
        t("+10000-01-01T00:00:00Z"),
        t("-0001-12-31T23:59:59Z"),
        DateTime::from_timestamp(59, 1_500_000_000).unwrap(),
    ]
}

/// A query whose four time bounds are these (each range kept non-empty).
fn query_at(a: DateTime<Utc>, b: DateTime<Utc>, order: SortOrder) -> TaskQuery {
    let (since, before) = if a < b { (a, b) } else { (b, a) };
    let mut builder = TaskQuery::builder(TenantId::new("team-a").unwrap())
        .order(order)
        .created_before(before);
    if since < before {
        builder = builder.created_since(since).updated_since(since);
    }
    builder.build().unwrap()
}

/// `query` and its next-page token at `(t, "t1")` read back equal through JSON and pairs.
fn check_reads_back(query: &TaskQuery, t: DateTime<Utc>) -> Result<(), TestCaseError> {
    let json = serde_json::to_string(query).unwrap();
    let read: TaskQuery =
        serde_json::from_str(&json).map_err(|e| TestCaseError::fail(format!("{json}: {e}")))?;
    prop_assert_eq!(&read, query);
    let pairs = query.to_pairs();
    let read = TaskQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
        .map_err(|e| TestCaseError::fail(format!("{pairs:?}: {e}")))?;
    prop_assert_eq!(&read, query);

    let key = SortKey::new(t, TaskId::new("t1").unwrap());
    let token = query.continue_after(key.clone());
    let text = token.to_string();
    let read =
        ContinueToken::parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    prop_assert_eq!(read.after(), &key);
    prop_assert_eq!(&read, &token);
    let token_json = serde_json::to_string(&token).unwrap();
    prop_assert_eq!(
        serde_json::from_str::<ContinueToken>(&token_json).unwrap(),
        token.clone()
    );

    let next = query.with_continue(token).unwrap();
    let json = serde_json::to_string(&next).unwrap();
    let read: TaskQuery =
        serde_json::from_str(&json).map_err(|e| TestCaseError::fail(format!("{json}: {e}")))?;
    prop_assert_eq!(&read, &next);
    let pairs = next.to_pairs();
    let read = TaskQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
        .map_err(|e| TestCaseError::fail(format!("{pairs:?}: {e}")))?;
    prop_assert_eq!(&read, &next);
    Ok(())
}

#[test]
fn edge_times_read_back() {
    let edges = edge_times();
    for &a in &edges {
        for &b in &edges {
            for order in [SortOrder::Ascending, SortOrder::Descending] {
                check_reads_back(&query_at(a, b, order), a)
                    .unwrap_or_else(|e| panic!("{a} {b}: {e}"));
            }
        }
    }
}

proptest! {
    #[test]
    fn any_time_reads_back(a in any_time(), b in any_time(), desc in any::<bool>()) {
        let order = if desc { SortOrder::Descending } else { SortOrder::Ascending };
        check_reads_back(&query_at(a, b, order), a)?;
    }
}
