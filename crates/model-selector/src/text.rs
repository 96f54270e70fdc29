//! Label key and value rules, and the compact string form both labels and selectors use.
//!
//! Strings live in one arena `String` per value; a [`Span`] locates one of them, and its
//! [`word`] (the first 8 bytes, big-endian, zero-padded) lets most comparisons run on
//! integers. Keys and values never contain a zero byte, so for strings of at most 8 bytes
//! the word alone decides equality, and comparing words agrees with comparing bytes.

use std::cmp::Ordering;

use crate::limits::{MAX_NAME_LEN, MAX_PREFIX_LEN, MAX_VALUE_LEN};

/// Where a string lives in an arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

/// A string in an arena with its prefix word.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Packed {
    pub(crate) word: u64,
    pub(crate) span: Span,
}

impl Packed {
    /// Appends `s` to `arena` and returns where it went.
    ///
    /// Callers bound the arena (labels and requirements are counted and length-checked
    /// before they are pushed), so the offsets always fit in `u32`.
    pub(crate) fn push(arena: &mut String, s: &str) -> Self {
        let start = u32::try_from(arena.len()).unwrap_or(u32::MAX);
        arena.push_str(s);
        Self {
            word: word(s.as_bytes()),
            span: Span {
                start,
                len: u32::try_from(s.len()).unwrap_or(u32::MAX),
            },
        }
    }

    /// The `len` bytes already in `arena` at byte `start`.
    #[inline]
    pub(crate) fn at(arena: &str, start: usize, len: usize) -> Self {
        let bytes = arena.as_bytes();
        // Read 8 bytes of the arena when there are, and clear those past the string.
        let word = match bytes.get(start..).and_then(<[u8]>::first_chunk::<8>) {
            Some(head) if len < 8 => u64::from_be_bytes(*head) & !(u64::MAX >> (8 * len)),
            Some(head) => u64::from_be_bytes(*head),
            None => word(bytes.get(start..start + len).unwrap_or(&[])),
        };
        Self {
            word,
            span: Span {
                start: u32::try_from(start).unwrap_or(u32::MAX),
                len: u32::try_from(len).unwrap_or(u32::MAX),
            },
        }
    }

    /// The string in `arena`.
    #[inline]
    pub(crate) fn get<'a>(&self, arena: &'a str) -> &'a str {
        let start = self.span.start as usize;
        arena
            .get(start..start + self.span.len as usize)
            .unwrap_or("")
    }

    /// The string's bytes in `arena`, without a UTF-8 boundary check.
    #[inline]
    pub(crate) fn bytes<'a>(&self, arena: &'a str) -> &'a [u8] {
        let start = self.span.start as usize;
        arena
            .as_bytes()
            .get(start..start + self.span.len as usize)
            .unwrap_or(&[])
    }

    /// The bytes after the first 8, which the word does not hold.
    #[inline]
    fn tail<'a>(&self, arena: &'a str) -> &'a [u8] {
        if self.span.len <= 8 {
            return &[];
        }
        let start = self.span.start as usize;
        arena
            .as_bytes()
            .get(start + 8..start + self.span.len as usize)
            .unwrap_or(&[])
    }

    /// Byte-order comparison of two packed strings, integers first.
    #[inline(always)]
    pub(crate) fn cmp_in(&self, arena: &str, other: &Packed, other_arena: &str) -> Ordering {
        match self.word.cmp(&other.word) {
            Ordering::Equal if self.span.len <= 8 && other.span.len <= 8 => Ordering::Equal,
            Ordering::Equal => self.tail(arena).cmp(other.tail(other_arena)),
            unequal => unequal,
        }
    }

    /// Equality of two packed strings, integers first.
    #[inline(always)]
    pub(crate) fn eq_in(&self, arena: &str, other: &Packed, other_arena: &str) -> bool {
        self.word == other.word
            && self.span.len == other.span.len
            && (self.span.len <= 8 || self.tail(arena) == other.tail(other_arena))
    }
}

/// The first 8 bytes of `s`, big-endian, zero-padded.
#[inline]
pub(crate) fn word(s: &[u8]) -> u64 {
    if let Some(head) = s.first_chunk::<8>() {
        return u64::from_be_bytes(*head);
    }
    let mut word = 0_u64;
    for (i, &b) in s.iter().take(8).enumerate() {
        word |= u64::from(b) << (56 - 8 * i);
    }
    word
}

/// Byte classes, one bit each: name bytes, alphanumerics, DNS-1123 subdomain bytes.
const NAME: u8 = 1;
const ALNUM: u8 = 2;
const DNS: u8 = 4;

