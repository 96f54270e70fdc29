//! The subcommands, one module each, and the dispatch from parsed arguments.

mod backoff;
mod check;
mod flow;
mod route;
mod schedule;
mod schema;
mod selector;

use std::io::{Read, Write};

use crate::cli::{Cli, Command};
use crate::outcome::Outcome;
use crate::report::CommandError;
use crate::report::Progress;

/// Runs the command `cli` names, reading `-` from `stdin` and writing its result to `out`.
pub(crate) fn run(
    cli: &Cli,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    progress: Progress,
) -> Result<Outcome, CommandError> {
    match &cli.command {
        Command::Backoff(args) => backoff::run(args, cli.output, out),
        Command::Schema(args) => schema::run(args, cli.output, out),
        Command::Check(args) => check::run(args, cli.output, stdin, out),
        Command::Selector(args) => selector::run(args, cli.output, out),
        Command::Route(args) => route::run(args, cli.output, stdin, out),
        Command::Flow(args) => flow::run(args, cli.output, stdin, out),
        Command::Schedule(args) => schedule::run(args, cli.output, stdin, out),
        Command::Simulate(args) => crate::simulate::run(args, cli.output, stdin, out, progress),
    }
}
