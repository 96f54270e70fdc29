//! The restart decision: after an attempt ends, restart it (when), stay final, or exhaust.

use chrono::{DateTime, TimeDelta, Utc};
use model_policy::{BackoffPolicy, RandomSource, RestartPolicy};

use super::{AttemptOutcome, TaskPhase};
use crate::error::TaskError;

/// What happens after an attempt ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestartDecision {
    /// Run another attempt at `at` (= `now + delay_ms`); the task waits in
    /// [`TaskPhase::Pending`] until then.
    Restart {
        /// Which retry this is: the failures in a row it retries (1 after the first
        /// failure, 2 after the second in a row, ...), or 0 when the restart follows a
        /// success (an `always` task) or a newer spec, which spend no retry.
        retry: u32,
        /// The delay in milliseconds: the backoff's after a failure, the interval (or the
        /// backoff's first delay) after a success.
        delay_ms: u64,
        /// When the next attempt may start.
        at: DateTime<Utc>,
    },
    /// No restart: the task stays in this final phase (the outcome's phase).
    Final(TaskPhase),
    /// A restart was due but cannot happen: `max_retries` failures in a row are spent, or
    /// (for a task's attempt, whose status error then says so) the restart time would be
    /// past the last representable time. The task becomes [`TaskPhase::Exhausted`].
    Exhausted,
}

impl RestartDecision {
    /// The phase the task moves to: Pending for a restart, else the final phase.
    pub const fn phase(&self) -> TaskPhase {
        match self {
            Self::Restart { .. } => TaskPhase::Pending,
            Self::Final(phase) => *phase,
            Self::Exhausted => TaskPhase::Exhausted,
        }
    }
}

/// What the restart decision needs to know of the attempts before: a task's status holds
/// it ([`TaskStatus::restart_history`](crate::TaskStatus::restart_history)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RestartHistory {
    /// Attempts run, the one that just ended included (0 counts as 1).
    pub attempts: u32,
    /// Failed (or timed out, or expired) attempts in a row just before the one that ended;
    /// a success starts the count again.
    pub failures_in_a_row: u32,
    /// The delay of the most recent scheduled restart, which decorrelated jitter grows from.
    pub last_delay_ms: Option<u64>,
}

impl RestartHistory {
    /// The history of a first attempt: nothing before it.
    pub const fn first() -> Self {
        Self {
            attempts: 1,
            failures_in_a_row: 0,
            last_delay_ms: None,
        }
    }

    /// Failures in a row once an attempt ended with `outcome`: one more after a failure or
    /// a timeout, none after a success; a cancel leaves the count.
    pub const fn failures_after(&self, outcome: AttemptOutcome) -> u32 {
        match outcome {
            AttemptOutcome::Succeeded => 0,
            AttemptOutcome::Failed | AttemptOutcome::Timeout => {
                self.failures_in_a_row.saturating_add(1)
            }
            AttemptOutcome::Canceled => self.failures_in_a_row,
        }
    }
}

/// How long a restart waits, before any random number is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// The backoff's delay for this retry, grown from this previous delay.
    Backoff { retry: u32, previous: Option<u64> },
    /// A fixed interval (an `always` task's, after a success).
    Interval(u64),
    /// No wait: the restart is due at once (a newer spec waits for its first attempt).
    Now,
}

/// The decision without its timing: what `decide_restart` does before it draws any random
/// number, so that callers can check a transition before consuming randomness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RestartPlan {
    Restart { retry: u32, wait: Wait },
    Final(TaskPhase),
    Exhausted,
}

impl RestartPlan {
    pub(crate) const fn phase(self) -> TaskPhase {
        match self {
            Self::Restart { .. } => TaskPhase::Pending,
            Self::Final(phase) => phase,
            Self::Exhausted => TaskPhase::Exhausted,
        }
    }
}

/// Whether `policy` asks for another attempt after `outcome`. Canceled never restarts;
/// a restart policy this crate does not know yet is treated as `Never`.
pub(crate) fn wants_restart(policy: RestartPolicy, outcome: AttemptOutcome) -> bool {
    match (policy, outcome) {
        (_, AttemptOutcome::Canceled) => false,
        (RestartPolicy::Always { .. }, _) => true,
        (RestartPolicy::OnFailure, AttemptOutcome::Failed | AttemptOutcome::Timeout) => true,
        _ => false,
    }
}

/// The plan after an attempt ended with `outcome`, given `history`.
pub(crate) fn plan(
    policy: RestartPolicy,
    max_retries: Option<u32>,
    outcome: AttemptOutcome,
    history: RestartHistory,
) -> RestartPlan {
    if !wants_restart(policy, outcome) {
        return RestartPlan::Final(outcome.phase());
    }
    // Attempt numbers are u32: after attempt u32::MAX there is no next one.
    if history.attempts == u32::MAX {
        return RestartPlan::Exhausted;
    }
    if outcome == AttemptOutcome::Succeeded {
        // Only `always` restarts after a success, and a success spends no retry.
        let wait = match policy.interval() {
            Some(interval) => Wait::Interval(interval.as_ms()),
            None => Wait::Backoff {
                retry: 1,
                previous: None,
            },
        };
        return RestartPlan::Restart { retry: 0, wait };
    }
    let failures = history.failures_after(outcome);
    if max_retries.is_some_and(|max| failures > max) {
        return RestartPlan::Exhausted;
    }
    // The backoff grows over failures in a row only: after a success it starts again.
    let previous = if history.failures_in_a_row == 0 {
        None
    } else {
        history.last_delay_ms
    };
    RestartPlan::Restart {
        retry: failures,
        wait: Wait::Backoff {
            retry: failures,
            previous,
        },
    }
}

