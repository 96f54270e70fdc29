//! Property tests through the public API: action keys sort as time over chrono's whole
//! range, fire times only go forward and agree with a brute-force oracle written here from
//! Vixie cron's and Debian cron's rules, and wire values read back equal.
#![allow(
    clippy::unwrap_used,
    reason = "strategies and the oracle build values from known-good parts; a failure is a test bug"
)]

use std::collections::BTreeSet;

use chrono::{DateTime, Datelike, NaiveDateTime, TimeDelta, Timelike, Utc};
use model_ids::ActionId;
use model_schedule::{Action, ActionKey, CronExpr, Interval, Zone, due_upper_bound};
use proptest::prelude::*;

/// Any time chrono can hold, in milliseconds.
fn any_time() -> impl Strategy<Value = DateTime<Utc>> {
    let (min, max) = (
        DateTime::<Utc>::MIN_UTC.timestamp_millis(),
        DateTime::<Utc>::MAX_UTC.timestamp_millis(),
    );
    prop_oneof![
        min..=max,
        -10_000_000_000_000i64..10_000_000_000_000,
        -2_000i64..2_000,
        Just(min),
        Just(max),
    ]
    .prop_map(|ms| DateTime::from_timestamp_millis(ms).unwrap())
}

proptest! {
    #[test]
    fn key_order_is_time_then_id_order(a in any_time(), b in any_time(), x in any::<u128>(), y in any::<u128>()) {
        let (ka, kb) = (ActionKey::new(a, ActionId::from_u128(x)), ActionKey::new(b, ActionId::from_u128(y)));
        let want = (a.timestamp_millis(), x).cmp(&(b.timestamp_millis(), y));
        prop_assert_eq!(ka.cmp(&kb), want);
        prop_assert_eq!(ka.as_bytes().cmp(kb.as_bytes()), want);
        prop_assert_eq!(ka.millis(), a.timestamp_millis());
        prop_assert_eq!(ka.id(), ActionId::from_u128(x));
        prop_assert_eq!(ka.time(), DateTime::from_timestamp_millis(a.timestamp_millis()));
        // Due exactly when its millisecond is at or before now's.
        prop_assert_eq!(ka <= due_upper_bound(b), a.timestamp_millis() <= b.timestamp_millis());
    }
}

// ---- An independent oracle for cron: expressions built from sets, matched by sets.

/// One field: `*`, `*/step`, or a list of values.
#[derive(Debug, Clone)]
enum Field {
    Star,
    Step(u32),
    List(BTreeSet<u32>),
}

