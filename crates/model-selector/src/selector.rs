//! `LabelSelector`: the compiled, canonical selector, its builder, matching and `Display`.

use std::{cmp::Ordering, fmt};

use crate::{
    error::SelectorError,
    labels::{Entry, Labels},
    limits::MAX_REQUIREMENTS,
    operator::SelectorOperator,
    requirement::SelectorRequirement,
    text::{Packed, Span, key_hash, parse_i64},
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
enum Test {
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
    /// The key's [`key_hash`], for a label set's index.
    pub(crate) hash: u64,
    pub(crate) key: Packed,
    /// How [`LabelSelector::matches`] tests the value, or [`Form::Slow`].
    form: Form,
    /// For the fast forms, bit `outcome` is set when the requirement holds for that
    /// outcome: 0 key absent, 1 value not listed, 2 value listed.
    mask: u8,
    /// Up to [`FAST_VALUES`] values; past `len`, copies of the first, so [`Form::Four`]
    /// can compare all four words.
    inline: [Packed; FAST_VALUES],
    /// For long lists ([`Req::hashed`]), their perfect hash.
    list: ValueHash,
    hashed: bool,
    test: Test,
    pub(crate) kind: Kind,
    /// Every value is shorter than 8 bytes, so equal words mean equal strings.
    short_values: bool,
    start: u32,
    len: u32,
    /// The integer of `Gt` and `Lt`.
    pub(crate) bound: i64,
}

/// How [`LabelSelector::matches`] tests a requirement on a key of at most 8 bytes whose
/// values are all shorter than 8 bytes (so equal words mean equal strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
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
struct ValueHash {
    mult: u64,
    shift: u32,
    start: u32,
}

/// Lists longer than this get a [`ValueHash`]; shorter ones are scanned.
const HASH_ABOVE: usize = 8;

/// Most values of a requirement [`Req::fast`] handles.
const FAST_VALUES: usize = 4;

/// A placeholder value before a requirement's values are known.
const NO_VALUE: Packed = Packed {
    word: 0,
    span: Span { start: 0, len: 0 },
};

/// The word of an empty hash slot: its last byte is not zero, so it is not the word of
/// any string shorter than 8 bytes.
const NO_WORD: u64 = u64::MAX;

impl ValueHash {
    #[inline(always)]
    fn slot(&self, word: u64) -> usize {
        self.start as usize + (word.wrapping_mul(self.mult) >> self.shift) as usize
    }

    /// Builds the table for `values` (sorted, so equal words are adjacent) into `slots`
    /// and `words`, which have the same length.
    fn build(values: &[Packed], slots: &mut Vec<u8>, words: &mut Vec<u64>) -> Option<Self> {
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

/// A Kubernetes label selector: `matchLabels` and `matchExpressions`, all ANDed.
///
/// An empty selector matches everything. `In` needs the key present with a listed value;
/// `NotIn` matches when the key is absent or its value is not listed; `Exists` and
/// `DoesNotExist` test presence; `Gt` and `Lt` need the key present with a value that
/// parses as an `i64` and compares (any other value does not match).
///
/// Ways in, all validated and bounded ([`MAX_REQUIREMENTS`], [`MAX_VALUES`](crate::MAX_VALUES)):
/// [`LabelSelector::builder`], [`LabelSelector::from_parts`], [`str::parse`] (string syntax
/// below) and serde (the `metav1.LabelSelector` JSON, unchanged).
///
/// # Canonical form
///
/// A selector has a canonical form: requirements sorted by key (then `matchLabels` before
/// `In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, then values), values sorted and
/// deduplicated. `Display`, serialization, [`LabelSelector::explain`],
/// [`LabelSelector::match_expressions`] and [`PartialEq`] use that form, so two selectors
/// written in a different order compare equal. It preserves meaning, and which part a
/// requirement came from: a `matchLabels` entry prints `k=v`, an `In` with one value prints
/// `k in (v)`.
///
/// # String syntax
///
/// As Kubernetes writes it: `k=v` and `k==v` (a `matchLabels` entry), `k!=v` (`NotIn` with
/// one value), `k in (a,b)`, `k notin (a,b)`, `k` (`Exists`), `!k` (`DoesNotExist`), `k>5`,
/// `k<5`; commas AND requirements, spaces are allowed around tokens, and the empty string
/// selects everything. An empty value is written `""` (`k=""`, `k in ("",a)`). A second
/// `k=v` on a key already in `matchLabels` becomes `k in (v)`, since a map holds one value
/// per key.
///
/// ```
/// use model_selector::{LabelSelector, Labels, SelectorError};
///
/// let selector: LabelSelector = "zone = eu, gpu in (h100, a100), !draining".parse()?;
/// assert_eq!(selector.to_string(), "!draining,gpu in (a100,h100),zone=eu");
/// let runner = Labels::from_pairs([("zone", "eu"), ("gpu", "a100")])?;
/// assert!(selector.matches(&runner));
///
/// let err = "zone in (eu".parse::<LabelSelector>().unwrap_err();
/// assert!(matches!(err, SelectorError::Syntax { position: 11, .. }));
/// # Ok::<(), SelectorError>(())
/// ```
#[derive(Clone, Default)]
pub struct LabelSelector {
    arena: String,
    reqs: Vec<Req>,
    values: Vec<Packed>,
    /// The tables of the [`ValueHash`]es of long lists.
    slots: Vec<u8>,
    slot_words: Vec<u64>,
}

/// The selector a task uses to choose its runner (`TaskSpec.runner_selector`).
pub type RunnerSelector = LabelSelector;

impl LabelSelector {
    /// The empty selector, which matches every label set.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder that collects labels and requirements and validates them in `build`.
    pub fn builder() -> LabelSelectorBuilder {
        LabelSelectorBuilder::default()
    }

    /// A selector from already validated parts.
    ///
    /// # Errors
    ///
    /// [`SelectorError::TooMany`] when there are more than [`MAX_REQUIREMENTS`] in all.
    pub fn from_parts(
        match_labels: &Labels,
        match_expressions: &[SelectorRequirement],
    ) -> Result<Self, SelectorError> {
        if match_labels.len() + match_expressions.len() > MAX_REQUIREMENTS {
            return Err(too_many_requirements());
        }
        let mut c = Compiler::default();
        for (key, value) in match_labels {
            c.begin(key, Kind::Label);
            c.value(value);
            c.end();
        }
        for r in match_expressions {
            let kind = Kind::from_operator(r.operator());
            c.begin(r.key(), kind);
            for v in r.values() {
                c.value(v);
            }
            c.end();
        }
        Ok(c.finish())
    }

    /// Whether the selector has no requirements (and so matches everything).
    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// Number of requirements: `matchLabels` entries plus `matchExpressions`.
    pub fn len(&self) -> usize {
        self.reqs.len()
    }

    /// The `matchLabels` entries in key order.
    pub fn match_labels(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.ordered().filter(|r| r.kind == Kind::Label).map(|r| {
            let value = self
                .req_values(r)
                .first()
                .map_or("", |v| v.get(&self.arena));
            (r.key.get(&self.arena), value)
        })
    }

    /// The `matchExpressions` in canonical order.
    pub fn match_expressions(&self) -> impl Iterator<Item = RequirementView<'_>> + '_ {
        self.ordered()
            .filter(|r| r.kind != Kind::Label)
            .map(|req| RequirementView {
                selector: self,
                req,
            })
    }

    /// Whether `labels` satisfy every requirement. Never allocates.
    ///
    /// Each requirement looks its key up in the label set's collision-free hash index
    /// (one probe; keys and values of up to 8 bytes compare as single integers).
    #[inline]
    pub fn matches(&self, labels: &Labels) -> bool {
        if !labels.is_indexed() {
            return self.matches_searching(labels);
        }
        for req in &self.reqs {
            let holds = if req.form == Form::Slow {
                self.test_slow(req, labels)
            } else {
                let outcome = match labels.find_short(req.hash, req.key.word, req.key.span.len) {
                    None => 0,
                    Some(e) => {
                        let w = e.value.word;
                        let listed = match req.form {
                            Form::One => w == req.inline[0].word,
                            Form::Four => {
                                let [a, b, c, d] = &req.inline;
                                (w == a.word) | (w == b.word) | (w == c.word) | (w == d.word)
                            }
                            Form::Hashed | Form::Slow => {
                                self.slot_words.get(req.list.slot(w)) == Some(&w)
                            }
                        };
                        1 + u32::from(listed)
                    }
                };
                req.mask >> outcome & 1 != 0
            };
            if !holds {
                return false;
            }
        }
        true
    }

    /// Looks up and tests a requirement [`Req::fast`] does not handle, out of line.
    #[inline(never)]
    fn test_slow(&self, req: &Req, labels: &Labels) -> bool {
        let found = labels.find(req.hash, &req.key, &self.arena);
        self.test(req, found, labels.arena())
    }

    /// [`LabelSelector::matches`] for label sets without an index.
    #[inline(never)]
    fn matches_searching(&self, labels: &Labels) -> bool {
        let arena = labels.arena();
        self.reqs.iter().all(|req| {
            let found = labels.search(&req.key, &self.arena);
            self.test(req, found, arena)
        })
    }

    /// Whether `req` holds given the label found for its key (if any).
    #[inline(always)]
    pub(crate) fn test(&self, req: &Req, found: Option<&Entry>, arena: &str) -> bool {
        match (req.test, found) {
            (Test::Equal, Some(e)) => self.equals(req, e, arena),
            (Test::OneOf, Some(e)) => self.lists(req, e, arena),
            (Test::NotEqual, Some(e)) => !self.equals(req, e, arena),
            (Test::NoneOf, Some(e)) => !self.lists(req, e, arena),
            (Test::Exists, Some(_)) | (Test::NotEqual | Test::NoneOf | Test::Absent, None) => true,
            (Test::Greater, Some(e)) => compare(e, arena).is_some_and(|v| v > req.bound),
            (Test::Less, Some(e)) => compare(e, arena).is_some_and(|v| v < req.bound),
            (Test::Absent, Some(_))
            | (Test::Equal | Test::OneOf | Test::Exists | Test::Greater | Test::Less, None) => {
                false
            }
        }
    }

    /// Whether the value of `entry` is the one value of `req`.
    #[inline(always)]
    fn equals(&self, req: &Req, entry: &Entry, arena: &str) -> bool {
        req.inline[0].word == entry.value.word
            && (req.short_values || self.long_equals(req, entry, arena))
    }

    #[cold]
    #[inline(never)]
    fn long_equals(&self, req: &Req, entry: &Entry, arena: &str) -> bool {
        req.inline[0].eq_in(&self.arena, &entry.value, arena)
    }

    /// Whether the value of `entry` is among the (several) values of `req`.
    #[inline(never)]
    fn lists(&self, req: &Req, entry: &Entry, arena: &str) -> bool {
        let values = self.req_values(req);
        let word = entry.value.word;
        let hash = req.hashed.then_some(&req.list);
        let from = match hash {
            Some(hash) => match self.slots.get(hash.slot(word)) {
                Some(&slot) if slot > 0 => usize::from(slot) - 1,
                _ => return false,
            },
            None if req.short_values => return values.iter().any(|v| v.word == word),
            None => 0,
        };
        let rest = values.get(from..).unwrap_or(&[]);
        if req.short_values {
            return rest.first().is_some_and(|v| v.word == word);
        }
        // Long values: check every value with this word (they are adjacent).
        rest.iter()
            .skip_while(|v| !req.hashed && v.word != word)
            .take_while(|v| v.word == word)
            .any(|v| v.eq_in(&self.arena, &entry.value, arena))
    }

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

    /// The requirements in canonical order. They are stored in the order they came in
    /// (matching does not care), so this sorts their positions, on the stack.
    pub(crate) fn ordered(&self) -> Ordered<'_> {
        let mut order = [0_u8; MAX_REQUIREMENTS];
        if let Some(order) = order.get_mut(..self.reqs.len()) {
            for (i, o) in order.iter_mut().enumerate() {
                *o = i as u8;
            }
            order.sort_unstable_by(|&a, &b| {
                match (self.reqs.get(usize::from(a)), self.reqs.get(usize::from(b))) {
                    (Some(a), Some(b)) => self.cmp_reqs(a, b),
                    _ => Ordering::Equal,
                }
            });
        }
        Ordered {
            reqs: &self.reqs,
            order,
            at: 0,
        }
    }

    pub(crate) fn arena(&self) -> &str {
        &self.arena
    }

    /// The canonical rendering of one requirement.
    pub(crate) fn fmt_req(&self, req: &Req, f: &mut dyn fmt::Write) -> fmt::Result {
        let key = req.key.get(&self.arena);
        let list = |f: &mut dyn fmt::Write| -> fmt::Result {
            f.write_str(" (")?;
            for (i, v) in self.req_values(req).iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write_value(f, v.get(&self.arena))?;
            }
            f.write_str(")")
        };
        match req.kind {
            Kind::Label => {
                write!(f, "{key}=")?;
                let value = self
                    .req_values(req)
                    .first()
                    .map_or("", |v| v.get(&self.arena));
                write_value(f, value)
            }
            Kind::In => {
                write!(f, "{key} in")?;
                list(f)
            }
            Kind::NotIn => {
                write!(f, "{key} notin")?;
                list(f)
            }
            Kind::Exists => f.write_str(key),
            Kind::DoesNotExist => write!(f, "!{key}"),
            Kind::Gt => write!(f, "{key}>{}", req.bound),
            Kind::Lt => write!(f, "{key}<{}", req.bound),
        }
    }

    /// Canonical comparison of two requirements of this selector.
    fn cmp_reqs(&self, a: &Req, b: &Req) -> Ordering {
        if a.key.word != b.key.word {
            return a.key.word.cmp(&b.key.word);
        }
        a.key
            .cmp_in(&self.arena, &b.key, &self.arena)
            .then(a.kind.cmp(&b.kind))
            .then_with(|| {
                let (va, vb) = (self.req_values(a), self.req_values(b));
                va.iter()
                    .map(|v| v.get(&self.arena))
                    .cmp(vb.iter().map(|v| v.get(&self.arena)))
            })
            .then(a.bound.cmp(&b.bound))
    }
}

/// A selector's requirements in canonical order, from [`LabelSelector::ordered`].
pub(crate) struct Ordered<'a> {
    reqs: &'a [Req],
    /// Positions in `reqs`, sorted; unused past [`MAX_REQUIREMENTS`] requirements, which
    /// [`Compiler::finish`] sorts in place instead.
    order: [u8; MAX_REQUIREMENTS],
    at: usize,
}

