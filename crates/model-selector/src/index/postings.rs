//! `Postings`: a chunk's inverted index, one posting per term, in flat vectors.
//!
//! A term is a label `(key, value)` (for `matchLabels`, `In` and `NotIn`) or a key alone (for
//! `Exists` and `DoesNotExist`); its posting is the set of chunk positions whose labels hold
//! it. Nothing in here is behind a pointer of its own: terms, the hash table and the bitmaps
//! live in a few vectors, and the terms' text in one buffer that copies share (`text.rs`),
//! so copying a chunk (the first change a batch makes to it) is a few `memcpy`s of about 24
//! bytes a term, not one allocation or reference count per term, and a change to one runner
//! touches only that runner's terms.
//!
//! A posting of at most [`FEW`] positions holds them inline; a larger one takes a bitmap.
//! Most terms of a fleet whose label values are unique to each runner hold one position, so
//! they cost a few bytes instead of a bitmap.

use model_ids::hash::{fnv1a64, fnv1a64_from, splitmix64};

use super::{
    bits::{Bits, NO_BITS, set_bit, shift_down, shift_up},
    text::Text,
};

/// Positions a posting holds inline before it takes a bitmap.
const FEW: usize = 3;

/// The table has at least twice as many slots as terms, so probes stay short.
const LOAD_DIVISOR: usize = 2;

/// A term to look up or add, with its fingerprint computed once.
#[derive(Clone, Copy, Debug)]
pub(super) struct Probe<'q> {
    fp: u64,
    key: &'q str,
    value: Option<&'q str>,
}

impl<'q> Probe<'q> {
    /// The label `key=value`, or the key alone when `value` is `None`.
    pub(super) fn new(key: &'q str, value: Option<&'q str>) -> Self {
        Self {
            fp: fingerprint(key, value),
            key,
            value,
        }
    }
}

/// A 64-bit fingerprint of a term: FNV-1a over the key, a separator byte that no key or
/// value contains (0 before a value, 1 for a key-only term), the value, then splitmix64 so
/// the low bits the table uses are well mixed. Equal fingerprints are only a hint: a term
/// is found by comparing its text.
fn fingerprint(key: &str, value: Option<&str>) -> u64 {
    let h = fnv1a64(key.as_bytes());
    let h = match value {
        Some(value) => fnv1a64_from(fnv1a64_from(h, &[0]), value.as_bytes()),
        None => fnv1a64_from(h, &[1]),
    };
    splitmix64(h)
}

/// Where a posting's positions are.
#[derive(Clone, Copy, Debug)]
enum Posting {
    /// `len` positions (at most [`FEW`]), in `at[..len]`, in no particular order.
    Few { len: u8, at: [u16; FEW] },
    /// More than [`FEW`] positions: `count` bits set in `dense[bits]`.
    Many { count: u16, bits: u32 },
}

/// A posting as a query reads it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Found<'a> {
    /// The positions.
    Few(&'a [u16]),
    /// The bitmap of positions.
    Many(&'a Bits),
}

impl Found<'_> {
    /// `acc |= self`.
    pub(super) fn or_into(self, acc: &mut Bits) {
        match self {
            Found::Few(at) => {
                for &pos in at {
                    set_bit(acc, usize::from(pos), true);
                }
            }
            Found::Many(bits) => {
                for (a, b) in acc.iter_mut().zip(bits) {
                    *a |= b;
                }
            }
        }
    }

    /// `acc &= !self`.
    pub(super) fn clear_from(self, acc: &mut Bits) {
        match self {
            Found::Few(at) => {
                for &pos in at {
                    set_bit(acc, usize::from(pos), false);
                }
            }
            Found::Many(bits) => {
                for (a, b) in acc.iter_mut().zip(bits) {
                    *a &= !b;
                }
            }
        }
    }
}

/// One term: the low half of its fingerprint (enough to spread the table; the text decides
/// equality), its text (`key` then `value` in [`Postings::text`]) and its posting. 20 bytes.
#[derive(Clone, Copy, Debug)]
struct Term {
    fp: u32,
    text: u32,
    key_len: u16,
    /// The value's length, or [`NO_VALUE`] for a key-only term.
    value_len: u8,
    posting: Posting,
}

/// `Term::value_len` of a key-only term (values are at most 63 bytes).
const NO_VALUE: u8 = u8::MAX;