impl Field {
    fn text(&self) -> String {
        match self {
            Field::Star => "*".into(),
            Field::Step(step) => format!("*/{step}"),
            Field::List(values) => values
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    fn contains(&self, value: u32, min: u32) -> bool {
        match self {
            Field::Star => true,
            Field::Step(step) => (value - min).is_multiple_of(*step),
            Field::List(values) => values.contains(&value),
        }
    }

    fn starred(&self) -> bool {
        !matches!(self, Field::List(_))
    }
}

/// A field of `min..=max`, `*` with weight `star`, lists drawn mostly from `near` (where
/// daylight-saving changes happen) so that the interesting cases come up often.
fn field(
    min: u32,
    max: u32,
    star: u32,
    near: std::ops::RangeInclusive<u32>,
) -> impl Strategy<Value = Field> {
    prop_oneof![
        star => Just(Field::Star),
        1 => (1..=max - min + 1).prop_map(Field::Step),
        3 => proptest::collection::btree_set(near, 1..4).prop_map(Field::List),
        1 => proptest::collection::btree_set(min..=max, 1..4).prop_map(Field::List),
    ]
}

#[derive(Debug, Clone)]
struct Expr {
    minute: Field,
    hour: Field,
    dom: Field,
    month: Field,
    dow: Field,
}

impl Expr {
    fn text(&self) -> String {
        [&self.minute, &self.hour, &self.dom, &self.month, &self.dow]
            .map(Field::text)
            .join(" ")
    }

    fn wildcard(&self) -> bool {
        self.minute.starred() || self.hour.starred()
    }

    fn matches(&self, local: NaiveDateTime) -> bool {
        let dom = self.dom.contains(local.day(), 1);
        let dow = self.dow.contains(local.weekday().num_days_from_sunday(), 0);
        let day = if self.dom.starred() || self.dow.starred() {
            dom && dow
        } else {
            dom || dow
        };
        local.second() == 0
            && self.minute.contains(local.minute(), 0)
            && self.hour.contains(local.hour(), 0)
            && self.month.contains(local.month(), 1)
            && day
    }
}

fn expr() -> impl Strategy<Value = Expr> {
    (
        field(0, 59, 2, 0..=59),
        field(0, 23, 2, 0..=3),
        field(1, 31, 12, 1..=31),
        field(1, 12, 12, 1..=12),
        field(0, 6, 12, 0..=0),
    )
        .prop_map(|(minute, hour, dom, month, dow)| Expr {
            minute,
            hour,
            dom,
            month,
            dow,
        })
}

const ZONES: [&str; 7] = [
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe",
    "America/Sao_Paulo",
    "Pacific/Chatham",
    "Asia/Kolkata",
];

/// A start time: some time in 2000 to 2030, moved to shortly before the zone's next offset
/// change (if it has one within a year), where the daylight-saving rules matter.
fn start() -> impl Strategy<Value = (i64, i64)> {
    (
        946_684_800i64..1_893_456_000,
        prop_oneof![0i64..90, 0i64..36 * 60],
    )
}

/// The first instant after `from` (to the minute) at which the zone's offset changes.
fn next_change(zone: &Zone, from: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let offset = zone.offset_at(from);
    let mut day = from;
    for _ in 0..400 {
        let next = day + TimeDelta::days(1);
        if zone.offset_at(next) != offset {
            let (mut low, mut high) = (day, next);
            while high - low > TimeDelta::minutes(1) {
                let middle = low + (high - low) / 2;
                if zone.offset_at(middle) == offset {
                    low = middle
                } else {
                    high = middle
                }
            }
            return Some(high);
        }
        day = next;
    }
    None
}

fn start_near_change(zone: &Zone, (seconds, minutes_before): (i64, i64)) -> DateTime<Utc> {
    let from = DateTime::from_timestamp(seconds, 0).unwrap();
    match next_change(zone, from) {
        Some(change) => change - TimeDelta::minutes(minutes_before),
        None => from,
    }
}

/// The first fire time after `after` within `horizon` minutes, by walking every minute and
/// applying the rules directly: a wildcard expression fires at each instant whose local time
/// matches; a fixed-time one at the first instant of each matching local time, and at the
/// first instant after a gap that swallowed a matching local time.
fn oracle(expr: &Expr, zone: &Zone, after: DateTime<Utc>, horizon: i64) -> Option<DateTime<Utc>> {
    let first = DateTime::from_timestamp((after.timestamp() / 60 + 1) * 60, 0).unwrap();
    let local = |t: DateTime<Utc>| zone.to_local(t).naive_local();
    for step in 0..horizon {
        let instant = first + TimeDelta::minutes(step);
        let now_local = local(instant);
        let before_local = local(instant - TimeDelta::minutes(1));
        if expr.wildcard() {
            if expr.matches(now_local) {
                return Some(instant);
            }
            continue;
        }
        // A gap right before this instant: every skipped local minute that matches fires here.
        let mut skipped = before_local + TimeDelta::minutes(1);
        while skipped < now_local {
            if expr.matches(skipped) {
                return Some(instant);
            }
            skipped += TimeDelta::minutes(1);
        }
        if expr.matches(now_local) {
            // Fire on the first occurrence only: the same local time a back-step ago?
            let day_ago = zone
                .offset_at(instant - TimeDelta::days(1))
                .local_minus_utc();
            let back = i64::from(day_ago - zone.offset_at(instant).local_minus_utc());
            let repeat = back > 0 && local(instant - TimeDelta::seconds(back)) == now_local;
            if !repeat {
                return Some(instant);
            }
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn next_after_agrees_with_the_oracle(e in expr(), zone in proptest::sample::select(&ZONES[..]), after in start()) {
        let zone: Zone = zone.parse().unwrap();
        let after = start_near_change(&zone, after);
        let cron = CronExpr::parse(&e.text()).unwrap();
        let horizon = 3 * 24 * 60;
        let want = oracle(&e, &zone, after, horizon);
        let got = cron.next_after(&zone, after);
        match want {
            Some(want) => prop_assert_eq!(got, Some(want), "{} in {} after {}", e.text(), zone, after),
            None => prop_assert!(got.is_none_or(|t| t > after + TimeDelta::minutes(horizon - 1)), "{} gave {:?}", e.text(), got),
        }
    }

    #[test]
    fn fire_times_go_forward_without_repeats(e in expr(), zone in proptest::sample::select(&ZONES[..]), after in start()) {
        let zone: Zone = zone.parse().unwrap();
        let after = start_near_change(&zone, after);
        let cron = CronExpr::parse(&e.text()).unwrap();
        let times = cron.next_fire_times(&zone, after, 50);
        let mut previous = after;
        for time in &times {
            prop_assert!(*time > previous, "{} in {}: {} then {}", e.text(), zone, previous, time);
            previous = *time;
        }
        if cron.can_fire() {
            prop_assert_eq!(times.len(), 50);
        }
    }

    #[test]
    fn cron_parse_never_panics(text in "\\PC{0,80}|[0-9*/,a-zA-Z@ -]{0,40}") {
        if let Ok(cron) = CronExpr::parse(&text) {
            prop_assert_eq!(CronExpr::parse(cron.as_str()).unwrap(), cron);
        }
    }

    #[test]
    fn interval_next_after_is_the_next_multiple(every in 1_000u64..10_000_000, anchor in any_time(), offset in -100_000_000i64..100_000_000) {
        let interval = Interval::from_ms(every).unwrap();
        let Some(after) = anchor.checked_add_signed(TimeDelta::milliseconds(offset)) else { return Ok(()) };
        if let Some(next) = interval.next_after(anchor, after) {
            prop_assert!(next > after);
            let since = next.signed_duration_since(anchor).num_milliseconds();
            prop_assert_eq!(since.rem_euclid(every as i64), 0);
            prop_assert!(next - TimeDelta::milliseconds(every as i64) <= after);
        }
    }

    #[test]
    fn actions_read_back_equal(n in any::<u128>(), due in any_time(), label in "[a-z -]{1,20}", payload in proptest::collection::vec(any::<u8>(), 0..64), result in any::<i64>(), webhook in any::<bool>()) {
        let now = due;
        let mut action = if webhook {
            Action::webhook(ActionId::from_u128(n), label.trim().to_owned() + "x", payload, due, now).unwrap()
        } else {
            Action::scheduled(ActionId::from_u128(n), label.trim().to_owned() + "x", due, Some(Interval::from_ms(60_000).unwrap()), now).unwrap()
        };
        for step in 0..(n % 3) {
            match step {
                0 => action.start(now).unwrap(),
                _ => action.complete(serde_json::json!({"n": result}), now).unwrap(),
            }
        }
        let json = serde_json::to_string(&action).unwrap();
        prop_assert_eq!(serde_json::from_str::<Action>(&json).unwrap(), action);
    }
}

proptest! {
    #[test]
    fn schedules_with_history_limits_read_back_equal(
        successful in proptest::option::of(0..=model_schedule::MAX_HISTORY_LIMIT),
        failed in proptest::option::of(0..=model_schedule::MAX_HISTORY_LIMIT),
        every in 1_000u64..100_000_000,
    ) {
        let mut json = serde_json::json!({
            "name": "s",
            "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m.wasm"}, "timeoutMs": 1000},
            "trigger": {"everyMs": every},
        });
        if let Some(limit) = successful {
            json["successfulHistoryLimit"] = limit.into();
        }
        if let Some(limit) = failed {
            json["failedHistoryLimit"] = limit.into();
        }
        let schedule: model_schedule::Schedule = serde_json::from_value(json).unwrap();
        prop_assert_eq!(schedule.successful_history_limit(), successful);
        prop_assert_eq!(schedule.failed_history_limit(), failed);
        let back: model_schedule::Schedule =
            serde_json::from_str(&serde_json::to_string(&schedule).unwrap()).unwrap();
        prop_assert_eq!(back, schedule);
    }
}
