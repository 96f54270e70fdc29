//! `TimeRange`: a half-open range of instants, `since <= t < before`, either end optional.

use chrono::{DateTime, SecondsFormat, Utc};
use model_ids::text::shorten;

use crate::error::QueryError;

/// What a time parameter must look like, for error messages.
pub(crate) const TIME_EXPECTED: &str = "an RFC 3339 timestamp such as 2024-05-01T12:00:00Z";

/// A half-open time range: `since` is included, `before` is excluded, and a missing end
/// is unbounded.
///
/// Half-open ranges tile: `[a, b)` and `[b, c)` cover `[a, c)` with no instant in both,
/// so consecutive windows never count a task twice. A range with both ends must not be
/// empty (`since < before`); queries reject an empty one rather than match nothing.
///
/// ```
/// use chrono::DateTime;
/// use model_query::TimeRange;
///
/// let t = |s| DateTime::parse_from_rfc3339(s).unwrap().to_utc();
/// let may = TimeRange::new(Some(t("2024-05-01T00:00:00Z")), Some(t("2024-06-01T00:00:00Z")));
/// assert!(may.contains(t("2024-05-01T00:00:00Z")));
/// assert!(!may.contains(t("2024-06-01T00:00:00Z")));
/// assert!(TimeRange::default().contains(t("1970-01-01T00:00:00Z")));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TimeRange {
    /// The inclusive start, or `None` for no lower bound.
    pub since: Option<DateTime<Utc>>,
    /// The exclusive end, or `None` for no upper bound.
    pub before: Option<DateTime<Utc>>,
}

impl TimeRange {
    /// A range from its two ends (not checked; queries check it when they are built).
    pub fn new(since: Option<DateTime<Utc>>, before: Option<DateTime<Utc>>) -> Self {
        TimeRange { since, before }
    }

    /// Whether `since <= t < before`, ignoring a missing end.
    pub fn contains(&self, t: DateTime<Utc>) -> bool {
        self.since.is_none_or(|since| since <= t) && self.before.is_none_or(|before| t < before)
    }

    /// Whether neither end is set (the range contains every instant).
    pub fn is_unbounded(&self) -> bool {
        self.since.is_none() && self.before.is_none()
    }

    /// Checks that the range is not empty; the error names `before_field`.
    pub(crate) fn check(&self, before_field: &str) -> Result<(), QueryError> {
        match (self.since, self.before) {
            (Some(since), Some(before)) if since >= before => Err(QueryError::EmptyTimeRange {
                field: before_field.to_owned(),
                since,
                before,
            }),
            _ => Ok(()),
        }
    }
}

/// Parses a time for the parameter or field `field` as a `Task`'s JSON reads its times
/// (chrono's `DateTime<Utc>` parser: RFC 3339, and the signed years beyond 0000 to 9999
/// that [`format_time`] writes for the rest of chrono's range), and converts it to UTC.
pub(crate) fn parse_time(field: &str, input: &str) -> Result<DateTime<Utc>, QueryError> {
    input
        .parse::<DateTime<Utc>>()
        .map_err(|_| QueryError::InvalidValue {
            field: field.to_owned(),
            input: shorten(input),
            expected: TIME_EXPECTED,
        })
}

/// Formats a time as RFC 3339 in UTC with `Z`, with as many fraction digits as needed.
pub(crate) fn format_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}
