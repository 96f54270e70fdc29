//! `CronField`: the fields of a cron expression, their names and ranges.

use std::fmt;

/// A field of a cron expression, in the order a six-field expression writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CronField {
    /// Seconds, 0-59 (only in a six-field expression, first).
    Second,
    /// Minutes, 0-59.
    Minute,
    /// Hours, 0-23.
    Hour,
    /// Day of the month, 1-31.
    DayOfMonth,
    /// Month, 1-12 or `jan`-`dec`.
    Month,
    /// Day of the week, 0-7 (0 and 7 are Sunday) or `sun`-`sat`.
    DayOfWeek,
}

impl CronField {
    /// The name used in messages: `second`, `minute`, `hour`, `day-of-month`, `month`,
    /// `day-of-week`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            CronField::Second => "second",
            CronField::Minute => "minute",
            CronField::Hour => "hour",
            CronField::DayOfMonth => "day-of-month",
            CronField::Month => "month",
            CronField::DayOfWeek => "day-of-week",
        }
    }

    /// The smallest and largest value the field accepts (day-of-week accepts 7 for Sunday).
    #[must_use]
    pub const fn range(self) -> (u32, u32) {
        match self {
            CronField::Second | CronField::Minute => (0, 59),
            CronField::Hour => (0, 23),
            CronField::DayOfMonth => (1, 31),
            CronField::Month => (1, 12),
            CronField::DayOfWeek => (0, 7),
        }
    }

    /// The three-letter names the field accepts, lowercase, for values from its minimum.
    pub(crate) const fn names(self) -> &'static [&'static str] {
        match self {
            CronField::Month => &[
                "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
            ],
            CronField::DayOfWeek => &["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
            CronField::Second | CronField::Minute | CronField::Hour | CronField::DayOfMonth => &[],
        }
    }
}

impl fmt::Display for CronField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}
