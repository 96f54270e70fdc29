//! Unit tests of `resource`: every rule of a view at its edge (names, owner references,
//! controllers, uids, times to live), on the builder and on the wire alike.

use chrono::{DateTime, Utc};
use model_ids::TenantId;
use proptest::prelude::*;

use super::*;
use crate::lifecycle::Outcome;
use crate::limits::MAX_TTL_AFTER_FINISHED_MS;
use model_task::task::OwnerKind;

fn at() -> DateTime<Utc> {
    "2026-11-22T02:00:00Z".parse().unwrap()
}

fn acme() -> TenantId {
    TenantId::new("acme").unwrap()
}

fn owner(kind: OwnerKind, name: &str, uid: u128, controller: bool) -> OwnerReference {
    let owner = OwnerReference::new(kind, name, Uid::from_u128(uid)).unwrap();
    if controller {
        owner.controlling()
    } else {
        owner
    }
}

/// A task named `name` with uid 1 and `owners`.
fn task(name: &str, owners: Vec<OwnerReference>) -> Result<OwnedResource, RetentionError> {
    owners
        .into_iter()
        .fold(
            OwnedResource::builder(ResourceKind::Task, acme(), name, Lifecycle::Draft)
                .uid(Uid::from_u128(1)),
            OwnedResourceBuilder::owner,
        )
        .build()
}

#[test]
fn names_follow_the_rule() {
    let longest = "n".repeat(MAX_RESOURCE_NAME_BYTES);
    let too_long = "n".repeat(MAX_RESOURCE_NAME_BYTES + 1);
    let cases: [(&str, Option<&str>); 6] = [
        ("nightly-backup.9ix/3", None),
        ("A_b.c-d", None),
        (&longest, None),
        ("", Some("invalid name: must not be empty")),
        (
            &too_long,
            Some(
                "invalid name \"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn…\": 268 bytes long, at most 267 allowed",
            ),
        ),
        (
            "a b",
            Some(
                "invalid name \"a b\": invalid character ' ' at byte 1 (allowed: A-Z a-z 0-9 . _ - /)",
            ),
        ),
    ];
    for (name, want) in cases {
        let got = task(name, vec![]).err().map(|err| err.to_string());
        assert_eq!(got.as_deref(), want, "{name:?}");
    }
}

#[test]
fn owner_references_follow_the_rules() {
    let flow = |uid, controller| owner(OwnerKind::Flow, "etl", uid, controller);
    let many: Vec<OwnerReference> = (0..=MAX_OWNER_REFERENCES as u128)
        .map(|uid| owner(OwnerKind::Schedule, "s", uid + 10, false))
        .collect();
    let cases: [(Vec<OwnerReference>, Option<&str>); 8] = [
        (vec![flow(2, true)], None),
        (
            vec![flow(2, true), owner(OwnerKind::Schedule, "s", 3, false)],
            None,
        ),
        (many.get(..MAX_OWNER_REFERENCES).unwrap().to_vec(), None),
        (
            many,
            Some("invalid ownerReferences: 17 bytes long, at most 16 allowed"),
        ),
        (
            vec![flow(2, true), owner(OwnerKind::Schedule, "s", 3, true)],
            Some(
                "invalid ownerReferences[1]: a second controller (ownerReferences[0] is the controller)",
            ),
        ),
        (
            vec![owner(OwnerKind::Task, "load", 2, false)],
            Some("invalid ownerReferences[0]: task \"load\" cannot own itself"),
        ),
        (
            vec![flow(2, false), owner(OwnerKind::Schedule, "s", 1, false)],
            Some("invalid ownerReferences[1]: task \"load\" cannot own itself"),
        ),
        (
            vec![flow(2, false), owner(OwnerKind::Schedule, "s", 2, false)],
            Some("invalid ownerReferences[1]: named twice"),
        ),
    ];
    for (owners, want) in cases {
        let got = task("load", owners.clone())
            .err()
            .map(|err| err.to_string());
        assert_eq!(got.as_deref(), want, "{owners:?}");
    }
}

#[test]
fn owners_carry_a_uid_and_the_rest_may() {
    for kind in ResourceKind::ALL {
        let built = OwnedResource::builder(kind, acme(), "x", Lifecycle::Draft).build();
        assert_eq!(built.is_err(), kind.can_own(), "{kind}");
    }
    let err = OwnedResource::builder(ResourceKind::Flow, acme(), "x", Lifecycle::Draft)
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid uid: missing: a task, flow or schedule carries the uid its owner references name"
    );
}

#[test]
fn the_time_to_live_is_bounded() {
    let build = |ttl| {
        OwnedResource::builder(ResourceKind::Attempt, acme(), "t/1", Lifecycle::Draft)
            .ttl_after_finished_ms(ttl)
            .build()
    };
    assert!(build(MAX_TTL_AFTER_FINISHED_MS).is_ok());
    let err = build(MAX_TTL_AFTER_FINISHED_MS + 1).unwrap_err();
    assert!(
        matches!(err, RetentionError::Invalid { ref path, .. } if path == "ttlAfterFinishedMs")
    );
}

