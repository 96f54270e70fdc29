//! DAG flows: jobs with dependencies and trigger rules, their validation, order and levels,
//! flow runs with per-job states and results, and canonical storage keys.
//!
//! Layer 3. Depends on: model-ids, model-selector, model-task.
//!
//! Architecture invariant: no I/O, no clock, no randomness; a flow run changes only by the
//! caller's reports, and knows nothing of how or where its tasks run.
//!
//! Read first: [`FlowSpec`] (the wire type, validated on parse), [`FlowGraph`] (order and
//! levels) and [`FlowRun`] (running a flow).
//!
//! A [`FlowSpec`] is a named set of [`FlowJob`]s, each a [`TaskSpec`](model_task::TaskSpec)
//! with the jobs it depends on (`dependsOn`) and a [`TriggerRule`] (`when`, after Airflow's
//! trigger rules); the flow's environment is merged into each job's by [`merge_flow_env`]
//! (the job wins), and its [`FailurePolicy`] says what a failure does to the rest. A job's
//! `dependsOn` is a [`JobNames`]: its names back to back in one buffer. Parsing
//! and [`FlowSpec::builder`] check everything and name the field path of the first problem
//! ([`FlowError`]); cycles are all reported, each with its path
//! (`jobs[3].dependsOn[0]: jobs form a cycle: extract -> transform -> load -> extract`).
//!
//! [`Parsed`] keeps a rule's error typed for a caller that prints paths itself, and
//! [`FlowGraph::new`] checks a flow's shape without its specs.
//!
//! [`FlowGraph::order`] is a topological order that breaks ties by declaration order, and
//! [`FlowGraph::levels`] the jobs that can run side by side. A [`FlowRun`] holds each
//! job's [`JobState`]; the caller starts ready jobs and reports attempt ends with
//! model-task's restart decision, and each call updates only the finished job's dependents
//! and returns the [`FlowChanges`]. The flow's [`FlowStatus`] rolls up from the job states,
//! and its result collects each job's [`JobResult`] under the job's name.
//!
//! [`task_key`], [`run_key`], [`flow_key`] and [`schedule_key`] name the resources in a store,
//! each under its tenant.
//!
//! Every input is bounded by a public constant: [`MAX_FLOW_JOBS`], [`MAX_JOB_DEPENDENCIES`],
//! [`MAX_FLOW_DEPENDENCIES`], [`MAX_RESULT_ENTRIES`], [`MAX_RESULT_KEY_BYTES`],
//! [`MAX_RESULT_VALUE_BYTES`], [`MAX_FLOW_RESULT_BYTES`]; errors stay small
//! ([`MAX_REPORTED_CYCLES`], [`MAX_CYCLE_JOBS_SHOWN`], and model-ids'
//! [`ERROR_INPUT_MAX_CHARS`](model_ids::ERROR_INPUT_MAX_CHARS) for quoted input).
//!
//! With the `schema` feature every wire type implements `schemars::JsonSchema`.
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.
mod bounded;
mod error;
mod graph;
mod keys;
mod limits;
mod names;
mod parsed;
mod rule;
mod run;
#[cfg(feature = "schema")]
mod schema;
mod spec;
mod state;
mod wire;

pub use crate::{
    error::{FlowCycle, FlowError},
    graph::FlowGraph,
    keys::{flow_key, run_key, run_key_prefix, schedule_key, task_key},
    limits::{
        MAX_CYCLE_JOBS_SHOWN, MAX_FLOW_DEPENDENCIES, MAX_FLOW_JOBS, MAX_FLOW_RESULT_BYTES,
        MAX_JOB_DEPENDENCIES, MAX_REPORTED_CYCLES, MAX_RESULT_ENTRIES, MAX_RESULT_KEY_BYTES,
        MAX_RESULT_VALUE_BYTES,
    },
    names::JobNames,
    parsed::Parsed,
    rule::{FailurePolicy, TriggerRule, UpstreamTally},
    run::{
        FlowChanges, FlowJobs, FlowRun, FlowStatus, JobChange, JobCounts, JobResult, JobRow,
        StateChange, attempt_end, cancel_jobs, end_job,
    },
    spec::{FlowJob, FlowSpec, FlowSpecBuilder, merge_flow_env},
    state::{JobState, SkipReason},
};
