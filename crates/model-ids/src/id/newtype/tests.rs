//! Unit tests for the identifier newtypes: the rule at every boundary, conversions, traits.

use std::{
    collections::{BTreeSet, HashSet},
    sync::Arc,
};

use super::{AgentId, FlowId, JobName, RunnerId, ScheduleId, Slot, TaskId, TenantId};
use crate::{IdError, IdKind};

/// What a check expects.
#[derive(Debug)]
enum Want {
    Ok,
    Empty,
    TooLong { len: usize, max: usize },
    Char { ch: char, index: usize },
    Reserved,
}

/// Builds an id of `kind` through its own constructor and returns its string.
fn build(kind: IdKind, input: &str) -> Result<String, IdError> {
    match kind {
        IdKind::TaskId => TaskId::new(input).map(String::from),
        IdKind::Slot => Slot::new(input).map(String::from),
        IdKind::AgentId => AgentId::new(input).map(String::from),
        IdKind::RunnerId => RunnerId::new(input).map(String::from),
        IdKind::FlowId => FlowId::new(input).map(String::from),
        IdKind::JobName => JobName::new(input).map(String::from),
        IdKind::ScheduleId => ScheduleId::new(input).map(String::from),
        IdKind::TenantId => TenantId::new(input).map(String::from),
        other => panic!("not an identifier kind: {other}"),
    }
}

const ID_KINDS: [IdKind; 8] = [
    IdKind::TaskId,
    IdKind::Slot,
    IdKind::AgentId,
    IdKind::RunnerId,
    IdKind::FlowId,
    IdKind::JobName,
    IdKind::ScheduleId,
    IdKind::TenantId,
];

/// Checks `input` against the constructor, `validate` and `IdKind::validate` of `kind`.
fn check(kind: IdKind, input: &str, want: Want) {
    let got = build(kind, input);
    assert_eq!(
        kind.validate(input),
        got.clone().map(|_| ()),
        "IdKind::validate and new disagree on {input:?}"
    );
    match (&got, &want) {
        (Ok(s), Want::Ok) => assert_eq!(s, input),
        (Err(IdError::Empty { kind: k }), Want::Empty) => assert_eq!(*k, kind),
        (
            Err(
                e @ IdError::TooLong {
                    kind: k, len, max, ..
                },
            ),
            Want::TooLong { len: wl, max: wm },
        ) => {
            assert_eq!((*k, *len, *max), (kind, *wl, *wm), "{e}");
        }
        (
            Err(
                e @ IdError::InvalidChar {
                    kind: k, ch, index, ..
                },
            ),
            Want::Char { ch: wc, index: wi },
        ) => {
            assert_eq!((*k, *ch, *index), (kind, *wc, *wi), "{e}");
        }
        (Err(IdError::Reserved { kind: k, input: i }), Want::Reserved) => {
            assert_eq!((*k, i.as_str()), (kind, input));
        }
        _ => panic!("{kind} {input:?}: got {got:?}, want {want:?}"),
    }
    if let Err(e) = &got {
        assert_eq!(e.id_kind(), kind);
        assert!(
            e.to_string().starts_with(&format!("invalid {kind} ")),
            "{e}"
        );
    }
}

#[test]
fn slot_rule_table() {
    use Want::*;
    let k = IdKind::Slot;
    check(k, "a", Ok);
    check(k, "my-slot", Ok);
    check(k, "a.b", Ok);
    check(k, "..x", Ok);
    check(k, "x..", Ok);
    check(k, "...", Ok);
    check(k, ".hidden", Ok);
    check(k, "-rf", Ok); // allowed by the charset; see the TaskId docs
    check(k, "--", Ok);
    check(k, "_", Ok);
    check(k, "A-Za-z0-9._-", Ok);
    check(k, &"a".repeat(63), Ok);
    check(k, &"a".repeat(64), Ok);
    check(k, &"a".repeat(65), TooLong { len: 65, max: 64 });
    check(k, &"a".repeat(1000), TooLong { len: 1000, max: 64 });
    check(k, "", Empty);
    check(k, ".", Reserved);
    check(k, "..", Reserved);
    check(k, "a b", Char { ch: ' ', index: 1 });
    check(k, " a", Char { ch: ' ', index: 0 });
    check(k, "a\t", Char { ch: '\t', index: 1 });
    check(k, "a\nb", Char { ch: '\n', index: 1 });
    check(k, "a\r", Char { ch: '\r', index: 1 });
    check(k, "a/b", Char { ch: '/', index: 1 });
    check(k, "../etc", Char { ch: '/', index: 2 });
    check(k, "a\\b", Char { ch: '\\', index: 1 });
    check(k, "a\0", Char { ch: '\0', index: 1 });
    check(k, "a:b", Char { ch: ':', index: 1 });
    check(k, "a=b", Char { ch: '=', index: 1 });
    check(k, "a+b", Char { ch: '+', index: 1 });
    check(k, "a~", Char { ch: '~', index: 1 });
    check(k, "é", Char { ch: 'é', index: 0 });
    check(k, "caf\u{e9}", Char { ch: 'é', index: 3 });
    check(
        k,
        "ab\u{1F600}",
        Char {
            ch: '\u{1F600}',
            index: 2,
        },
    );
    check(
        k,
        "a\u{a0}b",
        Char {
            ch: '\u{a0}',
            index: 1,
        },
    ); // no-break space
    check(
        k,
        "a\u{7f}",
        Char {
            ch: '\u{7f}',
            index: 1,
        },
    );
    // The first invalid character is reported, not a later one.
    check(k, "a b/c", Char { ch: ' ', index: 1 });
    // Length is checked first: it bounds the work on hostile input.
    check(k, &" ".repeat(65), TooLong { len: 65, max: 64 });
    // Length is in bytes: 32 two-byte characters fit, 33 do not.
    check(k, &"é".repeat(32), Char { ch: 'é', index: 0 });
    check(k, &"é".repeat(33), TooLong { len: 66, max: 64 });
}

