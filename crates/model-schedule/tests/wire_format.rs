//! Every schedule-layer example in `docs/wire-format.md` (marked `<!-- schedule-wire: Type -->`)
//! parses as its marker says; accepted ones read back equal, and rejected ones fail with the
//! error written under them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

#[path = "../../../tests/support/wire_examples.rs"]
mod wire_examples;

use wire_examples::{Example, markdown};

use model_schedule::{Action, Schedule, Trigger};
use serde::{Serialize, de::DeserializeOwned};

/// The `<!-- schedule-wire: Type [rejected] -->` examples of `markdown`.
fn examples(markdown: &str) -> Vec<Example> {
    wire_examples::examples(markdown, "schedule-wire")
}

/// Reads `ex` as `T` with the shared check; a rejected example must fail with the error
/// written under it.
fn check<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(ex: &Example) {
    if let Some(err) = wire_examples::check::<T>(ex) {
        let want = ex
            .error
            .as_deref()
            .unwrap_or_else(|| panic!("line {}: no error under it", ex.line));
        assert!(err.starts_with(want), "line {}: {err}", ex.line);
    }
}

#[test]
fn every_schedule_example_parses_as_marked() {
    let markdown = markdown();
    let examples = examples(&markdown);
    let mut seen = std::collections::BTreeSet::new();
    for ex in &examples {
        match ex.type_name.as_str() {
            "Schedule" => check::<Schedule>(ex),
            "Trigger" => check::<Trigger>(ex),
            "Action" => check::<Action>(ex),
            other => panic!("line {}: unknown schedule wire type {other:?}", ex.line),
        }
        seen.insert((ex.type_name.clone(), ex.rejected));
    }
    for name in ["Schedule", "Trigger", "Action"] {
        assert!(
            seen.contains(&(name.to_owned(), false)),
            "no accepted {name} example"
        );
    }
    for name in ["Schedule", "Trigger", "Action"] {
        assert!(
            seen.contains(&(name.to_owned(), true)),
            "no rejected {name} example"
        );
    }
}

#[test]
fn the_design_example_fires_at_two_in_berlin() {
    let markdown = markdown();
    let ex = examples(&markdown)
        .into_iter()
        .find(|e| e.type_name == "Schedule")
        .unwrap();
    let schedule: Schedule = serde_json::from_str(&ex.json).unwrap();
    // It keeps a week of succeeded backups and three failed ones.
    assert_eq!(schedule.history_limits(), Some((7, 3)));
    let times = schedule
        .next_fire_times("2026-03-28T12:00:00Z".parse().unwrap(), 2)
        .unwrap();
    // 02:00 does not exist on 29 March 2026 in Berlin: once, at 03:00 CEST.
    assert_eq!(times[0].to_rfc3339(), "2026-03-29T01:00:00+00:00");
    assert_eq!(times[1].to_rfc3339(), "2026-03-30T00:00:00+00:00");
}
