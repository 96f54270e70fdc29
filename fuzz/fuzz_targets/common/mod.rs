//! Checks shared by several fuzz targets: a reference selector matcher, the selector laws,
//! and the round trip of a task.

#![allow(dead_code, reason = "each target uses part of this module")]

use taskmodel::selector::{LabelSelector, Labels, SelectorOperator};
use taskmodel::task::Task;

/// Whether `labels` satisfy `selector`, computed from the selector's public views with the
/// semantics of Kubernetes label selectors, independently of the compiled matcher.
pub fn reference_matches(selector: &LabelSelector, labels: &Labels) -> bool {
    let labels_ok = selector
        .match_labels()
        .all(|(key, value)| labels.get(key) == Some(value));
    labels_ok
        && selector.match_expressions().all(|req| {
            let found = labels.get(req.key());
            let listed = |value: &str| req.values().any(|v| v == value);
            match req.operator() {
                SelectorOperator::In => found.is_some_and(listed),
                SelectorOperator::NotIn => !found.is_some_and(listed),
                SelectorOperator::Exists => found.is_some(),
                SelectorOperator::DoesNotExist => found.is_none(),
                SelectorOperator::Gt => int_of(found).zip(req.bound()).is_some_and(|(v, b)| v > b),
                SelectorOperator::Lt => int_of(found).zip(req.bound()).is_some_and(|(v, b)| v < b),
                other => panic!("operator {other:?} unknown to the reference matcher"),
            }
        })
}

fn int_of(value: Option<&str>) -> Option<i64> {
    value.and_then(|v| v.parse().ok())
}

/// `matches`, `explain` and the reference matcher agree on `labels`.
pub fn check_match(selector: &LabelSelector, labels: &Labels) {
    let fast = selector.matches(labels);
    let reference = reference_matches(selector, labels);
    assert_eq!(
        fast, reference,
        "matches() disagrees with the reference for {selector} on {labels}"
    );
    let failures = selector.explain(labels);
    assert_eq!(
        failures.is_empty(),
        fast,
        "explain() disagrees with matches() for {selector} on {labels}: {failures:?}"
    );
}

/// A label set the selector is likely to match: the value each requirement asks for.
pub fn labels_wanted_by(selector: &LabelSelector) -> Labels {
    let mut labels = Labels::new();
    for (key, value) in selector.match_labels() {
        let _ = labels.insert(key, value);
    }
    for req in selector.match_expressions() {
        let value = match req.operator() {
            SelectorOperator::In => req.values().next().map(str::to_owned),
            SelectorOperator::NotIn | SelectorOperator::Exists => Some("x".to_owned()),
            SelectorOperator::Gt => req.bound().map(|b| b.saturating_add(1).to_string()),
            SelectorOperator::Lt => req.bound().map(|b| b.saturating_sub(1).to_string()),
            _ => None,
        };
        if let Some(value) = value {
            let _ = labels.insert(req.key(), value);
        }
    }
    labels
}

/// The laws every valid selector keeps: display is canonical and parses back to an equal
/// selector, the JSON form round-trips, and matching agrees with the reference.
pub fn check_selector(selector: &LabelSelector) {
    let text = selector.to_string();
    let reparsed: LabelSelector = text
        .parse()
        .unwrap_or_else(|err| panic!("display {text:?} does not parse: {err}"));
    assert_eq!(&reparsed, selector, "parse(display) differs for {text:?}");
    assert_eq!(reparsed.to_string(), text, "display is not a fixpoint");

    let json = serde_json::to_string(selector).expect("a selector serializes");
    let back: LabelSelector = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(&back, selector, "JSON round trip differs: {json}");
    let again = serde_json::to_string(&back).expect("a selector serializes");
    assert_eq!(again, json, "JSON form is not a fixpoint");

    check_match(selector, &Labels::new());
    check_match(selector, &labels_wanted_by(selector));
}

/// The laws every valid label set keeps: the JSON form and the pairs round-trip.
pub fn check_labels(labels: &Labels) {
    let json = serde_json::to_string(labels).expect("labels serialize");
    let back: Labels = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(&back, labels, "JSON round trip differs: {json}");
    let pairs = Labels::from_pairs(labels.iter())
        .unwrap_or_else(|err| panic!("the pairs of {labels} do not rebuild it: {err}"));
    assert_eq!(&pairs, labels);
    let keys: Vec<&str> = labels.iter().map(|(k, _)| k).collect();
    assert!(
        keys.windows(2).all(|w| w[0] < w[1]),
        "labels iterate in strict key order: {keys:?}"
    );
    assert_eq!(labels.len(), labels.iter().count());
}

/// Splits `text` into `k=v` pairs separated by `,` as `taskctl selector --labels` does
/// (items trimmed, empty items skipped, an item without `=` has an empty value).
pub fn label_pairs(text: &str) -> Vec<(&str, &str)> {
    text.split(',')
        .map(str::trim)
        .filter(|pair| !pair.is_empty())
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .collect()
}

/// Splits a fuzz input into a little-endian `i64` (its first 8 bytes) and the rest.
pub fn leading_i64(data: &[u8]) -> Option<(i64, &[u8])> {
    let (head, rest) = data.split_first_chunk::<8>()?;
    Some((i64::from_le_bytes(*head), rest))
}

/// A task serializes to a fixpoint that parses back equal.
pub fn task_round_trip(task: &Task) {
    let json = serde_json::to_string(task).expect("a task serializes");
    let back: Task = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(&back, task, "JSON round trip differs: {json}");
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
}