#[test]
fn every_kind_at_its_length_boundary() {
    let table = [
        (IdKind::TaskId, 256),
        (IdKind::Slot, 64),
        (IdKind::AgentId, 128),
        (IdKind::RunnerId, 128),
        (IdKind::FlowId, 128),
        (IdKind::JobName, 64),
        (IdKind::ScheduleId, 128),
        (IdKind::TenantId, 64),
    ];
    for (kind, max) in table {
        assert_eq!(kind.max_len(), max, "{kind}");
        check(kind, &"x".repeat(max - 1), Want::Ok);
        check(kind, &"x".repeat(max), Want::Ok);
        check(
            kind,
            &"x".repeat(max + 1),
            Want::TooLong { len: max + 1, max },
        );
    }
}

#[test]
fn every_kind_follows_the_same_rule() {
    for kind in ID_KINDS {
        check(kind, "ok-1.2_3", Want::Ok);
        check(kind, "", Want::Empty);
        check(kind, ".", Want::Reserved);
        check(kind, "..", Want::Reserved);
        check(kind, "a b", Want::Char { ch: ' ', index: 1 });
        check(
            kind,
            "\u{1F980}",
            Want::Char {
                ch: '\u{1F980}',
                index: 0,
            },
        );
    }
}

#[test]
fn constants_match_the_limits() {
    assert_eq!(crate::SLOT_MAX_LEN, 64);
    assert_eq!(crate::TASK_ID_MAX_LEN, 256);
    assert_eq!(crate::AGENT_ID_MAX_LEN, 128);
    assert_eq!(crate::RUNNER_ID_MAX_LEN, 128);
    assert_eq!((Slot::MAX_LEN, Slot::KIND), (64, IdKind::Slot));
    assert_eq!((TaskId::MAX_LEN, TaskId::KIND), (256, IdKind::TaskId));
    assert_eq!((AgentId::MAX_LEN, AgentId::KIND), (128, IdKind::AgentId));
    assert_eq!((RunnerId::MAX_LEN, RunnerId::KIND), (128, IdKind::RunnerId));
}

#[test]
fn every_way_in_validates() {
    let bad = "a b";
    assert!(Slot::new(bad).is_err());
    assert!(Slot::new(String::from(bad)).is_err());
    assert!(Slot::validate(bad).is_err());
    assert!(Slot::try_from(bad).is_err());
    assert!(Slot::try_from(String::from(bad)).is_err());
    assert!(Slot::try_from(Arc::<str>::from(bad)).is_err());
    assert!(bad.parse::<Slot>().is_err());
    let good = "a-b";
    assert_eq!(Slot::new(good).unwrap(), good);
    assert_eq!(Slot::try_from(good).unwrap(), good);
    assert_eq!(Slot::try_from(String::from(good)).unwrap(), good);
    assert_eq!(good.parse::<Slot>().unwrap(), good);
}

#[test]
fn try_from_arc_keeps_the_allocation_and_clone_shares_it() {
    let arc: Arc<str> = Arc::from("shared");
    let id = TaskId::try_from(Arc::clone(&arc)).unwrap();
    let copy = id.clone();
    let back: Arc<str> = copy.into();
    assert!(Arc::ptr_eq(&arc, &back));
}

#[test]
fn display_debug_and_str_access() {
    let id = RunnerId::new("r-1").unwrap();
    assert_eq!(id.to_string(), "r-1");
    assert_eq!(format!("[{id:>5}]"), "[  r-1]");
    assert_eq!(format!("{id:?}"), r#"RunnerId("r-1")"#);
    assert_eq!(id.as_str(), "r-1");
    assert_eq!(AsRef::<str>::as_ref(&id), "r-1");
    assert_eq!(id.len(), 3); // through Deref<Target = str>
    assert_eq!(String::from(id), "r-1");
}

#[test]
fn compares_with_strings_both_ways() {
    let id = AgentId::new("agent").unwrap();
    let s = String::from("agent");
    assert!(id == *"agent");
    assert!(id == "agent");
    assert!(id == s);
    assert!(*"agent" == id);
    assert!("agent" == id);
    assert!(s == id);
    assert!(id != "other");
    assert!("other" != id);
    let other = String::from("other");
    assert!(other != id);
}

#[test]
fn ordering_and_hashing_follow_the_string() {
    let ids: BTreeSet<Slot> = ["b", "a", "c", "B"]
        .into_iter()
        .map(|s| Slot::new(s).unwrap())
        .collect();
    let order: Vec<&str> = ids.iter().map(Slot::as_str).collect();
    assert_eq!(order, ["B", "a", "b", "c"]);
    // Borrow<str> lets maps keyed by ids be searched with a &str.
    let set: HashSet<TaskId> = [TaskId::new("t1").unwrap()].into_iter().collect();
    assert!(set.contains("t1"));
    assert!(!set.contains("t2"));
    assert!(ids.contains("a"));
}
