//! What an action is waiting for (`ActionTrigger`) and where it stands (`ActionStatus`).

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::state::ActionState;

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
