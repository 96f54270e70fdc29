//! Log-line identity: `LogKey` (attempt, sequence) and `LogCursor`, which drops duplicates.

use serde::{Deserialize, Serialize};

/// The identity of one log line: the attempt that wrote it and its sequence number within
/// that attempt: the dedupe key of `docs/attempts.md` ("Log dedupe").
///
/// Ordered by attempt, then sequence: the order in which lines were written, since
/// attempts only increase and a runner numbers its lines in increasing order. On the wire,
/// `{"attempt": 2, "sequence": 17}`.
///
/// ```
/// use model_task::attempt::LogKey;
/// assert!(LogKey::new(1, 900) < LogKey::new(2, 0));
/// ```
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LogKey {
    attempt: u32,
    sequence: u64,
}

impl LogKey {
    /// The key of line `sequence` of attempt `attempt`.
    pub const fn new(attempt: u32, sequence: u64) -> Self {
        Self { attempt, sequence }
    }

    /// The attempt that wrote the line.
    pub const fn attempt(self) -> u32 {
        self.attempt
    }

    /// The line's sequence number within its attempt.
    pub const fn sequence(self) -> u64 {
        self.sequence
    }
}

/// Which log lines of a task are new: the dedupe rule for log batches that a runner may
/// send more than once (a retried upload after a lost reply).
///
/// The rule: a runner numbers the lines of its attempt in increasing order and resends a
/// batch whole, so a line is new exactly when its key is above every key accepted before.
/// A repeated batch, or the repeated part of an overlapping one, is dropped line by line.
/// Lines of an earlier attempt are never new: only the current lease holder may send logs
/// (check its lease with [`Task::check_lease`](crate::Task::check_lease) first), and
/// attempts only increase. The cursor keeps one key, whatever the number of lines.
///
/// What an API does with duplicates: it answers the batch with success (the upload is
/// idempotent), stores only the lines [`accept`](Self::accept) lets through, and persists
/// [`last`](Self::last) with them, so the cursor survives a restart. A store that also keeps
/// a unique index on `(attempt, sequence)` stays correct even if lines arrive out of order.
///
/// ```
/// use model_task::attempt::{LogCursor, LogKey};
/// let mut cursor = LogCursor::new();
/// let batch = [LogKey::new(1, 0), LogKey::new(1, 1)];
/// assert_eq!(batch.iter().filter(|k| cursor.accept(**k)).count(), 2);
/// // The same batch again: nothing new.
/// assert_eq!(batch.iter().filter(|k| cursor.accept(**k)).count(), 0);
/// assert!(cursor.accept(LogKey::new(2, 0)));
/// assert!(!cursor.accept(LogKey::new(1, 2)));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LogCursor {
    last: Option<LogKey>,
}

impl LogCursor {
    /// A cursor that has seen no line.
    pub const fn new() -> Self {
        Self { last: None }
    }

    /// A cursor that resumes after `last`, the highest key accepted before (as stored).
    pub const fn after(last: LogKey) -> Self {
        Self { last: Some(last) }
    }

    /// The highest key accepted so far.
    pub const fn last(&self) -> Option<LogKey> {
        self.last
    }

    /// Whether a line with `key` would be new, without recording it.
    pub fn is_new(&self, key: LogKey) -> bool {
        self.last.is_none_or(|last| key > last)
    }

    /// Records `key` and says whether its line is new (store it) or a duplicate (drop it).
    pub fn accept(&mut self, key: LogKey) -> bool {
        let new = self.is_new(key);
        if new {
            self.last = Some(key);
        }
        new
    }
}

#[cfg(test)]
mod tests;
