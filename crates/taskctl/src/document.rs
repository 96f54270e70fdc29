//! What `taskctl check` finds in one document: its [`Shape`] and every problem, field by field.

use serde::{Deserialize as _, Serialize};
use serde_json::Value;
use taskmodel::Slot;
use taskmodel::policy::{AdmissionPolicy, BackoffPolicy, RestartPolicy};
use taskmodel::schedule::Schedule;
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::spec::Timeout;
use taskmodel::task::{ObjectMeta, Parsed, Task, TaskKind, TaskSpec, TaskStatus};

use crate::diagnose::{Field, Problem, parse_fields, parse_json, parse_text, task_problem};

/// The keys that make a document a whole task rather than a spec.
const TASK_KEYS: [&str; 3] = ["metadata", "spec", "status"];

/// The key that makes a document a schedule (a schedule has a `spec` too, so it is looked at
/// first).
const SCHEDULE_KEY: &str = "trigger";

/// What a document is, told by its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Shape {
    /// A task spec, held to the submit-boundary rules ([`TaskSpec::validate`]).
    TaskSpec,
    /// A whole task: metadata, spec and status, held to the parsing rules.
    Task,
    /// A schedule: a trigger and a task template, the template held to the submit-boundary
    /// rules.
    Schedule,
}

impl Shape {
    /// A schedule has a `trigger`; a task has `metadata`, `spec` and `status`, and a document
    /// with any of them is taken for a task (and told what it lacks); anything else is a spec.
    fn of(value: &Value) -> Self {
        match value.as_object() {
            Some(object) if object.contains_key(SCHEDULE_KEY) => Self::Schedule,
            Some(object) if TASK_KEYS.iter().any(|key| object.contains_key(*key)) => Self::Task,
            _ => Self::TaskSpec,
        }
    }

    /// How the text output names it.
    pub(crate) const fn describe(self) -> &'static str {
        match self {
            Self::TaskSpec => "task spec",
            Self::Task => "task",
            Self::Schedule => "schedule",
        }
    }
}

/// What [`check_document`] found: the shape, and every problem (none when valid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// What the document is; `None` when it is not JSON.
    pub shape: Option<Shape>,
    /// Every problem found, in the order `taskctl check` prints them.
    pub problems: Vec<Problem>,
}

impl Checked {
    /// Whether the document has no problem: exactly when the library reads it (a [`Task`],
    /// or a [`TaskSpec`] that also passes [`TaskSpec::validate`]).
    pub fn is_valid(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks one document as `taskctl check` does: a syntax error (with its line and column),
/// or the shape and every problem of every field, each with its path from the root.
///
/// A document with `trigger` is a [`Schedule`]; one with `metadata`, `spec` or `status` is a
/// [`Task`]; anything else is a [`TaskSpec`], held to the submit-boundary rules.
///
/// ```
/// let checked = taskctl::check_document(r#"{"slot": "a b", "kind": {"type": "wasm", "module": "m"}, "timeoutMs": 0}"#);
/// assert_eq!(checked.shape, Some(taskctl::Shape::TaskSpec));
/// let paths: Vec<&str> = checked.problems.iter().map(|p| p.path.as_str()).collect();
/// assert_eq!(paths, ["slot", "timeoutMs"]);
/// ```
pub fn check_document(text: &str) -> Checked {
    let value = match parse_json(text) {
        Ok(value) => value,
        Err(syntax) => {
            return Checked {
                shape: None,
                problems: vec![syntax],
            };
        }
    };
    let shape = Shape::of(&value);
    let mut problems = check_value(shape, &value);
    if problems.is_empty() {
        problems.extend(check_text(shape, text));
    }
    Checked {
        shape: Some(shape),
        problems,
    }
}

/// What only the text shows. A JSON value keeps the last of two equal keys, but the library
/// refuses a document that names a field twice; so a document the field-by-field pass found
/// clean is read once more, from its text, exactly as the library reads it.
fn check_text(shape: Shape, text: &str) -> Option<Problem> {
    let read = match shape {
        Shape::TaskSpec => parse_text::<TaskSpec>(text).map(drop),
        Shape::Task => parse_text::<Task>(text).map(drop),
        Shape::Schedule => parse_text::<Schedule>(text).map(drop),
    };
    read.err()
}

/// Every problem of `value` read as `shape`; a spec is also held to the submit-boundary rules.
fn check_value(shape: Shape, value: &Value) -> Vec<Problem> {
    let result = match shape {
        Shape::TaskSpec => parse_spec(value).and_then(|spec| submit(&spec)),
        Shape::Task => parse_fields::<Parsed<Task>>(value, TASK_FIELDS).map(drop),
        Shape::Schedule => check_schedule(value),
    };
    result.err().unwrap_or_default()
}

/// A schedule's template field by field (each problem under `spec`, the submit boundary
/// included), then the whole schedule, whose errors name their own field path
/// (`trigger.cron: day-of-month "32" is out of range 1-31`).
fn check_schedule(value: &Value) -> Result<(), Vec<Problem>> {
    if let Some(spec) = value.get("spec") {
        parse_spec(spec)
            .and_then(|spec| submit(&spec))
            .map_err(|problems| {
                problems
                    .into_iter()
                    .map(|p| p.under("spec"))
                    .collect::<Vec<_>>()
            })?;
    }
    Schedule::deserialize(value)
        .map(drop)
        .map_err(|err| vec![Problem::at("", err.to_string())])
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
fn parse_spec(value: &Value) -> Result<TaskSpec, Vec<Problem>> {
    parse_fields::<Parsed<TaskSpec>>(value, SPEC_FIELDS)
}

/// The submit boundary: what parsing checks, plus the rules for submitting (no embedded kind).
fn submit(spec: &TaskSpec) -> Result<(), Vec<Problem>> {
    spec.validate().map_err(|err| vec![task_problem(&err)])
}
