//! Laws of the fleet's values, through the public API: every value this crate writes reads
//! back equal, and a runner's availability agrees with its reasons.
#![allow(clippy::unwrap_used, reason = "test setup fails loudly")]

use chrono::{DateTime, Utc};
use model_fleet::{LivenessTtl, MAX_LIVENESS_TTL_MS, MAX_RUNNER_CAPACITY, Runner, RunnerState};
use model_ids::RunnerId;
use model_selector::Labels;
use model_task::KindSet;
use proptest::prelude::*;

/// Any time chrono can hold, leap seconds included.
fn any_time() -> impl Strategy<Value = DateTime<Utc>> {
    let (min, max) = (DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC);
    (min.timestamp()..=max.timestamp(), 0u32..2_000_000_000)
        .prop_filter_map("a time chrono holds", |(secs, nanos)| {
            DateTime::from_timestamp(secs, nanos)
        })
}

fn any_kinds() -> impl Strategy<Value = KindSet> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(s, c, w)| {
        let mut kinds = KindSet::EMPTY;
        for (on, kind) in [
            (s, KindSet::SUBPROCESS),
            (c, KindSet::CONTAINER),
            (w, KindSet::WASM),
        ] {
            if on {
                kinds = kinds | kind;
            }
        }
        kinds
    })
}

fn any_labels() -> impl Strategy<Value = Labels> {
    proptest::collection::btree_map("[a-z]{1,8}", "[a-z0-9]{0,8}", 0..6)
        .prop_map(|pairs| Labels::from_pairs(pairs).unwrap())
}

fn any_state() -> impl Strategy<Value = RunnerState> {
    prop::sample::select(RunnerState::ALL.to_vec())
}

prop_compose! {
    fn any_runner()(
        id in "[A-Za-z0-9][A-Za-z0-9._-]{0,20}",
        labels in any_labels(),
        kinds in any_kinds(),
        capacity in 1..=MAX_RUNNER_CAPACITY,
        state in any_state(),
        seen in proptest::option::of(any_time()),
        ttl in 1..=MAX_LIVENESS_TTL_MS,
    ) -> Runner {
        let runner = Runner::builder(RunnerId::new(id).unwrap(), kinds)
            .labels(labels)
            .max_concurrent(capacity)
            .build()
            .unwrap();
        // Registration sets the last-seen time; the state is then reached by its operations.
        let mut runner = match seen {
            Some(at) => runner.register(None, at, LivenessTtl::from_ms(ttl).unwrap()).unwrap(),
            None => runner,
        };
        match state {
            RunnerState::Draining => drop(runner.drain()),
            RunnerState::Offline => {
                if let Some(at) = seen {
                    let late = at.checked_add_signed(chrono::TimeDelta::milliseconds(ttl as i64));
                    if let Some(late) = late {
                        drop(runner.mark_offline(late, LivenessTtl::from_ms(ttl).unwrap()));
                    }
                }
            }
            _ => {}
        }
        runner
    }
}

proptest! {
    #[test]
    fn runners_read_back_equal(runner in any_runner()) {
        let json = serde_json::to_string(&runner).unwrap();
        let again: Runner = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&again, &runner);
        prop_assert_eq!(serde_json::to_string(&again).unwrap(), json);
    }

    #[test]
    fn free_capacity_is_positive_exactly_when_nothing_stands_in_the_way(
        runner in any_runner(),
        active in prop_oneof![0..=MAX_RUNNER_CAPACITY + 1, Just(u32::MAX)],
        now in any_time(),
        ttl in 1..=MAX_LIVENESS_TTL_MS,
    ) {
        let ttl = LivenessTtl::from_ms(ttl).unwrap();
        let free = runner.free_capacity(active, now, ttl);
        let reasons = runner.unavailable(active, now, ttl);
        prop_assert_eq!(free > 0, reasons.is_empty(), "{:?}", reasons);
        prop_assert!(free <= runner.max_concurrent());
    }
}
