//! `Interval`: a validated period in milliseconds, for `everyMs` triggers and recurring actions.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{
    error::ScheduleError,
    limits::{MAX_EVERY_MS, MIN_EVERY_MS},
};

/// A period of [`MIN_EVERY_MS`](crate::MIN_EVERY_MS) (one second) to
/// [`MAX_EVERY_MS`](crate::MAX_EVERY_MS) milliseconds; a number of milliseconds on the wire.
///
/// ```
/// use model_schedule::Interval;
///
/// let hourly = Interval::from_ms(3_600_000)?;
/// assert_eq!(hourly.as_ms(), 3_600_000);
/// assert!(Interval::from_ms(999).is_err());
/// # Ok::<(), model_schedule::ScheduleError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Interval(u64);

impl Interval {
    /// The interval of `ms` milliseconds; the field path in errors is `everyMs`.
    ///
    /// # Errors
    ///
    /// [`ScheduleError::OutOfRange`] outside `MIN_EVERY_MS..=MAX_EVERY_MS`.
    pub fn from_ms(ms: u64) -> Result<Self, ScheduleError> {
        Self::from_ms_at("everyMs", ms)
    }

    pub(crate) fn from_ms_at(path: &str, ms: u64) -> Result<Self, ScheduleError> {
        if (MIN_EVERY_MS..=MAX_EVERY_MS).contains(&ms) {
            Ok(Self(ms))
        } else {
            Err(ScheduleError::OutOfRange {
                path: path.to_owned(),
                value: ms,
                min: MIN_EVERY_MS,
                max: MAX_EVERY_MS,
            })
        }
    }

    /// The period in milliseconds.
    #[must_use]
    pub const fn as_ms(self) -> u64 {
        self.0
    }

    /// The first `anchor + k * self` (for a whole number `k`, negative too) strictly after
    /// `after`, or `None` past chrono's range.
    #[must_use]
    pub fn next_after(self, anchor: DateTime<Utc>, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let step = i128::from(self.0) * 1_000_000;
        let since = nanos(after) - nanos(anchor);
        let steps = since.div_euclid(step) + 1;
        from_nanos(nanos(anchor) + steps * step)
    }
}

/// Nanoseconds since the Unix epoch; every chrono time fits in an `i128`.
fn nanos(time: DateTime<Utc>) -> i128 {
    i128::from(time.timestamp()) * 1_000_000_000 + i128::from(time.timestamp_subsec_nanos())
}

/// The time `nanos` nanoseconds after the Unix epoch, if chrono can hold it.
fn from_nanos(nanos: i128) -> Option<DateTime<Utc>> {
    let secs = i64::try_from(nanos.div_euclid(1_000_000_000)).ok()?;
    let sub = u32::try_from(nanos.rem_euclid(1_000_000_000)).ok()?;
    DateTime::from_timestamp(secs, sub)
}

impl fmt::Debug for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Interval({} ms)", self.0)
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ms", self.0)
    }
}

impl Serialize for Interval {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for Interval {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::from_ms(u64::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}
