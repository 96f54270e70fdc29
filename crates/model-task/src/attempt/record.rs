//! `TaskRun`, the record of one attempt, and its wire twin.
//!
//! The state changes live here as steps private to `attempt`; the public operations that
//! take the task and its attempt together are in the parent module, so an attempt never
//! changes without its task.

use chrono::{DateTime, Utc};
use model_ids::{RunnerId, TaskId};
use serde::{Deserialize, Serialize};

use super::{AttemptState, LeaseId, LogKey};
use crate::error::{InvalidReason, TaskError, broken_rule};
use crate::lifecycle::{
    AttemptResult, MAX_STATUS_ERROR_BYTES, check_error_text, truncate_on_char_boundary,
};

/// The record of one attempt of a task: which runner holds it under which lease until when,
/// its state, its times and its result. The name is the one the wire and solti-model use;
/// the rules are in `docs/attempts.md`.
///
/// Made by [`Task::lease_attempt`](crate::Task::lease_attempt) and changed only by the
/// operations on [`Task`](crate::Task) that take the task and its attempt together
/// ([`start_attempt`](crate::Task::start_attempt), [`heartbeat_attempt`](crate::Task::heartbeat_attempt),
/// [`cancel_attempt`](crate::Task::cancel_attempt), [`report_result`](crate::Task::report_result),
/// [`expire_attempt`](crate::Task::expire_attempt)); the state machine is [`AttemptState`]'s. The fields
/// always agree: `attempt` and `generation` (the generation of the spec the attempt runs)
/// are at least 1; `startedAt` is set once started (never before
/// `leasedAt`); `finishedAt` is set exactly when final (never before the start, or the lease
/// when the attempt never started); `exitCode` and `error` only on a final attempt, `error`
/// at most [`MAX_STATUS_ERROR_BYTES`] (longer text is cut on a character boundary);
/// `cancelRequested` is set in Cancelling and may stay set in Canceled, nowhere else.
///
/// On the wire, camelCase; absent optional fields are omitted:
/// `{"taskId": "job", "attempt": 2, "generation": 1, "runner": "r-1", "lease": "9ix",
///   "leaseExpiresAt": "2025-01-01T00:00:30Z", "state": "running", "cancelRequested": false,
///   "leasedAt": "2025-01-01T00:00:00Z", "startedAt": "2025-01-01T00:00:01Z"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "TaskRunRaw")]
pub struct TaskRun {
    pub(crate) task_id: TaskId,
    pub(crate) attempt: u32,
    pub(crate) generation: u64,
    pub(crate) runner: RunnerId,
    pub(crate) lease: LeaseId,
    #[serde(serialize_with = "crate::time::write")]
    pub(crate) lease_expires_at: DateTime<Utc>,
    pub(crate) state: AttemptState,
    pub(crate) cancel_requested: bool,
    #[serde(serialize_with = "crate::time::write")]
    pub(crate) leased_at: DateTime<Utc>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::time::write_option"
    )]
    pub(crate) started_at: Option<DateTime<Utc>>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::time::write_option"
    )]
    pub(crate) finished_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

impl TaskRun {
    /// The task this attempt belongs to.
    pub const fn task_id(&self) -> &TaskId {
        &self.task_id
    }

    /// The attempt number, from 1.
    pub const fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The generation of the spec the attempt runs: the task's when it was leased. A result
    /// of an older generation than the task's is recorded but decides nothing for the newer
    /// one (`docs/attempts.md`, "Changing the spec").
    pub const fn generation(&self) -> u64 {
        self.generation
    }

    /// The runner holding (or last holding) the lease.
    pub const fn runner(&self) -> &RunnerId {
        &self.runner
    }

    /// The lease the runner names in its calls.
    pub const fn lease(&self) -> LeaseId {
        self.lease
    }

    /// When the lease expires unless a heartbeat extends it; calls at or after this time
    /// are gone.
    pub const fn lease_expires_at(&self) -> DateTime<Utc> {
        self.lease_expires_at
    }

    /// The state.
    pub const fn state(&self) -> AttemptState {
        self.state
    }

