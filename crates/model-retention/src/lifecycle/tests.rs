//! Unit tests of `lifecycle`: the expiry time at its edges, the derived stage, and the wire
//! form.

use chrono::{DateTime, TimeDelta, Utc};

use super::*;

fn at() -> DateTime<Utc> {
    "2026-11-22T02:00:00Z".parse().unwrap()
}

fn ms(n: i64) -> TimeDelta {
    TimeDelta::milliseconds(n)
}

#[test]
fn expires_at_adds_the_time_to_live_to_the_sealed_time() {
    let sealed = Lifecycle::sealed(at(), Outcome::Succeeded);
    let cases: [(Lifecycle, Option<u64>, Option<DateTime<Utc>>); 6] = [
        (sealed, Some(0), Some(at())),
        (sealed, Some(1), Some(at() + ms(1))),
        (sealed, Some(86_400_000), Some(at() + TimeDelta::days(1))),
        (sealed, None, None),
        (Lifecycle::Draft, Some(0), None),
        // Past the last time chrono holds: never.
        (sealed, Some(u64::MAX), None),
    ];
    for (lifecycle, ttl, want) in cases {
        assert_eq!(lifecycle.expires_at(ttl), want, "{lifecycle:?} {ttl:?}");
    }
    let last = Lifecycle::sealed(DateTime::<Utc>::MAX_UTC, Outcome::Failed);
    assert_eq!(last.expires_at(Some(1)), None);
    assert_eq!(last.expires_at(Some(0)), Some(DateTime::<Utc>::MAX_UTC));
}

#[test]
fn expired_needs_all_four_conditions() {
    let sealed = Lifecycle::sealed(at(), Outcome::Failed);
    let hour = Some(3_600_000);
    let expiry = at() + TimeDelta::hours(1);
    let cases = [
        (Lifecycle::Draft, expiry, hour, true, Stage::Draft),
        (sealed, expiry - ms(1), hour, true, Stage::Sealed),
        (sealed, expiry, hour, true, Stage::Expired),
        (sealed, expiry + ms(1), hour, true, Stage::Expired),
        (sealed, expiry, hour, false, Stage::Sealed),
        (sealed, DateTime::<Utc>::MAX_UTC, None, true, Stage::Sealed),
    ];
    for (lifecycle, now, ttl, owns_nothing, want) in cases {
        assert_eq!(
            lifecycle.stage(now, ttl, owns_nothing),
            want,
            "{lifecycle:?} at {now} ttl {ttl:?} owns nothing {owns_nothing}"
        );
    }
}

#[test]
fn accessors_say_what_was_stored() {
    let sealed = Lifecycle::sealed(at(), Outcome::Failed);
    assert!(!sealed.is_draft());
    assert_eq!(sealed.sealed_at(), Some(at()));
    assert_eq!(sealed.outcome(), Some(Outcome::Failed));
    assert!(Lifecycle::Draft.is_draft());
    assert_eq!(Lifecycle::Draft.sealed_at(), None);
    assert_eq!(Lifecycle::Draft.outcome(), None);
}

#[test]
fn the_wire_form_reads_back_equal() {
    let cases = [
        (Lifecycle::Draft, r#"{"state":"draft"}"#),
        (
            Lifecycle::sealed(at(), Outcome::Succeeded),
            r#"{"state":"sealed","at":"2026-11-22T02:00:00Z","outcome":"succeeded"}"#,
        ),
    ];
    for (lifecycle, json) in cases {
        assert_eq!(serde_json::to_string(&lifecycle).unwrap(), json);
        assert_eq!(serde_json::from_str::<Lifecycle>(json).unwrap(), lifecycle);
    }
}

#[test]
fn the_wire_form_says_which_rule_a_lifecycle_breaks() {
    let cases = [
        (
            r#"{"state":"draft","outcome":"failed"}"#,
            "invalid state: a draft has no `at` or `outcome` (it has not finished)",
        ),
        (
            r#"{"state":"sealed","outcome":"failed"}"#,
            "invalid at: missing: a sealed resource says when it finished",
        ),
        (
            r#"{"state":"sealed","at":"2026-11-22T02:00:00Z","outcome":null}"#,
            "invalid outcome: missing: a sealed resource says how it ended",
        ),
    ];
    for (json, want) in cases {
        let err = serde_json::from_str::<Lifecycle>(json)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(want), "{json}: {err}");
    }
}

#[test]
fn the_wire_form_rejects_what_is_not_a_lifecycle() {
    for json in [
        r#"{"state":"expired"}"#,
        r#"{"state":"sealed","at":"2026-11-22T02:00:00Z"}"#,
        r#"{"state":"sealed","at":"2026-11-22T02:00:00Z","outcome":null}"#,
        r#"{"state":"sealed","at":"2026-11-22T02:00:00Z","outcome":"canceled"}"#,
        r#"{"state":"draft","at":"2026-11-22T02:00:00Z"}"#,
        r#"{"at":"2026-11-22T02:00:00Z","outcome":"failed"}"#,
        r#""draft""#,
    ] {
        assert!(serde_json::from_str::<Lifecycle>(json).is_err(), "{json}");
    }
}
