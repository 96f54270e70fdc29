//! Schedule actions through a store: fired once, in due order, Running before dispatch;
//! ended once; recurring; recovered after a restart.

use std::collections::BTreeSet;
use std::sync::Barrier;

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::json;
use taskmodel::ErrorKind;
use taskmodel::ids::{ActionId, TenantId};
use taskmodel::schedule::{Action, ActionState, ActionStatus, Interval, RECOVERED_REASON};
use taskstore::{ActionOutcome, Store, StoreError};

use super::fixtures::*;

fn tick(id: u128, due: DateTime<Utc>) -> Action {
    Action::scheduled(ActionId::from_u128(id), "nightly", due, None, at(0)).unwrap()
}

fn ids(actions: &[Action]) -> Vec<u128> {
    actions
        .iter()
        .map(|action| u128::from_be_bytes(*action.id().as_bytes()))
        .collect()
}

/// Due actions fire in `(due, id)` order, to the millisecond as the model's `is_due`
/// decides, each once, written Running before they are returned; another tenant's wait.
pub fn due_actions_fire_once_in_due_order<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let sub_ms = at(5) + TimeDelta::microseconds(400);
    let webhook =
        Action::webhook(ActionId::from_u128(9), "hook", b"{}".to_vec(), at(2), at(0)).unwrap();
    let actions = [
        tick(3, at(5)),
        tick(2, at(1)),
        tick(1, sub_ms),
        tick(4, at(6)),
        webhook,
    ];
    for action in &actions {
        store.add_action(&tenant(), action).unwrap();
    }
    let other = TenantId::new("other").unwrap();
    store.add_action(&other, &tick(1, at(0))).unwrap();
    let now = at(5);
    let due: BTreeSet<u128> = ids(&actions)
        .into_iter()
        .zip(&actions)
        .filter(|(_, action)| action.is_due(now))
        .map(|(id, _)| id)
        .collect();
    let first = store.fire_due(&tenant(), now, 1).unwrap();
    assert_eq!(ids(&first), [2]);
    let rest = store.fire_due(&tenant(), now, 10).unwrap();
    assert_eq!(ids(&rest), [9, 1, 3]);
    assert_eq!(due, [1, 2, 3, 9].into_iter().collect());
    for action in first.iter().chain(&rest) {
        assert_eq!(action.state(), ActionState::Running);
        assert_eq!(&store.action(&tenant(), action.id()).unwrap(), action);
    }
    assert!(store.fire_due(&tenant(), now, 10).unwrap().is_empty());
    let later = at(6) - TimeDelta::nanoseconds(1);
    assert!(store.fire_due(&tenant(), later, 10).unwrap().is_empty());
    assert_eq!(ids(&store.fire_due(&tenant(), at(6), 10).unwrap()), [4]);
    assert_eq!(
        store
            .action(&other, ActionId::from_u128(1))
            .unwrap()
            .state(),
        ActionState::Pending
    );
    assert!(matches!(
        store.add_action(&tenant(), &tick(4, at(7))),
        Err(StoreError::ActionExists { .. })
    ));
    assert!(matches!(
        store.fire_due(&tenant(), now, 0),
        Err(StoreError::OutOfRange { field: "limit", .. })
    ));
}

