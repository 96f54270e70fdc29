//! What `taskctl check` finds in one document: its [`Shape`] and every problem, field by field.

use serde::Serialize;
use serde_json::value::RawValue;
use taskmodel::Slot;
use taskmodel::policy::{AdmissionPolicy, BackoffPolicy, RestartPolicy};
use taskmodel::schedule::Schedule;
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::spec::Timeout;
use taskmodel::task::{ObjectMeta, Parsed, Task, TaskKind, TaskSpec, TaskStatus};

use crate::diagnose::{
    Field, Problem, has_any_field, parse_fields, parse_json, parse_text, plain_wire, task_problem,
};

/// The keys that make a document a whole task rather than a spec.
const TASK_KEYS: [&str; 3] = ["metadata", "spec", "status"];

/// The key that makes a document a schedule (a schedule has a `spec` too, so it is looked at
/// first).
const SCHEDULE_KEYS: [&str; 1] = ["trigger"];

// Every rule of a schedule comes back from serde, each message naming its field path.
plain_wire!(Schedule);

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
    fn of(value: &RawValue) -> Self {
        if has_any_field(value, &SCHEDULE_KEYS) {
            Self::Schedule
        } else if has_any_field(value, &TASK_KEYS) {
            Self::Task
        } else {
            Self::TaskSpec
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
/// [`Task`]; anything else is a [`TaskSpec`], held to the submit-boundary rules. The diagnosis holds no more than a few
/// times the text (docs/limits.md).
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
    let shape = Shape::of(value);
    let mut problems = check_value(shape, value);
    if problems.is_empty() {
        problems.extend(check_text(shape, text));
    }
    Checked {
        shape: Some(shape),
        problems,
    }
}

/// What only the text shows. A JSON object value keeps the last of two equal keys, and so
/// does the field-by-field pass, but the library refuses a document that names a field
/// twice; so a document that pass found clean is read once more, from its text, exactly as
/// the library reads it.
fn check_text(shape: Shape, text: &str) -> Option<Problem> {
    let read = match shape {
        Shape::TaskSpec => parse_text::<TaskSpec>(text).map(drop),
        Shape::Task => parse_text::<Task>(text).map(drop),
        Shape::Schedule => parse_text::<Schedule>(text).map(drop),
    };
    read.err()
}

/// Every problem of `value` read as `shape`; a spec is also held to the submit-boundary rules.
fn check_value(shape: Shape, value: &RawValue) -> Vec<Problem> {
    let result = match shape {
        Shape::TaskSpec => parse_spec(value).and_then(|spec| submit(&spec)),
        Shape::Task => parse_fields::<Parsed<Task>>(value, TASK_FIELDS).map(drop),
        Shape::Schedule => parse_fields::<Schedule>(value, SCHEDULE_FIELDS).map(drop),
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

/// The fields of a schedule checked on their own: the template, field by field and against
/// the submit boundary (its problems' paths start with `spec`). The schedule's other rules
/// come from parsing the whole, each error naming its field (`trigger.cron: ...`).
const SCHEDULE_FIELDS: &[Field] = &[Field {
    name: "spec",
    check: |value| parse_spec(value).and_then(|spec| submit(&spec)),
}];

/// Parses a spec, reporting every bad field.
fn parse_spec(value: &RawValue) -> Result<TaskSpec, Vec<Problem>> {
    parse_fields::<Parsed<TaskSpec>>(value, SPEC_FIELDS)
}

/// The submit boundary: what parsing checks, plus the rules for submitting (no embedded kind).
fn submit(spec: &TaskSpec) -> Result<(), Vec<Problem>> {
    spec.validate().map_err(|err| vec![task_problem(&err)])
}
