//! `JobState`, where one job of a running flow is, and `SkipReason`, why a job was skipped.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The state of one job in a [`FlowRun`](crate::FlowRun).
///
/// A job starts `Waiting` (or `Ready` without dependencies), becomes `Ready` when its
/// trigger rule holds, `Running` when the caller starts it, and ends `Succeeded`, `Failed`
/// or `Canceled`; a job that never starts ends `Skipped`, with the reason. The last four
/// are final: nothing changes them.
///
/// ```
/// use model_flow::{JobState, SkipReason};
///
/// assert!(!JobState::Running.is_final());
/// assert!(JobState::Skipped(SkipReason::UpstreamFailed).is_final());
/// assert_eq!(JobState::Skipped(SkipReason::FailFast).to_string(), "skipped (failFast)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JobState {
    /// Its trigger rule is not decided yet: some dependency has still to end.
    Waiting,
    /// Its trigger rule holds: it may start.
    Ready,
    /// Started, and not ended yet (retries of its task included).
    Running,
    /// Ended well.
    Succeeded,
    /// Ended badly, after its last retry.
    Failed,
    /// Never started, for this reason.
    Skipped(SkipReason),
    /// Its task was canceled while it ran.
    Canceled,
}

impl JobState {
    /// Whether nothing can change this state: succeeded, failed, skipped or canceled.
    pub const fn is_final(self) -> bool {
        match self {
            JobState::Succeeded | JobState::Failed | JobState::Skipped(_) | JobState::Canceled => {
                true
            }
            JobState::Waiting | JobState::Ready | JobState::Running => false,
        }
    }

    /// The state's wire name without a skip reason (`"waiting"`, ..., `"skipped"`).
    pub const fn as_str(self) -> &'static str {
        self.name().as_str()
    }

    /// How the job counts for the trigger rules of its dependents, once final.
    pub(crate) const fn upstream(self) -> Option<Upstream> {
        match self {
            JobState::Succeeded => Some(Upstream::Succeeded),
            JobState::Failed
            | JobState::Canceled
            | JobState::Skipped(SkipReason::UpstreamFailed) => Some(Upstream::Failed),
            JobState::Skipped(
                SkipReason::NotTriggered | SkipReason::FailFast | SkipReason::Canceled,
            ) => Some(Upstream::Skipped),
            JobState::Waiting | JobState::Ready | JobState::Running => None,
        }
    }

    /// The state's name on the wire.
    pub(crate) const fn name(self) -> StateName {
        match self {
            JobState::Waiting => StateName::Waiting,
            JobState::Ready => StateName::Ready,
            JobState::Running => StateName::Running,
            JobState::Succeeded => StateName::Succeeded,
            JobState::Failed => StateName::Failed,
            JobState::Skipped(_) => StateName::Skipped,
            JobState::Canceled => StateName::Canceled,
        }
    }

    /// The skip reason, for a skipped job.
    pub const fn skip_reason(self) -> Option<SkipReason> {
        match self {
            JobState::Skipped(reason) => Some(reason),
            JobState::Waiting
            | JobState::Ready
            | JobState::Running
            | JobState::Succeeded
            | JobState::Failed
            | JobState::Canceled => None,
        }
    }
}

impl fmt::Display for JobState {
    /// The wire name, with the reason of a skip in parentheses: `skipped (upstreamFailed)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobState::Skipped(reason) => write!(f, "skipped ({})", reason.as_str()),
            other => f.write_str(other.as_str()),
        }
    }
}

/// Why a job was skipped. On the wire `skipReason`, camelCase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum SkipReason {
    /// Its trigger rule can no longer hold because an upstream job failed (Airflow's
    /// `upstream_failed`); its own dependents count it as failed.
    UpstreamFailed,
    /// Its trigger rule can no longer hold otherwise (upstream jobs were skipped, or, for
    /// `anyFailed`, none failed); its dependents count it as skipped.
    NotTriggered,
    /// A job failed in a [`FailurePolicy::FailFast`](crate::FailurePolicy::FailFast) flow
    /// before this one started.
    FailFast,
    /// The flow was canceled before this job started.
    Canceled,
}

impl SkipReason {
    /// The wire name (`"upstreamFailed"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            SkipReason::UpstreamFailed => "upstreamFailed",
            SkipReason::NotTriggered => "notTriggered",
            SkipReason::FailFast => "failFast",
            SkipReason::Canceled => "canceled",
        }
    }
}

/// How a final job counts for its dependents' trigger rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Upstream {
    Succeeded,
    Failed,
    Skipped,
}

/// The name of a [`JobState`] on the wire (the skip reason is a field of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum StateName {
    Waiting,
    Ready,
    Running,
    Succeeded,
    Failed,
    Skipped,
    Canceled,
}

impl StateName {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            StateName::Waiting => "waiting",
            StateName::Ready => "ready",
            StateName::Running => "running",
            StateName::Succeeded => "succeeded",
            StateName::Failed => "failed",
            StateName::Skipped => "skipped",
            StateName::Canceled => "canceled",
        }
    }
}
