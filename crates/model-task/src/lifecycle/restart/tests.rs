//! Unit tests for `restart`: every policy x outcome x budget, timing, and overflow.

use chrono::TimeZone;
use model_policy::{JitterPolicy, SeededRandom};

use super::*;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap()
}

fn fixed_backoff() -> BackoffPolicy {
    BackoffPolicy::new(JitterPolicy::None, 1_000, 8_000, 2.0).unwrap()
}

/// What the decision should be, written from the rules, not from the code.
fn expected(policy: RestartPolicy, outcome: AttemptOutcome, budget_left: bool) -> &'static str {
    use AttemptOutcome as O;
    use RestartPolicy as P;
    let restart = match (policy, outcome) {
        (_, O::Canceled) | (P::Never, _) => false,
        (P::OnFailure, O::Succeeded) => false,
        (P::OnFailure, _) | (P::Always, _) => true,
        _ => unreachable!(),
    };
    match (restart, budget_left) {
        (false, _) => "final",
        (true, true) => "restart",
        (true, false) => "exhausted",
    }
}

#[test]
fn every_policy_outcome_and_budget() {
    let policies = [
        RestartPolicy::Never,
        RestartPolicy::OnFailure,
        RestartPolicy::Always,
    ];
    // (max_retries, attempts_used, budget left?)
    let budgets = [
        (None, 1, true),
        (None, 1_000, true),
        (Some(0), 1, false),
        (Some(3), 1, true),
        (Some(3), 3, true),
        (Some(3), 4, false),
        (Some(3), 9, false),
    ];
    for policy in policies {
        for outcome in AttemptOutcome::ALL {
            for (max_retries, used, left) in budgets {
                let mut rng = SeededRandom::new(9);
                let got = decide_restart(
                    policy,
                    max_retries,
                    &fixed_backoff(),
                    outcome,
                    used,
                    None,
                    &mut rng,
                    now(),
                )
                .unwrap();
                let case = format!("{policy} {outcome:?} max={max_retries:?} used={used}");
                match (expected(policy, outcome, left), got) {
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
                        assert_eq!(retry, used, "{case}");
                        let want_delay = (1_000u64 << (used - 1).min(10)).min(8_000);
                        assert_eq!(delay_ms, want_delay, "{case}");
                        assert_eq!(
                            at,
                            now() + TimeDelta::milliseconds(want_delay as i64),
                            "{case}"
                        );
                    }
                    (want, got) => panic!("{case}: want {want}, got {got:?}"),
                }
                assert_eq!(
                    got.phase(),
                    match got {
                        RestartDecision::Restart { .. } => TaskPhase::Pending,
                        RestartDecision::Final(p) => p,
                        RestartDecision::Exhausted => TaskPhase::Exhausted,
                    }
                );
            }
        }
    }
}

#[test]
fn delays_follow_the_backoff_and_the_random_source() {
    let jittered = BackoffPolicy::new(JitterPolicy::Full, 1_000, 30_000, 2.0).unwrap();
    let decide = |seed, used| {
        decide_restart(
            RestartPolicy::Always,
            None,
            &jittered,
            AttemptOutcome::Failed,
            used,
            None,
            &mut SeededRandom::new(seed),
            now(),
        )
        .unwrap()
    };
    // Same source, same decision; the delay is what the backoff policy computes.
    assert_eq!(decide(5, 3), decide(5, 3));
    let RestartDecision::Restart { delay_ms, at, .. } = decide(5, 3) else {
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
fn previous_delay_reaches_decorrelated_jitter() {
    let backoff = BackoffPolicy::new(JitterPolicy::Decorrelated, 100, 100_000, 2.0).unwrap();
    for previous in [None, Some(100), Some(5_000), Some(90_000)] {
        let got = decide_restart(
            RestartPolicy::Always,
            None,
            &backoff,
            AttemptOutcome::Timeout,
            2,
            previous,
            &mut SeededRandom::new(3),
            now(),
        )
        .unwrap();
        let want = backoff.delay_ms(2, previous, &mut SeededRandom::new(3));
        assert!(
            matches!(got, RestartDecision::Restart { delay_ms, .. } if delay_ms == want),
            "{previous:?}"
        );
    }
}

#[test]
fn no_random_numbers_without_a_restart() {
    struct Counting(u32);
    impl RandomSource for Counting {
        fn next_u64(&mut self) -> u64 {
            self.0 += 1;
            7
        }
    }
    let backoff = BackoffPolicy::new(JitterPolicy::Full, 1_000, 30_000, 2.0).unwrap();
    let mut rng = Counting(0);
    decide_restart(
        RestartPolicy::Never,
        None,
        &backoff,
        AttemptOutcome::Failed,
        1,
        None,
        &mut rng,
        now(),
    )
    .unwrap();
    decide_restart(
        RestartPolicy::Always,
        Some(0),
        &backoff,
        AttemptOutcome::Failed,
        1,
        None,
        &mut rng,
        now(),
    )
    .unwrap();
    assert_eq!(rng.0, 0);
    decide_restart(
        RestartPolicy::Always,
        None,
        &backoff,
        AttemptOutcome::Failed,
        1,
        None,
        &mut rng,
        now(),
    )
    .unwrap();
    assert!(rng.0 > 0);
}

#[test]
fn attempt_numbers_never_overflow() {
    let got = decide_restart(
        RestartPolicy::Always,
        None,
        &fixed_backoff(),
        AttemptOutcome::Failed,
        u32::MAX,
        None,
        &mut SeededRandom::new(1),
        now(),
    )
    .unwrap();
    assert_eq!(got, RestartDecision::Exhausted);
    let got = decide_restart(
        RestartPolicy::Always,
        None,
        &fixed_backoff(),
        AttemptOutcome::Failed,
        u32::MAX - 1,
        None,
        &mut SeededRandom::new(1),
        now(),
    )
    .unwrap();
    assert!(matches!(got, RestartDecision::Restart { retry, .. } if retry == u32::MAX - 1));
    // Zero attempts counts as one.
    let got = decide_restart(
        RestartPolicy::Always,
        Some(0),
        &fixed_backoff(),
        AttemptOutcome::Failed,
        0,
        None,
        &mut SeededRandom::new(1),
        now(),
    )
    .unwrap();
    assert_eq!(got, RestartDecision::Exhausted);
}

#[test]
fn time_overflow_is_an_error() {
    let end = DateTime::<Utc>::MAX_UTC;
    let err = decide_restart(
        RestartPolicy::Always,
        None,
        &fixed_backoff(),
        AttemptOutcome::Failed,
        1,
        None,
        &mut SeededRandom::new(1),
        end,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            TaskError::TimeOverflow {
                delay_ms: 1_000,
                ..
            }
        ),
        "{err:?}"
    );
}
