//! `Compiler`: builds the compiled form for every way in (parts, builder, parser, serde).

use std::cmp::Ordering;

use super::{
    LabelSelector,
    compiled::{FAST_VALUES, Form, HASH_ABOVE, Kind, NO_HEADS, NO_VALUE, Req, ValueHash},
    matching::parse_i64,
    text::Text,
};
use crate::{
    error::SelectorError,
    limits::{MAX_REQUIREMENTS, MAX_VALUES},
    packed::{Head, Span, fingerprint, key_hash, same_bytes, word},
};

mod direct;

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
/// stored by `end` (complete, or for a list of values, then finished where it is stored).
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

    /// A compiler whose arena will be `input` ([`Compiler::set_text`] for short input), for
    /// strings that are slices of it ([`Compiler::begin_at`], [`Compiler::value_at`]): one
    /// copy instead of one per string.
    #[inline(always)]
    pub(crate) fn over(input: &str, reqs: usize) -> Self {
        Self::with(LabelSelector {
            arena: Text::for_input(input),
            reqs: Vec::with_capacity(reqs),
            ..LabelSelector::default()
        })
    }

    /// Copies `input` into the arena of a compiler made by [`Compiler::over`] when it is
    /// kept in place (a longer one is there already).
    #[inline(always)]
    pub(crate) fn set_text(&mut self, input: &str) {
        if let Text::Inline { .. } = self.sel.arena {
            self.sel.arena.set(input);
        }
    }

    /// Starts a requirement on `key`.
    pub(crate) fn begin(&mut self, key: &str, kind: Kind) {
        let key = self.sel.arena.push(key);
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
            let span = self.sel.arena.push(value);
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
    pub(crate) fn end(&mut self) {
        let arena = std::mem::take(&mut self.sel.arena);
        self.end_in(arena.as_bytes());
        self.sel.arena = arena;
    }

    /// [`Compiler::end`] with the arena's bytes given: the parser's input, which the arena
    /// is a copy of (no test of where the arena keeps them, once per requirement).
    #[inline]
    pub(crate) fn end_in(&mut self, arena: &[u8]) {
        let key = self.key.bytes_in(arena);
        let key_head = Head::of(key);
        let mut kind = self.kind;
        if kind == Kind::Label && has_label(&self.sel.reqs, arena, &key_head, key) {
            kind = Kind::In;
        }
        let hash = key_hash(&key_head, key);
        let mask = kind.mask();
        let (form, fps, len) = match kind {
            Kind::Gt | Kind::Lt => (Form::Slow, [self.bound as u64, 0, 0, 0], 0),
            _ if self.len > 1 => {
                // Stored first and finished where it is stored (no copy of it to pass).
                self.sel.reqs.push(Req {
                    hash,
                    form: Form::Slow,
                    mask,
                    kind,
                    len: 0,
                    start: 0,
                    key_head,
                    fps: [0; FAST_VALUES],
                    values: self.values,
                    key: self.key,
                    heads: NO_HEADS,
                });
                return self.list(arena);
            }
            // One value (or none: Exists, DoesNotExist), compared by its head.
            _ => match self.values.first() {
                Some(v) if self.len == 1 => {
                    let head = Head::of(v.bytes_in(arena));
                    let form = if head.is_long() {
                        Form::Slow
                    } else {
                        Form::One
                    };
                    (form, head.0, 1)
                }
                _ => (Form::One, [0; FAST_VALUES], 0),
            },
        };
        // Keys over 32 bytes need their bytes compared past the head.
        let form = if key_head.is_long() { Form::Slow } else { form };
        // Built where it is stored, from values computed above: one write.
        self.sel.reqs.push(Req {
            hash,
            form,
            mask: mask | form.mask_bit(),
            kind,
            len,
            start: 0,
            key_head,
            fps,
            values: self.values,
            key: self.key,
            heads: NO_HEADS,
        });
    }

    /// [`Compiler::end`] for a list of two values or more: sorted and deduplicated, then
    /// compared by fingerprints (up to [`FAST_VALUES`]), through a perfect hash (more than
    /// [`HASH_ABOVE`]) or by the general test. The list is the last requirement, which
    /// [`Compiler::end`] has stored.
    #[inline(never)]
    fn list(&mut self, arena: &[u8]) {
        let len = self.len;
        let sel = &mut self.sel;
        let Some(req) = sel.reqs.last_mut() else {
            return;
        };
        list_into(req, len, arena, &mut sel.values, &mut sel.heads);
        if req.key_head.is_long() {
            req.form = Form::Slow;
        }
        req.mask |= req.form.mask_bit();
    }

    /// The selector of a compiler that has been given at most [`MAX_REQUIREMENTS`] (the
    /// parser counts them): [`Compiler::finish`] without its test, so the selector is moved
    /// once, not copied out and then moved.
    #[inline(always)]
    pub(crate) fn finish_counted(self) -> LabelSelector {
        self.sel
    }

    /// The selector. Requirements stay in the order they came in
    /// ([`LabelSelector::ordered`] sorts them when the order matters), unless there are
    /// more than callers allow. The compiler is taken apart where it is, not moved.
    #[inline(always)]
    pub(crate) fn finish(self) -> LabelSelector {
        let Self { mut sel, .. } = self;
        if sel.reqs.len() > MAX_REQUIREMENTS {
            let mut reqs = std::mem::take(&mut sel.reqs);
            reqs.sort_by(|a, b| sel.cmp_reqs(a, b));
            sel.reqs = reqs;
        }
        sel
    }
}

