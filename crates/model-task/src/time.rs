//! Timestamps on the wire, written and read without chrono's formatting machinery where the
//! text has the one form this crate writes.
//!
//! Every timestamp of a task or an attempt is written as chrono writes it (RFC 3339 in UTC,
//! `Z`, the fraction in 0, 3, 6 or 9 digits as the value needs), and a store reads each of
//! them back at every claim. chrono writes through `core::fmt` and reads through its
//! general parser: about 1,200 and 1,800 instructions a timestamp, a tenth of what a store
//! spends on a claim. [`write`] puts the digits in a stack buffer, and [`read`] reads
//! `YYYY-MM-DDTHH:MM:SS[.f]Z` with its digits in place. Everything else (years outside
//! 0 to 9999, a leap second, an offset, a lower-case `t` or `z`, a space for `T`, more
//! than nine fraction digits, and every malformed text) goes to chrono itself, so the
//! texts, values and errors are exactly chrono's (a property test holds both to it).

use std::fmt;

use chrono::{DateTime, FixedOffset, NaiveDate, SecondsFormat, Timelike, Utc};
use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

/// The longest text [`write`] makes itself: `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`.
const LONGEST: usize = 30;

/// `at` as chrono's serde writes it (`to_rfc3339_opts(SecondsFormat::AutoSi, true)`).
pub(crate) fn write<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    let mut buffer = [0u8; LONGEST];
    match text(at, &mut buffer) {
        Some(text) => serializer.serialize_str(text),
        None => serializer.serialize_str(&at.to_rfc3339_opts(SecondsFormat::AutoSi, true)),
    }
}

/// [`write`] for an optional timestamp (`None` as chrono's serde writes it, `null`).
pub(crate) fn write_option<S: Serializer>(
    at: &Option<DateTime<Utc>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match at {
        Some(at) => write(at, serializer),
        None => serializer.serialize_none(),
    }
}

/// A timestamp as chrono's serde reads it: RFC 3339 with any offset, turned to UTC.
pub(crate) fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
    deserializer.deserialize_str(TimeVisitor)
}

/// [`read`] for an optional timestamp (`null` is `None`).
pub(crate) fn read_option<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<DateTime<Utc>>, D::Error> {
    deserializer.deserialize_option(OptionVisitor)
}

/// Reads a timestamp's text.
struct TimeVisitor;

impl Visitor<'_> for TimeVisitor {
    type Value = DateTime<Utc>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        // chrono's words, so that a wrong type reads as it did.
        formatter.write_str("an RFC 3339 formatted date and time string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        if let Some(at) = parse(text.as_bytes()) {
            return Ok(at);
        }
        text.parse::<DateTime<FixedOffset>>()
            .map(|at| at.with_timezone(&Utc))
            .map_err(E::custom)
    }
}

/// Reads an optional timestamp.
struct OptionVisitor;

impl<'de> Visitor<'de> for OptionVisitor {
    type Value = Option<DateTime<Utc>>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a formatted date and time string or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        read(deserializer).map(Some)
    }
}

/// `at`'s text in `buffer`, as chrono writes it; `None` when the year is outside 0 to 9999
/// or the second is a leap second (chrono writes those).
fn text<'b>(at: &DateTime<Utc>, buffer: &'b mut [u8; LONGEST]) -> Option<&'b str> {
    let naive = at.naive_utc();
    let date = naive.date();
    let time = naive.time();
    let year = u32::try_from(chrono::Datelike::year(&date)).ok()?;
    let nanos = time.nanosecond();
    if year > 9_999 || nanos >= 1_000_000_000 {
        return None;
    }
    let fields = [
        (year, 4),
        (chrono::Datelike::month(&date), 2),
        (chrono::Datelike::day(&date), 2),
        (time.hour(), 2),
        (time.minute(), 2),
        (time.second(), 2),
    ];
    let separators = [b'-', b'-', b'T', b':', b':'];
    let mut at = 0;
    for (index, (value, width)) in fields.into_iter().enumerate() {
        digits(buffer, &mut at, value, width);
        if let Some(&separator) = separators.get(index) {
            put(buffer, &mut at, separator);
        }
    }
    let (fraction, width) = if nanos == 0 {
        (0, 0)
    } else if nanos.is_multiple_of(1_000_000) {
        (nanos / 1_000_000, 3)
    } else if nanos.is_multiple_of(1_000) {
        (nanos / 1_000, 6)
    } else {
        (nanos, 9)
    };
    if width > 0 {
        put(buffer, &mut at, b'.');
        digits(buffer, &mut at, fraction, width);
    }
    put(buffer, &mut at, b'Z');
    std::str::from_utf8(buffer.get(..at)?).ok()
}

/// Writes `value`'s last `width` decimal digits at `*at`, and moves `*at` past them.
fn digits(buffer: &mut [u8], at: &mut usize, mut value: u32, width: usize) {
    for place in (*at..*at + width).rev() {
        if let Some(byte) = buffer.get_mut(place) {
            // `value % 10` is a digit.
            *byte = b'0' + (value % 10) as u8;
        }
        value /= 10;
    }
    *at += width;
}

/// Writes `byte` at `*at` and moves `*at` past it.
fn put(buffer: &mut [u8], at: &mut usize, byte: u8) {
    if let Some(place) = buffer.get_mut(*at) {
        *place = byte;
    }
    *at += 1;
}

/// `YYYY-MM-DDTHH:MM:SS[.f]Z` with one to nine fraction digits and a second below 60;
/// `None` for every other text (chrono then reads it), and for a date or time that does
/// not exist (chrono then says why).
fn parse(text: &[u8]) -> Option<DateTime<Utc>> {
    let (&last, body) = text.split_last()?;
    if last != b'Z' || body.len() < 19 {
        return None;
    }
    let (whole, fraction) = body.split_at(19);
    let separators = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
    if separators
        .iter()
        .any(|&(place, byte)| whole.get(place) != Some(&byte))
    {
        return None;
    }
    let year = number(whole.get(0..4)?)?;
    let month = number(whole.get(5..7)?)?;
    let day = number(whole.get(8..10)?)?;
    let hour = number(whole.get(11..13)?)?;
    let minute = number(whole.get(14..16)?)?;
    // A second of 60 (a leap second) makes no time here, and chrono reads it.
    let second = number(whole.get(17..19)?)?;
    let nanos = match fraction.split_first() {
        None => 0,
        Some((b'.', digits)) if (1..=9).contains(&digits.len()) => {
            let value = number(digits)?;
            value * 10u32.pow(9 - digits.len() as u32)
        }
        Some(_) => return None,
    };
    let year = i32::try_from(year).ok()?;
    Some(
        NaiveDate::from_ymd_opt(year, month, day)?
            .and_hms_nano_opt(hour, minute, second, nanos)?
            .and_utc(),
    )
}

/// The decimal number `digits` spells (at most nine digits, so it fits); `None` if any
/// byte is not a digit.
fn number(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |value, &byte| {
        byte.is_ascii_digit()
            .then(|| value * 10 + u32::from(byte - b'0'))
    })
}

#[cfg(test)]
mod tests;
