//! The shared data contract of a task execution system: one facade over every taskmodel layer.
//!
//! Layer 5. Depends on: model-ids, model-policy, model-selector, model-task, model-query, model-flow, model-schedule, model-retention.
//!
//! Architecture invariant: no logic here; re-exports, the unified error and the prelude only.
//!
//! A control plane, its API, its runners and its UI exchange the same values: a task's
//! desired and observed state, the attempts that ran it, the runners that may take it and
//! the pages of a listing. This crate defines those values, validates them at every way in
//! (constructors, `FromStr`, serde), and computes the decisions every party must agree on.
//! It never performs I/O, reads a clock or draws hidden random numbers: the time and the
//! random source are arguments, so every decision is reproducible.
//!
//! # Where things are
//!
//! Each layer is a module; the headline types are also at the root and in [`prelude`].
//!
//! | module | layer | what it holds |
//! | --- | --- | --- |
//! | [`ids`] | 0 | [`TaskId`], [`Slot`], [`AgentId`], [`RunnerId`]: validated string newtypes; base-36 slugs |
//! | [`policy`] | 1 | [`RestartPolicy`], [`BackoffPolicy`] with [`JitterPolicy`] and the retry delay computation, [`AdmissionPolicy`] |
//! | [`selector`] | 1 | labels, label selectors, their string syntax, matching and explanation; [`RunnerIndex`] of labeled runners and its [`Snapshot`]s |
//! | [`task`] | 2 | the task aggregate: [`Task`], [`TaskSpec`], kinds (extension workloads: [`ExtensionKind`]), status, lifecycle; attempts as [`TaskRun`]s under [`LeaseId`]s; routing with [`RunnerRouter`] ([`KindSet`] of [`KindName`]s, [`Pick`], [`RouteExplanation`]); [`TaskWatchEvent`] and [`OutputEvent`]; bearer [`Token`]s |
//! | [`query`] | 3 | [`TaskQuery`] and [`TaskPage`], [`TaskRunQuery`] and [`TaskRunPage`]: filters, ordering, keyset pagination, continuation tokens |
//! | [`flow`] | 3 | DAG flows: [`FlowSpec`] with its jobs, [`TriggerRule`]s and [`FailurePolicy`]; [`FlowGraph`] order and levels; [`FlowRun`] with [`JobState`]s, [`FlowStatus`] and results; storage keys |
//! | [`schedule`] | 3 | [`Schedule`]s fired by a [`Trigger`] (a [`CronExpr`] with Vixie cron's meaning in a time zone, an interval, or once), [`OverlapPolicy`] and catch-up; [`Action`]s with time-ordered [`ActionKey`]s |
//! | [`retention`] | 4 | ownership, retention and garbage collection: [`OwnedResource`] views, [`RetentionPolicy`] per kind with [`CascadePolicy`], and [`collect`](retention::collect) |
//!
//! Every layer has its own error type; [`Error`] wraps any of them and [`Error::kind`]
//! gives the category a caller branches on ([`ErrorKind`]).
//!
//! # A short tour
//!
//! ```
//! use taskmodel::prelude::*;
//!
//! // Identifiers are validated newtypes; a bad one is a typed error, never a panic.
//! let slot = Slot::new("nightly-backup")?;
//! assert_eq!(slot, "nightly-backup");
//! let err = Error::from(Slot::new("no spaces").unwrap_err());
//! assert_eq!(err.kind(), ErrorKind::Invalid);
//!
//! // Policies read their wire form and their command-line spellings.
//! let restart: RestartPolicy = "on-failure".parse()?;
//! assert_eq!(restart.to_string(), "onFailure");
//!
//! // The delay before each retry comes from a caller-supplied random source, so a seed
//! // reproduces a schedule exactly.
//! let backoff = BackoffPolicy::new(JitterPolicy::None, 1_000, 30_000, 2.0)?;
//! let delays: Vec<u64> = backoff.schedule(SeededRandom::new(42)).take(6).collect();
//! assert_eq!(delays, [1_000, 2_000, 4_000, 8_000, 16_000, 30_000]);
//! # Ok::<(), taskmodel::Error>(())
//! ```
//!
//! # Features
//!
//! `schema`: `schemars::JsonSchema` for every wire type, in every layer, and a re-export of
//! [`schemars`](https://docs.rs/schemars) so callers use the same version.
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.

mod assertions;
mod error;
pub mod prelude;

#[doc(inline)]
pub use model_flow as flow;
#[doc(inline)]
pub use model_ids as ids;
#[doc(inline)]
pub use model_policy as policy;
#[doc(inline)]
pub use model_query as query;
#[doc(inline)]
pub use model_retention as retention;
#[doc(inline)]
pub use model_schedule as schedule;
#[doc(inline)]
pub use model_selector as selector;
#[doc(inline)]
pub use model_task as task;
#[cfg(feature = "schema")]
pub use schemars;

pub use crate::error::{Error, Result};
pub use model_flow::{
    FailurePolicy, FlowGraph, FlowRun, FlowSpec, FlowStatus, JobState, TriggerRule,
};
pub use model_ids::ErrorKind;
pub use model_ids::{AgentId, RunnerId, Slot, TaskId, TenantId, Uid};
pub use model_policy::{
    AdmissionPolicy, BackoffPolicy, JitterPolicy, RandomSource, RestartPolicy, SeededRandom,
};
pub use model_query::{TaskPage, TaskQuery, TaskRunPage, TaskRunQuery};
pub use model_retention::{CascadePolicy, Collection, OwnedResource, RetentionPolicy};
pub use model_schedule::{
    Action, ActionKey, ActionStatus, CronExpr, OverlapPolicy, Schedule, Trigger, Zone,
};
pub use model_selector::{LabelSelector, Labels, RunnerIndex, RunnerSelector, Snapshot};
pub use model_task::{
    Annotations, Applied, ApplyChanges, AttemptState, Condition, ConditionStatus, ConditionType,
    ExtensionKind, KindName, KindSet, LeaseId, ManifestMeta, ObjectMeta, OutputEvent, OwnerKind,
    OwnerReference, Pick, Precondition, RestartDecision, RouteExplanation, RouterBatch,
    RunnerRouter, Task, TaskKind, TaskManifest, TaskPhase, TaskRun, TaskSpec, TaskStatus,
    TaskWatchEvent, Token,
};
