//! The tasks a plane knows to be waiting for a retry, by due time: what tells the engine
//! when the next retry falls due. Both planes keep one; only the key differs (a task's
//! position in memory, its id in the store).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::simulate::clock::{Millis, instant, millis};

/// Tasks waiting for a retry, ordered by due time, then key.
#[derive(Debug)]
pub(super) struct Waiting<K: Ord + Clone>(BTreeSet<(Millis, K)>);

impl<K: Ord + Clone> Waiting<K> {
    /// No task waits.
    pub(super) const fn new() -> Self {
        Waiting(BTreeSet::new())
    }

    /// `key` waits until `due`.
    pub(super) fn insert(&mut self, due: DateTime<Utc>, key: K) {
        self.0.insert((millis(due), key));
    }

    /// `key` no longer waits until `due`.
    pub(super) fn remove(&mut self, due: DateTime<Utc>, key: K) {
        self.0.remove(&(millis(due), key));
    }

    /// Stops waiting for every task due at or before `now` (a claim takes it once it is
    /// due); how many there were.
    pub(super) fn release_due(&mut self, now: DateTime<Utc>) -> usize {
        let due: Vec<(Millis, K)> = self
            .0
            .iter()
            .take_while(|(at, _)| *at <= millis(now))
            .cloned()
            .collect();
        for key in &due {
            self.0.remove(key);
        }
        due.len()
    }

    /// When the next task falls due.
    pub(super) fn next_due(&self) -> Option<DateTime<Utc>> {
        self.0.first().map(|(at, _)| instant(*at))
    }
}
