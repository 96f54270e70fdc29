//! Measures `collect` over 10,000, 100,000 and 1,000,000 resources of a realistic forest
//! (schedules owning their tasks, flows owning their jobs' tasks, standalone tasks, attempts
//! under every task; some running, most finished over the last three days), and `check`
//! over the same views, to show both are linear in the number of resources.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    reason = "bench setup unwraps fixtures known to be valid"
)]

use std::hint::black_box;

use benches::Rng;
use chrono::{DateTime, TimeDelta, Utc};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use model_ids::{TenantId, Uid};
use model_retention::{Lifecycle, Outcome, OwnedResource, ResourceKind, check, collect};
use model_task::task::{OwnerKind, OwnerReference};

const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

fn now() -> DateTime<Utc> {
    "2026-11-22T12:00:00Z".parse().unwrap()
}

/// Builds the view, one group at a time until `size` resources.
struct Forest {
    rng: Rng,
    tenant: TenantId,
    next_uid: u128,
    resources: Vec<OwnedResource>,
}

impl Forest {
    /// Draft one time in `running`, otherwise finished (one in `failing` failed) within the
    /// last three days.
    fn lifecycle(&mut self, running: usize, failing: usize) -> Lifecycle {
        if self.rng.below(running) == 0 {
            return Lifecycle::Draft;
        }
        let ago = TimeDelta::seconds(self.rng.below(3 * 86_400) as i64);
        let outcome = if self.rng.below(failing) == 0 {
            Outcome::Failed
        } else {
            Outcome::Succeeded
        };
        Lifecycle::sealed(now() - ago, outcome)
    }

    /// Adds a resource and returns a controller reference to it, if its kind can own.
    fn add(
        &mut self,
        kind: ResourceKind,
        name: String,
        lifecycle: Lifecycle,
        owner: Option<OwnerReference>,
    ) -> Option<OwnerReference> {
        self.next_uid += 1;
        let uid = Uid::from_u128(self.next_uid);
        let mut builder =
            OwnedResource::builder(kind, self.tenant.clone(), &name, lifecycle).uid(uid);
        if let Some(owner) = owner {
            builder = builder.owner(owner);
        }
        self.resources.push(builder.build().unwrap());
        let owner_kind = match kind {
            ResourceKind::Flow => OwnerKind::Flow,
            ResourceKind::Schedule => OwnerKind::Schedule,
            ResourceKind::Task => OwnerKind::Task,
            ResourceKind::Attempt | ResourceKind::Action => return None,
        };
        let owner = OwnerReference::new(owner_kind, name, uid).unwrap();
        Some(owner.controlling())
    }

    /// A task with one to three attempts; only its last attempt can be running.
    fn task(&mut self, name: String, owner: Option<OwnerReference>) {
        let lifecycle = self.lifecycle(50, 8);
        let task = self.add(ResourceKind::Task, name.clone(), lifecycle, owner);
        let attempts = 1 + self.rng.below(3);
        for attempt in 1..=attempts {
            let lifecycle = match lifecycle {
                Lifecycle::Draft if attempt == attempts => Lifecycle::Draft,
                Lifecycle::Sealed { at, outcome } => Lifecycle::sealed(
                    at,
                    if attempt == attempts {
                        outcome
                    } else {
                        Outcome::Failed
                    },
                ),
                Lifecycle::Draft => self.lifecycle(usize::MAX, 1),
            };
            self.add(
                ResourceKind::Attempt,
                format!("{name}/{attempt}"),
                lifecycle,
                task.clone(),
            );
        }
    }

    fn build(size: usize) -> Vec<OwnedResource> {
        let mut forest = Forest {
            rng: Rng(size as u64),
            tenant: TenantId::new("acme").unwrap(),
            next_uid: 0,
            resources: Vec::with_capacity(size + 64),
        };
        let mut group = 0;
        while forest.resources.len() < size {
            group += 1;
            match group % 4 {
                // A schedule that fired 12 times (9 beyond CronJob's history).
                0 => {
                    let lifecycle = forest.lifecycle(1, 1);
                    let name = format!("s{group}");
                    let schedule =
                        forest.add(ResourceKind::Schedule, name.clone(), lifecycle, None);
                    for fire in 0..12 {
                        forest.task(format!("{name}.{fire}"), schedule.clone());
                    }
                }
                // A flow of eight jobs.
                1 | 2 => {
                    let lifecycle = forest.lifecycle(10, 5);
                    let name = format!("f{group}");
                    let flow = forest.add(ResourceKind::Flow, name.clone(), lifecycle, None);
                    for job in 0..8 {
                        forest.task(format!("{name}.{job}"), flow.clone());
                    }
                }
                // Standalone tasks.
                _ => {
                    for n in 0..8 {
                        forest.task(format!("t{group}.{n}"), None);
                    }
                }
            }
        }
        forest.resources.truncate(size);
        forest.resources
    }
}

fn bench_collect(c: &mut Criterion) {
    let mut group = c.benchmark_group("retention/collect");
    group.sample_size(10);
    for size in SIZES {
        let resources = Forest::build(size);
        let deleted = collect(now(), &resources).deletions().len();
        println!("{size} resources: {deleted} deleted now");
        group.throughput(Throughput::Elements(size as u64));
        group.bench_with_input(BenchmarkId::from_parameter(size), &resources, |b, r| {
            b.iter(|| collect(black_box(now()), black_box(r)).deletions().len());
        });
    }
    group.finish();
}

fn bench_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("retention/check");
    group.sample_size(10);
    for size in SIZES {
        let resources = Forest::build(size);
        group.throughput(Throughput::Elements(size as u64));
        group.bench_with_input(BenchmarkId::from_parameter(size), &resources, |b, r| {
            b.iter(|| check(black_box(r)).is_ok());
        });
    }
    group.finish();
}

criterion_group!(benches, bench_collect, bench_check);
criterion_main!(benches);
