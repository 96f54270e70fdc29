//! The compiled form: what each requirement tests and how, decided once at construction.

use super::LabelSelector;
use crate::{
    operator::SelectorOperator,
    packed::{Head, Span},
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

    /// The outcomes for which a requirement of this kind holds, as [`Req::mask`] keeps them
    /// (bit 0 key absent, 1 value not listed, 2 value listed); 0 for `Gt` and `Lt`, which
    /// the general test decides. One load from a table, not a jump.
    #[inline(always)]
    pub(super) fn mask(self) -> u8 {
        // In the order of the variants, which the assertion holds.
        const MASKS: [u8; 7] = [0b100, 0b100, 0b011, 0b110, 0b001, 0, 0];
        const _: () = assert!(
            Kind::Label as usize == 0
                && Kind::In as usize == 1
                && Kind::NotIn as usize == 2
                && Kind::Exists as usize == 3
                && Kind::DoesNotExist as usize == 4
                && Kind::Gt as usize == 5
                && Kind::Lt as usize == 6
        );
        MASKS.get(self as usize).copied().unwrap_or(0)
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

/// One compiled requirement, 128 bytes, built in one step when its values are known
/// ([`Compiler::end`](super::compile::Compiler::end)). What [`LabelSelector::matches`] reads
/// comes first (the key's hash, form and mask, the key's head, `fps`); the rest is for the
/// general test and the views. Its `len` values, sorted and distinct, are `values[..len]`
/// when there are at most [`FAST_VALUES`] (so most selectors need no value vector), else the
/// selector's `values[start..start + len]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Req {
    /// The key's [`key_hash`](crate::packed::key_hash), for a label set's index.
    pub(crate) hash: u64,
    /// How [`LabelSelector::matches`] tests the value, or [`Form::Slow`].
    pub(super) form: Form,
    /// For the fast forms, bit `outcome` is set when the requirement holds for that
    /// outcome: 0 key absent, 1 value not listed, 2 value listed; and bit [`ONE`] when the
    /// form is [`Form::One`], [`PAIR`] when it is [`Form::Pair`].
    pub(super) mask: u8,
    pub(crate) kind: Kind,
    /// Number of values (at most [`MAX_VALUES`](crate::MAX_VALUES)).
    pub(super) len: u8,
    /// For lists of more than [`FAST_VALUES`], where they start in the selector's values.
    pub(super) start: u32,
    /// The key's [`Head`], which a lookup compares with the label set's key instead of
    /// reading its bytes.
    pub(crate) key_head: Head,
    /// What the form compares, decided by it: for [`Form::One`] the words of the one
    /// value's [`Head`] (all zero without a value: the mask ignores it); for [`Form::Four`]
    /// the [`fingerprint`](crate::packed::fingerprint)s of the values, past `len` copies of
    /// the first, so all four can be compared; for [`Form::Pair`] the first two words of
    /// each value's head; for [`Form::Hashed`] the list's [`ValueHash`]; for `Gt` and `Lt`
    /// the bound. [`Req::value_hash`] and [`Req::bound`] read it.
    pub(super) fps: [u64; FAST_VALUES],
    /// Up to [`FAST_VALUES`] values, in the selector's arena.
    pub(super) values: [Span; FAST_VALUES],
    pub(crate) key: Span,
    /// For [`Form::Four`] lists with values over 8 bytes, where the [`Head`]s of the values
    /// start in the selector's heads; else [`NO_HEADS`].
    pub(super) heads: u32,
}

// A requirement is two cache lines or less, and its value count fits its byte.
const _: () = assert!(size_of::<Req>() == 128);
const _: () = assert!(crate::limits::MAX_VALUES <= u8::MAX as usize);

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
    /// The value is in the list's [`ValueHash`] slot of its fingerprint (lists of more than
    /// [`HASH_ABOVE`]).
    Hashed,
    /// Two values of at most 16 bytes, one of them over 8: `fps` is the first two words of
    /// each value's [`Head`], which decide a label value of at most 16 bytes exactly (no
    /// fingerprint to confirm, so no heads kept), and a longer one is neither.
    Pair,
}

/// A perfect hash over the fingerprints of one long `In`/`NotIn` list: `heads[slot(fp)]`
/// (`start + ((fp * mult) >> shift)`) is the [`Head`] of the listed value whose fingerprint
/// is `fp`, or [`EMPTY_SLOT`]. A label value's slot so holds the
/// only listed value it can be, and comparing the two heads decides values of at most 32
/// bytes without reading the list. Found at construction by trying a fixed list of
/// multipliers, so it is deterministic.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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

