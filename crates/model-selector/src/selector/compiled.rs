//! The compiled form: what each requirement tests and how, decided once at construction.

use super::LabelSelector;
use crate::{
    operator::SelectorOperator,
    packed::{Packed, Span},
};

/// What a compiled requirement tests. The order is the canonical order among
/// requirements on the same key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Kind {
    /// A `matchLabels` entry: present with exactly this value.
    Label,
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Gt,
    Lt,
}

impl Kind {
    pub(crate) fn from_operator(op: SelectorOperator) -> Self {
        match op {
            SelectorOperator::In => Self::In,
            SelectorOperator::NotIn => Self::NotIn,
            SelectorOperator::Exists => Self::Exists,
            SelectorOperator::DoesNotExist => Self::DoesNotExist,
            SelectorOperator::Gt => Self::Gt,
            SelectorOperator::Lt => Self::Lt,
        }
    }

    pub(crate) fn operator(self) -> SelectorOperator {
        match self {
            Self::Label | Self::In => SelectorOperator::In,
            Self::NotIn => SelectorOperator::NotIn,
            Self::Exists => SelectorOperator::Exists,
            Self::DoesNotExist => SelectorOperator::DoesNotExist,
            Self::Gt => SelectorOperator::Gt,
            Self::Lt => SelectorOperator::Lt,
        }
    }
}

/// How [`LabelSelector::matches`] tests a requirement: [`Kind`] with the one-value cases
/// of `matchLabels`, `In` and `NotIn` split out, so they need no value list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Test {
    /// Present with the value in `Req::value`.
    Equal,
    /// Present with one of the values in the list.
    OneOf,
    /// Absent, or a value other than `Req::value`.
    NotEqual,
    /// Absent, or a value not in the list.
    NoneOf,
    Exists,
    Absent,
    Greater,
    Less,
}

/// One compiled requirement. Its `len` values, sorted and distinct, are `inline[..len]`
/// when there are at most [`FAST_VALUES`] (so most selectors need no value vector), else
/// `values[start..start + len]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Req {
    /// The key's [`key_hash`](crate::packed::key_hash), for a label set's index.
    pub(crate) hash: u64,
    pub(crate) key: Packed,
    /// How [`LabelSelector::matches`] tests the value, or [`Form::Slow`].
    pub(super) form: Form,
    /// For the fast forms, bit `outcome` is set when the requirement holds for that
    /// outcome: 0 key absent, 1 value not listed, 2 value listed.
    pub(super) mask: u8,
    /// Up to [`FAST_VALUES`] values; past `len`, copies of the first, so [`Form::Four`]
    /// can compare all four words.
    pub(super) inline: [Packed; FAST_VALUES],
    /// For long lists ([`Req::hashed`]), their perfect hash.
    pub(super) list: ValueHash,
    pub(super) hashed: bool,
    pub(super) test: Test,
    pub(crate) kind: Kind,
    /// Every value is shorter than 8 bytes, so equal words mean equal strings.
    pub(super) short_values: bool,
    pub(super) start: u32,
    pub(super) len: u32,
    /// The integer of `Gt` and `Lt`.
    pub(crate) bound: i64,
}

/// How [`LabelSelector::matches`] tests a requirement on a key of at most 8 bytes whose
/// values are all shorter than 8 bytes (so equal words mean equal strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// Anything else: [`LabelSelector::test`], out of line.
    Slow,
    /// The value word is `words[0]` (`Exists` and `DoesNotExist` too: the mask ignores it).
    One,
    /// The value word is among `words` (2 to [`FAST_VALUES`] values).
    Four,
    /// The value word is `slot_words[list.slot(word)]` (lists of more than [`HASH_ABOVE`]).
    Hashed,
}

/// A perfect hash over the distinct value words of one long `In`/`NotIn` list:
/// `slots[start + (word * mult) >> shift]` holds 1 + the index of the first value with
/// that word, or 0, and `slot_words` the same slot's word ([`NO_WORD`] when empty).
/// Found at construction by trying a fixed list of multipliers, so it is deterministic.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ValueHash {
    pub(super) mult: u64,
    pub(super) shift: u32,
    pub(super) start: u32,
}

/// Lists longer than this get a [`ValueHash`]; shorter ones are scanned.
pub(super) const HASH_ABOVE: usize = 8;

/// Most values a requirement holds inline; [`Form::Four`] compares all of them at once.
pub(super) const FAST_VALUES: usize = 4;

/// A placeholder value before a requirement's values are known.
pub(super) const NO_VALUE: Packed = Packed {
    word: 0,
    span: Span { start: 0, len: 0 },
};

/// The word of an empty hash slot: its last byte is not zero, so it is not the word of
/// any string shorter than 8 bytes.
pub(super) const NO_WORD: u64 = u64::MAX;

impl ValueHash {
    #[inline(always)]
    pub(super) fn slot(&self, word: u64) -> usize {
        self.start as usize + (word.wrapping_mul(self.mult) >> self.shift) as usize
    }

    /// Builds the table for `values` (sorted, so equal words are adjacent) into `slots`
    /// and `words`, which have the same length.
    pub(super) fn build(
        values: &[Packed],
        slots: &mut Vec<u8>,
        words: &mut Vec<u64>,
    ) -> Option<Self> {
        let distinct = values.len();
        let min_bits = usize::BITS - (2 * distinct).saturating_sub(1).leading_zeros();
        for bits in min_bits..=min_bits + 2 {
            for attempt in 0..64_u64 {
                let mult = 0x9E37_79B9_7F4A_7C15_u64.wrapping_mul(2 * attempt + 1);
                let start = slots.len();
                let hash = Self {
                    mult,
                    shift: 64 - bits,
                    start: u32::try_from(start).ok()?,
                };
                slots.resize(start + (1 << bits), 0);
                let mut ok = true;
                let mut previous = None;
                for (i, v) in values.iter().enumerate() {
                    // Sorted values: a repeat of the previous word is the same value.
                    if previous.replace(v.word) == Some(v.word) {
                        continue;
                    }
                    match slots.get_mut(hash.slot(v.word)) {
                        Some(cell) if *cell == 0 => *cell = u8::try_from(i + 1).ok()?,
                        _ => {
                            ok = false;
                            break;
                        }
                    }
                }
                if ok {
                    words.resize(start, NO_WORD);
                    words.extend(slots.get(start..).unwrap_or(&[]).iter().map(|&s| {
                        values
                            .get(usize::from(s).wrapping_sub(1))
                            .map_or(NO_WORD, |v| v.word)
                    }));
                    return Some(hash);
                }
                slots.truncate(start);
            }
        }
        None
    }
}

impl LabelSelector {
    #[inline]
    pub(crate) fn req_values<'a>(&'a self, req: &'a Req) -> &'a [Packed] {
        let len = req.len as usize;
        let values = if len <= FAST_VALUES {
            req.inline.get(..len)
        } else {
            let start = req.start as usize;
            self.values.get(start..start + len)
        };
        values.unwrap_or(&[])
    }
}
