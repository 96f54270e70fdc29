//! Unit tests for `BackoffSchedule`: bookkeeping, size and the end after retry `u32::MAX`.

use super::*;
use crate::{JitterPolicy, SeededRandom};

#[test]
fn starts_at_retry_one_and_counts_up() {
    let mut schedule = BackoffPolicy::default().schedule(SeededRandom::new(3));
    assert_eq!(
        (schedule.next_retry(), schedule.previous_ms()),
        (Some(1), None)
    );
    let first = schedule.next();
    assert_eq!(
        (schedule.next_retry(), schedule.previous_ms()),
        (Some(2), first)
    );
    assert_eq!(schedule.size_hint().1, usize::try_from(u32::MAX - 1).ok());
}

#[test]
fn ends_after_the_last_retry_and_stays_ended() {
    let policy = BackoffPolicy::default().with_jitter(JitterPolicy::None);
    let mut schedule = policy.schedule(SeededRandom::new(0));
    schedule.next_retry = Some(u32::MAX - 1);
    assert_eq!(schedule.size_hint(), (2, Some(2)));
    assert_eq!(schedule.next(), Some(30_000));
    assert_eq!(schedule.next(), Some(30_000));
    assert_eq!(schedule.size_hint(), (0, Some(0)));
    assert_eq!(schedule.next(), None);
    assert_eq!(schedule.next(), None);
    assert_eq!(schedule.next_retry(), None);
}

#[test]
fn matches_manual_calls_that_keep_the_previous_delay() {
    let policy = BackoffPolicy::default().with_jitter(JitterPolicy::Decorrelated);
    let scheduled: Vec<u64> = policy.schedule(SeededRandom::new(11)).take(20).collect();
    let mut rng = SeededRandom::new(11);
    let mut previous = None;
    let manual: Vec<u64> = (1..=20)
        .map(|retry| {
            let delay = policy.delay_ms(retry, previous, &mut rng);
            previous = Some(delay);
            delay
        })
        .collect();
    assert_eq!(scheduled, manual);
}

#[test]
fn borrowing_the_generator_advances_it() {
    let policy = BackoffPolicy::default();
    let mut rng = SeededRandom::new(8);
    let first: Vec<u64> = policy.schedule(&mut rng).take(3).collect();
    let second: Vec<u64> = policy.schedule(&mut rng).take(3).collect();
    let mut fresh = SeededRandom::new(8);
    let mut whole = policy.schedule(&mut fresh);
    let expected_first: Vec<u64> = whole.by_ref().take(3).collect();
    assert_eq!(first, expected_first);
    // The second schedule restarts at retry 1 but continues the random sequence.
    let mut restarted = policy.schedule(whole.into_source());
    let expected_second: Vec<u64> = restarted.by_ref().take(3).collect();
    assert_eq!(second, expected_second);
}