    /// Whether cancel was requested: the runner should stop (an API returns it with every
    /// start and heartbeat; `docs/attempts.md`, "Cancel intent wins").
    pub const fn cancel_requested(&self) -> bool {
        self.cancel_requested
    }

    /// When the attempt was leased.
    pub const fn leased_at(&self) -> DateTime<Utc> {
        self.leased_at
    }

    /// When the runner started the attempt.
    pub const fn started_at(&self) -> Option<DateTime<Utc>> {
        self.started_at
    }

    /// When the attempt ended.
    pub const fn finished_at(&self) -> Option<DateTime<Utc>> {
        self.finished_at
    }

    /// The exit code the runner reported.
    pub const fn exit_code(&self) -> Option<i32> {
        self.exit_code
    }

    /// The error text the runner reported (at most [`MAX_STATUS_ERROR_BYTES`] bytes).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Whether the attempt holds a live lease (Leased, Running or Cancelling).
    pub const fn is_active(&self) -> bool {
        self.state.is_active()
    }

    /// Whether the attempt has ended; a final attempt never changes.
    pub const fn is_final(&self) -> bool {
        self.state.is_final()
    }

    /// The identity of this attempt's log line number `sequence`, for deduplication with a
    /// [`LogCursor`](crate::attempt::LogCursor).
    pub const fn log_key(&self, sequence: u64) -> LogKey {
        LogKey::new(self.attempt, sequence)
    }

    /// A new attempt, Leased at `now`. The caller has checked that `expires_at > now`.
    pub(crate) const fn leased(
        task_id: TaskId,
        attempt: u32,
        generation: u64,
        runner: RunnerId,
        lease: LeaseId,
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            task_id,
            attempt,
            generation,
            runner,
            lease,
            lease_expires_at: expires_at,
            state: AttemptState::Leased,
            cancel_requested: false,
            leased_at: now,
            started_at: None,
            finished_at: None,
            exit_code: None,
            error: None,
        }
    }

    /// The earliest time the attempt may end: its start, or its lease if it never started.
    fn earliest_finish(&self) -> DateTime<Utc> {
        self.started_at.unwrap_or(self.leased_at)
    }

    /// Leased to Running at `now` (never before the lease).
    pub(crate) fn mark_started(&mut self, now: DateTime<Utc>) {
        self.state = AttemptState::Running;
        self.started_at = Some(now.max(self.leased_at));
    }

    /// Leased or Running to Cancelling.
    pub(crate) fn mark_cancelling(&mut self) {
        self.state = AttemptState::Cancelling;
        self.cancel_requested = true;
    }

    /// Ends the attempt in `state` at `now` (never before its start) with a result's
    /// exit code and error (already cut to size).
    pub(crate) fn mark_final(
        &mut self,
        state: AttemptState,
        exit_code: Option<i32>,
        error: Option<String>,
        now: DateTime<Utc>,
    ) {
        self.state = state;
        self.finished_at = Some(now.max(self.earliest_finish()));
        self.exit_code = exit_code;
        self.error = error;
    }

    /// Whether the final attempt recorded exactly this result (its error already cut).
    pub(crate) fn records(&self, result: &AttemptResult) -> bool {
        self.state == AttemptState::of_outcome(result.outcome)
            && self.exit_code == result.exit_code
            && self.error == result.error
    }
}

/// A result as an attempt stores it: the error text cut to [`MAX_STATUS_ERROR_BYTES`].
pub(crate) fn stored_result(result: AttemptResult) -> AttemptResult {
    AttemptResult {
        error: result
            .error
            .map(|e| truncate_on_char_boundary(e, MAX_STATUS_ERROR_BYTES)),
        ..result
    }
}

/// The wire form of [`TaskRun`], unvalidated.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TaskRunRaw {
    task_id: TaskId,
    attempt: u32,
    generation: u64,
    runner: RunnerId,
    lease: LeaseId,
    #[serde(deserialize_with = "crate::time::read")]
    lease_expires_at: DateTime<Utc>,
    state: AttemptState,
    #[serde(default)]
    cancel_requested: Option<bool>,
    #[serde(deserialize_with = "crate::time::read")]
    leased_at: DateTime<Utc>,
    #[serde(default, deserialize_with = "crate::time::read_option")]
    started_at: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "crate::time::read_option")]
    finished_at: Option<DateTime<Utc>>,
    #[serde(default)]
    exit_code: Option<i32>,
    #[serde(default)]
    error: Option<String>,
}

