//! `ActionState`: where an action stands, without what its final states carry.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The state of an action, without what its final states carry: what a refused status
/// change names, and the `state` field on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ActionState {
    /// Waiting to be due and started.
    Pending,
    /// Started: written before the action is dispatched.
    Running,
    /// Ended with a result.
    Completed,
    /// Ended with a failure reason.
    Failed,
}

impl ActionState {
    /// The wire name: `pending`, `running`, `completed` or `failed`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ActionState::Pending => "pending",
            ActionState::Running => "running",
            ActionState::Completed => "completed",
            ActionState::Failed => "failed",
        }
    }

    /// Whether the state is final (completed or failed).
    #[must_use]
    pub const fn is_final(self) -> bool {
        matches!(self, ActionState::Completed | ActionState::Failed)
    }
}

impl fmt::Display for ActionState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}