/// Whether a `matchLabels` entry on the key whose bytes are `key` and whose [`Head`] is
/// `head` is among `reqs`, whose strings are in `arena`.
/// A plain loop, inline: as `any` it was a call even for no requirements (the first).
#[inline(always)]
pub(super) fn has_label(reqs: &[Req], arena: &[u8], head: &Head, key: &[u8]) -> bool {
    for r in reqs {
        if r.kind == Kind::Label
            && r.key_head == *head
            && (!head.is_long() || same_bytes(r.key.bytes_in(arena), key))
        {
            return true;
        }
    }
    false
}

/// [`Compiler::list`] on `req` and the selector's `values` and `heads` (which hold both the
/// heads of short lists and the slots of long ones): `len`
/// values, in `req` when there are up to [`FAST_VALUES`], else at the end of `values`.
#[inline(always)]
fn list_into(
    req: &mut Req,
    len: usize,
    arena: &[u8],
    values: &mut Vec<Span>,
    heads: &mut Vec<Head>,
) {
    if len <= FAST_VALUES {
        let long = short_list(req, len, arena);
        if long && req.form == Form::Four {
            push_heads(heads, req, arena);
        }
        return;
    }
    let start = values.len().saturating_sub(len);
    let kept = sort_and_dedup(values.get_mut(start..).unwrap_or(&mut []), arena);
    values.truncate(start + kept);
    if kept <= FAST_VALUES {
        // Duplicates made the list short: back into the requirement.
        for (slot, v) in req
            .values
            .iter_mut()
            .zip(values.get(start..).unwrap_or(&[]))
        {
            *slot = *v;
        }
        values.truncate(start);
        if kept <= 1 {
            req.len = kept as u8;
            return one_value(req, arena);
        }
        let long = short_list(req, kept, arena);
        if long && req.form == Form::Four {
            push_heads(heads, req, arena);
        }
        return;
    }
    req.start = start as u32;
    req.len = kept as u8;
    req.form = Form::Slow;
    let own = values.get(start..).unwrap_or(&[]);
    if kept > HASH_ABOVE {
        let mut fps = [0_u64; MAX_VALUES];
        for (slot, v) in fps.iter_mut().zip(own) {
            let bytes = v.bytes_in(arena);
            *slot = fingerprint(&Head::of(bytes), bytes);
        }
        let fps = fps.get(..kept).unwrap_or(&[]);
        let head = |i: usize| {
            own.get(i)
                .map_or(Head::default(), |v| Head::of(v.bytes_in(arena)))
        };
        if let Some(hash) = ValueHash::build(fps, head, heads) {
            req.fps = hash.to_words();
            req.form = Form::Hashed;
        }
    }
}

/// Keeps the [`Head`]s of a [`Form::Four`] list's values in `heads`, for a list with
/// values over 8 bytes (whose fingerprints are hashes): what confirms a fingerprint.
fn push_heads(heads: &mut Vec<Head>, req: &mut Req, arena: &[u8]) {
    req.heads = u32::try_from(heads.len()).unwrap_or(NO_HEADS);
    let own = req.values.get(..usize::from(req.len)).unwrap_or(&[]);
    if heads.capacity() == 0 {
        // The first list with heads: allocated at its size, not grown from nothing.
        *heads = Vec::with_capacity(own.len());
    }
    for v in own {
        heads.push(Head::of(v.bytes_in(arena)));
    }
}

/// A short list's value: its first 8 bytes big-endian (its order), its fingerprint, itself.
type Item = (u64, u64, Span);

/// Whether `a` sorts after `b` (byte order: the words, then the bytes past 8).
#[inline(always)]
fn after(a: &Item, b: &Item, arena: &[u8]) -> bool {
    a.0 > b.0
        || a.0 == b.0
            && (a.2.len > 8 || b.2.len > 8)
            && a.2.bytes_in(arena).get(8..) > b.2.bytes_in(arena).get(8..)
}

/// Whether `a` and `b` are the same value (equal values have equal fingerprints).
#[inline(always)]
fn same(a: &Item, b: &Item, arena: &[u8]) -> bool {
    a.1 == b.1 && a.2.len == b.2.len && (a.2.len <= 8 || a.2.bytes_in(arena) == b.2.bytes_in(arena))
}