impl TryFrom<TaskRunRaw> for TaskRun {
    type Error = TaskError;

    fn try_from(raw: TaskRunRaw) -> Result<Self, TaskError> {
        let run = Self {
            task_id: raw.task_id,
            attempt: raw.attempt,
            generation: raw.generation,
            runner: raw.runner,
            lease: raw.lease,
            lease_expires_at: raw.lease_expires_at,
            state: raw.state,
            cancel_requested: raw.cancel_requested.unwrap_or_default(),
            leased_at: raw.leased_at,
            started_at: raw.started_at,
            finished_at: raw.finished_at,
            exit_code: raw.exit_code,
            error: raw.error,
        };
        run.check()?;
        Ok(run)
    }
}

impl TaskRun {
    /// Checks that the fields agree; paths are relative to the attempt.
    fn check(&self) -> Result<(), TaskError> {
        if self.attempt == 0 {
            return Err(TaskError::invalid("attempt", InvalidReason::Zero));
        }
        if self.generation == 0 {
            return Err(TaskError::invalid("generation", InvalidReason::Zero));
        }
        check_error_text(self.error.as_deref())?;
        if self.lease_expires_at <= self.leased_at {
            return broken_rule("leaseExpiresAt", "the lease must expire after leasedAt");
        }
        let state = self.state;
        match (state, self.started_at) {
            (AttemptState::Leased, Some(_)) => {
                return broken_rule("startedAt", "a leased attempt has not started");
            }
            (
                AttemptState::Running
                | AttemptState::Succeeded
                | AttemptState::Failed
                | AttemptState::Timeout,
                None,
            ) => {
                return broken_rule("startedAt", "a started or reported attempt needs startedAt");
            }
            (_, Some(started)) if started < self.leased_at => {
                return broken_rule("startedAt", "startedAt is before leasedAt");
            }
            // A start needs a live lease, and a lease only ever moves later.
            (_, Some(started)) if started >= self.lease_expires_at => {
                return broken_rule("startedAt", "the attempt started after its lease expired");
            }
            _ => {}
        }
        match self.finished_at {
            None if state.is_final() => {
                return broken_rule("finishedAt", "a final attempt needs finishedAt");
            }
            Some(_) if state.is_active() => {
                return broken_rule("finishedAt", "an active attempt has not finished");
            }
            Some(finished) if finished < self.earliest_finish() => {
                return broken_rule("finishedAt", "finishedAt is before the start");
            }
            Some(finished)
                if state == AttemptState::Expired && finished < self.lease_expires_at =>
            {
                return broken_rule(
                    "finishedAt",
                    "an expired attempt ends at or after its lease expiry",
                );
            }
            Some(finished)
                if matches!(
                    state,
                    AttemptState::Succeeded | AttemptState::Failed | AttemptState::Timeout
                ) && finished >= self.lease_expires_at =>
            {
                return broken_rule(
                    "finishedAt",
                    "a reported result comes in before the lease expires",
                );
            }
            _ => {}
        }
        if !state.is_final() && (self.exit_code.is_some() || self.error.is_some()) {
            return broken_rule("state", "exitCode and error need a final state");
        }
        if state == AttemptState::Expired && (self.exit_code.is_some() || self.error.is_some()) {
            return broken_rule("state", "an expired attempt has no reported result");
        }
        match (state, self.cancel_requested) {
            (AttemptState::Cancelling, false) => broken_rule(
                "cancelRequested",
                "a cancelling attempt has cancel requested",
            ),
            (AttemptState::Cancelling | AttemptState::Canceled, true) | (_, false) => Ok(()),
            (_, true) => broken_rule("cancelRequested", "cancel intent can only end canceled"),
        }
    }
}

#[cfg(test)]
mod tests;
