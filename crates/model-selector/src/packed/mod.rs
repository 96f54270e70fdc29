//! The compact string form labels and selectors share.
//!
//! Strings live in one arena `String` per value; a [`Span`] locates one of them, and its
//! [`word`] (the first 8 bytes, big-endian, zero-padded) lets most comparisons run on
//! integers. Keys and values never contain a zero byte, so for strings of at most 8 bytes
//! the word alone decides equality, and comparing words agrees with comparing bytes.
//!
//! Matching compares a key or a single value by its [`Head`] (its first 32 bytes as four
//! words, which decide strings of at most 32 bytes); a key's [`key_hash`] only finds its
//! slot. A value in a list is found by its [`fingerprint`] (the head's first word for values
//! of at most 8 bytes, else a hash), and equal hashes are confirmed by the listed value's head or,
//! past 32 bytes, by comparing bytes 16 at a time ([`same_bytes`]), so no input can make two
//! different strings compare equal: a collision costs a comparison, never a wrong answer.

use std::cmp::Ordering;

/// Where a string lives in an arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

impl Span {
    /// The `len` bytes at byte `start`. Callers bound arenas (labels and requirements are
    /// counted and length-checked first), so the offsets always fit in `u32`.
    #[inline(always)]
    pub(crate) fn new(start: usize, len: usize) -> Self {
        Self {
            start: u32::try_from(start).unwrap_or(u32::MAX),
            len: u32::try_from(len).unwrap_or(u32::MAX),
        }
    }

    /// [`Span::new`] for offsets known to be under 2^32: the parser's, in a text of at most
    /// [`MAX_SELECTOR_TEXT_LEN`](crate::MAX_SELECTOR_TEXT_LEN) bytes. Keeps the low 32 bits
    /// (all of them there), with no test.
    #[inline(always)]
    #[allow(
        clippy::cast_possible_truncation,
        reason = "callers' offsets are under 2^32 (a parsed text is at most 1 MiB)"
    )]
    pub(crate) fn in_text(start: usize, len: usize) -> Self {
        debug_assert!(start <= u32::MAX as usize && len <= u32::MAX as usize);
        Self {
            start: start as u32,
            len: len as u32,
        }
    }

    /// Appends `s` to `arena` and returns where it went.
    pub(crate) fn push(arena: &mut String, s: &str) -> Self {
        let start = arena.len();
        arena.push_str(s);
        Self::new(start, s.len())
    }

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
    short_word(s).swap_bytes()
}

/// The bytes of `s` from `at` on, at most 8, as a little-endian word, zero-padded.
#[inline(always)]
fn part(s: &[u8], at: usize) -> u64 {
    if let Some(chunk) = s.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        return u64::from_le_bytes(*chunk);
    }
    let rest = s.len().saturating_sub(at);
    if rest == 0 {
        return 0;
    }
    match s.last_chunk::<8>() {
        // The string's last 8 bytes, shifted past those before `at`.
        Some(last) => u64::from_le_bytes(*last) >> (8 * (8 - rest)),
        // Under 8 bytes, so `at` is 0.
        None => short_word(s),
    }
}

/// The bytes of `s` (fewer than 8) as a little-endian word, zero-padded: two overlapping
/// loads, or three bytes, instead of a loop or a copy.
#[inline(always)]
fn short_word(s: &[u8]) -> u64 {
    let n = s.len();
    if let (Some(first), Some(last)) = (s.first_chunk::<4>(), s.last_chunk::<4>()) {
        // 4 to 7 bytes: the first four and the last four, which overlap.
        return u64::from(u32::from_le_bytes(*first))
            | u64::from(u32::from_le_bytes(*last)) << (8 * (n - 4));
    }
    match (s.first(), s.get(n / 2), s.last()) {
        (Some(&a), Some(&b), Some(&c)) => {
            u64::from(a) | u64::from(b) << (8 * (n / 2)) | u64::from(c) << (8 * (n - 1))
        }
        _ => 0,
    }
}

/// A well-mixed 64-bit hash of a whole string (a key for the
/// [`KeyIndex`](crate::labels::KeyIndex), a value over 8 bytes for its [`fingerprint`]): the
/// string's 8-byte little-endian words, the first xored with the length, through a 64-bit
/// finalizer, so every bit window of it is usable as a table index. The words of the first
/// 32 bytes are those of the string's [`Head`], which the caller has computed already.
/// Computed at construction only. For keys of at most 8 bytes (no zero byte) it is
/// one-to-one: the mix is invertible, and the word and length are recovered from what it
/// mixes.
///
/// `head` is the string's [`Head`].
#[inline]
pub(crate) fn key_hash(head: &Head, key: &[u8]) -> u64 {
    let n = key.len();
    let [a, b, c, d] = head.0;
    let mut h = a ^ n as u64;
    if n > 8 {
        h = mix(h) ^ b;
        if n > 16 {
            h = mix(h) ^ c;
            if n > 24 {
                h = mix(h) ^ (d & !LONG_HEAD);
                let mut at = 32;
                while at < n {
                    h = mix(h) ^ part(key, at);
                    at += 8;
                }
            }
        }
    }
    mix(h)
}

