//! The Task aggregate: metadata, spec, kinds, environment, status, lifecycle, attempts and routing.
//!
//! Layer 2. Depends on: model-ids, model-policy, model-selector.
//!
//! Architecture invariant: no I/O, no hidden clock, no hidden randomness; every change takes `now`.
//!
//! A [`Task`] is [`ObjectMeta`] + [`TaskSpec`] + [`TaskStatus`]. Specs are valid by
//! construction: [`TaskSpec::builder`] and serde (through a raw twin) run the same checks,
//! and every error names its field path (`kind.mode.body`,
//! `runnerSelector.matchExpressions[1].values`); [`TaskSpec::validate`] adds the submit rule
//! that embedded tasks cannot be submitted. [`Parsed`] reads a wire value keeping a broken
//! rule as a typed [`TaskError`], whose [`path`](TaskError::path) and
//! [`message`](TaskError::message) a caller prints on its own (`taskctl check` does). The lifecycle table is [`TaskPhase::can_become`];
//! after an attempt ends, [`decide_restart`] says restart (the task waits in Pending until
//! the given time), stay final, or exhaust. [`admit`] decides what a new task does when its
//! slot is busy. Attempts run as [`TaskRun`]s under leases (seed 003): the task's
//! methods that take a task and its run together (`lease_attempt`, `start_run`,
//! `heartbeat_run`, `cancel_run`, `report_result`, `expire_run`) keep one active run per
//! task, make repeats idempotent ([`Applied::Unchanged`]) and reject stale leases as
//! [`TaskError::Gone`]; [`LogCursor`] drops duplicate log lines by [`LogKey`]. The JSON
//! shapes are in `docs/wire-format.md`.
//!
//! With the `schema` feature every wire type implements `schemars::JsonSchema`; the schemas
//! say as much of each rule as JSON Schema can (`docs/schema.md` lists what only parsing checks).
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.
mod admission;
mod attempt;
mod bounded;
mod env;
mod error;
mod kind;
mod lease;
mod limits;
mod log;
mod meta;
mod parsed;
mod phase;
mod restart;
mod router;
mod run;
mod run_state;
#[cfg(feature = "schema")]
mod schema;
mod spec;
mod status;
mod task;
mod text;
mod timeout;
mod transition;

pub use crate::{
    admission::{AdmissionDecision, admit},
    env::{EnvVar, RunnerEnv, TaskEnv, merge_env},
    error::{InvalidReason, TaskError},
    kind::{Interpreter, ScriptBody, SubprocessMode, TaskKind},
    lease::LeaseId,
    limits::{
        MAX_ARG_BYTES, MAX_ARGS, MAX_ENV_KEY_BYTES, MAX_ENV_VALUE_BYTES, MAX_ENV_VARS,
        MAX_PATH_BYTES, MAX_SCRIPT_BODY_BYTES, MAX_SCRIPT_BODY_ENCODED_BYTES,
        MAX_STATUS_ERROR_BYTES, MAX_TIMEOUT_MS,
    },
    log::{LogCursor, LogKey},
    meta::ObjectMeta,
    parsed::Parsed,
    phase::TaskPhase,
    restart::{RestartDecision, decide_restart},
    router::{
        KindSet, Pick, RouteExplanation, RouteOutcome, RouterBatch, RunnerInfo, RunnerRouter,
        RunnerVerdict, rendezvous_weight,
    },
    run::{Applied, TaskRun},
    run_state::{GoneReason, RunState},
    spec::{TaskSpec, TaskSpecBuilder},
    status::{AttemptOutcome, AttemptResult, TaskStatus},
    task::Task,
    timeout::{Flag, Timeout},
};
