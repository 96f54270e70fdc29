//! The task-only lifecycle: [`Task::begin_attempt`], [`Task::end_attempt`] and
//! [`Task::cancel`], which the attempt methods (`crate::attempt`) build on, and the one
//! place a change is recorded (version, time, conditions).

use chrono::{DateTime, SecondsFormat, Utc};
use model_policy::RandomSource;

use super::{Precondition, Task};
use crate::error::{InvalidReason, TaskError};
use crate::lifecycle::{
    AttemptOutcome, AttemptResult, MAX_STATUS_ERROR_BYTES, RestartDecision, RestartPlan, TaskPhase,
    TaskStatus, Wait, plan, time_plan, truncate_on_char_boundary,
};

impl Task {
    /// Starts the next attempt: Pending to Running, `attempt` + 1, for the spec's current
    /// generation (`status.observedGeneration` becomes `metadata.generation`; a new
    /// generation starts its failures in a row at 0). Returns the new attempt number. When a
    /// restart is scheduled, `now` must not be before `next_attempt_at`
    /// ([`TaskError::RestartNotDue`]).
    pub fn begin_attempt(
        &mut self,
        expected: impl Into<Precondition>,
        now: DateTime<Utc>,
    ) -> Result<u32, TaskError> {
        self.metadata.check(&expected.into())?;
        self.phase().check_transition(TaskPhase::Running)?;
        if let Some(due) = self.status.next_attempt_at
            && now < due
        {
            return Err(TaskError::RestartNotDue { due, now });
        }
        let attempt = self
            .status
            .attempt
            .checked_add(1)
            .ok_or(TaskError::Invalid {
                path: "status.attempt".into(),
                input: None,
                reason: InvalidReason::TooLarge {
                    value: u64::from(u32::MAX),
                    max: u64::from(u32::MAX) - 1,
                },
            })?;
        let version = self.metadata.next_version()?;
        let generation = self.metadata.generation;
        let same_generation = self.status.observed_generation == generation;
        self.status = TaskStatus {
            phase: TaskPhase::Running,
            attempt,
            observed_generation: generation,
            outcome: None,
            exit_code: None,
            error: None,
            next_attempt_at: None,
            last_delay_ms: self.status.last_delay_ms,
            consecutive_failures: if same_generation {
                self.status.consecutive_failures
            } else {
                0
            },
            queued_at: None,
            finished_at: None,
            conditions: self.status.conditions.clone(),
        };
        self.record(version, now);
        Ok(attempt)
    }

