//! `TaskStatus`, the observed state of a task, and `AttemptOutcome`, how an attempt ended.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::condition::{
    Condition, ConditionType, Conditions, ConditionsRaw, Facts, read_conditions,
};
use super::{RestartHistory, TaskPhase};
use crate::error::{InvalidReason, TaskError, broken_rule};

/// Most bytes of the error text in a task status (and in an attempt's record), 32 KiB,
/// Kubernetes' bound on a condition message: room for a stack trace or the tail of a
/// command's output. A runner's longer text is cut on a character boundary.
pub const MAX_STATUS_ERROR_BYTES: usize = 32 * 1024;

/// How one attempt ended, as its runner reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum AttemptOutcome {
    /// The attempt finished with success.
    Succeeded,
    /// The attempt finished with failure.
    Failed,
    /// The attempt ran past its [`Timeout`](crate::spec::Timeout).
    Timeout,
    /// The attempt was canceled.
    Canceled,
}

impl AttemptOutcome {
    /// Every outcome.
    pub const ALL: [AttemptOutcome; 4] =
        [Self::Succeeded, Self::Failed, Self::Timeout, Self::Canceled];

    /// The final phase of a task whose attempt ended this way and is not restarted.
    pub const fn phase(self) -> TaskPhase {
        match self {
            Self::Succeeded => TaskPhase::Succeeded,
            Self::Failed => TaskPhase::Failed,
            Self::Timeout => TaskPhase::Timeout,
            Self::Canceled => TaskPhase::Canceled,
        }
    }
}

/// What a runner reports when an attempt ends: the outcome, the exit code and an error text.
///
/// ```
/// use model_task::{AttemptOutcome, AttemptResult};
/// let result = AttemptResult::new(AttemptOutcome::Failed).with_exit_code(2).with_error("disk full");
/// assert_eq!(result.exit_code, Some(2));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptResult {
    /// How the attempt ended.
    pub outcome: AttemptOutcome,
    /// The process exit code, when there is one.
    pub exit_code: Option<i32>,
    /// An error text; cut to [`MAX_STATUS_ERROR_BYTES`] on a character boundary when stored.
    pub error: Option<String>,
}

impl AttemptResult {
    /// A result with just an outcome.
    pub const fn new(outcome: AttemptOutcome) -> Self {
        Self {
            outcome,
            exit_code: None,
            error: None,
        }
    }

    /// The same result with an exit code.
    #[must_use]
    pub fn with_exit_code(self, exit_code: i32) -> Self {
        Self {
            exit_code: Some(exit_code),
            ..self
        }
    }

    /// The same result with an error text.
    #[must_use]
    pub fn with_error(self, error: impl Into<String>) -> Self {
        Self {
            error: Some(error.into()),
            ..self
        }
    }
}

/// The observed state of a task. Only [`Task`](crate::Task)'s methods change it.
///
/// `attempt` counts the attempts started (0 before the first). `outcome`, `exit_code` and
/// `error` describe attempt number `attempt` once it has ended; they are cleared when the
/// next attempt starts. `next_attempt_at` is set exactly while the task waits in Pending for
/// a scheduled restart. `last_delay_ms` is the delay of the most recent scheduled restart,
/// which decorrelated jitter needs for the next one.
///
/// `consecutive_failures` counts the failed, timed-out or expired attempts in a row up to the
/// last one that ended (a success starts it again): `maxRetries` bounds it, so the retry
/// budget is spent by failures only (`docs/attempts.md`, "Retries and the exhausted state").
///
/// `queued_at` is set exactly while the task is Pending, that is, in the queue: its
/// creation time, or for a restart the time the restart is due (`next_attempt_at`), so a
/// task is due exactly when `queued_at <= now` and the queue order of `docs/attempts.md`
/// ("Queue order") reads one field. `finished_at` is set exactly in a final phase: when the
/// task reached it.
///
/// On the wire (camelCase, absent fields omitted):
/// `{"phase": "pending", "attempt": 1, "outcome": "failed", "exitCode": 1,
///   "nextAttemptAt": "2025-01-01T00:00:01Z", "lastDelayMs": 1000,
///   "queuedAt": "2025-01-01T00:00:01Z"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "TaskStatusRaw")]
pub struct TaskStatus {
    pub(crate) phase: TaskPhase,
    pub(crate) attempt: u32,
    #[serde(skip_serializing_if = "is_zero_generation")]
    pub(crate) observed_generation: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) outcome: Option<AttemptOutcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::time::write_option"
    )]
    pub(crate) next_attempt_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last_delay_ms: Option<u64>,
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) consecutive_failures: u32,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::time::write_option"
    )]
    pub(crate) queued_at: Option<DateTime<Utc>>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::time::write_option"
    )]
    pub(crate) finished_at: Option<DateTime<Utc>>,
    pub(crate) conditions: Conditions,
}