/// [`Compiler::list`] for two to [`FAST_VALUES`] values, in the requirement: each value's
/// word and fingerprint read once, sorted by insertion, deduplicated, and compared by
/// fingerprints ([`Form::Four`], unless two long values' fingerprints collide). Whether a
/// value is over 8 bytes (its fingerprint a hash, to be confirmed by its head).
#[inline(always)]
#[allow(
    clippy::indexing_slicing,
    reason = "i, j and kept stay below n, at most FAST_VALUES, the arrays' length"
)]
fn short_list(req: &mut Req, len: usize, arena: &[u8]) -> bool {
    if len == 2 {
        return two_values(req, arena);
    }
    let n = len.min(FAST_VALUES);
    let mut items: [Item; FAST_VALUES] = [(0, 0, NO_VALUE); FAST_VALUES];
    let mut long = false;
    for (item, &v) in items.iter_mut().zip(&req.values).take(n) {
        let bytes = v.bytes_in(arena);
        let first = Head::first_word(bytes);
        let fp = if bytes.len() <= 8 {
            first
        } else {
            long = true;
            fingerprint(&Head::of(bytes), bytes)
        };
        *item = (first.swap_bytes(), fp, v);
    }
    for i in 1..n {
        let mut j = i;
        while j > 0 && after(&items[j - 1], &items[j], arena) {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut kept = 1;
    for i in 1..n {
        if !same(&items[kept - 1], &items[i], arena) {
            items[kept] = items[i];
            kept += 1;
        }
    }
    req.len = kept as u8;
    if kept == 1 {
        req.values[0] = items[0].2;
        one_value(req, arena);
        return false;
    }
    for i in 0..FAST_VALUES {
        // Past `kept`, copies of the first, so Form::Four compares all four.
        let item = if i < kept { items[i] } else { items[0] };
        req.values[i] = item.2;
        req.fps[i] = item.1;
    }
    // Distinct short values have distinct fingerprints; long ones may collide by chance,
    // and are then told apart only by the general test.
    let fps = &req.fps[..kept];
    let distinct = !long
        || fps
            .iter()
            .enumerate()
            .all(|(i, a)| fps.iter().skip(i + 1).all(|b| a != b));
    req.form = if distinct { Form::Four } else { Form::Slow };
    long
}

/// [`short_list`] for two values, the most common list: the two compared and ordered
/// directly, without the general sort and deduplication.
#[inline(always)]
fn two_values(req: &mut Req, arena: &[u8]) -> bool {
    let [v0, v1, ..] = req.values;
    if (9..=16).contains(&v0.len.max(v1.len)) {
        pair(req, arena);
        return false;
    }
    let (a, b) = (item(v0, arena), item(v1, arena));
    let (a, b) = if after(&a, &b, arena) { (b, a) } else { (a, b) };
    if same(&a, &b, arena) {
        req.len = 1;
        req.values[0] = a.2;
        one_value(req, arena);
        return false;
    }
    req.len = 2;
    // Past the second, copies of the first, so Form::Four compares all four.
    req.values = [a.2, b.2, a.2, a.2];
    req.fps = [a.1, b.1, a.1, a.1];
    let long = a.2.len > 8 || b.2.len > 8;
    // Two long values' fingerprints may collide by chance: then the general test.
    req.form = if !long || a.1 != b.1 {
        Form::Four
    } else {
        Form::Slow
    };
    long
}

/// A value of a short list as [`two_values`] orders and compares it. Inline: as a closure
/// it was a call per value (some 10 instructions each of a two-value list's parse).
#[inline(always)]
fn item(v: Span, arena: &[u8]) -> Item {
    let bytes = v.bytes_in(arena);
    let first = Head::first_word(bytes);
    let fp = if bytes.len() <= 8 {
        first
    } else {
        fingerprint(&Head::of(bytes), bytes)
    };
    (first.swap_bytes(), fp, v)
}

/// [`two_values`] for two values of at most 16 bytes, one over 8: ordered and compared by
/// the first two words of their heads (zero-padded, so byte order and equality), and kept
/// as a [`Form::Pair`] of those words, which needs neither fingerprints nor kept heads.
#[inline(never)]
fn pair(req: &mut Req, arena: &[u8]) {
    let [v0, v1, ..] = req.values;
    let (x0, x1) = (v0.bytes_in(arena), v1.bytes_in(arena));
    let ([a0, a1, ..], [b0, b1, ..]) = (Head::of(x0).0, Head::of(x1).0);
    let (ka, kb) = (
        (a0.swap_bytes(), a1.swap_bytes()),
        (b0.swap_bytes(), b1.swap_bytes()),
    );
    if ka == kb {
        req.len = 1;
        req.values[0] = v0;
        req.fps = [a0, a1, 0, 0];
        req.form = Form::One;
        return;
    }
    req.len = 2;
    (req.values, req.fps) = if ka < kb {
        ([v0, v1, v0, v0], [a0, a1, b0, b1])
    } else {
        ([v1, v0, v1, v1], [b0, b1, a0, a1])
    };
    req.form = Form::Pair;
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

/// Sorts `values` (strings in `arena`, a list longer than [`FAST_VALUES`]) and moves the
/// distinct ones to the front: how many there are.
fn sort_and_dedup(values: &mut [Span], arena: &[u8]) -> usize {
    values.sort_unstable_by(|a, b| {
        let (x, y) = (a.bytes_in(arena), b.bytes_in(arena));
        cmp_values(*a, word(x), *b, word(y), arena)
    });
    let mut kept = 1.min(values.len());
    for i in 1..values.len() {
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