    /// Ends the running attempt with `result` and applies the restart decision from the
    /// spec (see [`decide_restart`](crate::lifecycle::decide_restart)): Running to the
    /// outcome's final phase, to Exhausted, or back to Pending with `next_attempt_at` for a
    /// restart. The previous delay and the failures in a row come from the status; random
    /// numbers are drawn only for a backoff delay, after every check has passed. The error
    /// text is cut to [`MAX_STATUS_ERROR_BYTES`] on a character boundary.
    ///
    /// An attempt of an older generation (the spec changed while it ran) is recorded but
    /// decides nothing for the newer one: unless it ended Canceled, the task goes back to
    /// Pending, due at `now` (`Restart { retry: 0, delay_ms: 0 }`), to run the current spec.
    ///
    /// A restart whose time would be past the last representable time cannot happen: the
    /// task ends Exhausted (the decision is [`RestartDecision::Exhausted`]) and its error
    /// says so, in front of the runner's. Only a running attempt ends: on a task in any
    /// other phase every outcome is [`TaskError::InvalidTransition`] (a pending task is
    /// canceled with [`cancel`](Self::cancel)).
    pub fn end_attempt<R: RandomSource + ?Sized>(
        &mut self,
        expected: impl Into<Precondition>,
        result: AttemptResult,
        rng: &mut R,
        now: DateTime<Utc>,
    ) -> Result<RestartDecision, TaskError> {
        self.metadata.check(&expected.into())?;
        let history = self.status.restart_history();
        // The running attempt runs an older spec than the task's now.
        let stale = self.phase() == TaskPhase::Running
            && self.status.observed_generation < self.metadata.generation;
        let plan =
            if stale && result.outcome != AttemptOutcome::Canceled && history.attempts < u32::MAX {
                RestartPlan::Restart {
                    retry: 0,
                    wait: Wait::Now,
                }
            } else {
                plan(
                    self.spec.restart(),
                    self.spec.max_retries(),
                    result.outcome,
                    history,
                )
            };
        self.phase().check_transition(plan.phase())?;
        if self.phase() != TaskPhase::Running {
            // Pending may become Canceled, but by `cancel`: no attempt runs to end.
            return Err(TaskError::InvalidTransition {
                from: self.phase(),
                to: plan.phase(),
            });
        }
        let version = self.metadata.next_version()?;
        // A restart whose time is past the last representable one cannot happen: the task
        // ends Exhausted and says why, rather than stay Running with an attempt that can
        // neither end nor expire.
        let (decision, why) = match time_plan(plan, self.spec.backoff(), rng, now) {
            Ok(decision) => (decision, None),
            Err(TaskError::TimeOverflow { now, delay_ms }) => (
                RestartDecision::Exhausted,
                Some(format!(
                    "exhausted: the restart time is out of range: {} plus {delay_ms} ms",
                    now.to_rfc3339_opts(SecondsFormat::AutoSi, true)
                )),
            ),
            Err(other) => return Err(other),
        };
        let error = match (why, result.error) {
            (Some(why), Some(error)) => Some(format!("{why}; {error}")),
            (why, error) => why.or(error),
        };
        let (phase, next_attempt_at, last_delay_ms) = match decision {
            RestartDecision::Restart { delay_ms, at, .. } => {
                (TaskPhase::Pending, Some(at), Some(delay_ms))
            }
            other => (other.phase(), None, self.status.last_delay_ms),
        };
        let finished_at = self.metadata.updated_at.max(now);
        self.status = TaskStatus {
            phase,
            attempt: self.status.attempt,
            observed_generation: self.status.observed_generation,
            outcome: Some(result.outcome),
            exit_code: result.exit_code,
            error: error.map(|e| truncate_on_char_boundary(e, MAX_STATUS_ERROR_BYTES)),
            next_attempt_at,
            last_delay_ms,
            consecutive_failures: history.failures_after(result.outcome),
            queued_at: next_attempt_at,
            finished_at: phase.is_final().then_some(finished_at),
            conditions: self.status.conditions.clone(),
        };
        self.record(version, now);
        Ok(decision)
    }

    /// Cancels the task: Pending (also while a restart is scheduled) or Running to
    /// Canceled. Canceling a running task ends it at once, with outcome Canceled; a later
    /// result from its runner is rejected because Canceled is final (with runs, as
    /// [`TaskError::Gone`], and [`expire_attempt`](Self::expire_attempt) ends the attempt left behind).
    /// To let the attempt wind down first, use [`cancel_attempt`](Self::cancel_attempt): the attempt
    /// goes to Cancelling and the task ends Canceled when the attempt does.
    pub fn cancel(
        &mut self,
        expected: impl Into<Precondition>,
        now: DateTime<Utc>,
    ) -> Result<(), TaskError> {
        self.metadata.check(&expected.into())?;
        self.phase().check_transition(TaskPhase::Canceled)?;
        let version = self.metadata.next_version()?;
        if self.phase() == TaskPhase::Running {
            self.status.outcome = Some(AttemptOutcome::Canceled);
            self.status.exit_code = None;
            self.status.error = None;
        }
        self.status.phase = TaskPhase::Canceled;
        self.status.next_attempt_at = None;
        self.status.queued_at = None;
        self.status.finished_at = Some(self.metadata.updated_at.max(now));
        self.record(version, now);
        Ok(())
    }

    /// Records a change to the task's current attempt (the pair is one aggregate): the
    /// version goes up by one and `updated_at` moves to `now`. Fails only with
    /// [`TaskError::VersionOverflow`], before anything changes.
    pub(crate) fn touch(&mut self, now: DateTime<Utc>) -> Result<(), TaskError> {
        let version = self.metadata.next_version()?;
        self.record(version, now);
        Ok(())
    }

    /// Records a change made at `now` under `version` (from `next_version`): the version,
    /// `updated_at` (never backwards), and the conditions, which flip at `updated_at`.
    pub(crate) fn record(&mut self, version: u64, now: DateTime<Utc>) {
        self.metadata.touch(version, now);
        let (generation, at) = (self.metadata.generation, self.metadata.updated_at);
        self.status.refresh_conditions(generation, at);
    }
}
