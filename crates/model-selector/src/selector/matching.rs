//! `LabelSelector::matches`: one allocation-free probe per requirement.

use super::{
    LabelSelector,
    compiled::{ABSENT, Form, Kind, LISTED, NO_HEADS, ONE, PAIR, Req, UNLISTED},
};
use crate::{
    labels::{Entry, Labels, Lookup},
    packed::{is_long, same_bytes},
};

impl LabelSelector {
    /// Whether `labels` satisfy every requirement. Never allocates.
    ///
    /// Each requirement looks its key up in the label set's collision-free hash index: one
    /// probe, then the key's first 32 bytes, kept zero-padded as four words by both sides
    /// from construction, compared at once (they decide keys of at most 32 bytes). A
    /// one-value requirement compares the value's first 32 bytes the same way, a list of two
    /// values of at most 16 bytes the first 16 with each; a list of up to four compares a
    /// value of at most 8 bytes (its fingerprint, exact) with the listed values'
    /// fingerprints, and a longer one's first 32 bytes with the listed values'; a longer list
    /// finds the slot of the value's fingerprint in its perfect hash and compares the first
    /// 32 bytes of the one listed value there. The loop makes no call: a requirement it
    /// cannot decide so (`Gt`, `Lt`, a key or value over 32 bytes) hands it and the rest to
    /// the general test, which compares bytes.
    #[inline]
    pub fn matches(&self, labels: &Labels) -> bool {
        let Some(lookup) = labels.lookup() else {
            return self.matches_searching(labels);
        };
        match self.matches_fast(&lookup) {
            Ok(holds) => holds,
            Err(from) => self.matches_from(from, labels),
        }
    }

