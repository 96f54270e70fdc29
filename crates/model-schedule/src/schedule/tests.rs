//! Unit tests for schedules: the wire form and every rule it checks, bounds on fire times,
//! and jitter.

use chrono::{DateTime, Utc};
use model_task::{TaskEnv, TaskKind, TaskSpec};
use serde_json::{Value, json};

use super::Schedule;
use crate::{
    Interval, MAX_HISTORY_LIMIT, MAX_JITTER_MS, MAX_NEXT_FIRE_TIMES, OverlapPolicy, ScheduleError,
    Trigger,
};

fn utc(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn spec() -> TaskSpec {
    let kind = TaskKind::container("backup:1".into(), vec![], vec![], TaskEnv::empty()).unwrap();
    TaskSpec::builder("backup", kind, 600_000).build().unwrap()
}

fn base() -> Value {
    json!({
        "name": "nightly-backup",
        "spec": {"slot": "backup", "kind": {"type": "container", "image": "backup:1"}, "timeoutMs": 600000},
        "trigger": {"cron": "0 2 * * *", "timeZone": "Europe/Berlin"}
    })
}

fn every(ms: u64) -> Trigger {
    Trigger::Every {
        every: Interval::from_ms(ms).unwrap(),
        anchor: None,
    }
}

#[test]
fn defaults_and_round_trip() {
    let schedule: Schedule = serde_json::from_value(base()).unwrap();
    assert_eq!(schedule.name().as_str(), "nightly-backup");
    assert_eq!(schedule.overlap(), OverlapPolicy::Skip);
    assert_eq!(schedule.catchup_window_ms(), 60_000);
    assert_eq!(schedule.max_jitter_ms(), 0);
    assert!(!schedule.paused());
    assert_eq!(
        (
            schedule.start_at(),
            schedule.end_at(),
            schedule.remaining_runs()
        ),
        (None, None, None)
    );
    assert_eq!(schedule.history_limits(), None);
    let written = serde_json::to_value(&schedule).unwrap();
    assert!(written.get("successfulHistoryLimit").is_none(), "{written}");
    assert!(written.get("failedHistoryLimit").is_none(), "{written}");
    assert_eq!(written["overlap"], "skip");
    assert_eq!(
        written["trigger"],
        json!({"cron": "0 2 * * *", "timeZone": "Europe/Berlin"})
    );
    assert_eq!(
        serde_json::from_value::<Schedule>(written).unwrap(),
        schedule
    );
}

#[test]
fn wire_errors_name_their_field() {
    let check = |field: &str, value: Value, want: &str| {
        let mut doc = base();
        if field.contains('.') {
            let (outer, inner) = field.split_once('.').unwrap();
            doc[outer][inner] = value;
        } else {
            doc[field] = value;
        }
        let err = serde_json::from_value::<Schedule>(doc)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(want), "{field}: {err}");
    };
    check(
        "trigger.cron",
        json!("0 0 32 * *"),
        r#"trigger.cron: day-of-month "32" is out of range 1-31"#,
    );
    check(
        "trigger.timeZone",
        json!("Europe/Berln"),
        r#"trigger.timeZone: unknown time zone "Europe/Berln""#,
    );
    check(
        "trigger.timeZone",
        json!("europe/berlin"),
        "trigger.timeZone: unknown time zone",
    );
    check(
        "trigger.timeZone",
        json!("x".repeat(65)),
        "trigger.timeZone: too long (65 bytes, maximum 64)",
    );
    check(
        "trigger.everyMs",
        json!(1000),
        "trigger: give exactly one of cron, everyMs and at",
    );
    check(
        "trigger",
        json!({}),
        "trigger: give exactly one of cron, everyMs and at",
    );
    check(
        "trigger",
        json!({"everyMs": 999}),
        "trigger.everyMs: 999 is out of range 1000 to 316224000000",
    );
    check(
        "trigger",
        json!({"everyMs": 1000, "timeZone": "UTC"}),
        "trigger: timeZone belongs to a cron trigger, not an everyMs one",
    );
    check(
        "trigger",
        json!({"cron": "* * * * *", "anchor": "2026-01-01T00:00:00Z"}),
        "trigger: anchor belongs to an everyMs trigger, not a cron one",
    );
    check(
        "trigger",
        json!({"at": "2026-01-01T00:00:00Z", "anchor": "2026-01-01T00:00:00Z"}),
        "trigger: an at trigger has no timeZone or anchor",
    );
    check("trigger.cronn", json!("x"), "unknown field `cronn`");
    check("name", json!("a b"), "name: invalid schedule id");
    check(
        "catchupWindowMs",
        json!(999),
        "catchupWindowMs: 999 is out of range 1000 to 31536000000",
    );
    check(
        "catchupWindowMs",
        json!(31_536_000_001_u64),
        "catchupWindowMs: 31536000001 is out of range",
    );
    check(
        "jitterMs",
        json!(3_600_001),
        "jitterMs: 3600001 is out of range 0 to 3600000",
    );
    check("overlap", json!("sometimes"), "unknown variant `sometimes`");
    check("remainingRuns", json!(-1), "invalid value: integer `-1`");
    check(
        "endAt",
        json!("yesterday"),
        "input contains invalid characters",
    );
    let mut doc = base();
    doc["startAt"] = json!("2026-02-01T00:00:00Z");
    doc["endAt"] = json!("2026-01-01T00:00:00Z");
    let err = serde_json::from_value::<Schedule>(doc)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("endAt: 2026-01-01 00:00:00 UTC is before startAt"),
        "{err}"
    );
    let mut doc = base();
    doc["spec"]["kind"] = json!({"type": "embedded"});
    let err = serde_json::from_value::<Schedule>(doc)
        .unwrap_err()
        .to_string();
    assert!(err.contains("spec.kind.type"), "{err}");
    let mut doc = base();
    doc["extra"] = json!(1);
    assert!(serde_json::from_value::<Schedule>(doc).is_err());
}

