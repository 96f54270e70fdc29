//! The compact string form labels and selectors share.
//!
//! Strings live in one arena `String` per value; a [`Span`] locates one of them, and its
//! [`word`] (the first 8 bytes, big-endian, zero-padded) lets most comparisons run on
//! integers. Keys and values never contain a zero byte, so for strings of at most 8 bytes
//! the word alone decides equality, and comparing words agrees with comparing bytes.
//!
//! Matching compares whole strings by a 64-bit hash first: a key by its [`key_hash`], a
//! value by its [`fingerprint`] (the word itself for values of at most 8 bytes). Equal
//! hashes of longer strings are confirmed by comparing their bytes, 16 at a time
//! ([`same_bytes`]), so no input can make two different strings compare equal.

use std::cmp::Ordering;

/// Where a string lives in an arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

impl Span {
    /// The string in `arena`.
    #[inline]
    pub(crate) fn get(self, arena: &str) -> &str {
        let start = self.start as usize;
        arena.get(start..start + self.len as usize).unwrap_or("")
    }

    /// The string's bytes in the arena's bytes, without a UTF-8 boundary check.
    #[inline(always)]
    pub(crate) fn bytes_in(self, arena: &[u8]) -> &[u8] {
        let start = self.start as usize;
        arena.get(start..start + self.len as usize).unwrap_or(&[])
    }
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
        self.span.get(arena)
    }

    /// The string's bytes in `arena`, without a UTF-8 boundary check.
    #[inline]
    pub(crate) fn bytes<'a>(&self, arena: &'a str) -> &'a [u8] {
        self.span.bytes_in(arena.as_bytes())
    }

    /// The string's bytes in the arena's bytes.
    #[inline(always)]
    pub(crate) fn bytes_in<'a>(&self, arena: &'a [u8]) -> &'a [u8] {
        self.span.bytes_in(arena)
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

/// A well-mixed 64-bit hash of a whole string (a key for the
/// [`KeyIndex`](crate::labels::KeyIndex), a value over 8 bytes for its [`fingerprint`]): the
/// prefix word, the length and any bytes past the first 8, through a 64-bit finalizer, so
/// every bit window of it is usable as a table index. Computed at construction only. For
/// keys of at most 8 bytes (no zero byte) it is one-to-one: the mix is invertible and the
/// word and length are recovered from what it mixes.
///
/// `prefix` is the string's [`word`].
#[inline]
pub(crate) fn key_hash(prefix: u64, key: &[u8]) -> u64 {
    let mut h = prefix ^ (key.len() as u64);
    if key.len() <= 8 {
        return mix(h);
    }
    let tail = key.get(8..).unwrap_or(&[]);
    let mut chunks = tail.chunks_exact(8);
    for chunk in chunks.by_ref() {
        h = mix(h) ^ word(chunk);
    }
    let rest = chunks.remainder().len();
    if rest > 0 {
        // The last, partial chunk's word, read as the key's last 8 bytes (the key has more
        // than 8) shifted past the bytes already hashed: the same value as `word(chunk)`,
        // without a loop over its bytes.
        let last = key.last_chunk::<8>().map_or(0, |b| u64::from_be_bytes(*b));
        h = mix(h) ^ last.checked_shl(8 * (8 - rest as u32)).unwrap_or(0);
    }
    mix(h)
}

/// The lowest byte of the [`fingerprint`] of a value over 8 bytes. No word of a shorter
/// value ends in it (their bytes are zero padding or printable), so a fingerprint says
/// which kind it is, and equal fingerprints of short values mean equal values.
const LONG: u64 = 1;

/// A value's fingerprint: its [`word`] when it has at most 8 bytes (exact), else a hash of
/// all its bytes whose lowest byte is [`LONG`], which equal values share and which two
/// different values share only by chance (then [`same_bytes`] tells them apart).
///
/// `word` is the value's [`word`].
#[inline]
pub(crate) fn fingerprint(word: u64, bytes: &[u8]) -> u64 {
    if bytes.len() <= 8 {
        word
    } else {
        (key_hash(word, bytes) & !0xff) | LONG
    }
}

/// Whether `fingerprint` is that of a value over 8 bytes, so equal fingerprints must be
/// confirmed by comparing bytes.
#[inline(always)]
pub(crate) fn is_long(fingerprint: u64) -> bool {
    fingerprint & 0xff == LONG
}