impl<'a> Iterator for Ordered<'a> {
    type Item = &'a Req;

    fn next(&mut self) -> Option<&'a Req> {
        let at = self.at;
        self.at += 1;
        if self.reqs.len() > MAX_REQUIREMENTS {
            return self.reqs.get(at);
        }
        let i = self.order.get(..self.reqs.len())?.get(at)?;
        self.reqs.get(usize::from(*i))
    }
}

/// The integer value of a label, for `Gt` and `Lt`.
#[inline(never)]
fn compare(entry: &Entry, arena: &str) -> Option<i64> {
    parse_i64(entry.value.bytes(arena))
}

fn write_value(f: &mut dyn fmt::Write, value: &str) -> fmt::Result {
    if value.is_empty() {
        f.write_str("\"\"")
    } else {
        f.write_str(value)
    }
}

pub(crate) fn too_many_requirements() -> SelectorError {
    SelectorError::TooMany {
        path: String::new(),
        what: "requirements",
        limit: MAX_REQUIREMENTS,
    }
}

/// Builds the compiled form. Callers validate keys and values and check the limits
/// ([`MAX_REQUIREMENTS`], [`MAX_VALUES`](crate::MAX_VALUES)) first; this only arranges them.
#[derive(Default)]
pub(crate) struct Compiler {
    sel: LabelSelector,
}