/// The terms of one chunk and their postings. See the module docs.
#[derive(Debug, Default)]
pub(super) struct Postings {
    /// Open addressing with linear probing on the fingerprint: 0 is an empty slot, `i + 1`
    /// is `terms[i]`. Its length is 0 or a power of two of at least twice the terms. A chunk
    /// holds far fewer than 65,535 terms (see `CHUNK_TERM_CAPACITY`), so two bytes a slot.
    table: Vec<u16>,
    terms: Vec<Term>,
    /// The text of every term, and of removed terms until it is rewritten.
    text: Text,
    /// The bitmaps of `Many` postings; unused ones are zero and listed in `free`.
    dense: Vec<Bits>,
    free: Vec<u32>,
}

/// Terms a copy has room for without growing: a change to one runner adds at most two per
/// label, so the first change after a copy (the reason for the copy) does not reallocate.
const SPARE_TERMS: usize = 128;

/// A copy with room for [`SPARE_TERMS`] more terms and their text, so the change that made
/// the copy does not copy the vectors a second time to grow them.
impl Clone for Postings {
    fn clone(&self) -> Self {
        let mut terms = Vec::with_capacity(self.terms.len() + SPARE_TERMS);
        terms.extend_from_slice(&self.terms);
        let mut dense = Vec::with_capacity(self.dense.len() + 4);
        dense.extend_from_slice(&self.dense);
        Self {
            table: self.table.clone(),
            terms,
            text: self.text.clone(),
            dense,
            free: self.free.clone(),
        }
    }
}

impl Postings {
    /// Number of distinct terms.
    pub(super) fn len(&self) -> usize {
        self.terms.len()
    }

    /// Gives back the room vectors kept for growth, once a chunk is built.
    pub(super) fn shrink(&mut self) {
        self.terms.shrink_to_fit();
        self.dense.shrink_to_fit();
        self.text.freeze();
    }

