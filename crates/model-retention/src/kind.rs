//! `ResourceKind`: what a resource is, as retention sees it, and which kinds can own others.

use std::fmt;

use serde::{Deserialize, Serialize};

use model_task::task::OwnerKind;

/// What a resource is: an attempt (one run of a task), an action (one firing of a
/// schedule), a task, a flow or a schedule.
///
/// Tasks, flows and schedules can own other resources ([`ResourceKind::can_own`]); a flow
/// owns its jobs' tasks, a schedule the tasks and actions it created, a task its attempts.
/// On the wire in camelCase (`"attempt"`, `"task"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum ResourceKind {
    /// One attempt of a task (model-task's `TaskRun`), owned by its task.
    Attempt,
    /// One firing of a schedule (model-schedule's `Action`), owned by its schedule.
    Action,
    /// A task, owned by the flow or schedule that created it, if any.
    Task,
    /// A flow: a group of tasks, one per job.
    Flow,
    /// A schedule: a task template fired by a trigger.
    Schedule,
}

impl ResourceKind {
    /// Every kind, in the order of the default cleanup priorities (first deleted first).
    pub const ALL: [ResourceKind; 5] = [
        Self::Attempt,
        Self::Action,
        Self::Task,
        Self::Flow,
        Self::Schedule,
    ];

    /// The wire name (`"attempt"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Attempt => "attempt",
            Self::Action => "action",
            Self::Task => "task",
            Self::Flow => "flow",
            Self::Schedule => "schedule",
        }
    }

    /// Whether resources of this kind can own others (an owner reference names a task, a
    /// flow or a schedule).
    pub const fn can_own(self) -> bool {
        matches!(self, Self::Task | Self::Flow | Self::Schedule)
    }

    /// The position of this kind in [`ResourceKind::ALL`].
    pub(crate) const fn index(self) -> usize {
        match self {
            Self::Attempt => 0,
            Self::Action => 1,
            Self::Task => 2,
            Self::Flow => 3,
            Self::Schedule => 4,
        }
    }

    /// The kind an owner reference of `kind` names, or `None` for an owner kind model-task
    /// added after this crate (a view refuses a reference to it rather than guess whether
    /// that owner is still there).
    pub const fn of_owner(kind: OwnerKind) -> Option<Self> {
        match kind {
            OwnerKind::Flow => Some(Self::Flow),
            OwnerKind::Schedule => Some(Self::Schedule),
            OwnerKind::Task => Some(Self::Task),
            _ => None,
        }
    }
}

impl fmt::Display for ResourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