/// Turns a plan into a decision: draws the delay from `backoff` and `rng` (a backoff wait
/// only) and adds it to `now`.
pub(crate) fn time_plan<R: RandomSource + ?Sized>(
    plan: RestartPlan,
    backoff: &BackoffPolicy,
    rng: &mut R,
    now: DateTime<Utc>,
) -> Result<RestartDecision, TaskError> {
    match plan {
        RestartPlan::Final(phase) => Ok(RestartDecision::Final(phase)),
        RestartPlan::Exhausted => Ok(RestartDecision::Exhausted),
        RestartPlan::Restart { retry, wait } => {
            let delay_ms = match wait {
                Wait::Backoff { retry, previous } => backoff.delay_ms(retry, previous, rng),
                Wait::Interval(ms) => ms,
                Wait::Now => 0,
            };
            let at = i64::try_from(delay_ms)
                .ok()
                .and_then(TimeDelta::try_milliseconds)
                .and_then(|delta| now.checked_add_signed(delta))
                .ok_or(TaskError::TimeOverflow { now, delay_ms })?;
            Ok(RestartDecision::Restart {
                retry,
                delay_ms,
                at,
            })
        }
    }
}

/// Decides what follows an attempt that ended with `outcome`.
///
/// - Canceled is always final; `Never` never restarts; `OnFailure` restarts after Failed
///   and Timeout; `Always` after Succeeded, Failed and Timeout.
/// - No restart: [`RestartDecision::Final`] with the outcome's phase.
/// - After a failure (or a timeout) that asks for a restart: `max_retries` bounds the
///   failures in a row. With `f` failures in a row, this one included, the decision is
///   [`RestartDecision::Exhausted`] when `max_retries` is `Some(m)` and `f > m`; otherwise a
///   [`RestartDecision::Restart`] with `retry = f` and the delay
///   `backoff.delay_ms(f, previous, rng)`, `previous` being the last delay when the failure
///   before was one too (decorrelated jitter grows over a run of failures only). `None`
///   means unlimited. For `OnFailure`, whose restarts all follow failures, `f` is the
///   number of attempts run, as before.
/// - After a success of an `Always` task: a restart that spends no retry (`retry = 0`),
///   after the policy's interval, or without one the backoff's first delay. So a
///   recurring task runs for ever whatever `max_retries` says.
/// - After attempt number `u32::MAX` there is none: [`RestartDecision::Exhausted`].
///
/// `at = now + delay`. Random numbers are drawn only for a backoff delay. Fails only with
/// [`TaskError::TimeOverflow`] when `now + delay` is not a representable time.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use model_policy::{BackoffPolicy, JitterPolicy, RestartPolicy, SeededRandom};
/// use model_task::lifecycle::{AttemptOutcome, RestartDecision, RestartHistory, TaskPhase, decide_restart};
///
/// let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
/// let backoff = BackoffPolicy::new(JitterPolicy::None, 1_000, 30_000, 2.0)?;
/// let mut rng = SeededRandom::new(7);
/// // The second failure in a row: retry 2, twice the first delay.
/// let second = RestartHistory { attempts: 2, failures_in_a_row: 1, last_delay_ms: Some(1_000) };
/// let decision = decide_restart(
///     RestartPolicy::OnFailure, Some(3), &backoff, AttemptOutcome::Failed, second, &mut rng, now,
/// )?;
/// assert_eq!(
///     decision,
///     RestartDecision::Restart { retry: 2, delay_ms: 2_000, at: now + chrono::TimeDelta::seconds(2) }
/// );
/// // A periodic task after its 100th success: the interval, and no retry spent.
/// let hourly = RestartPolicy::periodic(3_600_000)?;
/// let later = RestartHistory { attempts: 100, ..RestartHistory::first() };
/// let next = decide_restart(hourly, Some(0), &backoff, AttemptOutcome::Succeeded, later, &mut rng, now)?;
/// assert_eq!(next, RestartDecision::Restart { retry: 0, delay_ms: 3_600_000, at: now + chrono::TimeDelta::hours(1) });
/// let done = decide_restart(
///     RestartPolicy::OnFailure, Some(3), &backoff, AttemptOutcome::Succeeded, second, &mut rng, now,
/// )?;
/// assert_eq!(done, RestartDecision::Final(TaskPhase::Succeeded));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decide_restart<R: RandomSource + ?Sized>(
    policy: RestartPolicy,
    max_retries: Option<u32>,
    backoff: &BackoffPolicy,
    outcome: AttemptOutcome,
    history: RestartHistory,
    rng: &mut R,
    now: DateTime<Utc>,
) -> Result<RestartDecision, TaskError> {
    let plan = plan(policy, max_retries, outcome, history);
    time_plan(plan, backoff, rng, now)
}

#[cfg(test)]
mod tests;
