//! Unit tests for `BackoffPolicy`: validation, exact delays, pinned seeded values, the wire form.

use super::*;
use crate::SeededRandom;

fn policy(jitter: JitterPolicy, first_ms: u64, max_ms: u64, factor: f64) -> BackoffPolicy {
    BackoffPolicy::new(jitter, first_ms, max_ms, factor).unwrap()
}

fn check_new(
    first_ms: u64,
    max_ms: u64,
    factor: f64,
    expected: Result<(), (&str, BackoffViolation)>,
) {
    let got = BackoffPolicy::new(JitterPolicy::None, first_ms, max_ms, factor)
        .map(|_| ())
        .map_err(|err| match err {
            PolicyError::InvalidBackoff { field, reason } => (field, reason),
            other => panic!("unexpected error {other:?}"),
        });
    assert_eq!(got, expected, "new({first_ms}, {max_ms}, {factor})");
}

#[test]
fn constructor_enforces_each_rule_at_its_boundary() {
    use BackoffViolation::*;
    let cap = MAX_BACKOFF_MS;
    check_new(1, 1, 1.0, Ok(()));
    check_new(1000, 30_000, 2.0, Ok(()));
    check_new(cap, cap, 1.0, Ok(()));
    check_new(1, cap, f64::MAX, Ok(()));
    check_new(0, 1, 2.0, Err(("firstMs", Zero)));
    check_new(0, 0, 2.0, Err(("firstMs", Zero)));
    check_new(
        cap + 1,
        cap + 1,
        2.0,
        Err((
            "firstMs",
            AboveCap {
                value: cap + 1,
                cap,
            },
        )),
    );
    check_new(
        u64::MAX,
        u64::MAX,
        2.0,
        Err((
            "firstMs",
            AboveCap {
                value: u64::MAX,
                cap,
            },
        )),
    );
    check_new(
        10,
        9,
        2.0,
        Err((
            "maxMs",
            BelowFirst {
                max_ms: 9,
                first_ms: 10,
            },
        )),
    );
    check_new(
        10,
        0,
        2.0,
        Err((
            "maxMs",
            BelowFirst {
                max_ms: 0,
                first_ms: 10,
            },
        )),
    );
    check_new(
        1,
        cap + 1,
        2.0,
        Err((
            "maxMs",
            AboveCap {
                value: cap + 1,
                cap,
            },
        )),
    );
    check_new(
        1,
        2,
        f64::NAN,
        Err(("factor", NotFinite { factor: f64::NAN })),
    );
    check_new(
        1,
        2,
        f64::INFINITY,
        Err((
            "factor",
            NotFinite {
                factor: f64::INFINITY,
            },
        )),
    );
    check_new(
        1,
        2,
        f64::NEG_INFINITY,
        Err((
            "factor",
            NotFinite {
                factor: f64::NEG_INFINITY,
            },
        )),
    );
    check_new(1, 2, 0.5, Err(("factor", BelowOne { factor: 0.5 })));
    check_new(1, 2, 0.0, Err(("factor", BelowOne { factor: 0.0 })));
    check_new(1, 2, -2.0, Err(("factor", BelowOne { factor: -2.0 })));
    check_new(
        1,
        2,
        1.0 - f64::EPSILON,
        Err((
            "factor",
            BelowOne {
                factor: 1.0 - f64::EPSILON,
            },
        )),
    );
}

#[test]
fn cap_is_seven_days() {
    assert_eq!(MAX_BACKOFF_MS, 604_800_000);
}

#[test]
fn default_policy() {
    let p = BackoffPolicy::default();
    assert_eq!(
        (p.jitter(), p.first_ms(), p.max_ms(), p.factor()),
        (JitterPolicy::Full, 1000, 30_000, 2.0)
    );
    // The default passes its own validation.
    assert_eq!(
        BackoffPolicy::new(p.jitter(), p.first_ms(), p.max_ms(), p.factor()),
        Ok(p)
    );
}

fn check_base(p: BackoffPolicy, retry: u32, expected: u64) {
    assert_eq!(
        p.base_delay_ms(retry),
        expected,
        "base_delay_ms({retry}) of {p:?}"
    );
}

#[test]
fn base_delay_doubling_is_exact_and_capped() {
    let p = policy(JitterPolicy::None, 1000, 30_000, 2.0);
    for (retry, expected) in [
        (1, 1000),
        (2, 2000),
        (3, 4000),
        (4, 8000),
        (5, 16_000),
        (6, 30_000),
        (7, 30_000),
    ] {
        check_base(p, retry, expected);
    }
    check_base(p, 0, 1000);
    check_base(p, 1_000_000, 30_000);
    check_base(p, u32::MAX, 30_000);
}

