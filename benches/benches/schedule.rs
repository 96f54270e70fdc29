//! Measures the due set at `now` among 1,000,000 actions (a range scan over `ActionKey`s against a scan of all), and `next_fire_times` for typical cron expressions, side by side with croner, cron and saffron under `--features compare`.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench setup unwraps fixtures known to be valid"
)]

use std::{collections::BTreeMap, hint::black_box};

use chrono::{DateTime, TimeDelta, Utc};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use model_ids::ActionId;
use model_schedule::{Action, ActionKey, CronExpr, Zone, due_actions};

const ACTIONS: u64 = 1_000_000;
const DUE: u64 = 100;
const FIRE_TIMES: usize = 100;

fn now() -> DateTime<Utc> {
    "2026-11-22T12:00:00Z".parse().unwrap()
}

/// A million pending actions keyed by due time: 100 due at `now` (the last 100 seconds),
/// the rest spread over the next 30 days, as a tick loop's index looks after a quiet spell.
fn index() -> BTreeMap<ActionKey, Action> {
    let now = now();
    let created = now - TimeDelta::days(1);
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut index = BTreeMap::new();
    for n in 0..ACTIONS {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let due = if n < DUE {
            now - TimeDelta::seconds(i64::try_from(n).unwrap())
        } else {
            now + TimeDelta::milliseconds(1 + i64::try_from(state % (30 * 86_400_000)).unwrap())
        };
        let id = ActionId::from_u128(u128::from(state) << 64 | u128::from(n));
        let action = Action::scheduled(id, "sync", due, None, created).unwrap();
        index.insert(action.key(), action);
    }
    index
}

fn due_set(c: &mut Criterion) {
    let index = index();
    let now = now();
    assert_eq!(due_actions(&index, now).count(), DUE as usize);
    assert_eq!(
        index.values().filter(|a| a.is_due(now)).count(),
        DUE as usize
    );
    let mut group = c.benchmark_group("schedule/due_1m");
    group.bench_function("range_scan", |b| {
        b.iter(|| due_actions(black_box(&index), black_box(now)).count());
    });
    group.sample_size(20);
    group.bench_function("scan_all", |b| {
        b.iter(|| {
            black_box(&index)
                .values()
                .filter(|a| a.is_due(black_box(now)))
                .count()
        });
    });
    group.finish();
}

/// (label, expression, zone): the five-field ones, and one with seconds.
const CASES: [(&str, &str, &str); 5] = [
    ("every_5_min", "*/5 * * * *", "UTC"),
    ("daily_2am_berlin", "0 2 * * *", "Europe/Berlin"),
    ("weekdays_9am", "0 9 * * Mon-Fri", "UTC"),
    ("monthly", "0 0 1 * *", "UTC"),
    ("every_10_s", "*/10 * * * * *", "UTC"),
];

fn start() -> DateTime<Utc> {
    "2026-11-22T12:34:56Z".parse().unwrap()
}

fn next_fire_times(c: &mut Criterion) {
    let mut group = c.benchmark_group("schedule/next_100");
    for (label, expr, zone) in CASES {
        let cron = CronExpr::parse(expr).unwrap();
        let zone: Zone = zone.parse().unwrap();
        let ours = cron.next_fire_times(&zone, start(), FIRE_TIMES);
        assert_eq!(ours.len(), FIRE_TIMES);
        #[cfg(feature = "compare")]
        peers::check_agreement(expr, zone.name(), &ours);
        group.bench_with_input(BenchmarkId::new("model_schedule", label), &(), |b, ()| {
            b.iter(|| cron.next_fire_times(black_box(&zone), black_box(start()), FIRE_TIMES));
        });
        #[cfg(feature = "compare")]
        peers::bench(&mut group, label, expr, zone.name());
    }
    group.finish();
}

#[cfg(feature = "compare")]
mod peers {
    use std::{hint::black_box, str::FromStr};

    use chrono::{DateTime, Utc};
    use chrono_tz::Tz;
    use criterion::{BenchmarkGroup, BenchmarkId, measurement::WallTime};

    use super::{FIRE_TIMES, start};

    fn croner(expr: &str) -> croner::Cron {
        croner::parser::CronParser::builder()
            .seconds(croner::parser::Seconds::Optional)
            .build()
            .parse(expr)
            .unwrap()
    }

    /// `cron` needs a seconds field.
    fn cron(expr: &str) -> cron::Schedule {
        let six = if expr.split_whitespace().count() == 5 {
            format!("0 {expr}")
        } else {
            expr.to_owned()
        };
        cron::Schedule::from_str(&six).unwrap()
    }

    /// saffron has five fields and no time zones.
    fn saffron(expr: &str, zone: &str) -> Option<saffron::Cron> {
        (zone == "UTC" && expr.split_whitespace().count() == 5).then(|| expr.parse().unwrap())
    }

    /// On these expressions and dates the crates mean the same thing: their answers must
    /// agree before their speed is compared.
    pub(super) fn check_agreement(expr: &str, zone: &str, ours: &[DateTime<Utc>]) {
        let tz: Tz = zone.parse().unwrap();
        let from = start().with_timezone(&tz);
        let theirs: Vec<_> = croner(expr)
            .iter_after(from)
            .take(FIRE_TIMES)
            .map(|t| t.to_utc())
            .collect();
        assert_eq!(theirs, ours, "croner disagrees on {expr}");
        let theirs: Vec<_> = cron(expr)
            .after(&from)
            .take(FIRE_TIMES)
            .map(|t| t.to_utc())
            .collect();
        assert_eq!(theirs, ours, "cron disagrees on {expr}");
        if let Some(saffron) = saffron(expr, zone) {
            let theirs: Vec<_> = saffron.iter_after(start()).take(FIRE_TIMES).collect();
            assert_eq!(theirs, ours, "saffron disagrees on {expr}");
        }
    }

    pub(super) fn bench(
        group: &mut BenchmarkGroup<'_, WallTime>,
        label: &str,
        expr: &str,
        zone: &str,
    ) {
        let tz: Tz = zone.parse().unwrap();
        let from = start().with_timezone(&tz);
        let croner = croner(expr);
        group.bench_with_input(BenchmarkId::new("croner", label), &(), |b, ()| {
            b.iter(|| {
                croner
                    .iter_after(black_box(from))
                    .take(FIRE_TIMES)
                    .collect::<Vec<_>>()
            });
        });
        let cron = cron(expr);
        group.bench_with_input(BenchmarkId::new("cron", label), &(), |b, ()| {
            b.iter(|| {
                cron.after(black_box(&from))
                    .take(FIRE_TIMES)
                    .collect::<Vec<_>>()
            });
        });
        if let Some(saffron) = saffron(expr, zone) {
            group.bench_with_input(BenchmarkId::new("saffron", label), &(), |b, ()| {
                b.iter(|| {
                    saffron
                        .clone()
                        .iter_after(black_box(start()))
                        .take(FIRE_TIMES)
                        .collect::<Vec<_>>()
                });
            });
        }
    }
}

criterion_group!(benches, due_set, next_fire_times);
criterion_main!(benches);