/// Tick loops on their own connections fire every due action exactly once between them.
pub fn concurrent_tick_loops_fire_each_action_once<B: Backend>(backend: &B) {
    const ACTIONS: u128 = 300;
    const LOOPS: usize = 8;
    let mut store = backend.open();
    for id in 1..=ACTIONS {
        let due = at(i64::try_from(id % 17).unwrap());
        store.add_action(&tenant(), &tick(id, due)).unwrap();
    }
    let barrier = Barrier::new(LOOPS);
    let fired: Vec<Vec<u128>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..LOOPS)
            .map(|_| {
                scope.spawn(|| {
                    let mut store = backend.open();
                    barrier.wait();
                    let mut mine = Vec::new();
                    loop {
                        let batch = retrying(|| store.fire_due(&tenant(), at(100), 7)).unwrap();
                        if batch.is_empty() {
                            return mine;
                        }
                        mine.extend(ids(&batch));
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let all: Vec<u128> = fired.concat();
    let unique: BTreeSet<u128> = all.iter().copied().collect();
    assert_eq!(all.len(), unique.len(), "an action fired twice");
    assert_eq!(unique, (1..=ACTIONS).collect());
}

/// A dispatched action ends once: completed (its next one stored in the same write, phase
/// kept) or failed (no next); a second end, or an end of an action never fired, is refused.
pub fn an_action_ends_once_and_a_completed_one_recurs<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let every = Interval::from_ms(60_000).unwrap();
    let recurring = Action::scheduled(
        ActionId::from_u128(1),
        "nightly",
        at(10),
        Some(every),
        at(0),
    )
    .unwrap();
    store.add_action(&tenant(), &recurring).unwrap();
    store.add_action(&tenant(), &tick(2, at(10))).unwrap();
    store.add_action(&tenant(), &tick(3, at(500))).unwrap();
    assert_eq!(ids(&store.fire_due(&tenant(), at(20), 10).unwrap()), [1, 2]);
    let next_id = ActionId::from_u128(100);
    let done = store
        .finish_action(
            &tenant(),
            ActionId::from_u128(1),
            ActionOutcome::Completed(json!({"files": 42})),
            next_id,
            at(30),
        )
        .unwrap();
    assert_eq!(done.action.state(), ActionState::Completed);
    let next = done.next.unwrap();
    assert_eq!(
        (next.id(), next.state(), next.due_at()),
        (next_id, ActionState::Pending, at(60_010))
    );
    assert_eq!(store.action(&tenant(), next_id).unwrap(), next);
    assert_eq!(
        store.action(&tenant(), ActionId::from_u128(1)).unwrap(),
        done.action
    );
    let failed = store
        .finish_action(
            &tenant(),
            ActionId::from_u128(2),
            ActionOutcome::Failed("exit 3".to_owned()),
            ActionId::from_u128(101),
            at(30),
        )
        .unwrap();
    assert_eq!(
        (failed.action.state(), failed.next),
        (ActionState::Failed, None)
    );
    for id in [1, 2, 3] {
        let error = store
            .finish_action(
                &tenant(),
                ActionId::from_u128(id),
                ActionOutcome::Failed("again".to_owned()),
                ActionId::from_u128(102),
                at(40),
            )
            .unwrap_err();
        assert!(
            matches!(error, StoreError::ActionRejected { .. }),
            "{error}"
        );
        assert_eq!(error.kind(), Some(ErrorKind::InvalidTransition));
    }
    assert!(matches!(
        store.action(&tenant(), ActionId::from_u128(102)),
        Err(StoreError::ActionNotFound { .. })
    ));
    assert!(matches!(
        store.action(&tenant(), ActionId::from_u128(55)),
        Err(StoreError::ActionNotFound { .. })
    ));
}

/// Startup recovery fails the actions running for longer than the longest dispatch, of
/// every tenant, and no other: one exactly that old stays running.
pub fn startup_recovery_fails_only_stale_running_actions<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let other = TenantId::new("other").unwrap();
    for (tenant, id, due) in [
        (tenant(), 1, at(10)),
        (tenant(), 2, at(1_000)),
        (tenant(), 3, at(5_000)),
        (other.clone(), 4, at(10)),
    ] {
        store.add_action(&tenant, &tick(id, due)).unwrap();
    }
    assert_eq!(store.fire_due(&tenant(), at(10), 10).unwrap().len(), 1);
    assert_eq!(store.fire_due(&other, at(10), 10).unwrap().len(), 1);
    assert_eq!(store.fire_due(&tenant(), at(1_000), 10).unwrap().len(), 1);
    assert_eq!(store.recover_actions(at(1_010), 1_000, 10).unwrap(), 0);
    assert_eq!(store.recover_actions(at(1_011), 1_000, 1).unwrap(), 1);
    assert_eq!(store.recover_actions(at(1_011), 1_000, 10).unwrap(), 1);
    assert_eq!(store.recover_actions(at(1_011), 1_000, 10).unwrap(), 0);
    let state = |store: &mut B::Store, tenant: &TenantId, id| {
        let action = store.action(tenant, ActionId::from_u128(id)).unwrap();
        (action.state(), action.status().clone())
    };
    for (tenant, id) in [(tenant(), 1), (other.clone(), 4)] {
        let (state, status) = state(&mut store, &tenant, id);
        assert_eq!(state, ActionState::Failed);
        assert!(
            matches!(&status, ActionStatus::Failed { reason } if reason == RECOVERED_REASON),
            "{status:?}"
        );
    }
    assert_eq!(state(&mut store, &tenant(), 2).0, ActionState::Running);
    assert_eq!(state(&mut store, &tenant(), 3).0, ActionState::Pending);
    assert_eq!(store.recover_actions(at(0), u64::MAX, 10).unwrap(), 0);
}

/// A database opened at version 1 (tasks, no actions) was migrated: its task reads back, and
/// actions can be stored.
pub fn a_version_1_database_migrates_on_open(store: &mut impl Store, task: &taskmodel::task::Task) {
    assert_eq!(&store.get(&tenant(), task.id()).unwrap().task, task);
    store.add_action(&tenant(), &tick(1, at(0))).unwrap();
    assert_eq!(ids(&store.fire_due(&tenant(), at(0), 1).unwrap()), [1]);
}
