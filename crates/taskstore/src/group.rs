//! Group commit (SQLite): the claims of one database file that queue while another claim
//! writes are run by whichever thread holds the turn, one after another in one
//! transaction, and committed together (`sqlite.rs` runs them, without a savepoint each
//! unless one fails after writing).
//!
//! SQLite has one writer at a time, and a large part of a lone claim's time is its
//! `COMMIT` (the write-ahead log's frames of a dozen pages, mostly the same index pages as
//! the claim before). A group shares that `COMMIT` and those pages among its claims. Each
//! claim is still [`claim::claim`](crate::claim) on the state the claims before it left,
//! exactly as if they had run one by one in that order: a claim that fails writes nothing
//! and keeps its own error, and no caller hears of a claim before the `COMMIT` that holds
//! it returns.

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, Utc};
use taskmodel::ids::TenantId;

use crate::error::StoreError;
use crate::values::{ClaimRequest, Claimed};

/// The most claims one transaction of SQLite's group commit runs (the claims queued
/// behind them wait for the next). Bounds how long the first of a group waits for the
/// last and how much one `COMMIT` holds.
pub const MAX_CLAIM_GROUP: usize = 32;

/// What a claim returns.
pub(crate) type ClaimResult = Result<Option<Claimed>, StoreError>;

/// One claim call, with everything it needs, so that another thread can run it.
#[derive(Debug)]
pub(crate) struct ClaimCall {
    pub(crate) tenant: TenantId,
    pub(crate) request: ClaimRequest,
    pub(crate) now: DateTime<Utc>,
}

/// The claims of one database file waiting for their turn, shared by the file's
/// connections in this process.
#[derive(Debug, Default)]
pub(crate) struct ClaimGroup {
    queue: Mutex<Queue>,
    /// Signaled when a group's results are in.
    done: Condvar,
}

#[derive(Debug, Default)]
struct Queue {
    /// Whether a thread is running a group now.
    leading: bool,
    /// How many calls the last group took: about as many callers come back for more.
    last: usize,
    /// The ticket of the next call queued.
    next: u64,
    /// The calls not yet run, in the order they came.
    waiting: VecDeque<(u64, ClaimCall)>,
    /// The results not yet taken by their callers.
    results: HashMap<u64, ClaimResult>,
}

impl ClaimGroup {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `call` and returns its result. When no thread is running a group, this one
    /// runs one with `run`, which takes the calls queued ([`Batch::next`], in the order they
    /// came: its own among them unless [`MAX_CLAIM_GROUP`] were queued before it) and
    /// answers each; otherwise it waits for the thread that runs its call.
    pub(crate) fn claim(
        &self,
        call: ClaimCall,
        mut run: impl FnMut(&mut Batch<'_>),
    ) -> ClaimResult {
        let mut queue = self.lock();
        let ticket = queue.next;
        queue.next = queue.next.wrapping_add(1);
        queue.waiting.push_back((ticket, call));
        loop {
            if let Some(result) = queue.results.remove(&ticket) {
                return result;
            }
            if queue.leading {
                queue = self
                    .done
                    .wait(queue)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            queue.leading = true;
            drop(queue);
            let mut batch = Batch {
                group: self,
                tickets: Vec::new(),
                results: Vec::new(),
            };
            run(&mut batch);
            drop(batch);
            queue = self.lock();
        }
    }
}

/// The calls of one group being run, taken from the queue one at a time as the group goes
/// (the calls that queue while it runs join it, up to [`MAX_CLAIM_GROUP`]). When it ends
/// (also by unwinding) its results are handed over, a call taken without an answer fails
/// as busy, and the next group may start.
pub(crate) struct Batch<'g> {
    group: &'g ClaimGroup,
    tickets: Vec<u64>,
    results: Vec<ClaimResult>,
}

impl Batch<'_> {
    /// The next call queued, `None` when none is or the group is full. Answer it
    /// ([`answer`](Self::answer)) before taking the next.
    pub(crate) fn next(&mut self) -> Option<ClaimCall> {
        if self.tickets.len() >= MAX_CLAIM_GROUP {
            return None;
        }
        let queue = self.group.lock();
        if queue.waiting.is_empty() && self.tickets.len() < queue.last {
            // Before the group commits: let the callers the last group answered, woken on
            // this machine's other threads, queue their next claims to join this one (a
            // lone caller never waits for others).
            drop(queue);
            std::thread::yield_now();
        } else {
            drop(queue);
        }
        let (ticket, call) = self.group.lock().waiting.pop_front()?;
        self.tickets.push(ticket);
        Some(call)
    }

    /// The result of the call taken last. It is handed to its caller when the group ends,
    /// so answer only what the group's `COMMIT` will hold, or call [`fail`](Self::fail).
    pub(crate) fn answer(&mut self, result: ClaimResult) {
        self.results.push(result);
    }

    /// The group's transaction failed with `error`: a claim that failed keeps its own
    /// error, as it would alone; every other call taken, answered or not, fails with a
    /// copy of `error` (an equal one where the error allows it, else
    /// [`StoreError::Busy`] naming it: nothing of theirs was written, so a retry may pass).
    pub(crate) fn fail(&mut self, error: StoreError) {
        for result in &mut self.results {
            if result.is_ok() {
                *result = Err(copy(&error));
            }
        }
        while self.results.len() < self.tickets.len() {
            self.results.push(Err(copy(&error)));
        }
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        let mut queue = self.group.lock();
        queue.leading = false;
        queue.last = self.tickets.len();
        let mut results = std::mem::take(&mut self.results).into_iter();
        for ticket in self.tickets.drain(..) {
            let result = results.next().unwrap_or_else(|| {
                Err(StoreError::Busy {
                    reason: "the claim's group ended before answering it".to_owned(),
                })
            });
            queue.results.insert(ticket, result);
        }
        drop(queue);
        self.group.done.notify_all();
    }
}

/// Runs `calls`, all queued before the group starts, as one group with `run`; each call's
/// result in order (for the engines' tests).
#[cfg(test)]
pub(crate) fn run_queued(
    calls: Vec<ClaimCall>,
    run: impl FnOnce(&mut Batch<'_>),
) -> Vec<ClaimResult> {
    let group = ClaimGroup::default();
    let count = calls.len();
    {
        let mut queue = group.lock();
        queue.waiting.extend((0..).zip(calls));
        queue.leading = true;
    }
    run(&mut Batch {
        group: &group,
        tickets: Vec::new(),
        results: Vec::new(),
    });
    let mut queue = group.lock();
    (0..count as u64)
        .filter_map(|ticket| queue.results.remove(&ticket))
        .collect()
}

/// An equal copy of a database error, where it has one; else [`StoreError::Busy`] with
/// its message.
fn copy(error: &StoreError) -> StoreError {
    match error {
        StoreError::Busy { reason } => StoreError::Busy {
            reason: reason.clone(),
        },
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(code, message)) => {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(*code, message.clone()))
        }
        other => StoreError::Busy {
            reason: format!("the claim's group failed: {other}"),
        },
    }
}

#[cfg(test)]
mod tests;
