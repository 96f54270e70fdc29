//! Queue order, slots and admission, routing, restarts, history, deletes and listings.

use taskmodel::SeededRandom;
use taskmodel::fleet::KindSet;
use taskmodel::ids::TaskId;
use taskmodel::policy::AdmissionPolicy;
use taskmodel::query::{SortOrder, TaskQuery};
use taskmodel::selector::Labels;
use taskmodel::task::{AttemptOutcome, AttemptResult, LeaseId, Task, TaskPhase, TaskSpec};
use taskstore::{Admitted, Store, StoreError};

use super::fixtures::*;

/// Claims take pending tasks by the time they became due, then id, whatever the order of
/// creation: two stores agree on which task goes first.
pub fn queue_order_is_deterministic<B: Backend>(backend: &B) {
    let mut store = backend.open();
    // Created out of order; "b" and "c" tie on time and go by id; a higher priority goes
    // first whenever it was queued.
    let prioritized = |name: &str, priority, created| {
        let spec = TaskSpec::builder(name, kind(), 60_000)
            .priority(priority)
            .build()
            .unwrap();
        new_task(&tenant(), id(name), spec, created)
    };
    let tasks = [
        task("d", at(40)),
        prioritized("y", -1, at(5)),
        task("c", at(20)),
        task("a", at(30)),
        prioritized("z", 1, at(45)),
        task("b", at(20)),
        task("e", at(10)),
    ];
    for task in &tasks {
        store.create(&tenant(), task, at(50)).unwrap();
    }
    let order: Vec<String> = (0..7)
        .map(|n| {
            let claimed = store
                .claim(&tenant(), &request(&format!("r{n}"), n, at(100)), at(100))
                .unwrap()
                .unwrap();
            claimed.task.id().as_str().to_owned()
        })
        .collect();
    assert_eq!(order, ["z", "e", "b", "c", "a", "d", "y"]);
}

/// A runner holds at most `maxConcurrent` active attempts: at capacity it claims nothing,
/// and a finished attempt frees its place.
pub fn a_runner_at_capacity_claims_nothing<B: Backend>(backend: &B) {
    let mut store = backend.open();
    create_all(
        &mut store,
        &[task("a", at(1)), task("b", at(2)), task("c", at(3))],
    );
    let claim = |store: &mut B::Store, lease: u64| {
        store
            .claim(
                &tenant(),
                &request("r", lease, at(10)).with_max_concurrent(2),
                at(10),
            )
            .unwrap()
    };
    let first = claim(&mut store, 1).unwrap();
    claim(&mut store, 2).unwrap();
    assert!(
        claim(&mut store, 3).is_none(),
        "a third attempt past capacity 2"
    );
    // Another runner still claims.
    assert!(
        store
            .claim(&tenant(), &request("other", 4, at(10)), at(10))
            .unwrap()
            .is_some()
    );
    let id = first.task.id();
    store.start(&tenant(), id, LeaseId::new(1), at(11)).unwrap();
    let done = AttemptResult::new(AttemptOutcome::Succeeded);
    store
        .report(
            &tenant(),
            id,
            LeaseId::new(1),
            done,
            &mut SeededRandom::new(1),
            at(12),
        )
        .unwrap();
    store.create(&tenant(), &task("d", at(4)), at(12)).unwrap();
    assert!(
        claim(&mut store, 5).is_some(),
        "the freed place is not used"
    );
}

/// One task runs at a time in a slot (a lane): the next one waits until it ends.
pub fn one_task_runs_at_a_time_in_a_slot<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let lane = |name: &str, created| {
        new_task(
            &tenant(),
            id(name),
            spec_with("lane", AdmissionPolicy::Queue, "", &[]),
            created,
        )
    };
    create_all(&mut store, &[lane("a", at(1)), lane("b", at(2))]);
    let first = store
        .claim(&tenant(), &request("r1", 1, at(10)), at(10))
        .unwrap()
        .unwrap();
    assert_eq!(first.task.id(), &id("a"));
    assert!(
        store
            .claim(&tenant(), &request("r2", 2, at(10)), at(10))
            .unwrap()
            .is_none()
    );
    succeed(&mut store, "a", 1, at(11), at(12));
    let next = store
        .claim(&tenant(), &request("r2", 2, at(13)), at(13))
        .unwrap()
        .unwrap();
    assert_eq!(next.task.id(), &id("b"));
}

