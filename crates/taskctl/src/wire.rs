//! The wire types taskctl knows by name, with their JSON Schema and their parser.

use crate::diagnose::{Problem, parse_text};
use clap::builder::PossibleValuesParser;
use serde::de::DeserializeOwned;
use taskmodel::flow::{FlowJob, FlowRun, FlowSpec, FlowStatus, JobResult, SkipReason};
use taskmodel::query::{TaskQuery, TaskRunQuery};
use taskmodel::retention::{
    CascadePolicy, Lifecycle, OwnedResource, RetentionPolicy, RetentionRule,
};
use taskmodel::schedule::{Action, Schedule, Trigger};
use taskmodel::schemars::{JsonSchema, Schema, schema_for};
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::attempt::LogKey;
use taskmodel::task::event::OutputStream;
use taskmodel::task::spec::{ExtensionKind, ExtensionSpec, KindName, RunnerEnv};
use taskmodel::task::{
    Annotations, AttemptOutcome, AttemptState, Condition, KindSet, LeaseId, ManifestMeta,
    ObjectMeta, OutputEvent, OwnerReference, Task, TaskEnv, TaskKind, TaskManifest, TaskPhase,
    TaskRun, TaskSpec, TaskStatus, TaskWatchEvent, Token,
};
use taskmodel::{
    AdmissionPolicy, AgentId, BackoffPolicy, FailurePolicy, JitterPolicy, RestartPolicy, RunnerId,
    Slot, TaskId, TenantId, TriggerRule, Uid,
};

/// Reads a document as one wire type: the first problem, with its line and column.
pub(crate) type Check = fn(&str) -> Result<(), Problem>;

/// A wire type: its name, what it is, how to make its schema and how to check a document.
pub(crate) struct WireType {
    /// The type's name, as `taskctl schema NAME` and `taskctl check --type NAME` take it.
    pub(crate) name: &'static str,
    /// One line saying what it is.
    pub(crate) about: &'static str,
    /// Builds the JSON Schema (draft 2020-12).
    pub(crate) schema: fn() -> Schema,
    /// Reads a document as this type: the first problem, with its line and column. `None`
    /// for a type read only inside another (a `FlowJob`, inside a `FlowSpec`).
    pub(crate) check: Option<Check>,
}

fn schema_of<T: JsonSchema>() -> Schema {
    schema_for!(T)
}

fn check_of<T: DeserializeOwned>(text: &str) -> Result<(), Problem> {
    parse_text::<T>(text).map(drop)
}

/// One row of [`WIRE_TYPES`].
macro_rules! wire {
    ($ty:ty, $name:literal, $about:literal) => {
        WireType {
            name: $name,
            about: $about,
            schema: schema_of::<$ty>,
            check: Some(check_of::<$ty>),
        }
    };
    ($ty:ty, $name:literal, $about:literal, read inside) => {
        WireType {
            name: $name,
            about: $about,
            schema: schema_of::<$ty>,
            check: None,
        }
    };
}

