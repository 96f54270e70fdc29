//! The compact string form labels and selectors share.
//!
//! Strings live in one arena `String` per value; a [`Span`] locates one of them, and its
//! [`word`] (the first 8 bytes, big-endian, zero-padded) lets most comparisons run on
//! integers. Keys and values never contain a zero byte, so for strings of at most 8 bytes
//! the word alone decides equality, and comparing words agrees with comparing bytes.

use std::cmp::Ordering;

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
