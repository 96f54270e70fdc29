//! `AttemptState`, the state machine of one attempt, and `GoneReason`, why a runner call
//! is gone.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::lifecycle::AttemptOutcome;

/// The state of one attempt ([`TaskRun`](crate::TaskRun)); `docs/attempts.md` gives the rules.
///
/// ```text
/// Leased ──start──► Running ──result──► Succeeded | Failed | Timeout | Canceled   (final)
///   │                  │
///   └──cancel──► Cancelling ◄──cancel──┘
///                  └──result Canceled or lease expiry──► Canceled                 (final)
/// Leased | Running ──lease expiry──► Expired                                      (final)
/// ```
///
/// Leased, Running and Cancelling are active: the runner holding the lease may call in.
/// The final states never change. On the wire in camelCase (`"cancelling"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum AttemptState {
    /// A runner holds the lease and has not started yet.
    Leased,
    /// The runner started the attempt.
    Running,
    /// Cancel was requested; the attempt can only end Canceled.
    Cancelling,
    /// The runner reported success.
    Succeeded,
    /// The runner reported failure.
    Failed,
    /// The runner reported that the attempt ran past its timeout.
    Timeout,
    /// The runner reported a cancel, or the lease of a cancelling attempt expired.
    Canceled,
    /// The lease expired before a result came in.
    Expired,
}

impl AttemptState {
    /// Every state, in lifecycle order.
    pub const ALL: [AttemptState; 8] = [
        Self::Leased,
        Self::Running,
        Self::Cancelling,
        Self::Succeeded,
        Self::Failed,
        Self::Timeout,
        Self::Canceled,
        Self::Expired,
    ];

    /// The wire name (`"leased"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Leased => "leased",
            Self::Running => "running",
            Self::Cancelling => "cancelling",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Timeout => "timeout",
            Self::Canceled => "canceled",
            Self::Expired => "expired",
        }
    }

    /// Whether the attempt has ended; a final state never changes.
    pub const fn is_final(self) -> bool {
        !self.is_active()
    }

    /// Whether the attempt holds a live lease (Leased, Running or Cancelling).
    pub const fn is_active(self) -> bool {
        matches!(self, Self::Leased | Self::Running | Self::Cancelling)
    }

    /// The final state a reported outcome leads to.
    pub const fn of_outcome(outcome: AttemptOutcome) -> Self {
        match outcome {
            AttemptOutcome::Succeeded => Self::Succeeded,
            AttemptOutcome::Failed => Self::Failed,
            AttemptOutcome::Timeout => Self::Timeout,
            AttemptOutcome::Canceled => Self::Canceled,
        }
    }

    /// The reported outcome this final state records; `None` for the active states and for
    /// Expired (no result came in).
    pub const fn outcome(self) -> Option<AttemptOutcome> {
        match self {
            Self::Succeeded => Some(AttemptOutcome::Succeeded),
            Self::Failed => Some(AttemptOutcome::Failed),
            Self::Timeout => Some(AttemptOutcome::Timeout),
            Self::Canceled => Some(AttemptOutcome::Canceled),
            Self::Leased | Self::Running | Self::Cancelling | Self::Expired => None,
        }
    }
}

impl fmt::Display for AttemptState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a runner call that names a lease is rejected as gone
/// ([`TaskError::Gone`](crate::TaskError::Gone)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GoneReason {
    /// The lease is not the attempt's lease: stale (an earlier lease) or unknown.
    NotCurrentLease,
    /// The lease's expiry time has passed (the attempt may not be marked Expired yet).
    LeaseExpired,
    /// The attempt has ended, so its lease is released.
    AttemptEnded,
    /// The task has ended (it was canceled at once), so its attempt's lease is void.
    TaskEnded,
}

impl fmt::Display for GoneReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NotCurrentLease => "the lease is not the attempt's current lease",
            Self::LeaseExpired => "the lease has expired",
            Self::AttemptEnded => "the attempt has ended",
            Self::TaskEnded => "the task has ended",
        })
    }
}
