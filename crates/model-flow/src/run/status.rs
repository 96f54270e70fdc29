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
        JobCounts::of(states).status()
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

/// How many jobs of a run are in each state that matters to the roll-up: kept up to date
/// by a [`FlowRun`](crate::FlowRun) so its status costs nothing, and by a store on its
/// flow row, from each [`StateChange`](crate::StateChange), so it never reads every job.
///
/// ```
/// use model_flow::{FlowStatus, JobCounts, JobState};
///
/// let mut counts = JobCounts::of([JobState::Running, JobState::Waiting]);
/// assert_eq!(counts.status(), FlowStatus::Started);
/// counts.change(JobState::Running, JobState::Failed);
/// assert_eq!(counts.status(), FlowStatus::Error);
/// assert!(!counts.all_final());
/// assert_eq!(JobCounts::from_parts(counts.parts()), counts);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct JobCounts {
    /// Waiting or ready jobs.
    not_started: u64,
    /// Running jobs.
    running: u64,
    /// Failed jobs.
    failed: u64,
    /// Canceled jobs and jobs skipped because the flow was canceled.
    canceled: u64,
    /// Every other final job (succeeded, skipped by a rule or by fail-fast).
    other_final: u64,
}

impl JobCounts {
    /// The counts of jobs in `states`.
    pub fn of(states: impl IntoIterator<Item = JobState>) -> Self {
        let mut counts = Self::default();
        for state in states {
            counts.add(state);
        }
        counts
    }

    /// The counts from [`JobCounts::parts`] (as a store reads them back): not started
    /// (waiting or ready), running, failed, canceled (or skipped by a cancel), and every
    /// other final job.
    pub const fn from_parts(parts: [u64; 5]) -> Self {
        let [not_started, running, failed, canceled, other_final] = parts;
        Self {
            not_started,
            running,
            failed,
            canceled,
            other_final,
        }
    }

    /// The five counts, in the order [`JobCounts::from_parts`] takes them.
    pub const fn parts(&self) -> [u64; 5] {
        [
            self.not_started,
            self.running,
            self.failed,
            self.canceled,
            self.other_final,
        ]
    }

    /// Counts one more job in `state`.
    pub fn add(&mut self, state: JobState) {
        let slot = self.slot(state);
        *slot = slot.saturating_add(1);
    }

    /// Counts one job less in `state`.
    pub fn remove(&mut self, state: JobState) {
        let slot = self.slot(state);
        *slot = slot.saturating_sub(1);
    }

    /// Counts a job that moved from `from` to `to`.
    pub fn change(&mut self, from: JobState, to: JobState) {
        self.remove(from);
        self.add(to);
    }

    fn slot(&mut self, state: JobState) -> &mut u64 {
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
    pub const fn all_final(&self) -> bool {
        self.not_started == 0 && self.running == 0
    }

    /// The flow's status, rolled up from the counts; see [`FlowStatus`].
    pub const fn status(&self) -> FlowStatus {
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
