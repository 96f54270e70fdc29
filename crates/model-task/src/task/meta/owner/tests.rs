//! Unit tests for owner references: names by each kind's rule, the list rules (one
//! controller, each uid once, the bound), no reference to the task itself, and the wire form.

use model_ids::Uid;

use super::*;

fn uid(n: u128) -> Uid {
    Uid::from_u128(n)
}

fn owner(kind: OwnerKind, name: &str, n: u128) -> OwnerReference {
    OwnerReference::new(kind, name, uid(n)).unwrap()
}

#[test]
fn names_follow_their_kinds_rule() {
    let check = |kind: OwnerKind, name: &str, ok: bool| {
        let got = OwnerReference::new(kind, name, uid(1));
        assert_eq!(got.is_ok(), ok, "{kind} {name:?}: {got:?}");
        if let Err(err) = got {
            assert_eq!(err.path(), Some("name"));
        }
    };
    check(OwnerKind::Flow, "nightly-etl", true);
    check(
        OwnerKind::Flow,
        &"f".repeat(model_ids::FLOW_ID_MAX_LEN),
        true,
    );
    check(
        OwnerKind::Flow,
        &"f".repeat(model_ids::FLOW_ID_MAX_LEN + 1),
        false,
    );
    check(
        OwnerKind::Schedule,
        &"s".repeat(model_ids::SCHEDULE_ID_MAX_LEN + 1),
        false,
    );
    check(
        OwnerKind::Task,
        &"t".repeat(model_ids::TASK_ID_MAX_LEN),
        true,
    );
    check(OwnerKind::Task, "a b", false);
    check(OwnerKind::Task, "..", false);
}

#[test]
fn a_list_has_one_controller_and_each_uid_once() {
    let flow = owner(OwnerKind::Flow, "f", 1).controlling();
    let schedule = owner(OwnerKind::Schedule, "s", 2);
    assert!(check_owners(&[flow.clone(), schedule.clone()]).is_ok());
    let err = check_owners(&[flow.clone(), schedule.clone().controlling()]).unwrap_err();
    assert_eq!(err.path(), Some("[1].controller"));
    assert_eq!(err.message(), "at most one owner is the controller");
    let err = check_owners(&[flow.clone(), owner(OwnerKind::Task, "t", 1)]).unwrap_err();
    assert_eq!(err.path(), Some("[1].uid"));
    let full: Vec<_> = (0..MAX_OWNER_REFERENCES as u128)
        .map(|n| owner(OwnerKind::Task, "t", n))
        .collect();
    assert!(check_owners(&full).is_ok());
    let mut over = full;
    over.push(owner(OwnerKind::Task, "t", 99));
    assert_eq!(
        check_owners(&over).unwrap_err().message(),
        "17 entries, at most 16 allowed"
    );
}

#[test]
fn a_task_never_owns_itself() {
    let me = owner(OwnerKind::Task, "job", 5);
    let err = check_not_self(std::slice::from_ref(&me), "job", None).unwrap_err();
    assert_eq!(err.path(), Some("[0]"));
    assert_eq!(err.message(), "a task cannot own itself");
    // By uid, whatever the kind says.
    let same_uid = owner(OwnerKind::Flow, "job", 5);
    assert!(check_not_self(std::slice::from_ref(&same_uid), "other", Some(uid(5))).is_err());
    // A flow of the same name is another resource.
    assert!(check_not_self(&[same_uid], "job", Some(uid(6))).is_ok());
    assert!(check_not_self(&[me], "other", Some(uid(6))).is_ok());
}

#[test]
fn the_wire_form_leaves_out_a_false_controller() {
    let plain = owner(OwnerKind::Schedule, "backup", 0x0a);
    let json = serde_json::to_string(&plain).unwrap();
    assert_eq!(
        json,
        r#"{"kind":"Schedule","name":"backup","uid":"00000000-0000-0000-0000-00000000000a"}"#
    );
    assert_eq!(
        serde_json::from_str::<OwnerReference>(&json).unwrap(),
        plain
    );
    let boss = plain.clone().controlling();
    let json = serde_json::to_string(&boss).unwrap();
    assert!(json.ends_with(r#","controller":true}"#), "{json}");
    assert_eq!(serde_json::from_str::<OwnerReference>(&json).unwrap(), boss);
    for bad in [
        r#"{"kind":"Pod","name":"x","uid":"00000000-0000-0000-0000-00000000000a"}"#,
        r#"{"kind":"Task","name":"x","uid":"nope"}"#,
        r#"{"kind":"Task","name":"x y","uid":"00000000-0000-0000-0000-00000000000a"}"#,
        r#"{"kind":"Task","name":"x","uid":"00000000-0000-0000-0000-00000000000a","blockOwnerDeletion":true}"#,
    ] {
        assert!(
            serde_json::from_str::<OwnerReference>(bad).is_err(),
            "{bad}"
        );
    }
}
