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

/// Whether both `a` and `b` are ASCII letters or digits (a name's first and last bytes).
#[inline(always)]
pub(crate) fn are_alnum(a: u8, b: u8) -> bool {
    class(a) & class(b) & ALNUM != 0
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

/// Whether `b` may start or end a prefix's part: a lowercase letter or a digit.
#[inline(always)]
fn is_edge(b: Option<&u8>) -> bool {
    b.is_some_and(|&b| class(b) & (DNS | ALNUM) == DNS | ALNUM)
}

/// Whether `prefix` is a valid key prefix (a DNS-1123 subdomain of at most
/// [`MAX_PREFIX_LEN`] bytes): every byte lowercase, a digit, `-` or `.`, both ends lowercase
/// letters or digits, and no `.` beside a `.` or `-` (so every part starts and ends with a
/// letter or digit). Eight bytes a step ([`window_ok`]), in windows that overlap by one
/// byte so that every pair of neighbours is in one; [`check_key`] says why when it is not.
/// Out of line, so that a parser's scanning loops keep their registers.
#[inline(never)]
pub(crate) fn is_prefix(prefix: &[u8]) -> bool {
    prefix_by(prefix, window_ok)
}

/// [`is_prefix`] of a run of name bytes (`[A-Za-z0-9._-]`), as the parser's scan has read a
/// key's prefix: among those only `A`-`Z` and `_` are not prefix bytes, one range to test
/// ([`name_window_ok`]) instead of the three that make up the prefix bytes.
#[inline(never)]
pub(crate) fn is_name_prefix(prefix: &[u8]) -> bool {
    prefix_by(prefix, name_window_ok)
}

/// The prefix check with `ok` deciding each 8-byte window.
#[inline(always)]
fn prefix_by(prefix: &[u8], ok: impl Fn(u64) -> bool) -> bool {
    let n = prefix.len();
    if n > MAX_PREFIX_LEN || !is_edge(prefix.first()) || !is_edge(prefix.last()) {
        return false;
    }
    if n < 8 {
        // Padded with 'a', which is valid and beside which anything is.
        let pad = u64::MAX << (8 * n);
        return ok(crate::packed::Head::first_word(prefix) | (pad & (BYTES * u64::from(b'a'))));
    }
    let word = |at: usize| {
        prefix
            .get(at..)
            .and_then(<[u8]>::first_chunk::<8>)
            .map_or(0, |w| u64::from_le_bytes(*w))
    };
    let mut all = true;
    let mut at = 0;
    while at + 8 < n {
        all &= ok(word(at));
        at += 7;
    }
    all & ok(word(n - 8))
}

/// A `u64` with each byte 1: times a byte, that byte in every lane.
const BYTES: u64 = 0x0101_0101_0101_0101;

/// The top bit of each byte of `x` that is strictly between `m` and `n` (both at most 128),
/// and no other bit: per-byte arithmetic that never carries into the next byte (bytes of 128
/// or more are never marked).
#[inline(always)]
const fn between(x: u64, m: u64, n: u64) -> u64 {
    let low = x & (BYTES * 127);
    (BYTES * (127 + n)).wrapping_sub(low) & !x & (low + BYTES * (127 - m)) & (BYTES * 128)
}

/// Whether the 8 bytes of `x` (little-endian) are all prefix bytes with no `.` beside a `.`
/// or `-`.
#[inline(always)]
fn window_ok(x: u64) -> bool {
    let sep = between(x, b'-' as u64 - 1, b'.' as u64 + 1);
    let dot = between(x, b'.' as u64 - 1, b'.' as u64 + 1);
    let valid = sep
        | between(x, b'0' as u64 - 1, b'9' as u64 + 1)
        | between(x, b'a' as u64 - 1, b'z' as u64 + 1);
    // A byte marked in one mask whose next byte is marked in the other.
    let beside = ((dot << 8) & sep) | ((sep << 8) & dot);
    valid == BYTES * 128 && beside == 0
}

/// [`window_ok`] for 8 name bytes: none of them `A`-`Z` or `_` (the name bytes from 0x41
/// to 0x5f), and no `.` beside a `.` or `-`.
#[inline(always)]
fn name_window_ok(x: u64) -> bool {
    let bad = between(x, 0x40, 0x60);
    let sep = between(x, b'-' as u64 - 1, b'.' as u64 + 1);
    let dot = between(x, b'.' as u64 - 1, b'.' as u64 + 1);
    let beside = ((dot << 8) & sep) | ((sep << 8) & dot);
    bad | beside == 0
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
