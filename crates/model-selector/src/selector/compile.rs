//! `Compiler`: builds the compiled form for every way in (parts, builder, parser, serde).

use std::cmp::Ordering;

use super::{
    LabelSelector,
    compiled::{FAST_VALUES, Form, HASH_ABOVE, Kind, NO_HEADS, NO_VALUE, Req, ValueHash},
    matching::parse_i64,
};
use crate::{
    error::SelectorError,
    limits::{MAX_REQUIREMENTS, MAX_VALUES},
    packed::{Head, Span, fingerprint, key_hash, word},
};

pub(crate) fn too_many_requirements() -> SelectorError {
    SelectorError::TooMany {
        path: String::new(),
        what: "requirements",
        limit: MAX_REQUIREMENTS,
    }
}

/// Builds the compiled form. Callers validate keys and values and check the limits
/// ([`MAX_REQUIREMENTS`], [`MAX_VALUES`](crate::MAX_VALUES)) first; this only arranges them.
///
/// A requirement is collected between [`Compiler::begin`] and [`Compiler::end`] (its key,
/// kind and up to [`FAST_VALUES`] values here, more in the selector's value vector) and
/// written once, complete, by `end`.
pub(crate) struct Compiler {
    sel: LabelSelector,
    key: Span,
    kind: Kind,
    values: [Span; FAST_VALUES],
    /// Values added to the current requirement so far.
    len: usize,
    bound: i64,
}

impl Default for Compiler {
    fn default() -> Self {
        Self::with(LabelSelector::default())
    }
}

impl Compiler {
    fn with(sel: LabelSelector) -> Self {
        Self {
            sel,
            key: NO_VALUE,
            kind: Kind::Exists,
            values: [NO_VALUE; FAST_VALUES],
            len: 0,
            bound: 0,
        }
    }

    /// A compiler whose arena is `input`, for strings that are slices of it
    /// ([`Compiler::begin_at`], [`Compiler::value_at`]): one copy instead of one per string.
    pub(crate) fn over(input: &str, reqs: usize) -> Self {
        Self::with(LabelSelector {
            arena: input.to_owned(),
            reqs: Vec::with_capacity(reqs),
            ..LabelSelector::default()
        })
    }

    /// Starts a requirement on `key`.
    pub(crate) fn begin(&mut self, key: &str, kind: Kind) {
        let key = Span::push(&mut self.sel.arena, key);
        self.begin_span(key, kind);
    }

    /// Starts a requirement on `key`, already in the arena at byte `start`.
    #[inline]
    pub(crate) fn begin_at(&mut self, start: usize, len: usize, kind: Kind) {
        self.begin_span(Span::new(start, len), kind);
    }

    #[inline]
    fn begin_span(&mut self, key: Span, kind: Kind) {
        self.key = key;
        self.kind = kind;
        self.len = 0;
        self.bound = 0;
    }

    /// Number of requirements ended so far.
    pub(crate) fn len(&self) -> usize {
        self.sel.reqs.len()
    }

    /// Adds a value to the current requirement (for `Gt` and `Lt`, sets the bound from a
    /// value the caller has checked to be an integer).
    pub(crate) fn value(&mut self, value: &str) {
        if self.is_integer() {
            self.bound = parse_i64(value.as_bytes()).unwrap_or(0);
        } else {
            let span = Span::push(&mut self.sel.arena, value);
            self.value_span(span);
        }
    }

    /// [`Compiler::value`] for a value already in the arena at byte `start`.
    #[inline(always)]
    pub(crate) fn value_at(&mut self, start: usize, len: usize) {
        let span = Span::new(start, len);
        if self.is_integer() {
            self.bound = parse_i64(span.bytes_in(self.sel.arena.as_bytes())).unwrap_or(0);
        } else {
            self.value_span(span);
        }
    }

    #[inline]
    fn is_integer(&self) -> bool {
        matches!(self.kind, Kind::Gt | Kind::Lt)
    }

    #[inline]
    fn value_span(&mut self, value: Span) {
        let len = self.len;
        if let Some(slot) = self.values.get_mut(len) {
            *slot = value;
        } else {
            if len == FAST_VALUES {
                // The list outgrows the requirement: on to the value vector.
                self.sel.values.extend_from_slice(&self.values);
            }
            self.sel.values.push(value);
        }
        self.len = len + 1;
    }

    /// Number of values in the current requirement.
    pub(crate) fn value_count(&self) -> usize {
        self.len
    }

