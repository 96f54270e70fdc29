//! `TaskPhase` and the lifecycle table: which phase may follow which, its checked form,
//! and the phase names.

use std::fmt;
use std::str::FromStr;

use model_ids::text::shorten;
use serde::{Deserialize, Serialize};

use crate::error::TaskError;

/// Where a task is in its lifecycle.
///
/// ```text
///  Pending ──► Running ──► Succeeded | Failed | Timeout | Canceled    (final)
///     │  ▲        │
///     │  └────────┤ attempt ended, restart scheduled: back to Pending, then Running again
///     │           └──► Exhausted   (a restart was due but the retry budget is spent)
///     └──► Canceled
/// ```
///
/// The final phases are Succeeded, Failed, Timeout, Canceled and Exhausted; nothing leaves
/// them. A task whose attempt ended and whose restart policy asks for another attempt does
/// not enter a final phase: it goes back to Pending with the time of the next attempt
/// recorded in its status.
///
/// On the wire in camelCase (`"running"`); `FromStr` also accepts any letter case.
///
/// ```
/// use model_task::TaskPhase;
/// let phase: TaskPhase = "Running".parse()?;
/// assert_eq!(phase.to_string(), "running");
/// assert!(phase.can_become(TaskPhase::Succeeded));
/// assert!(!TaskPhase::Succeeded.can_become(TaskPhase::Running));
/// # Ok::<(), model_task::TaskError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum TaskPhase {
    /// Waiting for its first attempt, or for the next one after a scheduled restart.
    Pending,
    /// An attempt is running.
    Running,
    /// The last attempt succeeded and no restart follows.
    Succeeded,
    /// The last attempt failed and no restart follows.
    Failed,
    /// The last attempt ran out of time and no restart follows.
    Timeout,
    /// Canceled before or during an attempt.
    Canceled,
    /// A restart was due but the retry budget (`maxRetries`) is spent.
    Exhausted,
}

impl TaskPhase {
    /// Every phase, in lifecycle order.
    pub const ALL: [TaskPhase; 7] = [
        Self::Pending,
        Self::Running,
        Self::Succeeded,
        Self::Failed,
        Self::Timeout,
        Self::Canceled,
        Self::Exhausted,
    ];

    /// The wire name (`"pending"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Running => "running",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Timeout => "timeout",
            Self::Canceled => "canceled",
            Self::Exhausted => "exhausted",
        }
    }

    /// Whether nothing can follow this phase.
    pub const fn is_final(self) -> bool {
        matches!(
            self,
            Self::Succeeded | Self::Failed | Self::Timeout | Self::Canceled | Self::Exhausted
        )
    }

    /// The lifecycle table: whether a task in `self` may move to `next`.
    ///
    /// Allowed: Pending to Running (an attempt starts) and to Canceled; Running to
    /// Succeeded, Failed, Timeout or Canceled (an attempt ends, no restart), to Pending
    /// (an attempt ends, restart scheduled) and to Exhausted (restart due, budget spent).
    /// Nothing else, and no phase moves to itself.
    pub const fn can_become(self, next: TaskPhase) -> bool {
        match self {
            Self::Pending => matches!(next, Self::Running | Self::Canceled),
            Self::Running => !matches!(next, Self::Running),
            Self::Succeeded | Self::Failed | Self::Timeout | Self::Canceled | Self::Exhausted => {
                false
            }
        }
    }

    /// `Ok(())` if [`can_become`](Self::can_become), else [`TaskError::InvalidTransition`]
    /// naming both phases.
    pub fn check_transition(self, next: TaskPhase) -> Result<(), TaskError> {
        if self.can_become(next) {
            Ok(())
        } else {
            Err(TaskError::InvalidTransition {
                from: self,
                to: next,
            })
        }
    }
}

impl fmt::Display for TaskPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TaskPhase {
    type Err = TaskError;

    /// Parses the wire name in any letter case; anything else is
    /// [`TaskError::UnknownTaskPhase`].
    fn from_str(s: &str) -> Result<Self, TaskError> {
        Self::ALL
            .into_iter()
            .find(|phase| phase.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| TaskError::UnknownTaskPhase { input: shorten(s) })
    }
}

#[cfg(test)]
mod tests;