#[test]
fn builder_checks_the_same_rules() {
    let name = || "s".parse().unwrap();
    assert!(matches!(
        Schedule::builder(name(), spec(), every(1000)).jitter_ms(MAX_JITTER_MS + 1).build(),
        Err(ScheduleError::OutOfRange { ref path, .. }) if path == "jitterMs"
    ));
    assert!(
        Schedule::builder(name(), spec(), every(1000))
            .jitter_ms(MAX_JITTER_MS)
            .build()
            .is_ok()
    );
    assert!(matches!(
        Schedule::builder(name(), spec(), every(1000)).catchup_window_ms(0).build(),
        Err(ScheduleError::OutOfRange { ref path, .. }) if path == "catchupWindowMs"
    ));
    let at = utc("2026-01-01T00:00:00Z");
    assert!(
        Schedule::builder(name(), spec(), every(1000))
            .start_at(at)
            .end_at(at)
            .build()
            .is_ok()
    );
    let embedded = TaskSpec::builder("s", TaskKind::Embedded, 1)
        .build()
        .unwrap();
    let err = Schedule::builder(name(), embedded, every(1000))
        .build()
        .unwrap_err();
    assert!(matches!(err, ScheduleError::Spec(_)), "{err}");
}

#[test]
fn bounds_on_fire_times() {
    let name = || "s".parse().unwrap();
    let after = utc("2026-01-01T00:00:00Z");
    let times = |schedule: &Schedule| -> Vec<String> {
        schedule
            .next_fire_times(after, 10)
            .unwrap()
            .iter()
            .map(|t| t.format("%H:%M:%S").to_string())
            .collect()
    };
    // startAt and endAt are inclusive.
    let bounded = Schedule::builder(name(), spec(), every(60_000))
        .start_at(utc("2026-01-01T00:02:00Z"))
        .end_at(utc("2026-01-01T00:04:00Z"))
        .build()
        .unwrap();
    assert_eq!(times(&bounded), ["00:02:00", "00:03:00", "00:04:00"]);
    let limited = Schedule::builder(name(), spec(), every(60_000))
        .remaining_runs(2)
        .build()
        .unwrap();
    assert_eq!(times(&limited), ["00:01:00", "00:02:00"]);
    let mut spent = limited.clone();
    spent.record_fire();
    spent.record_fire();
    spent.record_fire();
    assert_eq!(spent.remaining_runs(), Some(0));
    assert!(times(&spent).is_empty());
    let mut paused = Schedule::builder(name(), spec(), every(60_000))
        .paused(true)
        .build()
        .unwrap();
    assert!(times(&paused).is_empty());
    paused.set_paused(false);
    assert_eq!(times(&paused).len(), 10);
    let once = Schedule::builder(
        name(),
        spec(),
        Trigger::At {
            at: utc("2026-01-01T00:00:30Z"),
        },
    )
    .build()
    .unwrap();
    assert_eq!(times(&once), ["00:00:30"]);
    assert!(matches!(
        once.next_fire_times(after, MAX_NEXT_FIRE_TIMES + 1),
        Err(ScheduleError::TooManyFireTimes {
            requested: 1001,
            max: 1000
        })
    ));
    assert!(once.next_fire_times(after, MAX_NEXT_FIRE_TIMES).is_ok());
}

#[test]
fn every_with_an_anchor_keeps_its_phase() {
    let trigger = Trigger::Every {
        every: Interval::from_ms(90_000).unwrap(),
        anchor: Some(utc("2026-01-01T00:00:10Z")),
    };
    let check = |after: &str, want: &str| {
        assert_eq!(trigger.next_after(utc(after)), Some(utc(want)), "{after}");
    };
    check("2026-01-01T00:00:00Z", "2026-01-01T00:00:10Z");
    check("2026-01-01T00:00:10Z", "2026-01-01T00:01:40Z");
    check("2025-12-31T23:58:40Z", "2026-01-01T00:00:10Z");
    check("2025-12-31T23:58:39Z", "2025-12-31T23:58:40Z");
    // Before 1970 too: the epoch anchor, every 90 seconds.
    assert_eq!(
        every(90_000).next_after(utc("1969-12-31T23:58:00Z")),
        Some(utc("1969-12-31T23:58:30Z"))
    );
}

