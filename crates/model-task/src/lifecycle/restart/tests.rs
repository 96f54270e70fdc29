//! Unit tests for `restart`: every policy x outcome x budget, what a success of an `always`
//! task waits and spends, timing, and overflow.

use chrono::TimeZone;
use model_policy::{JitterPolicy, SeededRandom};

use super::*;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap()
}

fn fixed_backoff() -> BackoffPolicy {
    BackoffPolicy::new(JitterPolicy::None, 1_000, 8_000, 2.0).unwrap()
}

/// `attempts` run, `failures` in a row before the last one, no delay yet.
fn history(attempts: u32, failures: u32) -> RestartHistory {
    RestartHistory {
        attempts,
        failures_in_a_row: failures,
        last_delay_ms: None,
    }
}

fn decide(
    policy: RestartPolicy,
    max_retries: Option<u32>,
    outcome: AttemptOutcome,
    history: RestartHistory,
) -> RestartDecision {
    decide_restart(
        policy,
        max_retries,
        &fixed_backoff(),
        outcome,
        history,
        &mut SeededRandom::new(9),
        now(),
    )
    .unwrap()
}

/// What the decision should be, written from the rules, not from the code.
fn expected(
    policy: RestartPolicy,
    outcome: AttemptOutcome,
    max_retries: Option<u32>,
    failures_before: u32,
) -> &'static str {
    use AttemptOutcome as O;
    use RestartPolicy as P;
    let restart = match (policy, outcome) {
        (_, O::Canceled) | (P::Never, _) => false,
        (P::OnFailure, O::Succeeded) => false,
        (P::OnFailure, _) | (P::Always { .. }, _) => true,
        _ => unreachable!(),
    };
    // A success spends no retry; a failure is one more in a row.
    let spent = outcome != O::Succeeded && max_retries.is_some_and(|m| failures_before + 1 > m);
    match (restart, spent) {
        (false, _) => "final",
        (true, false) => "restart",
        (true, true) => "exhausted",
    }
}

#[test]
fn every_policy_outcome_and_budget() {
    let policies = [
        RestartPolicy::Never,
        RestartPolicy::OnFailure,
        RestartPolicy::always(),
        RestartPolicy::periodic(60_000).unwrap(),
    ];
    // (max_retries, attempts run, failures in a row before the last)
    let budgets = [
        (None, 1, 0),
        (None, 1_000, 999),
        (Some(0), 1, 0),
        (Some(3), 1, 0),
        (Some(3), 3, 2),
        (Some(3), 4, 3),
        (Some(3), 9, 8),
        // Many attempts, few failures in a row: successes in between spent nothing.
        (Some(1), 50, 0),
        (Some(1), 50, 1),
    ];
    for policy in policies {
        for outcome in AttemptOutcome::ALL {
            for (max_retries, attempts, failures) in budgets {
                let got = decide(policy, max_retries, outcome, history(attempts, failures));
                let case =
                    format!("{policy} {outcome:?} max={max_retries:?} {attempts}/{failures}");
                match (expected(policy, outcome, max_retries, failures), got) {
                    ("final", RestartDecision::Final(phase)) => {
                        assert_eq!(phase, outcome.phase(), "{case}");
                        assert!(phase.is_final(), "{case}");
                    }
                    ("exhausted", RestartDecision::Exhausted) => {}
                    (
                        "restart",
                        RestartDecision::Restart {
                            retry,
                            delay_ms,
                            at,
                        },
                    ) => {
                        let (want_retry, want_delay) = match (outcome, policy.interval()) {
                            (AttemptOutcome::Succeeded, Some(interval)) => (0, interval.as_ms()),
                            (AttemptOutcome::Succeeded, None) => (0, 1_000),
                            _ => (failures + 1, (1_000u64 << failures.min(10)).min(8_000)),
                        };
                        assert_eq!((retry, delay_ms), (want_retry, want_delay), "{case}");
                        assert_eq!(
                            at,
                            now() + TimeDelta::milliseconds(want_delay as i64),
                            "{case}"
                        );
                    }
                    (want, got) => panic!("{case}: want {want}, got {got:?}"),
                }
            }
        }
    }
}

#[test]
fn failures_in_a_row_count_failures_and_timeouts_and_a_success_starts_again() {
    let h = history(7, 2);
    assert_eq!(h.failures_after(AttemptOutcome::Failed), 3);
    assert_eq!(h.failures_after(AttemptOutcome::Timeout), 3);
    assert_eq!(h.failures_after(AttemptOutcome::Succeeded), 0);
    assert_eq!(h.failures_after(AttemptOutcome::Canceled), 2);
    assert_eq!(
        history(1, u32::MAX).failures_after(AttemptOutcome::Failed),
        u32::MAX
    );
    assert_eq!(RestartHistory::first(), history(1, 0));
}

