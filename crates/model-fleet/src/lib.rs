//! Runners and the work they take: runner records and liveness, routing a task to a runner,
//! queue order, claims,
//! tenancy contexts and access checks, the API error envelope, and log batches.
//!
//! Layer 3. Depends on: model-ids, model-policy, model-selector, model-task.
//!
//! Architecture invariant: no I/O, no clock, no randomness; every decision takes `now`,
//! and a store applies what this crate decides.
//!
//! Read first: [`Runner`] (a runner's record and the operations that change it) and
//! [`Fleet`] (the runners of a control plane by id).
//!
//! | concept | what it holds |
//! | --- | --- |
//! | route | [`RunnerRouter`]: which runner takes a task ([`Pick`], by [`KindSet`], runner selector and [`rendezvous_weight`]), and why each other does not ([`RouteExplanation`]) |
//! | runner | [`Runner`], [`RunnerState`], [`Liveness`] from `lastSeenAt` and a [`LivenessTtl`], [`Fleet`] |
//! | log | [`LogBatch`]es of [`LogLine`]s a runner uploads, bounded, and which lines are new (dedupe by attempt and sequence) |
//! | queue | [`QueueKey`]: the queue order `priority DESC, queuedAt ASC, id ASC` as a value and as bytes in the same order; [`QueueEntry`]; [`Queue`], one tenant's queued tasks indexed by runner selector |
//! | claim | [`ClaimRequest`]: may this runner take this task now; [`Queue::claim`], [`Queue::claim_many`] and [`Queue::explain`] ([`ClaimExplanation`]) |
//! | access | a tenant's [`Context`] (admins, readers, executors) and [`authorize`]: may an [`Actor`] perform an [`Operation`], and why |
//! | api | [`ApiError`], the envelope `{"error":{"code","message"}}` with the [`ErrorCode`] of each kind and its HTTP status |
//! | error | [`FleetError`], classified by [`FleetError::kind`] |
//!
//! Every wire type is camelCase JSON read through a raw twin that checks it, with an
//! example in `docs/wire-format.md`; with the `schema` feature each implements
//! `schemars::JsonSchema`.
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.
mod access;
mod api;
mod claim;
mod error;
mod log;
mod queue;
mod route;
mod runner;
#[cfg(feature = "schema")]
mod schema;

pub use crate::{
    access::{
        Actor, Context, ContextBuilder, Decision, Denial, MAX_CONTEXT_MEMBERS, Operation, Role,
        authorize, authorize_in,
    },
    api::{ApiError, ErrorCode, MAX_API_ERROR_MESSAGE_BYTES},
    claim::{CLAIM_HEAD_PROBE, ClaimBlocker, ClaimExplanation, ClaimRequest},
    error::FleetError,
    log::{LogBatch, LogLine, LogStream, MAX_LOG_BATCH_LINES, MAX_LOG_LINE_BYTES},
    queue::{MAX_QUEUE_KEY_LEN, QUEUE_KEY_PREFIX_LEN, Queue, QueueEntry, QueueKey, QueuedTask},
    route::{
        KindSet, MAX_KIND_SET_EXTENSIONS, Pick, RequirementSet, RouteExplanation, RouteFailure,
        RouteOutcome, RouteRequirement, RouterBatch, RunnerInfo, RunnerRouter, RunnerVerdict,
        rendezvous_weight,
    },
    runner::{
        DEFAULT_LIVENESS_TTL_MS, DEFAULT_RUNNER_CAPACITY, Fleet, Liveness, LivenessTtl,
        MAX_LIVENESS_TTL_MS, MAX_RUNNER_CAPACITY, Runner, RunnerBuilder, RunnerState,
        RunnerUnavailable,
    },
};