    /// Ends the current requirement: decides how [`LabelSelector::matches`] tests it (after
    /// sorting and deduplicating a list's values, out of line) and stores it, in one write.
    /// A second `matchLabels` entry on a key becomes `In` (a map holds one value per key).
    #[inline]
    pub(crate) fn end(&mut self) {
        let arena = self.sel.arena.as_bytes();
        let key = self.key.bytes_in(arena);
        let key_head = Head::of(key);
        let mut kind = self.kind;
        if kind == Kind::Label && self.sel.has_label(&key_head, key) {
            kind = Kind::In;
        }
        let mut req = Req {
            hash: key_hash(&key_head, key),
            form: Form::One,
            mask: match kind {
                Kind::Label | Kind::In => 0b100,
                Kind::NotIn => 0b011,
                Kind::Exists => 0b110,
                Kind::DoesNotExist => 0b001,
                Kind::Gt | Kind::Lt => 0,
            },
            kind,
            len: self.len as u8,
            start: 0,
            key_head,
            fps: [0; FAST_VALUES],
            values: self.values,
            key: self.key,
            heads: NO_HEADS,
        };
        match kind {
            Kind::Gt | Kind::Lt => {
                req.form = Form::Slow;
                req.len = 0;
                req.fps[0] = self.bound as u64;
            }
            _ if self.len <= 1 => one_value(&mut req, arena),
            _ => self.list(&mut req),
        }
        if key_head.is_long() {
            // Keys over 32 bytes need their bytes compared past the head.
            req.form = Form::Slow;
        }
        self.sel.reqs.push(req);
    }

    /// [`Compiler::end`] for a list of two values or more: sorted and deduplicated, then
    /// compared by fingerprints (up to [`FAST_VALUES`]), through a perfect hash (more than
    /// [`HASH_ABOVE`]) or by the general test.
    #[inline(never)]
    fn list(&mut self, req: &mut Req) {
        let sel = &mut self.sel;
        let arena = sel.arena.as_bytes();
        let len = self.len;
        let kept = if len <= FAST_VALUES {
            sort_and_dedup(req.values.get_mut(..len).unwrap_or(&mut []), arena)
        } else {
            let start = sel.values.len().saturating_sub(len);
            let kept = sort_and_dedup(sel.values.get_mut(start..).unwrap_or(&mut []), arena);
            sel.values.truncate(start + kept);
            if kept <= FAST_VALUES {
                // Duplicates made the list short: back into the requirement.
                for (slot, v) in req
                    .values
                    .iter_mut()
                    .zip(sel.values.get(start..).unwrap_or(&[]))
                {
                    *slot = *v;
                }
                sel.values.truncate(start);
            }
            req.start = start as u32;
            kept
        };
        req.len = kept as u8;
        if kept <= 1 {
            return one_value(req, arena);
        }
        let own = if kept <= FAST_VALUES {
            req.values.get(..kept)
        } else {
            sel.values.get(req.start as usize..)
        };
        let own = own.unwrap_or(&[]);
        req.form = Form::Slow;
        if kept <= FAST_VALUES {
            let first = own.first().map_or(0, |v| value_fp(*v, arena));
            let mut fps = [first; FAST_VALUES];
            for (fp, v) in fps.iter_mut().zip(own).skip(1) {
                *fp = value_fp(*v, arena);
            }
            req.fps = fps;
            // Distinct values whose fingerprints are equal (long values, by chance) are
            // told apart only by the general test.
            let fps = fps.get(..kept).unwrap_or(&[]);
            if fps
                .iter()
                .enumerate()
                .all(|(i, a)| fps.iter().skip(i + 1).all(|b| a != b))
            {
                req.form = Form::Four;
            }
        } else if kept > HASH_ABOVE {
            let mut fps = [0_u64; MAX_VALUES];
            for (slot, v) in fps.iter_mut().zip(own) {
                *slot = value_fp(*v, arena);
            }
            let fps = fps.get(..kept).unwrap_or(&[]);
            if let Some(hash) = ValueHash::build(fps, &mut sel.tables) {
                req.fps = hash.to_words();
                req.form = Form::Hashed;
            }
        }
        if req.form != Form::Slow && own.iter().any(|v| v.len > 8) {
            // Fingerprints of values over 8 bytes are hashes: keep the values' heads to
            // confirm them.
            req.heads = u32::try_from(sel.heads.len()).unwrap_or(NO_HEADS);
            sel.heads
                .extend(own.iter().map(|v| Head::of(v.bytes_in(arena))));
        }
    }

