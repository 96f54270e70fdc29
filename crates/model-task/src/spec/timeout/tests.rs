//! Unit tests for `timeout`: bounds of `Timeout` and serde.

use super::*;

#[test]
fn timeout_bounds() {
    fn check(ms: u64, want: Result<u64, InvalidReason>) {
        match (Timeout::new(ms), want) {
            (Ok(t), Ok(w)) => assert_eq!(t.as_millis(), w),
            (Err(TaskError::Invalid { reason, path, .. }), Err(w)) => {
                assert_eq!(reason, w, "{ms}");
                assert_eq!(path, "");
            }
            (got, want) => panic!("{ms}: got {got:?}, want {want:?}"),
        }
    }
    check(0, Err(InvalidReason::Zero));
    check(1, Ok(1));
    check(MAX_TIMEOUT_MS, Ok(MAX_TIMEOUT_MS));
    check(
        MAX_TIMEOUT_MS + 1,
        Err(InvalidReason::TooLarge {
            value: MAX_TIMEOUT_MS + 1,
            max: MAX_TIMEOUT_MS,
        }),
    );
    check(
        u64::MAX,
        Err(InvalidReason::TooLarge {
            value: u64::MAX,
            max: MAX_TIMEOUT_MS,
        }),
    );
}

#[test]
fn timeout_serde_validates() {
    assert_eq!(
        serde_json::to_string(&Timeout::new(250).unwrap()).unwrap(),
        "250"
    );
    assert_eq!(
        serde_json::from_str::<Timeout>("250")
            .unwrap()
            .as_duration()
            .as_millis(),
        250
    );
    assert!(serde_json::from_str::<Timeout>("0").is_err());
    assert!(serde_json::from_str::<Timeout>("-5").is_err());
}
