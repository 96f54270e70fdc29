//! Unit tests for catch-up: the window, the bound, paused schedules and the exact edges.

use chrono::{DateTime, Utc};
use model_task::{TaskEnv, TaskKind, TaskSpec};

use crate::{CatchUp, Interval, MAX_CATCHUP_TICKS, Schedule, Trigger};

fn utc(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn schedule(every_ms: u64, window_ms: u64) -> Schedule {
    let kind = TaskKind::container("img:1".into(), vec![], vec![], TaskEnv::empty()).unwrap();
    let spec = TaskSpec::builder("s", kind, 1_000).build().unwrap();
    let trigger = Trigger::Every {
        every: Interval::from_ms(every_ms).unwrap(),
        anchor: None,
    };
    Schedule::builder("s".parse().unwrap(), spec, trigger)
        .catchup_window_ms(window_ms)
        .build()
        .unwrap()
}

fn minutes(catch_up: &CatchUp) -> Vec<String> {
    catch_up
        .ticks
        .iter()
        .map(|t| t.format("%H:%M").to_string())
        .collect()
}

#[test]
fn window_table() {
    // Every minute; last tick handled 10:00. (window minutes, now, ticks, dropped, more)
    let table: [(u64, &str, &[&str], bool, bool); 6] = [
        (60, "10:00:30", &[], false, false),
        (60, "10:01:00", &["10:01"], false, false),
        (
            3,
            "10:05:00",
            &["10:02", "10:03", "10:04", "10:05"],
            true,
            false,
        ),
        (3, "10:05:30", &["10:03", "10:04", "10:05"], true, false),
        (
            60,
            "10:05:59",
            &["10:01", "10:02", "10:03", "10:04", "10:05"],
            false,
            false,
        ),
        (1, "12:00:00", &["11:59", "12:00"], true, false),
    ];
    let last = utc("2026-11-22T10:00:00Z");
    for (window, now, want, dropped, more) in table {
        let now = utc(&format!("2026-11-22T{now}Z"));
        let got = schedule(60_000, window * 60_000).catch_up(last, now);
        assert_eq!(minutes(&got), want, "window {window} at {now}");
        assert_eq!(
            (got.dropped, got.more),
            (dropped, more),
            "window {window} at {now}"
        );
    }
}

#[test]
fn a_year_down_is_bounded() {
    // Every second for a year, with the largest window: at most MAX_CATCHUP_TICKS, oldest
    // first, and `more` says the rest is for the next call.
    let schedule = schedule(1_000, crate::MAX_CATCHUP_WINDOW_MS);
    let last = utc("2025-11-22T00:00:00Z");
    let now = utc("2026-11-23T00:00:00Z");
    let got = schedule.catch_up(last, now);
    assert_eq!(got.ticks.len(), MAX_CATCHUP_TICKS);
    assert!(got.more && got.dropped);
    assert!(got.ticks.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(got.ticks[0], utc("2025-11-23T00:00:00Z"));
    // The next call goes on after the last returned tick, with no tick twice.
    let next = schedule.catch_up(*got.ticks.last().unwrap(), now);
    assert_eq!(next.ticks[0], utc("2025-11-23T00:01:40Z"));
    assert!(!next.dropped);
}

#[test]
fn nothing_when_paused_or_when_now_is_not_later() {
    let mut paused = schedule(60_000, 3_600_000);
    paused.set_paused(true);
    let last = utc("2026-11-22T10:00:00Z");
    let empty = CatchUp {
        ticks: vec![],
        dropped: false,
        more: false,
    };
    assert_eq!(paused.catch_up(last, utc("2026-11-22T11:00:00Z")), empty);
    assert_eq!(schedule(60_000, 3_600_000).catch_up(last, last), empty);
    assert_eq!(
        schedule(60_000, 3_600_000).catch_up(last, utc("2026-11-22T09:00:00Z")),
        empty
    );
}
