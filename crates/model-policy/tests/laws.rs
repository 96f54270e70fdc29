//! Property tests for the laws of model-policy, through the public API only.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use model_policy::{
    AdmissionPolicy, BackoffPolicy, JitterPolicy, MAX_BACKOFF_MS, PolicyError, RestartPolicy,
    SeededRandom,
};
use proptest::prelude::*;
use proptest::sample::select;

fn jitter() -> impl Strategy<Value = JitterPolicy> {
    select(JitterPolicy::ALL)
}

fn factor() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(1.0),
        Just(2.0),
        1.0..=1.000_001_f64,
        1.0..=10.0_f64,
        10.0..=1e300_f64,
        Just(f64::MAX),
    ]
}

fn first_ms() -> impl Strategy<Value = u64> {
    prop_oneof![
        1..=10_u64,
        1..=100_000_u64,
        1..=MAX_BACKOFF_MS,
        Just(MAX_BACKOFF_MS)
    ]
}

/// Any valid policy, with the boundaries (first == max, max == cap, factor 1) well represented.
fn policy_with(
    jitter: impl Strategy<Value = JitterPolicy>,
) -> impl Strategy<Value = BackoffPolicy> {
    (jitter, first_ms(), factor())
        .prop_flat_map(|(jitter, first, factor)| {
            let max = prop_oneof![Just(first), first..=MAX_BACKOFF_MS, Just(MAX_BACKOFF_MS)];
            (Just(jitter), Just(first), max, Just(factor))
        })
        .prop_map(|(jitter, first, max, factor)| {
            BackoffPolicy::new(jitter, first, max, factor)
                .expect("the strategy yields valid policies")
        })
}

fn policy() -> impl Strategy<Value = BackoffPolicy> {
    policy_with(jitter())
}

fn retry() -> impl Strategy<Value = u32> {
    prop_oneof![0..=80_u32, any::<u32>(), Just(u32::MAX), Just(u32::MAX - 1)]
}

fn previous() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        Just(None),
        any::<u64>().prop_map(Some),
        (0..=MAX_BACKOFF_MS).prop_map(Some)
    ]
}

/// Any source: a cycle of draws in which the extremes are common.
fn draws() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(prop_oneof![Just(0), Just(u64::MAX), any::<u64>()], 1..8)
}

fn source(draws: &[u64]) -> impl FnMut() -> u64 + '_ {
    let mut next = draws.iter().copied().cycle();
    move || next.next().unwrap_or(0)
}