    /// The selector. Requirements stay in the order they came in
    /// ([`LabelSelector::ordered`] sorts them when the order matters), unless there are
    /// more than callers allow.
    /// By reference, so the compiler is not moved (a copy through `memcpy`) to be taken apart.
    pub(crate) fn finish(&mut self) -> LabelSelector {
        if self.sel.reqs.len() > MAX_REQUIREMENTS {
            let mut reqs = std::mem::take(&mut self.sel.reqs);
            reqs.sort_by(|a, b| self.sel.cmp_reqs(a, b));
            self.sel.reqs = reqs;
        }
        std::mem::take(&mut self.sel)
    }
}

/// A requirement of one value or none (`Exists`, `DoesNotExist`): compared by the value's
/// [`Head`] ([`Form::One`]), or by the general test when the value is over 32 bytes.
#[inline(always)]
fn one_value(req: &mut Req, arena: &[u8]) {
    if req.len == 1 {
        let head = Head::of(req.values[0].bytes_in(arena));
        req.fps = head.0;
        req.form = if head.is_long() {
            Form::Slow
        } else {
            Form::One
        };
    }
}

/// The [`fingerprint`] of the value `v` in `arena`.
#[inline]
fn value_fp(v: Span, arena: &[u8]) -> u64 {
    let bytes = v.bytes_in(arena);
    if bytes.len() <= 8 {
        // The head's first word, without the other three.
        return Head::first_word(bytes);
    }
    fingerprint(&Head::of(bytes), bytes)
}

/// Byte order of two strings in `arena` whose [`word`]s are `word_a` and `word_b`: the words,
/// then the bytes past them.
#[inline]
fn cmp_values(a: Span, word_a: u64, b: Span, word_b: u64, arena: &[u8]) -> Ordering {
    match word_a.cmp(&word_b) {
        Ordering::Equal if a.len <= 8 && b.len <= 8 => Ordering::Equal,
        Ordering::Equal => a.bytes_in(arena).get(8..).cmp(&b.bytes_in(arena).get(8..)),
        unequal => unequal,
    }
}

/// Sorts `values` (strings in `arena`) and moves the distinct ones to the front: how many
/// there are.
fn sort_and_dedup(values: &mut [Span], arena: &[u8]) -> usize {
    let n = values.len();
    if n <= FAST_VALUES {
        // Insertion sort with each value's word read once: a few integer compares for the
        // two to four values of a short list.
        let mut words = [0_u64; FAST_VALUES];
        for (w, v) in words.iter_mut().zip(values.iter()) {
            *w = word(v.bytes_in(arena));
        }
        for i in 1..n {
            let mut j = i;
            while j > 0 {
                let (Some(&u), Some(&x), Some(&v), Some(&w)) = (
                    values.get(j - 1),
                    words.get(j - 1),
                    values.get(j),
                    words.get(j),
                ) else {
                    break;
                };
                if cmp_values(u, x, v, w, arena) != Ordering::Greater {
                    break;
                }
                values.swap(j - 1, j);
                words.swap(j - 1, j);
                j -= 1;
            }
        }
        let mut kept = 1.min(n);
        for i in 1..n {
            let (Some(&v), Some(&w), Some(&u), Some(&x)) = (
                values.get(i),
                words.get(i),
                values.get(kept - 1),
                words.get(kept - 1),
            ) else {
                break;
            };
            if cmp_values(u, x, v, w, arena) != Ordering::Equal {
                if let (Some(value), Some(word)) = (values.get_mut(kept), words.get_mut(kept)) {
                    (*value, *word) = (v, w);
                }
                kept += 1;
            }
        }
        return kept;
    }
    values.sort_unstable_by(|a, b| {
        let (x, y) = (a.bytes_in(arena), b.bytes_in(arena));
        cmp_values(*a, word(x), *b, word(y), arena)
    });
    let mut kept = 1.min(n);
    for i in 1..n {
        let (Some(&value), Some(&last)) = (values.get(i), values.get(kept - 1)) else {
            break;
        };
        if value.len != last.len || value.bytes_in(arena) != last.bytes_in(arena) {
            if let Some(cell) = values.get_mut(kept) {
                *cell = value;
            }
            kept += 1;
        }
    }
    kept
}
