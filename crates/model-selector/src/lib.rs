//! Labels, label selectors with their string syntax, matching and explanation, and an index of labeled runners.
//!
//! Layer 1. Depends on: model-ids.
//!
//! Architecture invariant: no I/O, no clock, no randomness; matching never allocates.
//!
//! Read `labels.rs` and `selector/compiled.rs` first (how a label set and a compiled
//! requirement are stored, so that matching is one probe per requirement), then
//! `selector/matching.rs`; `index/mod.rs` explains the runner index. `packed.rs` is the
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
mod wire;

#[cfg(test)]
mod tests;

pub use crate::{
    error::SelectorError,
    index::{
        Batch, CHUNK_CAPACITY, MAX_BATCH_OPS, MAX_RUNNERS, RunnerEntry, RunnerIndex, Select,
        Snapshot,
    },
    labels::{Labels, LabelsIter},
    limits::{
        MAX_KEY_LEN, MAX_LABELS, MAX_NAME_LEN, MAX_PREFIX_LEN, MAX_REQUIREMENTS, MAX_VALUE_LEN,
        MAX_VALUES,
    },
    operator::SelectorOperator,
    requirement::SelectorRequirement,
    selector::{
        FailureReason, LabelSelector, LabelSelectorBuilder, RequirementFailure, RequirementView,
        RunnerSelector,
    },
};
