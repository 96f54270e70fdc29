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

use wire_examples::{Example, check, markdown};

use model_retention::{
    CascadePolicy, Lifecycle, OwnedResource, ResourceKind, RetentionPolicy, RetentionRule,
};

/// The `<!-- wire(retention): Type [rejected] -->` examples of `docs/wire-format.md`.
fn examples() -> Vec<Example> {
    wire_examples::examples(&markdown(), "wire(retention)")
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
