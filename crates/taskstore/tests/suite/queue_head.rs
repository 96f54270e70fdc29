//! Where claims start reading the queue: a task queued before the tasks left, after many
//! claims, is still the next one claimed (PostgreSQL reads from a queue floor that claims
//! move up; `floors.rs`).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};

use taskmodel::task::Task;
use taskmodel::task::{AttemptOutcome, AttemptResult, LeaseId, TaskSpec};
use taskmodel::{RandomSource, SeededRandom};
use taskstore::Store;

use super::fixtures::*;

/// Task `name` at `priority`, created (and queued) at `at(ms)`.
pub fn queued_at(name: &str, priority: i32, ms: i64) -> Task {
    let spec = TaskSpec::builder(name, kind(), 60_000)
        .priority(priority)
        .build()
        .unwrap();
    new_task(&tenant(), id(name), spec, at(ms))
}

/// The next task claimed, by a new runner each time.
pub fn next(store: &mut impl Store, lease: u64) -> Option<String> {
    let request = request(&format!("r{lease}"), lease, at(1_000_000));
    store
        .claim(&tenant(), &request, at(1_000_000))
        .unwrap()
        .map(|claimed| claimed.task.id().as_str().to_owned())
}

/// After claims have taken the head of the queue, a task of a higher priority, a task
/// queued earlier than every one left, and, once the queue is empty, a task queued before
/// every task claimed, are each the next one claimed.
pub fn a_task_queued_before_the_rest_is_claimed_next_after_many_claims<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let tasks: Vec<Task> = (0..20)
        .map(|n| queued_at(&format!("q{n:02}"), 0, 100 + n))
        .collect();
    store.import(&tenant(), &tasks).unwrap();
    for n in 0..8 {
        assert_eq!(
            next(&mut store, n).as_deref(),
            Some(format!("q{n:02}").as_str())
        );
    }
    // Created through another connection, as an API server would.
    let mut api = backend.open();
    api.create(&tenant(), &queued_at("urgent", 5, 500), at(500))
        .unwrap();
    assert_eq!(next(&mut store, 8).as_deref(), Some("urgent"));
    api.create(&tenant(), &queued_at("early", 0, 50), at(500))
        .unwrap();
    api.create(&tenant(), &queued_at("q07a", 0, 107), at(500))
        .unwrap();
    assert_eq!(next(&mut store, 9).as_deref(), Some("early"));
    assert_eq!(next(&mut store, 10).as_deref(), Some("q07a"));
    for n in 8..20 {
        assert_eq!(
            next(&mut store, 3 + n).as_deref(),
            Some(format!("q{n:02}").as_str())
        );
    }
    assert_eq!(next(&mut store, 30), None);
    api.import(
        &tenant(),
        &[queued_at("late", 0, 9_000), queued_at("first", 0, 1)],
    )
    .unwrap();
    assert_eq!(next(&mut store, 31).as_deref(), Some("first"));
    assert_eq!(next(&mut store, 32).as_deref(), Some("late"));
    assert_eq!(next(&mut store, 33), None);
}

const ENQUEUERS: usize = 4;
const CLAIMERS: usize = 4;
const PER_ENQUEUER: usize = 150;

/// Tasks created one at a time by some connections, at random priorities and times (many
/// before tasks already claimed), while others claim and finish: once the creators are done
/// and the claimers find nothing more, every task was claimed exactly once.
pub fn tasks_created_while_others_claim_are_each_claimed_once<B: Backend>(backend: &B) {
    let done = AtomicBool::new(false);
    let (created, claimed) = std::thread::scope(|scope| {
        let claimers: Vec<_> = (0..CLAIMERS)
            .map(|worker| {
                let done = &done;
                scope.spawn(move || {
                    let mut store = backend.open();
                    let mut rng = SeededRandom::new(worker as u64);
                    let mut mine = Vec::new();
                    for n in 0.. {
                        // Read before the claim: a claim that finds nothing after the
                        // creators finished has seen every task they made.
                        let finished = done.load(Ordering::SeqCst);
                        let lease = (worker as u64) << 32 | n;
                        let request = request(&format!("c{worker}"), lease, at(1_000_000));
                        let found =
                            retrying(|| store.claim(&tenant(), &request, at(1_000_000))).unwrap();
                        let Some(claimed) = found else {
                            if finished {
                                break;
                            }
                            continue;
                        };
                        let id = claimed.task.id().clone();
                        let lease = LeaseId::new(lease);
                        store.start(&tenant(), &id, lease, at(1_000_001)).unwrap();
                        let done = AttemptResult::new(AttemptOutcome::Succeeded);
                        store
                            .report(&tenant(), &id, lease, done, &mut rng, at(1_000_002))
                            .unwrap();
                        mine.push(id.as_str().to_owned());
                    }
                    mine
                })
            })
            .collect();
        let creators: Vec<_> = (0..ENQUEUERS)
            .map(|creator| {
                scope.spawn(move || {
                    let mut store = backend.open();
                    let mut rng = SeededRandom::new(100 + creator as u64);
                    let mut mine = Vec::new();
                    for n in 0..PER_ENQUEUER {
                        let name = format!("t{creator}-{n:03}");
                        let priority = (rng.next_u64() % 3) as i32;
                        let ms = (rng.next_u64() % 10_000) as i64;
                        store
                            .create(&tenant(), &queued_at(&name, priority, ms), at(ms))
                            .unwrap();
                        mine.push(name);
                    }
                    mine
                })
            })
            .collect();
        let created: Vec<String> = creators
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect();
        done.store(true, Ordering::SeqCst);
        let claimed: Vec<String> = claimers
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect();
        (created, claimed)
    });
    let distinct: BTreeSet<&String> = claimed.iter().collect();
    assert_eq!(claimed.len(), created.len(), "claims made");
    assert_eq!(
        distinct,
        created.iter().collect::<BTreeSet<_>>(),
        "tasks claimed"
    );
}
