//! Measures a flow job's end through taskstore on SQLite (the `report` that ends a job's task and moves its flow on) against the flow's size: 100, 1,000 and 10,000 independent jobs, so each end readies nothing and the cost left is the flow's own.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench setup unwraps fixtures known to be valid"
)]

use std::time::{Duration, Instant};

use benches::store_files;
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use taskmodel::SeededRandom;
use taskmodel::fleet::KindSet;
use taskmodel::flow::{FlowJob, FlowSpec, JobNames, TriggerRule};
use taskmodel::ids::{JobName, RunnerId, TenantId, Uid};
use taskmodel::selector::Labels;
use taskmodel::task::{
    AttemptOutcome, AttemptResult, LeaseId, SubprocessMode, TaskEnv, TaskKind, TaskSpec,
};
use taskstore::{ClaimRequest, Claimed, SqliteStore, Store};

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap()
}

/// Flow number `n` of `jobs` jobs without dependencies, each in its own slot.
fn flow(n: u128, jobs: usize) -> FlowSpec {
    let kind = TaskKind::subprocess(
        SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
        TaskEnv::empty(),
        None,
    )
    .unwrap();
    let jobs = (0..jobs).map(|i| {
        FlowJob::new(
            JobName::new(format!("j{i}")).unwrap(),
            TaskSpec::builder(format!("s{i}"), kind.clone(), 60_000)
                .build()
                .unwrap(),
            JobNames::new(),
            TriggerRule::AllSucceeded,
        )
    });
    FlowSpec::builder(format!("f{n}"))
        .jobs(jobs)
        .build()
        .unwrap()
}

fn bench_job_end(c: &mut Criterion) {
    let dir = store_files::dir();
    let tenant = TenantId::new("acme").unwrap();
    let mut group = c.benchmark_group("store_flow_job_end");
    group.sample_size(10);
    for jobs in [100, 1_000, 10_000] {
        let path = dir.join(format!("flow-{jobs}.db"));
        store_files::remove(&path);
        let mut store = SqliteStore::open(&path).unwrap();
        let (mut flows, mut lease) = (0_u128, 0_u64);
        let claim = |store: &mut SqliteStore, lease: u64| -> Option<Claimed> {
            let request = ClaimRequest::new(
                RunnerId::new("r").unwrap(),
                Labels::new(),
                KindSet::ALL,
                LeaseId::new(lease),
                t0() + TimeDelta::seconds(30),
            );
            store.claim(&tenant, &request, t0()).unwrap()
        };
        group.bench_with_input(BenchmarkId::from_parameter(jobs), &jobs, |b, &jobs| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    // Untimed: a running job's task, from a new flow when the last is used up.
                    lease += 1;
                    let claimed = claim(&mut store, lease).unwrap_or_else(|| {
                        flows += 1;
                        store
                            .create_flow(&tenant, &flow(flows, jobs), Uid::from_u128(flows), t0())
                            .unwrap();
                        claim(&mut store, lease).unwrap()
                    });
                    let task = claimed.task.id();
                    store
                        .start(&tenant, task, LeaseId::new(lease), t0())
                        .unwrap();
                    let done = AttemptResult::new(AttemptOutcome::Succeeded);
                    let start = Instant::now();
                    store
                        .report(
                            &tenant,
                            task,
                            LeaseId::new(lease),
                            done,
                            &mut SeededRandom::new(1),
                            t0() + TimeDelta::seconds(1),
                        )
                        .unwrap();
                    total += start.elapsed();
                }
                total
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_job_end);
criterion_main!(benches);