/// Every wire type, in layer order.
pub(crate) const WIRE_TYPES: &[WireType] = &[
    wire!(TaskId, "TaskId", "a task's identifier"),
    wire!(Slot, "Slot", "the slot a task belongs to"),
    wire!(AgentId, "AgentId", "an agent's identifier"),
    wire!(RunnerId, "RunnerId", "a runner's identifier"),
    wire!(TenantId, "TenantId", "the tenant a resource belongs to"),
    wire!(
        Uid,
        "Uid",
        "the identity of one incarnation of a resource (UUID layout)"
    ),
    wire!(
        RestartPolicy,
        "RestartPolicy",
        "whether an ended attempt is followed by another"
    ),
    wire!(
        JitterPolicy,
        "JitterPolicy",
        "how randomness spreads retry delays"
    ),
    wire!(BackoffPolicy, "BackoffPolicy", "the delays before retries"),
    wire!(
        AdmissionPolicy,
        "AdmissionPolicy",
        "what a new task does when its slot is busy"
    ),
    wire!(
        Labels,
        "Labels",
        "labels: qualified-name keys mapped to values"
    ),
    wire!(
        LabelSelector,
        "LabelSelector",
        "a Kubernetes-style label selector (a spec's runnerSelector)"
    ),
    wire!(
        TaskManifest,
        "TaskManifest",
        "what a caller submits: apiVersion, kind, metadata and spec"
    ),
    wire!(
        ManifestMeta,
        "ManifestMeta",
        "a manifest's metadata: name, labels, annotations and owners"
    ),
    wire!(
        Task,
        "Task",
        "a whole stored task: metadata, spec and status"
    ),
    wire!(
        ObjectMeta,
        "ObjectMeta",
        "a task's identity, versions, times, labels and owners"
    ),
    wire!(
        OwnerReference,
        "OwnerReference",
        "a reference to the flow, schedule or task that owns a resource"
    ),
    wire!(
        Annotations,
        "Annotations",
        "free-form metadata: label keys mapped to any text"
    ),
    wire!(TaskSpec, "TaskSpec", "the desired state of a task"),
    wire!(
        TaskKind,
        "TaskKind",
        "what a task runs: subprocess, container, wasm, extension or embedded"
    ),
    wire!(TaskEnv, "TaskEnv", "the environment a task asks for"),
    wire!(RunnerEnv, "RunnerEnv", "the environment a runner injects"),
    wire!(TaskStatus, "TaskStatus", "the observed state of a task"),
    wire!(
        Condition,
        "Condition",
        "a Kubernetes-style condition of a task's status"
    ),
    wire!(TaskPhase, "TaskPhase", "where a task is in its lifecycle"),
    wire!(AttemptOutcome, "AttemptOutcome", "how an attempt ended"),
    wire!(TaskRun, "TaskRun", "one attempt of a task under a lease"),
    wire!(
        AttemptState,
        "AttemptState",
        "where one attempt under a lease is"
    ),
    wire!(
        LeaseId,
        "LeaseId",
        "the lease a runner names in its calls (base 36)"
    ),
    wire!(
        LogKey,
        "LogKey",
        "the identity of one log line: attempt and sequence"
    ),
    wire!(
        ExtensionKind,
        "ExtensionKind",
        "the apiVersion and kind of an extension workload"
    ),
    wire!(
        ExtensionSpec,
        "ExtensionSpec",
        "the bounded JSON spec of an extension workload"
    ),
    wire!(
        KindName,
        "KindName",
        "a routable task kind: a built-in one, or an extension"
    ),
    wire!(
        KindSet,
        "KindSet",
        "the task kinds a runner runs, extension kinds included"
    ),
    wire!(
        TaskWatchEvent,
        "TaskWatchEvent",
        "one change of a watch of tasks, or a bookmark"
    ),
    wire!(
        OutputEvent,
        "OutputEvent",
        "an attempt's live output: a chunk, a run marker, a lag"
    ),
    wire!(
        OutputStream,
        "OutputStream",
        "the stream a chunk of output came from"
    ),
    wire!(
        Token,
        "Token",
        "a bearer token (its schema; the secret itself is never printed)"
    ),
    wire!(
        TaskQuery,
        "TaskQuery",
        "a task listing's filters, order and page (JSON form)"
    ),
    wire!(
        TaskRunQuery,
        "TaskRunQuery",
        "a run-history listing's scope, filters, order and page"
    ),
    wire!(
        FlowSpec,
        "FlowSpec",
        "a flow: jobs with dependencies and trigger rules"
    ),
    wire!(FlowJob, "FlowJob", "one job of a flow", read inside),
    wire!(
        TriggerRule,
        "TriggerRule",
        "when a job runs, given its upstream jobs"
    ),
    wire!(
        FailurePolicy,
        "FailurePolicy",
        "what a job's failure does to the rest of its flow"
    ),
    wire!(
        FlowRun,
        "FlowRun",
        "one run of a flow: each job's state and result"
    ),
    wire!(
        JobResult,
        "JobResult",
        "the string map a job reports when it ends"
    ),
    wire!(
        SkipReason,
        "SkipReason",
        "why a job of a flow run was skipped"
    ),
    wire!(
        FlowStatus,
        "FlowStatus",
        "a flow's status, rolled up from its jobs' states"
    ),
    wire!(
        Schedule,
        "Schedule",
        "a task template fired by a trigger (cron, interval or once)"
    ),
    wire!(
        Trigger,
        "Trigger",
        "when a schedule fires: cron in a time zone, everyMs, or at"
    ),
    wire!(
        Action,
        "Action",
        "one firing (a scheduled tick or a webhook delivery) and its status"
    ),
    wire!(
        OwnedResource,
        "OwnedResource",
        "a store's view of one resource for garbage collection: owners, finish, retention"
    ),
    wire!(
        RetentionPolicy,
        "RetentionPolicy",
        "retention rules per resource kind, replacing the defaults of the kinds it lists"
    ),
    wire!(
        RetentionRule,
        "RetentionRule",
        "how long one kind is kept after it finishes, and how its owned resources go"
    ),
    wire!(
        Lifecycle,
        "Lifecycle",
        "a group's lifecycle: draft, then sealed (expired is derived, never stored)"
    ),
    wire!(
        CascadePolicy,
        "CascadePolicy",
        "what deleting an owner does to what it owns: background, foreground or orphan"
    ),
];

/// The wire type called `name`.
pub(crate) fn find(name: &str) -> Option<&'static WireType> {
    WIRE_TYPES.iter().find(|wire| wire.name == name)
}

/// A clap parser that accepts exactly the names of the wire types read on their own (and lists
/// them on a mistake).
pub(crate) fn type_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(
        WIRE_TYPES
            .iter()
            .filter(|wire| wire.check.is_some())
            .map(|wire| wire.name),
    )
}