impl Compiler {
    /// A compiler whose arena is `input`, for strings that are slices of it
    /// ([`Compiler::begin_at`], [`Compiler::value_at`]): one copy instead of one per string.
    pub(crate) fn over(input: &str, reqs: usize) -> Self {
        Self {
            sel: LabelSelector {
                arena: input.to_owned(),
                reqs: Vec::with_capacity(reqs),
                values: Vec::new(),
                slots: Vec::new(),
                slot_words: Vec::new(),
            },
        }
    }

    /// Starts a requirement on `key`.
    pub(crate) fn begin(&mut self, key: &str, kind: Kind) {
        let key = Packed::push(&mut self.sel.arena, key);
        self.begin_packed(key, kind);
    }

    /// Starts a requirement on `key`, already in the arena at byte `start`.
    #[inline]
    pub(crate) fn begin_at(&mut self, start: usize, len: usize, kind: Kind) {
        self.begin_packed(Packed::at(&self.sel.arena, start, len), kind);
    }

    #[inline]
    fn begin_packed(&mut self, key: Packed, kind: Kind) {
        let hash = key_hash(key.word, key.bytes(&self.sel.arena));
        self.sel.reqs.push(Req {
            hash,
            key,
            form: Form::Slow,
            mask: 0,
            inline: [NO_VALUE; FAST_VALUES],
            list: ValueHash::default(),
            hashed: false,
            test: Test::Exists,
            kind,
            short_values: true,
            start: 0,
            len: 0,
            bound: 0,
        });
    }

