//! A runner record from JSON, then through every runner operation at the edges of time.
//!
//! A runner that parses must serialize to a fixpoint that parses back equal. Heartbeat,
//! drain, resume, mark offline and a second registration, at the first and last times
//! chrono holds and at the runner's own `lastSeenAt`, either fail with an error or leave a
//! runner that still round-trips; `lastSeenAt` never moves back; and the runner takes work
//! (free capacity above 0) exactly when no reason stands in the way.
#![no_main]

use chrono::{DateTime, Utc};
use libfuzzer_sys::fuzz_target;
use taskmodel::fleet::{LivenessTtl, MAX_LIVENESS_TTL_MS, Runner};

fn round_trip(runner: &Runner) {
    let json = serde_json::to_string(runner).expect("a runner serializes");
    let back: Runner = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(&back, runner, "JSON round trip differs: {json}");
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
}

fuzz_target!(|data: &[u8]| {
    let Ok(runner) = serde_json::from_slice::<Runner>(data) else {
        return;
    };
    round_trip(&runner);
    let mut times = vec![DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC];
    times.extend(runner.last_seen_at());
    let ttls = [1, 60_000, MAX_LIVENESS_TTL_MS].map(|ms| LivenessTtl::from_ms(ms).expect("in range"));
    for now in &times {
        for ttl in ttls {
            for active in [0, 1, runner.max_concurrent(), u32::MAX] {
                let free = runner.free_capacity(active, *now, ttl);
                let reasons = runner.unavailable(active, *now, ttl);
                assert_eq!(free > 0, reasons.is_empty(), "{reasons:?}");
                assert!(free <= runner.max_concurrent());
            }
            let mut changed = runner.clone();
            let before = changed.last_seen_at();
            if changed.heartbeat(*now).is_ok() {
                assert!(changed.last_seen_at() >= before, "lastSeenAt moved back");
            }
            round_trip(&changed);
            for step in [Runner::drain, Runner::resume] {
                let mut changed = runner.clone();
                let _ = step(&mut changed);
                round_trip(&changed);
            }
            let mut changed = runner.clone();
            let _ = changed.mark_offline(*now, ttl);
            round_trip(&changed);
            if let Ok(again) = runner.clone().register(Some(&runner), *now, ttl) {
                assert_eq!(again.last_seen_at(), Some(*now));
                round_trip(&again);
            }
        }
    }
});
