//! `LabelSelector`: the compiled, canonical selector and everything it does.
//!
//! Read `compiled.rs` first (how a requirement is stored so that matching is one probe),
//! then `matching.rs`. The rest: `compile.rs` builds the compiled form for every way in,
//! `order.rs` gives the canonical order, `display.rs` and `parse.rs` are the string
//! syntax, `explain.rs` says why labels fail, `view.rs` and `builder.rs` are the public
//! views and builder.

mod builder;
mod compile;
mod compiled;
mod display;
mod explain;
mod matching;
mod order;
mod parse;
#[cfg(test)]
mod tests;
mod text;
mod view;

use std::fmt;

pub(crate) use self::compile::too_many_requirements;
pub use self::{
    builder::LabelSelectorBuilder,
    explain::{FailureReason, RequirementFailure},
    view::RequirementView,
};
use self::{
    compile::Compiler,
    compiled::{Kind, Req},
};
use crate::{
    error::SelectorError,
    labels::Labels,
    limits::MAX_REQUIREMENTS,
    packed::{Head, Span},
    requirement::SelectorRequirement,
};

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
/// `k in (v)`, a `NotIn` with one value prints `k!=v` (as kubectl writes it), more values
/// print `k notin (a,b)`.
///
/// # String syntax
///
/// As Kubernetes reads and writes it: `k=v` and `k==v` (a `matchLabels` entry), `k!=v`
/// (`NotIn` with one value), `k in (a,b)`, `k notin (a,b)`, `k` (`Exists`), `!k`
/// (`DoesNotExist`), `k>5`, `k<5`; commas AND requirements, spaces are allowed around
/// tokens, and the empty string selects everything. The empty value is written as nothing:
/// `k=`, `k!=`, `k in (,a)`, and `k in ()` for the empty value alone (`""` is read too). A
/// second `k=v` on a key already in `matchLabels` becomes `k in (v)`, since a map holds one
/// value per key. The crate docs list every difference from Kubernetes.
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
    arena: text::Text,
    reqs: Vec<Req>,
    values: Vec<Span>,
    /// [`Head`]s, in one vector (a selector one vector smaller to build, move and drop):
    /// the slots of the [`ValueHash`](compiled::ValueHash)es of long lists (each the head
    /// of a listed value), and the heads of the values of short lists
    /// ([`Form::Four`](compiled::Form::Four)) that have values over 8 bytes (whose
    /// fingerprints are hashes), from each such requirement's `heads` on, in the list's
    /// order: what confirms a fingerprint without reading a string.
    heads: Vec<Head>,
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
        let arena: &str = &self.arena;
        self.ordered()
            .filter(|r| r.kind == Kind::Label)
            .map(move |r| {
                let value = self.req_values(r).first().map_or("", |v| v.get(arena));
                (r.key.get(arena), value)
            })
    }

    /// The `matchExpressions` in canonical order.
    pub fn match_expressions(&self) -> impl Iterator<Item = RequirementView<'_>> + '_ {
        let arena: &str = &self.arena;
        self.ordered()
            .filter(|r| r.kind != Kind::Label)
            .map(move |req| RequirementView {
                selector: self,
                req,
                arena,
            })
    }

    /// Whether there are `matchLabels` entries and whether there are `matchExpressions`,
    /// without putting the requirements in order or reading a string.
    pub(crate) fn has_parts(&self) -> (bool, bool) {
        let labels = self.reqs.iter().any(|r| r.kind == Kind::Label);
        let expressions = self.reqs.iter().any(|r| r.kind != Kind::Label);
        (labels, expressions)
    }

    pub(crate) fn arena(&self) -> &str {
        &self.arena
    }
}

impl fmt::Debug for LabelSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LabelSelector({:?})", self.to_string())
    }
}

impl PartialEq for LabelSelector {
    fn eq(&self, other: &Self) -> bool {
        // Strings compared as bytes: no UTF-8 check of either arena.
        let (mine, theirs) = (self.arena.as_bytes(), other.arena.as_bytes());
        self.reqs.len() == other.reqs.len()
            && self.ordered().zip(other.ordered()).all(|(a, b)| {
                a.kind == b.kind
                    && a.bound() == b.bound()
                    && a.key.bytes_in(mine) == b.key.bytes_in(theirs)
                    && self
                        .req_values(a)
                        .iter()
                        .map(|v| v.bytes_in(mine))
                        .eq(other.req_values(b).iter().map(|v| v.bytes_in(theirs)))
            })
    }
}

impl Eq for LabelSelector {}
