//! Unit tests for the overlap decision: the whole table, and the policy's text forms.

use super::{OverlapDecision, OverlapPolicy};

#[test]
fn decision_table() {
    use OverlapDecision::{Buffer, CancelThenStart, Skip, Start};
    use OverlapPolicy::{Allow, BufferOne, Replace};
    let table = [
        // policy, running, buffered, decision
        (Allow, false, false, Start),
        (Allow, true, false, Start),
        (Allow, true, true, Start),
        (OverlapPolicy::Skip, false, false, Start),
        (OverlapPolicy::Skip, true, false, Skip),
        (OverlapPolicy::Skip, true, true, Skip),
        (BufferOne, false, false, Start),
        (BufferOne, false, true, Start),
        (BufferOne, true, false, Buffer),
        (BufferOne, true, true, Skip),
        (Replace, false, false, Start),
        (Replace, true, false, CancelThenStart),
        (Replace, true, true, CancelThenStart),
    ];
    for (policy, running, buffered, want) in table {
        assert_eq!(
            policy.decide(running, buffered),
            want,
            "{policy} {running} {buffered}"
        );
    }
}

#[test]
fn text_forms() {
    for policy in OverlapPolicy::ALL {
        assert_eq!(policy.to_string().parse::<OverlapPolicy>().unwrap(), policy);
        let json = serde_json::to_string(&policy).unwrap();
        assert_eq!(json, format!("\"{policy}\""));
        assert_eq!(
            serde_json::from_str::<OverlapPolicy>(&json).unwrap(),
            policy
        );
    }
    for spelling in ["bufferOne", "BUFFERONE", "buffer-one", "buffer_one"] {
        assert_eq!(
            spelling.parse::<OverlapPolicy>().unwrap(),
            OverlapPolicy::BufferOne
        );
    }
    assert_eq!(OverlapPolicy::default(), OverlapPolicy::Skip);
    let err = "sometimes".parse::<OverlapPolicy>().unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"overlap: "sometimes": unknown overlap policy (expected allow, skip, bufferOne or replace)"#
    );
    assert!(serde_json::from_str::<OverlapPolicy>(r#""buffer-one""#).is_err());
}
