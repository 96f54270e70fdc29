//! Measures the store's schedule tick on both engines in one run: schedules ticked per second (each tick one fire time decided and its action stored, the row moved past it, in `Store::tick_schedules` transactions of 100) with 1 and 4 tick loops over 10,000 schedules due every second.
//!
//! PostgreSQL is measured when `TASKSTORE_POSTGRES_URL` names a server (`cargo xtask
//! with-postgres cargo bench -p benches --bench schedule_ticks` starts a throwaway one).
//! `TASKSTORE_BENCH_DIR` sets where the SQLite file goes (default `target/bench-store`).
//! Each row is the best and the median of five rounds (one fire time of every schedule a
//! round), so a round slowed by other work on the machine does not decide it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a benchmark stops at the first failure"
)]

use std::sync::Barrier;
use std::time::Instant;

use benches::store_files::{self, load, remove};
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use taskmodel::SeededRandom;
use taskmodel::ids::{ScheduleId, TenantId, Uid};
use taskmodel::schedule::{Interval, OverlapPolicy, Schedule, Trigger};
use taskmodel::task::{TaskEnv, TaskKind, TaskSpec};
use taskstore::{PostgresStore, SqliteStore, Store};

/// Schedules stored before the rounds.
const SCHEDULES: usize = 10_000;
/// Rounds measured; each fires every schedule once.
const ROUNDS: i64 = 5;
/// Schedules one tick transaction takes.
const BATCH: u32 = 100;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap()
}

fn tenant() -> TenantId {
    TenantId::new("bench").unwrap()
}

/// Schedule `i`: every second, runs allowed to overlap (each tick stores an action).
fn schedule(i: usize) -> Schedule {
    let kind = TaskKind::container("img".into(), vec![], vec![], TaskEnv::empty()).unwrap();
    let trigger = Trigger::Every {
        every: Interval::from_ms(1_000).unwrap(),
        anchor: None,
    };
    let name = ScheduleId::new(format!("s{i:05}")).unwrap();
    Schedule::builder(
        name,
        TaskSpec::builder("s", kind, 60_000).build().unwrap(),
        trigger,
    )
    .overlap(OverlapPolicy::Allow)
    .build()
    .unwrap()
}

/// Stores the schedules, then runs the rounds with `loops` tick loops; the schedules ticked
/// per second of each round.
fn rounds<S: Store>(open: &(dyn Fn() -> S + Sync), loops: usize) -> Vec<f64> {
    let mut store = open();
    for i in 0..SCHEDULES {
        let uid = Uid::from_u128(i as u128 + 1);
        store
            .create_schedule(&tenant(), &schedule(i), uid, t0())
            .unwrap();
    }
    let mut rates = Vec::new();
    for round in 1..=ROUNDS {
        let now = t0() + TimeDelta::seconds(round);
        let barrier = Barrier::new(loops);
        let started = Instant::now();
        let ticked: usize = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..loops)
                .map(|n| {
                    let barrier = &barrier;
                    scope.spawn(move || {
                        let mut store = open();
                        let seed = u64::try_from(round).unwrap() * 1_000 + n as u64;
                        let mut rng = SeededRandom::new(seed);
                        barrier.wait();
                        let mut ticked = 0;
                        loop {
                            match store.tick_schedules(now, BATCH, &mut rng) {
                                Ok(batch) if batch.is_empty() => return ticked,
                                Ok(batch) => ticked += batch.len(),
                                Err(error) if error.is_retryable() => {}
                                Err(error) => panic!("{error}"),
                            }
                        }
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(ticked, SCHEDULES, "every schedule is ticked once a round");
        rates.push(ticked as f64 / started.elapsed().as_secs_f64());
    }
    rates
}

fn row(engine: &str, loops: usize, mut rates: Vec<f64>) {
    rates.sort_by(f64::total_cmp);
    let best = rates.last().copied().unwrap_or(f64::NAN);
    let median = rates.get(rates.len() / 2).copied().unwrap_or(f64::NAN);
    println!("| {engine} | {loops} | {best:.0} | {median:.0} |");
}

fn main() {
    println!("load average before: {}", load());
    let dir = store_files::dir();
    let path = dir.join("schedules.db");
    println!("| engine | tick loops | schedules ticked per second, best | median |");
    println!("|---|---:|---:|---:|");
    for loops in [1, 4] {
        remove(&path);
        let open = || SqliteStore::open(&path).unwrap();
        row("SQLite", loops, rounds(&open, loops));
    }
    remove(&path);
    let url = std::env::var("TASKSTORE_POSTGRES_URL")
        .ok()
        .filter(|url| !url.is_empty());
    if let Some(url) = &url {
        let mut admin = postgres::Client::connect(url, postgres::NoTls).unwrap();
        let store_url = format!(
            "{url}{}options=-csearch_path%3Dbench_schedules",
            if url.contains('?') { '&' } else { '?' }
        );
        for loops in [1, 4] {
            admin
                .batch_execute(
                    "DROP SCHEMA IF EXISTS bench_schedules CASCADE; CREATE SCHEMA bench_schedules",
                )
                .unwrap();
            let open = || PostgresStore::connect(&store_url).unwrap();
            row("PostgreSQL", loops, rounds(&open, loops));
        }
        admin
            .batch_execute("DROP SCHEMA IF EXISTS bench_schedules CASCADE")
            .unwrap();
    }
    println!("load average after: {}", load());
}
