//! The compiled form: what each requirement tests and how, decided once at construction.

use super::LabelSelector;
use crate::{
    operator::SelectorOperator,
    packed::{Head, Packed, Span},
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
    /// The key's [`Head`], which a lookup compares with the label set's key instead of
    /// reading its bytes.
    pub(crate) key_head: Head,
    /// How [`LabelSelector::matches`] tests the value, or [`Form::Slow`].
    pub(super) form: Form,
    /// For the fast forms, bit `outcome` is set when the requirement holds for that
    /// outcome: 0 key absent, 1 value not listed, 2 value listed.
    pub(super) mask: u8,
    /// For [`Form::One`], the words of the one value's [`Head`] (all zero without a value:
    /// the mask ignores it), compared with the label value's. Otherwise the
    /// [`fingerprint`](crate::packed::fingerprint)s of the inline values; past `len`, copies
    /// of the first, so [`Form::Four`] can compare all four.
    pub(super) fps: [u64; FAST_VALUES],
    /// Up to [`FAST_VALUES`] values.
    pub(super) inline: [Packed; FAST_VALUES],
    /// For long lists ([`Req::hashed`]), their perfect hash.
    pub(super) list: ValueHash,
    pub(super) hashed: bool,
    pub(super) test: Test,
    pub(crate) kind: Kind,
    pub(super) start: u32,
    pub(super) len: u32,
    /// For lists with values over 8 bytes, where the [`Head`]s of the values start in the
    /// selector's heads; else [`NO_HEADS`].
    pub(super) heads: u32,
    /// The integer of `Gt` and `Lt`.
    pub(crate) bound: i64,
}

/// How [`LabelSelector::matches`] tests a requirement's value: by comparing the label
/// value's fingerprint with those of the listed values (equal fingerprints of values over
/// 8 bytes are confirmed by comparing bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// Anything else (`Gt`, `Lt`, lists whose fingerprints collide): [`LabelSelector::test`],
    /// out of line.
    Slow,
    /// The value's [`Head`] is `fps` (`Exists` and `DoesNotExist` too: the mask ignores it).
    One,
    /// The value is among `fps` (2 to [`FAST_VALUES`] values).
    Four,
    /// The value is `slot_fps[list.slot(fp)]` (lists of more than [`HASH_ABOVE`]).
    Hashed,
}

/// A perfect hash over the fingerprints of one long `In`/`NotIn` list:
/// `slots[start + (fp * mult) >> shift]` holds 1 + the index of the value with that
/// fingerprint, or 0, and `slot_fps` the same slot's fingerprint ([`NO_FP`] when empty).
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

/// [`Req::heads`] of a requirement without heads.
pub(super) const NO_HEADS: u32 = u32::MAX;

/// A placeholder value before a requirement's values are known.
pub(super) const NO_VALUE: Packed = Packed {
    word: 0,
    span: Span { start: 0, len: 0 },
};

/// The fingerprint of an empty hash slot: its lowest byte is neither zero, a printable
/// byte nor that of a long value's fingerprint, so it is no value's fingerprint.
pub(super) const NO_FP: u64 = u64::MAX;

impl ValueHash {
    #[inline(always)]
    pub(super) fn slot(&self, fp: u64) -> usize {
        self.start as usize + (fp.wrapping_mul(self.mult) >> self.shift) as usize
    }

    /// Builds the table for the fingerprints `fps` (of distinct values) into `slots` and
    /// `slot_fps`, which have the same length; `None` when two fingerprints are equal.
    pub(super) fn build(fps: &[u64], slots: &mut Vec<u8>, slot_fps: &mut Vec<u64>) -> Option<Self> {
        let distinct = fps.len();
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
                for (i, &fp) in fps.iter().enumerate() {
                    match slots.get_mut(hash.slot(fp)) {
                        Some(cell) if *cell == 0 => *cell = u8::try_from(i + 1).ok()?,
                        _ => {
                            ok = false;
                            break;
                        }
                    }
                }
                if ok {
                    slot_fps.resize(start, NO_FP);
                    slot_fps.extend(slots.get(start..).unwrap_or(&[]).iter().map(|&s| {
                        fps.get(usize::from(s).wrapping_sub(1))
                            .copied()
                            .unwrap_or(NO_FP)
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