/// A new task in a busy slot: `dropIfRunning` is not stored, `queue` waits, `replace`
/// cancels the slot's unfinished tasks.
pub fn admission_drops_queues_and_replaces<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let lane = |name: &str, admission| {
        new_task(
            &tenant(),
            id(name),
            spec_with("lane", admission, "", &[]),
            at(1),
        )
    };
    assert_eq!(
        store
            .create(&tenant(), &lane("a", AdmissionPolicy::Queue), at(1))
            .unwrap(),
        created(&[])
    );
    let dropped = store
        .create(&tenant(), &lane("b", AdmissionPolicy::DropIfRunning), at(2))
        .unwrap();
    assert!(
        matches!(dropped, Admitted::Dropped { ref active } if active == &id("a")),
        "{dropped:?}"
    );
    assert!(matches!(
        store.get(&tenant(), &id("b")),
        Err(StoreError::NotFound { .. })
    ));
    assert_eq!(
        store
            .create(&tenant(), &lane("c", AdmissionPolicy::Queue), at(3))
            .unwrap(),
        created(&[])
    );
    store
        .claim(&tenant(), &request("r", 1, at(4)), at(4))
        .unwrap()
        .unwrap();
    let replaced = store
        .create(&tenant(), &lane("d", AdmissionPolicy::Replace), at(5))
        .unwrap();
    assert_eq!(replaced, created(&["a", "c"]));
    let a = store.get(&tenant(), &id("a")).unwrap();
    assert_eq!(
        a.attempt.unwrap().state(),
        taskmodel::task::AttemptState::Cancelling
    );
    assert_eq!(
        store.get(&tenant(), &id("c")).unwrap().task.phase(),
        TaskPhase::Canceled
    );
    assert_eq!(
        store.get(&tenant(), &id("d")).unwrap().task.phase(),
        TaskPhase::Pending
    );
    let error = store
        .create(&tenant(), &lane("d", AdmissionPolicy::Queue), at(6))
        .unwrap_err();
    assert!(matches!(error, StoreError::Exists { .. }), "{error}");
}

fn created(replaced: &[&str]) -> Admitted {
    let replaced: Vec<TaskId> = replaced.iter().map(|name| id(name)).collect();
    Admitted::Created { replaced }
}

/// A claim takes only tasks whose runner selector the runner's labels match and whose kind
/// it runs; others wait for a runner that fits.
pub fn claims_follow_the_runner_selector_and_kinds<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let gpu = new_task(
        &tenant(),
        id("gpu"),
        spec_with("gpu", AdmissionPolicy::Queue, "gpu in (a100,h100)", &[]),
        at(1),
    );
    create_all(&mut store, &[gpu, task("any", at(2))]);
    let eu = |lease, kinds| {
        let mut request = request("cpu", lease, at(10));
        request.labels = Labels::from_pairs([("zone", "eu")]).unwrap();
        request.kinds = kinds;
        request
    };
    assert!(
        store
            .claim(&tenant(), &eu(1, KindSet::CONTAINER), at(10))
            .unwrap()
            .is_none(),
        "kind not run"
    );
    let first = store
        .claim(&tenant(), &eu(2, KindSet::ALL), at(10))
        .unwrap()
        .unwrap();
    assert_eq!(
        first.task.id(),
        &id("any"),
        "the selector does not match the cpu runner"
    );
    let mut gpu_runner = request("gpu", 3, at(10));
    gpu_runner.labels = Labels::from_pairs([("gpu", "h100")]).unwrap();
    assert_eq!(
        store
            .claim(&tenant(), &gpu_runner, at(10))
            .unwrap()
            .unwrap()
            .task
            .id(),
        &id("gpu")
    );
}

