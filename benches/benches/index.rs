//! Runner index writes: the next snapshot after batches of updates, registrations and removals at 100,000 runners of 64 labels each (every value unique to its runner, the case where a chunk holds the most terms), reported per change; and counting one selector over that fleet.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    reason = "bench setup unwraps fixtures known to be valid"
)]

use std::hint::black_box;

use benches::Rng;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use model_ids::RunnerId;
use model_selector::{Batch, LabelSelector, Labels, Snapshot};

/// Runners in the fleet.
const RUNNERS: usize = 100_000;

/// Labels per runner.
const LABELS: usize = 64;

/// The 64 labels of runner `n` in generation `generation`: keys `label-00` to `label-63`
/// (the first one `zone`, from 10 values, so a selector has something to count), every other
/// value unique to the runner and the generation.
fn labels(n: usize, generation: u32) -> Labels {
    let zones = ["eu", "us", "ap", "sa", "af", "me", "ca", "au", "in", "jp"];
    let mut pairs = vec![("zone".to_owned(), zones[n % zones.len()].to_owned())];
    for k in 1..LABELS {
        pairs.push((
            format!("label-{k:02}"),
            format!("r{n:06}-g{generation}-{k:02}"),
        ));
    }
    Labels::from_pairs(pairs).unwrap()
}

fn id(n: usize) -> RunnerId {
    RunnerId::new(format!("runner-{n:06}")).unwrap()
}

/// `count` distinct runners of the fleet, chosen at random.
fn some_runners(rng: &mut Rng, count: usize) -> Vec<usize> {
    let mut chosen = std::collections::BTreeSet::new();
    while chosen.len() < count {
        chosen.insert(rng.below(RUNNERS));
    }
    let mut chosen: Vec<usize> = chosen.into_iter().collect();
    // Apply in random order, not id order.
    for i in (1..chosen.len()).rev() {
        chosen.swap(i, rng.below(i + 1));
    }
    chosen
}

fn index(c: &mut Criterion) {
    let mut group = c.benchmark_group("index");
    group.sample_size(20);
    let snapshot = Snapshot::from_entries((0..RUNNERS).map(|n| (id(n), labels(n, 0), ()))).unwrap();
    assert_eq!(snapshot.len(), RUNNERS);
    let eu: LabelSelector = "zone=eu".parse().unwrap();
    assert_eq!(snapshot.count(&eu), RUNNERS / 10);

    let mut rng = Rng(7);
    for changes in [1, 100] {
        // Every label of the runner changes (a new generation of values).
        let mut all = Batch::new();
        for n in some_runners(&mut rng, changes) {
            all.update(id(n), labels(n, 1), ());
        }
        // One label changes value.
        let mut one = Batch::new();
        for n in some_runners(&mut rng, changes) {
            let mut l = labels(n, 0);
            l.insert("label-63", format!("r{n:06}-changed")).unwrap();
            one.update(id(n), l, ());
        }
        let mut register = Batch::new();
        for n in some_runners(&mut rng, changes) {
            register.register(
                RunnerId::new(format!("runner-{n:06}-new")).unwrap(),
                labels(n, 2),
                (),
            );
        }
        let mut remove = Batch::new();
        for n in some_runners(&mut rng, changes) {
            remove.remove(id(n));
        }
        group.throughput(Throughput::Elements(changes as u64));
        for (name, batch) in [
            ("update-all-labels", all),
            ("update-one-label", one),
            ("register", register),
            ("remove", remove),
        ] {
            let next = snapshot.with_batch(batch.clone()).unwrap();
            assert!(next.len().abs_diff(RUNNERS) <= changes);
            // One batch at a time, the next snapshot dropped before the next batch, as a
            // writer swapping snapshots does.
            group.bench_function(format!("{name}/{changes}"), |b| {
                b.iter_batched(
                    || batch.clone(),
                    |batch| snapshot.with_batch(batch).unwrap(),
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.throughput(Throughput::Elements(1));
    group.bench_function("count-zone", |b| {
        b.iter(|| black_box(&snapshot).count(black_box(&eu)))
    });
    group.finish();
}

criterion_group!(benches, index);
criterion_main!(benches);
