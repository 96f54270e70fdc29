//! Base-36 display slugs for numeric ids: 12345 is shown as "9ix".

use std::{fmt, str::FromStr};

use super::kind::IdKind;
use crate::error::IdError;

/// The longest slug [`encode_base36`] writes, and the longest input [`decode_base36`]
/// accepts: 13 characters, the length of `u64::MAX` in base 36 ("3w5e11264sgsf").
pub const BASE36_MAX_LEN: usize = 13;

/// The characters a slug may hold, as error messages spell them.
pub(crate) const BASE36_ALLOWED: &str = "0-9 a-z A-Z";

/// `u64::MAX` in base 36, quoted by the overflow error.
pub(crate) const BASE36_U64_MAX: &str = "3w5e11264sgsf";

/// The canonical (lowercase) digits.
const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// A `u64` shown as a base-36 slug: `Display` writes the canonical lowercase form
/// without allocating, and `FromStr` parses with the rules of [`decode_base36`].
///
/// `Display` honours width, fill and alignment (`{:>8}`).
///
/// ```
/// use model_ids::Base36;
///
/// assert_eq!(Base36(12345).to_string(), "9ix");
/// assert_eq!(format!("t-{}", Base36(35)), "t-z");
/// assert_eq!("9IX".parse::<Base36>(), Ok(Base36(12345)));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Base36(pub u64);

impl Base36 {
    /// Writes the digits into the end of `buf` and returns where they start.
    fn write_digits(self, buf: &mut [u8; BASE36_MAX_LEN]) -> usize {
        let mut rest = self.0;
        let mut start = BASE36_MAX_LEN;
        // `start` never underflows: u64::MAX has exactly BASE36_MAX_LEN digits.
        for slot in buf.iter_mut().rev() {
            #[allow(
                clippy::indexing_slicing,
                reason = "rest % 36 is below 36, the length of DIGITS"
            )]
            let digit = DIGITS[(rest % 36) as usize];
            *slot = digit;
            start -= 1;
            rest /= 36;
            if rest == 0 {
                break;
            }
        }
        start
    }
}

impl fmt::Display for Base36 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; BASE36_MAX_LEN];
        let start = self.write_digits(&mut buf);
        let digits = buf.get(start..).ok_or(fmt::Error)?;
        f.pad(std::str::from_utf8(digits).map_err(|_| fmt::Error)?)
    }
}

impl FromStr for Base36 {
    type Err = IdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        decode_base36(s).map(Base36)
    }
}

impl From<u64> for Base36 {
    fn from(value: u64) -> Self {
        Base36(value)
    }
}

impl From<Base36> for u64 {
    fn from(value: Base36) -> Self {
        value.0
    }
}

/// Encodes `value` as a lowercase base-36 slug: `0` is `"0"`, `12345` is `"9ix"`, and
/// `u64::MAX` is `"3w5e11264sgsf"` ([`BASE36_MAX_LEN`] characters). This is the canonical
/// form: no leading zeros, no uppercase. Use [`Base36`] to write it without allocating.
///
/// ```
/// assert_eq!(model_ids::encode_base36(12345), "9ix");
/// ```
pub fn encode_base36(value: u64) -> String {
    let mut buf = [0u8; BASE36_MAX_LEN];
    let start = Base36(value).write_digits(&mut buf);
    buf.iter().skip(start).map(|&b| char::from(b)).collect()
}

/// Decodes a base-36 slug back to its `u64`.
///
/// Accepted: 1 to [`BASE36_MAX_LEN`] characters from `0-9`, `a-z` and, for input typed or
/// copied by people, `A-Z` (read as `a-z`). Leading zeros are accepted within that length.
/// [`encode_base36`] writes the canonical form, so `decode_base36(&encode_base36(n)) == Ok(n)`
/// for every `n`, and `encode_base36(decode_base36(s)?)` is the canonical spelling of `s`.
///
/// # Errors
///
/// An [`IdError`] of kind [`IdKind::Base36Slug`]: [`IdError::Empty`],
/// [`IdError::TooLong`] (more than [`BASE36_MAX_LEN`] bytes), [`IdError::InvalidChar`]
/// (the first other character and its byte offset), or [`IdError::Overflow`] (greater
/// than `u64::MAX`, "3w5e11264sgsf").
///
/// ```
/// use model_ids::{decode_base36, IdError};
///
/// assert_eq!(decode_base36("9ix"), Ok(12345));
/// assert_eq!(decode_base36("9IX"), Ok(12345));
/// assert!(matches!(decode_base36("9i-x"), Err(IdError::InvalidChar { ch: '-', index: 2, .. })));
/// assert!(matches!(decode_base36("3w5e11264sgsg"), Err(IdError::Overflow { .. })));
/// ```
pub fn decode_base36(input: &str) -> Result<u64, IdError> {
    const KIND: IdKind = IdKind::Base36Slug;
    if input.is_empty() {
        return Err(IdError::empty(KIND));
    }
    if input.len() > BASE36_MAX_LEN {
        return Err(IdError::too_long(KIND, input, BASE36_MAX_LEN));
    }
    let mut value: u64 = 0;
    for (index, byte) in input.bytes().enumerate() {
        let digit = match byte {
            b'0'..=b'9' => byte - b'0',
            b'a'..=b'z' => byte - b'a' + 10,
            b'A'..=b'Z' => byte - b'A' + 10,
            _ => return Err(IdError::invalid_char(KIND, input, index)),
        };
        // Only a 13th digit can overflow, so an invalid character earlier is reported first.
        value = value
            .checked_mul(36)
            .and_then(|v| v.checked_add(u64::from(digit)))
            .ok_or_else(|| IdError::overflow(KIND, input))?;
    }
    Ok(value)
}

#[cfg(test)]
mod tests;
