//! The parser's common requirements stored by [`Compiler`] in one step, from values in
//! registers: no state of the compiler written for the requirement and read back.

use super::{Compiler, has_label};
use crate::{
    packed::{Head, Span, key_hash, short_key_hash},
    selector::compiled::{FAST_VALUES, Form, Kind, NO_HEADS, NO_VALUE, Req},
};

/// A key's [`Head`] and [`key_hash`]: for a key of at most 8 bytes its first word and zeros,
/// and the hash of that word, without [`Head::of`]'s tests of the length.
#[inline(always)]
fn short_or_long_head(arena: &[u8], key: Span, key_bytes: &[u8]) -> (Head, u64) {
    if key.len <= 8 {
        let word = Head::short_word_in(arena, key);
        (Head([word, 0, 0, 0]), short_key_hash(word, key.len))
    } else {
        let head = Head::of(key_bytes);
        (head, key_hash(&head, key_bytes))
    }
}

/// Whether a `matchLabels` entry on the key of at most 8 bytes whose [`Head`]'s first word is
/// `word` is among `reqs`: [`has_label`] for such a key, whose head is that word and zeros
/// (a key over 8 bytes has a second word that is not zero: keys have no zero byte).
#[inline(always)]
fn has_short_label(reqs: &[Req], word: u64) -> bool {
    for r in reqs {
        if r.kind == Kind::Label && r.key_head.0[0] == word && r.key_head.0[1] == 0 {
            return true;
        }
    }
    false
}

impl Compiler {
    /// Stores a requirement of one value (`value`) or none (`Exists`, `DoesNotExist`) on
    /// `key`, both already in the arena, whose bytes `arena` is: [`Compiler::begin_at`],
    /// [`Compiler::value_at`] and [`Compiler::end_in`] in one step, from values in registers
    /// (the parser's common requirements; no state of the compiler written and read back).
    #[inline(always)]
    pub(crate) fn single(&mut self, arena: &[u8], key: Span, kind: Kind, value: Option<Span>) {
        if key.len > 8 || value.is_some_and(|v| v.len > 8) {
            return self.single_long(arena, key, kind, value);
        }
        // A key and a value of at most 8 bytes: each head is its first word and zeros.
        let word = Head::short_word_in(arena, key);
        let kind = if kind == Kind::Label && has_short_label(&self.sel.reqs, word) {
            Kind::In
        } else {
            kind
        };
        let (fps, len, values) = match value {
            Some(v) => (
                [Head::short_word_in(arena, v), 0, 0, 0],
                1,
                [v, NO_VALUE, NO_VALUE, NO_VALUE],
            ),
            None => ([0; FAST_VALUES], 0, [NO_VALUE; FAST_VALUES]),
        };
        self.sel.reqs.push(Req {
            hash: short_key_hash(word, key.len),
            form: Form::One,
            mask: kind.mask() | Form::One.mask_bit(),
            kind,
            len,
            start: 0,
            key_head: Head([word, 0, 0, 0]),
            fps,
            values,
            key,
            heads: NO_HEADS,
        });
    }

    /// [`Compiler::single`] for a key or a value over 8 bytes.
    #[inline(always)]
    fn single_long(&mut self, arena: &[u8], key: Span, kind: Kind, value: Option<Span>) {
        let key_bytes = key.bytes_in(arena);
        let key_head = Head::of(key_bytes);
        let kind = if kind == Kind::Label && has_label(&self.sel.reqs, arena, &key_head, key_bytes)
        {
            Kind::In
        } else {
            kind
        };
        let hash = key_hash(&key_head, key_bytes);
        let (form, fps, len, values) = match value {
            Some(v) => {
                let head = Head::of(v.bytes_in(arena));
                let form = if head.is_long() {
                    Form::Slow
                } else {
                    Form::One
                };
                (form, head.0, 1, [v, NO_VALUE, NO_VALUE, NO_VALUE])
            }
            None => (Form::One, [0; FAST_VALUES], 0, [NO_VALUE; FAST_VALUES]),
        };
        self.push_built(key, key_head, hash, kind, form, len, fps, values);
    }

