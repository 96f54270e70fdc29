//! Unit tests of the token encoding: round trips, the length bound and each rejection.

use base64::{Engine as _, engine::general_purpose::URL_SAFE_NO_PAD};
use chrono::DateTime;
use model_ids::{TASK_ID_MAX_LEN, TaskId};
use proptest::prelude::*;

use super::{ContinueToken, MAX_TOKEN_LEN, RunContinueToken, checksum};
use crate::{QueryError, SortKey};

fn key(secs: i64, nanos: u32, id: &str) -> SortKey {
    SortKey::new(
        DateTime::from_timestamp(secs, nanos).unwrap(),
        TaskId::new(id).unwrap(),
    )
}

/// Encodes raw token bytes with a correct checksum appended.
fn sealed(mut bytes: Vec<u8>) -> String {
    let sum = checksum(&bytes);
    bytes.extend_from_slice(&sum.to_be_bytes());
    URL_SAFE_NO_PAD.encode(bytes)
}

#[test]
fn round_trips_key_and_fingerprint() {
    let token = ContinueToken::issue(42, key(1_700_000_000, 123_456_789, "t-1"));
    let parsed = ContinueToken::parse(token.as_str()).unwrap();
    assert_eq!(parsed, token);
    assert_eq!(parsed.after(), &key(1_700_000_000, 123_456_789, "t-1"));
    assert!(parsed.check_fingerprint("continue", 42).is_ok());
    assert!(matches!(
        parsed.check_fingerprint("continue", 43),
        Err(QueryError::TokenQueryMismatch { .. })
    ));
}

#[test]
fn is_url_safe() {
    let token = ContinueToken::issue(u64::MAX, key(-1, 999_999_999, "a.b_c-d"));
    assert!(
        token
            .as_str()
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "{token}"
    );
}

#[test]
fn longest_id_fits_exactly() {
    let id = "x".repeat(TASK_ID_MAX_LEN);
    let token = ContinueToken::issue(7, key(0, 0, &id));
    assert_eq!(token.as_str().len(), MAX_TOKEN_LEN);
    assert_eq!(ContinueToken::parse(token.as_str()).unwrap(), token);
}

fn check(input: &str, expected: fn(&QueryError) -> bool) {
    let err = ContinueToken::parse(input).unwrap_err();
    assert!(expected(&err), "{input:?}: {err:?}");
    assert_eq!(err.field(), Some("continue"));
    assert!(err.is_token_error());
}

#[test]
fn rejections() {
    let good = ContinueToken::issue(9, key(1, 2, "id")).as_str().to_owned();
    check("", |e| matches!(e, QueryError::TokenEmpty { .. }));
    check(
        &"A".repeat(MAX_TOKEN_LEN + 1),
        |e| matches!(e, QueryError::TokenTooLong { len, max: MAX_TOKEN_LEN, .. } if *len == MAX_TOKEN_LEN + 1),
    );
    check("abc+", |e| matches!(e, QueryError::TokenEncoding { .. }));
    check("abc=", |e| matches!(e, QueryError::TokenEncoding { .. }));
    check("a", |e| matches!(e, QueryError::TokenEncoding { .. }));
    check(&good[..good.len() - 1], |e| e.is_token_error());
    // Three bytes cut off the end: the checksum no longer matches what is left.
    let cut = URL_SAFE_NO_PAD.decode(&good).unwrap();
    check(&URL_SAFE_NO_PAD.encode(&cut[..cut.len() - 3]), |e| {
        matches!(e, QueryError::TokenChecksum { .. })
    });
    check(&URL_SAFE_NO_PAD.encode([1u8; 40]), |e| {
        matches!(e, QueryError::TokenVersion { version: 1, .. })
    });
    check(&URL_SAFE_NO_PAD.encode([3u8; 40]), |e| {
        matches!(e, QueryError::TokenVersion { version: 3, .. })
    });
    check(&URL_SAFE_NO_PAD.encode([2u8; 10]), |e| {
        matches!(
            e,
            QueryError::TokenMalformed {
                reason: "truncated",
                ..
            }
        )
    });
    // Correct structure, wrong checksum.
    let mut bytes = URL_SAFE_NO_PAD.decode(&good).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    check(&URL_SAFE_NO_PAD.encode(&bytes), |e| {
        matches!(e, QueryError::TokenChecksum { .. })
    });
}

