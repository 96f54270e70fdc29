//! Turning a JSON document into every problem the parser finds, each with its field path.
//!
//! serde stops at the first error. To report more than one, [`parse_all`] parses, records
//! the error, removes the top-level field it was in, and parses again (fields come in key
//! order: `serde_json::Value` keeps objects sorted), until the document
//! parses or the error cannot be pinned to a field. A field removed this way is not reported
//! again as missing. Errors of cross-field rules (reported at the root) end the search.
//!
//! Model types are read as [`Parsed`], so a broken rule comes back as a typed [`TaskError`]
//! with its own path: the problem's path is serde's path to the value joined with the
//! error's path inside it, and its message leaves the path out, so each is written once.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use taskmodel::policy::{AdmissionPolicy, RestartPolicy};
use taskmodel::task::{Parsed, TaskError};
use taskmodel::{Slot, TaskId};

/// One problem in a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The field path from the document root (`kind.mode.args[1]`), empty for the whole document.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// The 1-based line, for syntax errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The 1-based column, for syntax errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Problem {
    /// A problem at `path` (relative to the document root).
    pub(crate) fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// The same problem under `prefix` (`spec` turns `kind.image` into `spec.kind.image`).
    pub(crate) fn under(mut self, prefix: &str) -> Self {
        self.path = join(prefix, &self.path);
        self
    }
}

/// `prefix.path`, or either alone when the other is empty (an index joins without a dot).
pub(crate) fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) if path.starts_with('[') => format!("{prefix}{path}"),
        (false, false) => format!("{prefix}.{path}"),
    }
}

/// A model-task error as a problem, at the path the error names (relative to the value
/// parsed), with the message that leaves the path out.
pub(crate) fn task_problem(err: &TaskError) -> Problem {
    Problem::at(err.path().unwrap_or_default(), err.message())
}

/// What taskctl reads a value as: serde checks the shape, then [`Wire::check`] the rules that
/// come back typed ([`Parsed`] types); for plain serde types every rule is serde's.
pub(crate) trait Wire: DeserializeOwned {
    /// The value once valid.
    type Value;

    /// The value, or the rule it breaks.
    fn check(self) -> Result<Self::Value, TaskError>;
}

impl<T> Wire for Parsed<T>
where
    Parsed<T>: DeserializeOwned,
{
    type Value = T;

    fn check(self) -> Result<T, TaskError> {
        self.into_result()
    }
}

/// An optional field: `null` or absent is `None`, as the library reads it.
impl<W: Wire> Wire for Option<W> {
    type Value = Option<W::Value>;

    fn check(self) -> Result<Self::Value, TaskError> {
        self.map(W::check).transpose()
    }
}

/// Implements [`Wire`] for types whose every rule serde checks.
macro_rules! plain_wire {
    ($($ty:ty),* $(,)?) => {$(
        impl Wire for $ty {
            type Value = Self;

            fn check(self) -> Result<Self, TaskError> {
                Ok(self)
            }
        }
    )*};
}

plain_wire!(
    Slot,
    TaskId,
    RestartPolicy,
    AdmissionPolicy,
    String,
    u32,
    i32,
    u64
);

/// Parses `text` as JSON, or the syntax error with its line and column.
pub(crate) fn parse_json(text: &str) -> Result<Value, Problem> {
    parse_text(text)
}

/// Parses `text` as a `T` straight from the text, or the first error with its line and column.
pub(crate) fn parse_text<T: DeserializeOwned>(text: &str) -> Result<T, Problem> {
    serde_json::from_str(text).map_err(|err| Problem {
        path: String::new(),
        message: without_position(&err),
        line: Some(err.line()),
        column: Some(err.column()),
    })
}

/// The most parse rounds one diagnosis of an object makes, so the most problems it reports
/// about that object's own fields: one round per top-level field is enough for any wire
/// type, and the bound keeps a hostile document from costing more.
pub const MAX_ROUNDS: usize = 64;

