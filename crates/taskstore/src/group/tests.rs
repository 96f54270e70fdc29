//! The queue of a group commit: who runs which calls, and who gets which result.

use std::sync::Mutex;
use std::time::Duration;

use chrono::{TimeZone, Utc};
use taskmodel::fleet::KindSet;
use taskmodel::ids::{RunnerId, TenantId};
use taskmodel::selector::Labels;
use taskmodel::task::LeaseId;

use super::{Batch, ClaimCall, ClaimGroup, ClaimResult, MAX_CLAIM_GROUP, copy};
use crate::error::StoreError;
use crate::values::ClaimRequest;

fn call(runner: &str) -> ClaimCall {
    let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    ClaimCall {
        tenant: TenantId::new("acme").unwrap(),
        request: ClaimRequest::new(
            RunnerId::new(runner).unwrap(),
            Labels::new(),
            KindSet::ALL,
            LeaseId::new(1),
            now,
        ),
        now,
    }
}

/// The result of a call that names its runner, so each caller can check it got its own.
fn named(call: &ClaimCall) -> ClaimResult {
    Err(StoreError::Busy {
        reason: call.request.runner.as_str().to_owned(),
    })
}

/// Takes every call the group lets it and answers each with [`named`]; returns how many.
fn answer_all(batch: &mut Batch<'_>) -> usize {
    let mut count = 0;
    while let Some(call) = batch.next() {
        batch.answer(named(&call));
        count += 1;
    }
    count
}

fn reason(result: ClaimResult) -> String {
    match result {
        Err(StoreError::Busy { reason }) => reason,
        other => panic!("expected a named result, got {other:?}"),
    }
}

/// While one group runs, 40 more calls queue: that group takes them until it holds
/// `MAX_CLAIM_GROUP`, the next group takes the rest, in the order they came, and each
/// caller gets its own call's result.
#[test]
fn queued_calls_join_the_running_group_up_to_its_bound_and_each_caller_gets_its_own_result() {
    const QUEUED: usize = 40;
    let group = ClaimGroup::default();
    let sizes = Mutex::new(Vec::new());
    let record = |batch: &mut Batch<'_>| {
        let count = answer_all(batch);
        sizes.lock().unwrap().push(count);
    };
    std::thread::scope(|scope| {
        let first = scope.spawn(|| {
            group.claim(call("first"), |batch| {
                let own = batch.next().unwrap();
                batch.answer(named(&own));
                // Wait until every other call has queued, then take them.
                while group.lock().waiting.len() < QUEUED {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let count = answer_all(batch);
                sizes.lock().unwrap().push(1 + count);
            })
        });
        while !group.lock().leading {
            std::thread::sleep(Duration::from_millis(1));
        }
        let others: Vec<_> = (0..QUEUED)
            .map(|n| {
                let (group, record) = (&group, &record);
                let handle = scope.spawn(move || group.claim(call(&format!("r{n}")), record));
                (n, handle)
            })
            .collect();
        assert_eq!(reason(first.join().unwrap()), "first");
        for (n, handle) in others {
            assert_eq!(reason(handle.join().unwrap()), format!("r{n}"));
        }
    });
    let sizes = sizes.into_inner().unwrap();
    assert_eq!(sizes, [MAX_CLAIM_GROUP, QUEUED + 1 - MAX_CLAIM_GROUP]);
    let queue = group.lock();
    assert!(!queue.leading && queue.waiting.is_empty() && queue.results.is_empty());
}

/// A group that ends without answering a call it took (its runner stopped early) answers
/// that call busy instead of leaving its caller waiting, and the next group can start.
#[test]
fn a_call_left_without_an_answer_fails_busy() {
    let group = ClaimGroup::default();
    let result = group.claim(call("a"), |batch| drop(batch.next()));
    assert!(
        matches!(&result, Err(StoreError::Busy { reason }) if reason.contains("before answering it")),
        "{result:?}"
    );
    assert_eq!(
        reason(group.claim(call("b"), |batch| {
            answer_all(batch);
        })),
        "b"
    );
}

/// When the group's transaction fails, a claim that failed on its own keeps its error and
/// every other call taken, answered or not, fails with a copy of the transaction's; a call
/// not taken stays queued.
#[test]
fn a_failed_group_fails_every_call_taken_but_keeps_their_own_errors() {
    let full = || {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            Some("database or disk is full".to_owned()),
        ))
    };
    let group = ClaimGroup::default();
    {
        let mut queue = group.lock();
        for ticket in 0..4 {
            queue.waiting.push_back((ticket, call("a")));
        }
        queue.leading = true;
    }
    let mut batch = Batch {
        group: &group,
        tickets: Vec::new(),
        results: Vec::new(),
    };
    for result in [
        Ok(None),
        Err(StoreError::Busy {
            reason: "own".to_owned(),
        }),
    ] {
        batch.next().unwrap();
        batch.answer(result);
    }
    batch.next().unwrap();
    batch.fail(full());
    drop(batch);
    let mut queue = group.lock();
    let described: Vec<String> = (0..3)
        .map(|ticket| match queue.results.remove(&ticket) {
            Some(Err(StoreError::Sqlite(error))) => format!("{:?}", error.sqlite_error_code()),
            Some(Err(StoreError::Busy { reason })) => reason,
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(described, ["Some(DiskFull)", "own", "Some(DiskFull)"]);
    assert_eq!(queue.waiting.len(), 1);
    assert!(!queue.leading);
    drop(queue);
    let corrupt = StoreError::Corrupt {
        what: "column 0".to_owned(),
        reason: "bad".to_owned(),
    };
    assert!(matches!(copy(&corrupt), StoreError::Busy { reason } if reason.contains("column 0")));
}
