//! The wire types taskctl knows by name, with their JSON Schema.

use clap::builder::PossibleValuesParser;
use taskmodel::flow::{FlowJob, FlowRun, FlowSpec, FlowStatus, JobResult, SkipReason};
use taskmodel::query::TaskQuery;
use taskmodel::schedule::{Action, Schedule, Trigger};
use taskmodel::schemars::{JsonSchema, Schema, schema_for};
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::attempt::LogKey;
use taskmodel::task::spec::RunnerEnv;
use taskmodel::task::{
    Annotations, AttemptOutcome, AttemptState, LeaseId, ManifestMeta, ObjectMeta, OwnerReference,
    Task, TaskEnv, TaskKind, TaskManifest, TaskPhase, TaskRun, TaskSpec, TaskStatus,
};
use taskmodel::{
    AdmissionPolicy, AgentId, BackoffPolicy, FailurePolicy, JitterPolicy, RestartPolicy, RunnerId,
    Slot, TaskId, TenantId, TriggerRule, Uid,
};

/// A wire type: its name, what it is, and how to make its schema.
pub(crate) struct WireType {
    /// The type's name, as `taskctl schema NAME` takes it.
    pub(crate) name: &'static str,
    /// One line saying what it is.
    pub(crate) about: &'static str,
    /// Builds the JSON Schema (draft 2020-12).
    pub(crate) schema: fn() -> Schema,
}

fn schema_of<T: JsonSchema>() -> Schema {
    schema_for!(T)
}

