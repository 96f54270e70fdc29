//! `taskctl`, the taskmodel command line, as a library: the commands, the diagnosis of a
//! document, and the tables of fields and wire types they read.
//!
//! A tool, not a model crate: it may use any crate and no model crate may use it.
//! The binary (`src/main.rs`) only hands the process's arguments and streams to [`run`], so
//! tests and the `taskctl_check` fuzz target call the same code in process.
//!
//! Architecture invariant: taskctl decides nothing itself; every rule it applies lives in a
//! model crate. Every byte it reads is bounded ([`MAX_INPUT_BYTES`]), and it opens only the
//! files it is named: the standard streams are arguments of [`run`]. Files are checked one
//! at a time, and a document is never built as a `serde_json::Value`: its diagnosis holds a
//! few times its text at most (docs/limits.md).
//!
//! Read first: [`run`] (the command line, exit codes in [`Outcome`]) and [`check_document`]
//! (what `taskctl check` finds in one document). docs/taskctl.md is the user's guide.
mod cli;
mod commands;
mod diagnose;
mod document;
mod input;
mod inventory;
mod outcome;
mod report;
mod run;
mod simulate;
mod wire;

pub use crate::{
    diagnose::{MAX_FIELDS, MAX_ROUNDS, Problem},
    document::{Checked, Shape, check_document, check_document_as},
    input::MAX_INPUT_BYTES,
    outcome::Outcome,
    report::Progress,
    run::{run, run_with},
    simulate::{MAX_COPIES, MAX_DURATION_MS, MAX_SIMULATED_TASKS, MAX_STEPS},
};
