//! The attempt rules of `docs/attempts.md`, each proved through a store.

use chrono::TimeDelta;
use taskmodel::ids::TenantId;
use taskmodel::query::TaskQuery;
use taskmodel::task::attempt::LogKey;
use taskmodel::task::{
    Applied, AttemptOutcome, AttemptResult, AttemptState, LeaseId, RestartDecision, TaskPhase,
};
use taskmodel::{ErrorKind, SeededRandom};
use taskstore::{LogLine, LogStream, Store, StoreError};

use super::fixtures::*;

fn done() -> AttemptResult {
    AttemptResult::new(AttemptOutcome::Succeeded).with_exit_code(0)
}

/// Creates one task, claims it under lease 1 and starts it.
fn running(store: &mut impl Store, name: &str) -> LeaseId {
    store.create(&tenant(), &task(name, at(0)), at(0)).unwrap();
    store
        .claim(&tenant(), &request("r", 1, at(10)), at(10))
        .unwrap()
        .unwrap();
    store
        .start(&tenant(), &id(name), LeaseId::new(1), at(11))
        .unwrap();
    LeaseId::new(1)
}

/// A repeated start, heartbeat or result is answered `Unchanged` and writes nothing.
pub fn duplicate_start_heartbeat_and_result_are_idempotent<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let lease = running(&mut store, "a");
    let t = &id("a");
    let version = store.get(&tenant(), t).unwrap().task.resource_version();
    let again = store.start(&tenant(), t, lease, at(12)).unwrap();
    assert_eq!(
        (again.applied, again.task.resource_version()),
        (Applied::Unchanged, version)
    );
    let beat = store
        .heartbeat(&tenant(), t, lease, at(60_000), at(13))
        .unwrap();
    assert_eq!(beat.applied, Applied::Changed(()));
    let same = store
        .heartbeat(&tenant(), t, lease, at(60_000), at(14))
        .unwrap();
    assert_eq!(
        (same.applied, same.task.resource_version()),
        (Applied::Unchanged, version + 1)
    );
    let first = store
        .report(
            &tenant(),
            t,
            lease,
            done(),
            &mut SeededRandom::new(1),
            at(15),
        )
        .unwrap();
    assert!(first.applied.is_changed());
    let repeat = store
        .report(
            &tenant(),
            t,
            lease,
            done(),
            &mut SeededRandom::new(1),
            at(99_000),
        )
        .unwrap();
    assert_eq!(
        (repeat.applied, repeat.task),
        (Applied::Unchanged, first.task)
    );
}

/// A different result for an attempt that has one is a conflict, and the first stands.
pub fn a_conflicting_result_is_a_conflict<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let lease = running(&mut store, "a");
    store
        .report(
            &tenant(),
            &id("a"),
            lease,
            done(),
            &mut SeededRandom::new(1),
            at(15),
        )
        .unwrap();
    let failed = AttemptResult::new(AttemptOutcome::Failed).with_exit_code(1);
    let error = store
        .report(
            &tenant(),
            &id("a"),
            lease,
            failed,
            &mut SeededRandom::new(1),
            at(16),
        )
        .unwrap_err();
    assert!(matches!(error, StoreError::Rejected { .. }), "{error}");
    assert_eq!(error.kind(), Some(ErrorKind::Conflict));
    assert!(!error.is_retryable());
    let stored = store.get(&tenant(), &id("a")).unwrap();
    assert_eq!(stored.attempt.unwrap().state(), AttemptState::Succeeded);
}

/// A task in a final phase takes no start, heartbeat, cancel or claim, and its version
/// stays.
pub fn a_terminal_task_rejects_every_change<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let lease = running(&mut store, "a");
    let t = &id("a");
    let end = store
        .report(
            &tenant(),
            t,
            lease,
            done(),
            &mut SeededRandom::new(1),
            at(15),
        )
        .unwrap();
    let version = end.task.resource_version();
    let start = store.start(&tenant(), t, lease, at(16)).unwrap_err();
    assert!(matches!(start, StoreError::Gone { .. }), "{start}");
    let beat = store
        .heartbeat(&tenant(), t, lease, at(90_000), at(16))
        .unwrap_err();
    assert!(matches!(beat, StoreError::Gone { .. }), "{beat}");
    let cancel = store
        .cancel(&tenant(), t, Precondition::default(), at(16))
        .unwrap_err();
    assert_eq!(
        cancel.kind(),
        Some(ErrorKind::InvalidTransition),
        "{cancel}"
    );
    let lines = [LogLine::new(0, LogStream::Stdout, "late", at(16)).unwrap()];
    assert!(matches!(
        store.append_logs(&tenant(), t, lease, &lines, at(16)),
        Err(StoreError::Gone { .. })
    ));
    assert!(
        store
            .claim(&tenant(), &request("r2", 2, at(17)), at(17))
            .unwrap()
            .is_none()
    );
    assert_eq!(
        store.get(&tenant(), t).unwrap().task.resource_version(),
        version
    );
}

