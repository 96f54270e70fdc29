//! The canonical order of a selector's requirements, computed on the stack when it shows.

use std::cmp::Ordering;

use super::{LabelSelector, compiled::Req};
use crate::limits::MAX_REQUIREMENTS;

impl LabelSelector {
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

    /// Canonical comparison of two requirements of this selector.
    /// Strings compare as bytes (the order of `str`), without the UTF-8 check of the arena
    /// as a `str`.
    pub(super) fn cmp_reqs(&self, a: &Req, b: &Req) -> Ordering {
        let arena = self.arena.as_bytes();
        a.key
            .bytes_in(arena)
            .cmp(b.key.bytes_in(arena))
            .then(a.kind.cmp(&b.kind))
            .then_with(|| {
                let (va, vb) = (self.req_values(a), self.req_values(b));
                va.iter()
                    .map(|v| v.bytes_in(arena))
                    .cmp(vb.iter().map(|v| v.bytes_in(arena)))
            })
            .then(a.bound().cmp(&b.bound()))
    }
}

/// A selector's requirements in canonical order, from [`LabelSelector::ordered`].
pub(crate) struct Ordered<'a> {
    reqs: &'a [Req],
    /// Positions in `reqs`, sorted; unused past [`MAX_REQUIREMENTS`] requirements, which
    /// [`Compiler::finish`](super::compile::Compiler::finish) sorts in place instead.
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
