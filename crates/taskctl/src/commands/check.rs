//! `taskctl check`: validate task specs, whole tasks and flows, one file at a time, reporting
//! every problem with its path.

use std::cell::{Cell, RefCell};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde::ser::{self, SerializeSeq as _, SerializeStruct as _};
use serde::{Serialize, Serializer};

use crate::cli::{CheckArgs, Output};
use crate::diagnose::Problem;
use crate::document::{Shape, check_document, check_document_as};
use crate::input::{self, Input};
use crate::outcome::Outcome;
use crate::report::{CommandError, write_json, write_problem};

/// The result for one file.
#[derive(Debug, Serialize)]
pub(super) struct FileReport {
    file: String,
    /// `None` when the document is not JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    shape: Option<Shape>,
    valid: bool,
    problems: Vec<Problem>,
}

/// Checks every file, one at a time: each is read, checked, printed and dropped before the
/// next is read. A file that cannot be opened stops the command before anything is checked.
pub(crate) fn run(
    args: &CheckArgs,
    output: Output,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
) -> Result<Outcome, CommandError> {
    if args
        .files
        .iter()
        .filter(|path| path.as_os_str() == "-")
        .count()
        > 1
    {
        return Err(CommandError::Argument(
            "standard input (-) can be read only once".into(),
        ));
    }
    for path in &args.files {
        input::probe(path).map_err(CommandError::Read)?;
    }
    let files = Files {
        paths: &args.files,
        type_name: args.type_name.as_deref(),
        stdin: RefCell::new(stdin),
        invalid: Cell::new(0),
        unreadable: RefCell::new(None),
    };
    match output {
        Output::Text => files.write_text(out)?,
        Output::Json => {
            if let Err(err) = write_json(out, &files) {
                return Err(files.unreadable.take().map_or(err, CommandError::Read));
            }
        }
    }
    Ok(Outcome::valid_if(files.invalid.get() == 0))
}

/// The files of one run, checked as they are printed.
struct Files<'a> {
    paths: &'a [PathBuf],
    /// The wire type of `--type`, when given.
    type_name: Option<&'a str>,
    stdin: RefCell<&'a mut dyn Read>,
    /// How many files checked so far are invalid.
    invalid: Cell<usize>,
    /// Why a file could not be read, when it stopped the JSON output.
    unreadable: RefCell<Option<io::Error>>,
}

impl Files<'_> {
    /// Reads and checks the file at `path`, counting it if invalid.
    fn check(&self, path: &Path) -> io::Result<FileReport> {
        let file = report(
            input::read(path, &mut **self.stdin.borrow_mut())?,
            self.type_name,
        );
        if !file.valid {
            self.invalid.set(self.invalid.get() + 1);
        }
        Ok(file)
    }

    /// Each file's problems and summary line as it is checked, then the total.
    fn write_text(&self, out: &mut dyn Write) -> Result<(), CommandError> {
        for path in self.paths {
            let file = self.check(path).map_err(CommandError::Read)?;
            write_file(out, &file)?;
        }
        if self.paths.len() > 1 {
            let invalid = self.invalid.get();
            writeln!(
                out,
                "{} files checked: {} valid, {invalid} invalid",
                self.paths.len(),
                self.paths.len() - invalid
            )?;
        }
        Ok(())
    }
}

/// The JSON output, `{ "files": [...], "valid" }`: each file is checked while the array is
/// written, and `valid` comes last, once every file is known.
impl Serialize for Files<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut report = serializer.serialize_struct("Report", 2)?;
        report.serialize_field("files", &Each(self))?;
        report.serialize_field("valid", &(self.invalid.get() == 0))?;
        report.end()
    }
}

/// The `files` array, checking each file as it is written.
struct Each<'f, 'a>(&'f Files<'a>);

impl Serialize for Each<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let files = self.0;
        let mut seq = serializer.serialize_seq(Some(files.paths.len()))?;
        for path in files.paths {
            let file = files.check(path).map_err(|err| {
                let message = err.to_string();
                files.unreadable.replace(Some(err));
                <S::Error as ser::Error>::custom(message)
            })?;
            seq.serialize_element(&file)?;
        }
        seq.end()
    }
}

/// Checks one input as `check` does: as the wire type `type_name` when given, else by its
/// shape.
pub(super) fn report(input: Input, type_name: Option<&str>) -> FileReport {
    let (shape, problems) = match &input.text {
        Err(reason) => (None, vec![Problem::at("", reason.clone())]),
        Ok(text) => {
            // clap accepts only the names of wire types, so `check_document_as` finds one.
            let checked = type_name
                .and_then(|name| check_document_as(text, name))
                .unwrap_or_else(|| check_document(text));
            (checked.shape, checked.problems)
        }
    };
    FileReport {
        file: input.name,
        shape,
        valid: problems.is_empty(),
        problems,
    }
}

/// One file's problems, one line each, and its summary line.
pub(super) fn write_file(out: &mut dyn Write, file: &FileReport) -> io::Result<()> {
    let name = &file.file;
    for problem in &file.problems {
        write_problem(out, name, problem)?;
    }
    let what = file.shape.map_or("JSON document", Shape::describe);
    match file.problems.len() {
        0 => writeln!(out, "{name}: valid {what}"),
        1 => writeln!(out, "{name}: invalid {what} (1 problem)"),
        n => writeln!(out, "{name}: invalid {what} ({n} problems)"),
    }
}
