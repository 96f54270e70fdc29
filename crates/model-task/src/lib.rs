//! The Task aggregate: spec, lifecycle, attempts under leases, watch and output events, and
//! bearer tokens. Routing a task to a runner is model-fleet's.
//!
//! Layer 2. Depends on: model-ids, model-policy, model-selector.
//!
//! Architecture invariant: no I/O, no hidden clock, no hidden randomness; every change takes `now`.
//!
//! Read first: [`task`] (the aggregate and the methods that change it), [`attempt`] (one
//! attempt under a lease: the rules in `docs/attempts.md`), then [`spec`] (what a task runs
//! and every bound on it).
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`task`] | [`Task`] = [`ObjectMeta`] + [`TaskSpec`] + [`TaskStatus`], made from a [`TaskManifest`] by [`Task::create`] and changed by [`Task::apply`] ([`ApplyChanges`]); owners ([`OwnerReference`]), [`Annotations`], guarded writes ([`Precondition`]); `begin_attempt`, `end_attempt`, `cancel`; [`admit`](task::admit) for a busy slot |
//! | [`attempt`] | [`TaskRun`], the record of one attempt, its [`AttemptState`], [`LeaseId`], log dedupe ([`LogCursor`](attempt::LogCursor)); the task methods that change a task and its attempt together |
//! | [`lifecycle`] | [`TaskPhase`] and its table, [`TaskStatus`] with its [`Condition`]s, [`AttemptOutcome`], the restart decision |
//! | [`spec`] | [`TaskSpec`] and its builder, [`TaskKind`] (extension workloads: [`ExtensionKind`], [`ExtensionSpec`]; [`KindName`]), environments, [`Timeout`](spec::Timeout), the `MAX_*` bounds |
//! | [`event`] | [`TaskWatchEvent`] (a watch of tasks and where it resumes), [`OutputEvent`] (an attempt's live output) |
//! | [`Token`] | a bearer secret: constant-time comparison, redacted, generated from the caller's random source |
//! | [`wire`] | [`Parsed`]: a wire value with its broken rule kept typed; JSON Schema (`schema` feature) |
//! | [`error`] | [`TaskError`], classified by [`TaskError::kind`] |
//!
//! Specs are valid by construction: the builder and serde (through a raw twin) run the same
//! checks, and every error names its field path (`kind.mode.body`,
//! `runnerSelector.matchExpressions[1].values`); a status or an attempt reads only when the
//! lifecycle can produce it. The JSON shapes are in `docs/wire-format.md`, the attempt and
//! lease rules in `docs/attempts.md`.
//!
//! The store contract: a task and its current attempt are one aggregate under one
//! `resourceVersion`. Every call that changes either (that answers
//! [`Applied::Changed`]) bumps the version by exactly one, so a store that writes the pair
//! together with a compare-and-swap on the version alone never loses an acknowledged
//! change, such as a cancel, to a racing write read at the same version.
//!
//! With the `schema` feature every wire type implements `schemars::JsonSchema`; the schemas
//! say as much of each rule as JSON Schema can (`docs/schema.md` lists what only parsing checks).
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.
pub mod attempt;
pub mod error;
pub mod event;
pub mod lifecycle;
pub mod spec;
pub mod task;
mod time;
mod token;
pub mod wire;

pub use crate::{
    attempt::{Applied, AttemptState, LeaseId, TaskRun},
    error::TaskError,
    event::{OutputEvent, TaskWatchEvent},
    lifecycle::{
        AttemptOutcome, AttemptResult, Condition, ConditionStatus, ConditionType, RestartDecision,
        TaskPhase, TaskStatus,
    },
    spec::{ExtensionKind, ExtensionSpec, KindName, SubprocessMode, TaskEnv, TaskKind, TaskSpec},
    task::{
        Annotations, ApplyChanges, ManifestMeta, ObjectMeta, OwnerKind, OwnerReference,
        Precondition, Task, TaskManifest,
    },
    token::{GENERATED_TOKEN_PREFIX, MAX_TOKEN_BYTES, MIN_TOKEN_BYTES, TOKEN_ENTROPY_BYTES, Token},
    wire::Parsed,
};
