//! JSON Schema (feature `schema`) for the flow model's wire types, written by hand from the
//! raw twins that parsing goes through and the limits it enforces.
//!
//! What only parsing checks: unique job names, dependencies that name another job once, no
//! cycle, a merged environment within its bound, unique result keys, byte lengths of
//! non-ASCII text, the total of dependencies and of result bytes, and (for a run) that the
//! states could have come from running the flow; plus what the task model's own schemas
//! leave out.

use model_ids::{FlowId, JobName};
use model_selector::Labels;
use model_task::{TaskEnv, TaskSpec};
use schemars::{Schema, SchemaGenerator, json_schema};

use crate::limits::{
    MAX_FLOW_JOBS, MAX_JOB_DEPENDENCIES, MAX_RESULT_ENTRIES, MAX_RESULT_KEY_BYTES,
    MAX_RESULT_VALUE_BYTES,
};
use crate::rule::{FailurePolicy, TriggerRule};
use crate::run::{FlowRun, FlowStatus, JobResult};
use crate::spec::{FlowJob, FlowSpec};
use crate::state::SkipReason;

use model_ids::impl_json_schema as schema;

/// A string enum of `values`.
fn names(description: &str, values: &[&str]) -> Schema {
    json_schema!({
        "description": description,
        "type": "string",
        "enum": values,
    })
}

schema!(TriggerRule, "TriggerRule", |_generator| names(
    "When a job runs, given its upstream jobs (after Airflow's trigger rules); \
     the default is allSucceeded.",
    &TriggerRule::ALL.map(TriggerRule::as_str),
));

schema!(FailurePolicy, "FailurePolicy", |_generator| names(
    "What a job's failure does to the rest of the flow; the default is failFast.",
    &[
        FailurePolicy::FailFast.as_str(),
        FailurePolicy::Continue.as_str()
    ],
));

schema!(SkipReason, "SkipReason", |_generator| names(
    "Why a job was skipped.",
    &[
        SkipReason::UpstreamFailed.as_str(),
        SkipReason::NotTriggered.as_str(),
        SkipReason::FailFast.as_str(),
        SkipReason::Canceled.as_str()
    ],
));

schema!(FlowStatus, "FlowStatus", |_generator| names(
    "The status of a flow, rolled up from its jobs' states.",
    &[
        FlowStatus::Dispatched.as_str(),
        FlowStatus::Started.as_str(),
        FlowStatus::Error.as_str(),
        FlowStatus::Finished.as_str(),
        FlowStatus::Canceled.as_str()
    ],
));

schema!(JobResult, "JobResult", |_generator| json_schema!({
    "description": "What a job reported when it ended: string entries without NUL bytes.",
    "type": "object",
    "maxProperties": MAX_RESULT_ENTRIES,
    "propertyNames": {
        "minLength": 1,
        "maxLength": MAX_RESULT_KEY_BYTES,
        "pattern": "^[^\\u0000]*$",
    },
    "additionalProperties": {
        "type": "string",
        "maxLength": MAX_RESULT_VALUE_BYTES,
        "pattern": "^[^\\u0000]*$",
    },
}));

/// A `dependsOn` list of job names.
fn depends_on(generator: &mut SchemaGenerator) -> Schema {
    let name = generator.subschema_for::<JobName>();
    json_schema!({
        "description": "The jobs this one depends on: each names another job of the flow once.",
        "type": "array",
        "items": name,
        "maxItems": MAX_JOB_DEPENDENCIES,
        "uniqueItems": true,
    })
}

schema!(FlowJob, "FlowJob", |generator| {
    let name = generator.subschema_for::<JobName>();
    let spec = generator.subschema_for::<TaskSpec>();
    let when = generator.subschema_for::<TriggerRule>();
    json_schema!({
        "description": "One job of a flow: the task it runs, the jobs it waits for and its trigger rule.",
        "type": "object",
        "required": ["name", "spec"],
        "properties": {
            "name": name,
            "spec": spec,
            "dependsOn": depends_on(generator),
            "when": when,
        },
        "additionalProperties": false,
    })
});

schema!(FlowSpec, "FlowSpec", |generator| {
    let name = generator.subschema_for::<FlowId>();
    let env = generator.subschema_for::<TaskEnv>();
    let labels = generator.subschema_for::<Labels>();
    let policy = generator.subschema_for::<FailurePolicy>();
    let job = generator.subschema_for::<FlowJob>();
    json_schema!({
        "description": "A flow: jobs that run as their dependencies and trigger rules allow, \
            sharing an environment (a job's own value wins). Absent optional fields take \
            their defaults.",
        "type": "object",
        "required": ["name", "jobs"],
        "properties": {
            "name": name,
            "env": env,
            "labels": labels,
            "failurePolicy": policy,
            "ttlAfterFinishedMs": {
                "description": "How long a finished run of the flow is kept, in milliseconds; \
                    absent, the retention policy's rule for flows decides.",
                "type": "integer",
                "minimum": 0,
                "maximum": model_task::spec::MAX_TTL_AFTER_FINISHED_MS,
            },
            "jobs": {
                "type": "array",
                "items": job,
                "minItems": 1,
                "maxItems": MAX_FLOW_JOBS,
            },
        },
        "additionalProperties": false,
    })
});

schema!(FlowRun, "FlowRun", |generator| {
    let flow = generator.subschema_for::<FlowId>();
    let policy = generator.subschema_for::<FailurePolicy>();
    let name = generator.subschema_for::<JobName>();
    let when = generator.subschema_for::<TriggerRule>();
    let reason = generator.subschema_for::<SkipReason>();
    let result = generator.subschema_for::<JobResult>();
    let states = [
        "waiting",
        "ready",
        "running",
        "succeeded",
        "failed",
        "skipped",
        "canceled",
    ];
    json_schema!({
        "description": "One run of a flow: its jobs, with each job's state and result.",
        "type": "object",
        "required": ["flow", "jobs"],
        "properties": {
            "flow": flow,
            "failurePolicy": policy,
            "jobs": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_FLOW_JOBS,
                "items": {
                    "type": "object",
                    "required": ["name", "state"],
                    "properties": {
                        "name": name,
                        "dependsOn": depends_on(generator),
                        "when": when,
                        "state": { "type": "string", "enum": states },
                        "skipReason": reason,
                        "result": result,
                    },
                    "additionalProperties": false,
                    "if": { "properties": { "state": { "const": "skipped" } } },
                    "then": { "required": ["skipReason"] },
                    "else": { "not": { "required": ["skipReason"] } },
                },
            },
        },
        "additionalProperties": false,
    })
});
