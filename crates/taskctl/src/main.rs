//! The `taskctl` binary: the process's arguments and standard streams, handed to
//! [`taskctl::run`] (docs/taskctl.md).

use std::io::{BufWriter, IsTerminal as _};
use std::process::ExitCode;

fn main() -> ExitCode {
    // `run` flushes standard output itself, so a failed flush is reported like any failed write.
    // A progress bar only for a person watching: never when either stream is redirected.
    let progress = if std::io::stdout().is_terminal() && std::io::stderr().is_terminal() {
        taskctl::Progress::Terminal
    } else {
        taskctl::Progress::Hidden
    };
    let outcome = taskctl::run_with(
        std::env::args_os(),
        &mut std::io::stdin().lock(),
        &mut BufWriter::new(std::io::stdout().lock()),
        &mut std::io::stderr().lock(),
        progress,
    );
    ExitCode::from(outcome.code())
}
