//! The `taskctl` binary: the process's arguments and standard streams, handed to
//! [`taskctl::run`] (docs/taskctl.md).

use std::io::BufWriter;
use std::process::ExitCode;

fn main() -> ExitCode {
    // `run` flushes standard output itself, so a failed flush is reported like any failed write.
    let outcome = taskctl::run(
        std::env::args_os(),
        &mut std::io::stdin().lock(),
        &mut BufWriter::new(std::io::stdout().lock()),
        &mut std::io::stderr().lock(),
    );
    ExitCode::from(outcome.code())
}