/// `exp(n)` computed with integers, for factor 2: `min(max, first * 2^(n-1))`.
fn doubling(first: u64, max: u64, retry: u32) -> u64 {
    let shift = retry.max(1) - 1;
    match first.checked_shl(shift) {
        Some(value) if shift < 64 && value >> shift == first => value.min(max),
        _ => max,
    }
}

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn delay_never_exceeds_max(policy in policy(), retry in retry(), previous in previous(), draws in draws()) {
        let delay = policy.delay_ms(retry, previous, &mut source(&draws));
        prop_assert!(delay <= policy.max_ms());
    }

    #[test]
    fn base_delay_is_within_first_and_max(policy in policy(), retry in retry()) {
        let exp = policy.base_delay_ms(retry);
        prop_assert!(policy.first_ms() <= exp && exp <= policy.max_ms(), "{exp}");
    }

    #[test]
    fn none_is_non_decreasing(policy in policy_with(Just(JitterPolicy::None)), a in retry(), b in retry(), draws in draws()) {
        let (low, high) = (a.min(b), a.max(b));
        let mut rng = source(&draws);
        prop_assert!(policy.delay_ms(low, None, &mut rng) <= policy.delay_ms(high, None, &mut rng));
        prop_assert_eq!(policy.delay_ms(high, None, &mut rng), policy.base_delay_ms(high));
    }

    #[test]
    fn none_reaches_the_cap(policy in policy_with(Just(JitterPolicy::None)).prop_filter("grows", |p| p.factor() >= 1.001)) {
        prop_assert_eq!(policy.delay_ms(u32::MAX, None, &mut || 0), policy.max_ms());
    }

    #[test]
    fn doubling_is_exact(first in first_ms(), extra in 0..=MAX_BACKOFF_MS, retry in retry()) {
        let max = first.saturating_add(extra).min(MAX_BACKOFF_MS);
        let policy = BackoffPolicy::new(JitterPolicy::None, first, max, 2.0).unwrap();
        prop_assert_eq!(policy.base_delay_ms(retry), doubling(first, max, retry));
    }

    #[test]
    fn full_stays_in_its_band(policy in policy_with(Just(JitterPolicy::Full)), retry in retry(), draws in draws()) {
        let delay = policy.delay_ms(retry, None, &mut source(&draws));
        prop_assert!(delay <= policy.base_delay_ms(retry));
    }

    #[test]
    fn equal_stays_in_its_band(policy in policy_with(Just(JitterPolicy::Equal)), retry in retry(), draws in draws()) {
        let exp = policy.base_delay_ms(retry);
        let delay = policy.delay_ms(retry, None, &mut source(&draws));
        prop_assert!(exp / 2 <= delay && delay <= exp, "{delay} outside [{}, {exp}]", exp / 2);
    }

    #[test]
    fn decorrelated_stays_in_its_band(policy in policy_with(Just(JitterPolicy::Decorrelated)), retry in retry(), previous in previous(), draws in draws()) {
        let delay = policy.delay_ms(retry, previous, &mut source(&draws));
        prop_assert!(policy.first_ms() <= delay && delay <= policy.max_ms());
        let clamped = previous.unwrap_or(policy.first_ms()).clamp(policy.first_ms(), policy.max_ms());
        prop_assert!(delay <= clamped.saturating_mul(3));
    }

    #[test]
    fn same_seed_same_schedule(policy in policy(), seed in any::<u64>()) {
        let a: Vec<u64> = policy.schedule(SeededRandom::new(seed)).take(40).collect();
        let b: Vec<u64> = policy.schedule(SeededRandom::new(seed)).take(40).collect();
        prop_assert_eq!(&a, &b);
        prop_assert!(a.iter().all(|&delay| delay <= policy.max_ms()));
    }

    #[test]
    fn same_source_same_delay(policy in policy(), retry in retry(), previous in previous(), draws in draws()) {
        prop_assert_eq!(
            policy.delay_ms(retry, previous, &mut source(&draws)),
            policy.delay_ms(retry, previous, &mut source(&draws)),
        );
    }

    #[test]
    fn backoff_serde_round_trips(policy in policy()) {
        let json = serde_json::to_string(&policy).unwrap();
        let back: BackoffPolicy = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, policy);
        prop_assert_eq!(hash_of(&back), hash_of(&policy));
    }

    #[test]
    fn eq_implies_same_hash(a in policy_with(select(&[JitterPolicy::None, JitterPolicy::Full][..])), b in policy_with(select(&[JitterPolicy::None, JitterPolicy::Full][..]))) {
        let rebuilt = BackoffPolicy::new(a.jitter(), a.first_ms(), a.max_ms(), a.factor()).unwrap();
        prop_assert_eq!(rebuilt, a);
        prop_assert_eq!(hash_of(&rebuilt), hash_of(&a));
        let same_fields = (a.jitter(), a.first_ms(), a.max_ms(), a.factor().to_bits())
            == (b.jitter(), b.first_ms(), b.max_ms(), b.factor().to_bits());
        prop_assert_eq!(a == b, same_fields);
        if a == b {
            prop_assert_eq!(hash_of(&a), hash_of(&b));
        }
    }
}

/// The spellings `FromStr` must accept for a camelCase wire form, derived here from the wire
/// form alone: the exact form, lower, upper, PascalCase, kebab-case and snake_case.
fn spellings(wire: &str) -> Vec<String> {
    let mut pascal = wire.to_owned();
    if let Some(first) = pascal.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    let separated = |separator: char| {
        wire.chars()
            .flat_map(|c| {
                let lead = c.is_ascii_uppercase().then_some(separator);
                lead.into_iter()
                    .chain(std::iter::once(c.to_ascii_lowercase()))
            })
            .collect::<String>()
    };
    vec![
        wire.to_owned(),
        wire.to_ascii_lowercase(),
        wire.to_ascii_uppercase(),
        pascal,
        separated('-'),
        separated('_'),
        separated('-').to_ascii_uppercase(),
        separated('_').to_ascii_uppercase(),
    ]
}

/// Whether `input` is one of the accepted spellings of `wire`, ignoring ASCII case.
fn accepted(input: &str, wire: &str) -> bool {
    spellings(wire)
        .iter()
        .any(|s| s.eq_ignore_ascii_case(input))
}

fn check_text_round_trip<T>(all: &[T])
where
    T: std::str::FromStr<Err = PolicyError>
        + std::fmt::Display
        + PartialEq
        + std::fmt::Debug
        + Copy,
{
    for &value in all {
        let wire = value.to_string();
        for spelling in spellings(&wire) {
            assert_eq!(spelling.parse::<T>(), Ok(value), "{spelling:?}");
        }
        assert_eq!(wire.parse::<T>().map(|v| v.to_string()), Ok(wire.clone()));
    }
}

#[test]
fn every_variant_round_trips_through_every_spelling() {
    check_text_round_trip(RestartPolicy::ALL);
    check_text_round_trip(JitterPolicy::ALL);
    check_text_round_trip(AdmissionPolicy::ALL);
}

#[test]
fn every_variant_round_trips_through_json() {
    fn check<T>(all: &[T])
    where
        T: serde::Serialize
            + serde::de::DeserializeOwned
            + std::fmt::Display
            + PartialEq
            + std::fmt::Debug,
    {
        for value in all {
            let json = serde_json::to_string(value).unwrap();
            assert_eq!(json, format!("\"{value}\""));
            assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), value);
        }
    }
    check(RestartPolicy::ALL);
    check(JitterPolicy::ALL);
    check(AdmissionPolicy::ALL);
}

