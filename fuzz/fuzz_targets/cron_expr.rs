//! A cron expression, and its fire times in a time zone from a fuzzer-chosen time.
//!
//! Input: 8 bytes of seconds since the Unix epoch (little-endian), 1 byte choosing a zone,
//! then the expression. An expression that parses must parse again from its text to an equal
//! value; its fire times must come quickly (the search is bounded), each strictly after the
//! one before, and none when it can never fire.
#![no_main]

mod common;

use chrono::DateTime;
use libfuzzer_sys::fuzz_target;
use taskmodel::schedule::{CronExpr, Zone};

const ZONES: [&str; 8] = [
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe",
    "America/Sao_Paulo",
    "Pacific/Chatham",
    "Pacific/Apia",
    "Asia/Kolkata",
];

fuzz_target!(|data: &[u8]| {
    let Some((seconds, rest)) = common::leading_i64(data) else {
        return;
    };
    let Some((zone, text)) = rest.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(cron) = CronExpr::parse(text) else {
        return;
    };
    let again = CronExpr::parse(cron.as_str())
        .unwrap_or_else(|err| panic!("{:?} does not parse back: {err}", cron.as_str()));
    assert_eq!(again, cron);
    let zone: Zone = ZONES[usize::from(*zone) % ZONES.len()]
        .parse()
        .expect("a known zone");
    // Clamp into chrono's range: the ends of the calendar are fair game.
    let after = DateTime::from_timestamp(seconds, 0).unwrap_or(if seconds < 0 {
        DateTime::<chrono::Utc>::MIN_UTC
    } else {
        DateTime::<chrono::Utc>::MAX_UTC
    });
    let times = cron.next_fire_times(&zone, after, 20);
    if !cron.can_fire() {
        assert!(times.is_empty(), "{cron} cannot fire but gave {times:?}");
    }
    let mut previous = after;
    for time in times {
        assert!(time > previous, "{cron} in {zone}: {time} after {previous}");
        previous = time;
    }
});
