//! `FlowStatus`, the one status a flow shows, rolled up from its jobs' states.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::state::{JobState, SkipReason};

/// The status of a flow as a whole, rolled up from its jobs' states: the seed's
/// `dispatched`, `started`, `error` and `finished`, plus `canceled`. On the wire camelCase.
///
/// The first rule that applies decides:
///
/// | status | when |
/// | --- | --- |
/// | `canceled` | a job was canceled, or skipped because the flow was canceled |
/// | `error` | a job failed (the flow can no longer finish clean, even while other jobs still run) |
/// | `finished` | every job is final: succeeded, or skipped by its rule |
/// | `started` | a job started or ended |
/// | `dispatched` | no job started yet |
///
/// `error` and `canceled` can show while jobs still run (running jobs finish after a
/// failure or a cancel); [`FlowRun::is_done`](crate::FlowRun::is_done) says when every job
/// is final.
///
/// ```
/// use model_flow::{FlowStatus, JobState};
///
/// let states = [JobState::Succeeded, JobState::Running, JobState::Waiting];
/// assert_eq!(FlowStatus::of(states), FlowStatus::Started);
/// assert_eq!(FlowStatus::of([JobState::Succeeded, JobState::Failed]), FlowStatus::Error);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum FlowStatus {
    /// Stored, and no job started yet.
    Dispatched,
    /// Some job started or ended, none failed, and not every job is final.
    Started,
    /// A job failed.
    Error,
    /// Every job is final and none failed or was canceled.
    Finished,
    /// The flow, or one of its jobs, was canceled.
    Canceled,
}

impl FlowStatus {
    /// The status of a flow whose jobs are in `states` (a pure function of the states).
    pub fn of(states: impl IntoIterator<Item = JobState>) -> FlowStatus {
        let mut counts = StateCounts::default();
        for state in states {
            counts.add(state);
        }
        counts.status()
    }

    /// The wire name (`"dispatched"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            FlowStatus::Dispatched => "dispatched",
            FlowStatus::Started => "started",
            FlowStatus::Error => "error",
            FlowStatus::Finished => "finished",
            FlowStatus::Canceled => "canceled",
        }
    }
}

impl fmt::Display for FlowStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// How many jobs are in each state that matters to the roll-up, kept up to date by a
/// flow run so its status costs nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct StateCounts {
    /// Waiting or ready jobs.
    pub(crate) not_started: usize,
    /// Running jobs.
    running: usize,
    /// Failed jobs.
    failed: usize,
    /// Canceled jobs and jobs skipped because the flow was canceled.
    canceled: usize,
    /// Every other final job (succeeded, skipped by a rule or by fail-fast).
    other_final: usize,
}

impl StateCounts {
    pub(crate) fn add(&mut self, state: JobState) {
        *self.slot(state) += 1;
    }

    pub(crate) fn remove(&mut self, state: JobState) {
        let slot = self.slot(state);
        *slot = slot.saturating_sub(1);
    }

    fn slot(&mut self, state: JobState) -> &mut usize {
        match state {
            JobState::Waiting | JobState::Ready => &mut self.not_started,
            JobState::Running => &mut self.running,
            JobState::Failed => &mut self.failed,
            JobState::Canceled | JobState::Skipped(SkipReason::Canceled) => &mut self.canceled,
            JobState::Succeeded
            | JobState::Skipped(
                SkipReason::UpstreamFailed | SkipReason::NotTriggered | SkipReason::FailFast,
            ) => &mut self.other_final,
        }
    }

    /// Whether every job is final.
    pub(crate) const fn all_final(&self) -> bool {
        self.not_started == 0 && self.running == 0
    }

    /// The roll-up; see [`FlowStatus`].
    pub(crate) const fn status(&self) -> FlowStatus {
        if self.canceled > 0 {
            FlowStatus::Canceled
        } else if self.failed > 0 {
            FlowStatus::Error
        } else if self.all_final() {
            FlowStatus::Finished
        } else if self.running > 0 || self.other_final > 0 {
            FlowStatus::Started
        } else {
            FlowStatus::Dispatched
        }
    }
}