/// Log lines are stored once per `(attempt, sequence)`: a repeated or overlapping batch
/// stores only its new lines, and reads resume after a cursor.
pub fn log_lines_deduplicate_by_attempt_and_sequence<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let lease = running(&mut store, "a");
    let t = &id("a");
    let line = |n: u64| {
        LogLine::new(n, LogStream::Stdout, format!("line {n}"), at(20 + n as i64)).unwrap()
    };
    let batch: Vec<_> = (0..3).map(line).collect();
    assert_eq!(
        store
            .append_logs(&tenant(), t, lease, &batch, at(20))
            .unwrap(),
        3
    );
    assert_eq!(
        store
            .append_logs(&tenant(), t, lease, &batch, at(21))
            .unwrap(),
        0
    );
    let overlap = [line(2), line(3)];
    assert_eq!(
        store
            .append_logs(&tenant(), t, lease, &overlap, at(22))
            .unwrap(),
        1
    );
    let all = store.logs(&tenant(), t, None, 100).unwrap();
    let keys: Vec<_> = all.iter().map(|l| l.key).collect();
    assert_eq!(keys, (0..4).map(|n| LogKey::new(1, n)).collect::<Vec<_>>());
    assert_eq!((all[3].text.as_str(), all[3].at), ("line 3", at(23)));
    let rest = store
        .logs(&tenant(), t, Some(LogKey::new(1, 1)), 100)
        .unwrap();
    assert_eq!(rest.len(), 2);
    let stale = store
        .append_logs(&tenant(), t, LeaseId::new(9), &[line(4)], at(23))
        .unwrap_err();
    assert!(matches!(stale, StoreError::Gone { .. }), "{stale}");
    let too_many: Vec<_> = (0..101).map(line).collect();
    assert!(matches!(
        store.append_logs(&tenant(), t, lease, &too_many, at(24)),
        Err(StoreError::OutOfRange { .. })
    ));
}

/// Every read and write is tenant-scoped: another tenant's task does not exist.
pub fn another_tenant_sees_nothing<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let lease = running(&mut store, "a");
    let other = TenantId::new("other").unwrap();
    assert!(matches!(
        store.get(&other, &id("a")),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.start(&other, &id("a"), lease, at(12)),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.cancel(&other, &id("a"), Precondition::default(), at(12)),
        Err(StoreError::NotFound { .. })
    ));
    let query = TaskQuery::builder(other.clone()).build().unwrap();
    assert!(store.list(&query).unwrap().items.is_empty());
    store.create(&tenant(), &task("b", at(1)), at(1)).unwrap();
    assert!(
        store
            .claim(&other, &request("r", 5, at(12)), at(12))
            .unwrap()
            .is_none()
    );
    // The same id in another tenant is another task.
    store
        .create(
            &other,
            &new_task(&other, id("a"), spec("a", 0), at(2)),
            at(2),
        )
        .unwrap();
    assert_eq!(
        store.get(&other, &id("a")).unwrap().task.phase(),
        TaskPhase::Pending
    );
}

/// A lease that is not the current one (an earlier attempt's, or after expiry) cannot
/// heartbeat, log or report.
pub fn a_stale_lease_cannot_heartbeat_log_or_report<B: Backend>(backend: &B) {
    let mut store = backend.open();
    store
        .create(&tenant(), &task_retrying("a", 1), at(0))
        .unwrap();
    let first = request("r", 1, at(10));
    store.claim(&tenant(), &first, at(10)).unwrap().unwrap();
    let reaped = store
        .reap(first.lease_expires_at, 10, &mut SeededRandom::new(1))
        .unwrap();
    assert_eq!(reaped.len(), 1);
    let due = first.lease_expires_at + TimeDelta::seconds(2);
    store
        .claim(&tenant(), &request("r", 2, due), due)
        .unwrap()
        .unwrap();
    let t = &id("a");
    let old = LeaseId::new(1);
    for error in [
        store
            .heartbeat(&tenant(), t, old, due + TimeDelta::seconds(60), due)
            .unwrap_err(),
        store
            .append_logs(
                &tenant(),
                t,
                old,
                &[LogLine::new(0, LogStream::Stderr, "x", due).unwrap()],
                due,
            )
            .unwrap_err(),
        store
            .report(&tenant(), t, old, done(), &mut SeededRandom::new(1), due)
            .unwrap_err(),
        store.start(&tenant(), t, old, due).unwrap_err(),
    ] {
        assert!(matches!(error, StoreError::Gone { .. }), "{error}");
        assert_eq!(error.kind(), Some(ErrorKind::Gone));
    }
    store.start(&tenant(), t, LeaseId::new(2), due).unwrap();
}

