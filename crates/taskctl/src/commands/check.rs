//! `taskctl check`: validate task specs and whole tasks, reporting every problem with its path.

use std::io::{Read, Write};
use std::path::PathBuf;

use serde::Serialize;

use crate::cli::{CheckArgs, Output};
use crate::diagnose::Problem;
use crate::document::{Shape, check_document};
use crate::input::{self, Input};
use crate::outcome::Outcome;
use crate::report::{CommandError, write_json, write_problem};

/// The result for one file.
#[derive(Debug, Serialize)]
struct FileReport {
    file: String,
    /// `None` when the document is not JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    shape: Option<Shape>,
    valid: bool,
    problems: Vec<Problem>,
}

/// The result for all files, as `--output json` prints it.
#[derive(Debug, Serialize)]
struct Report {
    valid: bool,
    files: Vec<FileReport>,
}

/// Checks every file; an unreadable file stops the command before anything is checked.
pub(crate) fn run(
    args: &CheckArgs,
    output: Output,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
) -> Result<Outcome, CommandError> {
    let inputs = read_all(&args.files, stdin)?;
    let files: Vec<FileReport> = inputs.iter().map(check_input).collect();
    let report = Report {
        valid: files.iter().all(|file| file.valid),
        files,
    };
    match output {
        Output::Json => write_json(out, &report)?,
        Output::Text => write_text(out, &report)?,
    }
    Ok(Outcome::valid_if(report.valid))
}

/// Reads every input; standard input may be named once.
fn read_all(paths: &[PathBuf], stdin: &mut dyn Read) -> Result<Vec<Input>, CommandError> {
    if paths.iter().filter(|path| path.as_os_str() == "-").count() > 1 {
        return Err(CommandError::Argument(
            "standard input (-) can be read only once".into(),
        ));
    }
    paths
        .iter()
        .map(|path| input::read(path, stdin).map_err(CommandError::Read))
        .collect()
}

fn check_input(input: &Input) -> FileReport {
    let (shape, problems) = match &input.text {
        Err(reason) => (None, vec![Problem::at("", reason.clone())]),
        Ok(text) => {
            let checked = check_document(text);
            (checked.shape, checked.problems)
        }
    };
    FileReport {
        file: input.name.clone(),
        shape,
        valid: problems.is_empty(),
        problems,
    }
}

fn write_text(out: &mut dyn Write, report: &Report) -> Result<(), CommandError> {
    for file in &report.files {
        for problem in &file.problems {
            write_problem(out, &file.file, problem)?;
        }
        let what = file.shape.map_or("JSON document", Shape::describe);
        match file.problems.len() {
            0 => writeln!(out, "{}: valid {what}", file.file)?,
            1 => writeln!(out, "{}: invalid {what} (1 problem)", file.file)?,
            n => writeln!(out, "{}: invalid {what} ({n} problems)", file.file)?,
        }
    }
    if report.files.len() > 1 {
        let invalid = report.files.iter().filter(|file| !file.valid).count();
        writeln!(
            out,
            "{} files checked: {} valid, {invalid} invalid",
            report.files.len(),
            report.files.len() - invalid
        )?;
    }
    Ok(())
}