    /// Number of requirements begun so far.
    pub(crate) fn len(&self) -> usize {
        self.sel.reqs.len()
    }

    /// Adds a value to the current requirement (for `Gt` and `Lt`, sets the bound from a
    /// value the caller has checked to be an integer).
    pub(crate) fn value(&mut self, value: &str) {
        if self.is_integer() {
            self.bound(value);
        } else {
            let packed = Packed::push(&mut self.sel.arena, value);
            self.value_packed(packed);
        }
    }

    /// [`Compiler::value`] for a value already in the arena at byte `start`.
    #[inline]
    pub(crate) fn value_at(&mut self, start: usize, len: usize) {
        if self.is_integer() {
            let value = self.sel.arena.get(start..start + len).unwrap_or("");
            if let Some(req) = self.sel.reqs.last_mut() {
                req.bound = parse_i64(value.as_bytes()).unwrap_or(0);
            }
        } else {
            self.value_packed(Packed::at(&self.sel.arena, start, len));
        }
    }

    fn is_integer(&self) -> bool {
        self.sel
            .reqs
            .last()
            .is_some_and(|r| matches!(r.kind, Kind::Gt | Kind::Lt))
    }

    fn bound(&mut self, value: &str) {
        if let Some(req) = self.sel.reqs.last_mut() {
            req.bound = parse_i64(value.as_bytes()).unwrap_or(0);
        }
    }

