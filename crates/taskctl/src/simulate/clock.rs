//! Simulated time: milliseconds since the start of the run, and the instants the model takes.

use chrono::{DateTime, TimeDelta, Utc};

/// A simulated time or length, in milliseconds since the start of the run.
pub(crate) type Millis = u64;

/// When every simulation starts: 2026-01-01T00:00:00Z, so every printed time is the same
/// on every machine.
pub(crate) const START_SECONDS: i64 = 1_767_225_600;

/// The instant `ms` after the start.
pub(crate) fn instant(ms: Millis) -> DateTime<Utc> {
    let start = DateTime::<Utc>::from_timestamp(START_SECONDS, 0).unwrap_or(DateTime::UNIX_EPOCH);
    i64::try_from(ms)
        .ok()
        .and_then(TimeDelta::try_milliseconds)
        .and_then(|offset| start.checked_add_signed(offset))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// The milliseconds from the start to `at` (0 before the start).
pub(crate) fn millis(at: DateTime<Utc>) -> Millis {
    let since = at
        .timestamp_millis()
        .saturating_sub(START_SECONDS.saturating_mul(1_000));
    Millis::try_from(since).unwrap_or(0)
}

#[cfg(test)]
mod tests;
