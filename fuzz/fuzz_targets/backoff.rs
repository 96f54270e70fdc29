//! A backoff policy from JSON, and its delays for fuzzer-chosen retries and random numbers.
//!
//! Input: 4 bytes of retry number and 8 bytes of "previous delay" and random value
//! (little-endian), then the policy's JSON. A policy that parses must round-trip through
//! JSON and `BackoffPolicy::new`; its base delay must lie in `[first_ms, max_ms]` and
//! never decrease as the retry grows; each jitter kind must stay in its documented range.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskmodel::policy::{BackoffPolicy, JitterPolicy};

fuzz_target!(|data: &[u8]| {
    let (Some(retry), Some(word), Some(json)) = (
        data.get(..4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes),
        data.get(4..12)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes),
        data.get(12..),
    ) else {
        return;
    };
    let Ok(policy) = serde_json::from_slice::<BackoffPolicy>(json) else {
        return;
    };
    let text = serde_json::to_string(&policy).expect("a policy serializes");
    let back: BackoffPolicy = serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("JSON {text} does not parse back: {err}"));
    assert_eq!(back, policy, "JSON round trip differs: {text}");
    let rebuilt = BackoffPolicy::new(
        policy.jitter(),
        policy.first_ms(),
        policy.max_ms(),
        policy.factor(),
    )
    .unwrap_or_else(|err| panic!("new refuses a parsed policy {text}: {err}"));
    assert_eq!(rebuilt, policy);

    let (first, max) = (policy.first_ms(), policy.max_ms());
    assert!(first >= 1 && first <= max);
    for n in [
        retry,
        retry.wrapping_add(1),
        0,
        1,
        2,
        63,
        64,
        1075,
        u32::MAX - 1,
        u32::MAX,
    ] {
        let base = policy.base_delay_ms(n);
        assert!(
            (first..=max).contains(&base),
            "base {base} out of range at retry {n}"
        );
        if let Some(next) = n.checked_add(1) {
            let later = policy.base_delay_ms(next);
            assert!(
                later >= base,
                "base decreases from retry {n} ({base}) to {next} ({later})"
            );
        }
        for previous in [None, Some(word), Some(0), Some(u64::MAX)] {
            for value in [word, 0, u64::MAX, word.rotate_left(17)] {
                let mut calls = 0_u32;
                let mut rng = || {
                    calls += 1;
                    value
                };
                let delay = policy.delay_ms(n, previous, &mut rng);
                let drawn = calls;
                assert!(delay <= max, "delay {delay} over max {max}");
                match policy.jitter() {
                    JitterPolicy::None => {
                        assert_eq!(delay, base);
                        assert_eq!(drawn, 0);
                    }
                    JitterPolicy::Full => assert!(delay <= base),
                    JitterPolicy::Equal => assert!(delay >= base / 2 && delay <= base),
                    JitterPolicy::Decorrelated => assert!(delay >= first),
                    _ => {}
                }
                if policy.jitter() != JitterPolicy::None {
                    assert_eq!(drawn, 1, "a jittered delay draws exactly one number");
                }
            }
        }
    }
    let mut source = word;
    let schedule = policy.schedule(move || {
        source = source
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        source
    });
    for delay in schedule.take(70) {
        assert!(delay <= max);
    }
});
