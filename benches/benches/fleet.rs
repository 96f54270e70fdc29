//! Claims (docs/performance.md, "Claims"): the task one runner claims among 100,000 queued tasks of a realistic mix, by `Queue::claim` (the head of the queue tested in order, `CLAIM_HEAD_PROBE` tasks, then the queue's selector indexes) and by walking the queue in order testing each task (`ClaimRequest::admits`), side by side, for runners whose only work is the last tier (of one kind, or of two), scarce work, and the busiest pool's work.
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    reason = "bench setup unwraps fixtures known to be valid"
)]

use std::hint::black_box;

use benches::backlog::{backlog, busy_slots, now, runners, running};
use criterion::{Criterion, criterion_group, criterion_main};
use model_fleet::{ClaimRequest, LivenessTtl, Queue, QueueEntry};
use model_ids::TenantId;

const TASKS: usize = 100_000;

/// The first task the runner may take, walking `order` (the queue in queue order) and
/// testing each task: what a claim does without an index.
fn walk<'a>(
    order: &'a [QueueEntry],
    queue: &Queue,
    request: &ClaimRequest<'_>,
) -> Option<&'a QueueEntry> {
    order
        .iter()
        .find(|entry| request.admits(entry.as_queued(), queue.running(entry.slot())))
}

fn claim(c: &mut Criterion) {
    let entries = backlog(TASKS);
    let mut queue = Queue::new(TenantId::new("acme").unwrap());
    for entry in &entries {
        queue.insert(entry.clone()).unwrap();
    }
    for slot in busy_slots() {
        queue.update(&running(&slot)).unwrap();
    }
    let mut order = entries;
    order.sort_by(|a, b| a.key().cmp(b.key()));
    let ttl = LivenessTtl::default();
    let mut group = c.benchmark_group("claim");
    for (name, runner) in runners() {
        let request = ClaimRequest::new(&runner, 0, now(), ttl);
        let claimed = queue.claim(&request).map(|task| task.key().clone());
        let walked = walk(&order, &queue, &request);
        assert_eq!(claimed.as_ref(), walked.map(QueueEntry::key), "{name}");
        let depth = walked.map(|w| order.iter().position(|e| e.key() == w.key()).unwrap());
        let matching = order
            .iter()
            .filter(|e| e.selector().matches(runner.labels()))
            .count();
        println!(
            "claim/{name}: the first claimable task is {} in queue order; {matching} of {TASKS} selectors match",
            depth.map_or_else(|| "none".to_owned(), |d| format!("number {}", d + 1))
        );
        group.bench_function(format!("{name}/indexed"), |b| {
            b.iter(|| {
                black_box(&queue)
                    .claim(black_box(&request))
                    .map(|t| t.key().id().as_str().len())
            })
        });
        group.bench_function(format!("{name}/walk"), |b| {
            b.iter(|| {
                walk(black_box(&order), &queue, black_box(&request))
                    .map(|e| e.key().id().as_str().len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, claim);
criterion_main!(benches);