#[test]
fn base_delay_edge_policies() {
    // factor 1: constant.
    let flat = policy(JitterPolicy::None, 700, 5000, 1.0);
    check_base(flat, 1, 700);
    check_base(flat, 2, 700);
    check_base(flat, u32::MAX, 700);
    // first == max: constant.
    let pinned = policy(JitterPolicy::None, 5000, 5000, 10.0);
    check_base(pinned, 2, 5000);
    // Rounds to the nearest millisecond: 1000 * 1.5^2 = 2250, 1 * 1.5^2 = 2.25 -> 2, 1 * 1.5^3 = 3.375 -> 3,
    // 1 * 1.5^4 = 5.0625 -> 5, 3 * 1.5 = 4.5 -> 5 (half away from zero).
    check_base(policy(JitterPolicy::None, 1000, 100_000, 1.5), 3, 2250);
    let small = policy(JitterPolicy::None, 1, 100, 1.5);
    check_base(small, 3, 2);
    check_base(small, 4, 3);
    check_base(small, 5, 5);
    check_base(policy(JitterPolicy::None, 3, 100, 1.5), 2, 5);
    // A factor that overflows f64 at once still caps.
    let huge = policy(JitterPolicy::None, 1, MAX_BACKOFF_MS, f64::MAX);
    check_base(huge, 2, MAX_BACKOFF_MS);
    check_base(huge, 3, MAX_BACKOFF_MS);
    check_base(huge, u32::MAX, MAX_BACKOFF_MS);
    // A factor just above 1 barely grows even at the last retry: 1.0000000001^(2^32 - 2) is about 1.536.
    check_base(
        policy(JitterPolicy::None, 1000, 30_000, 1.000_000_000_1),
        u32::MAX,
        1536,
    );
}

#[test]
fn no_jitter_ignores_the_source() {
    let p = policy(JitterPolicy::None, 1000, 30_000, 2.0);
    let mut calls = 0;
    let delay = p.delay_ms(4, Some(123), &mut || {
        calls += 1;
        u64::MAX
    });
    assert_eq!((delay, calls), (8000, 0));
}

#[test]
fn band_edges_for_the_extreme_draws() {
    let full = policy(JitterPolicy::Full, 1000, 30_000, 2.0);
    let equal = full.with_jitter(JitterPolicy::Equal);
    let decorrelated = full.with_jitter(JitterPolicy::Decorrelated);
    let low = &mut || 0;
    let high = &mut || u64::MAX;
    assert_eq!(full.delay_ms(3, None, low), 0);
    assert_eq!(full.delay_ms(3, None, high), 4000);
    assert_eq!(equal.delay_ms(3, None, low), 2000);
    assert_eq!(equal.delay_ms(3, None, high), 4000);
    assert_eq!(decorrelated.delay_ms(9, None, low), 1000);
    assert_eq!(decorrelated.delay_ms(9, None, high), 3000);
    assert_eq!(decorrelated.delay_ms(9, Some(5000), high), 15_000);
    assert_eq!(decorrelated.delay_ms(9, Some(20_000), high), 30_000);
    // A previous delay outside [first_ms, max_ms] is clamped into it.
    assert_eq!(decorrelated.delay_ms(9, Some(0), high), 3000);
    assert_eq!(decorrelated.delay_ms(9, Some(u64::MAX), low), 1000);
    assert_eq!(decorrelated.delay_ms(9, Some(u64::MAX), high), 30_000);
    // Equal with an odd exp(n) still reaches exp(n): 1001 / 2 = 500, plus up to 501.
    let odd = policy(JitterPolicy::Equal, 1001, 1001, 1.0);
    assert_eq!(odd.delay_ms(1, None, low), 500);
    assert_eq!(odd.delay_ms(1, None, high), 1001);
}

// Expected values computed independently with Python integers: SplitMix64 from seed 42 gives
// 0xbdd732262feb6e95, 0x28efe333b266f103, 0x47526757130f9f52, 0x581ce1ff0e4ae394,
// 0x09bc585a244823f2, 0xde4431fa3c80db06; each draw x maps to low + ((x * (high - low + 1)) >> 64).
// Policy: 1000 ms, 30000 ms, factor 2, retries 1..=6 (exp = 1000, 2000, 4000, 8000, 16000, 30000).
const SEED: u64 = 42;

fn seeded_run(jitter: JitterPolicy) -> Vec<u64> {
    let p = policy(jitter, 1000, 30_000, 2.0);
    let mut rng = SeededRandom::new(SEED);
    let mut previous = None;
    (1..=6)
        .map(|retry| {
            let delay = p.delay_ms(retry, previous, &mut rng);
            previous = Some(delay);
            delay
        })
        .collect()
}

#[test]
fn pinned_full_jitter_for_seed_42() {
    assert_eq!(
        seeded_run(JitterPolicy::Full),
        [742, 319, 1114, 2753, 608, 26_047]
    );
}

#[test]
fn pinned_equal_jitter_for_seed_42() {
    assert_eq!(
        seeded_run(JitterPolicy::Equal),
        [871, 1160, 2557, 5377, 8304, 28_024]
    );
}

#[test]
fn pinned_decorrelated_jitter_for_seed_42() {
    assert_eq!(
        seeded_run(JitterPolicy::Decorrelated),
        [2483, 2031, 2419, 3153, 1321, 3573]
    );
}

#[test]
fn equality_and_hash_follow_every_field() {
    use std::collections::hash_map::DefaultHasher;
    fn hash(p: &BackoffPolicy) -> u64 {
        let mut h = DefaultHasher::new();
        p.hash(&mut h);
        h.finish()
    }
    let base = policy(JitterPolicy::Full, 1000, 30_000, 2.0);
    let same = policy(JitterPolicy::Full, 1000, 30_000, 2.0);
    assert_eq!(base, same);
    assert_eq!(hash(&base), hash(&same));
    let others = [
        base.with_jitter(JitterPolicy::Equal),
        policy(JitterPolicy::Full, 1001, 30_000, 2.0),
        policy(JitterPolicy::Full, 1000, 30_001, 2.0),
        policy(JitterPolicy::Full, 1000, 30_000, 2.000_000_000_000_000_4),
    ];
    for other in others {
        assert_ne!(base, other, "{other:?}");
    }
}
