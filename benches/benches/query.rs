//! Measures `TaskQuery::evaluate` (bounded heap) against collect-and-sort for the first and a middle page of 100 from 100,000 tasks with a phase and label filter.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    reason = "bench setup unwraps fixtures known to be valid"
)]

use std::hint::black_box;

use chrono::{DateTime, TimeDelta, Utc};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use model_ids::{TaskId, TenantId, Uid};
use model_query::{Queryable, SortKey, TaskQuery};
use model_selector::Labels;
use model_task::{SubprocessMode, Task, TaskEnv, TaskKind, TaskManifest, TaskSpec};

const TASKS: u32 = 100_000;
const ZONES: [&str; 4] = ["eu", "us", "ap", "sa"];

/// 100,000 tasks in a shuffled (deterministic) order: creation times with ties, four
/// slots and zones, a third of them Running, a few Canceled, the rest Pending.
fn tasks() -> Vec<Task> {
    let kind = TaskKind::subprocess(
        SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
        TaskEnv::empty(),
        None,
    )
    .unwrap();
    let t0 = DateTime::<Utc>::from_timestamp(1_700_000_000, 0).unwrap();
    let tenant = TenantId::new("bench").unwrap();
    let mut tasks: Vec<Task> = (0..TASKS)
        .map(|i| {
            let labels = Labels::from_pairs([
                ("zone", ZONES[(i % 4) as usize]),
                ("tier", if i % 5 == 0 { "batch" } else { "prod" }),
            ])
            .unwrap();
            let spec = TaskSpec::builder(format!("slot-{}", i % 7), kind.clone(), 60_000)
                .labels(labels)
                .build()
                .unwrap();
            let created = t0 + TimeDelta::milliseconds(i64::from(i / 2) * 10);
            let manifest = TaskManifest::named(TaskId::new(format!("task-{i:06}")).unwrap(), spec);
            let uid = Uid::from_u128(u128::from(i));
            let mut task = Task::create(manifest, tenant.clone(), uid, created).unwrap();
            let later = created + TimeDelta::seconds(1);
            match i % 3 {
                0 => {
                    task.begin_attempt(None, later).unwrap();
                }
                1 if i % 11 == 0 => task.cancel(None, later).unwrap(),
                _ => {}
            }
            task
        })
        .collect();
    // Fisher-Yates with a fixed 64-bit LCG, so the input is not already in key order.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for i in (1..tasks.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let j = usize::try_from((state >> 33) % (i as u64 + 1)).unwrap();
        tasks.swap(i, j);
    }
    tasks
}

/// The baseline: filter, collect every match, sort them all, skip to the cursor, take
/// `limit`.
fn collect_and_sort<'a>(query: &TaskQuery, tasks: &'a [Task]) -> Vec<&'a Task> {
    let mut matching: Vec<&Task> = tasks.iter().filter(|t| query.matches(*t)).collect();
    matching.sort_unstable_by(|a, b| {
        (a.created_at(), Queryable::id(*a)).cmp(&(b.created_at(), Queryable::id(*b)))
    });
    let start = match query.after() {
        Some(after) => matching.partition_point(|t| {
            (t.created_at(), Queryable::id(*t)) <= (after.created_at, &after.id)
        }),
        None => 0,
    };
    matching
        .into_iter()
        .skip(start)
        .take(query.limit() as usize)
        .collect()
}

fn query(c: &mut Criterion) {
    let tasks = tasks();
    let first = TaskQuery::from_pairs([
        ("tenant", "bench"),
        ("phase", "running"),
        ("labelSelector", "zone=eu,tier=prod"),
        ("limit", "100"),
    ])
    .unwrap();
    // The middle page starts after the middle match.
    let mut matching: Vec<&Task> = tasks.iter().filter(|t| first.matches(*t)).collect();
    matching.sort_by_key(|t| (t.created_at(), Queryable::id(*t).clone()));
    let matches = matching.len();
    let m = matching[matches / 2];
    let middle_key = SortKey::new(m.created_at(), Queryable::id(m).clone());
    let middle = first
        .with_continue(first.continue_after(middle_key))
        .unwrap();

    // Both sides must return the same page, or the comparison means nothing.
    for q in [&first, &middle] {
        let heap: Vec<&Task> = q.evaluate(&tasks).items;
        assert_eq!(heap, collect_and_sort(q, &tasks));
        assert_eq!(heap.len(), 100);
    }
    eprintln!("query bench: {TASKS} tasks, {matches} match the filter");

    let mut group = c.benchmark_group("query");
    for (name, q) in [("first", &first), ("middle", &middle)] {
        group.bench_with_input(BenchmarkId::new("evaluate", name), q, |b, q| {
            b.iter(|| black_box(q.evaluate(black_box(&tasks))));
        });
        group.bench_with_input(BenchmarkId::new("collect_and_sort", name), q, |b, q| {
            b.iter(|| black_box(collect_and_sort(q, black_box(&tasks))));
        });
    }
    group.finish();
}

criterion_group!(benches, query);
criterion_main!(benches);