#[allow(
    clippy::indexing_slicing,
    reason = "b runs over 0..256, the table's length; indexing is the only way in a const block"
)]
const CLASSES: [u8; 256] = {
    let mut table = [0_u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() {
            table[b] |= NAME | ALNUM;
        }
        if matches!(c, b'-' | b'_' | b'.') {
            table[b] |= NAME;
        }
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'.' {
            table[b] |= DNS;
        }
        b += 1;
    }
    table
};

/// The class bits of `b`.
#[inline]
#[allow(
    clippy::indexing_slicing,
    reason = "a u8 is always below 256, the table's length; the check compiles away"
)]
fn class(b: u8) -> u8 {
    CLASSES[usize::from(b)]
}

/// Whether `b` may appear in a name or value (`[A-Za-z0-9-_.]`).
#[inline]
pub(crate) fn is_name_byte(b: u8) -> bool {
    class(b) & NAME != 0
}

/// Checks a label key: an optional DNS-1123 subdomain prefix and `/`, then a name.
///
/// Returns the reason when the key is invalid.
pub(crate) fn check_key(key: &str) -> Result<(), &'static str> {
    let name = match key.bytes().position(|b| b == b'/') {
        Some(slash) => {
            check_prefix(key.get(..slash).unwrap_or(""))?;
            key.get(slash + 1..).unwrap_or("")
        }
        None => key,
    };
    if name.is_empty() {
        return Err("the name part must not be empty");
    }
    check_name(name)
}

/// Checks a label value: empty, or a name.
pub(crate) fn check_value(value: &str) -> Result<(), &'static str> {
    if value.is_empty() {
        return Ok(());
    }
    if value.len() > MAX_VALUE_LEN {
        return Err("a value must be at most 63 bytes");
    }
    check_name(value)
}

fn check_name(name: &str) -> Result<(), &'static str> {
    if name.len() > MAX_NAME_LEN {
        return Err("a name must be at most 63 bytes");
    }
    let bytes = name.as_bytes();
    let alnum = |b: &u8| class(*b) & ALNUM != 0;
    if !bytes.first().is_some_and(alnum) || !bytes.last().is_some_and(alnum) {
        return Err("a name must start and end with an ASCII letter or digit");
    }
    if !bytes.iter().all(|&b| is_name_byte(b)) {
        return Err("a name may contain only ASCII letters, digits, '-', '_' and '.'");
    }
    Ok(())
}

fn check_prefix(prefix: &str) -> Result<(), &'static str> {
    if prefix.is_empty() {
        return Err("the prefix before '/' must not be empty");
    }
    if prefix.len() > MAX_PREFIX_LEN {
        return Err("the prefix must be at most 253 bytes");
    }
    for part in prefix.split('.') {
        let bytes = part.as_bytes();
        let edge = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
        if !bytes.first().is_some_and(edge) || !bytes.last().is_some_and(edge) {
            return Err(
                "the prefix must be a DNS-1123 subdomain: dot-separated parts that start and end with a lowercase letter or digit",
            );
        }
        if !bytes.iter().all(|&b| class(b) & DNS != 0 && b != b'.') {
            return Err(
                "the prefix must be a DNS-1123 subdomain: only lowercase letters, digits, '-' and '.'",
            );
        }
    }
    Ok(())
}

/// Quotes input for an error message, shortened when long.
pub(crate) fn quote(s: &str) -> String {
    const KEEP: usize = 48;
    if s.len() <= KEEP {
        return format!("{s:?}");
    }
    let mut end = KEEP;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}...", &s[..end])
}

/// Parses a decimal `i64` from bytes, accepting exactly what `i64::from_str` accepts
/// (an optional sign, then one or more ASCII digits, no overflow).
#[inline]
pub(crate) fn parse_i64(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, bytes),
    };
    if digits.is_empty() {
        return None;
    }
    let mut n: i64 = 0;
    for &b in digits {
        let d = i64::from(b.wrapping_sub(b'0'));
        if !(0..=9).contains(&d) {
            return None;
        }
        n = n.checked_mul(10)?;
        n = if negative {
            n.checked_sub(d)?
        } else {
            n.checked_add(d)?
        };
    }
    Some(n)
}

/// A well-mixed 64-bit hash of a whole key, for [`KeyIndex`](crate::labels::KeyIndex):
/// the prefix word, the length and any bytes past the first 8, through a 64-bit finalizer,
/// so every bit window of it is usable as a table index. Computed at construction only.
///
/// `prefix` is the key's [`word`].
#[inline]
pub(crate) fn key_hash(prefix: u64, key: &[u8]) -> u64 {
    let mut h = prefix ^ (key.len() as u64);
    if key.len() <= 8 {
        return mix(h);
    }
    for chunk in key.get(8..).unwrap_or(&[]).chunks(8) {
        h = mix(h) ^ word(chunk);
    }
    mix(h)
}

/// The 64-bit finalizer of MurmurHash3 (an invertible mix of all bits).
#[inline]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}
