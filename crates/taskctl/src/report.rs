//! Output helpers shared by the commands: JSON printing, a failed selector requirement as
//! printed, whether a progress bar may be drawn, and the errors that stop a command.

use std::io::{self, Write};

use serde::Serialize;
use taskmodel::selector::RequirementFailure;

use crate::diagnose::Problem;

/// Why a command could not do its job (exit code 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CommandError {
    /// Writing the result failed (for example, a closed pipe).
    #[error("cannot write output: {0}")]
    Write(#[from] io::Error),
    /// An input file cannot be read (the message names the file).
    #[error("cannot read {0}")]
    Read(io::Error),
    /// An argument is valid for clap but not for the model.
    #[error("{0}")]
    Argument(String),
}

/// Writes `value` as pretty JSON and a newline.
pub(crate) fn write_json(out: &mut dyn Write, value: &impl Serialize) -> Result<(), CommandError> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

/// Writes one problem of the input `name` on a line: `NAME:LINE:COLUMN: MESSAGE` for a syntax
/// error, `NAME: PATH: MESSAGE` for a field, `NAME: MESSAGE` for the whole document.
pub(crate) fn write_problem(out: &mut dyn Write, name: &str, problem: &Problem) -> io::Result<()> {
    match (problem.line, problem.column, problem.path.as_str()) {
        (Some(line), Some(column), _) => {
            writeln!(out, "{name}:{line}:{column}: {}", problem.message)?
        }
        (_, _, "") => writeln!(out, "{name}: {}", problem.message)?,
        (_, _, path) => writeln!(out, "{name}: {path}: {}", problem.message)?,
    }
    Ok(())
}

/// One requirement that labels fail, as `--output json` prints it (`selector --labels` and
/// each rejected runner of `route`).
#[derive(Debug, Serialize)]
pub(crate) struct Failure {
    pub(crate) path: String,
    pub(crate) requirement: String,
    pub(crate) key: String,
    pub(crate) reason: String,
}

impl From<RequirementFailure> for Failure {
    fn from(failure: RequirementFailure) -> Self {
        Self {
            path: failure.path,
            requirement: failure.requirement,
            key: failure.key,
            reason: failure.reason.to_string(),
        }
    }
}

/// Whether a long command (`taskctl simulate`) may draw a progress bar on the process's
/// standard error. Only the binary decides, when both standard streams are terminals: the
/// bar never reaches the streams given to [`run_with`](crate::run_with), so results stay byte for byte the
/// same with and without it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// No progress bar (what [`run`](crate::run) uses).
    Hidden,
    /// A progress bar on the terminal.
    Terminal,
}
