//! `Compiler`: builds the compiled form for every way in (parts, builder, parser, serde).

use super::{
    LabelSelector,
    compiled::{FAST_VALUES, Form, HASH_ABOVE, Kind, NO_VALUE, Req, Test, ValueHash},
    matching::parse_i64,
};
use crate::{
    error::SelectorError,
    limits::{MAX_REQUIREMENTS, MAX_VALUES},
    packed::{Ends, Packed, fingerprint, key_hash},
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
                slot_fps: Vec::new(),
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
            key_ends: Ends::of(self.sel.arena.as_bytes(), key.span),
            form: Form::Slow,
            mask: 0,
            fps: [0; FAST_VALUES],
            inline: [NO_VALUE; FAST_VALUES],
            list: ValueHash::default(),
            hashed: false,
            test: Test::Exists,
            kind,
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
        let arena = &sel.arena;
        let own = if inline {
            req.inline.get(..len)
        } else {
            sel.values.get(start..start + len)
        };
        let own = own.unwrap_or(&[]);
        let fp = |v: &Packed| fingerprint(v.word, v.bytes(arena));
        let mut distinct = true;
        if inline {
            // The padding copies the first value, so its fingerprint is copied, not computed.
            let first = fp(&req.inline[0]);
            for (i, (slot, v)) in req.fps.iter_mut().zip(&req.inline).enumerate() {
                *slot = if i == 0 || i >= len { first } else { fp(v) };
            }
            // Distinct values whose fingerprints are equal (long values, by chance) are
            // told apart only by the slow test.
            let fps = req.fps.get(..len).unwrap_or(&[]);
            distinct = fps
                .iter()
                .enumerate()
                .all(|(i, a)| fps.iter().skip(i + 1).all(|b| a != b));
        } else if len > HASH_ABOVE {
            let mut fps = [0_u64; MAX_VALUES];
            for (slot, v) in fps.iter_mut().zip(own) {
                *slot = fp(v);
            }
            let fps = fps.get(..len).unwrap_or(&[]);
            if let Some(hash) = ValueHash::build(fps, &mut sel.slots, &mut sel.slot_fps) {
                req.list = hash;
                req.hashed = true;
            }
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
            _ if req.mask == 0 || !distinct => Form::Slow,
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

    /// Whether a `matchLabels` entry on `key` was already added.
    pub(crate) fn has_label(&self, key: &str) -> bool {
        self.sel
            .reqs
            .iter()
            .any(|r| r.kind == Kind::Label && r.key.get(&self.sel.arena) == key)
    }
}
