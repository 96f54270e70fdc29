//! What `taskctl check` finds in one document: its [`Shape`] and every problem, field by field.

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use taskmodel::flow::{self, FlowSpec};
use taskmodel::ids::{FlowId, JobName};
use taskmodel::policy::{AdmissionPolicy, BackoffPolicy, RestartPolicy};
use taskmodel::schedule::Schedule;
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::spec::Timeout;
use taskmodel::task::task::{TASK_API_VERSION, TASK_KIND, check_type};
use taskmodel::task::{
    ManifestMeta, ObjectMeta, Parsed, Task, TaskEnv, TaskKind, TaskManifest, TaskSpec, TaskStatus,
};
use taskmodel::{FailurePolicy, Slot, TriggerRule};

use crate::diagnose::{
    Field, Problem, field_value, flow_problems, has_any_field, keys_wire, parse_all, parse_fields,
    parse_first, parse_json, parse_text, plain_wire, read_once, task_problem,
};

/// The keys that make a document a task or a manifest rather than a spec.
const RESOURCE_KEYS: [&str; 4] = ["apiVersion", "metadata", "spec", "status"];

/// The metadata keys the control plane owns: a document whose metadata has one is a stored task.
const STORED_META_KEYS: [&str; 6] = [
    "uid",
    "tenant",
    "resourceVersion",
    "generation",
    "createdAt",
    "updatedAt",
];

/// The key that makes a document a schedule (a schedule has a `spec` too, so it is looked at
/// first).
const SCHEDULE_KEYS: [&str; 1] = ["trigger"];

/// The key that makes a document a flow.
const FLOW_KEYS: [&str; 1] = ["jobs"];

// Every rule of a schedule comes back from serde, each message naming its field path.
plain_wire!(Schedule);

/// What a document is, told by its shape, or named by `taskctl check --type`.
///
/// In JSON output: `"taskSpec"`, `"taskManifest"`, `"task"`, `"flow"`, `"schedule"`, or the
/// wire type's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shape {
    /// A task spec, held to the submit-boundary rules ([`TaskSpec::validate`]).
    TaskSpec,
    /// A manifest, what a caller submits: held to the submit-boundary rules
    /// ([`TaskManifest::validate`]).
    TaskManifest,
    /// A whole stored task: metadata, spec and status, held to the parsing rules.
    Task,
    /// A flow of jobs, each job's spec held to the submit-boundary rules
    /// ([`FlowSpec::validate`]).
    Flow,
    /// A schedule: a trigger and a task template, the template held to the submit-boundary
    /// rules.
    Schedule,
    /// A document checked as the named wire type (`taskctl schema` lists them), held to the
    /// parsing rules of that type.
    Wire(&'static str),
}

impl Serialize for Shape {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(match self {
            Self::TaskSpec => "taskSpec",
            Self::TaskManifest => "taskManifest",
            Self::Task => "task",
            Self::Flow => "flow",
            Self::Schedule => "schedule",
            Self::Wire(name) => name,
        })
    }
}

impl Shape {
    /// A schedule has a `trigger`. A document with `apiVersion`, `metadata`, `spec` or
    /// `status` is a resource (and is told what it lacks): a stored task when it has a status
    /// or metadata the control plane owns (a uid, versions, times), else a manifest. A flow
    /// has `jobs`. Anything else is a spec.
    fn of(value: &RawValue) -> Self {
        if has_any_field(value, &SCHEDULE_KEYS) {
            return Self::Schedule;
        }
        if !has_any_field(value, &RESOURCE_KEYS) {
            return if has_any_field(value, &FLOW_KEYS) {
                Self::Flow
            } else {
                Self::TaskSpec
            };
        }
        let stored_meta = field_value(value, "metadata")
            .is_some_and(|meta| has_any_field(meta, &STORED_META_KEYS));
        if has_any_field(value, &["status"]) || stored_meta {
            Self::Task
        } else {
            Self::TaskManifest
        }
    }

