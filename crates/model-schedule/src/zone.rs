//! `Zone`: an IANA time zone from the database compiled into chrono-tz, by name.

use std::{fmt, str::FromStr};

use chrono::{DateTime, FixedOffset, LocalResult, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use model_ids::text::shorten;

use crate::{error::ScheduleError, limits::MAX_TIME_ZONE_LEN};

/// An IANA time zone (`Europe/Berlin`, `America/New_York`, `UTC`), named as the database
/// names it (case matters, as it does in the database).
///
/// The database is compiled in (chrono-tz), so looking a zone up reads no file and gives the
/// same answer on every machine that runs the same build; `docs/schedules.md` says which
/// database version and how far ahead its rules reach. On the wire it is the name.
///
/// ```
/// use model_schedule::Zone;
///
/// let zone: Zone = "America/New_York".parse()?;
/// assert_eq!(zone.name(), "America/New_York");
/// assert_eq!(Zone::default(), Zone::UTC);
/// assert!("Mars/Olympus_Mons".parse::<Zone>().is_err());
/// # Ok::<(), model_schedule::ScheduleError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Zone(Tz);

impl Zone {
    /// Coordinated Universal Time, the zone of a cron trigger that names none.
    pub const UTC: Zone = Zone(Tz::UTC);

    /// The zone with this IANA name; the field path in errors is `timeZone`.
    ///
    /// # Errors
    ///
    /// [`ScheduleError::UnknownTimeZone`] for a name the database does not have,
    /// [`ScheduleError::TooLong`] for one longer than
    /// [`MAX_TIME_ZONE_LEN`](crate::MAX_TIME_ZONE_LEN) bytes.
    pub fn parse(name: &str) -> Result<Self, ScheduleError> {
        Self::parse_at("timeZone", name)
    }

    pub(crate) fn parse_at(path: &str, name: &str) -> Result<Self, ScheduleError> {
        if name.len() > MAX_TIME_ZONE_LEN {
            return Err(ScheduleError::TooLong {
                path: path.to_owned(),
                len: name.len(),
                max: MAX_TIME_ZONE_LEN,
            });
        }
        name.parse::<Tz>()
            .map(Zone)
            .map_err(|_| ScheduleError::UnknownTimeZone {
                path: path.to_owned(),
                input: shorten(name),
            })
    }

    /// The IANA name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// Whether this is `UTC` itself (which has no daylight-saving changes to resolve).
    pub(crate) fn is_utc(&self) -> bool {
        self.0 == Tz::UTC
    }

    /// The offset from UTC in effect at `instant`.
    #[must_use]
    pub fn offset_at(&self, instant: DateTime<Utc>) -> FixedOffset {
        self.0.offset_from_utc_datetime(&instant.naive_utc()).fix()
    }

    /// `instant` as the zone's local time, with its offset.
    #[must_use]
    pub fn to_local(&self, instant: DateTime<Utc>) -> DateTime<FixedOffset> {
        instant.with_timezone(&self.offset_at(instant))
    }

    /// The instants a local date and time names: one, two (a repeated hour) or none (a
    /// skipped one).
    pub(crate) fn resolve(&self, local: NaiveDateTime) -> LocalResult<DateTime<Utc>> {
        self.0
            .from_local_datetime(&local)
            .map(|dt| dt.with_timezone(&Utc))
    }

    /// The first instant after the gap that `local` lies in, when it lies in one.
    pub(crate) fn gap_end(&self, local: NaiveDateTime) -> Option<DateTime<Utc>> {
        chrono_tz::GapInfo::new(&local, &self.0)?
            .end
            .map(|end| end.with_timezone(&Utc))
    }
}

impl Default for Zone {
    /// [`Zone::UTC`].
    fn default() -> Self {
        Zone::UTC
    }
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl fmt::Debug for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Zone").field(&self.name()).finish()
    }
}

impl FromStr for Zone {
    type Err = ScheduleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl Serialize for Zone {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Zone {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::visit::from_text(deserializer, "an IANA time zone name")
    }
}
