//! The step that moves a run on when a job ends or the run is canceled, over jobs kept
//! anywhere: a [`FlowRun`](crate::FlowRun)'s memory, or a store's rows, one per job.

use model_ids::JobName;
use model_task::{RestartDecision, TaskPhase};

use super::result::JobResult;
use crate::error::FlowError;
use crate::limits::MAX_FLOW_RESULT_BYTES;
use crate::rule::{FailurePolicy, TriggerRule, UpstreamTally};
use crate::state::{JobState, SkipReason};

/// What the step reads and writes of one job: its state, its rule, how many jobs it
/// depends on, and how many of those are final ([`UpstreamTally`]). A store keeps these
/// (with the job's dependents, [`FlowJobs::dependents`]) in the job's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JobRow {
    /// The job's state.
    pub state: JobState,
    /// Its trigger rule (`when`).
    pub rule: TriggerRule,
    /// How many jobs it depends on (`dependsOn`'s length).
    pub dependencies: u32,
    /// How many of those are final, by how they count for its rule.
    pub tally: UpstreamTally,
}

impl JobRow {
    /// A job of a new run: ready without dependencies, waiting otherwise, nothing counted.
    pub const fn new(rule: TriggerRule, dependencies: u32) -> Self {
        Self {
            state: if dependencies == 0 {
                JobState::Ready
            } else {
                JobState::Waiting
            },
            rule,
            dependencies,
            tally: UpstreamTally::new(0, 0, 0),
        }
    }
}

/// The jobs of one run, by position in the flow's `jobs`, as the caller keeps them: the
/// step ([`end_job`], [`cancel_jobs`]) reads and writes only the rows it needs through
/// this. A store implements it over its rows (reading each on first use, writing back
/// the ones changed); [`FlowRun`](crate::FlowRun) over its vectors.
///
/// The caller answers for positions of its own flow; a position out of range is its
/// error to return.
pub trait FlowJobs {
    /// Why a row could not be read or written.
    type Error;

    /// The row of the job at `job`.
    ///
    /// # Errors
    ///
    /// The caller's, when the row cannot be read.
    fn row(&mut self, job: u32) -> Result<JobRow, Self::Error>;

    /// Replaces the row of the job at `job`.
    ///
    /// # Errors
    ///
    /// The caller's, when the row cannot be written.
    fn set_row(&mut self, job: u32, row: JobRow) -> Result<(), Self::Error>;

    /// Appends to `into` the positions of the jobs that depend on the job at `job`, in
    /// declaration order.
    ///
    /// # Errors
    ///
    /// The caller's, when the row cannot be read.
    fn dependents(&mut self, job: u32, into: &mut Vec<u32>) -> Result<(), Self::Error>;

    /// Appends to `into` the positions of the jobs not started (waiting or ready), in
    /// declaration order. Only a fail-fast flow's first failure and a cancel ask.
    ///
    /// # Errors
    ///
    /// The caller's, when the rows cannot be read.
    fn not_started(&mut self, into: &mut Vec<u32>) -> Result<(), Self::Error>;
}

/// One job's state change made by the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StateChange {
    /// The job's position in the flow's `jobs`.
    pub position: u32,
    /// The state before.
    pub from: JobState,
    /// The state after.
    pub to: JobState,
}

