//! [`run`]: the command line in process, from arguments and streams to an [`Outcome`].

use std::ffi::OsString;
use std::io::{Read, Write};

use clap::Parser as _;

use crate::cli::Cli;
use crate::commands;
use crate::outcome::Outcome;
use crate::report::Progress;

/// Runs taskctl: parses `args` (the first is the program name, as `std::env::args_os` gives
/// it), runs the command, and says how it ended.
///
/// Results go to `stdout`, which is flushed before `run` returns; help and version go to
/// `stdout` too, usage errors and "cannot read" errors to `stderr`. Nothing is colored.
/// A write that fails never panics: when `stdout` cannot take the result (a closed pipe, a
/// full disk), the run ends in [`Outcome::Usage`] (exit code 2) and says so on `stderr`;
/// a failure to write to `stderr` is ignored, since there is nowhere left to tell.
///
/// ```no_run
/// use std::io;
///
/// let outcome = taskctl::run(
///     ["taskctl", "check", "examples/spec-command.json"],
///     &mut io::empty(),
///     &mut io::stdout(),
///     &mut io::stderr(),
/// );
/// assert_eq!(outcome, taskctl::Outcome::Valid);
/// ```
pub fn run<I, T>(
    args: I,
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Outcome
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_with(args, stdin, stdout, stderr, Progress::Hidden)
}

/// [`run`], with a progress bar on the terminal when `progress` says so.
pub fn run_with<I, T>(
    args: I,
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    progress: Progress,
) -> Outcome
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        // clap's usage errors go to stderr (exit 2), its help and version to stdout (exit 0).
        Err(err) if err.use_stderr() => {
            let _ = write!(stderr, "{}", err.render());
            return Outcome::Usage;
        }
        Err(help) => {
            return match write!(stdout, "{}", help.render()).and_then(|()| stdout.flush()) {
                Ok(()) => Outcome::Valid,
                Err(err) => {
                    let _ = writeln!(stderr, "error: cannot write output: {err}");
                    Outcome::Usage
                }
            };
        }
    };
    let result = commands::run(&cli, stdin, stdout, progress);
    // The result counts only once it is out: a failed flush is a failed write.
    let flushed = stdout.flush();
    match (result, flushed) {
        (Ok(outcome), Ok(())) => outcome,
        (Err(err), _) => {
            let _ = writeln!(stderr, "error: {err}");
            Outcome::Usage
        }
        (Ok(_), Err(err)) => {
            let _ = writeln!(stderr, "error: cannot write output: {err}");
            Outcome::Usage
        }
    }
}
