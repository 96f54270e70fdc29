//! How the text of one cron field becomes a set of values.

use model_ids::text::shorten;

use crate::{error::ScheduleError, field::CronField};

/// A parsed field: a bit for each value (bit `v` for value `v`), and whether the field's
/// text starts with `*`, which is what Vixie cron tests for its day rule and for telling
/// wildcard entries from fixed-time ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldSet {
    pub(crate) bits: u64,
    pub(crate) star: bool,
}

/// Parses the text of one field: a comma-separated list of `*`, `N`, `N-M`, `*/S` and
/// `N-M/S`, where `N` and `M` may be names in the month and day-of-week fields.
pub(crate) fn parse_field(
    path: &str,
    field: CronField,
    text: &str,
) -> Result<FieldSet, ScheduleError> {
    let mut bits = 0u64;
    for element in text.split(',') {
        bits |= parse_element(path, field, element)?;
    }
    if field == CronField::DayOfWeek && bits & (1 << 7) != 0 {
        // 7 is Sunday, as 0 is.
        bits = (bits & !(1 << 7)) | 1;
    }
    Ok(FieldSet {
        bits,
        star: text.starts_with('*'),
    })
}

/// The bits of one list element.
fn parse_element(path: &str, field: CronField, element: &str) -> Result<u64, ScheduleError> {
    let syntax = |reason| ScheduleError::CronSyntax {
        path: path.to_owned(),
        field,
        value: shorten(element),
        reason,
    };
    if element.is_empty() {
        return Err(syntax("empty list element"));
    }
    let (min, max) = field.range();
    let (range, step) = match element.split_once('/') {
        None => (element, None),
        Some((range, step)) => (range, Some(step)),
    };
    let (start, end) = if range == "*" {
        (min, max)
    } else if let Some((start, end)) = range.split_once('-') {
        let start = parse_value(path, field, start, element)?;
        let end = parse_value(path, field, end, element)?;
        if start > end {
            return Err(ScheduleError::CronReversedRange {
                path: path.to_owned(),
                field,
                value: shorten(element),
                start,
                end,
            });
        }
        (start, end)
    } else {
        if step.is_some() {
            return Err(syntax("a step follows * or a range, not a single value"));
        }
        let value = parse_value(path, field, range, element)?;
        (value, value)
    };
    let step = match step {
        None => 1,
        Some(step) => match parse_number(step) {
            Some(step) if step >= 1 => step,
            Some(_) => return Err(syntax("the step must be at least 1")),
            None => return Err(syntax("expected a number after \"/\"")),
        },
    };
    let mut bits = 0u64;
    let mut value = start;
    while value <= end {
        bits |= 1u64 << value;
        value = match value.checked_add(step) {
            Some(next) => next,
            None => break,
        };
    }
    Ok(bits)
}

/// A value of `field`: a number in its range, or one of its names.
fn parse_value(
    path: &str,
    field: CronField,
    text: &str,
    element: &str,
) -> Result<u32, ScheduleError> {
    let (min, max) = field.range();
    if let Some(value) = parse_number(text) {
        if value < min || value > max {
            return Err(ScheduleError::CronOutOfRange {
                path: path.to_owned(),
                field,
                value: shorten(text),
                min,
                max,
            });
        }
        return Ok(value);
    }
    let names = field.names();
    if let Some(index) = names
        .iter()
        .position(|name| name.eq_ignore_ascii_case(text))
    {
        return Ok(min + u32::try_from(index).unwrap_or(0));
    }
    let reason = match field {
        CronField::Month => "expected a number 1-12 or a month name jan-dec",
        CronField::DayOfWeek => "expected a number 0-7 or a day name sun-sat",
        CronField::Second | CronField::Minute | CronField::Hour | CronField::DayOfMonth => {
            "expected a number, a range N-M, or * (either with a step /S)"
        }
    };
    Err(ScheduleError::CronSyntax {
        path: path.to_owned(),
        field,
        value: shorten(element),
        reason,
    })
}

/// A decimal number of ASCII digits that fits in a `u32`, leading zeros allowed.
fn parse_number(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Digits only, so the only failure left is overflow; a number that large is out of
    // every range, so it reads as the largest `u32`.
    Some(text.parse::<u32>().unwrap_or(u32::MAX))
}