    #[inline]
    fn value_packed(&mut self, value: Packed) {
        let Some(req) = self.sel.reqs.last_mut() else {
            return;
        };
        let len = req.len as usize;
        if let Some(slot) = req.inline.get_mut(len) {
            *slot = value;
        } else {
            if len == FAST_VALUES {
                // The list outgrows the requirement: move it to the value vector.
                req.start = u32::try_from(self.sel.values.len()).unwrap_or(u32::MAX);
                self.sel.values.extend_from_slice(&req.inline);
            }
            self.sel.values.push(value);
        }
        req.len += 1;
    }

    /// Number of values in the current requirement.
    pub(crate) fn value_count(&self) -> usize {
        self.sel.reqs.last().map_or(0, |r| r.len as usize)
    }

    /// Ends the current requirement: sorts and deduplicates its values and decides
    /// how [`LabelSelector::matches`] tests it.
    #[inline]
    pub(crate) fn end(&mut self) {
        let sel = &mut self.sel;
        let Some(req) = sel.reqs.last_mut() else {
            return;
        };
        let len = req.len as usize;
        let start = req.start as usize;
        if len > 1 {
            let arena = &sel.arena;
            let own = if len <= FAST_VALUES {
                req.inline.get_mut(..len)
            } else {
                sel.values.get_mut(start..start + len)
            };
            let own = own.unwrap_or(&mut []);
            own.sort_unstable_by(|a, b| a.cmp_in(arena, b, arena));
            let mut kept = 1;
            for i in 1..own.len() {
                let (Some(&value), Some(last)) = (own.get(i), own.get(kept - 1)) else {
                    break;
                };
                if !value.eq_in(arena, last, arena) {
                    if let Some(cell) = own.get_mut(kept) {
                        *cell = value;
                    }
                    kept += 1;
                }
            }
            if len > FAST_VALUES && kept <= FAST_VALUES {
                // Duplicates made the list short: back into the requirement.
                for (slot, v) in req
                    .inline
                    .iter_mut()
                    .zip(sel.values.get(start..start + kept).unwrap_or(&[]))
                {
                    *slot = *v;
                }
            }
            if len > FAST_VALUES {
                sel.values.truncate(if kept > FAST_VALUES {
                    start + kept
                } else {
                    start
                });
            }
            req.len = kept as u32;
        }
        let len = req.len as usize;
        let inline = len <= FAST_VALUES;
        if inline && len > 0 {
            let first = req.inline[0];
            for slot in req.inline.iter_mut().skip(len) {
                *slot = first;
            }
        }
        let own = if inline {
            req.inline.get(..len)
        } else {
            sel.values.get(start..start + len)
        };
        let own = own.unwrap_or(&[]);
        req.short_values = own.iter().all(|v| v.span.len < 8);
        if len > HASH_ABOVE
            && let Some(hash) = ValueHash::build(own, &mut sel.slots, &mut sel.slot_words)
        {
            req.list = hash;
            req.hashed = true;
        }
        let single = len == 1;
        (req.test, req.mask) = match req.kind {
            Kind::Label | Kind::In if single => (Test::Equal, 0b100),
            Kind::Label | Kind::In => (Test::OneOf, 0b100),
            Kind::NotIn if single => (Test::NotEqual, 0b011),
            Kind::NotIn => (Test::NoneOf, 0b011),
            Kind::Exists => (Test::Exists, 0b110),
            Kind::DoesNotExist => (Test::Absent, 0b001),
            Kind::Gt => (Test::Greater, 0),
            Kind::Lt => (Test::Less, 0),
        };
        req.form = match len {
            _ if req.key.span.len > 8 || !req.short_values || req.mask == 0 => Form::Slow,
            0 | 1 => Form::One,
            2..=FAST_VALUES => Form::Four,
            _ if req.hashed => Form::Hashed,
            _ => Form::Slow,
        };
    }

