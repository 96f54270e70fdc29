//! Unit tests for error messages and input quoting.

use super::*;
use crate::{AdmissionPolicy, JitterPolicy, RestartPolicy};

fn check_quote(input: &str, expected: &str) {
    let PolicyError::UnknownRestart { input: quoted } = PolicyError::unknown_restart(input) else {
        panic!("wrong variant");
    };
    assert_eq!(quoted, expected, "quote({input:?})");
}

#[test]
fn quote_keeps_short_input_and_cuts_long_input_at_a_char_boundary() {
    let a64 = "a".repeat(64);
    check_quote("", "");
    check_quote("abc", "abc");
    check_quote(&a64, &a64);
    check_quote(&"a".repeat(65), &format!("{a64}…"));
    check_quote(&"é".repeat(64), &"é".repeat(64));
    check_quote(&"é".repeat(100), &format!("{}…", "é".repeat(64)));
    check_quote(&"x".repeat(1 << 20), &format!("{}…", "x".repeat(64)));
}

#[test]
fn unknown_messages_list_every_wire_form_in_order() {
    fn listed(values: impl Iterator<Item = &'static str>) -> String {
        values.collect::<Vec<_>>().join(", ")
    }
    let cases = [
        (
            PolicyError::unknown_restart("x").to_string(),
            "restart",
            listed(RestartPolicy::ALL.iter().map(|p| p.name())),
        ),
        (
            PolicyError::unknown_jitter("x").to_string(),
            "jitter",
            listed(JitterPolicy::ALL.iter().map(|p| p.as_str())),
        ),
        (
            PolicyError::unknown_admission("x").to_string(),
            "admission",
            listed(AdmissionPolicy::ALL.iter().map(|p| p.as_str())),
        ),
    ];
    for (message, policy, accepted) in cases {
        assert_eq!(
            message,
            format!(r#"unknown {policy} policy "x": expected one of {accepted}"#)
        );
    }
}

#[test]
fn unknown_errors_hold_the_shortened_input() {
    let long = "z".repeat(1000);
    let PolicyError::UnknownJitter { input } = PolicyError::unknown_jitter(&long) else {
        panic!("wrong variant");
    };
    assert_eq!(input.chars().count(), model_ids::ERROR_INPUT_MAX_CHARS + 1);
}

#[test]
fn backoff_messages_name_the_field_and_the_values() {
    let check = |field, reason, expected: &str| {
        assert_eq!(
            PolicyError::InvalidBackoff { field, reason }.to_string(),
            expected
        );
    };
    check(
        "firstMs",
        BackoffViolation::Zero,
        "invalid backoff: firstMs must be greater than 0, got 0",
    );
    check(
        "maxMs",
        BackoffViolation::BelowFirst {
            max_ms: 5,
            first_ms: 10,
        },
        "invalid backoff: maxMs must be at least firstMs (10), got 5",
    );
    check(
        "maxMs",
        BackoffViolation::AboveCap {
            value: 604_800_001,
            cap: 604_800_000,
        },
        "invalid backoff: maxMs must be at most 604800000, got 604800001",
    );
    check(
        "factor",
        BackoffViolation::NotFinite { factor: f64::NAN },
        "invalid backoff: factor must be finite, got NaN",
    );
    check(
        "factor",
        BackoffViolation::NotFinite {
            factor: f64::NEG_INFINITY,
        },
        "invalid backoff: factor must be finite, got -inf",
    );
    check(
        "factor",
        BackoffViolation::BelowOne { factor: 0.5 },
        "invalid backoff: factor must be at least 1.0, got 0.5",
    );
}

#[test]
fn violations_compare_factors_by_bits() {
    let nan = BackoffViolation::NotFinite { factor: f64::NAN };
    assert_eq!(nan, nan);
    assert_ne!(
        BackoffViolation::BelowOne { factor: 0.0 },
        BackoffViolation::BelowOne { factor: -0.0 }
    );
    assert_ne!(
        BackoffViolation::BelowOne { factor: 0.5 },
        BackoffViolation::NotFinite { factor: 0.5 }
    );
    assert_ne!(
        BackoffViolation::AboveCap { value: 1, cap: 2 },
        BackoffViolation::AboveCap { value: 1, cap: 3 }
    );
    assert_eq!(BackoffViolation::Zero, BackoffViolation::Zero);
}

#[test]
fn every_variant_has_its_kind() {
    let backoff = PolicyError::InvalidBackoff {
        field: "firstMs",
        reason: BackoffViolation::Zero,
    };
    let table = [
        (PolicyError::unknown_restart("x"), ErrorKind::UnknownRestart),
        (PolicyError::unknown_jitter("x"), ErrorKind::UnknownJitter),
        (
            PolicyError::unknown_admission("x"),
            ErrorKind::UnknownAdmission,
        ),
        (backoff, ErrorKind::Invalid),
    ];
    for (err, kind) in table {
        assert_eq!(err.kind(), kind, "{err}");
    }
}
