//! Label key and value rules: Kubernetes qualified names and values, checked byte by byte.

use crate::limits::{MAX_NAME_LEN, MAX_PREFIX_LEN, MAX_VALUE_LEN};

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

/// `0x01` in every byte of a word, and the top bit of every byte: the constants of the
/// word-at-a-time checks below, which test eight bytes with a few integer operations.
const ONES: u64 = 0x0101_0101_0101_0101;
const TOPS: u64 = 0x8080_8080_8080_8080;

/// For a word of 7-bit bytes (`v`), the top bit of each byte in `lo..=hi`. No byte sum
/// carries into the next byte (each is below 0x100), so the bytes are tested independently.
#[inline(always)]
fn in_range(v: u64, lo: u8, hi: u8) -> u64 {
    let at_least_lo = v.wrapping_add(ONES * u64::from(0x80 - lo));
    let above_hi = v.wrapping_add(ONES * u64::from(0x7f - hi));
    at_least_lo & !above_hi & TOPS
}

/// The 8 bytes of `bytes` from `at` as a little-endian word (byte `at` lowest), zero past
/// the end. Zero is no name byte, so a scan stops at the end of the input.
#[inline(always)]
fn load(bytes: &[u8], at: usize) -> u64 {
    let rest = bytes.get(at..).unwrap_or(&[]);
    if let Some(chunk) = rest.first_chunk::<8>() {
        return u64::from_le_bytes(*chunk);
    }
    // Fewer than 8 bytes left: the input's last 8 shifted down, or one by one when shorter.
    match bytes.last_chunk::<8>() {
        Some(last) => u64::from_le_bytes(*last)
            .checked_shr(8 * (8 - rest.len() as u32))
            .unwrap_or(0),
        None => rest.iter().rev().fold(0, |w, &b| w << 8 | u64::from(b)),
    }
}

/// Whether `prefix` is a valid key prefix (a DNS-1123 subdomain of at most
/// [`MAX_PREFIX_LEN`] bytes): every byte lowercase, a digit, `-` or `.`, and the bytes at
/// both ends and on both sides of every `.` lowercase letters or digits. Eight bytes a step,
/// with the last byte's flags carried to the next word; [`check_key`] says why when it is
/// not.
#[inline]
pub(crate) fn is_prefix(prefix: &[u8]) -> bool {
    let len = prefix.len();
    if len == 0 || len > MAX_PREFIX_LEN || matches!(prefix.last(), Some(b'-' | b'.')) {
        return false;
    }
    let mut bad = 0;
    // A '.' before the first byte, so that a first '-' or '.' is refused like one after a dot.
    let (mut dot_before, mut punct_before) = (0x80, 0x80);
    let mut at = 0;
    while at < len {
        let w = load(prefix, at);
        let valid = TOPS >> (8 * (8 - (len - at).min(8)));
        let v = w & !TOPS;
        let punct = in_range(v, b'-', b'.') & valid;
        let dns = (punct | in_range(v, b'0', b'9') | in_range(v, b'a', b'z')) & !w;
        // '.' is even, '-' odd: the lowest bit of each byte, moved to its top bit.
        let dot = punct & !(v << 7);
        bad |= (valid & !dns)
            | (punct & (dot << 8 | dot_before))
            | (dot & (punct << 8 | punct_before));
        dot_before = dot >> 56;
        punct_before = punct >> 56;
        at += 8;
    }
    bad == 0
}

fn check_prefix(prefix: &str) -> Result<(), &'static str> {
    if is_prefix(prefix.as_bytes()) {
        return Ok(());
    }
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

#[cfg(test)]
mod tests;
