//! The JSON form of `TaskQuery`: camelCase, validated, unknown fields rejected, round trip.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers unwrap fixtures known to be valid"
)]

mod common;

use model_query::{MAX_PHASES, SortOrder, TaskQuery};
use model_task::TaskPhase;
use proptest::prelude::*;

fn from_json(json: &str) -> Result<TaskQuery, String> {
    serde_json::from_str::<TaskQuery>(json).map_err(|e| e.to_string())
}

/// Reads the JSON object `json` with `"tenant": "team-a"` put first (the fixtures' tenant).
fn from_scoped_json(json: &str) -> Result<TaskQuery, String> {
    let fields = json.trim().strip_prefix('{').unwrap().trim_start();
    let separator = if fields.starts_with('}') { "" } else { ", " };
    from_json(&format!(r#"{{"tenant": "team-a"{separator}{fields}"#))
}

#[test]
fn full_example() {
    let json = r#"{
        "tenant": "team-a",
        "slot": "nightly",
        "phases": ["running", "failed"],
        "labelSelector": "zone=eu,gpu in (a100,h100)",
        "createdSince": "2024-05-01T00:00:00Z",
        "createdBefore": "2024-06-01T00:00:00Z",
        "updatedSince": "2024-05-02T00:00:00Z",
        "order": "desc",
        "limit": 50
    }"#;
    let query = from_json(json).unwrap();
    let expected = TaskQuery::builder(common::tenant())
        .slot("nightly".parse().unwrap())
        .phases([TaskPhase::Failed, TaskPhase::Running])
        .label_selector("gpu in (h100,a100),zone=eu".parse().unwrap())
        .created_since("2024-05-01T00:00:00Z".parse().unwrap())
        .created_before("2024-06-01T00:00:00Z".parse().unwrap())
        .updated_since("2024-05-02T00:00:00Z".parse().unwrap())
        .order(SortOrder::Descending)
        .limit(50)
        .build()
        .unwrap();
    assert_eq!(query, expected);
    let out = serde_json::to_value(&query).unwrap();
    assert_eq!(
        out,
        serde_json::json!({
            "tenant": "team-a",
            "slot": "nightly",
            "phases": ["running", "failed"],
            "labelSelector": "gpu in (a100,h100),zone=eu",
            "createdSince": "2024-05-01T00:00:00Z",
            "createdBefore": "2024-06-01T00:00:00Z",
            "updatedSince": "2024-05-02T00:00:00Z",
            "order": "desc",
            "limit": 50
        })
    );
}

#[test]
fn defaults() {
    let query = from_json(r#"{"tenant": "team-a"}"#).unwrap();
    assert_eq!(query, TaskQuery::builder(common::tenant()).build().unwrap());
    assert_eq!(
        serde_json::to_string(&query).unwrap(),
        r#"{"tenant":"team-a","order":"asc","limit":100}"#
    );
}

#[test]
fn null_reads_as_an_absent_field() {
    let default = TaskQuery::builder(common::tenant()).build().unwrap();
    for field in [
        "slot",
        "phases",
        "labelSelector",
        "createdSince",
        "createdBefore",
        "updatedSince",
        "updatedBefore",
        "order",
        "limit",
        "continue",
    ] {
        let json = format!(r#"{{"{field}": null}}"#);
        assert_eq!(from_scoped_json(&json), Ok(default.clone()), "{json}");
    }
    // The tenant is required: null is as absent as a field left out.
    assert_eq!(
        from_json(r#"{"tenant": null}"#),
        Err("tenant: required".to_owned())
    );
    let query = from_scoped_json(r#"{"slot": "nightly", "phases": null, "limit": null}"#).unwrap();
    let expected = TaskQuery::builder(common::tenant())
        .slot("nightly".parse().unwrap())
        .build()
        .unwrap();
    assert_eq!(query, expected);
    // A phase inside the list is not optional.
    let err = from_scoped_json(r#"{"phases": ["running", null]}"#).unwrap_err();
    assert!(err.contains("invalid type: null"), "{err}");
}

#[test]
fn a_huge_phase_list_stops_right_after_the_limit() {
    let json = format!(
        r#"{{"phases": [{}]}}"#,
        vec![r#""running""#; 10_000_000].join(",")
    );
    let err = serde_json::from_str::<TaskQuery>(&json).unwrap_err();
    assert!(err.to_string().contains("more than 16 phases"), "{err}");
    // Reading stopped at element 17, about 12 bytes in for each: not at the end.
    assert_eq!(err.line(), 1);
    assert!(err.column() < 20 + 11 * (MAX_PHASES + 1), "{err}");
}

#[test]
fn rejections_name_the_field() {
    let cases = [
        (r#"{"colour": "red"}"#, "colour"),
        (r#"{"limit": 0}"#, "limit"),
        (r#"{"limit": -1}"#, "limit"),
        (r#"{"limit": 1001}"#, "limit"),
        (r#"{"phases": ["running", "runing"]}"#, "phases[1]"),
        (r#"{"labelSelector": "zone in ("}"#, "labelSelector"),
        (r#"{"slot": "a b"}"#, "slot"),
        (r#"{"order": "sideways"}"#, "order"),
        (r#"{"createdSince": "soon"}"#, "createdSince"),
        (
            r#"{"createdSince": "2024-01-02T00:00:00Z", "createdBefore": "2024-01-01T00:00:00Z"}"#,
            "createdBefore",
        ),
        (r#"{"continue": ""}"#, "continue"),
        (r#"{"continue": "@@@"}"#, "continue"),
    ];
    for (json, field) in cases {
        let err = from_scoped_json(json).unwrap_err();
        assert!(err.contains(field), "{json}: {err}");
    }
    // Without a tenant, or with a bad one, a query is refused naming the field.
    for (json, message) in [
        ("{}", "tenant: required"),
        (r#"{"slot": "nightly"}"#, "tenant: required"),
        (r#"{"tenant": "a/b"}"#, "tenant"),
        (r#"{"tenant": ""}"#, "tenant"),
    ] {
        let err = from_json(json).unwrap_err();
        assert!(err.starts_with(message), "{json}: {err}");
    }
    let phases = format!(
        r#"{{"phases": [{}]}}"#,
        vec![r#""running""#; MAX_PHASES + 1].join(",")
    );
    let err = from_scoped_json(&phases).unwrap_err();
    assert!(err.contains("more than 16 phases"), "{err}");
    let phases = format!(
        r#"{{"phases": [{}]}}"#,
        vec![r#""running""#; MAX_PHASES].join(",")
    );
    assert!(from_scoped_json(&phases).is_ok());
}

#[test]
fn token_round_trips_through_json() {
    let rows: Vec<common::Row> = (0..5)
        .map(|n| common::row(n, i64::from(n), "a", TaskPhase::Running, "eu"))
        .collect();
    let query = TaskQuery::builder(common::tenant())
        .limit(2)
        .build()
        .unwrap();
    let token = query.evaluate(&rows).next.unwrap();
    let next = query.with_continue(token).unwrap();
    let json = serde_json::to_string(&next).unwrap();
    assert!(json.contains(r#""continue":""#), "{json}");
    assert_eq!(from_json(&json).unwrap(), next);
    // The token is bound to the filters: the same JSON with another order is rejected.
    let other = json.replace(r#""order":"asc""#, r#""order":"desc""#);
    assert!(from_json(&other).unwrap_err().contains("different query"));
    // And to the tenant: another tenant cannot page on with it.
    let other = json.replace(r#""tenant":"team-a""#, r#""tenant":"team-b""#);
    assert_ne!(other, json);
    assert!(from_json(&other).unwrap_err().contains("different query"));
}

proptest! {
    #[test]
    fn round_trips(query in common::queries()) {
        let json = serde_json::to_string(&query).unwrap();
        prop_assert_eq!(from_json(&json).unwrap(), query);
    }
}
