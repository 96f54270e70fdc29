//! Admission: what to do with a new task when its slot may already hold an active one.

use model_ids::TaskId;
use model_policy::AdmissionPolicy;

use super::Task;

/// What to do with a newly submitted task.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AdmissionDecision {
    /// The slot is free: start the new task.
    Start,
    /// The slot is busy and the policy is `DropIfRunning`: do not run the new task.
    Drop,
    /// The slot is busy and the policy is `Replace`: cancel this task, then start the new one.
    Replace(TaskId),
    /// The slot is busy and the policy is `Queue`: start the new task when the slot frees.
    Queue,
}

/// Decides admission of a new task with `policy`, given the slot's active task, if any.
///
/// A task occupies its slot while its phase is not final (Pending, including a task waiting
/// for a scheduled restart, or Running); a task in a final phase counts as no task. A free
/// slot always gives [`AdmissionDecision::Start`]. An admission policy this crate does not
/// know yet is treated as `DropIfRunning`, which never runs two tasks in one slot.
///
/// ```
/// use model_policy::AdmissionPolicy;
/// use model_task::task::{AdmissionDecision, admit};
/// assert_eq!(admit(None, AdmissionPolicy::Queue), AdmissionDecision::Start);
/// ```
pub fn admit(active: Option<&Task>, policy: AdmissionPolicy) -> AdmissionDecision {
    let Some(active) = active.filter(|task| !task.phase().is_final()) else {
        return AdmissionDecision::Start;
    };
    match policy {
        AdmissionPolicy::Replace => AdmissionDecision::Replace(active.id().clone()),
        AdmissionPolicy::Queue => AdmissionDecision::Queue,
        _ => AdmissionDecision::Drop,
    }
}
