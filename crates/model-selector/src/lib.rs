//! Labels, label selectors with their string syntax, matching and explanation, an index of
//! labeled runners, and an index of stored selectors.
//!
//! Layer 1. Depends on: model-ids.
//!
//! Architecture invariant: no I/O, no clock, no randomness; matching never allocates.
//!
//! Read `labels.rs` and `selector/compiled.rs` first (how a label set and a compiled
//! requirement are stored, so that matching is one probe per requirement), then
//! `selector/matching.rs`; `index/mod.rs` explains the runner index and
//! `selector_index/mod.rs` the selector index (which selectors one label set matches). `packed.rs` is the
//! string form both share and `name.rs` the Kubernetes name rules; `wire.rs` is serde.
//!
//! [`Labels`] is a validated, key-ordered string map. A [`LabelSelector`] (also named
//! [`RunnerSelector`]) is the Kubernetes `metav1.LabelSelector`: exact `matchLabels` plus
//! `matchExpressions` with the operators of [`SelectorOperator`]. Selectors come in through
//! [`LabelSelector::builder`], [`LabelSelector::from_parts`], the string syntax
//! ([`str::parse`]) or serde; every way validates and bounds the input (see the `MAX_*`
//! constants) and reports a [`SelectorError`] with a field path.
//!
//! A selector is kept in a compiled form (values sorted and deduplicated, short strings
//! compared as integers) with a canonical order for display and comparison, and a label
//! set carries a collision-free hash index of its keys, so [`LabelSelector::matches`] is
//! one allocation-free probe per requirement. `docs/performance.md` records how that
//! compares with other implementations.
//!
//! # Kubernetes compatibility
//!
//! Selector strings read as Kubernetes reads them and print as Kubernetes prints them, the
//! empty value written as nothing (`x=`, `x in (abc,)`, `x notin ()`); the JSON is
//! `metav1.LabelSelector`. `tests/kubernetes_tables.rs` holds Kubernetes' own parse, print,
//! match and requirement tables (apimachinery's `pkg/labels/selector_test.go`) as data, with
//! the cases that differ and why. The deliberate differences, each with a test in its
//! `differences` module:
//!
//! - `Gt` and `Lt` in JSON `matchExpressions` are an extension: Kubernetes'
//!   `metav1.LabelSelector` has only `In`, `NotIn`, `Exists` and `DoesNotExist`
//!   (`gt_and_lt_in_json_are_an_extension`).
//! - A `Gt`/`Lt` bound may be negative, as in Kubernetes' string syntax; no label value is
//!   negative, so `x>-1` holds for every integer value and `x<0` for none. A `+` sign is read
//!   and not printed (`negative_and_signed_bounds`).
//! - A form feed is whitespace here; Kubernetes reads only space, tab, CR and LF as
//!   whitespace, so there it makes the key or value invalid (`form_feed_is_whitespace`).
//! - `""` is read as the empty value, the spelling this crate printed before; Kubernetes
//!   refuses it (`quoted_empty_value_is_read`).
//! - One canonical spelling: `==` prints as `=`, one excluded value as `x!=a` whatever it was
//!   written as, requirements sorted by key, kind and values; Kubernetes keeps the operator
//!   as written and sorts by key only (`one_canonical_spelling`).
//! - A second `x=v` on a key becomes `x in (v)`, since `matchLabels` holds one value per key
//!   (`a_second_equality_on_a_key_is_in`).
//! - At most [`MAX_REQUIREMENTS`] requirements and [`MAX_VALUES`] values per list
//!   (`bounded`), and unknown JSON fields are refused (`unknown_json_fields_are_refused`);
//!   Kubernetes has no such bounds and drops unknown fields.
//!
//! With the `schema` feature, [`Labels`], [`LabelSelector`], [`SelectorRequirement`] and
//! [`SelectorOperator`] implement `schemars::JsonSchema`.
//!
//! ```
//! use model_selector::{LabelSelector, Labels};
//!
//! let selector: LabelSelector = "zone=eu,gpu in (a100,h100),!draining".parse()?;
//! let labels = Labels::from_pairs([("zone", "eu"), ("gpu", "h100")])?;
//! assert!(selector.matches(&labels));
//! assert_eq!(selector.to_string(), "!draining,gpu in (a100,h100),zone=eu");
//! # Ok::<(), model_selector::SelectorError>(())
//! ```
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.
mod error;
mod index;
mod labels;
mod limits;
mod name;
mod operator;
mod packed;
mod requirement;
#[cfg(feature = "schema")]
mod schema;
mod selector;
mod selector_index;
mod wire;

#[cfg(test)]
mod tests;

pub use crate::{
    error::SelectorError,
    index::{
        Batch, CHUNK_CAPACITY, CHUNK_TERM_CAPACITY, MAX_BATCH_OPS, MAX_RUNNERS, RunnerEntry,
        RunnerIndex, Select, Snapshot,
    },
    labels::{Labels, LabelsIter},
    limits::{
        MAX_KEY_LEN, MAX_LABELS, MAX_NAME_LEN, MAX_PREFIX_LEN, MAX_REQUIREMENTS,
        MAX_SELECTOR_TEXT_LEN, MAX_VALUE_LEN, MAX_VALUES,
    },
    operator::SelectorOperator,
    requirement::SelectorRequirement,
    selector::{
        FailureReason, LabelSelector, LabelSelectorBuilder, RequirementFailure, RequirementView,
        RunnerSelector,
    },
    selector_index::{HEAD_PROBE, MAX_SELECTORS, Matching, SelectorIndex},
};
