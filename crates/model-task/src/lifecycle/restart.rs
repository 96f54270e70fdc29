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
        /// The retry number: 1 for the second attempt, 2 for the third, ...
        retry: u32,
        /// The backoff delay in milliseconds.
        delay_ms: u64,
        /// When the next attempt may start.
        at: DateTime<Utc>,
    },
    /// No restart: the task stays in this final phase (the outcome's phase).
    Final(TaskPhase),
    /// A restart was due but cannot happen: `max_retries` are spent, or (for a task's
    /// attempt, whose status error then says so) the restart time would be past the last
    /// representable time. The task becomes [`TaskPhase::Exhausted`].
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

/// The decision without its timing: what `decide_restart` does before it draws any random
/// number, so that callers can check a transition before consuming randomness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RestartPlan {
    Restart { retry: u32 },
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
        (RestartPolicy::Always, _) => true,
        (RestartPolicy::OnFailure, AttemptOutcome::Failed | AttemptOutcome::Timeout) => true,
        _ => false,
    }
}

/// The plan for `attempts_used` attempts (at least 1; 0 counts as 1).
pub(crate) fn plan(
    policy: RestartPolicy,
    max_retries: Option<u32>,
    outcome: AttemptOutcome,
    attempts_used: u32,
) -> RestartPlan {
    if !wants_restart(policy, outcome) {
        return RestartPlan::Final(outcome.phase());
    }
    let attempts_used = attempts_used.max(1);
    let retries_used = attempts_used - 1;
    let budget_left = max_retries.is_none_or(|max| retries_used < max);
    // Attempt numbers are u32: after attempt u32::MAX there is no next one.
    if !budget_left || attempts_used == u32::MAX {
        return RestartPlan::Exhausted;
    }
    RestartPlan::Restart {
        retry: attempts_used,
    }
}

/// Turns a plan into a decision: draws the delay from `backoff` and `rng` and adds it to `now`.
pub(crate) fn time_plan<R: RandomSource + ?Sized>(
    plan: RestartPlan,
    backoff: &BackoffPolicy,
    previous_delay_ms: Option<u64>,
    rng: &mut R,
    now: DateTime<Utc>,
) -> Result<RestartDecision, TaskError> {
    match plan {
        RestartPlan::Final(phase) => Ok(RestartDecision::Final(phase)),
        RestartPlan::Exhausted => Ok(RestartDecision::Exhausted),
        RestartPlan::Restart { retry } => {
            let delay_ms = backoff.delay_ms(retry, previous_delay_ms, rng);
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
/// - A restart is due: with `attempts_used` attempts run (including the one that just
///   ended), `attempts_used - 1` retries are spent; if `max_retries` is `Some(m)` and that
///   reaches `m`, the decision is [`RestartDecision::Exhausted`]. `None` means unlimited
///   (up to attempt number `u32::MAX`). Otherwise the decision is
///   [`RestartDecision::Restart`] with `retry = attempts_used`, a delay from
///   `backoff.delay_ms(retry, previous_delay_ms, rng)` and `at = now + delay`.
///
/// Random numbers are drawn only for a restart. Fails only with [`TaskError::TimeOverflow`]
/// when `now + delay` is not a representable time.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use model_policy::{BackoffPolicy, JitterPolicy, RestartPolicy, SeededRandom};
/// use model_task::lifecycle::{AttemptOutcome, RestartDecision, TaskPhase, decide_restart};
///
/// let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
/// let backoff = BackoffPolicy::new(JitterPolicy::None, 1_000, 30_000, 2.0)?;
/// let mut rng = SeededRandom::new(7);
/// let decision = decide_restart(
///     RestartPolicy::OnFailure, Some(3), &backoff, AttemptOutcome::Failed, 2, None, &mut rng, now,
/// )?;
/// assert_eq!(
///     decision,
///     RestartDecision::Restart { retry: 2, delay_ms: 2_000, at: now + chrono::TimeDelta::seconds(2) }
/// );
/// let done = decide_restart(
///     RestartPolicy::OnFailure, Some(3), &backoff, AttemptOutcome::Succeeded, 2, None, &mut rng, now,
/// )?;
/// assert_eq!(done, RestartDecision::Final(TaskPhase::Succeeded));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[allow(
    clippy::too_many_arguments,
    reason = "each input is a separate, documented fact of the decision"
)]
pub fn decide_restart<R: RandomSource + ?Sized>(
    policy: RestartPolicy,
    max_retries: Option<u32>,
    backoff: &BackoffPolicy,
    outcome: AttemptOutcome,
    attempts_used: u32,
    previous_delay_ms: Option<u64>,
    rng: &mut R,
    now: DateTime<Utc>,
) -> Result<RestartDecision, TaskError> {
    let plan = plan(policy, max_retries, outcome, attempts_used);
    time_plan(plan, backoff, previous_delay_ms, rng, now)
}

#[cfg(test)]
mod tests;
