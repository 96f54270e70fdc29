//! Unit tests for `ObjectMeta`: what parsing accepts at each rule's boundary, the wire form,
//! and the guarded-write checks of a `Precondition`.

use serde_json::{Value, json};

use super::*;

const UID: &str = "00000000-0000-0000-0000-000000000001";

fn meta() -> Value {
    json!({
        "name": "job", "uid": UID, "tenant": "infra", "resourceVersion": 3, "generation": 2,
        "createdAt": "2025-01-01T00:00:00Z", "updatedAt": "2025-01-01T00:00:01Z",
    })
}

#[track_caller]
fn check(edit: impl FnOnce(&mut Value), want: Result<(), &str>) {
    let mut value = meta();
    edit(&mut value);
    match (serde_json::from_value::<ObjectMeta>(value.clone()), want) {
        (Ok(meta), Ok(())) => {
            let again: ObjectMeta =
                serde_json::from_str(&serde_json::to_string(&meta).unwrap()).unwrap();
            assert_eq!(again, meta);
        }
        (Err(err), Err(needle)) => assert!(err.to_string().contains(needle), "{value}: {err}"),
        (got, want) => panic!("{value}: got {got:?}, want {want:?}"),
    }
}

#[test]
fn parsing_checks_each_rule_at_its_boundary() {
    check(|_| {}, Ok(()));
    check(|v| v["generation"] = json!(3), Ok(()));
    check(
        |v| v["generation"] = json!(4),
        Err("invalid generation: every spec change is a change"),
    );
    check(
        |v| v["generation"] = json!(0),
        Err("invalid generation: must be greater than zero"),
    );
    check(
        |v| v["resourceVersion"] = json!(0),
        Err("invalid resourceVersion: must be greater than zero"),
    );
    check(
        |v| v["updatedAt"] = json!("2024-12-31T23:59:59Z"),
        Err("invalid updatedAt: updatedAt is before createdAt"),
    );
    check(|v| v["uid"] = json!("0000"), Err("invalid uid"));
    check(|v| v["tenant"] = json!("a b"), Err("invalid tenant id"));
    check(|v| v["id"] = json!("job"), Err("unknown field `id`"));
    check(|v| v["labels"] = json!({"team": "infra"}), Ok(()));
    check(
        |v| v["labels"] = json!({"team": "in fra"}),
        Err(r#"labels["team"]"#),
    );
    check(
        |v| v["annotations"] = json!({"bad key": "x"}),
        Err(r#"invalid annotations["bad key"]"#),
    );
    check(
        |v| {
            v["ownerReferences"] = json!([
                {"kind": "Flow", "name": "etl", "uid": "00000000-0000-0000-0000-000000000002", "controller": true},
                {"kind": "Schedule", "name": "nightly", "uid": "00000000-0000-0000-0000-000000000003"},
            ])
        },
        Ok(()),
    );
    check(
        |v| {
            v["ownerReferences"] = json!([{"kind": "Task", "name": "job", "uid": "00000000-0000-0000-0000-000000000002"}])
        },
        Err("invalid ownerReferences[0]: a task cannot own itself"),
    );
    check(
        |v| v["ownerReferences"] = json!([{"kind": "Flow", "name": "etl", "uid": UID}]),
        Err("invalid ownerReferences[0]: a task cannot own itself"),
    );
    check(
        |v| {
            v["ownerReferences"] = json!([
                {"kind": "Flow", "name": "a", "uid": "00000000-0000-0000-0000-000000000002", "controller": true},
                {"kind": "Flow", "name": "b", "uid": "00000000-0000-0000-0000-000000000003", "controller": true},
            ])
        },
        Err("invalid ownerReferences[1].controller: at most one owner is the controller"),
    );
}

#[test]
fn the_wire_leaves_out_empty_metadata() {
    let meta: ObjectMeta = serde_json::from_value(meta()).unwrap();
    assert_eq!(serde_json::to_value(&meta).unwrap(), self::meta());
    assert_eq!(meta.id().as_str(), "job");
    assert_eq!(meta.uid(), Uid::from_u128(1));
    assert_eq!(meta.tenant().as_str(), "infra");
    assert_eq!((meta.resource_version(), meta.generation()), (3, 2));
    assert!(meta.labels().is_empty() && meta.annotations().is_empty());
    assert!(meta.owner_references().is_empty() && meta.controller().is_none());
}

#[test]
fn a_precondition_checks_the_uid_before_the_version() {
    let meta: ObjectMeta = serde_json::from_value(meta()).unwrap();
    let (mine, other) = (Uid::from_u128(1), Uid::from_u128(2));
    assert!(meta.check(&Precondition::default()).is_ok());
    assert!(meta.check(&Precondition::version(3).and_uid(mine)).is_ok());
    assert!(meta.check(&Precondition::from(mine)).is_ok());
    assert!(matches!(
        meta.check(&Precondition::version(2)),
        Err(TaskError::Conflict {
            expected: 2,
            actual: 3
        })
    ));
    let gone = meta
        .check(&Precondition::version(2).and_uid(other))
        .unwrap_err();
    assert!(
        matches!(gone, TaskError::UidMismatch { expected, actual } if expected == other && actual == mine)
    );
    assert_eq!(gone.kind(), model_ids::ErrorKind::Gone);
    assert_eq!(Precondition::from(Some(3)), Precondition::version(3));
    assert_eq!(Precondition::from(3), Precondition::version(3));
}