/// An unused value slot.
pub(super) const NO_VALUE: Span = Span { start: 0, len: 0 };

/// An empty hash slot: its bytes are 0xff, which no key or value has, so it is no string's
/// [`Head`].
pub(super) const EMPTY_SLOT: Head = Head([u64::MAX; 4]);

impl Form {
    /// The bit [`Req::mask`] keeps above the outcomes: [`ONE`] for [`Form::One`], which the
    /// loop of [`LabelSelector::matches`] tests with one bit test, not a jump on the form;
    /// [`PAIR`] for [`Form::Pair`], tested after the other lists' forms, so that a third
    /// form does not turn their two comparisons into a jump table.
    #[inline(always)]
    pub(super) fn mask_bit(self) -> u8 {
        match self {
            Self::One => ONE,
            Self::Pair => PAIR,
            _ => 0,
        }
    }
}

/// The bit of [`Req::mask`] for the outcome "key absent" (outcome 0).
pub(super) const ABSENT: u8 = 1;

/// The bit of [`Req::mask`] for the outcome "value not listed" (outcome 1).
pub(super) const UNLISTED: u8 = 1 << 1;

/// The bit of [`Req::mask`] for the outcome "value listed" (outcome 2).
pub(super) const LISTED: u8 = 1 << 2;

/// The bit of [`Req::mask`] set for [`Form::One`] (above the three outcome bits).
pub(super) const ONE: u8 = 1 << 3;

/// The bit of [`Req::mask`] set for [`Form::Pair`].
pub(super) const PAIR: u8 = 1 << 4;

impl ValueHash {
    /// The hash as a requirement's `fps` hold it.
    pub(super) fn to_words(self) -> [u64; FAST_VALUES] {
        [self.mult, u64::from(self.shift), u64::from(self.start), 0]
    }

    /// Where the slot of `fp` is in the selector's heads.
    #[inline(always)]
    pub(super) fn slot(&self, fp: u64) -> usize {
        self.start as usize + (fp.wrapping_mul(self.mult) >> self.shift) as usize
    }

    /// Builds the table for the fingerprints `fps` of distinct values, whose [`Head`]s
    /// `head(i)` gives, at the end of `tables` (the selector's heads); `None` when two
    /// fingerprints are equal.
    pub(super) fn build(
        fps: &[u64],
        head: impl Fn(usize) -> Head,
        tables: &mut Vec<Head>,
    ) -> Option<Self> {
        let distinct = fps.len();
        let min_bits = usize::BITS - (2 * distinct).saturating_sub(1).leading_zeros();
        let start = tables.len();
        for bits in min_bits..=min_bits + 2 {
            for attempt in 0..64_u64 {
                let mult = 0x9E37_79B9_7F4A_7C15_u64.wrapping_mul(2 * attempt + 1);
                let hash = Self {
                    mult,
                    shift: 64 - bits,
                    start: u32::try_from(start).ok()?,
                };
                tables.truncate(start);
                tables.resize(start + (1 << bits), EMPTY_SLOT);
                let mut ok = true;
                for (i, &fp) in fps.iter().enumerate() {
                    match tables.get_mut(hash.slot(fp)) {
                        Some(slot) if *slot == EMPTY_SLOT => *slot = head(i),
                        _ => {
                            ok = false;
                            break;
                        }
                    }
                }
                if ok {
                    return Some(hash);
                }
            }
        }
        tables.truncate(start);
        None
    }
}

impl Req {
    /// The perfect hash of a [`Form::Hashed`] list.
    #[inline(always)]
    pub(super) fn value_hash(&self) -> ValueHash {
        let [mult, shift, start, _] = self.fps;
        ValueHash {
            mult,
            shift: shift as u32,
            start: start as u32,
        }
    }

    /// The integer of `Gt` and `Lt` (0 for other kinds).
    #[inline]
    pub(crate) fn bound(&self) -> i64 {
        if matches!(self.kind, Kind::Gt | Kind::Lt) {
            self.fps[0] as i64
        } else {
            0
        }
    }
}

impl LabelSelector {
    #[inline]
    pub(crate) fn req_values<'a>(&'a self, req: &'a Req) -> &'a [Span] {
        let len = usize::from(req.len);
        let values = if len <= FAST_VALUES {
            req.values.get(..len)
        } else {
            let start = req.start as usize;
            self.values.get(start..start + len)
        };
        values.unwrap_or(&[])
    }
}
