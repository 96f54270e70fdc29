//! `LabelSelector::matches`: one allocation-free probe per requirement.

use super::{
    LabelSelector,
    compiled::{Form, Req, Test},
};
use crate::{
    labels::{Entry, Labels},
    packed::{is_long, same_bytes},
};

impl LabelSelector {
    /// Whether `labels` satisfy every requirement. Never allocates.
    ///
    /// Each requirement looks its key up in the label set's collision-free hash index (one
    /// probe, then the key's hash and length compared as integers and, for a key over 8
    /// bytes, its first and last 16 bytes), then compares the value's fingerprint with those
    /// of the listed values (integers; for values over 8 bytes the bytes are compared too,
    /// 16 at a time, when the fingerprints are equal).
    #[inline]
    pub fn matches(&self, labels: &Labels) -> bool {
        let Some(lookup) = labels.lookup() else {
            return self.matches_searching(labels);
        };
        let arena = self.arena.as_bytes();
        for req in &self.reqs {
            if req.form == Form::Slow {
                if !self.test_slow(req, labels) {
                    return false;
                }
                continue;
            }
            let outcome = match lookup.find(req.hash, &req.key, &req.key_ends, arena) {
                None => 0,
                Some(e) => 1 + u32::from(self.listed(req, e, lookup.arena())),
            };
            if req.mask >> outcome & 1 == 0 {
                return false;
            }
        }
        true
    }

    /// Whether the value of `entry` is listed in `req`, which has a fast [`Form`].
    #[inline(always)]
    fn listed(&self, req: &Req, entry: &Entry, arena: &[u8]) -> bool {
        let fp = entry.value_fp;
        match req.form {
            Form::One => {
                let [first, ..] = req.fps;
                fp == first
                    && (!is_long(fp)
                        || req.inline.first().is_some_and(|v| {
                            same_bytes(v.bytes_in(self.arena.as_bytes()), entry.value_in(arena))
                        }))
            }
            Form::Hashed => self.listed_hashed(req, entry, arena),
            _ => {
                let [a, b, c, d] = req.fps;
                if (fp != a) & (fp != b) & (fp != c) & (fp != d) {
                    return false;
                }
                if !is_long(fp) {
                    return true;
                }
                let at = req.fps.iter().position(|&x| x == fp).unwrap_or(0);
                req.inline.get(at).is_some_and(|v| {
                    same_bytes(v.bytes_in(self.arena.as_bytes()), entry.value_in(arena))
                })
            }
        }
    }

    /// [`LabelSelector::listed`] for [`Form::Hashed`]: one probe of the list's perfect hash.
    #[inline(never)]
    fn listed_hashed(&self, req: &Req, entry: &Entry, arena: &[u8]) -> bool {
        let fp = entry.value_fp;
        let slot = req.list.slot(fp);
        if self.slot_fps.get(slot) != Some(&fp) {
            return false;
        }
        if !is_long(fp) {
            return true;
        }
        let at = self
            .slots
            .get(slot)
            .map_or(usize::MAX, |&s| usize::from(s).wrapping_sub(1));
        self.req_values(req)
            .get(at)
            .is_some_and(|v| same_bytes(v.bytes_in(self.arena.as_bytes()), entry.value_in(arena)))
    }

    /// Looks up and tests a requirement of [`Form::Slow`], out of line.
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
            (Test::Equal | Test::OneOf, Some(e)) => self.lists(req, e, arena),
            (Test::NotEqual | Test::NoneOf, Some(e)) => !self.lists(req, e, arena),
            (Test::Exists, Some(_)) | (Test::NotEqual | Test::NoneOf | Test::Absent, None) => true,
            (Test::Greater, Some(e)) => compare(e, arena).is_some_and(|v| v > req.bound),
            (Test::Less, Some(e)) => compare(e, arena).is_some_and(|v| v < req.bound),
            (Test::Absent, Some(_))
            | (Test::Equal | Test::OneOf | Test::Exists | Test::Greater | Test::Less, None) => {
                false
            }
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
            .any(|v| v.bytes(&self.arena) == value)
    }
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