impl TaskStatus {
    /// A new task's status: Pending since `now`, no attempt yet, its conditions set at `now`
    /// for a spec of `generation`.
    pub(crate) fn queued(now: DateTime<Utc>, generation: u64) -> Self {
        let facts = Facts {
            phase: TaskPhase::Pending,
            attempt: 0,
            observed_generation: 0,
            generation,
            queued_at: Some(now),
        };
        Self {
            phase: TaskPhase::Pending,
            attempt: 0,
            observed_generation: 0,
            conditions: Conditions::new(&facts, now),
            outcome: None,
            exit_code: None,
            error: None,
            next_attempt_at: None,
            last_delay_ms: None,
            consecutive_failures: 0,
            queued_at: Some(now),
            finished_at: None,
        }
    }

    /// The phase.
    pub const fn phase(&self) -> TaskPhase {
        self.phase
    }

    /// Attempts started so far (0 before the first).
    pub const fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The generation of the spec the current (or last) attempt runs (0 before the first):
    /// below `metadata.generation` when the spec changed since.
    pub const fn observed_generation(&self) -> u64 {
        self.observed_generation
    }

    /// The conditions, `Scheduled`, `Running` and `Succeeded` in that order
    /// (`docs/attempts.md`, "Conditions").
    pub fn conditions(&self) -> [&Condition; 3] {
        self.conditions.as_array()
    }

    /// The condition of `kind`.
    pub fn condition(&self, kind: ConditionType) -> &Condition {
        let [scheduled, running, succeeded] = self.conditions.as_array();
        match kind {
            ConditionType::Scheduled => scheduled,
            ConditionType::Running => running,
            ConditionType::Succeeded => succeeded,
        }
    }

    /// What the conditions are worked out from, with the spec at `generation`.
    pub(crate) const fn facts(&self, generation: u64) -> Facts {
        Facts {
            phase: self.phase,
            attempt: self.attempt,
            observed_generation: self.observed_generation,
            generation,
            queued_at: self.queued_at,
        }
    }

    /// Works the conditions out again after a change made `at`, with the spec at
    /// `generation` (see [`Conditions::refresh`]).
    pub(crate) fn refresh_conditions(&mut self, generation: u64, at: DateTime<Utc>) {
        let facts = self.facts(generation);
        self.conditions.refresh(&facts, at);
    }

    /// How attempt number [`attempt`](Self::attempt) ended, once it has.
    pub const fn outcome(&self) -> Option<AttemptOutcome> {
        self.outcome
    }

    /// Exit code of the ended attempt, when it had one.
    pub const fn exit_code(&self) -> Option<i32> {
        self.exit_code
    }

    /// Error text of the ended attempt (at most [`MAX_STATUS_ERROR_BYTES`] bytes).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// When the next attempt may start, while a restart is scheduled.
    pub const fn next_attempt_at(&self) -> Option<DateTime<Utc>> {
        self.next_attempt_at
    }

    /// Delay of the most recent scheduled restart, in milliseconds.
    pub const fn last_delay_ms(&self) -> Option<u64> {
        self.last_delay_ms
    }

    /// Failed attempts in a row up to the last one that ended; a success starts the count
    /// again.
    pub const fn consecutive_failures(&self) -> u32 {
        self.consecutive_failures
    }

    /// What the restart decision for the current attempt needs: the attempts run, the
    /// failures in a row before it, and the last delay.
    pub const fn restart_history(&self) -> RestartHistory {
        RestartHistory {
            attempts: self.attempt,
            failures_in_a_row: self.consecutive_failures,
            last_delay_ms: self.last_delay_ms,
        }
    }