    /// The requirements through `lookup` as far as it decides them by comparing words
    /// ([`Form::One`], [`Form::Pair`], [`Form::Four`] by fingerprints for a label value of
    /// at most 8 bytes and through [`LabelSelector::four_by_head`] for a longer one, long
    /// lists through
    /// [`LabelSelector::hashed_by_head`]): whether all hold, or the first requirement it
    /// cannot decide (those before it hold). Its probe keeps three registers (no bounds test
    /// on the slots, no mask beside their length), so the heads of the lists fit beside the
    /// lookup and the list forms are compared in the loop, not behind a call.
    #[inline(always)]
    fn matches_fast<'s>(&'s self, lookup: &Lookup<'_>) -> Result<bool, &'s Req> {
        for req in &self.reqs {
            // The outcome's bit of the mask (ABSENT, UNLISTED, LISTED), tested with an `and`,
            // not a shift by a variable count; the common form tests and loops on its own.
            let outcome = match lookup.probe(req.hash, &req.key_head) {
                // One value (the common form) first, by a predicted branch, not a jump table.
                Some(e) if req.mask & ONE != 0 => {
                    let bit = if e.value_head.0 == req.fps {
                        LISTED
                    } else {
                        UNLISTED
                    };
                    if req.mask & bit == 0 {
                        return Ok(false);
                    }
                    continue;
                }
                Some(e) => {
                    let listed = match req.form {
                        Form::Four => {
                            let fp = e.value_fp;
                            let [a, b, c, d] = req.fps;
                            if is_long(fp) {
                                self.four_by_head(req, e).ok_or(req)?
                            } else {
                                (fp == a) | (fp == b) | (fp == c) | (fp == d)
                            }
                        }
                        Form::Hashed => self.hashed_by_head(req, e).ok_or(req)?,
                        // By the mask's bit, not the form, so the two above stay two
                        // comparisons (three forms here make a jump table).
                        _ if req.mask & PAIR != 0 => pair_lists(req, e),
                        _ => return Err(req),
                    };
                    if listed { LISTED } else { UNLISTED }
                }
                None if req.form == Form::Slow => return Err(req),
                None => ABSENT,
            };
            if req.mask & outcome == 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether the value of `entry`, over 8 bytes, is listed in `req`, a [`Form::Four`] list:
    /// its [`Head`](crate::packed::Head) compared with those of the listed values (kept in the
    /// selector's heads when the list has values over 8 bytes; without them nothing that
    /// long is listed), 32 bytes at once each, which decides values of at most 32 bytes. No
    /// fingerprints to compare first: the heads are as few and decide at once. `None` when
    /// the equal head is of a value over 32 bytes, whose bytes must be compared.
    #[inline(always)]
    fn four_by_head(&self, req: &Req, entry: &Entry) -> Option<bool> {
        if req.heads == NO_HEADS {
            return Some(false);
        }
        let start = req.heads as usize;
        let heads = self.heads.get(start..start + usize::from(req.len))?;
        match heads.iter().find(|h| h.same(&entry.value_head)) {
            Some(head) => (!head.is_long()).then_some(true),
            None => Some(false),
        }
    }

    /// Whether the value of `entry` is listed in `req`, a [`Form::Hashed`] list: the slot of
    /// the value's fingerprint holds the [`Head`](crate::packed::Head) of the only listed
    /// value it can be, and the heads decide values of at most 32 bytes (their first two
    /// words alone a label value of at most 8 bytes, else all four at once).
    /// `None` for longer ones, whose bytes must be compared.
    #[inline(always)]
    pub(super) fn hashed_by_head(&self, req: &Req, entry: &Entry) -> Option<bool> {
        let head = self.heads.get(req.value_hash().slot(entry.value_fp))?;
        let [w, x, ..] = entry.value_head.0;
        if x == 0 {
            // A label value of at most 8 bytes: its first word decides.
            let [a, b, ..] = head.0;
            return Some((a == w) & (b == 0));
        }
        if !head.same(&entry.value_head) {
            return Some(false);
        }
        (!head.is_long()).then_some(true)
    }

    /// Whether the requirements from `from` on hold: the fast forms through the label set's
    /// index with their values confirmed by bytes where fingerprints say so, the others by the
    /// general test.
    #[inline(never)]
    fn matches_from(&self, from: &Req, labels: &Labels) -> bool {
        let from = self
            .reqs
            .iter()
            .position(|r| std::ptr::eq(r, from))
            .unwrap_or(0);
        let Some(lookup) = labels.lookup() else {
            return self.matches_searching(labels);
        };
        let arena = labels.arena();
        let own = self.arena.as_bytes();
        self.reqs.get(from..).unwrap_or(&[]).iter().all(|req| {
            if req.form == Form::Slow {
                let found = lookup.find(req.hash, &req.key_head, req.key, own);
                return self.test(req, found, arena);
            }
            let outcome = match lookup.probe(req.hash, &req.key_head) {
                None => 0,
                Some(e) => 1 + u32::from(self.listed(req, e, lookup.arena())),
            };
            req.mask >> outcome & 1 != 0
        })
    }

    /// Whether the value of `entry` is listed in `req`, which has a fast [`Form`].
    #[inline(always)]
    fn listed(&self, req: &Req, entry: &Entry, arena: &[u8]) -> bool {
        let fp = entry.value_fp;
        match req.form {
            // A value over 32 bytes makes the requirement Form::Slow, so the head decides.
            Form::One => entry.value_head.0 == req.fps,
            Form::Hashed => self.listed_hashed(req, entry, arena),
            Form::Pair => pair_lists(req, entry),
            _ => {
                let [a, b, c, d] = req.fps;
                if (fp != a) & (fp != b) & (fp != c) & (fp != d) {
                    return false;
                }
                if !is_long(fp) {
                    return true;
                }
                let at = req.fps.iter().position(|&x| x == fp).unwrap_or(0);
                req.values.get(at).is_some_and(|v| {
                    same_bytes(v.bytes_in(self.arena.as_bytes()), entry.value_in(arena))
                })
            }
        }
    }

    /// [`LabelSelector::listed`] for [`Form::Hashed`]: one probe of the list's perfect hash,
    /// whose slot holds the head of the only listed value that can be the label's; a value
    /// over 32 bytes with the same head is then compared with the listed values' bytes.
    #[inline(always)]
    pub(super) fn listed_hashed(&self, req: &Req, entry: &Entry, arena: &[u8]) -> bool {
        let Some(head) = self.heads.get(req.value_hash().slot(entry.value_fp)) else {
            return false;
        };
        if *head != entry.value_head {
            return false;
        }
        if !head.is_long() {
            return true;
        }
        let value = entry.value_in(arena);
        self.req_values(req)
            .iter()
            .any(|v| same_bytes(v.bytes_in(self.arena.as_bytes()), value))
    }

    /// [`LabelSelector::matches`] for label sets without an index.
    #[inline(never)]
    fn matches_searching(&self, labels: &Labels) -> bool {
        let arena = labels.arena();
        // The arena as a `str` once (its UTF-8 check), not per requirement.
        let own: &str = &self.arena;
        self.reqs.iter().all(|req| {
            let found = labels.search(req.key, own);
            self.test(req, found, arena)
        })
    }

    /// Whether `req` holds given the label found for its key (if any).
    #[inline(always)]
    pub(crate) fn test(&self, req: &Req, found: Option<&Entry>, arena: &str) -> bool {
        match (req.kind, found) {
            (Kind::Label | Kind::In, Some(e)) => self.lists(req, e, arena),
            (Kind::NotIn, Some(e)) => !self.lists(req, e, arena),
            (Kind::Exists, Some(_)) | (Kind::NotIn | Kind::DoesNotExist, None) => true,
            (Kind::Gt, Some(e)) => compare(e, arena).is_some_and(|v| v > req.bound()),
            (Kind::Lt, Some(e)) => compare(e, arena).is_some_and(|v| v < req.bound()),
            (Kind::DoesNotExist, Some(_))
            | (Kind::Label | Kind::In | Kind::Exists | Kind::Gt | Kind::Lt, None) => false,
        }
    }

    /// Whether the value of `entry` is among the values of `req`: through the list's perfect
    /// hash when it has one, else by comparing with each value.
    #[inline(never)]
    fn lists(&self, req: &Req, entry: &Entry, arena: &str) -> bool {
        if req.form != Form::Slow {
            return self.listed(req, entry, arena.as_bytes());
        }
        let value = entry.value_bytes(arena);
        self.req_values(req)
            .iter()
            .any(|v| v.bytes_in(self.arena.as_bytes()) == value)
    }
}

/// Whether the value of `entry` is one of the two of `req`, a [`Form::Pair`]: the first two
/// words of its head are a listed value's, and its third is zero (it is at most 16 bytes,
/// as the listed values are; no zero byte in a value, so equal words mean equal values).
#[inline(always)]
fn pair_lists(req: &Req, entry: &Entry) -> bool {
    let [w, x, y, _] = entry.value_head.0;
    let [a, b, c, d] = req.fps;
    (y == 0) & (((w == a) & (x == b)) | ((w == c) & (x == d)))
}

/// The integer value of a label, for `Gt` and `Lt`.
#[inline(never)]
fn compare(entry: &Entry, arena: &str) -> Option<i64> {
    parse_i64(entry.value_bytes(arena))
}

/// Parses a decimal `i64` from bytes, accepting exactly what `i64::from_str` accepts
/// (an optional sign, then one or more ASCII digits, no overflow).
#[inline]
pub(crate) fn parse_i64(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, bytes),
    };
    if digits.is_empty() {
        return None;
    }
    let mut n: i64 = 0;
    for &b in digits {
        let d = i64::from(b.wrapping_sub(b'0'));
        if !(0..=9).contains(&d) {
            return None;
        }
        n = n.checked_mul(10)?;
        n = if negative {
            n.checked_sub(d)?
        } else {
            n.checked_add(d)?
        };
    }
    Some(n)
}