#[test]
fn sealed_but_invalid_contents_are_malformed() {
    let header = |secs: i64, nanos: u32, id: &[u8]| {
        let mut b = vec![2u8, 1];
        b.extend_from_slice(&0u64.to_be_bytes());
        b.extend_from_slice(&secs.to_be_bytes());
        b.extend_from_slice(&nanos.to_be_bytes());
        b.extend_from_slice(&(id.len() as u16).to_be_bytes());
        b.extend_from_slice(id);
        b
    };
    check(&sealed(header(i64::MAX, 0, b"id")), |e| {
        matches!(
            e,
            QueryError::TokenMalformed {
                reason: "time out of range",
                ..
            }
        )
    });
    check(&sealed(header(0, 2_000_000_000, b"id")), |e| {
        matches!(
            e,
            QueryError::TokenMalformed {
                reason: "time out of range",
                ..
            }
        )
    });
    check(&sealed(header(0, 0, b"a b")), |e| {
        matches!(
            e,
            QueryError::TokenMalformed {
                reason: "invalid task id",
                ..
            }
        )
    });
    check(&sealed(header(0, 0, &[0xff, 0xfe])), |e| {
        matches!(
            e,
            QueryError::TokenMalformed {
                reason: "invalid task id",
                ..
            }
        )
    });
    check(&sealed(header(0, 0, b"")), |e| {
        matches!(
            e,
            QueryError::TokenMalformed {
                reason: "invalid task id",
                ..
            }
        )
    });
    // A declared id length longer than what follows.
    let mut b = header(0, 0, b"abc");
    let n = b.len();
    b[n - 5] = 9;
    check(&sealed(b), |e| {
        matches!(e, QueryError::TokenMalformed { .. })
    });
    // An unknown listing; a run key of the wrong length or attempt zero.
    let mut b = header(0, 0, b"abc");
    b[1] = 9;
    check(&sealed(b), |e| {
        matches!(
            e,
            QueryError::TokenMalformed {
                reason: "unknown listing",
                ..
            }
        )
    });
    for (key, reason) in [
        (&[0u8, 0, 0, 1, 0][..], "wrong length"),
        (&[0, 0, 1][..], "wrong length"),
        (&[0, 0, 0, 0][..], "attempt zero"),
    ] {
        let mut b = vec![2u8, 2];
        b.extend_from_slice(&0u64.to_be_bytes());
        b.extend_from_slice(key);
        let err = RunContinueToken::parse(&sealed(b)).unwrap_err();
        assert!(
            matches!(err, QueryError::TokenMalformed { reason: r, .. } if r == reason),
            "{err:?}"
        );
    }
}

#[test]
fn a_token_of_the_other_listing_is_refused() {
    let task = ContinueToken::issue(5, key(1, 2, "id"));
    let run = RunContinueToken::issue(5, 7);
    assert_eq!(RunContinueToken::parse(run.as_str()).unwrap().after(), 7);
    let err = RunContinueToken::parse(task.as_str()).unwrap_err();
    assert!(
        matches!(
            err,
            QueryError::TokenListingMismatch {
                expected: "task runs",
                found: "tasks",
                ..
            }
        ),
        "{err:?}"
    );
    let err = ContinueToken::parse(run.as_str()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "continue: continuation token {:?} belongs to a listing of task runs, not of tasks",
            run.as_str()
        )
    );
    assert!(err.is_token_error());
}

#[test]
fn serde_is_the_string() {
    let token = ContinueToken::issue(1, key(5, 0, "x"));
    let json = serde_json::to_string(&token).unwrap();
    assert_eq!(json, format!("\"{token}\""));
    let back: ContinueToken = serde_json::from_str(&json).unwrap();
    assert_eq!(back, token);
    assert!(serde_json::from_str::<ContinueToken>("\"\"").is_err());
}

fn any_key() -> impl Strategy<Value = SortKey> {
    (
        -62_000_000_000i64..200_000_000_000,
        0u32..1_000_000_000,
        "[A-Za-z0-9_-][A-Za-z0-9._-]{0,40}",
    )
        .prop_map(|(s, n, id)| key(s, n, &id))
}

proptest! {
    #[test]
    fn any_key_round_trips(fp in any::<u64>(), k in any_key()) {
        let token = ContinueToken::issue(fp, k.clone());
        let parsed = ContinueToken::parse(token.as_str()).unwrap();
        prop_assert_eq!(parsed.after(), &k);
        prop_assert!(parsed.check_fingerprint("continue", fp).is_ok());
    }

    #[test]
    fn any_single_character_edit_is_rejected(
        fp in any::<u64>(),
        k in any_key(),
        at in any::<prop::sample::Index>(),
        with in prop::sample::select(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".chars().collect::<Vec<_>>()
        ),
    ) {
        let token = ContinueToken::issue(fp, k).as_str().to_owned();
        let i = at.index(token.len());
        prop_assume!(token.as_bytes()[i] != with as u8);
        let mut edited = token.clone();
        edited.replace_range(i..=i, &with.to_string());
        let err = ContinueToken::parse(&edited).unwrap_err();
        prop_assert!(err.is_token_error());
    }

    #[test]
    fn any_truncation_is_rejected(fp in any::<u64>(), k in any_key(), cut in any::<prop::sample::Index>()) {
        let token = ContinueToken::issue(fp, k).as_str().to_owned();
        let n = cut.index(token.len());
        let err = ContinueToken::parse(&token[..n]).unwrap_err();
        prop_assert!(err.is_token_error());
    }

    #[test]
    fn random_strings_never_panic(s in ".{0,600}") {
        // Any outcome but a panic is fine; a random string that parses must re-encode to itself.
        if let Ok(token) = ContinueToken::parse(&s) {
            prop_assert_eq!(token.as_str(), s.as_str());
        }
    }

    #[test]
    fn any_run_token_round_trips(fp in any::<u64>(), attempt in 1..=u32::MAX) {
        let token = RunContinueToken::issue(fp, attempt);
        let parsed = RunContinueToken::parse(token.as_str()).unwrap();
        prop_assert_eq!(parsed.after(), attempt);
        prop_assert!(parsed.check_fingerprint("continue", fp).is_ok());
        prop_assert_eq!(parsed, token);
    }

    #[test]
    fn random_bytes_are_rejected(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let s = URL_SAFE_NO_PAD.encode(&bytes);
        prop_assert!(ContinueToken::parse(&s).is_err());
    }
}
