//! Every `<!-- wire(query): Type -->` example of `docs/wire-format.md` parses as the
//! model-query type its marker names (or is rejected when the marker says so), and accepted
//! examples survive a round trip. (model-task's own test checks the plain `wire:` markers.)
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers fail loudly, as the tests do"
)]

#[path = "../../../tests/support/wire_examples.rs"]
mod wire_examples;

use wire_examples::{Example, markdown};

use model_query::{TaskQuery, TaskRunQuery};
use serde::{Serialize, de::DeserializeOwned};

/// The `<!-- wire(query): Type [rejected] -->` examples of `markdown`.
fn examples(markdown: &str) -> Vec<Example> {
    wire_examples::examples(markdown, "wire(query)")
}

fn check<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(ex: &Example) {
    let parsed = serde_json::from_str::<T>(&ex.json);
    if ex.rejected {
        assert!(parsed.is_err(), "line {}: should be rejected", ex.line);
        return;
    }
    let value = parsed.unwrap_or_else(|e| panic!("line {}: {e}", ex.line));
    let again: T = serde_json::from_str(&serde_json::to_string(&value).unwrap()).unwrap();
    assert_eq!(again, value, "line {}: round trip", ex.line);
}

#[test]
fn every_query_example_parses_as_marked() {
    let markdown = markdown();
    let examples = examples(&markdown);
    let mut seen = std::collections::BTreeSet::new();
    for ex in &examples {
        match ex.type_name.as_str() {
            "TaskQuery" => check::<TaskQuery>(ex),
            "TaskRunQuery" => check::<TaskRunQuery>(ex),
            other => panic!("line {}: unknown query wire type {other:?}", ex.line),
        }
        seen.insert((ex.type_name.as_str(), ex.rejected));
    }
    for (name, rejected) in [
        ("TaskQuery", false),
        ("TaskQuery", true),
        ("TaskRunQuery", false),
    ] {
        assert!(
            seen.contains(&(name, rejected)),
            "no {name} example (rejected: {rejected})"
        );
    }
    assert!(
        seen.contains(&("TaskRunQuery", true)),
        "no rejected TaskRunQuery example"
    );
}

#[test]
fn the_task_query_example_is_the_pairs_the_docs_give() {
    let markdown = markdown();
    let ex = examples(&markdown)
        .into_iter()
        .find(|e| e.type_name == "TaskQuery" && !e.rejected)
        .unwrap();
    let json: TaskQuery = serde_json::from_str(&ex.json).unwrap();
    let pairs = "tenant=team-a&slot=nightly&phase=failed&phase=running&labelSelector=zone=eu&order=desc&limit=50";
    assert!(markdown.contains(pairs));
    let from_pairs =
        TaskQuery::from_pairs(pairs.split('&').map(|kv| kv.split_once('=').unwrap())).unwrap();
    assert_eq!(from_pairs, json);
    let err = serde_json::from_str::<TaskQuery>(r#"{ "slot": "nightly", "phases": ["failed"] }"#)
        .unwrap_err();
    assert!(err.to_string().starts_with("tenant: required"), "{err}");
}

#[test]
fn the_run_query_example_is_the_pairs_the_docs_give() {
    let markdown = markdown();
    let ex = examples(&markdown)
        .into_iter()
        .find(|e| e.type_name == "TaskRunQuery" && !e.rejected)
        .unwrap();
    let json: TaskRunQuery = serde_json::from_str(&ex.json).unwrap();
    let pairs =
        "tenant=team-a&task=nightly-backup.9ix&state=failed&state=expired&order=desc&limit=20";
    assert!(markdown.contains(pairs));
    let from_pairs =
        TaskRunQuery::from_pairs(pairs.split('&').map(|kv| kv.split_once('=').unwrap())).unwrap();
    assert_eq!(from_pairs, json);
    let err =
        serde_json::from_str::<TaskRunQuery>(r#"{ "task": "nightly-backup.9ix" }"#).unwrap_err();
    assert!(err.to_string().starts_with("tenant: required"), "{err}");
}
