//! Measures one retry delay computation (`BackoffPolicy::delay_ms`) for each jitter kind, early and late in a schedule.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use model_policy::{BackoffPolicy, JitterPolicy, SeededRandom};

fn delay(c: &mut Criterion) {
    let mut group = c.benchmark_group("backoff");
    for jitter in JitterPolicy::ALL.iter().copied() {
        let policy = BackoffPolicy::default().with_jitter(jitter);
        for retry in [3_u32, 1_000_000] {
            let mut rng = SeededRandom::new(0x5EED);
            group.bench_with_input(
                BenchmarkId::new(jitter.as_str(), retry),
                &retry,
                |b, &retry| {
                    b.iter(|| policy.delay_ms(black_box(retry), black_box(Some(4_000)), &mut rng));
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, delay);
criterion_main!(benches);