    /// The posting of `probe`, if any position holds it.
    pub(super) fn get(&self, probe: &Probe<'_>) -> Option<Found<'_>> {
        let term = self.terms.get(self.find(probe)?.1)?;
        Some(match &term.posting {
            Posting::Few { len, at } => Found::Few(at.get(..usize::from(*len)).unwrap_or(&[])),
            Posting::Many { bits, .. } => Found::Many(self.dense.get(*bits as usize)?),
        })
    }

    /// Adds position `pos` to the posting of `probe`, adding the term if it is new.
    pub(super) fn add(&mut self, probe: &Probe<'_>, pos: usize) {
        let index = match self.find(probe) {
            Some((_, index)) => index,
            None => self.insert(probe),
        };
        let Ok(pos) = u16::try_from(pos) else {
            return;
        };
        let Some(term) = self.terms.get_mut(index) else {
            return;
        };
        match &mut term.posting {
            Posting::Few { len, at } => {
                let used = at.get(..usize::from(*len)).unwrap_or(&[]);
                if used.contains(&pos) {
                    return;
                }
                if let Some(slot) = at.get_mut(usize::from(*len)) {
                    *slot = pos;
                    *len += 1;
                    return;
                }
                // Full: move to a bitmap.
                let mut bits = NO_BITS;
                for &p in at.iter().chain([&pos]) {
                    set_bit(&mut bits, usize::from(p), true);
                }
                let slot = match self.free.pop() {
                    Some(slot) => {
                        if let Some(free) = self.dense.get_mut(slot as usize) {
                            *free = bits;
                        }
                        slot
                    }
                    None => {
                        self.dense.push(bits);
                        u32::try_from(self.dense.len() - 1).unwrap_or(u32::MAX)
                    }
                };
                term.posting = Posting::Many {
                    count: FEW as u16 + 1,
                    bits: slot,
                };
            }
            Posting::Many { count, bits } => {
                if let Some(bits) = self.dense.get_mut(*bits as usize)
                    && !is_set(bits, pos)
                {
                    set_bit(bits, usize::from(pos), true);
                    *count += 1;
                }
            }
        }
    }

    /// Removes position `pos` from the posting of `probe`, and the term once no position
    /// holds it.
    pub(super) fn remove(&mut self, probe: &Probe<'_>, pos: usize) {
        let Some((_, index)) = self.find(probe) else {
            return;
        };
        let Ok(pos) = u16::try_from(pos) else {
            return;
        };
        let Some(term) = self.terms.get_mut(index) else {
            return;
        };
        let empty = match &mut term.posting {
            Posting::Few { len, at } => {
                let used = usize::from(*len);
                if let Some(i) = at
                    .get(..used)
                    .and_then(|at| at.iter().position(|&p| p == pos))
                {
                    at.swap(i, used - 1);
                    *len -= 1;
                }
                *len == 0
            }
            Posting::Many { count, bits } => {
                let slot = *bits;
                let Some(dense) = self.dense.get_mut(slot as usize) else {
                    return;
                };
                if is_set(dense, pos) {
                    set_bit(dense, usize::from(pos), false);
                    *count -= 1;
                }
                if usize::from(*count) <= FEW {
                    // Small again: back inline, and the bitmap back to the free list.
                    let mut at = [0; FEW];
                    let mut len = 0;
                    for (slot, p) in at.iter_mut().zip(positions(dense)) {
                        *slot = p;
                        len += 1;
                    }
                    *dense = NO_BITS;
                    self.free.push(slot);
                    term.posting = Posting::Few { len, at };
                }
                false
            }
        };
        if empty {
            self.remove_term(index);
        }
    }

    /// Makes room at `pos`: every position at or above it moves up by one.
    pub(super) fn shift_up(&mut self, pos: usize) {
        for term in &mut self.terms {
            match &mut term.posting {
                Posting::Few { len, at } => {
                    for p in at.iter_mut().take(usize::from(*len)) {
                        if usize::from(*p) >= pos {
                            *p += 1;
                        }
                    }
                }
                Posting::Many { bits, .. } => {
                    if let Some(bits) = self.dense.get_mut(*bits as usize) {
                        shift_up(bits, pos);
                    }
                }
            }
        }
    }

    /// Closes the gap at `pos`, which no posting holds any more: every position above it
    /// moves down by one.
    pub(super) fn shift_down(&mut self, pos: usize) {
        for term in &mut self.terms {
            match &mut term.posting {
                Posting::Few { len, at } => {
                    for p in at.iter_mut().take(usize::from(*len)) {
                        if usize::from(*p) > pos {
                            *p -= 1;
                        }
                    }
                }
                Posting::Many { bits, .. } => {
                    if let Some(bits) = self.dense.get_mut(*bits as usize) {
                        shift_down(bits, pos);
                    }
                }
            }
        }
    }

    /// The table slot and the index of `probe`'s term.
    fn find(&self, probe: &Probe<'_>) -> Option<(usize, usize)> {
        let mask = self.table.len().checked_sub(1)?;
        let fp = probe.fp as u32;
        let mut slot = fp as usize & mask;
        // The table is at most half full, so the loop meets an empty slot; the bound only
        // keeps it finite whatever happens.
        for _ in 0..self.table.len() {
            let index = usize::from(*self.table.get(slot)?).checked_sub(1)?;
            let term = self.terms.get(index)?;
            if term.fp == fp && usize::from(term.key_len) == probe.key.len() && self.is(term, probe)
            {
                return Some((slot, index));
            }
            slot = (slot + 1) & mask;
        }
        None
    }

    /// Whether `term` is the term `probe` names.
    fn is(&self, term: &Term, probe: &Probe<'_>) -> bool {
        let start = term.text as usize;
        let key_len = usize::from(term.key_len);
        let key = probe.key.as_bytes();
        match (probe.value, term.value_len) {
            (None, NO_VALUE) => self.text.get(start, key_len) == Some(key),
            (Some(value), len) if len != NO_VALUE && usize::from(len) == value.len() => {
                let value = value.as_bytes();
                self.text
                    .get(start, key_len + value.len())
                    .and_then(|t| t.split_at_checked(key_len))
                    == Some((key, value))
            }
            _ => false,
        }
    }

    /// Adds `probe`'s term with an empty posting; returns its index.
    fn insert(&mut self, probe: &Probe<'_>) -> usize {
        if (self.terms.len() + 1) * LOAD_DIVISOR > self.table.len() {
            self.grow();
        }
        let index = self.terms.len();
        let (text, value_len) = match probe.value {
            Some(value) => (
                self.text.push(&[probe.key, value]),
                u8::try_from(value.len()).unwrap_or(NO_VALUE - 1),
            ),
            None => (self.text.push(&[probe.key]), NO_VALUE),
        };
        let fp = probe.fp as u32;
        self.terms.push(Term {
            fp,
            text,
            key_len: u16::try_from(probe.key.len()).unwrap_or(u16::MAX),
            value_len,
            posting: Posting::Few {
                len: 0,
                at: [0; FEW],
            },
        });
        self.place(fp, index);
        index
    }

    /// Puts term `index` (with fingerprint `fp`) in the first empty slot from its home.
    fn place(&mut self, fp: u32, index: usize) {
        let mask = self.table.len().wrapping_sub(1);
        let mut slot = fp as usize & mask;
        for _ in 0..self.table.len() {
            match self.table.get_mut(slot) {
                Some(cell) if *cell == 0 => {
                    *cell = u16::try_from(index + 1).unwrap_or(u16::MAX);
                    return;
                }
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    /// Doubles the table (or starts it) and places every term again.
    fn grow(&mut self) {
        let size = (self.table.len() * 2).max(16);
        self.table = vec![0; size];
        let fps: Vec<u32> = self.terms.iter().map(|t| t.fp).collect();
        for (index, fp) in fps.into_iter().enumerate() {
            self.place(fp, index);
        }
    }

    /// Removes term `index`, whose posting is empty.
    fn remove_term(&mut self, index: usize) {
        let Some(term) = self.terms.get(index).copied() else {
            return;
        };
        let Some(slot) = self.slot_of(term.fp, index) else {
            return;
        };
        self.unplace(slot);
        // The last term takes the removed one's index.
        let last = self.terms.len() - 1;
        if index != last
            && let Some(moved) = self.terms.get(last).map(|t| t.fp)
            && let Some(slot) = self.slot_of(moved, last)
            && let Some(cell) = self.table.get_mut(slot)
        {
            *cell = u16::try_from(index + 1).unwrap_or(u16::MAX);
        }
        self.terms.swap_remove(index);
        if self.text.forget(term.text_len()) {
            self.text.rewrite(self.terms.iter_mut().map(|t| {
                let len = t.text_len();
                (&mut t.text, len)
            }));
        }
    }

    /// The table slot that holds term `index`, whose fingerprint is `fp`.
    fn slot_of(&self, fp: u32, index: usize) -> Option<usize> {
        let mask = self.table.len().checked_sub(1)?;
        let mut slot = fp as usize & mask;
        let want = u16::try_from(index + 1).ok()?;
        for _ in 0..self.table.len() {
            match *self.table.get(slot)? {
                0 => return None,
                cell if cell == want => return Some(slot),
                _ => slot = (slot + 1) & mask,
            }
        }
        None
    }

    /// Empties table slot `hole` and moves later entries of its probe run back, so every
    /// term stays reachable from its home slot (deletion without tombstones).
    fn unplace(&mut self, mut hole: usize) {
        let mask = self.table.len().wrapping_sub(1);
        if let Some(cell) = self.table.get_mut(hole) {
            *cell = 0;
        }
        let mut next = hole;
        for _ in 0..self.table.len() {
            next = (next + 1) & mask;
            let cell = self.table.get(next).copied().unwrap_or(0);
            let Some(term) = usize::from(cell)
                .checked_sub(1)
                .and_then(|i| self.terms.get(i))
            else {
                return;
            };
            let home = term.fp as usize & mask;
            // The entry may fill the hole if its home is not cyclically in (hole, next].
            let stays = if hole <= next {
                hole < home && home <= next
            } else {
                hole < home || home <= next
            };
            if !stays {
                if let Some(h) = self.table.get_mut(hole) {
                    *h = cell;
                }
                if let Some(n) = self.table.get_mut(next) {
                    *n = 0;
                }
                hole = next;
            }
        }
    }
}

impl Term {
    /// Bytes of text: the key, and the value if any.
    fn text_len(&self) -> usize {
        usize::from(self.key_len)
            + if self.value_len == NO_VALUE {
                0
            } else {
                usize::from(self.value_len)
            }
    }
}

/// Whether bit `pos` of `bits` is set.
fn is_set(bits: &Bits, pos: u16) -> bool {
    let pos = usize::from(pos);
    bits.get(pos / 64).is_some_and(|w| w >> (pos % 64) & 1 != 0)
}

/// The set positions of `bits`, in order.
fn positions(bits: &Bits) -> impl Iterator<Item = u16> + '_ {
    bits.iter().enumerate().flat_map(|(w, &word)| {
        let mut word = word;
        std::iter::from_fn(move || {
            if word == 0 {
                return None;
            }
            let bit = word.trailing_zeros() as usize;
            word &= word - 1;
            u16::try_from(w * 64 + bit).ok()
        })
    })
}

#[cfg(test)]
mod tests;
