//! A task spec from JSON.
//!
//! A spec that parses must pass `validate` (unless its kind is embedded, which only the
//! submit rule refuses), serialize to a fixpoint that parses back to an equal spec, keep
//! the selector laws for its runner selector, and decide restarts without panicking (a
//! success never exhausting the budget).
#![no_main]

mod common;

use chrono::{DateTime, Utc};
use libfuzzer_sys::fuzz_target;
use taskmodel::SeededRandom;
use taskmodel::task::lifecycle::RestartHistory;
use taskmodel::task::{AttemptOutcome, RestartDecision, TaskSpec};

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = serde_json::from_slice::<TaskSpec>(data) else {
        return;
    };
    let valid = spec.validate();
    assert_eq!(
        valid.is_ok(),
        spec.kind().is_routable(),
        "validate disagrees with the submit rule: {valid:?}"
    );
    let json = serde_json::to_string(&spec).expect("a spec serializes");
    let back: TaskSpec = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(back, spec, "JSON round trip differs: {json}");
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);

    common::check_selector(spec.runner_selector());
    common::check_labels(spec.labels());

    for now in [DateTime::<Utc>::UNIX_EPOCH, DateTime::<Utc>::MAX_UTC] {
        for outcome in AttemptOutcome::ALL {
            for attempts in [0, 1, 2, 64, u32::MAX - 1, u32::MAX] {
                for failures_in_a_row in [0, 1, attempts / 2, attempts] {
                    for last_delay_ms in [None, Some(u64::MAX)] {
                        let history = RestartHistory {
                            attempts,
                            failures_in_a_row,
                            last_delay_ms,
                        };
                        let mut rng = SeededRandom::new(u64::from(attempts));
                        let decision = spec.decide_restart(outcome, history, &mut rng, now);
                        // A success never spends the retry budget.
                        if outcome == AttemptOutcome::Succeeded && attempts < u32::MAX {
                            assert!(
                                !matches!(decision, Ok(RestartDecision::Exhausted)),
                                "a success exhausted {history:?}"
                            );
                        }
                    }
                }
            }
        }
    }
});