#[test]
fn delays_follow_the_backoff_and_the_random_source() {
    let jittered = BackoffPolicy::new(JitterPolicy::Full, 1_000, 30_000, 2.0).unwrap();
    let decide = |seed, failures| {
        decide_restart(
            RestartPolicy::always(),
            None,
            &jittered,
            AttemptOutcome::Failed,
            history(9, failures),
            &mut SeededRandom::new(seed),
            now(),
        )
        .unwrap()
    };
    // Same source, same decision; the delay is what the backoff policy computes for the
    // failures in a row.
    assert_eq!(decide(5, 2), decide(5, 2));
    let RestartDecision::Restart { delay_ms, at, .. } = decide(5, 2) else {
        panic!()
    };
    assert_eq!(
        delay_ms,
        jittered.delay_ms(3, None, &mut SeededRandom::new(5))
    );
    assert!(delay_ms <= 4_000);
    assert_eq!(at - now(), TimeDelta::milliseconds(delay_ms as i64));
}

#[test]
fn the_previous_delay_reaches_decorrelated_jitter_within_a_run_of_failures() {
    let backoff = BackoffPolicy::new(JitterPolicy::Decorrelated, 100, 100_000, 2.0).unwrap();
    for (failures, previous, reaches) in [
        (1, Some(100), true),
        (1, Some(5_000), true),
        (3, Some(90_000), true),
        (1, None, true),
        // After a success the run starts again: the delay before it is not grown from.
        (0, Some(90_000), false),
    ] {
        let got = decide_restart(
            RestartPolicy::always(),
            None,
            &backoff,
            AttemptOutcome::Timeout,
            RestartHistory {
                attempts: 5,
                failures_in_a_row: failures,
                last_delay_ms: previous,
            },
            &mut SeededRandom::new(3),
            now(),
        )
        .unwrap();
        let from = if reaches { previous } else { None };
        let want = backoff.delay_ms(failures + 1, from, &mut SeededRandom::new(3));
        assert!(
            matches!(got, RestartDecision::Restart { delay_ms, .. } if delay_ms == want),
            "{failures} {previous:?}: {got:?}"
        );
    }
}

#[test]
fn random_numbers_only_for_a_backoff_delay() {
    struct Counting(u32);
    impl RandomSource for Counting {
        fn next_u64(&mut self) -> u64 {
            self.0 += 1;
            7
        }
    }
    let backoff = BackoffPolicy::new(JitterPolicy::Full, 1_000, 30_000, 2.0).unwrap();
    let draws = |policy, max, outcome| {
        let mut rng = Counting(0);
        decide_restart(
            policy,
            max,
            &backoff,
            outcome,
            history(1, 0),
            &mut rng,
            now(),
        )
        .unwrap();
        rng.0
    };
    assert_eq!(draws(RestartPolicy::Never, None, AttemptOutcome::Failed), 0);
    assert_eq!(
        draws(RestartPolicy::always(), Some(0), AttemptOutcome::Failed),
        0
    );
    let periodic = RestartPolicy::periodic(5_000).unwrap();
    assert_eq!(draws(periodic, None, AttemptOutcome::Succeeded), 0);
    assert!(draws(RestartPolicy::always(), None, AttemptOutcome::Failed) > 0);
}

#[test]
fn attempt_numbers_never_overflow() {
    let always = RestartPolicy::always();
    assert_eq!(
        decide(always, None, AttemptOutcome::Failed, history(u32::MAX, 0)),
        RestartDecision::Exhausted
    );
    assert_eq!(
        decide(
            always,
            None,
            AttemptOutcome::Succeeded,
            history(u32::MAX, 0)
        ),
        RestartDecision::Exhausted
    );
    let got = decide(
        always,
        None,
        AttemptOutcome::Failed,
        history(u32::MAX - 1, u32::MAX - 2),
    );
    assert!(matches!(got, RestartDecision::Restart { retry, .. } if retry == u32::MAX - 1));
    // Zero attempts, zero budget: the failure is one too many.
    assert_eq!(
        decide(always, Some(0), AttemptOutcome::Failed, history(0, 0)),
        RestartDecision::Exhausted
    );
}

#[test]
fn time_overflow_is_an_error() {
    for (policy, outcome, delay) in [
        (RestartPolicy::always(), AttemptOutcome::Failed, 1_000),
        (
            RestartPolicy::periodic(7).unwrap(),
            AttemptOutcome::Succeeded,
            7,
        ),
    ] {
        let err = decide_restart(
            policy,
            None,
            &fixed_backoff(),
            outcome,
            history(1, 0),
            &mut SeededRandom::new(1),
            DateTime::<Utc>::MAX_UTC,
        )
        .unwrap_err();
        assert!(
            matches!(err, TaskError::TimeOverflow { delay_ms, .. } if delay_ms == delay),
            "{err:?}"
        );
    }
}
