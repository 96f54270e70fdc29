//! Every `<!-- wire(query): Type -->` example of `docs/wire-format.md` parses as the
//! model-query type its marker names (or is rejected when the marker says so), and accepted
//! examples survive a round trip. (model-task's own test checks the plain `wire:` markers.)
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers fail loudly, as the tests do"
)]

use std::path::Path;

use model_query::{TaskQuery, TaskRunQuery};
use serde::{Serialize, de::DeserializeOwned};

/// One marked example: type name, whether it must be rejected, the JSON, its line.
struct Example {
    type_name: String,
    rejected: bool,
    json: String,
    line: usize,
}

/// Finds `<!-- wire(query): Type [rejected] -->` markers and the ```json block after each.
fn examples(markdown: &str) -> Vec<Example> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(marker) = line
            .trim()
            .strip_prefix("<!-- wire(query):")
            .and_then(|m| m.strip_suffix("-->"))
        else {
            continue;
        };
        let words: Vec<&str> = marker.split_whitespace().collect();
        let (type_name, rejected) = match words[..] {
            [name] => (name, false),
            [name, "rejected"] => (name, true),
            _ => panic!("line {}: unexpected marker {line:?}", i + 1),
        };
        assert_eq!(
            lines.get(i + 1).map(|l| l.trim()),
            Some("```json"),
            "line {}: marker not followed by a json block",
            i + 1
        );
        let json: Vec<&str> = lines[i + 2..]
            .iter()
            .copied()
            .take_while(|l| l.trim() != "```")
            .collect();
        found.push(Example {
            type_name: type_name.to_owned(),
            rejected,
            json: json.join("\n"),
            line: i + 1,
        });
    }
    found
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
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/wire-format.md");
    let markdown = std::fs::read_to_string(&path).unwrap();
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
    let markdown = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/wire-format.md"),
    )
    .unwrap();
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
    let markdown = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/wire-format.md"),
    )
    .unwrap();
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
