//! `CronExpr`: a cron expression with Vixie cron's meaning, parsed and validated, and the
//! times it fires at in a time zone.

mod instant;
mod parse;
mod search;

use std::{fmt, str::FromStr};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use self::parse::{FieldSet, parse_field};
use model_ids::text::shorten;

use crate::{error::ScheduleError, field::CronField, limits::MAX_CRON_LEN, zone::Zone};

/// A cron expression: five fields (minute, hour, day-of-month, month, day-of-week), or six
/// with seconds first, or an `@` nickname, read the way Vixie cron (and Debian's cron, which
/// is Vixie cron) reads it.
///
/// Each field is a comma-separated list of `*`, `N`, `N-M`, `*/S` and `N-M/S`; months and
/// days of the week also take three-letter names in any case (`jan`, `Mon`), and
/// day-of-week 7 is Sunday, as 0 is. The nicknames are `@yearly` (`@annually`), `@monthly`,
/// `@weekly`, `@daily` (`@midnight`) and `@hourly`.
///
/// The day rule is Vixie cron's: when both day-of-month and day-of-week are restricted, a day
/// matches if *either* matches (`30 4 1,15 * 5` runs on the 1st, the 15th and every Friday);
/// when either field's text starts with `*` (including `*/2`), a day must match both.
///
/// Daylight-saving changes follow Debian's cron (see [`CronExpr::is_wildcard`] and
/// `docs/schedules.md`): a *fixed-time* expression fires once for a local time that occurs
/// twice (at its first occurrence) and fires once, at the first instant after the gap, for
/// local times that do not exist; a *wildcard* expression (minute or hour starting with `*`)
/// fires by the clock as it runs, so it skips the times that do not exist and fires on both
/// passes of a repeated hour.
///
/// Stricter than Vixie cron on purpose: a reversed range (`5-1`), a step of 0 and an empty
/// list element are errors rather than silently matching nothing, and `@reboot` is refused
/// (a schedule has no boot). Every error names the field and quotes the value.
///
/// ```
/// use chrono::{DateTime, Utc};
/// use model_schedule::{CronExpr, Zone};
///
/// let cron: CronExpr = "0 2 * * *".parse()?;
/// let berlin: Zone = "Europe/Berlin".parse()?;
/// // 2026-03-29 is the spring-forward day: 02:00 does not exist, so it fires at 03:00 CEST.
/// let after: DateTime<Utc> = "2026-03-28T12:00:00Z".parse().unwrap();
/// let times = cron.next_fire_times(&berlin, after, 2);
/// assert_eq!(times[0].to_rfc3339(), "2026-03-29T01:00:00+00:00");
/// assert_eq!(times[1].to_rfc3339(), "2026-03-30T00:00:00+00:00");
///
/// let err = "0 0 32 * *".parse::<CronExpr>().unwrap_err();
/// assert_eq!(err.to_string(), r#"cron: day-of-month "32" is out of range 1-31"#);
/// # Ok::<(), model_schedule::ScheduleError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct CronExpr {
    text: Box<str>,
    seconds: u64,
    minutes: u64,
    hours: u32,
    days: u32,
    months: u16,
    weekdays: u8,
    /// Day-of-month or day-of-week starts with `*`: a day must match both.
    day_and: bool,
    /// Minute or hour starts with `*` (Debian's `MIN_STAR | HR_STAR`).
    wildcard: bool,
    has_seconds: bool,
    /// Some day of some month in the month set matches the day rule.
    fires: bool,
}

impl CronExpr {
    /// Parses and validates an expression; the field path in errors is `cron`.
    ///
    /// # Errors
    ///
    /// A [`ScheduleError`] naming the field and quoting the value: an empty or too long
    /// expression, a wrong number of fields, an unknown nickname, a value out of its range,
    /// a reversed range, or a list element that is none of the accepted forms.
    pub fn parse(text: &str) -> Result<Self, ScheduleError> {
        Self::parse_at("cron", text)
    }