#[test]
fn the_wire_form_is_camel_case_and_reads_back_equal() {
    let resource = OwnedResource::builder(
        ResourceKind::Task,
        acme(),
        "nightly.9ix",
        Lifecycle::sealed(at(), Outcome::Succeeded),
    )
    .uid(Uid::from_u128(1))
    .owner(owner(OwnerKind::Schedule, "nightly", 2, true))
    .ttl_after_finished_ms(60_000)
    .cascade(CascadePolicy::Orphan)
    .history(HistoryLimits::new(1, 2).unwrap())
    .build()
    .unwrap();
    let json = serde_json::to_value(&resource).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "cascade",
            "history",
            "kind",
            "lifecycle",
            "name",
            "ownerReferences",
            "tenant",
            "ttlAfterFinishedMs",
            "uid"
        ]
    );
    let back: OwnedResource = serde_json::from_value(json).unwrap();
    assert_eq!(back, resource);

    // The optional fields are left out when absent.
    let bare = OwnedResource::builder(ResourceKind::Attempt, acme(), "t/1", Lifecycle::Draft)
        .build()
        .unwrap();
    assert_eq!(
        serde_json::to_string(&bare).unwrap(),
        r#"{"kind":"attempt","tenant":"acme","name":"t/1","lifecycle":{"state":"draft"}}"#
    );
}

#[test]
fn the_wire_form_checks_every_rule() {
    let base = r#""kind": "task", "tenant": "acme", "name": "load", "uid": "00000000-0000-0000-0000-000000000001", "lifecycle": {"state": "draft"}"#;
    let refs = |n: usize| {
        let list: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"kind": "Flow", "name": "f{i}", "uid": "00000000-0000-0000-0000-0000000001{i:02}"}}"#))
            .collect();
        format!("[{}]", list.join(","))
    };
    let ok = [
        format!("{{{base}}}"),
        format!(
            r#"{{{base}, "ownerReferences": null, "ttlAfterFinishedMs": null, "cascade": null, "history": null}}"#
        ),
        format!(
            r#"{{{base}, "ownerReferences": {}}}"#,
            refs(MAX_OWNER_REFERENCES)
        ),
    ];
    for json in &ok {
        assert!(
            serde_json::from_str::<OwnedResource>(json).is_ok(),
            "{json}"
        );
    }
    let rejected = [
        (format!(r#"{{{base}, "ownerReferences": {}}}"#, refs(MAX_OWNER_REFERENCES + 1)), "invalid ownerReferences: more than 16 entries"),
        (format!(r#"{{{base}, "history": {{"succeeded": 10001, "failed": 0}}}}"#), "invalid history.succeeded: 10001 is larger than the maximum 10000"),
        (r#"{"kind": "task", "tenant": "acme", "name": "load", "lifecycle": {"state": "draft"}}"#.to_owned(), "invalid uid: missing"),
        (format!(r#"{{{base}, "owner": []}}"#), "unknown field `owner`"),
        (
            r#"{"kind": "attempt", "tenant": "acme", "name": "t/1", "lifecycle": {"state": "sealed", "outcome": "failed"}}"#.to_owned(),
            "invalid lifecycle.at: missing: a sealed resource says when it finished",
        ),
        (format!(r#"{{{base}, "cascade": "Orphan"}}"#), "unknown variant `Orphan`"),
    ];
    for (json, want) in rejected {
        let err = serde_json::from_str::<OwnedResource>(&json)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(want), "{json}: {err}");
    }
}

fn resource() -> impl Strategy<Value = OwnedResource> {
    (
        0..5_usize,
        "[a-z0-9./_-]{1,40}",
        prop::option::of(any::<u128>()),
        prop::collection::vec(
            (0..3_usize, "[a-z]{1,8}", any::<u128>(), any::<bool>()),
            0..4,
        ),
        prop::option::of((any::<i32>(), any::<bool>())),
        prop::option::of(0..=MAX_TTL_AFTER_FINISHED_MS),
    )
        .prop_filter_map("a valid view", |(kind, name, uid, owners, sealed, ttl)| {
            let kind = ResourceKind::ALL[kind];
            let lifecycle = match sealed {
                None => Lifecycle::Draft,
                Some((seconds, ok)) => Lifecycle::sealed(
                    at() + chrono::TimeDelta::seconds(i64::from(seconds)),
                    if ok {
                        Outcome::Succeeded
                    } else {
                        Outcome::Failed
                    },
                ),
            };
            let mut builder = OwnedResource::builder(kind, acme(), &name, lifecycle);
            if let Some(uid) = uid {
                builder = builder.uid(Uid::from_u128(uid));
            }
            for (kind, name, uid, controller) in owners {
                let kind = [OwnerKind::Flow, OwnerKind::Schedule, OwnerKind::Task][kind];
                builder = builder.owner(owner(kind, &name, uid, controller));
            }
            if let Some(ttl) = ttl {
                builder = builder.ttl_after_finished_ms(ttl);
            }
            builder.build().ok()
        })
}

proptest! {
    #[test]
    fn every_view_reads_back_equal(resource in resource()) {
        let json = serde_json::to_string(&resource).unwrap();
        let back: OwnedResource = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &resource);
        prop_assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }
}