    /// The selector. Requirements stay in the order they came in
    /// ([`LabelSelector::ordered`] sorts them when the order matters), unless there are
    /// more than callers allow.
    pub(crate) fn finish(mut self) -> LabelSelector {
        if self.sel.reqs.len() > MAX_REQUIREMENTS {
            let mut reqs = std::mem::take(&mut self.sel.reqs);
            reqs.sort_by(|a, b| self.sel.cmp_reqs(a, b));
            self.sel.reqs = reqs;
        }
        self.sel
    }
}

/// A borrowed view of one of a selector's `matchExpressions`.
#[derive(Clone, Copy)]
pub struct RequirementView<'a> {
    selector: &'a LabelSelector,
    req: &'a Req,
}

impl<'a> RequirementView<'a> {
    /// The label key.
    pub fn key(&self) -> &'a str {
        self.req.key.get(&self.selector.arena)
    }

    /// The operator.
    pub fn operator(&self) -> SelectorOperator {
        self.req.kind.operator()
    }

    /// The values of `In` and `NotIn`, sorted and distinct (empty for other operators).
    pub fn values(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        let arena: &'a str = &self.selector.arena;
        self.selector
            .req_values(self.req)
            .iter()
            .map(move |v| v.get(arena))
    }

    /// The integer of `Gt` and `Lt`.
    pub fn bound(&self) -> Option<i64> {
        matches!(self.req.kind, Kind::Gt | Kind::Lt).then_some(self.req.bound)
    }

    /// The values as they are written on the wire (the integer in decimal for `Gt`/`Lt`).
    pub fn wire_values(&self) -> Vec<String> {
        match self.bound() {
            Some(bound) => vec![bound.to_string()],
            None => self.values().map(str::to_owned).collect(),
        }
    }

    /// An owned copy of this requirement.
    pub fn to_requirement(&self) -> SelectorRequirement {
        SelectorRequirement::from_trusted(self.key(), self.operator(), self.wire_values())
    }
}

