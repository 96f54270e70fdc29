//! Memory per queued task: the bytes a `Queue` holds for the claim bench's backlog of
//! 100,000 tasks (docs/performance.md, "Claims"), counted by a counting global allocator.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test setup fails loudly"
)]

use benches::backlog::backlog;
use model_fleet::Queue;
use model_ids::TenantId;

const TASKS: usize = 100_000;

/// The most a queued task of the backlog may cost the queue, in bytes: its key (priority,
/// time, id), slot, kind and policy kept once by id and once in its kind's selector index,
/// and its selector (one or two requirements) in the index with its posting-list entry
/// (1,068 bytes measured with the reverse index, docs/performance.md, "Claims").
const MAX_BYTES_PER_TASK: u64 = 1_280;

#[test]
fn a_queued_task_costs_the_queue_at_most_1280_bytes() {
    let entries = backlog(TASKS);
    let mut queued = 0;
    let info = allocation_counter::measure(|| {
        let mut queue = Queue::new(TenantId::new("acme").unwrap());
        for entry in &entries {
            queue.insert(entry.clone()).unwrap();
        }
        queued = queue.len();
    });
    assert_eq!(queued, TASKS);
    let per_task = info.bytes_max / TASKS as u64;
    println!(
        "a queue of {TASKS} tasks held {} bytes at its peak: {per_task} bytes a task",
        info.bytes_max
    );
    assert!(
        per_task <= MAX_BYTES_PER_TASK,
        "{per_task} bytes a queued task, bound {MAX_BYTES_PER_TASK}"
    );
}
