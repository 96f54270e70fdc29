//! Ownership, retention and garbage collection: which finished resources (attempts,
//! actions, tasks, flows, schedules) may be deleted now, in which order, and which owner
//! references to remove first.
//!
//! Layer 4. Depends on: model-ids, model-task, model-flow, model-schedule.
//!
//! Architecture invariant: no I/O, no clock, no randomness; collection reads a view a store
//! built ([`OwnedResource`]s) and decides, and the store writes what it decided.
//!
//! Read first: [`OwnedResource`] (the view of one resource, built from a task by
//! [`OwnedResource::from_task`], a flow by [`OwnedResource::from_flow`], a schedule by
//! [`OwnedResource::from_schedule`]), [`RetentionPolicy`] (the rules
//! per kind, a table of defaults) and [`collect`] (the decision).
//!
//! # Ownership
//!
//! After Kubernetes, a resource names its owners (model-task's
//! [`OwnerReference`](model_task::task::OwnerReference)s: kind, name, uid, at most one
//! controller): a flow owns its jobs' tasks, a schedule the tasks and actions it
//! created, a task its attempts. An owner is found by uid in the resource's tenant; a
//! reference whose uid is not there, or names another resource, is to an owner that is
//! gone. [`check`] reports what makes a graph wrong (a missing owner, an owner deleted and
//! created again, a cycle, two resources with one identity).
//!
//! # Retention
//!
//! A resource's [`Lifecycle`] is draft (active) then sealed (finished, when and how);
//! expired is derived, never stored ([`Lifecycle::stage`]: sealed, a time to live set, the
//! time passed, nothing still owned). Each [`ResourceKind`] has a [`RetentionRule`]: cleanup
//! priority, `ttlAfterFinishedMs`, [`CascadePolicy`] (background, foreground, orphan),
//! [`HistoryLimits`] (succeeded and failed kept, as Kubernetes' CronJob) and whether an
//! active owner holds what it owns. `docs/retention.md` says what is kept and for how long.
//!
//! # Collection
//!
//! [`collect`] returns a [`Collection`]: the [`Deletion`]s in cleanup order (attempts and
//! actions before tasks, tasks before flows, flows before schedules; never an owner before
//! what it owns), the [`Release`]s (owner references the caller removes first), and the
//! next time a time to live runs out. Nothing running is collected, nothing an owner still
//! needs, and a foreground owner only after everything it owns. Time and memory are linear
//! in the resources and their references.
//!
//! Every input is bounded by a public constant ([`MAX_RESOURCE_NAME_BYTES`],
//! [`MAX_OWNER_REFERENCES`], [`MAX_TTL_AFTER_FINISHED_MS`], [`MAX_HISTORY_LIMIT`],
//! [`MAX_CLEANUP_PRIORITY`]); wire forms are camelCase JSON, validated on parse, with
//! examples in `docs/wire-format.md`. With the `schema` feature every wire type implements
//! `schemars::JsonSchema`.
#![warn(clippy::indexing_slicing)] // Model code reads bounded input by get(), never by a panicking index; see docs/limits.md.
mod collect;
mod error;
mod graph;
mod kind;
mod lifecycle;
mod limits;
mod policy;
mod resource;
#[cfg(feature = "schema")]
mod schema;

pub use crate::{
    collect::{Collection, DeleteReason, Deletion, Release, ReleaseReason, collect, collect_with},
    error::{InvalidReason, RetentionError},
    graph::check,
    kind::ResourceKind,
    lifecycle::{Lifecycle, Outcome, Stage},
    limits::{
        MAX_CLEANUP_PRIORITY, MAX_HISTORY_LIMIT, MAX_OWNER_REFERENCES, MAX_RESOURCE_NAME_BYTES,
        MAX_TTL_AFTER_FINISHED_MS,
    },
    policy::{CascadePolicy, HistoryLimits, RetentionPolicy, RetentionRule, RetentionRuleBuilder},
    resource::{OwnedResource, OwnedResourceBuilder},
};
