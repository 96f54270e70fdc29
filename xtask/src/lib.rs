//! Repository checks for taskmodel, run as `cargo xtask <command>`.
//!
//! `cargo xtask check-layering` reads `cargo metadata` and the layer table in the root
//! Cargo.toml (`[workspace.metadata.layers]`) and reports each layering rule as kept or
//! broken, naming the offending edges. The same check runs as a test of this crate, so
//! `cargo test --workspace` enforces the layering.
//!
//! A tool, not a model crate: it may use any crate and no model crate may use it.
mod error;
mod layers;
mod metadata;
mod modgraph;
mod report;
mod rules;
mod scan;

pub use crate::{
    error::XtaskError,
    report::{Report, Rule, RuleOutcome},
    rules::check_layering,
};