/// Strings near the accepted ones: wire forms with case flips, separators inserted, letters cut.
fn near_miss() -> impl Strategy<Value = String> {
    let wires: Vec<&'static str> = RestartPolicy::ALL
        .iter()
        .map(|p| p.name())
        .chain(JitterPolicy::ALL.iter().map(|p| p.as_str()))
        .chain(AdmissionPolicy::ALL.iter().map(|p| p.as_str()))
        .collect();
    (
        select(wires),
        prop::collection::vec((any::<bool>(), 0..6_u8), 0..16),
    )
        .prop_map(|(wire, edits)| {
            let mut out = String::new();
            for (index, c) in wire.chars().enumerate() {
                let (flip, op) = edits.get(index).copied().unwrap_or((false, 0));
                match op {
                    1 => out.push('-'),
                    2 => out.push('_'),
                    3 => continue,
                    _ => {}
                }
                out.push(if flip { c.to_ascii_uppercase() } else { c });
            }
            out
        })
}

proptest! {
    #[test]
    fn restart_parse_accepts_exactly_the_spellings(input in prop_oneof![near_miss(), "[a-zA-Z_-]{0,20}", any::<String>()]) {
        // The name, then for always an optional ":" and an interval in milliseconds.
        let (name, interval) = match input.split_once(':') {
            Some((name, interval)) => (name, Some(interval)),
            None => (input.as_str(), None),
        };
        let named = RestartPolicy::ALL.iter().copied().find(|p| accepted(name, p.name()));
        let expected = match (named, interval) {
            (named, None) => named,
            (Some(RestartPolicy::Always { .. }), Some(ms)) => {
                ms.parse::<u64>().ok().and_then(|ms| RestartPolicy::periodic(ms).ok())
            }
            _ => None,
        };
        match input.parse::<RestartPolicy>() {
            Ok(value) => prop_assert_eq!(Some(value), expected),
            Err(PolicyError::UnknownRestart { input: quoted }) => {
                prop_assert_eq!(expected, None);
                prop_assert!(input.starts_with(quoted.trim_end_matches('…')));
                prop_assert!(quoted.chars().count() <= model_ids::ERROR_INPUT_MAX_CHARS + 1);
            }
            Err(PolicyError::InvalidInterval { .. } | PolicyError::IntervalNotAllowed { .. }) => {
                prop_assert_eq!(expected, None);
                prop_assert!(interval.is_some());
            }
            Err(other) => prop_assert!(false, "unexpected error {other:?}"),
        }
    }

    #[test]
    fn jitter_parse_accepts_exactly_the_spellings(input in prop_oneof![near_miss(), "[a-zA-Z_-]{0,20}"]) {
        let expected = JitterPolicy::ALL.iter().copied().find(|p| accepted(&input, p.as_str()));
        prop_assert_eq!(input.parse::<JitterPolicy>().ok(), expected);
    }

    #[test]
    fn admission_parse_accepts_exactly_the_spellings(input in prop_oneof![near_miss(), "[a-zA-Z_-]{0,20}"]) {
        let expected = AdmissionPolicy::ALL.iter().copied().find(|p| accepted(&input, p.as_str()));
        match input.parse::<AdmissionPolicy>() {
            Ok(value) => prop_assert_eq!(Some(value), expected),
            Err(err) => {
                prop_assert_eq!(expected, None);
                let message = err.to_string();
                prop_assert!(message.ends_with("expected one of dropIfRunning, replace, queue"), "{message}");
            }
        }
    }

    #[test]
    fn deserialize_accepts_exactly_the_wire_form(input in prop_oneof![near_miss(), "[a-zA-Z_-]{0,20}"]) {
        let json = serde_json::to_string(&input).unwrap();
        let expected = RestartPolicy::ALL.iter().copied().find(|p| p.name() == input);
        prop_assert_eq!(serde_json::from_str::<RestartPolicy>(&json).ok(), expected);
    }
}

proptest! {
    /// Every restart policy, periodic ones included, reads back from its text and its JSON.
    #[test]
    fn restart_policies_round_trip_through_text_and_json(
        interval in prop_oneof![Just(None), (1..=model_policy::MAX_RESTART_INTERVAL_MS).prop_map(Some)],
        which in 0..3_usize,
    ) {
        let policy = match (which, interval) {
            (0, _) => RestartPolicy::Never,
            (1, _) => RestartPolicy::OnFailure,
            (_, None) => RestartPolicy::always(),
            (_, Some(ms)) => RestartPolicy::periodic(ms).unwrap(),
        };
        prop_assert_eq!(policy.to_string().parse::<RestartPolicy>(), Ok(policy));
        let json = serde_json::to_string(&policy).unwrap();
        prop_assert_eq!(serde_json::from_str::<RestartPolicy>(&json).unwrap(), policy);
        prop_assert_eq!(json.starts_with('{'), policy.interval().is_some());
    }
}