/// Whether two strings are equal, without a loop or a call to `memcmp` for strings of up to
/// 32 bytes: equal lengths, then for 16 bytes or more the first and the last 16 bytes (which
/// overlap when the string is shorter than 32) compared as two 128-bit integers, for 8 to
/// 15 bytes the first and the last 8 as two 64-bit ones. Only strings over 32 bytes compare
/// the bytes between as a slice.
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let len = a.len();
    if len != b.len() {
        return false;
    }
    if let (Some(head_a), Some(head_b), Some(last_a), Some(last_b)) = (
        a.first_chunk::<16>(),
        b.first_chunk::<16>(),
        a.last_chunk::<16>(),
        b.last_chunk::<16>(),
    ) {
        return (u128::from_ne_bytes(*head_a) == u128::from_ne_bytes(*head_b))
            & (u128::from_ne_bytes(*last_a) == u128::from_ne_bytes(*last_b))
            && (len <= 32 || a.get(16..len - 16) == b.get(16..len - 16));
    }
    if let (Some(head_a), Some(head_b), Some(last_a), Some(last_b)) = (
        a.first_chunk::<8>(),
        b.first_chunk::<8>(),
        a.last_chunk::<8>(),
        b.last_chunk::<8>(),
    ) {
        return (u64::from_ne_bytes(*head_a) == u64::from_ne_bytes(*head_b))
            & (u64::from_ne_bytes(*last_a) == u64::from_ne_bytes(*last_b));
    }
    a == b
}

/// The two ends of a string of 9 to 32 bytes as integers, which with its length decide
/// equality without a loop: its first and last 16 bytes when it has at least 16 (they
/// overlap below 32), else its first and last 8.
///
/// A requirement keeps its key's ends from construction, so a lookup reads only the label
/// set's bytes ([`Ends::same`]): two loads, each behind one bounds check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ends {
    head: u128,
    tail: u128,
}

impl Ends {
    /// The ends of the string at `span` in `arena`; zero for other lengths or a span
    /// outside `arena` (which no caller passes).
    #[inline]
    pub(crate) fn of(arena: &[u8], span: Span) -> Self {
        let start = span.start as usize;
        let end = start + span.len as usize;
        let (head, tail) = match span.len {
            16..=32 => (
                arena
                    .get(start..)
                    .and_then(<[u8]>::first_chunk::<16>)
                    .map(|h| u128::from_ne_bytes(*h)),
                arena
                    .get(..end)
                    .and_then(<[u8]>::last_chunk::<16>)
                    .map(|t| u128::from_ne_bytes(*t)),
            ),
            9..16 => (
                arena
                    .get(start..)
                    .and_then(<[u8]>::first_chunk::<8>)
                    .map(|h| u128::from(u64::from_ne_bytes(*h))),
                arena
                    .get(..end)
                    .and_then(<[u8]>::last_chunk::<8>)
                    .map(|t| u128::from(u64::from_ne_bytes(*t))),
            ),
            _ => (None, None),
        };
        Self {
            head: head.unwrap_or(0),
            tail: tail.unwrap_or(0),
        }
    }

    /// Whether the string at `span` in `arena`, which has the length of the string these
    /// are the ends of (9 to 32 bytes), is that string.
    #[inline(always)]
    pub(crate) fn same(&self, arena: &[u8], span: Span) -> bool {
        let start = span.start as usize;
        let end = start + span.len as usize;
        if span.len >= 16 {
            let (Some(head), Some(tail)) = (
                arena.get(start..start + 16),
                arena.get(end.wrapping_sub(16)..end),
            ) else {
                return false;
            };
            let (Some(head), Some(tail)) = (head.first_chunk::<16>(), tail.first_chunk::<16>())
            else {
                return false;
            };
            (u128::from_ne_bytes(*head) == self.head) & (u128::from_ne_bytes(*tail) == self.tail)
        } else {
            let (Some(head), Some(tail)) = (
                arena.get(start..start + 8),
                arena.get(end.wrapping_sub(8)..end),
            ) else {
                return false;
            };
            let (Some(head), Some(tail)) = (head.first_chunk::<8>(), tail.first_chunk::<8>())
            else {
                return false;
            };
            (u128::from(u64::from_ne_bytes(*head)) == self.head)
                & (u128::from(u64::from_ne_bytes(*tail)) == self.tail)
        }
    }
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

#[cfg(test)]
mod tests;
