//! `BackoffSchedule`: the delays before retry 1, 2, 3, ... of one policy, as an iterator.

use std::iter::FusedIterator;

use crate::backoff::BackoffPolicy;
use crate::random::RandomSource;

impl BackoffPolicy {
    /// The delays before retry 1, 2, 3, ... up to retry `u32::MAX`, drawing from `rng`.
    ///
    /// The schedule carries the previous delay for [`JitterPolicy::Decorrelated`](crate::JitterPolicy::Decorrelated),
    /// so its items are exactly what successive [`delay_ms`](Self::delay_ms) calls return when
    /// the caller keeps the previous delay. Pass `&mut rng` to keep using a [`SeededRandom`](crate::SeededRandom)
    /// afterwards, or a closure to borrow any other source.
    ///
    /// ```
    /// use model_policy::{BackoffPolicy, JitterPolicy, SeededRandom};
    ///
    /// let policy = BackoffPolicy::default().with_jitter(JitterPolicy::None);
    /// let delays: Vec<u64> = policy.schedule(SeededRandom::new(1)).take(7).collect();
    /// assert_eq!(delays, [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    ///
    /// // The same seed gives the same jittered schedule.
    /// let jittered = BackoffPolicy::default();
    /// let a: Vec<u64> = jittered.schedule(SeededRandom::new(9)).take(5).collect();
    /// let b: Vec<u64> = jittered.schedule(SeededRandom::new(9)).take(5).collect();
    /// assert_eq!(a, b);
    /// ```
    pub fn schedule<R: RandomSource>(&self, rng: R) -> BackoffSchedule<R> {
        BackoffSchedule {
            policy: *self,
            rng,
            next_retry: Some(1),
            previous_ms: None,
        }
    }
}

/// The delays of a [`BackoffPolicy`] for retry 1, 2, 3, ..., made by [`BackoffPolicy::schedule`].
///
/// It yields one delay in milliseconds per retry and ends after retry `u32::MAX`.
#[derive(Debug, Clone)]
pub struct BackoffSchedule<R> {
    policy: BackoffPolicy,
    rng: R,
    next_retry: Option<u32>,
    previous_ms: Option<u64>,
}

impl<R> BackoffSchedule<R> {
    /// The retry whose delay the next item is, or `None` when the schedule has ended.
    #[must_use]
    pub const fn next_retry(&self) -> Option<u32> {
        self.next_retry
    }

    /// The delay yielded last, or `None` before the first.
    #[must_use]
    pub const fn previous_ms(&self) -> Option<u64> {
        self.previous_ms
    }

    /// The random source, with whatever state it has reached.
    pub fn into_source(self) -> R {
        self.rng
    }
}

impl<R: RandomSource> Iterator for BackoffSchedule<R> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let retry = self.next_retry?;
        let delay = self.policy.delay_ms(retry, self.previous_ms, &mut self.rng);
        self.next_retry = retry.checked_add(1);
        self.previous_ms = Some(delay);
        Some(delay)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let remaining = self
            .next_retry
            .map_or(0, |retry| u64::from(u32::MAX - retry) + 1);
        match usize::try_from(remaining) {
            Ok(remaining) => (remaining, Some(remaining)),
            Err(_) => (usize::MAX, None),
        }
    }
}

impl<R: RandomSource> FusedIterator for BackoffSchedule<R> {}

#[cfg(test)]
mod tests;