/// A task waiting for a restart is not claimed before its time, then is.
pub fn a_restart_is_not_claimed_before_it_is_due<B: Backend>(backend: &B) {
    let mut store = backend.open();
    store
        .create(
            &tenant(),
            &new_task(&tenant(), id("a"), spec("a", 3), at(0)),
            at(0),
        )
        .unwrap();
    store
        .claim(&tenant(), &request("r", 1, at(10)), at(10))
        .unwrap()
        .unwrap();
    store
        .start(&tenant(), &id("a"), LeaseId::new(1), at(11))
        .unwrap();
    let failed = AttemptResult::new(AttemptOutcome::Failed).with_exit_code(2);
    let change = store
        .report(
            &tenant(),
            &id("a"),
            LeaseId::new(1),
            failed,
            &mut SeededRandom::new(1),
            at(12),
        )
        .unwrap();
    let due = change.task.status().next_attempt_at().unwrap();
    assert_eq!(due, at(1_012));
    let before = due - chrono::TimeDelta::nanoseconds(1);
    assert!(
        store
            .claim(&tenant(), &request("r", 2, before), before)
            .unwrap()
            .is_none()
    );
    let claimed = store
        .claim(&tenant(), &request("r", 2, due), due)
        .unwrap()
        .unwrap();
    assert_eq!(claimed.attempt.attempt(), 2);
}

/// One task's attempts, in order, in pages.
pub fn attempt_history_lists_every_attempt<B: Backend>(backend: &B) {
    let mut store = backend.open();
    store
        .create(
            &tenant(),
            &new_task(&tenant(), id("a"), spec("a", 5), at(0)),
            at(0),
        )
        .unwrap();
    let mut now = at(10);
    for lease in 1..=3 {
        store
            .claim(&tenant(), &request("r", lease, now), now)
            .unwrap()
            .unwrap();
        store
            .start(&tenant(), &id("a"), LeaseId::new(lease), now)
            .unwrap();
        let failed = AttemptResult::new(AttemptOutcome::Failed).with_exit_code(1);
        store
            .report(
                &tenant(),
                &id("a"),
                LeaseId::new(lease),
                failed,
                &mut SeededRandom::new(1),
                now,
            )
            .unwrap();
        now += chrono::TimeDelta::seconds(2);
    }
    let all = store.attempts(&tenant(), &id("a"), None, 10).unwrap();
    let numbers: Vec<u32> = all.iter().map(|run| run.attempt()).collect();
    assert_eq!(numbers, [1, 2, 3]);
    let rest = store.attempts(&tenant(), &id("a"), Some(1), 1).unwrap();
    assert_eq!(
        rest.iter().map(|run| run.attempt()).collect::<Vec<_>>(),
        [2]
    );
    assert!(matches!(
        store.attempts(&tenant(), &id("a"), None, 0),
        Err(StoreError::OutOfRange { .. })
    ));
}

/// A running task is not deleted; a pending or final one is, with its attempts and logs.
pub fn delete_refuses_a_running_task_and_removes_the_rest<B: Backend>(backend: &B) {
    let mut store = backend.open();
    create_all(&mut store, &[task("a", at(1)), task("b", at(2))]);
    store
        .claim(&tenant(), &request("r", 1, at(10)), at(10))
        .unwrap()
        .unwrap();
    let error = store
        .delete(&tenant(), &id("a"), Precondition::default())
        .unwrap_err();
    assert!(matches!(error, StoreError::Conflict { .. }), "{error}");
    store
        .delete(&tenant(), &id("b"), Precondition::default())
        .unwrap();
    succeed(&mut store, "a", 1, at(11), at(12));
    store
        .delete(&tenant(), &id("a"), Precondition::default())
        .unwrap();
    assert!(matches!(
        store.get(&tenant(), &id("a")),
        Err(StoreError::NotFound { .. })
    ));
    assert!(
        store
            .attempts(&tenant(), &id("a"), None, 10)
            .unwrap()
            .is_empty()
    );
}