#[test]
fn jitter_is_uniform_within_the_bound_and_drawn_from_the_caller() {
    let name = || "s".parse().unwrap();
    let schedule = Schedule::builder(name(), spec(), every(60_000))
        .jitter_ms(1_000)
        .build()
        .unwrap();
    assert_eq!(schedule.jitter_ms(&mut || 0u64), 0);
    assert_eq!(schedule.jitter_ms(&mut || u64::MAX), 1_000);
    assert_eq!(schedule.jitter_ms(&mut || 1u64 << 63), 500);
    let none = Schedule::builder(name(), spec(), every(60_000))
        .build()
        .unwrap();
    let mut draws = 0;
    assert_eq!(
        none.jitter_ms(&mut || {
            draws += 1;
            u64::MAX
        }),
        0
    );
    assert_eq!(draws, 0);
}

/// Limits as written (successful, failed), and what `history_limits` gives or the error.
type Case = (
    Option<u64>,
    Option<u64>,
    Result<Option<(u32, u32)>, &'static str>,
);

#[test]
fn history_limits_are_bounded_and_default_as_cronjob() {
    let table: [Case; 9] = [
        (None, None, Ok(None)),
        (Some(0), Some(0), Ok(Some((0, 0)))),
        (Some(7), None, Ok(Some((7, 1)))),
        (None, Some(5), Ok(Some((3, 5)))),
        (Some(10_000), Some(10_000), Ok(Some((10_000, 10_000)))),
        (
            Some(10_001),
            None,
            Err("successfulHistoryLimit: 10001 is out of range 0 to 10000"),
        ),
        (
            None,
            Some(10_001),
            Err("failedHistoryLimit: 10001 is out of range 0 to 10000"),
        ),
        (
            Some(u64::from(u32::MAX) + 1),
            None,
            Err("successfulHistoryLimit: 4294967296 is out of range"),
        ),
        (
            Some(3),
            Some(u64::MAX),
            Err("failedHistoryLimit: 18446744073709551615 is out of range"),
        ),
    ];
    for (successful, failed, want) in table {
        let mut doc = base();
        if let Some(limit) = successful {
            doc["successfulHistoryLimit"] = json!(limit);
        }
        if let Some(limit) = failed {
            doc["failedHistoryLimit"] = json!(limit);
        }
        let parsed = serde_json::from_value::<Schedule>(doc);
        match want {
            Ok(limits) => {
                let schedule = parsed.unwrap();
                assert_eq!(
                    schedule.history_limits(),
                    limits,
                    "{successful:?} {failed:?}"
                );
                let narrow = |limit: Option<u64>| limit.map(|l| u32::try_from(l).unwrap());
                assert_eq!(schedule.successful_history_limit(), narrow(successful));
                assert_eq!(schedule.failed_history_limit(), narrow(failed));
                let written = serde_json::to_value(&schedule).unwrap();
                assert_eq!(
                    written
                        .get("successfulHistoryLimit")
                        .and_then(Value::as_u64),
                    successful
                );
                assert_eq!(
                    written.get("failedHistoryLimit").and_then(Value::as_u64),
                    failed
                );
                assert_eq!(
                    serde_json::from_value::<Schedule>(written).unwrap(),
                    schedule
                );
            }
            Err(message) => {
                let err = parsed.unwrap_err().to_string();
                assert!(err.starts_with(message), "{err}");
            }
        }
    }
    let name = || "s".parse().unwrap();
    let built = Schedule::builder(name(), spec(), every(1000))
        .successful_history_limit(MAX_HISTORY_LIMIT)
        .failed_history_limit(0)
        .build()
        .unwrap();
    assert_eq!(built.history_limits(), Some((MAX_HISTORY_LIMIT, 0)));
    for (successful, failed, path) in [
        (MAX_HISTORY_LIMIT + 1, 0, "successfulHistoryLimit"),
        (0, MAX_HISTORY_LIMIT + 1, "failedHistoryLimit"),
    ] {
        let err = Schedule::builder(name(), spec(), every(1000))
            .successful_history_limit(successful)
            .failed_history_limit(failed)
            .build()
            .unwrap_err();
        assert!(
            matches!(err, ScheduleError::OutOfRange { path: ref p, value, max, .. }
                if p == path && value == u64::from(MAX_HISTORY_LIMIT) + 1 && max == u64::from(MAX_HISTORY_LIMIT)),
            "{err}"
        );
    }
}