/// Every wire type, in layer order.
pub(crate) const WIRE_TYPES: &[WireType] = &[
    WireType {
        name: "TaskId",
        about: "a task's identifier",
        schema: schema_of::<TaskId>,
    },
    WireType {
        name: "Slot",
        about: "the slot a task belongs to",
        schema: schema_of::<Slot>,
    },
    WireType {
        name: "AgentId",
        about: "an agent's identifier",
        schema: schema_of::<AgentId>,
    },
    WireType {
        name: "RunnerId",
        about: "a runner's identifier",
        schema: schema_of::<RunnerId>,
    },
    WireType {
        name: "TenantId",
        about: "the tenant a resource belongs to",
        schema: schema_of::<TenantId>,
    },
    WireType {
        name: "Uid",
        about: "the identity of one incarnation of a resource (UUID layout)",
        schema: schema_of::<Uid>,
    },
    WireType {
        name: "RestartPolicy",
        about: "whether an ended attempt is followed by another",
        schema: schema_of::<RestartPolicy>,
    },
    WireType {
        name: "JitterPolicy",
        about: "how randomness spreads retry delays",
        schema: schema_of::<JitterPolicy>,
    },
    WireType {
        name: "BackoffPolicy",
        about: "the delays before retries",
        schema: schema_of::<BackoffPolicy>,
    },
    WireType {
        name: "AdmissionPolicy",
        about: "what a new task does when its slot is busy",
        schema: schema_of::<AdmissionPolicy>,
    },
    WireType {
        name: "Labels",
        about: "labels: qualified-name keys mapped to values",
        schema: schema_of::<Labels>,
    },
    WireType {
        name: "LabelSelector",
        about: "a Kubernetes-style label selector (a spec's runnerSelector)",
        schema: schema_of::<LabelSelector>,
    },
    WireType {
        name: "TaskManifest",
        about: "what a caller submits: apiVersion, kind, metadata and spec",
        schema: schema_of::<TaskManifest>,
    },
    WireType {
        name: "ManifestMeta",
        about: "a manifest's metadata: name, labels, annotations and owners",
        schema: schema_of::<ManifestMeta>,
    },
    WireType {
        name: "Task",
        about: "a whole stored task: metadata, spec and status",
        schema: schema_of::<Task>,
    },
    WireType {
        name: "ObjectMeta",
        about: "a task's identity, versions, times, labels and owners",
        schema: schema_of::<ObjectMeta>,
    },
    WireType {
        name: "OwnerReference",
        about: "a reference to the flow, schedule or task that owns a resource",
        schema: schema_of::<OwnerReference>,
    },
    WireType {
        name: "Annotations",
        about: "free-form metadata: label keys mapped to any text",
        schema: schema_of::<Annotations>,
    },
    WireType {
        name: "TaskSpec",
        about: "the desired state of a task",
        schema: schema_of::<TaskSpec>,
    },
    WireType {
        name: "TaskKind",
        about: "what a task runs: subprocess, container, wasm or embedded",
        schema: schema_of::<TaskKind>,
    },
    WireType {
        name: "TaskEnv",
        about: "the environment a task asks for",
        schema: schema_of::<TaskEnv>,
    },
    WireType {
        name: "RunnerEnv",
        about: "the environment a runner injects",
        schema: schema_of::<RunnerEnv>,
    },
    WireType {
        name: "TaskStatus",
        about: "the observed state of a task",
        schema: schema_of::<TaskStatus>,
    },
    WireType {
        name: "TaskPhase",
        about: "where a task is in its lifecycle",
        schema: schema_of::<TaskPhase>,
    },
    WireType {
        name: "AttemptOutcome",
        about: "how an attempt ended",
        schema: schema_of::<AttemptOutcome>,
    },
    WireType {
        name: "TaskRun",
        about: "one attempt of a task under a lease",
        schema: schema_of::<TaskRun>,
    },
    WireType {
        name: "AttemptState",
        about: "where one attempt under a lease is",
        schema: schema_of::<AttemptState>,
    },
    WireType {
        name: "LeaseId",
        about: "the lease a runner names in its calls (base 36)",
        schema: schema_of::<LeaseId>,
    },
    WireType {
        name: "LogKey",
        about: "the identity of one log line: attempt and sequence",
        schema: schema_of::<LogKey>,
    },
    WireType {
        name: "TaskQuery",
        about: "a task listing's filters, order and page (JSON form)",
        schema: schema_of::<TaskQuery>,
    },
    WireType {
        name: "FlowSpec",
        about: "a flow: jobs with dependencies and trigger rules",
        schema: schema_of::<FlowSpec>,
    },
    WireType {
        name: "FlowJob",
        about: "one job of a flow",
        schema: schema_of::<FlowJob>,
    },
    WireType {
        name: "TriggerRule",
        about: "when a job runs, given its upstream jobs",
        schema: schema_of::<TriggerRule>,
    },
    WireType {
        name: "FailurePolicy",
        about: "what a job's failure does to the rest of its flow",
        schema: schema_of::<FailurePolicy>,
    },
    WireType {
        name: "FlowRun",
        about: "one run of a flow: each job's state and result",
        schema: schema_of::<FlowRun>,
    },
    WireType {
        name: "JobResult",
        about: "the string map a job reports when it ends",
        schema: schema_of::<JobResult>,
    },
    WireType {
        name: "SkipReason",
        about: "why a job of a flow run was skipped",
        schema: schema_of::<SkipReason>,
    },
    WireType {
        name: "FlowStatus",
        about: "a flow's status, rolled up from its jobs' states",
        schema: schema_of::<FlowStatus>,
    },
    WireType {
        name: "Schedule",
        about: "a task template fired by a trigger (cron, interval or once)",
        schema: schema_of::<Schedule>,
    },
    WireType {
        name: "Trigger",
        about: "when a schedule fires: cron in a time zone, everyMs, or at",
        schema: schema_of::<Trigger>,
    },
    WireType {
        name: "Action",
        about: "one firing (a scheduled tick or a webhook delivery) and its status",
        schema: schema_of::<Action>,
    },
];

/// The wire type called `name`.
pub(crate) fn find(name: &str) -> Option<&'static WireType> {
    WIRE_TYPES.iter().find(|wire| wire.name == name)
}

/// A clap parser that accepts exactly the wire type names (and lists them on a mistake).
pub(crate) fn type_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(WIRE_TYPES.iter().map(|wire| wire.name))
}