/// Every filter and both orders: the store's pages, walked to the end, are the model's
/// reference evaluation's pages, tokens included.
pub fn pages_equal_the_reference_evaluation<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let mut tasks = Vec::new();
    for i in 0..120_i64 {
        let zone = if i % 3 == 0 { "eu" } else { "us" };
        let slot = format!("s{}", i % 4);
        let spec = spec_with(&slot, AdmissionPolicy::Queue, "", &[("zone", zone)]);
        // Times repeat every 40 tasks so that ties break by id.
        tasks.push(new_task(
            &tenant(),
            id(&format!("t{:03}", (i * 7) % 120)),
            spec,
            at(i % 40),
        ));
    }
    create_all(&mut store, &tasks);
    store
        .claim(&tenant(), &request("r", 1, at(100)), at(100))
        .unwrap()
        .unwrap();
    let stored: Vec<Task> = tasks
        .iter()
        .map(|t| store.get(&tenant(), t.id()).unwrap().task)
        .collect();
    let queries = [
        TaskQuery::builder(tenant()).limit(7).build().unwrap(),
        TaskQuery::builder(tenant())
            .order(SortOrder::Descending)
            .limit(11)
            .build()
            .unwrap(),
        TaskQuery::builder(tenant())
            .slot("s1".parse().unwrap())
            .limit(5)
            .build()
            .unwrap(),
        TaskQuery::builder(tenant())
            .label_selector("zone=eu".parse().unwrap())
            .limit(4)
            .build()
            .unwrap(),
        TaskQuery::builder(tenant())
            .phase(TaskPhase::Running)
            .phase(TaskPhase::Pending)
            .created_since(at(10))
            .created_before(at(30))
            .limit(9)
            .build()
            .unwrap(),
        TaskQuery::builder(tenant())
            .order(SortOrder::Descending)
            .updated_since(at(50))
            .limit(3)
            .build()
            .unwrap(),
    ];
    for query in queries {
        let (mut mine, mut reference) = (query.clone(), query.clone());
        loop {
            let page = store.list(&mine).unwrap();
            let expected = reference.evaluate(stored.iter().cloned());
            assert_eq!(page, expected, "{query:?}");
            match (page.next, expected.next) {
                (Some(a), Some(b)) => {
                    mine = mine.with_continue(a).unwrap();
                    reference = reference.with_continue(b).unwrap();
                }
                _ => break,
            }
        }
    }
}

/// A bulk import stores every task in one transaction, or none of them.
pub fn import_stores_all_tasks_or_none<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let tasks: Vec<Task> = (0..250).map(|i| task(&format!("i{i:03}"), at(i))).collect();
    store.import(&tenant(), &tasks).unwrap();
    let query = TaskQuery::builder(tenant()).limit(1000).build().unwrap();
    assert_eq!(store.list(&query).unwrap().items, tasks);
    let again: Vec<Task> = (249..260)
        .map(|i| task(&format!("i{i:03}"), at(i)))
        .collect();
    let error = store.import(&tenant(), &again).unwrap_err();
    assert!(matches!(error, StoreError::Exists { .. }), "{error}");
    assert_eq!(
        store.list(&query).unwrap().items.len(),
        250,
        "a partial import"
    );
    let too_many: Vec<Task> = (0..taskstore::MAX_IMPORT as i64 + 1)
        .map(|i| task(&format!("x{i}"), at(i)))
        .collect();
    assert!(matches!(
        store.import(&tenant(), &too_many),
        Err(StoreError::OutOfRange { .. })
    ));
}
