//! Measures taskstore on both engines in one run: claims and whole attempts (claim, start, result) per second with 1, 4 and 16 workers, beside each engine's own ceiling at the same client count (SQLite: a bare single-row update loop in this process; PostgreSQL: pgbench's simple-update), list pages of 100 from 1,000,000 tasks; the time of one claim behind thousands of queued tasks the runner does not fit (other kinds, selectors its labels do not match, or nothing it fits at all); and on PostgreSQL the time of one claim behind the index entries of tasks claimed since the last vacuum.
//!
//! PostgreSQL is measured when `TASKSTORE_POSTGRES_URL` names a server (`cargo xtask
//! with-postgres cargo bench -p benches --bench store` starts a throwaway one and puts
//! pgbench on the path). `TASKSTORE_BENCH_SECONDS` sets each measurement's length (default
//! 5), `TASKSTORE_BENCH_LIST_TASKS` the listing's size (default 1,000,000; 0 skips the
//! listing), `TASKSTORE_BENCH_WORKERS` the worker counts (default `1,4,16`),
//! `TASKSTORE_BENCH_DIR` where the SQLite files go (default `target/bench-store`) and
//! `TASKSTORE_BENCH_ENGINES` the engines measured (default `sqlite,postgresql`),
//! `TASKSTORE_BENCH_ONLY` the measurements (a comma list of `ceiling`, `claims`, `whole`,
//! `deep`, `stale`, `list`; default all) and
//! `TASKSTORE_BENCH_DEEP` the depths of the claims behind tasks the runner does not fit
//! (default `1500,99000`: the deeper one, with the 30 tasks the runner fits behind it, stays within
//! `MAX_CLAIM_SCAN`; empty skips them).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a benchmark stops at the first failure"
)]

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use benches::store_files::{self, load, remove};
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use taskmodel::SeededRandom;
use taskmodel::fleet::KindSet;
use taskmodel::ids::{RunnerId, TaskId, TenantId, Uid};
use taskmodel::query::{SortKey, SortOrder, TaskQuery};
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::{
    AttemptOutcome, AttemptResult, LeaseId, SubprocessMode, Task, TaskEnv, TaskKind, TaskManifest,
    TaskSpec,
};
use taskstore::{
    ClaimRequest, MAX_IMPORT, PostgresStore, SQLITE_BUSY_TIMEOUT, SQLITE_CHECKPOINT_PAGES,
    SqliteStore, Store,
};

/// The worker counts measured by default.
const WORKERS: [usize; 3] = [1, 4, 16];
/// Tasks queued before each throughput measurement (more than any run takes).
const QUEUED: usize = 60_000;

