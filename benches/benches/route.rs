//! Routing (docs/performance.md, "Routing": R1k, R10k, R100k): the M selector over 1,000 to 100,000 runners by the index and by a linear scan with `matches`, `RunnerRouter::pick` at 100,000, and building the next snapshot after a batch of 100 changes; with solti-model's linear scan under `--features compare`.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    reason = "bench setup unwraps fixtures known to be valid"
)]

use std::hint::black_box;

use benches::Rng;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use model_fleet::{KindSet, RunnerRouter};
use model_ids::{RunnerId, TaskId};
use model_selector::{Batch, LabelSelector, Labels, Snapshot};
use model_task::{SubprocessMode, TaskEnv, TaskKind, TaskSpec};

/// M: {zone=eu, os=linux} + In(gpu, [a100, h100]) + DoesNotExist(draining).
const M: &str = r#"{"matchLabels":{"zone":"eu","os":"linux"},"matchExpressions":[
    {"key":"gpu","operator":"In","values":["a100","h100"]},
    {"key":"draining","operator":"DoesNotExist"}]}"#;

const ZONES: [&str; 10] = ["eu", "us", "ap", "sa", "af", "me", "ca", "au", "in", "jp"];

/// `n` runners of 8 labels: zone from 10 values, gpu a100/h100 but 1 in 20 l4, os linux but
/// 1 in 20 windows, so about 9% match M. Ids are `runner-000000` and up, in shuffled order.
fn fleet(n: usize) -> Vec<(String, Vec<(&'static str, String)>)> {
    let mut rng = Rng(42);
    let mut runners: Vec<_> = (0..n)
        .map(|i| {
            let gpu = if rng.next_u64().is_multiple_of(20) {
                "l4"
            } else {
                rng.pick(&["a100", "h100"])
            };
            let os = if rng.next_u64().is_multiple_of(20) {
                "windows"
            } else {
                "linux"
            };
            let labels = vec![
                ("zone", rng.pick(&ZONES).to_owned()),
                ("gpu", gpu.to_owned()),
                ("tier", rng.pick(&["prod", "spot", "batch"]).to_owned()),
                ("ssd", rng.pick(&["true", "false"]).to_owned()),
                ("arch", rng.pick(&["amd64", "arm64"]).to_owned()),
                ("os", os.to_owned()),
                ("team", format!("team{}", rng.next_u64() % 12)),
                ("rack", format!("r{}", rng.next_u64() % 200)),
            ];
            (format!("runner-{i:06}"), labels)
        })
        .collect();
    for i in (1..runners.len()).rev() {
        runners.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    runners
}

fn ours(fleet: &[(String, Vec<(&'static str, String)>)]) -> Vec<(RunnerId, Labels)> {
    fleet
        .iter()
        .map(|(id, labels)| {
            let labels = Labels::from_pairs(labels.iter().map(|(k, v)| (*k, v.as_str())));
            (RunnerId::new(id).unwrap(), labels.unwrap())
        })
        .collect()
}

/// 100 changes: 60 runners start draining, 20 leave, 20 new ones arrive.
fn changes(runners: &[(RunnerId, Labels)], n: usize) -> Batch<()> {
    let mut rng = Rng(7);
    let mut batch = Batch::new();
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < 80 {
        let i = (rng.next_u64() % n as u64) as usize;
        if !seen.insert(i) {
            continue;
        }
        let (id, labels) = &runners[i];
        if seen.len() <= 60 {
            let mut labels = labels.clone();
            labels.insert("draining", "true").unwrap();
            batch.update(id.clone(), labels, ());
        } else {
            batch.remove(id.clone());
        }
    }
    for i in 0..20 {
        let id = RunnerId::new(format!("runner-{:06}-new", rng.next_u64() % n as u64 + i)).unwrap();
        batch.register(id, runners[i as usize].1.clone(), ());
    }
    batch
}

fn route(c: &mut Criterion) {
    let mut group = c.benchmark_group("route");
    let m: LabelSelector = serde_json::from_str(M).unwrap();
    for (name, n) in [("R1k", 1_000), ("R10k", 10_000), ("R100k", 100_000)] {
        let fleet = fleet(n);
        let runners = ours(&fleet);
        let snapshot =
            Snapshot::from_entries(runners.iter().map(|(id, l)| (id.clone(), l.clone(), ())))
                .unwrap();
        let expected = runners.iter().filter(|(_, l)| m.matches(l)).count();
        assert_eq!(snapshot.count(&m), expected);
        assert!(
            expected * 100 / n >= 7 && expected * 100 / n <= 11,
            "{expected} of {n}"
        );
        group.bench_function(format!("{name}/indexed"), |b| {
            b.iter(|| black_box(&snapshot).count(black_box(&m)))
        });
        group.bench_function(format!("{name}/scan"), |b| {
            b.iter(|| {
                black_box(&runners)
                    .iter()
                    .filter(|(_, l)| black_box(&m).matches(l))
                    .count()
            })
        });
        #[cfg(feature = "compare")]
        if n >= 10_000 {
            peers::scan(&mut group, name, &fleet, expected);
        }
        if n == 100_000 {
            let batch = changes(&runners, n);
            let next = snapshot.with_batch(batch.clone()).unwrap();
            assert_eq!(next.len(), n);
            group.bench_function(format!("{name}/swap100"), |b| {
                b.iter_batched(
                    || batch.clone(),
                    |batch| snapshot.with_batch(batch).unwrap(),
                    BatchSize::SmallInput,
                )
            });
            pick(&mut group, name, &runners, &m);
        }
    }
    group.finish();
}

fn pick(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    runners: &[(RunnerId, Labels)],
    m: &LabelSelector,
) {
    let router = RunnerRouter::new();
    router
        .replace_all(
            runners
                .iter()
                .map(|(id, l)| (id.clone(), l.clone(), KindSet::ALL)),
        )
        .unwrap();
    let kind = TaskKind::subprocess(
        SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
        TaskEnv::empty(),
        None,
    )
    .unwrap();
    let spec = TaskSpec::builder("slot", kind, 60_000)
        .runner_selector(m.clone())
        .build()
        .unwrap();
    let task = TaskId::new("task-000042").unwrap();
    let pick = router.pick(&spec, &task).unwrap();
    assert!(
        m.matches(
            runners
                .iter()
                .find(|(id, _)| *id == pick.runner)
                .map(|r| &r.1)
                .unwrap()
        )
    );
    group.bench_function(format!("{name}/pick"), |b| {
        b.iter(|| router.pick(black_box(&spec), black_box(&task)).unwrap())
    });
}

#[cfg(feature = "compare")]
mod peers {
    use std::hint::black_box;

    use criterion::{BenchmarkGroup, measurement::WallTime};

    use super::M;

    pub(super) fn scan(
        group: &mut BenchmarkGroup<'_, WallTime>,
        name: &str,
        fleet: &[(String, Vec<(&'static str, String)>)],
        expected: usize,
    ) {
        let runners: Vec<(String, solti_model::Labels)> = fleet
            .iter()
            .map(|(id, labels)| {
                let mut l = solti_model::Labels::new();
                for (k, v) in labels {
                    l.insert(*k, v.as_str());
                }
                (id.clone(), l)
            })
            .collect();
        let m: solti_model::LabelSelector = serde_json::from_str(M).unwrap();
        let count = || {
            black_box(&runners)
                .iter()
                .filter(|(_, l)| black_box(&m).matches(l))
                .count()
        };
        assert_eq!(count(), expected, "solti {name}");
        group.bench_function(format!("{name}/solti-scan"), |b| b.iter(count));
    }
}

criterion_group!(benches, route);
criterion_main!(benches);
