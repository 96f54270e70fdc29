//! What an action is waiting for (`ActionTrigger`) and where it stands (`ActionStatus`,
//! `ActionState`).

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What makes an action due.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ActionTrigger {
    /// Due at a time a schedule (or a recurrence) chose.
    Scheduled {
        /// When the action becomes due.
        next_tick_at: DateTime<Utc>,
    },
    /// Due as soon as it is stored: a webhook delivered it.
    Webhook {
        /// The request body as it arrived (at most
        /// [`MAX_WEBHOOK_PAYLOAD_BYTES`](crate::MAX_WEBHOOK_PAYLOAD_BYTES)); base64 on the
        /// wire.
        payload: Vec<u8>,
        /// When it arrived; the action is due from then on.
        received_at: DateTime<Utc>,
    },
}

impl ActionTrigger {
    /// The time the action is due from: `nextTickAt` or `receivedAt`. It is the time in the
    /// action's key.
    #[must_use]
    pub fn due_at(&self) -> DateTime<Utc> {
        match self {
            ActionTrigger::Scheduled { next_tick_at } => *next_tick_at,
            ActionTrigger::Webhook { received_at, .. } => *received_at,
        }
    }
}

/// Where an action stands. It only moves Pending → Running → Completed or Failed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ActionStatus {
    /// Waiting to be due and started.
    Pending,
    /// Started; written before the action is dispatched, so a restart never fires it twice.
    Running,
    /// Ended with a result (bounded JSON, at most
    /// [`MAX_ACTION_RESULT_BYTES`](crate::MAX_ACTION_RESULT_BYTES)).
    Completed {
        /// What the action returned.
        result: Value,
    },
    /// Ended with a failure (at most
    /// [`MAX_ACTION_REASON_BYTES`](crate::MAX_ACTION_REASON_BYTES)).
    Failed {
        /// Why.
        reason: String,
    },
}

impl ActionStatus {
    /// The state, without what the final states carry.
    #[must_use]
    pub const fn state(&self) -> ActionState {
        match self {
            ActionStatus::Pending => ActionState::Pending,
            ActionStatus::Running => ActionState::Running,
            ActionStatus::Completed { .. } => ActionState::Completed,
            ActionStatus::Failed { .. } => ActionState::Failed,
        }
    }
}

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
