//! `LabelSelector::matches`: one allocation-free probe per requirement.

use super::{
    LabelSelector,
    compiled::{Form, Req, Test},
};
use crate::labels::{Entry, Labels};

impl LabelSelector {
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
}

/// The integer value of a label, for `Gt` and `Lt`.
#[inline(never)]
fn compare(entry: &Entry, arena: &str) -> Option<i64> {
    parse_i64(entry.value.bytes(arena))
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
