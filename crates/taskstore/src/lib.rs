//! The taskmodel on real databases: a [`Store`] of tasks, their attempts and their log
//! lines, flows and their jobs, runners, schedules and their actions, with garbage collection as a
//! write, on SQLite ([`SqliteStore`], embedded, the default: a file path and nothing to
//! start) or PostgreSQL ([`PostgresStore`], to scale past one machine).
//!
//! Adapter (above the facade). Depends on: taskmodel.
//!
//! Architecture invariant: the store decides nothing. Every write reads a task and its
//! current attempt, asks the model for the change, and commits it with a compare-and-swap
//! on the task's `resourceVersion` in one transaction (`docs/attempts.md`, "The store
//! contract"); the database's indexes keep the rules a buggy writer could break (one active
//! attempt per task, one per runner place, one running task per slot). Both engines run
//! the same operations through one small transaction interface, so they cannot drift.
//!
//! Read first: [`Store`] (the calls and what each one commits; `values.rs` holds what they
//! take and return), then `engine.rs` (the one implementation over both engines) and
//! `schema.rs` (tables, indexes and migrations).
//! Each concept has its module: `tasks.rs` (create, apply, delete), `attempts.rs`,
//! `claim.rs`, `flows.rs` (a flow's run moved on when a job's task ends, its jobs' results,
//! its listing), `runners.rs`, `gc.rs` (model-retention's decisions on views read in pages,
//! written in batches), `actions.rs`, `schedules.rs` (a schedule's row, and the tick that
//! turns its due fire times into actions), `logs.rs`.
//! Listings are keyset pages with model-query's tokens (`docs/keyset-pagination.md`).
mod actions;
mod attempts;
mod claim;
mod columns;
mod engine;
mod error;
mod floors;
mod flows;
mod gc;
mod group;
mod list;
mod logs;
mod pair;
mod postgres;
mod retention;
mod runners;
mod schedules;
mod schema;
mod sqlite;
mod store;
mod tasks;
mod tx;
mod values;

pub use crate::{
    error::StoreError,
    floors::DEFAULT_QUEUE_FLOOR_INTERVAL,
    flows::{FlowCursor, FlowJobStatus, FlowSummary, StoredFlow},
    gc::{MAX_GC_BATCH, MAX_GC_VIEW},
    group::MAX_CLAIM_GROUP,
    postgres::PostgresStore,
    schema::SCHEMA_VERSION,
    sqlite::{SQLITE_BUSY_TIMEOUT, SQLITE_CHECKPOINT_PAGES, SqliteStore},
    store::{MAX_CLAIM_SCAN, MAX_IMPORT, MAX_READ_PAGE, Store},
    values::{
        ActionOutcome, Admitted, Change, ClaimRequest, Claimed, Collected, FinishedAction, LogLine,
        LogStream, MAX_LOG_BATCH_LINES, MAX_LOG_LINE_BYTES, Reaped, Stored, StoredLogLine,
        StoredSchedule, Ticked,
    },
};
