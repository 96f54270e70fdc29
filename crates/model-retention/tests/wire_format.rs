//! Every retention example in `docs/wire-format.md` (marked `<!-- wire(retention): Type -->`)
//! parses as the type it names, or is rejected for the reason the docs give, and accepted
//! examples read back equal.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test helpers fail loudly, as the tests do"
)]

use std::path::Path;

use model_retention::{
    CascadePolicy, Lifecycle, OwnedResource, ResourceKind, RetentionPolicy, RetentionRule,
};
use serde::{Serialize, de::DeserializeOwned};

/// One marked example: type name, whether it must be rejected, the JSON, its line.
struct Example {
    type_name: String,
    rejected: bool,
    json: String,
    line: usize,
}

/// The `<!-- wire(retention): Type [rejected] -->` blocks of the document.
fn examples() -> Vec<Example> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/wire-format.md");
    let markdown = std::fs::read_to_string(path).expect("docs/wire-format.md");
    let mut found = Vec::new();
    let mut lines = markdown.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let Some(marker) = line
            .trim()
            .strip_prefix("<!-- wire(retention):")
            .and_then(|m| m.strip_suffix("-->"))
        else {
            continue;
        };
        let words: Vec<&str> = marker.split_whitespace().collect();
        let (type_name, rejected) = match words[..] {
            [name] => (name, false),
            [name, "rejected"] => (name, true),
            _ => panic!("line {}: unexpected marker {line:?}", index + 1),
        };
        assert_eq!(
            lines.next().map(|(_, l)| l.trim()),
            Some("```json"),
            "line {}: marker without a json block",
            index + 1
        );
        let json: Vec<&str> = lines
            .by_ref()
            .map(|(_, l)| l)
            .take_while(|l| l.trim() != "```")
            .collect();
        found.push(Example {
            type_name: type_name.to_owned(),
            rejected,
            json: json.join("\n"),
            line: index + 1,
        });
    }
    found
}

/// Parses the example as `T`: a rejected one gives its error, an accepted one reads back equal.
fn check<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
    ex: &Example,
) -> Option<String> {
    let parsed = serde_json::from_str::<T>(&ex.json);
    if ex.rejected {
        return Some(
            parsed
                .err()
                .unwrap_or_else(|| panic!("line {}: should be rejected", ex.line))
                .to_string(),
        );
    }
    let value =
        parsed.unwrap_or_else(|e| panic!("line {}: {} example: {e}", ex.line, ex.type_name));
    let again: T = serde_json::from_str(&serde_json::to_string(&value).unwrap()).unwrap();
    assert_eq!(again, value, "line {}: round trip", ex.line);
    None
}

#[test]
fn every_retention_example_parses_as_marked() {
    let mut accepted = std::collections::BTreeSet::new();
    let mut errors = Vec::new();
    for ex in examples() {
        let error = match ex.type_name.as_str() {
            "OwnedResource" => check::<OwnedResource>(&ex),
            "RetentionPolicy" => check::<RetentionPolicy>(&ex),
            "RetentionRule" => check::<RetentionRule>(&ex),
            "Lifecycle" => check::<Lifecycle>(&ex),
            "CascadePolicy" => check::<CascadePolicy>(&ex),
            other => panic!("line {}: unknown wire type {other:?}", ex.line),
        };
        match error {
            Some(error) => errors.push(error),
            None => {
                accepted.insert(ex.type_name);
            }
        }
    }
    for required in [
        "OwnedResource",
        "RetentionPolicy",
        "RetentionRule",
        "CascadePolicy",
    ] {
        assert!(
            accepted.contains(required),
            "no accepted example of {required}"
        );
    }
    let want = [
        "invalid ownerReferences[1]: a second controller (ownerReferences[0] is the controller)",
        "invalid ownerReferences[0]: task \"etl.load\" cannot own itself",
        "invalid outcome: missing: a sealed resource says how it ended",
        "invalid cleanupPriority: 101 is larger than the maximum 100",
        "invalid rules.flow: named twice",
    ];
    assert_eq!(errors.len(), want.len(), "{errors:?}");
    for (error, want) in errors.iter().zip(want) {
        assert!(error.starts_with(want), "{error}");
    }
}

#[test]
fn the_policy_example_overrides_two_kinds() {
    let ex = examples()
        .into_iter()
        .find(|e| e.type_name == "RetentionPolicy" && !e.rejected)
        .unwrap();
    let policy: RetentionPolicy = serde_json::from_str(&ex.json).unwrap();
    let task = policy.rule(ResourceKind::Task);
    assert_eq!(task.ttl_after_finished_ms(), Some(7 * 86_400_000));
    assert_eq!(task.history().map(|h| h.succeeded()), Some(20));
    assert_eq!(
        policy.rule(ResourceKind::Schedule).cascade(),
        CascadePolicy::Orphan
    );
    assert_eq!(
        policy.rule(ResourceKind::Flow),
        RetentionPolicy::DEFAULT.rule(ResourceKind::Flow)
    );
}
