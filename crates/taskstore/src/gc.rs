//! Garbage collection as a write: model-retention's `collect` decides on views the store
//! reads, and the store writes what it decided in bounded batches, one transaction each.
//!
//! A tenant is collected in four passes, each on a view whose decisions do not depend on
//! anything outside it, so each can be read in pages of its own:
//!
//! 1. `attempts.rs`: the attempt history of tasks with more attempts than the task rule's
//!    history limits keep (a task restarted forever), a page of tasks at a time, each task
//!    with all its attempts; log lines go with their attempt.
//! 2. `actions.rs`: finished schedule actions, a page at a time in the order they
//!    finished, until one is kept.
//! 3. `tasks.rs`: standalone tasks (no owner, owning nothing), finished, a page at a time
//!    in id order; a task goes with its attempts, owner rows and log lines.
//! 4. `graph.rs`: the ownership graph (every flow and schedule, and every task that names
//!    an owner or is named as one) in one snapshot, at most [`MAX_GC_VIEW`]: an owner is decided with
//!    everything it owns (a foreground owner waits for them, history limits rank them) and
//!    what it owns with every owner it names, so this view cannot be cut in pages without
//!    reading the graph's edges first. Releases first, then deletions in cleanup order.

mod actions;
mod attempts;
mod graph;
mod tasks;

use chrono::{DateTime, Utc};
use taskmodel::flow::MAX_FLOW_JOBS;
use taskmodel::ids::{TaskId, TenantId};

use crate::error::StoreError;
use crate::tx::Tx;
use crate::values::Collected;

/// The transactions a collection runs: `engine.rs` gives every engine this, so the passes
/// are written once over both.
pub(crate) trait Connection {
    /// Runs `f` in a transaction that reads one snapshot and writes nothing.
    fn snapshot<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError>;

    /// Runs `f` in a write transaction, committed when it returns `Ok`.
    fn commit<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError>;
}

/// The most resources one view of a collection holds: the ownership graph's view (a
/// tenant's flows and the tasks that own or are owned, [`StoreError::GcViewTooLarge`]
/// beyond it), and one task's attempts. It holds the largest flow (model-flow's
/// `MAX_FLOW_JOBS` jobs' tasks and the flow) twice over.
pub const MAX_GC_VIEW: usize = 250_000;

const _: () = assert!(MAX_GC_VIEW > 2 * MAX_FLOW_JOBS);

/// The most releases or deletions one transaction of a collection writes
/// ([`Store::collect_garbage`](crate::Store::collect_garbage)'s `batch`, 1 to this).
pub const MAX_GC_BATCH: u32 = 1_000;

/// How many rows one read of a view returns (and how many tasks or actions one page of
/// the paged passes decides on).
const VIEW_PAGE: i64 = 1_000;

/// [`Store::collect_garbage`](crate::Store::collect_garbage): the four passes, in cleanup
/// order (attempts, actions, then tasks and flows). A pass that finds a resource changed
/// since it read it stops there; the others still run, each on its own resources.
pub(crate) fn collect<E: Connection>(
    engine: &mut E,
    tenant: &TenantId,
    now: DateTime<Utc>,
    batch: u32,
) -> Result<Collected, StoreError> {
    let mut pass = Pass {
        engine,
        tenant,
        now,
        size: check_batch(batch)?,
        collected: Collected {
            complete: true,
            ..Collected::default()
        },
    };
    attempts::collect_attempts(&mut pass)?;
    actions::collect_actions(&mut pass)?;
    tasks::collect_tasks(&mut pass)?;
    graph::collect_graph(&mut pass)?;
    Ok(pass.collected)
}

/// A collection under way: the connection it writes through, its tenant and time, how
/// many writes one transaction takes, and what it wrote so far.
struct Pass<'a, E> {
    engine: &'a mut E,
    tenant: &'a TenantId,
    now: DateTime<Utc>,
    size: usize,
    collected: Collected,
}

impl<E> Pass<'_, E> {
    /// Keeps the sooner of the next expiry known and `next`.
    fn expires(&mut self, next: Option<DateTime<Utc>>) {
        self.collected.next_expiry = match (self.collected.next_expiry, next) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
}

/// A collection's `batch`, 1 to [`MAX_GC_BATCH`], as a chunk size.
fn check_batch(batch: u32) -> Result<usize, StoreError> {
    if (1..=MAX_GC_BATCH).contains(&batch) {
        Ok(usize::try_from(batch).unwrap_or(usize::MAX))
    } else {
        Err(StoreError::OutOfRange {
            field: "batch",
            value: format!("{batch}, 1 to {MAX_GC_BATCH}"),
        })
    }
}

/// A task id read from a view.
fn task_id(tenant: &TenantId, name: &str) -> Result<TaskId, StoreError> {
    TaskId::new(name).map_err(|error| StoreError::Corrupt {
        what: format!("a task id of tenant \"{tenant}\""),
        reason: error.to_string(),
    })
}

#[cfg(test)]
mod tests;