/// Parses `value` as a `W`, collecting every problem the parser reports (see the module doc).
///
/// Returns the value when there is no problem.
pub(crate) fn parse_all<W: Wire>(value: &Value) -> Result<W::Value, Vec<Problem>> {
    parse_all_except::<W>(value, Vec::new())
}

/// [`parse_all`], where the fields named in `removed` were taken out of `value` by the caller
/// (their problems are reported already): a complaint that one of them is missing is dropped.
fn parse_all_except<W: Wire>(
    value: &Value,
    mut removed: Vec<String>,
) -> Result<W::Value, Vec<Problem>> {
    let mut doc = value.clone();
    let mut problems = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let problem = match serde_path_to_error::deserialize::<_, W>(&doc).map(W::check) {
            Ok(Ok(parsed)) if problems.is_empty() => return Ok(parsed),
            Ok(Ok(_)) => return Err(problems),
            Ok(Err(err)) => task_problem(&err),
            Err(err) => {
                let path = err.path().to_string();
                let path = if path == "." { String::new() } else { path };
                Problem::at(path, without_position(err.inner()))
            }
        };
        if quoted_after(&problem.message, "missing field ")
            .is_some_and(|field| removed.iter().any(|r| r == field))
        {
            return Err(problems);
        }
        let field = top_field(&problem.path)
            .or_else(|| quoted_after(&problem.message, "unknown field "))
            .map(str::to_owned);
        problems.push(problem);
        let Some(field) = field else {
            return Err(problems);
        };
        let Some(object) = doc.as_object_mut() else {
            return Err(problems);
        };
        if object.remove(&field).is_none() {
            return Err(problems);
        }
        removed.push(field);
    }
    Err(problems)
}

/// A top-level field of a wire type, with a check of its value on its own.
pub(crate) struct Field {
    /// The field's wire name.
    pub(crate) name: &'static str,
    /// Parses the field's value alone, reporting every problem (paths relative to the field).
    pub(crate) check: fn(&Value) -> Result<(), Vec<Problem>>,
}

impl Field {
    /// A field whose value parses as a `W`.
    pub(crate) const fn of<W: Wire>(name: &'static str) -> Self {
        Self {
            name,
            check: |value| parse_all::<W>(value).map(drop),
        }
    }
}

/// Parses `value` as a `T`, first checking each of `fields` on its own, so that every field
/// with a problem is reported, with the problems inside it, before the whole is parsed
/// (without those fields) for what remains: unknown and missing fields, rules across fields.
pub(crate) fn parse_fields<W: Wire>(
    value: &Value,
    fields: &[Field],
) -> Result<W::Value, Vec<Problem>> {
    let Some(object) = value.as_object() else {
        return parse_all::<W>(value);
    };
    let mut rest = object.clone();
    let mut problems = Vec::new();
    let mut removed = Vec::new();
    for field in fields {
        let Some(inner) = object.get(field.name) else {
            continue;
        };
        if let Err(found) = (field.check)(inner) {
            problems.extend(found.into_iter().map(|problem| problem.under(field.name)));
            rest.remove(field.name);
            removed.push(field.name.to_owned());
        }
    }
    match parse_all_except::<W>(&Value::Object(rest), removed) {
        Ok(parsed) if problems.is_empty() => Ok(parsed),
        Ok(_) => Err(problems),
        Err(more) => {
            problems.extend(more);
            Err(problems)
        }
    }
}

/// The first segment of a path (`kind` of `kind.mode.args[1]`), if the path is not the root.
fn top_field(path: &str) -> Option<&str> {
    let end = path.find(['.', '[']).unwrap_or(path.len());
    path.get(..end).filter(|field| !field.is_empty())
}

/// The name serde quotes in backticks right after `prefix` at the start of `message`.
fn quoted_after<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    let rest = message.strip_prefix(prefix)?.strip_prefix('`')?;
    rest.get(..rest.find('`')?)
}

/// serde_json's message without its " at line L column C" suffix (taskctl prints positions itself).
fn without_position(err: &serde_json::Error) -> String {
    let message = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    match message.strip_suffix(&suffix) {
        Some(bare) => bare.to_owned(),
        None => message,
    }
}

#[cfg(test)]
mod tests;