    /// While the task is Pending (in the queue): since when it may be leased, its creation
    /// time or the time its restart is due. The queue orders tasks by it
    /// (`docs/attempts.md`, "Queue order"); a task is due when it is at or before `now`.
    pub const fn queued_at(&self) -> Option<DateTime<Utc>> {
        self.queued_at
    }

    /// In a final phase: when the task reached it.
    pub const fn finished_at(&self) -> Option<DateTime<Utc>> {
        self.finished_at
    }

    /// Whether the task is Pending and due at `now`: it may be leased.
    pub fn is_due(&self, now: DateTime<Utc>) -> bool {
        self.queued_at.is_some_and(|queued| queued <= now)
    }

    /// Checks that the fields agree with each other, so that a status reads only when the
    /// lifecycle can produce it; paths are relative to the status.
    pub(crate) fn check(&self) -> Result<(), TaskError> {
        check_error_text(self.error.as_deref())?;
        let ended = self.outcome.is_some();
        if !ended && (self.exit_code.is_some() || self.error.is_some()) {
            return broken_rule("outcome", "exitCode and error need an outcome");
        }
        if self.attempt == 0 && ended {
            return broken_rule("outcome", "no attempt has started");
        }
        let waiting = self.phase == TaskPhase::Pending && self.attempt > 0;
        if self.next_attempt_at.is_some() != waiting {
            return broken_rule("nextAttemptAt", "set exactly when pending after an attempt");
        }
        // A delay is recorded when a restart is scheduled: while a task waits after attempt
        // 1, from attempt 2 on, or when it was canceled while it waited after attempt 1 (its
        // outcome is then attempt 1's, never Canceled).
        let canceled_waiting = self.phase == TaskPhase::Canceled
            && self.attempt == 1
            && self.outcome.is_some_and(|o| o != AttemptOutcome::Canceled);
        let restarted = waiting || self.attempt >= 2 || canceled_waiting;
        if self.last_delay_ms.is_some() && !restarted {
            return broken_rule("lastDelayMs", "no restart was scheduled");
        }
        if (self.attempt == 0) != (self.observed_generation == 0) {
            return broken_rule(
                "observedGeneration",
                "set from the first attempt on, the generation that attempt runs",
            );
        }
        // Running and Succeeded follow the phase; Scheduled needs the task's generation.
        let facts = self.facts(self.observed_generation);
        self.conditions
            .check(
                &[ConditionType::Running, ConditionType::Succeeded],
                &facts,
                DateTime::<Utc>::MIN_UTC,
                DateTime::<Utc>::MAX_UTC,
            )
            .map_err(|e| e.at("conditions"))?;
        if self.queued_at.is_some() != (self.phase == TaskPhase::Pending) {
            return broken_rule("queuedAt", "set exactly while pending");
        }
        if self.next_attempt_at.is_some() && self.queued_at != self.next_attempt_at {
            return broken_rule("queuedAt", "a restart is queued at nextAttemptAt");
        }
        if self.finished_at.is_some() != self.phase.is_final() {
            return broken_rule("finishedAt", "set exactly in a final phase");
        }
        self.check_phase()?;
        self.check_failures()
    }

    /// Checks what each phase needs of the attempt and its outcome.
    fn check_phase(&self) -> Result<(), TaskError> {
        let ended = self.outcome.is_some();
        match self.phase {
            TaskPhase::Pending if self.attempt == u32::MAX => {
                broken_rule("attempt", "pending with the last possible attempt number")
            }
            TaskPhase::Pending if (self.attempt > 0) != ended => broken_rule(
                "outcome",
                "pending after an attempt needs its outcome, before none",
            ),
            TaskPhase::Pending if self.outcome == Some(AttemptOutcome::Canceled) => {
                broken_rule("outcome", "a canceled attempt is never restarted")
            }
            TaskPhase::Running if self.attempt == 0 => {
                broken_rule("attempt", "running needs attempt >= 1")
            }
            TaskPhase::Running if ended => broken_rule("outcome", "running has no outcome yet"),
            TaskPhase::Succeeded | TaskPhase::Failed | TaskPhase::Timeout
                if self.outcome.map(AttemptOutcome::phase) != Some(self.phase) =>
            {
                broken_rule(
                    "outcome",
                    "a final attempt phase needs the matching outcome",
                )
            }
            TaskPhase::Exhausted if self.attempt == 0 || !ended => {
                broken_rule("outcome", "exhausted needs an ended attempt")
            }
            TaskPhase::Exhausted if self.outcome == Some(AttemptOutcome::Canceled) => {
                broken_rule("outcome", "a canceled attempt never exhausts the budget")
            }
            TaskPhase::Canceled if self.attempt > 0 && !ended => broken_rule(
                "outcome",
                "a canceled task that ran has its last attempt's outcome",
            ),
            _ => Ok(()),
        }
    }
}