/// Checks a report that an attempt of a job's task ended, and says what the job becomes:
/// `Some(state)` when the job ends now, `None` when nothing changes (a restart keeps it
/// running; the same end reported again). `state` is the job's state, `kept` the result
/// it ended with, `result_bytes` the size of the results its flow keeps. This is the
/// check [`FlowRun::end_attempt`](crate::FlowRun::end_attempt) makes, with the same
/// errors; a store that keeps jobs in rows makes it before [`end_job`].
///
/// # Errors
///
/// [`FlowError::NotAnAttemptEnd`], [`FlowError::JobTransition`],
/// [`FlowError::EndConflict`], [`FlowError::TooLong`] (path `result`), as
/// [`FlowRun::end_attempt`](crate::FlowRun::end_attempt) says.
pub fn attempt_end(
    job: &JobName,
    state: JobState,
    kept: Option<&JobResult>,
    decision: &RestartDecision,
    result: Option<&JobResult>,
    result_bytes: usize,
) -> Result<Option<JobState>, FlowError> {
    let target = match decision.phase() {
        TaskPhase::Pending => None,
        TaskPhase::Succeeded => Some(JobState::Succeeded),
        TaskPhase::Failed | TaskPhase::Timeout | TaskPhase::Exhausted => Some(JobState::Failed),
        TaskPhase::Canceled => Some(JobState::Canceled),
        phase => {
            return Err(FlowError::NotAnAttemptEnd {
                job: job.clone(),
                phase,
            });
        }
    };
    if state.is_final() {
        return if Some(state) == target && (result.is_none() || result == kept) {
            Ok(None)
        } else {
            Err(FlowError::EndConflict {
                job: job.clone(),
                state,
            })
        };
    }
    if state != JobState::Running {
        return Err(FlowError::JobTransition {
            job: job.clone(),
            from: state,
            to: target.unwrap_or(JobState::Running),
        });
    }
    if let (Some(_), Some(result)) = (target, result) {
        let total = result_bytes.saturating_add(result.byte_len());
        if total > MAX_FLOW_RESULT_BYTES {
            return Err(FlowError::TooLong {
                path: "result".into(),
                len: total,
                max: MAX_FLOW_RESULT_BYTES,
            });
        }
    }
    Ok(target)
}

/// Moves a run on after the running job at `job` ended in `to` (a final state, as
/// [`attempt_end`] says): the job's dependents count its end, each waiting one whose rule
/// is now decided ([`TriggerRule::decide`]) becomes ready or is skipped, and a skip is
/// counted by its own dependents in turn, breadth first, each job's dependents in
/// declaration order. The first failure (failed or canceled) of a
/// [`FailurePolicy::FailFast`] flow (`failure_seen` false: no job failed or was canceled
/// before) first skips every job not started whose rule asks for success.
///
/// Returns the changes in the order made. It reads and writes the ended job's row and its
/// dependents', plus the rows a skip reaches (each job at most once as it becomes final),
/// never the whole flow, except for a fail-fast flow's first failure, which reads the jobs
/// not started. [`FlowRun::end_attempt`](crate::FlowRun::end_attempt) is this step over
/// its memory, so the two always agree.
///
/// ```
/// use std::convert::Infallible;
/// use model_flow::{end_job, FailurePolicy, FlowJobs, JobRow, JobState, TriggerRule};
///
/// // a -> b: rows in a vector, dependents by position.
/// struct Rows(Vec<JobRow>, Vec<Vec<u32>>);
/// impl FlowJobs for Rows {
///     type Error = Infallible;
///     fn row(&mut self, job: u32) -> Result<JobRow, Infallible> { Ok(self.0[job as usize]) }
///     fn set_row(&mut self, job: u32, row: JobRow) -> Result<(), Infallible> {
///         self.0[job as usize] = row;
///         Ok(())
///     }
///     fn dependents(&mut self, job: u32, into: &mut Vec<u32>) -> Result<(), Infallible> {
///         into.extend(&self.1[job as usize]);
///         Ok(())
///     }
///     fn not_started(&mut self, into: &mut Vec<u32>) -> Result<(), Infallible> {
///         into.extend((0..self.0.len() as u32).filter(|&i| {
///             matches!(self.0[i as usize].state, JobState::Waiting | JobState::Ready)
///         }));
///         Ok(())
///     }
/// }
/// let mut a = JobRow::new(TriggerRule::AllSucceeded, 0);
/// a.state = JobState::Running;
/// let mut rows = Rows(vec![a, JobRow::new(TriggerRule::AllSucceeded, 1)], vec![vec![1], vec![]]);
/// let changes = end_job(&mut rows, 0, JobState::Succeeded, FailurePolicy::FailFast, false)?;
/// assert_eq!(changes.len(), 2);
/// assert_eq!(rows.0[1].state, JobState::Ready);
/// # Ok::<(), Infallible>(())
/// ```
///
/// # Errors
///
/// The caller's, when a row cannot be read or written.
pub fn end_job<J: FlowJobs + ?Sized>(
    jobs: &mut J,
    job: u32,
    to: JobState,
    policy: FailurePolicy,
    failure_seen: bool,
) -> Result<Vec<StateChange>, J::Error> {
    let mut step = Step::default();
    step.finish(jobs, job, to)?;
    let failure = matches!(to, JobState::Failed | JobState::Canceled);
    if failure && policy == FailurePolicy::FailFast && !failure_seen {
        let mut waiting = Vec::new();
        jobs.not_started(&mut waiting)?;
        for i in waiting {
            let row = jobs.row(i)?;
            if matches!(row.state, JobState::Waiting | JobState::Ready) && row.rule.wants_success()
            {
                step.finish(jobs, i, JobState::Skipped(SkipReason::FailFast))?;
            }
        }
    }
    step.settle(jobs)?;
    Ok(step.changes)
}

