//! The wire reader's bounds (stopping right after each limit) and its reading of `null`.

use crate::{LabelSelector, Labels, MAX_LABELS, MAX_REQUIREMENTS, MAX_VALUES, SelectorRequirement};

/// `count` comma-separated copies of `item(i)`.
fn list(count: usize, item: impl Fn(usize) -> String) -> String {
    (0..count).map(item).collect::<Vec<_>>().join(",")
}

fn values(count: usize) -> String {
    format!(
        r#"{{"matchExpressions":[{{"key":"a","operator":"In","values":[{}]}}]}}"#,
        list(count, |_| r#""v""#.to_owned())
    )
}

fn expressions(count: usize) -> String {
    format!(
        r#"{{"matchExpressions":[{}]}}"#,
        list(count, |i| format!(
            r#"{{"key":"k{i}","operator":"Exists"}}"#
        ))
    )
}

fn match_labels(count: usize) -> String {
    format!(
        r#"{{"matchLabels":{{{}}}}}"#,
        list(count, |i| format!(r#""k{i}":"v""#))
    )
}

fn labels(count: usize) -> String {
    format!("{{{}}}", list(count, |i| format!(r#""k{i}":"v""#)))
}

/// `json` reads as a selector (or a label set) when `expected` is `None`, else fails with a
/// message starting with it (serde_json appends the position).
#[track_caller]
fn check<T: for<'de> serde::Deserialize<'de> + std::fmt::Debug>(
    json: &str,
    expected: Option<&str>,
) {
    match (serde_json::from_str::<T>(json), expected) {
        (Ok(_), None) => {}
        (Ok(value), Some(expected)) => panic!("read as {value:?}, expected {expected}"),
        (Err(err), None) => panic!("rejected: {err}"),
        (Err(err), Some(expected)) => {
            assert!(
                err.to_string().starts_with(expected),
                "{err}, expected {expected}"
            );
        }
    }
}

#[test]
fn each_list_holds_exactly_its_limit() {
    check::<LabelSelector>(&values(MAX_VALUES), None);
    check::<LabelSelector>(
        &values(MAX_VALUES + 1),
        Some("values: too many values: the limit is 128 at line 1"),
    );
    check::<LabelSelector>(&expressions(MAX_REQUIREMENTS), None);
    check::<LabelSelector>(
        &expressions(MAX_REQUIREMENTS + 1),
        Some("matchExpressions: too many requirements: the limit is 64 at line 1"),
    );
    check::<LabelSelector>(&match_labels(MAX_REQUIREMENTS), None);
    check::<LabelSelector>(
        &match_labels(MAX_REQUIREMENTS + 1),
        Some("matchLabels: too many requirements: the limit is 64 at line 1"),
    );
    check::<Labels>(&labels(MAX_LABELS), None);
    check::<Labels>(
        &labels(MAX_LABELS + 1),
        Some("too many labels: the limit is 64 at line 1"),
    );
    // Each part within its limit, the two together over the selector's: the validator says so.
    let both = format!(
        r#"{{"matchLabels":{{"a":"b"}},"matchExpressions":[{}]}}"#,
        list(MAX_REQUIREMENTS, |i| format!(
            r#"{{"key":"k{i}","operator":"Exists"}}"#
        ))
    );
    check::<LabelSelector>(&both, Some("too many requirements: the limit is 64"));
}

/// Reads `json`, which must fail, and returns the error's column: where reading stopped.
#[track_caller]
fn stopped_at<T: for<'de> serde::Deserialize<'de> + std::fmt::Debug>(
    json: &str,
    expected: &str,
) -> usize {
    let err = serde_json::from_str::<T>(json).unwrap_err();
    assert!(err.to_string().starts_with(expected), "{err}");
    assert_eq!(err.line(), 1);
    err.column()
}

#[test]
fn a_huge_list_stops_right_after_the_limit() {
    // Each bound is checked while reading, so the error points just past element limit + 1,
    // not at the end of the document (tens of megabytes further on).
    let column = stopped_at::<LabelSelector>(&values(10_000_000), "values: too many values");
    assert!(
        column < 60 + 4 * (MAX_VALUES + 1),
        "stopped at column {column}"
    );
    let column = stopped_at::<LabelSelector>(
        &expressions(1_000_000),
        "matchExpressions: too many requirements",
    );
    assert!(
        column < 30 + 40 * (MAX_REQUIREMENTS + 1),
        "stopped at column {column}"
    );
    let column = stopped_at::<LabelSelector>(
        &match_labels(1_000_000),
        "matchLabels: too many requirements",
    );
    assert!(
        column < 20 + 12 * (MAX_REQUIREMENTS + 1),
        "stopped at column {column}"
    );
    let column = stopped_at::<Labels>(&labels(1_000_000), "too many labels");
    assert!(
        column < 10 + 12 * (MAX_LABELS + 1),
        "stopped at column {column}"
    );
}

#[test]
fn null_in_an_optional_field_reads_as_absent() {
    let empty = LabelSelector::default();
    for json in [
        r#"{"matchLabels":null}"#,
        r#"{"matchExpressions":null}"#,
        r#"{"matchLabels":null,"matchExpressions":null}"#,
    ] {
        assert_eq!(
            serde_json::from_str::<LabelSelector>(json).unwrap(),
            empty,
            "{json}"
        );
    }
    let with_null: LabelSelector = serde_json::from_str(
        r#"{"matchLabels":null,"matchExpressions":[{"key":"gpu","operator":"Exists","values":null}]}"#,
    )
    .unwrap();
    assert_eq!(with_null, "gpu".parse().unwrap());
    // A requirement read on its own.
    let requirement: SelectorRequirement =
        serde_json::from_str(r#"{"key":"gpu","operator":"DoesNotExist","values":null}"#).unwrap();
    let without: SelectorRequirement =
        serde_json::from_str(r#"{"key":"gpu","operator":"DoesNotExist"}"#).unwrap();
    assert_eq!(requirement, without);
    // `values: null` is no values, which `In` does not take.
    check::<SelectorRequirement>(
        r#"{"key":"gpu","operator":"In","values":null}"#,
        Some("values: operator In needs at least one value"),
    );
}

#[test]
fn null_in_a_required_place_is_an_error() {
    check::<SelectorRequirement>(
        r#"{"key":null,"operator":"Exists"}"#,
        Some("invalid type: null, expected a string"),
    );
    check::<SelectorRequirement>(
        r#"{"key":"a","operator":null}"#,
        Some("invalid type: null, expected a string"),
    );
    check::<SelectorRequirement>(
        r#"{"key":"a","operator":"In","values":["x",null]}"#,
        Some("invalid type: null, expected a string"),
    );
    check::<LabelSelector>(
        r#"{"matchLabels":{"zone":null}}"#,
        Some("invalid type: null, expected a string"),
    );
    check::<LabelSelector>("null", Some("invalid type: null"));
    check::<Labels>("null", Some("invalid type: null"));
}
