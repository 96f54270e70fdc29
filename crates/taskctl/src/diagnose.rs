//! Turning a JSON document into every problem the parser finds, each with its field path.
//!
//! serde stops at the first error. To report more than one, [`parse_all`] parses, records
//! the error, removes the top-level field it was in, and parses again (fields come in key
//! order, the last of two equal keys kept, as a JSON object value holds them), until the
//! document parses or the error cannot be pinned to a field. A field removed this way is not
//! reported again as missing. Errors of cross-field rules (reported at the root) end the search.
//!
//! The document is never built as a `serde_json::Value`, which costs up to twenty times the
//! text (`[[],[],...]`): [`parse_json`] checks the syntax and keeps the text, an object is
//! split into its top-level fields as slices of that text ([`MAX_FIELDS`] at most), and each
//! round reads the remaining fields, written back as one compact object, with the library's
//! own readers. So a diagnosis holds the text, one copy of it and what the library builds.
//!
//! Model types are read as [`Parsed`], so a broken rule comes back as a typed [`TaskError`]
//! with its own path: the problem's path is serde's path to the value joined with the
//! error's path inside it, and its message leaves the path out, so each is written once.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use taskmodel::flow::FlowError;
use taskmodel::ids::{FlowId, JobName};
use taskmodel::policy::{AdmissionPolicy, RestartPolicy};
use taskmodel::task::{Parsed, TaskError};
use taskmodel::{FailurePolicy, Slot, TaskId, TriggerRule};

/// The most parse rounds one diagnosis of an object makes, so the most problems it reports
/// about that object's own fields: one round per top-level field is enough for any wire
/// type, and the bound keeps a hostile document from costing more.
pub const MAX_ROUNDS: usize = 64;

/// The most top-level fields of an object that are diagnosed one by one (more than any
/// object of a spec or task holds: labels have at most 64).
///
/// An object with more distinct fields is read whole, and its first problem reported, so
/// that a document of a million short fields costs no more than its text.
pub const MAX_FIELDS: usize = 256;

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
macro_rules! plain_wire_impl {
    ($($ty:ty),* $(,)?) => {$(
        impl $crate::diagnose::Wire for $ty {
            type Value = Self;

            fn check(self) -> Result<Self, ::taskmodel::task::TaskError> {
                Ok(self)
            }
        }
    )*};
}

pub(crate) use plain_wire_impl as plain_wire;

plain_wire!(
    Slot,
    TaskId,
    RestartPolicy,
    AdmissionPolicy,
    String,
    u32,
    i32,
    u64,
    FlowId,
    JobName,
    FailurePolicy,
    TriggerRule,
    Vec<String>,
);

/// Implements [`Wire`] for the keys of an object whose fields are checked one by one: a
/// struct of `IgnoredAny` fields, read only for its unknown and missing fields.
macro_rules! keys_wire_impl {
    ($($ty:ty),* $(,)?) => {$(
        impl $crate::diagnose::Wire for $ty {
            type Value = ();

            fn check(self) -> Result<(), ::taskmodel::task::TaskError> {
                Ok(())
            }
        }
    )*};
}

pub(crate) use keys_wire_impl as keys_wire;

/// A model-flow error as problems, at the paths the error names: one per cycle for a
/// cycle error (and one saying how many more, when some were left out).
pub(crate) fn flow_problems(err: &FlowError) -> Vec<Problem> {
    match err {
        FlowError::Cycle { cycles, unreported } => {
            let mut problems: Vec<Problem> = cycles
                .iter()
                .map(|cycle| Problem::at(cycle.path(), cycle.message()))
                .collect();
            if *unreported > 0 {
                problems.push(Problem::at(
                    "jobs",
                    format!("{unreported} more groups of jobs form cycles"),
                ));
            }
            problems
        }
        other => vec![Problem::at(
            other.path().unwrap_or_default(),
            other.message(),
        )],
    }
}

/// Checks that `text` is one JSON value and keeps it as text, or the syntax error with its
/// line and column.
///
/// The syntax is checked as a JSON value reads it, with its messages ("trailing comma") and
/// its nesting limit (127 levels), but nothing is built ([`AnyValue`]).
pub(crate) fn parse_json(text: &str) -> Result<&RawValue, Problem> {
    parse_text::<AnyValue>(text)?;
    parse_text(text)
}

/// Any JSON value, read as `serde_json::Value` reads one and dropped as it is read.
struct AnyValue;

impl<'de> Deserialize<'de> for AnyValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Self)
    }
}

impl<'de> Visitor<'de> for AnyValue {
    type Value = Self;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<Self>()?.is_some() {}
        Ok(self)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        while map.next_key::<Self>()?.is_some() {
            map.next_value::<Self>()?;
        }
        Ok(self)
    }
}

/// Parses `text` as a `T` straight from the text, or the first error with its line and column.
pub(crate) fn parse_text<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, Problem> {
    serde_json::from_str(text).map_err(|err| Problem {
        path: String::new(),
        message: without_position(&err),
        line: Some(err.line()),
        column: Some(err.column()),
    })
}

/// The top-level fields of an object, by key.
type Fields<'a> = BTreeMap<String, &'a RawValue>;

/// The fields of `value` in key order, the last of two equal keys kept; `None` when `value`
/// is not an object or has more than [`MAX_FIELDS`] distinct fields.
fn fields(value: &RawValue) -> Option<Fields<'_>> {
    if !is_object(value) {
        return None;
    }
    serde_json::Deserializer::from_str(value.get())
        .deserialize_map(FieldsVisitor)
        .ok()
}

/// Whether `value` is an object, told by its first byte (a string is not read to say it is not).
fn is_object(value: &RawValue) -> bool {
    value.get().trim_start().starts_with('{')
}

