//! Unit tests for cron expressions: parsing and its errors, Vixie cron's day rule, and fire
//! times across daylight-saving changes, against tables written by hand from the zone rules.

use chrono::{DateTime, Utc};

use super::CronExpr;
use crate::CronField;
use crate::{ScheduleError, Zone};

fn utc(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn zone(name: &str) -> Zone {
    name.parse().unwrap()
}

/// The next `want.len()` fire times of `expr` in `zone` after `after` are `want`.
#[track_caller]
fn check(expr: &str, zone_name: &str, after: &str, want: &[&str]) {
    let cron = CronExpr::parse(expr).unwrap();
    let got: Vec<String> = cron
        .next_fire_times(&zone(zone_name), utc(after), want.len())
        .iter()
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .collect();
    assert_eq!(got, want, "{expr} in {zone_name} after {after}");
}

#[test]
fn parse_errors_name_the_field_and_value() {
    let check = |input: &str, want: &str| {
        let err = CronExpr::parse(input).unwrap_err();
        assert_eq!(err.to_string(), want, "{input:?}");
    };
    check(
        "0 0 32 * *",
        r#"cron: day-of-month "32" is out of range 1-31"#,
    );
    check(
        "0 0 0 * *",
        r#"cron: day-of-month "0" is out of range 1-31"#,
    );
    check("60 * * * *", r#"cron: minute "60" is out of range 0-59"#);
    check("* 24 * * *", r#"cron: hour "24" is out of range 0-23"#);
    check("* * * 13 *", r#"cron: month "13" is out of range 1-12"#);
    check("* * * * 8", r#"cron: day-of-week "8" is out of range 0-7"#);
    check("60 * * * * *", r#"cron: second "60" is out of range 0-59"#);
    check(
        "1,2,99 * * * *",
        r#"cron: minute "99" is out of range 0-59"#,
    );
    check(
        "0 0 1-40 * *",
        r#"cron: day-of-month "40" is out of range 1-31"#,
    );
    check(
        "99999999999 * * * *",
        r#"cron: minute "99999999999" is out of range 0-59"#,
    );
    check(
        "5-1 * * * *",
        r#"cron: minute "5-1" is a range whose start 5 is after its end 1"#,
    );
    check(
        "*/0 * * * *",
        r#"cron: minute "*/0": the step must be at least 1"#,
    );
    check(
        "*/ * * * *",
        r#"cron: minute "*/": expected a number after "/""#,
    );
    check(
        "5/10 * * * *",
        r#"cron: minute "5/10": a step follows * or a range, not a single value"#,
    );
    check("1,,2 * * * *", r#"cron: minute "": empty list element"#);
    check(
        "x * * * *",
        r#"cron: minute "x": expected a number, a range N-M, or * (either with a step /S)"#,
    );
    check(
        "* * * foo *",
        r#"cron: month "foo": expected a number 1-12 or a month name jan-dec"#,
    );
    check(
        "* * * * fry",
        r#"cron: day-of-week "fry": expected a number 0-7 or a day name sun-sat"#,
    );
    check(
        "*-5 * * * *",
        r#"cron: minute "*-5": expected a number, a range N-M, or * (either with a step /S)"#,
    );
    check("", "cron: empty cron expression");
    check("   ", "cron: empty cron expression");
    check(
        "0 0 *",
        r#"cron: "0 0 *" has 3 fields, expected 5 (minute to day-of-week) or 6 (with seconds first)"#,
    );
    check(
        "0 0 0 * * * *",
        r#"cron: "0 0 0 * * * *" has 7 fields, expected 5 (minute to day-of-week) or 6 (with seconds first)"#,
    );
    check(
        "@reboot",
        r#"cron: unknown nickname "@reboot" (expected @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly)"#,
    );
    check(
        &"1,".repeat(200),
        "cron: cron expression too long (400 bytes, maximum 256)",
    );
}

#[test]
fn parse_errors_are_typed() {
    assert!(matches!(
        CronExpr::parse("0 0 32 * *"),
        Err(ScheduleError::CronOutOfRange {
            field: CronField::DayOfMonth,
            min: 1,
            max: 31,
            ..
        })
    ));
    assert!(matches!(
        CronExpr::parse("0 0 * * 1-0"),
        Err(ScheduleError::CronReversedRange {
            field: CronField::DayOfWeek,
            start: 1,
            end: 0,
            ..
        })
    ));
    let err = CronExpr::parse(&"a".repeat(257)).unwrap_err();
    assert!(matches!(
        err,
        ScheduleError::CronTooLong {
            len: 257,
            max: 256,
            ..
        }
    ));
    assert!(CronExpr::parse(&format!("{}*", " ".repeat(200))).is_err());
    assert!(CronExpr::parse(&format!("{}* * * * *", " ".repeat(247))).is_ok());
}

#[test]
fn accepted_forms() {
    for text in [
        "* * * * *",
        "*/5 * * * *",
        "0 9 * * 1-5",
        "0 9 * * mon-FRI",
        "0 0 1 jan,JUL *",
        "0 0 1-31/2 * *",
        "0 0 * * 7",
        "0 0 * * 5-7",
        "00 09 * * *",
        "30 4 1,15 * 5",
        "*/15 0-23/2 * * *",
        "0 0 12 * * *",
        "@yearly",
        "@ANNUALLY",
        "@monthly",
        "@weekly",
        "@daily",
        "@midnight",
        "@hourly",
        "  0 2 * * *  ",
        "0\t2\t*\t*\t*",
    ] {
        let cron = CronExpr::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(cron.as_str(), text.trim());
        assert_eq!(cron.to_string().parse::<CronExpr>().unwrap(), cron);
    }
    assert!(CronExpr::parse("0 0 12 * * *").unwrap().has_seconds());
    assert!(!CronExpr::parse("0 12 * * *").unwrap().has_seconds());
}

#[test]
fn wildcard_is_debian_minute_or_hour_star() {
    let check = |text: &str, wildcard: bool| {
        assert_eq!(
            CronExpr::parse(text).unwrap().is_wildcard(),
            wildcard,
            "{text}"
        );
    };
    check("*/5 * * * *", true);
    check("30 * * * *", true);
    check("* 2 * * *", true);
    check("*/15 2 * * *", true);
    check("@hourly", true);
    check("0 2 * * *", false);
    check("0 1-3 * * *", false);
    check("0,30 2 * * *", false);
    check("0 2,14 * * *", false);
    check("@daily", false);
    check("* 0 2 * * *", false);
}

#[test]
fn day_rule_is_vixie_or_when_both_restricted() {
    // 2026-01-01 is a Thursday. "30 4 1,15 * 5": the 1st, the 15th and every Friday.
    check(
        "30 4 1,15 * 5",
        "UTC",
        "2026-01-01T00:00:00Z",
        &[
            "2026-01-01T04:30:00Z",
            "2026-01-02T04:30:00Z",
            "2026-01-09T04:30:00Z",
            "2026-01-15T04:30:00Z",
            "2026-01-16T04:30:00Z",
        ],
    );
    // Day-of-week `*`: day-of-month alone.
    check(
        "0 0 13 * *",
        "UTC",
        "2026-01-01T00:00:00Z",
        &["2026-01-13T00:00:00Z", "2026-02-13T00:00:00Z"],
    );
    // Day-of-month starts with `*` (a step): AND, so only odd days that are Mondays.
    // Mondays of January 2026: 5, 12, 19, 26; odd: 5, 19.
    check(
        "0 0 */2 * 1",
        "UTC",
        "2026-01-01T00:00:00Z",
        &["2026-01-05T00:00:00Z", "2026-01-19T00:00:00Z"],
    );
    // Both `*`: every day.
    check(
        "0 12 * * *",
        "UTC",
        "2026-01-01T00:00:00Z",
        &["2026-01-01T12:00:00Z", "2026-01-02T12:00:00Z"],
    );
    // Day-of-week 7 and 0 are both Sunday (2026-01-04 is one).
    check(
        "0 0 * * 7",
        "UTC",
        "2026-01-01T00:00:00Z",
        &["2026-01-04T00:00:00Z"],
    );
    check(
        "0 0 * * sun",
        "UTC",
        "2026-01-01T00:00:00Z",
        &["2026-01-04T00:00:00Z"],
    );
}

#[test]
fn typical_expressions_in_utc() {
    check(
        "*/5 * * * *",
        "UTC",
        "2026-11-22T10:02:30Z",
        &["2026-11-22T10:05:00Z", "2026-11-22T10:10:00Z"],
    );
    check(
        "0 9 * * 1-5",
        "UTC",
        "2026-11-20T10:00:00Z",
        &["2026-11-23T09:00:00Z", "2026-11-24T09:00:00Z"],
    );
    check(
        "0 0 1 * *",
        "UTC",
        "2026-11-22T00:00:00Z",
        &["2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"],
    );
    check(
        "*/10 * * * * *",
        "UTC",
        "2026-11-22T23:59:55Z",
        &["2026-11-23T00:00:00Z", "2026-11-23T00:00:10Z"],
    );
    // Strictly after: a fire time equal to `after` is not returned; a fraction counts.
    check(
        "0 12 * * *",
        "UTC",
        "2026-11-22T12:00:00Z",
        &["2026-11-23T12:00:00Z"],
    );
    check(
        "0 12 * * *",
        "UTC",
        "2026-11-22T11:59:59.999Z",
        &["2026-11-22T12:00:00Z"],
    );
    // Leap days only: 2028, then 2032.
    check(
        "0 0 29 2 *",
        "UTC",
        "2026-01-01T00:00:00Z",
        &["2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"],
    );
    // Before 1970.
    check(
        "0 0 1 1 *",
        "UTC",
        "1900-06-01T00:00:00Z",
        &["1901-01-01T00:00:00Z"],
    );
}

#[test]
fn an_expression_that_never_fires_gives_nothing_at_once() {
    for text in ["0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 31 2 *"] {
        let cron = CronExpr::parse(text).unwrap();
        assert!(!cron.can_fire(), "{text}");
        assert_eq!(
            cron.next_after(&Zone::UTC, utc("2026-01-01T00:00:00Z")),
            None
        );
        assert!(
            cron.next_fire_times(&Zone::UTC, utc("2026-01-01T00:00:00Z"), 5)
                .is_empty()
        );
    }
    // OR with a day of the week always fires.
    assert!(CronExpr::parse("0 0 30 2 1").unwrap().can_fire());
    // February 29 that is a Sunday (AND, since day-of-week starts with `*`): rare, but real.
    let rare = CronExpr::parse("0 0 29 2 */7").unwrap();
    assert!(rare.can_fire());
    assert_eq!(
        rare.next_after(&Zone::UTC, utc("2026-01-01T00:00:00Z")),
        Some(utc("2032-02-29T00:00:00Z"))
    );
}

#[test]
fn the_end_of_chrono_s_range_is_no_fire_time() {
    let cron = CronExpr::parse("0 0 1 1 *").unwrap();
    assert_eq!(cron.next_after(&Zone::UTC, DateTime::<Utc>::MAX_UTC), None);
    assert_eq!(
        cron.next_after(&zone("Europe/Berlin"), DateTime::<Utc>::MAX_UTC),
        None
    );
    assert!(
        cron.next_after(&Zone::UTC, DateTime::<Utc>::MIN_UTC)
            .is_some()
    );
}

// ---- Europe/Berlin: CET (+1) and CEST (+2); in 2026 the clock goes forward on 29 March at
// 01:00 UTC (02:00 CET becomes 03:00 CEST) and back on 25 October at 01:00 UTC (03:00 CEST
// becomes 02:00 CET).

#[test]
fn berlin_spring_forward() {
    // Fixed time in the gap: once, at the first instant after it (03:00 CEST = 01:00Z).
    check(
        "30 2 * * *",
        "Europe/Berlin",
        "2026-03-27T12:00:00Z",
        &[
            "2026-03-28T01:30:00Z",
            "2026-03-29T01:00:00Z",
            "2026-03-30T00:30:00Z",
        ],
    );
    check(
        "0 2 * * *",
        "Europe/Berlin",
        "2026-03-28T12:00:00Z",
        &["2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z"],
    );
    // Two fixed times in the gap collapse to one fire time.
    check(
        "0,30 2 * * *",
        "Europe/Berlin",
        "2026-03-28T12:00:00Z",
        &[
            "2026-03-29T01:00:00Z",
            "2026-03-30T00:00:00Z",
            "2026-03-30T00:30:00Z",
        ],
    );
    // A fixed hour range: 01:15 CET, 02:15 (gap) at 03:00 CEST, 03:15 CEST.
    check(
        "15 1-3 * * *",
        "Europe/Berlin",
        "2026-03-28T23:00:00Z",
        &[
            "2026-03-29T00:15:00Z",
            "2026-03-29T01:00:00Z",
            "2026-03-29T01:15:00Z",
        ],
    );
    // Wildcards run by the clock: 02:00 and 02:30 do not happen.
    check(
        "*/30 * * * *",
        "Europe/Berlin",
        "2026-03-29T00:00:00Z",
        &[
            "2026-03-29T00:30:00Z",
            "2026-03-29T01:00:00Z",
            "2026-03-29T01:30:00Z",
        ],
    );
    check(
        "30 * * * *",
        "Europe/Berlin",
        "2026-03-28T23:45:00Z",
        &[
            "2026-03-29T00:30:00Z",
            "2026-03-29T01:30:00Z",
            "2026-03-29T02:30:00Z",
        ],
    );
}

#[test]
fn berlin_fall_back() {
    // Fixed time in the repeated hour: once, on the first pass (02:30 CEST = 00:30Z).
    check(
        "30 2 * * *",
        "Europe/Berlin",
        "2026-10-24T12:00:00Z",
        &["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"],
    );
    // From later on the first pass, and from the second pass: not again that day.
    check(
        "30 2 * * *",
        "Europe/Berlin",
        "2026-10-25T00:45:00Z",
        &["2026-10-26T01:30:00Z"],
    );
    check(
        "30 2 * * *",
        "Europe/Berlin",
        "2026-10-25T01:10:00Z",
        &["2026-10-26T01:30:00Z"],
    );
    check(
        "0 1-3 * * *",
        "Europe/Berlin",
        "2026-10-24T22:00:00Z",
        &[
            "2026-10-24T23:00:00Z",
            "2026-10-25T00:00:00Z",
            "2026-10-25T02:00:00Z",
        ],
    );
    check(
        "0 2,14 * * *",
        "Europe/Berlin",
        "2026-10-24T22:00:00Z",
        &["2026-10-25T00:00:00Z", "2026-10-25T13:00:00Z"],
    );
    // Wildcards fire on both passes.
    check(
        "*/30 * * * *",
        "Europe/Berlin",
        "2026-10-24T23:45:00Z",
        &[
            "2026-10-25T00:00:00Z",
            "2026-10-25T00:30:00Z",
            "2026-10-25T01:00:00Z",
            "2026-10-25T01:30:00Z",
            "2026-10-25T02:00:00Z",
        ],
    );
    // From late on the first pass, the second pass comes next (02:00 CET = 01:00Z).
    check(
        "*/30 * * * *",
        "Europe/Berlin",
        "2026-10-25T00:45:00Z",
        &["2026-10-25T01:00:00Z", "2026-10-25T01:30:00Z"],
    );
    // From the very instant of a match on the first pass, its second pass comes next.
    check(
        "*/30 * * * *",
        "Europe/Berlin",
        "2026-10-25T00:30:00Z",
        &["2026-10-25T01:00:00Z", "2026-10-25T01:30:00Z"],
    );
    // Six fields with seconds, fixed: once.
    check(
        "0 30 2 * * *",
        "Europe/Berlin",
        "2026-10-24T12:00:00Z",
        &["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"],
    );
}

// ---- America/New_York: EST (-5) and EDT (-4); in 2026 the clock goes forward on 8 March at
// 07:00 UTC (02:00 EST becomes 03:00 EDT) and back on 1 November at 06:00 UTC (02:00 EDT
// becomes 01:00 EST).

#[test]
fn new_york_spring_forward() {
    check(
        "30 2 * * *",
        "America/New_York",
        "2026-03-06T12:00:00Z",
        &[
            "2026-03-07T07:30:00Z",
            "2026-03-08T07:00:00Z",
            "2026-03-09T06:30:00Z",
        ],
    );
    check(
        "0 * * * *",
        "America/New_York",
        "2026-03-08T05:30:00Z",
        &[
            "2026-03-08T06:00:00Z",
            "2026-03-08T07:00:00Z",
            "2026-03-08T08:00:00Z",
        ],
    );
}

#[test]
fn new_york_fall_back() {
    check(
        "30 1 * * *",
        "America/New_York",
        "2026-10-31T12:00:00Z",
        &["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"],
    );
    check(
        "30 * * * *",
        "America/New_York",
        "2026-11-01T04:00:00Z",
        &[
            "2026-11-01T04:30:00Z",
            "2026-11-01T05:30:00Z",
            "2026-11-01T06:30:00Z",
            "2026-11-01T07:30:00Z",
        ],
    );
    check(
        "0 9 * * 1-5",
        "America/New_York",
        "2026-10-30T12:00:00Z",
        &["2026-10-30T13:00:00Z", "2026-11-02T14:00:00Z"],
    );
}

// ---- Australia/Lord_Howe: +10:30 and +11, a 30-minute shift. In 2026 the clock goes back
// on 5 April at 15:00 UTC on the 4th (02:00 +11 becomes 01:30 +10:30) and forward on
// 4 October at 15:30 UTC on the 3rd (02:00 +10:30 becomes 02:30 +11).

#[test]
fn lord_howe_fall_back() {
    check(
        "45 1 * * *",
        "Australia/Lord_Howe",
        "2026-04-04T00:00:00Z",
        &["2026-04-04T14:45:00Z", "2026-04-05T15:15:00Z"],
    );
    check(
        "*/15 * * * *",
        "Australia/Lord_Howe",
        "2026-04-04T14:20:00Z",
        &[
            "2026-04-04T14:30:00Z",
            "2026-04-04T14:45:00Z",
            "2026-04-04T15:00:00Z",
            "2026-04-04T15:15:00Z",
            "2026-04-04T15:30:00Z",
        ],
    );
}

#[test]
fn lord_howe_spring_forward() {
    check(
        "15 2 * * *",
        "Australia/Lord_Howe",
        "2026-10-03T00:00:00Z",
        &["2026-10-03T15:30:00Z", "2026-10-04T15:15:00Z"],
    );
    check(
        "*/15 * * * *",
        "Australia/Lord_Howe",
        "2026-10-03T15:10:00Z",
        &[
            "2026-10-03T15:15:00Z",
            "2026-10-03T15:30:00Z",
            "2026-10-03T15:45:00Z",
        ],
    );
}

#[test]
fn the_compiled_database_has_rules_through_2099() {
    // chrono-tz writes out transitions up to 2099 (see docs/schedules.md); after that a zone
    // keeps its last offset.
    let berlin = zone("Europe/Berlin");
    assert_eq!(
        berlin
            .offset_at(utc("2099-07-01T00:00:00Z"))
            .local_minus_utc(),
        7200
    );
    assert_eq!(
        berlin
            .offset_at(utc("2100-07-01T00:00:00Z"))
            .local_minus_utc(),
        3600
    );
}

#[test]
fn serde_is_the_text() {
    let cron: CronExpr = serde_json::from_str(r#""0 2 * * *""#).unwrap();
    assert_eq!(serde_json::to_string(&cron).unwrap(), r#""0 2 * * *""#);
    let err = serde_json::from_str::<CronExpr>(r#""0 0 32 * *""#).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(r#"cron: day-of-month "32" is out of range 1-31"#)
    );
}
