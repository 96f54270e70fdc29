//! `RequirementView`: a borrowed view of one of a selector's `matchExpressions`.

use std::fmt;

use super::{
    LabelSelector,
    compiled::{Kind, Req},
};
use crate::{operator::SelectorOperator, requirement::SelectorRequirement};

/// A borrowed view of one of a selector's `matchExpressions`.
#[derive(Clone, Copy)]
pub struct RequirementView<'a> {
    pub(super) selector: &'a LabelSelector,
    pub(super) req: &'a Req,
    /// The selector's arena as a `str`, checked once for all the views of a selector.
    pub(super) arena: &'a str,
}

impl<'a> RequirementView<'a> {
    /// The label key.
    pub fn key(&self) -> &'a str {
        self.req.key.get(self.arena)
    }

    /// The operator.
    pub fn operator(&self) -> SelectorOperator {
        self.req.kind.operator()
    }

    /// The values of `In` and `NotIn`, sorted and distinct (empty for other operators).
    pub fn values(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        let arena = self.arena;
        self.selector
            .req_values(self.req)
            .iter()
            .map(move |v| v.get(arena))
    }

    /// The integer of `Gt` and `Lt`.
    pub fn bound(&self) -> Option<i64> {
        matches!(self.req.kind, Kind::Gt | Kind::Lt).then_some(self.req.bound())
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
        self.selector.fmt_req_in(self.arena, self.req, f)
    }
}