/// Cancels a run: every job not started is skipped ([`SkipReason::Canceled`]), and the
/// skips are counted by their dependents (which, all skipped too, decide nothing more).
/// Running jobs are the caller's to cancel (each one's end then goes through
/// [`end_job`]). [`FlowRun::cancel`](crate::FlowRun::cancel) is this step over its memory.
///
/// # Errors
///
/// The caller's, when a row cannot be read or written.
pub fn cancel_jobs<J: FlowJobs + ?Sized>(jobs: &mut J) -> Result<Vec<StateChange>, J::Error> {
    let mut step = Step::default();
    let mut waiting = Vec::new();
    jobs.not_started(&mut waiting)?;
    for i in waiting {
        if matches!(jobs.row(i)?.state, JobState::Waiting | JobState::Ready) {
            step.finish(jobs, i, JobState::Skipped(SkipReason::Canceled))?;
        }
    }
    step.settle(jobs)?;
    Ok(step.changes)
}

/// One step's work: the jobs that became final and whose dependents are still to decide,
/// and the changes made.
#[derive(Default)]
struct Step {
    ended: Vec<u32>,
    changes: Vec<StateChange>,
    dependents: Vec<u32>,
}

impl Step {
    /// Moves job `job` to the final state `to`, counts it in its dependents' tallies, and
    /// queues it for [`Step::settle`].
    fn finish<J: FlowJobs + ?Sized>(
        &mut self,
        jobs: &mut J,
        job: u32,
        to: JobState,
    ) -> Result<(), J::Error> {
        self.set(jobs, job, to)?;
        self.dependents.clear();
        jobs.dependents(job, &mut self.dependents)?;
        for &d in &self.dependents {
            let mut row = jobs.row(d)?;
            row.tally.add(to);
            jobs.set_row(d, row)?;
        }
        self.ended.push(job);
        Ok(())
    }

    /// Moves job `job` to `to` and records the change.
    fn set<J: FlowJobs + ?Sized>(
        &mut self,
        jobs: &mut J,
        job: u32,
        to: JobState,
    ) -> Result<(), J::Error> {
        let mut row = jobs.row(job)?;
        let from = row.state;
        row.state = to;
        jobs.set_row(job, row)?;
        self.changes.push(StateChange {
            position: job,
            from,
            to,
        });
        Ok(())
    }

    /// Decides the waiting dependents of each queued job, breadth first: a dependent whose
    /// rule is now decided becomes ready, or is skipped and queued in turn. Each job is
    /// queued once, when it becomes final, so the loop ends.
    fn settle<J: FlowJobs + ?Sized>(&mut self, jobs: &mut J) -> Result<(), J::Error> {
        let mut next = 0;
        let mut dependents = Vec::new();
        while let Some(&job) = self.ended.get(next) {
            next += 1;
            dependents.clear();
            jobs.dependents(job, &mut dependents)?;
            for &d in &dependents {
                let row = jobs.row(d)?;
                if row.state != JobState::Waiting {
                    continue;
                }
                match row.rule.decide(row.tally, row.dependencies) {
                    None => {}
                    Some(JobState::Ready) => self.set(jobs, d, JobState::Ready)?,
                    Some(skipped) => self.finish(jobs, d, skipped)?,
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