fn seconds() -> Duration {
    let seconds = std::env::var("TASKSTORE_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    Duration::from_secs(seconds)
}

fn workers() -> Vec<usize> {
    std::env::var("TASKSTORE_BENCH_WORKERS")
        .ok()
        .map(|list| {
            list.split(',')
                .filter_map(|n| n.trim().parse().ok())
                .collect()
        })
        .unwrap_or_else(|| WORKERS.to_vec())
}

/// Whether `TASKSTORE_BENCH_ONLY` (a comma list; unset means all) names `what`.
fn measured(what: &str) -> bool {
    std::env::var("TASKSTORE_BENCH_ONLY")
        .map_or(true, |list| list.split(',').any(|name| name.trim() == what))
}

fn list_tasks() -> usize {
    std::env::var("TASKSTORE_BENCH_LIST_TASKS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000)
}

fn depths() -> Vec<usize> {
    std::env::var("TASKSTORE_BENCH_DEEP")
        .map(|list| {
            list.split(',')
                .filter_map(|n| n.trim().parse().ok())
                .collect()
        })
        .unwrap_or_else(|_| vec![1_500, 99_000])
}

/// Whether `engine` (`sqlite` or `postgresql`) is among the engines to measure.
fn engine_measured(engine: &str) -> bool {
    std::env::var("TASKSTORE_BENCH_ENGINES").map_or(true, |list| {
        list.split(',')
            .any(|name| name.trim().eq_ignore_ascii_case(engine))
    })
}

fn tenant() -> TenantId {
    TenantId::new("bench").unwrap()
}

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap()
}

/// Task `i`: in a slot of its own, created `i` milliseconds after t0.
fn task(i: usize, slots: usize) -> Task {
    let kind = TaskKind::subprocess(
        SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
        TaskEnv::empty(),
        None,
    )
    .unwrap();
    let spec = TaskSpec::builder(format!("s{}", i % slots), kind, 60_000)
        .build()
        .unwrap();
    let manifest = TaskManifest::named(TaskId::new(format!("t{i:07}")).unwrap(), spec);
    let uid = Uid::from_u128(i as u128 + 1);
    Task::create(
        manifest,
        tenant(),
        uid,
        t0() + TimeDelta::milliseconds(i as i64),
    )
    .unwrap()
}

fn import(store: &mut impl Store, count: usize, slots: usize) {
    let mut start = 0;
    while start < count {
        let end = (start + MAX_IMPORT).min(count);
        let tasks: Vec<Task> = (start..end).map(|i| task(i, slots)).collect();
        store.import(&tenant(), &tasks).unwrap();
        start = end;
    }
}

/// Nanoseconds of CPU the calling thread has run (Linux's `/proc/thread-self/schedstat`;
/// 0 elsewhere).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Nanoseconds of CPU this machine's `postgres` processes have run, with the children they
/// have reaped (a backend that exits is counted in the postmaster's), read from `/proc`
/// with Linux's clock tick of 10 ms; 0 elsewhere. The throwaway server of `cargo xtask
/// with-postgres` runs here, so this is its CPU.
fn postgres_cpu_ns() -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut ticks = 0u64;
    for entry in entries.flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ...`: utime, stime, cutime and cstime are the 12th to 15th
        // fields after the name.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        if !head.ends_with("(postgres") {
            continue;
        }
        ticks += rest
            .split_whitespace()
            .skip(11)
            .take(4)
            .filter_map(|field| field.parse::<u64>().ok())
            .sum::<u64>();
    }
    ticks * 10_000_000
}

/// The server's CPU since `before` ([`postgres_cpu_ns`]), in microseconds for each of
/// `ops` operations, read after a pause so that the backends of the connections the run
/// closed are reaped and counted.
fn server_us_since(before: u64, ops: f64) -> f64 {
    std::thread::sleep(Duration::from_millis(200));
    let spent = postgres_cpu_ns().saturating_sub(before);
    spent as f64 / 1e3 / ops.max(1.0)
}

/// What a measurement counted: operations per second of wall time, and the microseconds of
/// CPU the workers' threads spent per operation (a figure the load of a shared machine
/// disturbs less; for PostgreSQL it leaves out the server's own work), with the count of
/// operations, and for PostgreSQL the microseconds of CPU the server spent per operation
/// ([`server_us_since`]; NaN where there is no server).
#[derive(Clone, Copy)]
struct Rate {
    per_second: f64,
    cpu_us: f64,
    ops: f64,
    server_us: f64,
}

impl Rate {
    /// Nothing measured.
    const NONE: Self = Self {
        per_second: f64::NAN,
        cpu_us: f64::NAN,
        ops: f64::NAN,
        server_us: f64::NAN,
    };

    /// Runs `workers` threads until the deadline; each returns its operations and CPU.
    fn measure(workers: usize, run: impl Fn(usize) -> usize + Sync) -> Self {
        let started = Instant::now();
        let (done, cpu_ns) = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|worker| {
                    let run = &run;
                    scope.spawn(move || {
                        let cpu = thread_cpu_ns();
                        let done = run(worker);
                        (done, thread_cpu_ns().saturating_sub(cpu))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .fold((0, 0), |(n, c), (dn, dc)| (n + dn, c + dc))
        });
        Self {
            per_second: done as f64 / started.elapsed().as_secs_f64(),
            cpu_us: cpu_ns as f64 / 1e3 / done.max(1) as f64,
            ops: done as f64,
            server_us: f64::NAN,
        }
    }
}

/// Operations per second of `workers` threads, each with its own connection, for the
/// measurement's length (or until the queue runs out).
fn throughput<S: Store>(open: &(dyn Fn() -> S + Sync), workers: usize, whole: bool) -> Rate {
    let mut store = open();
    import(&mut store, QUEUED, QUEUED);
    let stop = AtomicBool::new(false);
    let deadline = Instant::now() + seconds();
    let server_before = postgres_cpu_ns();
    let mut rate = Rate::measure(workers, |worker| {
        let mut store = open();
        let mut rng = SeededRandom::new(worker as u64);
        let now = t0() + TimeDelta::days(1);
        let mut count = 0;
        for n in 0u64.. {
            if stop.load(Ordering::Relaxed) || Instant::now() >= deadline {
                break;
            }
            // A claim-only runner is new each time (a runner holds one attempt).
            let runner = if whole {
                format!("w{worker}")
            } else {
                format!("w{worker}-{n}")
            };
            let lease = LeaseId::new((worker as u64) << 40 | n);
            let request = ClaimRequest::new(
                RunnerId::new(runner).unwrap(),
                Labels::new(),
                KindSet::ALL,
                lease,
                now + TimeDelta::minutes(5),
            );
            let claimed = match store.claim(&tenant(), &request, now) {
                Ok(Some(claimed)) => claimed,
                Ok(None) => {
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
                Err(error) if error.is_retryable() => continue,
                Err(error) => panic!("claim: {error}"),
            };
            if whole {
                let id = claimed.task.id();
                store.start(&tenant(), id, lease, now).unwrap();
                let result = AttemptResult::new(AttemptOutcome::Succeeded).with_exit_code(0);
                store
                    .report(&tenant(), id, lease, result, &mut rng, now)
                    .unwrap();
            }
            count += 1;
        }
        count
    });
    rate.server_us = server_us_since(server_before, rate.ops);
    rate
}

/// Claims measured behind each depth.
const DEEP_CLAIMS: usize = 30;

/// Task `name` of `kind` with runner selector `selector` at `priority`, created `ms`
/// milliseconds after t0.
fn deep_task(name: String, kind: TaskKind, selector: &str, priority: i32, ms: usize) -> Task {
    let spec = TaskSpec::builder(name.clone(), kind, 60_000)
        .priority(priority)
        .runner_selector(selector.parse::<LabelSelector>().unwrap())
        .build()
        .unwrap();
    let uid = Uid::from_u128(u128::from(
        name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        }),
    ));
    Task::create(
        TaskManifest::named(TaskId::new(name).unwrap(), spec),
        tenant(),
        uid,
        t0() + TimeDelta::milliseconds(ms as i64),
    )
    .unwrap()
}

/// The time of one claim (median and slowest of [`DEEP_CLAIMS`], each by a new runner)
/// behind `depth` queued tasks the runner does not fit: of another kind, with selectors
/// its labels do not match (four distinct ones), or the latter with nothing behind them it
/// fits. `fresh` empties the database before each case.
fn deep_claims<S: Store>(engine: &str, depth: usize, fresh: &mut dyn FnMut() -> S) {
    if !measured("deep") {
        return;
    }
    let subprocess = || {
        TaskKind::subprocess(
            SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
            TaskEnv::empty(),
            None,
        )
        .unwrap()
    };
    let container = || TaskKind::container("img".into(), vec![], vec![], TaskEnv::empty()).unwrap();
    let others = ["zone=us", "gpu in (h100)", "ssd,zone=ap", "zone notin (eu)"];
    for case in ["another kind", "selectors not matched", "nothing fits"] {
        let mut store = fresh();
        let mut tasks: Vec<Task> = (0..depth)
            .map(|n| match case {
                "another kind" => deep_task(format!("u{n:07}"), container(), "", 1, n),
                _ => deep_task(
                    format!("u{n:07}"),
                    subprocess(),
                    others[n % others.len()],
                    1,
                    n,
                ),
            })
            .collect();
        if case != "nothing fits" {
            tasks.extend(
                (0..DEEP_CLAIMS).map(|n| deep_task(format!("f{n:07}"), subprocess(), "", 0, n)),
            );
        }
        for chunk in tasks.chunks(MAX_IMPORT) {
            store.import(&tenant(), chunk).unwrap();
        }
        let now = t0() + TimeDelta::days(1);
        let mut claimed = 0;
        let mut times: Vec<f64> = (0..DEEP_CLAIMS)
            .map(|n| {
                let mut request = ClaimRequest::new(
                    RunnerId::new(format!("deep{n}")).unwrap(),
                    Labels::from_pairs([("zone", "eu")]).unwrap(),
                    KindSet::SUBPROCESS,
                    LeaseId::new(n as u64),
                    now + TimeDelta::minutes(5),
                );
                request.max_concurrent = 1;
                let started = Instant::now();
                let found = store.claim(&tenant(), &request, now).unwrap();
                let elapsed = started.elapsed().as_secs_f64() * 1e3;
                claimed += usize::from(found.is_some());
                elapsed
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!(
            "| {engine} | claim behind {depth} queued, {case} | {:.3} ms | slowest {:.3} ms | claimed {claimed} of {DEEP_CLAIMS} |",
            times[DEEP_CLAIMS / 2],
            times[DEEP_CLAIMS - 1],
        );
    }
}

/// Claims measured behind the entries of claimed tasks.
const STALE_CLAIMS: usize = 200;

/// PostgreSQL: the time of one claim (median, 90th percentile and slowest of
/// [`STALE_CLAIMS`], by one connection with the store's default floor interval) behind the
/// queue index entries `depth` claimed tasks leave until a vacuum. The tasks are made
/// running by one `UPDATE`, which leaves the same dead entries `depth` claims would, with
/// autovacuum off for the table; the connection starts without a floor, as one that has
/// not claimed yet.
fn stale_claims(admin: &mut postgres::Client, store: &mut PostgresStore, depth: usize) {
    let tasks: Vec<Task> = (0..depth + STALE_CLAIMS)
        .map(|n| task(n, depth + STALE_CLAIMS))
        .collect();
    for chunk in tasks.chunks(MAX_IMPORT) {
        store.import(&tenant(), chunk).unwrap();
    }
    admin
        .batch_execute(&format!(
            "ALTER TABLE bench_store.tasks SET (autovacuum_enabled = off); \
             UPDATE bench_store.tasks SET phase = 'running', queued_ns = NULL \
             WHERE id IN (SELECT id FROM bench_store.tasks ORDER BY priority DESC, queued_ns, id LIMIT {depth})"
        ))
        .unwrap();
    let now = t0() + TimeDelta::days(1);
    let mut times: Vec<f64> = (0..STALE_CLAIMS)
        .map(|n| {
            let request = ClaimRequest::new(
                RunnerId::new(format!("stale{n}")).unwrap(),
                Labels::new(),
                KindSet::ALL,
                LeaseId::new(n as u64),
                now + TimeDelta::minutes(5),
            );
            let started = Instant::now();
            store.claim(&tenant(), &request, now).unwrap().unwrap();
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let first = times[0];
    times.sort_by(f64::total_cmp);
    println!(
        "| PostgreSQL | claim behind {depth} claimed since the last vacuum | {:.3} ms | 90th percentile {:.3} ms | slowest {:.3} ms | first {first:.3} ms |",
        times[STALE_CLAIMS / 2],
        times[STALE_CLAIMS * 9 / 10],
        times[STALE_CLAIMS - 1],
    );
}

/// SQLite's ceiling: `workers` threads, each with its own connection (the store's
/// settings), updating one random row per `BEGIN IMMEDIATE` transaction. With `queued`,
/// the writers first take one lock of this process, as the store's writers of one file do,
/// instead of waiting in SQLite's busy handler.
fn sqlite_ceiling(path: &Path, workers: usize, queued: bool) -> Rate {
    remove(path);
    let setup = |conn: &rusqlite::Connection| {
        conn.busy_timeout(SQLITE_BUSY_TIMEOUT).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.pragma_update(None, "synchronous", "NORMAL").unwrap();
        conn.pragma_update(None, "wal_autocheckpoint", SQLITE_CHECKPOINT_PAGES)
            .unwrap();
    };
    let conn = rusqlite::Connection::open(path).unwrap();
    setup(&conn);
    conn.execute_batch("CREATE TABLE rows (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000) INSERT INTO rows SELECT i, 0 FROM c;").unwrap();
    let deadline = Instant::now() + seconds();
    let writer = Mutex::new(());
    Rate::measure(workers, |worker| {
        let mut conn = rusqlite::Connection::open(path).unwrap();
        setup(&conn);
        let mut rng = benches::Rng(worker as u64);
        let mut count = 0;
        while Instant::now() < deadline {
            let _turn = queued.then(|| writer.lock().unwrap());
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .unwrap();
            tx.execute(
                "UPDATE rows SET n = n + 1 WHERE id = ?1",
                [rng.below(10_000) as i64 + 1],
            )
            .unwrap();
            tx.commit().unwrap();
            count += 1;
        }
        count
    })
}

/// PostgreSQL's ceiling: pgbench's simple-update transactions per second (`-N`, prepared
/// statements) with `workers` clients, and the server's CPU a transaction.
fn pgbench(url: &str, workers: usize) -> Option<Rate> {
    let secs = seconds().as_secs().to_string();
    let clients = workers.to_string();
    let server_before = postgres_cpu_ns();
    let output = Command::new("pgbench")
        .args([
            "-n", "-N", "-M", "prepared", "-c", &clients, "-j", &clients, "-T", &secs, url,
        ])
        .output()
        .map_err(|error| eprintln!("pgbench did not run: {error}"))
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let number = |prefix: &str| -> Option<f64> {
        text.lines().find_map(|line| {
            line.strip_prefix(prefix)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
    };
    let (Some(tps), Some(ops)) = (
        number("tps = "),
        number("number of transactions actually processed: "),
    ) else {
        eprintln!("pgbench: {text}{}", String::from_utf8_lossy(&output.stderr));
        return None;
    };
    Some(Rate {
        per_second: tps,
        cpu_us: f64::NAN,
        ops,
        server_us: server_us_since(server_before, ops),
    })
}

/// Milliseconds of a page of 100: the median and the 99th percentile of 200 reads.
fn page_times(store: &mut impl Store, query: &TaskQuery) -> (f64, f64) {
    let mut times: Vec<f64> = (0..200)
        .map(|_| {
            let started = Instant::now();
            let page = store.list(query).unwrap();
            let elapsed = started.elapsed().as_secs_f64() * 1e3;
            assert!(!page.items.is_empty());
            elapsed
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[100], times[198])
}

fn list_pages(store: &mut impl Store, engine: &str) {
    let count = list_tasks();
    if count == 0 || !measured("list") {
        return;
    }
    let started = Instant::now();
    import(store, count, 100);
    println!(
        "{engine}: imported {count} tasks in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let first = TaskQuery::builder(tenant()).limit(100).build().unwrap();
    let middle_key = SortKey::new(
        t0() + TimeDelta::milliseconds(count as i64 / 2),
        TaskId::new(format!("t{:07}", count / 2)).unwrap(),
    );
    let middle = first
        .with_continue(first.continue_after(middle_key))
        .unwrap();
    let descending = TaskQuery::builder(tenant())
        .order(SortOrder::Descending)
        .limit(100)
        .build()
        .unwrap();
    let slot = TaskQuery::builder(tenant())
        .slot("s42".parse().unwrap())
        .limit(100)
        .build()
        .unwrap();
    for (name, query) in [
        ("first page", &first),
        ("middle page", &middle),
        ("first page, newest first", &descending),
        ("first page of one slot", &slot),
    ] {
        let (median, p99) = page_times(store, query);
        println!(
            "| {engine} | list {name} of 100 from {count} | {median:.3} ms | p99 {p99:.3} ms |"
        );
    }
}

/// One line of the throughput table.
fn row(engine: &str, name: &str, workers: usize, rate: Rate, ceiling: Rate) {
    println!(
        "| {engine} | {name} | {workers} | {:.0} | {:.0} | {:.2} | {:.1} | {:.1} | {:.1} | {:.1} |",
        rate.per_second,
        ceiling.per_second,
        rate.per_second / ceiling.per_second,
        rate.cpu_us,
        ceiling.cpu_us,
        rate.server_us,
        ceiling.server_us,
    );
}

fn main() {
    println!("load average before: {}", load());
    let dir = store_files::dir();
    let path = dir.join("store.db");
    println!(
        "| engine | measurement | workers | per second | ceiling per second | ratio | CPU µs per op | ceiling CPU µs | server CPU µs per op | ceiling server CPU µs |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let fresh_sqlite = || {
        remove(&path);
        drop(SqliteStore::open(&path).unwrap());
    };
    let open_sqlite = || SqliteStore::open(&path).unwrap();
    for workers in workers().into_iter().filter(|_| engine_measured("sqlite")) {
        let ceiling = if measured("ceiling") {
            let ceiling = sqlite_ceiling(&dir.join("ceiling.db"), workers, false);
            let queued = sqlite_ceiling(&dir.join("ceiling.db"), workers, true);
            row(
                "SQLite",
                "ceiling, writers queued",
                workers,
                queued,
                ceiling,
            );
            ceiling
        } else {
            Rate::NONE
        };
        for (name, whole) in [("claims", false), ("whole attempts", true)] {
            if !measured(if whole { "whole" } else { "claims" }) {
                continue;
            }
            fresh_sqlite();
            // SQLite has no server: its work is the workers' own CPU.
            let rate = Rate {
                server_us: f64::NAN,
                ..throughput(&open_sqlite, workers, whole)
            };
            row("SQLite", name, workers, rate, ceiling);
        }
    }
    let url = std::env::var("TASKSTORE_POSTGRES_URL")
        .ok()
        .filter(|url| !url.is_empty() && engine_measured("postgresql"));
    if let Some(url) = &url {
        let mut admin = postgres::Client::connect(url, postgres::NoTls).unwrap();
        let store_url = format!(
            "{url}{}options=-csearch_path%3Dbench_store",
            if url.contains('?') { '&' } else { '?' }
        );
        let fresh_pg = |admin: &mut postgres::Client| {
            admin
                .batch_execute(
                    "DROP SCHEMA IF EXISTS bench_store CASCADE; CREATE SCHEMA bench_store",
                )
                .unwrap();
        };
        let status = Command::new("pgbench")
            .args(["-i", "-q", "-s", "1", url])
            .output();
        let ready = status.as_ref().is_ok_and(|output| output.status.success());
        if !ready {
            eprintln!("pgbench -i failed: {status:?}");
        }
        let open_pg = || PostgresStore::connect(&store_url).unwrap();
        for workers in workers() {
            let ceiling = if ready && measured("ceiling") {
                pgbench(url, workers)
            } else {
                None
            }
            .unwrap_or(Rate::NONE);
            for (name, whole) in [("claims", false), ("whole attempts", true)] {
                if !measured(if whole { "whole" } else { "claims" }) {
                    continue;
                }
                fresh_pg(&mut admin);
                let rate = throughput(&open_pg, workers, whole);
                row("PostgreSQL", name, workers, rate, ceiling);
            }
        }
        for depth in depths() {
            deep_claims("PostgreSQL", depth, &mut || {
                fresh_pg(&mut admin);
                open_pg()
            });
        }
        for depth in depths().into_iter().filter(|_| measured("stale")) {
            fresh_pg(&mut admin);
            stale_claims(&mut admin, &mut open_pg(), depth);
        }
        fresh_pg(&mut admin);
        list_pages(&mut open_pg(), "PostgreSQL");
    } else {
        println!(
            "PostgreSQL not measured: TASKSTORE_POSTGRES_URL is not set (cargo xtask with-postgres cargo bench -p benches --bench store)"
        );
    }
    if engine_measured("sqlite") {
        for depth in depths() {
            deep_claims("SQLite", depth, &mut || {
                fresh_sqlite();
                open_sqlite()
            });
        }
        fresh_sqlite();
        list_pages(&mut open_sqlite(), "SQLite");
    }
    println!("load average after: {}", load());
}