    /// [`CronExpr::parse`] with the given field path.
    pub(crate) fn parse_at(path: &str, text: &str) -> Result<Self, ScheduleError> {
        if text.len() > MAX_CRON_LEN {
            return Err(ScheduleError::CronTooLong {
                path: path.to_owned(),
                len: text.len(),
                max: MAX_CRON_LEN,
            });
        }
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(ScheduleError::CronEmpty {
                path: path.to_owned(),
            });
        }
        let expanded = if trimmed.starts_with('@') {
            nickname(trimmed).ok_or_else(|| ScheduleError::CronNickname {
                path: path.to_owned(),
                input: shorten(trimmed),
            })?
        } else {
            trimmed
        };
        let fields: Vec<&str> = expanded.split_ascii_whitespace().collect();
        let (second, rest) = match fields.as_slice() {
            [minute, hour, dom, month, dow] => ("0", [*minute, *hour, *dom, *month, *dow]),
            [second, minute, hour, dom, month, dow] => {
                (*second, [*minute, *hour, *dom, *month, *dow])
            }
            other => {
                return Err(ScheduleError::CronFieldCount {
                    path: path.to_owned(),
                    input: shorten(trimmed),
                    count: other.len(),
                });
            }
        };
        let [minute, hour, dom, month, dow] = rest;
        let seconds = parse_field(path, CronField::Second, second)?;
        let minutes = parse_field(path, CronField::Minute, minute)?;
        let hours = parse_field(path, CronField::Hour, hour)?;
        let days = parse_field(path, CronField::DayOfMonth, dom)?;
        let months = parse_field(path, CronField::Month, month)?;
        let weekdays = parse_field(path, CronField::DayOfWeek, dow)?;
        let mut expr = CronExpr {
            text: trimmed.into(),
            seconds: seconds.bits,
            minutes: minutes.bits,
            hours: narrow(hours),
            days: narrow(days),
            months: narrow(months),
            weekdays: narrow(weekdays),
            day_and: days.star || weekdays.star,
            wildcard: minutes.star || hours.star,
            has_seconds: fields.len() == 6,
            fires: false,
        };
        expr.fires = search::can_fire(&expr);
        Ok(expr)
    }

    /// The expression as given, without surrounding whitespace.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the expression has a seconds field (six fields).
    #[must_use]
    pub const fn has_seconds(&self) -> bool {
        self.has_seconds
    }

    /// Whether this is a *wildcard* expression in Debian cron's sense: its minute or hour
    /// field starts with `*` (`*/5 * * * *`, `30 * * * *`, `@hourly`). A wildcard expression
    /// fires by the clock across daylight-saving changes; any other expression is a
    /// *fixed-time* one (`0 2 * * *`, `0 1-3 * * *`), whose local times fire once each.
    #[must_use]
    pub const fn is_wildcard(&self) -> bool {
        self.wildcard
    }

    /// Whether the expression can ever fire. `0 0 30 2 *` (February 30) cannot; such an
    /// expression parses, as it does in cron, and its fire times are empty.
    #[must_use]
    pub const fn can_fire(&self) -> bool {
        self.fires
    }

    /// The first fire time strictly after `after` in `zone`, or `None` when there is none
    /// (the expression never fires, or the next one is past chrono's range).
    ///
    /// The search is bounded: it steps at most a day at a time over at most one 400-year
    /// Gregorian cycle, skipping months that cannot match, and never loops.
    #[must_use]
    pub fn next_after(&self, zone: &Zone, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        instant::next_fire(self, zone, after)
    }

    /// The next `n` fire times strictly after `after`, oldest first; fewer when the
    /// expression stops firing. Each time is later than the one before, so none repeats.
    /// The caller bounds `n` (a schedule does, with
    /// [`MAX_NEXT_FIRE_TIMES`](crate::MAX_NEXT_FIRE_TIMES)).
    #[must_use]
    pub fn next_fire_times(
        &self,
        zone: &Zone,
        after: DateTime<Utc>,
        n: usize,
    ) -> Vec<DateTime<Utc>> {
        let mut times = Vec::with_capacity(n.min(64));
        let mut from = after;
        while times.len() < n {
            match self.next_after(zone, from) {
                Some(next) => {
                    times.push(next);
                    from = next;
                }
                None => break,
            }
        }
        times
    }
}

/// The five-field expression of a nickname.
fn nickname(text: &str) -> Option<&'static str> {
    const NICKNAMES: [(&str, &str); 7] = [
        ("@yearly", "0 0 1 1 *"),
        ("@annually", "0 0 1 1 *"),
        ("@monthly", "0 0 1 * *"),
        ("@weekly", "0 0 * * 0"),
        ("@daily", "0 0 * * *"),
        ("@midnight", "0 0 * * *"),
        ("@hourly", "0 * * * *"),
    ];
    NICKNAMES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(text))
        .map(|(_, expr)| *expr)
}

/// A field's bits in the width its values need (every value is below the width).
fn narrow<T: TryFrom<u64> + Default>(set: FieldSet) -> T {
    T::try_from(set.bits).unwrap_or_default()
}

impl fmt::Display for CronExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl fmt::Debug for CronExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CronExpr").field(&self.as_str()).finish()
    }
}

impl FromStr for CronExpr {
    type Err = ScheduleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl Serialize for CronExpr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CronExpr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::visit::from_text(deserializer, "a cron expression")
    }
}

#[cfg(test)]
mod tests;