impl TaskStatus {
    /// Checks `consecutiveFailures` against the attempts and the outcome: never more than
    /// the attempts that ended, none after a success, at least one after a failure.
    fn check_failures(&self) -> Result<(), TaskError> {
        let ended = if self.phase == TaskPhase::Running {
            self.attempt.saturating_sub(1)
        } else {
            self.attempt
        };
        if self.consecutive_failures > ended {
            return broken_rule(
                "consecutiveFailures",
                "more failures in a row than attempts that ended",
            );
        }
        match self.outcome {
            Some(AttemptOutcome::Succeeded) if self.consecutive_failures > 0 => {
                broken_rule("consecutiveFailures", "a success starts the count again")
            }
            Some(AttemptOutcome::Failed | AttemptOutcome::Timeout)
                if self.consecutive_failures == 0 =>
            {
                broken_rule("consecutiveFailures", "a failure counts")
            }
            _ => Ok(()),
        }
    }
}

/// Whether a generation is zero (no attempt yet), left out on the wire.
#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
const fn is_zero_generation(generation: &u64) -> bool {
    *generation == 0
}

/// Whether a count is zero, left out on the wire.
#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
const fn is_zero(count: &u32) -> bool {
    *count == 0
}

/// Checks a stored error text (a status's or an attempt's `error` field): at most
/// [`MAX_STATUS_ERROR_BYTES`] bytes.
pub(crate) fn check_error_text(error: Option<&str>) -> Result<(), TaskError> {
    match error {
        Some(error) if error.len() > MAX_STATUS_ERROR_BYTES => Err(TaskError::invalid(
            "error",
            InvalidReason::TooLong {
                len: error.len(),
                max: MAX_STATUS_ERROR_BYTES,
            },
        )),
        _ => Ok(()),
    }
}

/// Cuts `text` to at most `max` bytes on a character boundary.
pub(crate) fn truncate_on_char_boundary(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut cut = max;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}

/// The wire form of [`TaskStatus`], unvalidated.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TaskStatusRaw {
    phase: TaskPhase,
    attempt: u32,
    #[serde(default)]
    observed_generation: Option<u64>,
    #[serde(default)]
    outcome: Option<AttemptOutcome>,
    #[serde(default)]
    exit_code: Option<i32>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default, deserialize_with = "crate::time::read_option")]
    next_attempt_at: Option<DateTime<Utc>>,
    #[serde(default)]
    last_delay_ms: Option<u64>,
    #[serde(default)]
    consecutive_failures: Option<u32>,
    #[serde(default, deserialize_with = "crate::time::read_option")]
    queued_at: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "crate::time::read_option")]
    finished_at: Option<DateTime<Utc>>,
    conditions: ConditionsRaw,
}

impl TryFrom<TaskStatusRaw> for TaskStatus {
    type Error = TaskError;

    fn try_from(raw: TaskStatusRaw) -> Result<Self, TaskError> {
        let status = Self {
            phase: raw.phase,
            attempt: raw.attempt,
            observed_generation: raw.observed_generation.unwrap_or_default(),
            conditions: read_conditions(raw.conditions).map_err(|e| e.at("conditions"))?,
            outcome: raw.outcome,
            exit_code: raw.exit_code,
            error: raw.error,
            next_attempt_at: raw.next_attempt_at,
            last_delay_ms: raw.last_delay_ms,
            consecutive_failures: raw.consecutive_failures.unwrap_or_default(),
            queued_at: raw.queued_at,
            finished_at: raw.finished_at,
        };
        status.check()?;
        Ok(status)
    }
}

#[cfg(test)]
mod tests;
