//! Times and numbers as columns, at the exact ends of their range.

use chrono::{DateTime, TimeDelta, Utc};

use super::{clamped_nanos, exact_nanos, int};
use crate::error::StoreError;

fn from_nanos(nanos: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_nanos(nanos)
}

#[test]
fn times_are_exact_inside_the_i64_range_and_refused_or_saturated_outside() {
    let check = |time: DateTime<Utc>, exact: Option<i64>, clamped: i64| {
        match (exact_nanos("t", time), exact) {
            (Ok(value), Some(expected)) => assert_eq!(value, expected, "{time}"),
            (Err(StoreError::OutOfRange { field: "t", .. }), None) => {}
            (other, _) => panic!("{time}: {other:?}"),
        }
        assert_eq!(clamped_nanos(time), clamped, "{time}");
    };
    let one = TimeDelta::nanoseconds(1);
    check(from_nanos(0), Some(0), 0);
    check(from_nanos(-1), Some(-1), -1);
    check(from_nanos(i64::MAX), Some(i64::MAX), i64::MAX);
    check(from_nanos(i64::MAX) + one, None, i64::MAX);
    check(from_nanos(i64::MIN), Some(i64::MIN), i64::MIN);
    check(from_nanos(i64::MIN) - one, None, i64::MIN);
    check(DateTime::<Utc>::MAX_UTC, None, i64::MAX);
    check(DateTime::<Utc>::MIN_UTC, None, i64::MIN);
}

#[test]
fn counts_above_i64_max_are_out_of_range() {
    assert_eq!(int("n", 0).unwrap(), 0);
    assert_eq!(int("n", i64::MAX as u64).unwrap(), i64::MAX);
    assert!(matches!(
        int("n", i64::MAX as u64 + 1),
        Err(StoreError::OutOfRange { field: "n", .. })
    ));
}