/// [`key_hash`] of a key of at most 8 bytes whose [`Head`]'s first word is `word` and whose
/// length is `len`.
#[inline(always)]
pub(crate) fn short_key_hash(word: u64, len: u32) -> u64 {
    mix(word ^ u64::from(len))
}

/// The lowest byte of the [`fingerprint`] of a value over 8 bytes. No word of a shorter
/// value has it (its lowest byte is the value's first, printable, or zero for the empty
/// value), so a fingerprint says which kind it is, and equal fingerprints of short values
/// mean equal values.
const LONG: u64 = 1;

/// A value's fingerprint: for at most 8 bytes the first word of its [`Head`] (exact), else
/// a hash of all its bytes whose lowest byte is [`LONG`], which equal values share and which
/// two different values share only by chance (then the head or [`same_bytes`] tells them
/// apart).
///
/// `head` is the value's [`Head`].
#[inline]
pub(crate) fn fingerprint(head: &Head, bytes: &[u8]) -> u64 {
    if bytes.len() <= 8 {
        head.0[0]
    } else {
        (key_hash(head, bytes) & !0xff) | LONG
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

/// The first 32 bytes of a key or value as four little-endian words, zero-padded, with the
/// top bit of the last word set when the string is longer than 32 bytes ([`Head::is_long`]).
///
/// Keys and values are ASCII without a zero byte, so for strings of at most 32 bytes equal
/// heads mean equal strings (the padding says where each ends, so the lengths are equal
/// too), and a longer string's head equals no shorter string's (no ASCII byte has its top
/// bit set). Equal heads of two longer strings say only that their first 32 bytes agree;
/// [`same_bytes`] decides. A label set keeps the heads of its keys and values and a
/// requirement those of its key and its one value, from construction, so a lookup compares
/// four words with four words and reads no string.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Head(pub(crate) [u64; 4]);

impl Head {
    /// The head of `s`: each word loaded whole, or the last partial one read from the
    /// string's last 8 bytes (or, under 8 bytes, by [`short_word`]); no loop, no copy, and
    /// the words past the string's end are zero without reading anything.
    #[inline(always)]
    pub(crate) fn of(s: &[u8]) -> Self {
        let n = s.len();
        let mut words = [part(s, 0), 0, 0, 0];
        if n > 8 {
            words[1] = part(s, 8);
            if n > 16 {
                words[2] = part(s, 16);
                if n > 24 {
                    words[3] = part(s, 24);
                    if n > 32 {
                        words[3] |= LONG_HEAD;
                    }
                }
            }
        }
        Self(words)
    }

    /// The first word of the head of `s`: for strings of at most 8 bytes, their
    /// [`fingerprint`].
    #[inline(always)]
    pub(crate) fn first_word(s: &[u8]) -> u64 {
        part(s, 0)
    }

    /// [`Head::first_word`] of the string at `s`, of at most 8 bytes, in `arena`: one 8-byte
    /// load from the string's start with the bytes past it cleared, when the arena has 8
    /// bytes from there (no slice of the string, no tests of its length), else
    /// [`Head::first_word`].
    #[inline(always)]
    pub(crate) fn short_word_in(arena: &[u8], s: Span) -> u64 {
        let keep = u64::MAX.checked_shr(64 - 8 * s.len).unwrap_or(0);
        match arena
            .get(s.start as usize..)
            .and_then(<[u8]>::first_chunk::<8>)
        {
            Some(w) => u64::from_le_bytes(*w) & keep,
            None => Self::first_word(s.bytes_in(arena)),
        }
    }

    /// Whether the two heads are equal: 32 bytes compared at once.
    #[inline(always)]
    pub(crate) fn same(&self, other: &Self) -> bool {
        self.0 == other.0
    }

    /// Whether this is the head of a string over 32 bytes, whose equal heads
    /// [`same_bytes`] must confirm.
    #[inline(always)]
    pub(crate) fn is_long(&self) -> bool {
        self.0[3] & LONG_HEAD != 0
    }
}

/// The bit of a [`Head`]'s last word that marks a string over 32 bytes: the top bit of
/// its 32nd byte, which no ASCII byte has.
const LONG_HEAD: u64 = 1 << 63;

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
