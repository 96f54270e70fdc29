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

#[path = "../../../tests/support/wire_examples.rs"]
mod wire_examples;

use wire_examples::{Example, markdown};

use model_retention::{
    CascadePolicy, Lifecycle, OwnedResource, ResourceKind, RetentionPolicy, RetentionRule,
};
use serde::{Serialize, de::DeserializeOwned};

/// The `<!-- wire(retention): Type [rejected] -->` examples of `docs/wire-format.md`.
fn examples() -> Vec<Example> {
    wire_examples::examples(&markdown(), "wire(retention)")
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
