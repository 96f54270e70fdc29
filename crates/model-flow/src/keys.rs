//! Canonical storage keys: one function per resource, so every store names a task, an
//! attempt, a flow and a schedule the same way.
//!
//! A key is the resource's kind, a colon, and its identity: `task:{task id}`,
//! `run:{task id}:{attempt}`, `flow:{flow id}`, `schedule:{schedule id}`. Identifiers never
//! hold a colon (`[A-Za-z0-9._-]` only), and attempt numbers are written with ten digits
//! (a `u32` has at most ten), so a key splits back into its parts one way only: different
//! resources never share a key, and the keys of one resource sort as their identities do
//! (a task's runs in attempt order). [`run_key_prefix`] is what every run key of one task
//! starts with, for a range scan.

use model_ids::{FlowId, ScheduleId, TaskId};

/// The key of a task: `task:{id}`.
///
/// ```
/// use model_flow::{run_key, run_key_prefix, task_key};
/// use model_ids::TaskId;
///
/// let task = TaskId::new("backup.9ix")?;
/// assert_eq!(task_key(&task), "task:backup.9ix");
/// assert_eq!(run_key(&task, 3), "run:backup.9ix:0000000003");
/// assert!(run_key(&task, 3).starts_with(&run_key_prefix(&task)));
/// # Ok::<(), model_ids::IdError>(())
/// ```
pub fn task_key(task: &TaskId) -> String {
    format!("task:{task}")
}

/// The key of attempt `attempt` of a task (its `TaskRun`): `run:{task id}:{attempt}`, the
/// attempt in ten digits.
pub fn run_key(task: &TaskId, attempt: u32) -> String {
    format!("run:{task}:{attempt:010}")
}

/// What the key of every attempt of `task` starts with: `run:{task id}:`.
pub fn run_key_prefix(task: &TaskId) -> String {
    format!("run:{task}:")
}

/// The key of a flow: `flow:{id}`.
pub fn flow_key(flow: &FlowId) -> String {
    format!("flow:{flow}")
}

/// The key of a schedule: `schedule:{id}`.
pub fn schedule_key(schedule: &ScheduleId) -> String {
    format!("schedule:{schedule}")
}

#[cfg(test)]
mod tests;