/// A task with `max_retries` 1 whose leases expire: the first expiry requeues it, the
/// second exhausts it.
pub fn lease_expiry_requeues_then_exhausts_at_the_retry_limit<B: Backend>(backend: &B) {
    let mut store = backend.open();
    store
        .create(&tenant(), &task_retrying("a", 1), at(0))
        .unwrap();
    let first = request("r", 1, at(10));
    store.claim(&tenant(), &first, at(10)).unwrap().unwrap();
    assert!(
        store
            .reap(
                first.lease_expires_at - TimeDelta::nanoseconds(1),
                10,
                &mut SeededRandom::new(1)
            )
            .unwrap()
            .is_empty()
    );
    let reaped = store
        .reap(first.lease_expires_at, 10, &mut SeededRandom::new(1))
        .unwrap();
    assert!(
        matches!(
            reaped[0].decision,
            RestartDecision::Restart { retry: 1, .. }
        ),
        "{reaped:?}"
    );
    let stored = store.get(&tenant(), &id("a")).unwrap();
    assert_eq!(
        (stored.task.phase(), stored.attempt.unwrap().state()),
        (TaskPhase::Pending, AttemptState::Expired)
    );
    let due = first.lease_expires_at + TimeDelta::seconds(1);
    let second = request("r", 2, due);
    let claimed = store.claim(&tenant(), &second, due).unwrap().unwrap();
    assert_eq!(claimed.attempt.attempt(), 2);
    let reaped = store
        .reap(second.lease_expires_at, 10, &mut SeededRandom::new(1))
        .unwrap();
    assert_eq!(reaped[0].decision, RestartDecision::Exhausted);
    assert_eq!(
        store.get(&tenant(), &id("a")).unwrap().task.phase(),
        TaskPhase::Exhausted
    );
}

/// Cancel of a running attempt: Cancelling (the runner learns it from its next
/// heartbeat), then Canceled when the runner stops, never restarted.
pub fn in_flight_cancel_goes_cancelling_then_canceled<B: Backend>(backend: &B) {
    let mut store = backend.open();
    let lease = running(&mut store, "a");
    let t = &id("a");
    let cancel = store
        .cancel(&tenant(), t, Precondition::default(), at(12))
        .unwrap();
    assert_eq!(cancel.attempt.unwrap().state(), AttemptState::Cancelling);
    assert_eq!(
        store
            .cancel(&tenant(), t, Precondition::default(), at(13))
            .unwrap()
            .applied,
        Applied::Unchanged
    );
    let beat = store
        .heartbeat(&tenant(), t, lease, at(90_000), at(14))
        .unwrap();
    assert!(beat.attempt.unwrap().cancel_requested());
    let stop = AttemptResult::new(AttemptOutcome::Canceled);
    let end = store
        .report(&tenant(), t, lease, stop, &mut SeededRandom::new(1), at(15))
        .unwrap();
    assert_eq!(
        (end.task.phase(), end.attempt.unwrap().state()),
        (TaskPhase::Canceled, AttemptState::Canceled)
    );
}

/// A write that names the version it read refuses a moved task as a retryable conflict.
pub fn a_stale_expected_version_is_a_retryable_conflict<B: Backend>(backend: &B) {
    let mut store = backend.open();
    store.create(&tenant(), &task("a", at(0)), at(0)).unwrap();
    let error = store
        .cancel(&tenant(), &id("a"), Precondition::version(7), at(1))
        .unwrap_err();
    assert!(
        matches!(error, StoreError::Conflict { .. }) && error.is_retryable(),
        "{error}"
    );
    assert_eq!(
        store.get(&tenant(), &id("a")).unwrap().task.phase(),
        TaskPhase::Pending
    );
    let error = store
        .delete(&tenant(), &id("a"), Precondition::version(7))
        .unwrap_err();
    assert!(matches!(error, StoreError::Conflict { .. }), "{error}");
    store
        .cancel(&tenant(), &id("a"), Precondition::version(1), at(1))
        .unwrap();
}

/// A task that retries `max_retries` times after a failure or an expiry.
pub fn task_retrying(name: &str, max_retries: u32) -> taskmodel::task::Task {
    new_task(&tenant(), id(name), spec(name, max_retries), at(0))
}
