//! Unit tests for the simulated schedules: jitter delays each dispatch within its bound and
//! never moves the fire times that follow; a replace tick cancels the unfinished task.
#![allow(clippy::unwrap_used, reason = "a test fails loudly")]

use super::{Schedules, due};
use crate::simulate::clock::Millis;

/// A schedule every minute, its dispatch delayed by up to `jitter_ms`.
fn every_minute(jitter_ms: u64) -> taskmodel::Schedule {
    serde_json::from_value(serde_json::json!({
        "name": "report",
        "spec": {
            "slot": "report",
            "kind": { "type": "container", "image": "registry.example/report:2" },
            "timeoutMs": 120000
        },
        "trigger": { "everyMs": 60000 },
        "overlap": "allow",
        "jitterMs": jitter_ms
    }))
    .unwrap()
}

/// The due times of a schedule's first `n` actions, each fired when it is due.
fn dues(jitter_ms: u64, seed: u64, n: usize) -> Vec<Millis> {
    let mut schedules = Schedules::new(seed);
    schedules.add("report".to_owned(), every_minute(jitter_ms));
    let mut action = schedules.first_actions().unwrap().pop().unwrap();
    let mut dues = Vec::new();
    for _ in 0..n {
        let at = due(&action);
        dues.push(at);
        action = schedules.fired(&action, at).unwrap().next.unwrap();
    }
    dues
}

#[test]
fn jitter_delays_each_dispatch_within_its_bound_without_drift() {
    let plain = dues(0, 7, 50);
    let expected: Vec<Millis> = (0..50).map(|k| k * 60_000).collect();
    assert_eq!(plain, expected, "no jitter: the fire times themselves");

    let jittered = dues(90_000, 7, 50);
    for (k, (&at, &fire)) in jittered.iter().zip(&expected).enumerate() {
        assert!(
            (fire..=fire + 90_000).contains(&at),
            "action {k} due at {at} ms, fire time {fire} ms"
        );
    }
    assert!(
        jittered
            .iter()
            .zip(&expected)
            .filter(|(at, fire)| at != fire)
            .count()
            > 40,
        "the delays are drawn, not zero: {jittered:?}"
    );
    assert_eq!(
        jittered,
        dues(90_000, 7, 50),
        "the same seed draws the same delays"
    );
    assert_ne!(jittered, dues(90_000, 8, 50), "another seed draws others");
}

#[test]
fn a_replace_tick_cancels_the_unfinished_task_and_starts_its_own() {
    let mut value = serde_json::to_value(every_minute(0)).unwrap();
    value["overlap"] = "replace".into();
    let mut schedules = Schedules::new(7);
    schedules.add("report".to_owned(), serde_json::from_value(value).unwrap());
    let action = schedules.first_actions().unwrap().pop().unwrap();
    let first = schedules.fired(&action, 0).unwrap();
    assert_eq!(first.cancel, None, "nothing runs yet");
    let name = |fired: &super::Fired| fired.task.as_ref().unwrap().1.metadata().name().clone();
    let report_1 = name(&first);
    assert_eq!(report_1.as_str(), "report-1");
    let second = schedules.fired(&first.next.unwrap(), 60_000).unwrap();
    assert_eq!(
        second.cancel.as_ref(),
        Some(&report_1),
        "report-1 is unfinished"
    );
    assert_eq!(name(&second).as_str(), "report-2");
    assert_eq!(second.result, serde_json::json!({ "tick": "replaced" }));
    // The canceled task ending starts nothing: it is no longer the schedule's.
    assert!(schedules.ended(&report_1).unwrap().is_none());
    let third = schedules.fired(&second.next.unwrap(), 120_000).unwrap();
    assert_eq!(third.cancel.unwrap().as_str(), "report-2");
    let summary = schedules.summaries().pop().unwrap();
    assert_eq!(
        (
            summary.ticks,
            summary.started,
            summary.skipped,
            summary.replaced
        ),
        (3, 3, 0, 2)
    );
}
