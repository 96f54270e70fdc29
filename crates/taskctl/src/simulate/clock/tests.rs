use super::*;

#[test]
fn instants_and_millis_round_trip() {
    for ms in [0, 1, 999, 1_000, 86_400_000, 10 * 365 * 86_400_000] {
        assert_eq!(millis(instant(ms)), ms, "{ms}");
    }
    assert_eq!(instant(0).to_rfc3339(), "2026-01-01T00:00:00+00:00");
    assert_eq!(millis(DateTime::UNIX_EPOCH), 0);
}
