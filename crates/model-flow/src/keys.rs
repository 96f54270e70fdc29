//! Canonical storage keys: one function per resource, so every store names a task, an
//! attempt, a flow and a schedule the same way.
//!
//! Every task, flow and schedule belongs to a tenant, and names are unique within a tenant
//! only, so a key is the resource's kind, the tenant, and the identity, separated by colons:
//! `task:{tenant}:{task id}`, `run:{tenant}:{task id}:{attempt}`, `flow:{tenant}:{flow id}`,
//! `schedule:{tenant}:{schedule id}`. Identifiers never hold a colon (`[A-Za-z0-9._-]`
//! only), and attempt numbers are written with ten digits (a `u32` has at most ten), so a key
//! splits back into its parts one way only: different resources never share a key, two
//! tenants never share one, and the keys of one resource sort as their identities do (a
//! task's runs in attempt order). [`run_key_prefix`] is what every run key of one task starts
//! with, for a range scan.

use model_ids::{FlowId, ScheduleId, TaskId, TenantId};

/// The key of a task of `tenant`: `task:{tenant}:{id}`.
///
/// ```
/// use model_flow::{run_key, run_key_prefix, task_key};
/// use model_ids::{TaskId, TenantId};
///
/// let acme = TenantId::new("acme")?;
/// let task = TaskId::new("backup.9ix")?;
/// assert_eq!(task_key(&acme, &task), "task:acme:backup.9ix");
/// assert_eq!(run_key(&acme, &task, 3), "run:acme:backup.9ix:0000000003");
/// assert!(run_key(&acme, &task, 3).starts_with(&run_key_prefix(&acme, &task)));
/// # Ok::<(), model_ids::IdError>(())
/// ```
pub fn task_key(tenant: &TenantId, task: &TaskId) -> String {
    format!("task:{tenant}:{task}")
}

/// The key of attempt `attempt` of a task (its `TaskRun`): `run:{tenant}:{task id}:{attempt}`,
/// the attempt in ten digits.
pub fn run_key(tenant: &TenantId, task: &TaskId, attempt: u32) -> String {
    format!("run:{tenant}:{task}:{attempt:010}")
}

/// What the key of every attempt of `task` starts with: `run:{tenant}:{task id}:`.
pub fn run_key_prefix(tenant: &TenantId, task: &TaskId) -> String {
    format!("run:{tenant}:{task}:")
}

/// The key of a flow of `tenant`: `flow:{tenant}:{id}`.
pub fn flow_key(tenant: &TenantId, flow: &FlowId) -> String {
    format!("flow:{tenant}:{flow}")
}

/// The key of a schedule of `tenant`: `schedule:{tenant}:{id}`.
pub fn schedule_key(tenant: &TenantId, schedule: &ScheduleId) -> String {
    format!("schedule:{tenant}:{schedule}")
}

#[cfg(test)]
mod tests;
