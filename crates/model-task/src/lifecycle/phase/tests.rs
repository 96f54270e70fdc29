//! Unit tests for `phase`: names, parsing, finality and the lifecycle table.

use super::*;
use crate::error::TaskError;

#[test]
fn names_parse_and_display() {
    fn check(input: &str, want: Option<TaskPhase>) {
        match (input.parse::<TaskPhase>(), want) {
            (Ok(got), Some(want)) => assert_eq!(got, want, "{input:?}"),
            (Err(TaskError::UnknownTaskPhase { input: quoted }), None) => {
                assert_eq!(quoted, shorten(input));
            }
            (got, want) => panic!("{input:?}: got {got:?}, want {want:?}"),
        }
    }
    check("pending", Some(TaskPhase::Pending));
    check("Running", Some(TaskPhase::Running));
    check("SUCCEEDED", Some(TaskPhase::Succeeded));
    check("failed", Some(TaskPhase::Failed));
    check("timeout", Some(TaskPhase::Timeout));
    check("canceled", Some(TaskPhase::Canceled));
    check("exhausted", Some(TaskPhase::Exhausted));
    check("cancelled", None);
    check("", None);
    check(" running", None);
    check(&"x".repeat(500), None);
}

#[test]
fn display_and_serde_use_the_same_wire_name() {
    for phase in TaskPhase::ALL {
        let json = serde_json::to_string(&phase).unwrap();
        assert_eq!(json, format!("\"{phase}\""));
        assert_eq!(serde_json::from_str::<TaskPhase>(&json).unwrap(), phase);
        assert_eq!(phase.to_string().parse::<TaskPhase>().unwrap(), phase);
    }
}

#[test]
fn final_phases_are_exactly_the_five_terminal_phases() {
    use TaskPhase::*;
    let finals: Vec<TaskPhase> = TaskPhase::ALL
        .into_iter()
        .filter(|p| p.is_final())
        .collect();
    assert_eq!(finals, [Succeeded, Failed, Timeout, Canceled, Exhausted]);
}

#[test]
fn lifecycle_table_over_all_pairs() {
    use TaskPhase::*;
    let allowed = [
        (Pending, Running),
        (Pending, Canceled),
        (Running, Pending),
        (Running, Succeeded),
        (Running, Failed),
        (Running, Timeout),
        (Running, Canceled),
        (Running, Exhausted),
    ];
    for from in TaskPhase::ALL {
        for to in TaskPhase::ALL {
            let want = allowed.contains(&(from, to));
            assert_eq!(from.can_become(to), want, "{from} -> {to}");
            match from.check_transition(to) {
                Ok(()) => assert!(want),
                Err(TaskError::InvalidTransition { from: f, to: t }) => {
                    assert!(!want);
                    assert_eq!((f, t), (from, to));
                }
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
    }
}

#[test]
fn nothing_leaves_a_final_phase() {
    for from in TaskPhase::ALL.into_iter().filter(|p| p.is_final()) {
        for to in TaskPhase::ALL {
            assert!(!from.can_become(to), "{from} -> {to}");
        }
    }
}