/// Collects an object's fields, giving up (with an error) past [`MAX_FIELDS`].
struct FieldsVisitor;

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Fields<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object of at most {MAX_FIELDS} fields")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields = Fields::new();
        while let Some(key) = map.next_key::<String>()? {
            fields.insert(key, map.next_value()?);
            if fields.len() > MAX_FIELDS {
                return Err(serde::de::Error::invalid_length(fields.len(), &self));
            }
        }
        Ok(fields)
    }
}

/// The value of `value`'s field `name` (the last, when the object names it twice), or `None`
/// when `value` is not an object or has no such field.
pub(crate) fn field_value<'a>(value: &'a RawValue, name: &str) -> Option<&'a RawValue> {
    fields(value).and_then(|fields| fields.get(name).copied())
}

/// Whether `value` is an object with a field named one of `names`; reads the keys, builds nothing.
pub(crate) fn has_any_field(value: &RawValue, names: &[&str]) -> bool {
    if !is_object(value) {
        return false;
    }
    serde_json::Deserializer::from_str(value.get())
        .deserialize_map(KeyIn(names))
        .unwrap_or(false)
}

/// Reads a key, saying whether it is one of the names; or, over a map, whether any key is.
#[derive(Clone, Copy)]
struct KeyIn<'n>(&'n [&'n str]);

impl<'de> Visitor<'de> for KeyIn<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<bool, E> {
        Ok(self.0.contains(&key))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut found = false;
        while let Some(is_named) = map.next_key_seed(self)? {
            found |= is_named;
            map.next_value::<IgnoredAny>()?;
        }
        Ok(found)
    }
}

impl<'de> DeserializeSeed<'de> for KeyIn<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self)
    }
}

/// Parses `value` as a `W`, collecting every problem the parser reports (see the module doc).
///
/// Returns the value when there is no problem.
pub(crate) fn parse_all<W: Wire>(value: &RawValue) -> Result<W::Value, Vec<Problem>> {
    match fields(value) {
        Some(fields) => parse_all_except::<W>(fields, Vec::new()),
        None => parse_once::<W>(value.get()).map_err(|problem| vec![problem]),
    }
}

/// [`parse_all`] of an object's `fields`, where the fields named in `removed` were taken out
/// by the caller (their problems are reported already): a complaint that one of them is
/// missing is dropped.
fn parse_all_except<W: Wire>(
    mut fields: Fields<'_>,
    mut removed: Vec<String>,
) -> Result<W::Value, Vec<Problem>> {
    let mut problems = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let problem = match object_text(&fields).and_then(|text| parse_once::<W>(&text)) {
            Ok(parsed) if problems.is_empty() => return Ok(parsed),
            Ok(_) => return Err(problems),
            Err(problem) => problem,
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
        if fields.remove(&field).is_none() {
            return Err(problems);
        }
        removed.push(field);
    }
    Err(problems)
}

/// `fields` written back as one compact JSON object (no longer than the text they came from).
fn object_text(fields: &Fields<'_>) -> Result<String, Problem> {
    serde_json::to_string(fields).map_err(|err| Problem::at("", err.to_string()))
}

/// Reads `value` as a `W` at once: the value, or the first problem (at its path).
pub(crate) fn parse_first<W: Wire>(value: &RawValue) -> Result<W::Value, Problem> {
    parse_once::<W>(value.get())
}

/// Reads `text` as a `W` once: the value, or the first problem at serde's path.
fn parse_once<W: Wire>(text: &str) -> Result<W::Value, Problem> {
    read_once::<W>(text)?
        .check()
        .map_err(|err| task_problem(&err))
}

/// Reads `text` as a `T` once, or the first serde problem at serde's path (a rule kept typed
/// by a `Parsed` type is the caller's to check).
pub(crate) fn read_once<T: DeserializeOwned>(text: &str) -> Result<T, Problem> {
    let mut reader = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize::<_, T>(&mut reader).map_err(|err| {
        let path = err.path().to_string();
        let path = if path == "." { String::new() } else { path };
        Problem::at(path, without_position(err.inner()))
    })
}

/// A top-level field of a wire type, with a check of its value on its own.
pub(crate) struct Field {
    /// The field's wire name.
    pub(crate) name: &'static str,
    /// Parses the field's value alone, reporting every problem (paths relative to the field).
    pub(crate) check: fn(&RawValue) -> Result<(), Vec<Problem>>,
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

/// Parses `value` as a `W`, first checking each of `table` on its own, so that every field
/// with a problem is reported, with the problems inside it, before the whole is parsed
/// (without those fields) for what remains: unknown and missing fields, rules across fields.
pub(crate) fn parse_fields<W: Wire>(
    value: &RawValue,
    table: &[Field],
) -> Result<W::Value, Vec<Problem>> {
    let Some(mut rest) = fields(value) else {
        return parse_once::<W>(value.get()).map_err(|problem| vec![problem]);
    };
    let mut problems = Vec::new();
    let mut removed = Vec::new();
    for field in table {
        let Some(inner) = rest.get(field.name).copied() else {
            continue;
        };
        if let Err(found) = (field.check)(inner) {
            problems.extend(found.into_iter().map(|problem| problem.under(field.name)));
            rest.remove(field.name);
            removed.push(field.name.to_owned());
        }
    }
    match parse_all_except::<W>(rest, removed) {
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
    let mut message = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    // Cut in place: a message can quote a whole string of the input.
    if let Some(bare) = message.strip_suffix(&suffix).map(str::len) {
        message.truncate(bare);
    }
    message
}

#[cfg(test)]
mod tests;
