//! Real concurrency: threads, each with its own connection, racing on the same tasks.

use std::collections::BTreeSet;
use std::sync::Barrier;

use taskmodel::query::TaskQuery;
use taskmodel::task::{Applied, AttemptOutcome, AttemptResult, AttemptState, LeaseId, TaskPhase};
use taskmodel::{ErrorKind, SeededRandom};
use taskstore::{Store, StoreError};

use super::fixtures::*;

const WORKERS: usize = 16;
const QUEUED: usize = 10_000;

/// 16 workers, each with its own connection, claim, start and finish from one queue of
/// 10,000 tasks until it is empty: every task is claimed exactly once.
pub fn claims_each_task_exactly_once_with_16_workers<B: Backend>(backend: &B) {
    let tasks: Vec<_> = (0..QUEUED)
        .map(|i| task(&format!("q{i:05}"), at(0)))
        .collect();
    let mut store = backend.open();
    for chunk in tasks.chunks(taskstore::MAX_IMPORT) {
        store.import(&tenant(), chunk).unwrap();
    }
    let claimed: Vec<Vec<String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..WORKERS)
            .map(|worker| {
                scope.spawn(move || {
                    let mut store = backend.open();
                    let mut rng = SeededRandom::new(worker as u64);
                    let mut mine = Vec::new();
                    for n in 0.. {
                        let lease = (worker as u64) << 32 | n;
                        let request = request(&format!("w{worker}"), lease, at(1));
                        let Some(claimed) =
                            retrying(|| store.claim(&tenant(), &request, at(1))).unwrap()
                        else {
                            break;
                        };
                        let id = claimed.task.id().clone();
                        store
                            .start(&tenant(), &id, LeaseId::new(lease), at(2))
                            .unwrap();
                        let done = AttemptResult::new(AttemptOutcome::Succeeded);
                        store
                            .report(&tenant(), &id, LeaseId::new(lease), done, &mut rng, at(3))
                            .unwrap();
                        mine.push(id.as_str().to_owned());
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let total: usize = claimed.iter().map(Vec::len).sum();
    let distinct: BTreeSet<&String> = claimed.iter().flatten().collect();
    assert_eq!(total, QUEUED, "claims made");
    assert_eq!(distinct.len(), QUEUED, "distinct tasks claimed");
    assert!(
        claimed.iter().filter(|mine| !mine.is_empty()).count() > 1,
        "only one worker claimed"
    );
    let mut store = backend.open();
    for task in tasks.iter().step_by(97) {
        let stored = store.get(&tenant(), task.id()).unwrap();
        assert_eq!(
            (stored.task.phase(), stored.task.status().attempt()),
            (TaskPhase::Succeeded, 1)
        );
    }
}

/// 16 workers claim at once, round after round, and every other worker's claims are
/// refused by the model (a lease that expires as it is granted): each refused claim gets its
/// own error and writes nothing, and every other claim is stored as it was answered, however
/// the engine batched them (SQLite runs concurrent claims in one transaction).
pub fn a_refused_claim_among_concurrent_ones_undoes_no_other<B: Backend>(backend: &B) {
    const ROUNDS: usize = 8;
    let tasks: Vec<_> = (0..WORKERS * ROUNDS)
        .map(|i| task(&format!("g{i:03}"), at(0)))
        .collect();
    backend.open().import(&tenant(), &tasks).unwrap();
    let barrier = Barrier::new(WORKERS);
    let claimed: Vec<Vec<(String, u64)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..WORKERS)
            .map(|worker| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let mut store = backend.open();
                    let mut mine = Vec::new();
                    for round in 0..ROUNDS {
                        let lease = (worker * ROUNDS + round) as u64 + 1;
                        // A claim per round, each by a runner of its own (a runner runs one
                        // attempt at a time).
                        let name = format!("w{worker}-{round}");
                        let mut request = request(&name, lease, at(1));
                        if worker % 2 == 1 {
                            request.lease_expires_at = at(1);
                        }
                        barrier.wait();
                        let result = retrying(|| store.claim(&tenant(), &request, at(1)));
                        if worker % 2 == 1 {
                            let error = result.unwrap_err();
                            assert!(
                                matches!(error, StoreError::Rejected { .. }),
                                "worker {worker}: {error}"
                            );
                        } else {
                            let claimed = result.unwrap().unwrap();
                            mine.push((claimed.task.id().as_str().to_owned(), lease));
                        }
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let claimed: Vec<(String, u64)> = claimed.into_iter().flatten().collect();
    assert_eq!(claimed.len(), WORKERS / 2 * ROUNDS, "claims answered");
    let mut store = backend.open();
    for (name, lease) in &claimed {
        let stored = store.get(&tenant(), &id(name)).unwrap();
        assert_eq!(stored.task.phase(), TaskPhase::Running, "{name}");
        let attempt = stored.attempt.unwrap();
        assert_eq!(
            (attempt.state(), attempt.lease()),
            (AttemptState::Leased, LeaseId::new(*lease)),
            "{name}"
        );
    }
    let running = tasks
        .iter()
        .filter(|task| store.get(&tenant(), task.id()).unwrap().task.phase() == TaskPhase::Running)
        .count();
    assert_eq!(running, claimed.len(), "tasks running");
}

/// An admin's cancel and the runner's result race; each side retries a lost race. Exactly
/// one final state results, and when the cancel was acknowledged the task ends Canceled.
pub fn cancel_racing_result_converges_and_never_loses_the_cancel<B: Backend>(backend: &B) {
    let rounds = 40;
    let tasks: Vec<_> = (0..rounds)
        .map(|i| task(&format!("c{i:02}"), at(i)))
        .collect();
    let mut store = backend.open();
    create_all(&mut store, &tasks);
    let (mut canceled, mut succeeded) = (0, 0);
    for (round, task) in tasks.iter().enumerate() {
        let lease = LeaseId::new(round as u64 + 1);
        let claimed = store
            .claim(&tenant(), &request("r", lease.as_u64(), at(100)), at(100))
            .unwrap()
            .unwrap();
        assert_eq!(claimed.task.id(), task.id());
        store.start(&tenant(), task.id(), lease, at(101)).unwrap();
        let barrier = Barrier::new(2);
        let (cancel, result) = std::thread::scope(|scope| {
            let cancel = scope.spawn(|| {
                let mut store = backend.open();
                barrier.wait();
                retrying(|| store.cancel(&tenant(), task.id(), Precondition::default(), at(102)))
            });
            let result = scope.spawn(|| {
                let mut store = backend.open();
                barrier.wait();
                let done = AttemptResult::new(AttemptOutcome::Succeeded);
                retrying(|| {
                    store.report(
                        &tenant(),
                        task.id(),
                        lease,
                        done.clone(),
                        &mut SeededRandom::new(1),
                        at(102),
                    )
                })
            });
            (cancel.join().unwrap(), result.join().unwrap())
        });
        match (cancel, result) {
            (Ok(change), Err(StoreError::Rejected { error, .. })) => {
                // The cancel came first: the result is refused (cancel intent wins) and the
                // runner can only end the attempt Canceled.
                assert_eq!(error.kind(), ErrorKind::Conflict);
                assert_eq!(change.applied, Applied::Changed(()));
                let stopped = AttemptResult::new(AttemptOutcome::Canceled);
                store
                    .report(
                        &tenant(),
                        task.id(),
                        lease,
                        stopped,
                        &mut SeededRandom::new(1),
                        at(103),
                    )
                    .unwrap();
                let stored = store.get(&tenant(), task.id()).unwrap();
                assert_eq!(stored.task.phase(), TaskPhase::Canceled);
                assert_eq!(stored.attempt.unwrap().state(), AttemptState::Canceled);
                canceled += 1;
            }
            (Err(StoreError::Rejected { error, .. }), Ok(_)) => {
                // The result came first: the task is final, and a cancel is refused.
                assert_eq!(error.kind(), ErrorKind::InvalidTransition);
                let stored = store.get(&tenant(), task.id()).unwrap();
                assert_eq!(stored.task.phase(), TaskPhase::Succeeded);
                assert_eq!(stored.attempt.unwrap().state(), AttemptState::Succeeded);
                succeeded += 1;
            }
            other => panic!("round {round}: both or neither won: {other:?}"),
        }
    }
    assert_eq!(canceled + succeeded, rounds);
}

/// The reaper and a late result race on an attempt whose lease runs out: the result comes
/// in just before the expiry, the reaper at it. Whichever commits first stands; a final
/// attempt never changes again and the task never goes back.
pub fn expiry_racing_a_late_result_never_resurrects<B: Backend>(backend: &B) {
    let rounds = 40;
    let tasks: Vec<_> = (0..rounds)
        .map(|i| task(&format!("e{i:02}"), at(i)))
        .collect();
    let mut store = backend.open();
    create_all(&mut store, &tasks);
    let (mut expired, mut reported) = (0, 0);
    for (round, task) in tasks.iter().enumerate() {
        let lease = LeaseId::new(round as u64 + 1);
        let request = request("r", lease.as_u64(), at(100));
        let expiry = request.lease_expires_at;
        let claimed = store.claim(&tenant(), &request, at(100)).unwrap().unwrap();
        assert_eq!(claimed.task.id(), task.id());
        store.start(&tenant(), task.id(), lease, at(101)).unwrap();
        let barrier = Barrier::new(2);
        let (reap, result) = std::thread::scope(|scope| {
            let reap = scope.spawn(|| {
                let mut store = backend.open();
                barrier.wait();
                store.reap(expiry, 100, &mut SeededRandom::new(2)).unwrap()
            });
            let result = scope.spawn(|| {
                let mut store = backend.open();
                barrier.wait();
                let done = AttemptResult::new(AttemptOutcome::Succeeded);
                let just_before = expiry - chrono::TimeDelta::nanoseconds(1);
                retrying(|| {
                    store.report(
                        &tenant(),
                        task.id(),
                        lease,
                        done.clone(),
                        &mut SeededRandom::new(1),
                        just_before,
                    )
                })
            });
            (reap.join().unwrap(), result.join().unwrap())
        });
        let stored = store.get(&tenant(), task.id()).unwrap();
        let attempt = stored.attempt.unwrap();
        match result {
            Ok(_) => {
                assert!(
                    reap.iter().all(|r| r.task != *task.id()),
                    "round {round}: reaped after the result"
                );
                assert_eq!(
                    (stored.task.phase(), attempt.state()),
                    (TaskPhase::Succeeded, AttemptState::Succeeded)
                );
                reported += 1;
            }
            Err(StoreError::Gone { .. }) => {
                assert!(
                    reap.iter().any(|r| r.task == *task.id()),
                    "round {round}: gone without expiry"
                );
                assert_eq!(
                    (stored.task.phase(), attempt.state()),
                    (TaskPhase::Exhausted, AttemptState::Expired)
                );
                expired += 1;
            }
            Err(other) => panic!("round {round}: {other}"),
        }
        // Later calls change nothing: the final attempt stands.
        let again = store
            .reap(
                expiry + chrono::TimeDelta::hours(1),
                100,
                &mut SeededRandom::new(3),
            )
            .unwrap();
        assert!(again.iter().all(|r| r.task != *task.id()));
        assert_eq!(store.get(&tenant(), task.id()).unwrap().task, stored.task);
    }
    assert_eq!(expired + reported, rounds);
}

/// While one connection pages through a listing, another inserts new tasks and deletes
/// others between pages: every task that exists for the whole listing is returned exactly
/// once, and pages come in order.
pub fn keyset_pages_return_each_lasting_task_once_under_churn<B: Backend>(backend: &B) {
    let lasting: Vec<_> = (0..300)
        .map(|i| task(&format!("k{i:03}"), at(i * 10)))
        .collect();
    let doomed: Vec<_> = (0..300)
        .map(|i| task(&format!("d{i:03}"), at(i * 10 + 5)))
        .collect();
    let mut store = backend.open();
    create_all(&mut store, &lasting);
    create_all(&mut store, &doomed);
    let mut churn = backend.open();
    let mut query = TaskQuery::builder(tenant()).limit(23).build().unwrap();
    let mut seen = Vec::new();
    for page_number in 0.. {
        let page = store.list(&query).unwrap();
        seen.extend(
            page.items
                .iter()
                .map(|task| (task.metadata().created_at(), task.id().clone())),
        );
        // Between pages: delete ten doomed tasks and add ten new ones, spread over the key range.
        for k in 0..10 {
            let index = page_number * 10 + k;
            if let Some(task) = doomed.get(index) {
                churn
                    .delete(&tenant(), task.id(), Precondition::default())
                    .unwrap();
            }
            let fresh =
                super::fixtures::task(&format!("n{index:04}"), at((index as i64 * 37) % 3000));
            churn.create(&tenant(), &fresh, at(0)).unwrap();
        }
        match page.next {
            Some(token) => query = query.with_continue(token).unwrap(),
            None => break,
        }
    }
    let sorted = seen.windows(2).all(|pair| pair[0] < pair[1]);
    assert!(sorted, "pages out of order or repeating");
    let ids: BTreeSet<_> = seen.iter().map(|(_, id)| id.clone()).collect();
    for task in &lasting {
        assert!(ids.contains(task.id()), "lasting task {} missed", task.id());
    }
}
