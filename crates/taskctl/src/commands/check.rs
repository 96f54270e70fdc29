//! `taskctl check`: validate task specs and whole tasks, reporting every problem with its path.

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;
use taskmodel::Slot;
use taskmodel::policy::{AdmissionPolicy, BackoffPolicy, RestartPolicy};
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::spec::Timeout;
use taskmodel::task::{ObjectMeta, Parsed, Task, TaskKind, TaskSpec, TaskStatus};

use crate::cli::{CheckArgs, Output};
use crate::diagnose::{Field, Problem, parse_fields, parse_json, parse_text, task_problem};
use crate::input::{self, Input};
use crate::outcome::Outcome;
use crate::report::{CommandError, write_json};

/// The keys that make a document a whole task rather than a spec.
const TASK_KEYS: [&str; 3] = ["metadata", "spec", "status"];

/// What a document is, told by its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Shape {
    /// A task spec, held to the submit-boundary rules.
    TaskSpec,
    /// A whole task: metadata, spec and status.
    Task,
}

impl Shape {
    /// A task has `metadata`, `spec` and `status`; a document with any of them is taken for a
    /// task (and told what it lacks), anything else for a spec.
    pub(crate) fn of(value: &Value) -> Self {
        match value.as_object() {
            Some(object) if TASK_KEYS.iter().any(|key| object.contains_key(*key)) => Self::Task,
            _ => Self::TaskSpec,
        }
    }

    const fn describe(self) -> &'static str {
        match self {
            Self::TaskSpec => "task spec",
            Self::Task => "task",
        }
    }
}

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
    out: &mut dyn Write,
) -> Result<Outcome, CommandError> {
    let inputs = read_all(&args.files)?;
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
pub(crate) fn read_all(paths: &[PathBuf]) -> Result<Vec<Input>, CommandError> {
    if paths.iter().filter(|path| path.as_os_str() == "-").count() > 1 {
        return Err(CommandError::Argument(
            "standard input (-) can be read only once".into(),
        ));
    }
    paths
        .iter()
        .map(|path| input::read(path).map_err(CommandError::Read))
        .collect()
}

fn check_input(input: &Input) -> FileReport {
    let (shape, problems) = match &input.text {
        Err(reason) => (None, vec![Problem::at("", reason.clone())]),
        Ok(text) => match parse_json(text) {
            Err(syntax) => (None, vec![syntax]),
            Ok(value) => {
                let shape = Shape::of(&value);
                let mut problems = check_value(shape, &value);
                if problems.is_empty() {
                    problems.extend(check_text(shape, text));
                }
                (Some(shape), problems)
            }
        },
    };
    FileReport {
        file: input.name.clone(),
        shape,
        valid: problems.is_empty(),
        problems,
    }
}

/// Every problem of `value` read as `shape`; a spec is also held to the submit-boundary rules.
/// What only the text shows. A JSON value keeps the last of two equal keys, but the library
/// refuses a document that names a field twice; so a document the field-by-field pass found
/// clean is read once more, from its text, exactly as the library reads it.
fn check_text(shape: Shape, text: &str) -> Option<Problem> {
    let read = match shape {
        Shape::TaskSpec => parse_text::<TaskSpec>(text).map(drop),
        Shape::Task => parse_text::<Task>(text).map(drop),
    };
    read.err()
}

pub(crate) fn check_value(shape: Shape, value: &Value) -> Vec<Problem> {
    let result = match shape {
        Shape::TaskSpec => parse_spec(value).and_then(|spec| submit(&spec)),
        Shape::Task => parse_fields::<Parsed<Task>>(value, TASK_FIELDS).map(drop),
    };
    result.err().unwrap_or_default()
}

/// The fields of a spec, each checked on its own so that all bad fields are reported, and
/// read as a spec reads them ([`Parsed`] keeps each rule's error typed). Optional fields are
/// read as `Option`, so `null` is absent there, as the library reads it.
const SPEC_FIELDS: &[Field] = &[
    Field::of::<Slot>("slot"),
    Field::of::<Parsed<TaskKind>>("kind"),
    Field::of::<Parsed<Timeout>>("timeoutMs"),
    Field::of::<Option<RestartPolicy>>("restart"),
    Field::of::<Option<Parsed<BackoffPolicy>>>("backoff"),
    Field::of::<Option<AdmissionPolicy>>("admission"),
    Field::of::<Option<Parsed<LabelSelector>>>("runnerSelector"),
    Field::of::<Option<Parsed<Labels>>>("labels"),
    Field::of::<Option<u32>>("maxRetries"),
];

/// The fields of a task; the spec is checked field by field too.
const TASK_FIELDS: &[Field] = &[
    Field::of::<Parsed<ObjectMeta>>("metadata"),
    Field {
        name: "spec",
        check: |value| parse_spec(value).map(drop),
    },
    Field::of::<Option<Parsed<TaskStatus>>>("status"),
];

/// Parses a spec, reporting every bad field.
pub(crate) fn parse_spec(value: &Value) -> Result<TaskSpec, Vec<Problem>> {
    parse_fields::<Parsed<TaskSpec>>(value, SPEC_FIELDS)
}

/// The submit boundary: what parsing checks, plus the rules for submitting (no embedded kind).
fn submit(spec: &TaskSpec) -> Result<(), Vec<Problem>> {
    spec.validate().map_err(|err| vec![task_problem(&err)])
}

fn write_text(out: &mut dyn Write, report: &Report) -> Result<(), CommandError> {
    for file in &report.files {
        for problem in &file.problems {
            let name = &file.file;
            match (problem.line, problem.column, problem.path.as_str()) {
                (Some(line), Some(column), _) => {
                    writeln!(out, "{name}:{line}:{column}: {}", problem.message)?
                }
                (_, _, "") => writeln!(out, "{name}: {}", problem.message)?,
                (_, _, path) => writeln!(out, "{name}: {path}: {}", problem.message)?,
            }
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