impl fmt::Debug for RequirementView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RequirementView({self})")
    }
}

/// The requirement in string syntax, e.g. `gpu in (a100,h100)`.
impl fmt::Display for RequirementView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.selector.fmt_req(self.req, f)
    }
}

/// The canonical string syntax (see [`LabelSelector`]); the empty selector prints nothing.
impl fmt::Display for LabelSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, req) in self.ordered().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            self.fmt_req(req, f)?;
        }
        Ok(())
    }
}

impl fmt::Debug for LabelSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LabelSelector({:?})", self.to_string())
    }
}

impl PartialEq for LabelSelector {
    fn eq(&self, other: &Self) -> bool {
        self.reqs.len() == other.reqs.len()
            && self.ordered().zip(other.ordered()).all(|(a, b)| {
                a.kind == b.kind
                    && a.bound == b.bound
                    && a.key.get(&self.arena) == b.key.get(&other.arena)
                    && self
                        .req_values(a)
                        .iter()
                        .map(|v| v.get(&self.arena))
                        .eq(other.req_values(b).iter().map(|v| v.get(&other.arena)))
            })
    }
}

impl Eq for LabelSelector {}

/// Collects `matchLabels` entries and requirements, then validates them all in
/// [`LabelSelectorBuilder::build`].
///
/// ```
/// use model_selector::{LabelSelector, SelectorRequirement};
///
/// let selector = LabelSelector::builder()
///     .label("zone", "eu")
///     .requirement(SelectorRequirement::exists("gpu")?)
///     .build()?;
/// assert_eq!(selector.to_string(), "gpu,zone=eu");
/// # Ok::<(), model_selector::SelectorError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct LabelSelectorBuilder {
    labels: Vec<(String, String)>,
    expressions: Vec<SelectorRequirement>,
}

impl LabelSelectorBuilder {
    /// Adds the `matchLabels` entry `key: value`.
    #[must_use]
    pub fn label(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.labels.push((key.into(), value.into()));
        self
    }

    /// Adds a `matchExpressions` requirement.
    #[must_use]
    pub fn requirement(mut self, requirement: SelectorRequirement) -> Self {
        self.expressions.push(requirement);
        self
    }

    /// The selector.
    ///
    /// # Errors
    ///
    /// Invalid or duplicate `matchLabels` entries (path `matchLabels["key"]`), or
    /// [`SelectorError::TooMany`].
    pub fn build(self) -> Result<LabelSelector, SelectorError> {
        if self.labels.len() + self.expressions.len() > MAX_REQUIREMENTS {
            return Err(too_many_requirements());
        }
        let labels = Labels::from_pairs(self.labels).map_err(|e| e.prefixed("matchLabels"))?;
        LabelSelector::from_parts(&labels, &self.expressions)
    }
}

impl Compiler {
    /// Whether a `matchLabels` entry on `key` was already added.
    pub(crate) fn has_label(&self, key: &str) -> bool {
        self.sel
            .reqs
            .iter()
            .any(|r| r.kind == Kind::Label && r.key.get(&self.sel.arena) == key)
    }
}
