//! Repository checks for taskmodel, run as `cargo xtask <command>`.
//!
//! `cargo xtask check-layering` reads `cargo metadata`, the layer table in the root
//! Cargo.toml (`[workspace.metadata.layers]`) and the workspace's files, and reports each
//! rule of [`Rule::ALL`] as kept or broken, naming the offending edges, files or lines:
//! the layering, cycles between each crate's concepts (its top-level modules, `error`
//! exempt), the doc lines, the length of model-crate source files, and citations of
//! documents the repository does not hold. The same check runs as a test of this crate, so
//! `cargo test --workspace` enforces it.
//!
//! `cargo xtask fuzz [--seconds N] [TARGET...]` runs the cargo-fuzz targets in `fuzz/`
//! one after another for N seconds each and prints a summary per target (see
//! `docs/limits.md`).
//!
//! `cargo xtask test [ARGS...]` runs `cargo test --workspace ARGS...` with a throwaway
//! PostgreSQL server for taskstore's tests (installing PostgreSQL first when it is missing
//! and xtask runs as root); `cargo xtask with-postgres PROGRAM [ARGS...]` runs any program
//! so (the benchmarks). See [`with_postgres`].
//!
//! A tool, not a model crate: it may use any crate and no model crate may use it.
mod error;
mod files;
mod fuzz;
mod layers;
mod metadata;
mod modgraph;
mod postgres;
mod report;
mod rules;
mod scan;

pub use crate::{
    error::XtaskError,
    fuzz::{
        DEFAULT_FUZZ_SECONDS, FUZZ_INPUT_TIMEOUT_SECONDS, FuzzOptions, FuzzSummary, fuzz_targets,
        run_fuzz,
    },
    postgres::{POSTGRES_URL_VAR, TestServer, with_postgres},
    report::{Report, Rule, RuleOutcome},
    rules::check_layering,
};