    /// How the text output names it.
    pub(crate) const fn describe(self) -> &'static str {
        match self {
            Self::TaskSpec => "task spec",
            Self::TaskManifest => "task manifest",
            Self::Task => "task",
            Self::Flow => "flow",
            Self::Schedule => "schedule",
            Self::Wire(name) => name,
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
/// A document with `trigger` is a [`Schedule`]; one with `apiVersion`, `metadata`, `spec`
/// or `status` is a [`Task`] (when it has a status or stored metadata) or a [`TaskManifest`];
/// one with `jobs` is a [`FlowSpec`]; anything else is a [`TaskSpec`]. Specs, manifests, the
/// specs of a flow's jobs and schedule templates are held to the submit-boundary rules. The diagnosis holds no more than a few times the text
/// (docs/limits.md).
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

/// Checks one document as the wire type `type_name` (one `taskctl schema` lists): a syntax
/// error (with its line and column), or the first problem the type's parser finds, with its
/// line and column. `None` when no wire type has that name, or the type is read only inside
/// another (`FlowJob`, inside a `FlowSpec`).
///
/// ```
/// let checked = taskctl::check_document_as(r#"{"type": "lagged", "dropped": 0}"#, "OutputEvent");
/// let checked = checked.unwrap();
/// assert_eq!(checked.shape, Some(taskctl::Shape::Wire("OutputEvent")));
/// assert!(checked.problems[0].message.starts_with("invalid dropped: must be greater than zero"));
/// assert!(taskctl::check_document_as("{}", "NoSuchType").is_none());
/// ```
pub fn check_document_as(text: &str, type_name: &str) -> Option<Checked> {
    let wire = crate::wire::find(type_name)?;
    let check = wire.check?;
    if let Err(syntax) = parse_json(text) {
        return Some(Checked {
            shape: None,
            problems: vec![syntax],
        });
    }
    Some(Checked {
        shape: Some(Shape::Wire(wire.name)),
        problems: check(text).err().into_iter().collect(),
    })
}

/// What only the text shows. A JSON object value keeps the last of two equal keys, and so
/// does the field-by-field pass, but the library refuses a document that names a field
/// twice; so a document that pass found clean is read once more, from its text, exactly as
/// the library reads it.
fn check_text(shape: Shape, text: &str) -> Option<Problem> {
    let read = match shape {
        Shape::TaskSpec => parse_text::<TaskSpec>(text).map(drop),
        Shape::TaskManifest => parse_text::<TaskManifest>(text).map(drop),
        Shape::Task => parse_text::<Task>(text).map(drop),
        Shape::Flow => parse_text::<FlowSpec>(text).map(drop),
        Shape::Schedule => parse_text::<Schedule>(text).map(drop),
        Shape::Wire(name) => crate::wire::find(name)
            .and_then(|wire| wire.check)
            .map_or(Ok(()), |check| check(text)),
    };
    read.err()
}

/// Every problem of `value` read as `shape`; a spec is also held to the submit-boundary rules.
fn check_value(shape: Shape, value: &RawValue) -> Vec<Problem> {
    let result = match shape {
        Shape::TaskSpec => parse_spec(value).and_then(|spec| submit(&spec)),
        Shape::TaskManifest => parse_fields::<Parsed<TaskManifest>>(value, MANIFEST_FIELDS)
            .and_then(|manifest| manifest.validate().map_err(|err| vec![task_problem(&err)])),
        Shape::Task => parse_fields::<Parsed<Task>>(value, TASK_FIELDS).map(drop),
        Shape::Flow => check_flow(value),
        Shape::Schedule => parse_fields::<Schedule>(value, SCHEDULE_FIELDS).map(drop),
        // A named wire type is checked as a whole, from its text.
        Shape::Wire(_) => Ok(()),
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
    Field::of::<Option<i32>>("priority"),
    Field::of::<Option<u64>>("ttlAfterFinishedMs"),
];

/// `apiVersion`, checked as the library checks it.
const API_VERSION: Field = Field {
    name: "apiVersion",
    check: |value| type_field(value, |text| check_type(text, TASK_KIND)),
};

/// `kind`, checked as the library checks it.
const KIND: Field = Field {
    name: "kind",
    check: |value| type_field(value, |text| check_type(TASK_API_VERSION, text)),
};

/// A type field's value: a string the library accepts.
fn type_field(
    value: &RawValue,
    check: fn(&str) -> Result<(), taskmodel::task::TaskError>,
) -> Result<(), Vec<Problem>> {
    let text = parse_all::<String>(value)?;
    check(&text).map_err(|err| vec![Problem::at("", err.message())])
}

/// The fields of a manifest; the spec is checked field by field too.
const MANIFEST_FIELDS: &[Field] = &[
    API_VERSION,
    KIND,
    Field::of::<Parsed<ManifestMeta>>("metadata"),
    Field {
        name: "spec",
        check: |value| parse_spec(value).map(drop),
    },
];

/// The fields of a task; the spec is checked field by field too.
const TASK_FIELDS: &[Field] = &[
    API_VERSION,
    KIND,
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

// ---- Flows

/// The keys of a flow, for unknown and missing fields; every value is checked by a field.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[expect(dead_code, reason = "read for the unknown and missing fields only")]
struct FlowKeys {
    name: IgnoredAny,
    #[serde(default)]
    env: IgnoredAny,
    #[serde(default)]
    labels: IgnoredAny,
    #[serde(default)]
    failure_policy: IgnoredAny,
    jobs: IgnoredAny,
}

/// The keys of one job.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[expect(dead_code, reason = "read for the unknown and missing fields only")]
struct JobKeys {
    name: IgnoredAny,
    spec: IgnoredAny,
    #[serde(default)]
    depends_on: IgnoredAny,
    #[serde(default)]
    when: IgnoredAny,
}

keys_wire!(FlowKeys, JobKeys);

/// The fields of a flow, each checked on its own; `jobs` checks every job.
const FLOW_FIELDS: &[Field] = &[
    Field::of::<FlowId>("name"),
    Field::of::<Option<Parsed<TaskEnv>>>("env"),
    Field::of::<Option<Parsed<Labels>>>("labels"),
    Field::of::<Option<FailurePolicy>>("failurePolicy"),
    Field {
        name: "jobs",
        check: check_jobs,
    },
];

/// The fields of one job; its spec is checked field by field and held to the submit rules.
const JOB_FIELDS: &[Field] = &[
    Field::of::<JobName>("name"),
    Field {
        name: "spec",
        check: |value| parse_spec(value).and_then(|spec| submit(&spec)),
    },
    Field::of::<Option<Vec<String>>>("dependsOn"),
    Field::of::<Option<TriggerRule>>("when"),
];

/// Every problem of every job, each under `[i]`.
fn check_jobs(value: &RawValue) -> Result<(), Vec<Problem>> {
    let Ok(jobs) = serde_json::from_str::<Vec<&RawValue>>(value.get()) else {
        // Not a list: the shape error, as the library words it.
        return parse_first::<Vec<IgnoredAny>>(value)
            .map(drop)
            .map_err(|problem| vec![problem]);
    };
    let problems: Vec<Problem> = jobs
        .iter()
        .enumerate()
        .flat_map(|(i, job)| {
            parse_fields::<JobKeys>(job, JOB_FIELDS)
                .err()
                .unwrap_or_default()
                .into_iter()
                .map(move |problem| problem.under(&format!("[{i}]")))
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

keys_wire!(Vec<IgnoredAny>);

/// A flow's fields, then (when they are all fine) what the flow checks across its jobs:
/// the graph and each job's merged environment, as model-flow reads them
/// ([`flow::Parsed`] keeps the rule's error typed).
fn check_flow(value: &RawValue) -> Result<(), Vec<Problem>> {
    parse_fields::<FlowKeys>(value, FLOW_FIELDS)?;
    read_once::<flow::Parsed<FlowSpec>>(value.get())
        .map_err(|problem| vec![problem])?
        .into_result()
        .map(drop)
        .map_err(|err| flow_problems(&err))
}
