//! `taskctl`: the taskmodel command line.
//!
//! Checks task specs and tasks, explains label selectors and routing, prints retry schedules
//! and the JSON Schema of the wire types. Every subcommand prints text for people, or JSON
//! with `--output json`.
//!
//! Exit codes: 0 when the input is valid (or the command simply reports), 1 when an input
//! is invalid, 2 for a usage error: bad arguments, or a file that cannot be read.
mod cli;
mod commands;
mod diagnose;
mod input;
mod outcome;
mod report;
mod wire;

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser as _;

use crate::cli::Cli;
use crate::outcome::Outcome;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // clap prints help and version to stdout with code 0, usage errors to stderr with code 2.
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(Outcome::Usage.code()));
        }
    };
    let mut stdout = std::io::stdout().lock();
    let outcome = match commands::run(&cli, &mut stdout) {
        Ok(outcome) => outcome,
        Err(err) => {
            let _ = stdout.flush();
            eprintln!("error: {err}");
            Outcome::Usage
        }
    };
    let _ = stdout.flush();
    ExitCode::from(outcome.code())
}