    /// Stores an `In` or `NotIn` requirement on `key` with the two values `a` and `b` (in
    /// the order written), all already in the arena, whose bytes `arena` is:
    /// [`Compiler::begin_at`], two [`Compiler::value_at`] and [`Compiler::end_in`] in one
    /// step (the parser's most common list), the requirement finished where it is stored.
    #[inline(always)]
    pub(crate) fn two(&mut self, arena: &[u8], key: Span, kind: Kind, a: Span, b: Span) {
        if a.len > 8 || b.len > 8 {
            return self.two_long(arena, key, kind, a, b);
        }
        let key_bytes = key.bytes_in(arena);
        let (key_head, hash) = short_or_long_head(arena, key, key_bytes);
        // Values of at most 8 bytes: each one's first word is its fingerprint, and their
        // byte order is that of the words read big-endian (what `two_values` decides).
        let (wa, wb) = (Head::short_word_in(arena, a), Head::short_word_in(arena, b));
        let ((lo, w_lo), (hi, w_hi)) = if wa.swap_bytes() > wb.swap_bytes() {
            ((b, wb), (a, wa))
        } else {
            ((a, wa), (b, wb))
        };
        let (form, len, values, fps) = if w_lo == w_hi && lo.len == hi.len {
            // The same value twice: one value, compared by its head (these words).
            (Form::One, 1, [lo, hi, NO_VALUE, NO_VALUE], [w_lo, 0, 0, 0])
        } else {
            // Past the second, copies of the first, so Form::Four compares all four.
            (Form::Four, 2, [lo, hi, lo, lo], [w_lo, w_hi, w_lo, w_lo])
        };
        self.push_built(key, key_head, hash, kind, form, len, fps, values);
    }

    /// [`Compiler::two`] for values over 8 bytes: a [`Form::Pair`] (or one value) for two
    /// of at most 16 bytes, built from the values in registers as [`pair`](super::pair) builds it, else
    /// (fingerprints that are hashes) the general way.
    #[inline(never)]
    fn two_long(&mut self, arena: &[u8], key: Span, kind: Kind, a: Span, b: Span) {
        if a.len.max(b.len) > 16 {
            self.begin_span(key, kind);
            self.values = [a, b, NO_VALUE, NO_VALUE];
            self.len = 2;
            return self.end_in(arena);
        }
        let key_bytes = key.bytes_in(arena);
        let key_head = Head::of(key_bytes);
        let hash = key_hash(&key_head, key_bytes);
        let ([a0, a1, ..], [b0, b1, ..]) =
            (Head::of(a.bytes_in(arena)).0, Head::of(b.bytes_in(arena)).0);
        let (ka, kb) = (
            (a0.swap_bytes(), a1.swap_bytes()),
            (b0.swap_bytes(), b1.swap_bytes()),
        );
        let (form, len, values, fps) = if ka == kb {
            (Form::One, 1, [a, b, NO_VALUE, NO_VALUE], [a0, a1, 0, 0])
        } else if ka < kb {
            (Form::Pair, 2, [a, b, a, a], [a0, a1, b0, b1])
        } else {
            (Form::Pair, 2, [b, a, b, b], [b0, b1, a0, a1])
        };
        self.push_built(key, key_head, hash, kind, form, len, fps, values);
    }

    /// Pushes the requirement the one-step builders assembled: `form` as the values decide
    /// it, made [`Form::Slow`] for a key over 32 bytes (its bytes are compared past the
    /// head).
    #[inline(always)]
    #[allow(
        clippy::too_many_arguments,
        reason = "the fields of one requirement, in registers"
    )]
    fn push_built(
        &mut self,
        key: Span,
        key_head: Head,
        hash: u64,
        kind: Kind,
        form: Form,
        len: u8,
        fps: [u64; FAST_VALUES],
        values: [Span; FAST_VALUES],
    ) {
        let form = if key_head.is_long() { Form::Slow } else { form };
        self.sel.reqs.push(Req {
            hash,
            form,
            mask: kind.mask() | form.mask_bit(),
            kind,
            len,
            start: 0,
            key_head,
            fps,
            values,
            key,
            heads: NO_HEADS,
        });
    }
}
