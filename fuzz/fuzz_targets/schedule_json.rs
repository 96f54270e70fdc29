//! A schedule from JSON: round trip, fire times, catch-up and overlap.
//!
//! Input: 8 bytes of seconds since the Unix epoch (little-endian), then the schedule's JSON.
//! A schedule that parses must serialize and parse back equal; its next fire times must go
//! strictly forward and respect `startAt`, `endAt`, `remainingRuns` and `paused`; catch-up
//! must return at most `MAX_CATCHUP_TICKS` ticks, oldest first, inside the window.
#![no_main]

mod common;

use chrono::{DateTime, TimeDelta, Utc};
use libfuzzer_sys::fuzz_target;
use taskmodel::schedule::{MAX_CATCHUP_TICKS, OverlapPolicy, Schedule};

fuzz_target!(|data: &[u8]| {
    let Some((seconds, json)) = common::leading_i64(data) else {
        return;
    };
    let Ok(schedule) = serde_json::from_slice::<Schedule>(json) else {
        return;
    };
    let text = serde_json::to_string(&schedule).expect("a schedule serializes");
    let back: Schedule = serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("JSON {text} does not parse back: {err}"));
    assert_eq!(back, schedule, "round trip differs: {text}");

    let after =
        DateTime::from_timestamp(seconds % 20_000_000_000, 0).unwrap_or(DateTime::UNIX_EPOCH);
    let times = schedule
        .next_fire_times(after, 20)
        .expect("20 is within the bound");
    if schedule.paused() {
        assert!(times.is_empty());
    }
    if let Some(runs) = schedule.remaining_runs() {
        assert!(times.len() <= runs as usize);
    }
    let mut previous = after;
    for time in &times {
        assert!(*time > previous, "{time} after {previous}");
        assert!(schedule.start_at().is_none_or(|start| *time >= start));
        assert!(schedule.end_at().is_none_or(|end| *time <= end));
        previous = *time;
    }

    let now = after + TimeDelta::days(3);
    let missed = schedule.catch_up(after, now);
    assert!(missed.ticks.len() <= MAX_CATCHUP_TICKS);
    let window = TimeDelta::milliseconds(schedule.catchup_window_ms() as i64);
    let mut previous = after;
    for tick in &missed.ticks {
        assert!(*tick > previous && *tick <= now && *tick >= now - window);
        previous = *tick;
    }
    for policy in OverlapPolicy::ALL {
        for running in [false, true] {
            let _ = policy.decide(running, running);
        }
    }
    let _: DateTime<Utc> = previous;
});
