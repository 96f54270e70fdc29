//! Searching the wall clock: the next local date and time an expression matches, with no
//! time zone involved.

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};

use super::CronExpr;

/// The days of one Gregorian cycle: after 400 years the calendar, weekdays included, repeats,
/// so a search that finds nothing in this many days will never find anything.
const CYCLE_DAYS: u32 = 146_097;

/// The day-of-week bits of `*`: Sunday (0) to Saturday (6).
const ALL_WEEKDAYS: u8 = 0x7f;

impl CronExpr {
    /// Whether the day rule matches a date: Vixie cron's OR of day-of-month and day-of-week
    /// when both are restricted, AND when either starts with `*`.
    fn day_matches(&self, day: u32, weekday: u32) -> bool {
        let dom = self.days & (1 << day) != 0;
        let dow = self.weekdays & (1 << weekday) != 0;
        if self.day_and { dom && dow } else { dom || dow }
    }

    fn month_matches(&self, month: u32) -> bool {
        self.months & (1 << month) != 0
    }

    /// The first time of day at or after `from` (seconds since midnight) that matches the
    /// hour, minute and second fields.
    fn first_time_from(&self, from: u32) -> Option<NaiveTime> {
        let (h0, m0, s0) = (from / 3600, from / 60 % 60, from % 60);
        let mut hour = next_bit(u64::from(self.hours), h0)?;
        loop {
            let minute_from = if hour == h0 { m0 } else { 0 };
            let mut minute = next_bit(self.minutes, minute_from);
            while let Some(m) = minute {
                let second_from = if hour == h0 && m == m0 { s0 } else { 0 };
                if let Some(s) = next_bit(self.seconds, second_from) {
                    return NaiveTime::from_hms_opt(hour, m, s);
                }
                minute = next_bit(self.minutes, m + 1);
            }
            hour = next_bit(u64::from(self.hours), hour + 1)?;
        }
    }

    /// The first local date and time at or after `from` that the expression matches, or
    /// `None` when it never fires or the answer is past chrono's range.
    ///
    /// Every step moves at least a day forward, months that cannot match are skipped whole,
    /// and the walk stops after one 400-year cycle, so the work is bounded.
    pub(super) fn next_local_from(&self, from: NaiveDateTime) -> Option<NaiveDateTime> {
        if !self.fires {
            return None;
        }
        let last = from
            .date()
            .checked_add_days(chrono::Days::new(u64::from(CYCLE_DAYS)))
            .unwrap_or(NaiveDate::MAX);
        let mut date = from.date();
        let mut time_from = from.time().num_seconds_from_midnight();
        while date <= last {
            if !self.month_matches(date.month()) {
                date = self.next_month_start(date)?;
                time_from = 0;
                continue;
            }
            if self.day_matches(date.day(), date.weekday().num_days_from_sunday())
                && let Some(time) = self.first_time_from(time_from)
            {
                return Some(date.and_time(time));
            }
            date = self.next_day(date)?;
            time_from = 0;
        }
        None
    }

    /// The next date after `date` that can match. When only the day of the month decides
    /// (day-of-week is `*`), that is the next day in the field, or the next month; otherwise
    /// the next day (a weekday comes round within a week).
    fn next_day(&self, date: NaiveDate) -> Option<NaiveDate> {
        if self.day_and && self.weekdays == ALL_WEEKDAYS {
            return match next_bit(u64::from(self.days), date.day() + 1) {
                Some(day) => date.with_day(day).or_else(|| self.next_month_start(date)),
                None => self.next_month_start(date),
            };
        }
        date.succ_opt()
    }

    /// The first day of the next month after `date`'s that the month field allows.
    fn next_month_start(&self, date: NaiveDate) -> Option<NaiveDate> {
        match next_bit(u64::from(self.months), date.month() + 1) {
            Some(month) if month <= 12 => NaiveDate::from_ymd_opt(date.year(), month, 1),
            _ => {
                let month = next_bit(u64::from(self.months), 1)?;
                NaiveDate::from_ymd_opt(date.year().checked_add(1)?, month, 1)
            }
        }
    }
}

/// Whether some day of some allowed month matches the day rule, in some year. Every month
/// starts on every weekday, in leap and common years, within one 400-year cycle, so it is
/// enough to try each month length with each weekday of the first.
pub(super) fn can_fire(expr: &CronExpr) -> bool {
    (1..=12u32).filter(|&m| expr.month_matches(m)).any(|month| {
        let lengths: &[u32] = match month {
            2 => &[28, 29],
            4 | 6 | 9 | 11 => &[30],
            _ => &[31],
        };
        lengths.iter().any(|&length| {
            (0..7u32)
                .any(|first| (1..=length).any(|day| expr.day_matches(day, (first + day - 1) % 7)))
        })
    })
}

/// The lowest set bit of `bits` at or above `from`.
fn next_bit(bits: u64, from: u32) -> Option<u32> {
    let rest = bits.checked_shr(from)?.checked_shl(from)?;
    (rest != 0).then(|| rest.trailing_zeros())
}
