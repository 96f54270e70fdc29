//! `TaskSpecBuilder`: builds a [`TaskSpec`] with the same checks parsing runs.

use model_ids::{IdError, Slot};
use model_policy::{AdmissionPolicy, BackoffPolicy, RestartPolicy};
use model_selector::{Labels, RunnerSelector};

use super::{TaskKind, TaskSpec, Timeout};
use crate::error::{InvalidReason, TaskError};

/// Builds a [`TaskSpec`]; see [`TaskSpec::builder`]. Unset optional fields take their
/// defaults.
#[derive(Debug, Clone)]
#[must_use]
pub struct TaskSpecBuilder {
    slot: Result<Slot, IdError>,
    kind: TaskKind,
    timeout_ms: u64,
    restart: RestartPolicy,
    backoff: BackoffPolicy,
    admission: AdmissionPolicy,
    runner_selector: RunnerSelector,
    labels: Labels,
    max_retries: Option<u32>,
    priority: i32,
    ttl_after_finished_ms: Option<u64>,
}

impl TaskSpecBuilder {
    /// A builder with the three required fields and every optional one at its default.
    pub(super) fn new(slot: &str, kind: TaskKind, timeout_ms: u64) -> Self {
        Self {
            slot: Slot::new(slot),
            kind,
            timeout_ms,
            restart: RestartPolicy::default(),
            backoff: BackoffPolicy::default(),
            admission: AdmissionPolicy::default(),
            runner_selector: RunnerSelector::default(),
            labels: Labels::default(),
            max_retries: None,
            priority: 0,
            ttl_after_finished_ms: None,
        }
    }

    /// Sets the restart policy (default `never`).
    pub fn restart(self, restart: RestartPolicy) -> Self {
        Self { restart, ..self }
    }

    /// Sets the backoff policy (default: full jitter, 1 s first, 30 s max, factor 2).
    pub fn backoff(self, backoff: BackoffPolicy) -> Self {
        Self { backoff, ..self }
    }

    /// Sets the admission policy (default `dropIfRunning`).
    pub fn admission(self, admission: AdmissionPolicy) -> Self {
        Self { admission, ..self }
    }

    /// Sets the runner selector (default: empty, matches every runner).
    pub fn runner_selector(self, runner_selector: RunnerSelector) -> Self {
        Self {
            runner_selector,
            ..self
        }
    }

    /// Sets the labels (default: none).
    pub fn labels(self, labels: Labels) -> Self {
        Self { labels, ..self }
    }

    /// Sets how many failed attempts in a row are retried (default: unlimited); successes
    /// spend none.
    pub fn max_retries(self, max_retries: u32) -> Self {
        Self {
            max_retries: Some(max_retries),
            ..self
        }
    }

    /// Sets the priority (default 0); [`build`](Self::build) checks it is from
    /// [`MIN_PRIORITY`](super::MIN_PRIORITY) to [`MAX_PRIORITY`](super::MAX_PRIORITY).
    pub fn priority(self, priority: i32) -> Self {
        Self { priority, ..self }
    }

    /// Sets how long a finished task is kept, in milliseconds (default: until deleted);
    /// [`build`](Self::build) checks it is at most
    /// [`MAX_TTL_AFTER_FINISHED_MS`](super::MAX_TTL_AFTER_FINISHED_MS).
    pub fn ttl_after_finished_ms(self, ttl_ms: u64) -> Self {
        Self {
            ttl_after_finished_ms: Some(ttl_ms),
            ..self
        }
    }

    /// The spec, or the first invalid field (`slot`, `timeoutMs`, `priority`, then
    /// `ttlAfterFinishedMs`).
    pub fn build(self) -> Result<TaskSpec, TaskError> {
        let slot = self.slot.map_err(|error| TaskError::Id {
            path: "slot".into(),
            error,
        })?;
        let timeout = Timeout::new(self.timeout_ms).map_err(|e| e.at("timeoutMs"))?;
        check_priority(self.priority)?;
        check_ttl(self.ttl_after_finished_ms)?;
        Ok(TaskSpec {
            slot,
            kind: self.kind,
            timeout,
            restart: self.restart,
            backoff: self.backoff,
            admission: self.admission,
            runner_selector: self.runner_selector,
            labels: self.labels,
            max_retries: self.max_retries,
            priority: self.priority,
            ttl_after_finished_ms: self.ttl_after_finished_ms,
        })
    }
}

/// Checks a priority against [`MIN_PRIORITY`](super::MIN_PRIORITY) and
/// [`MAX_PRIORITY`](super::MAX_PRIORITY); the path is `priority`.
pub(super) fn check_priority(priority: i32) -> Result<(), TaskError> {
    use super::limits::{MAX_PRIORITY, MIN_PRIORITY};
    if (MIN_PRIORITY..=MAX_PRIORITY).contains(&priority) {
        Ok(())
    } else {
        Err(TaskError::invalid(
            "priority",
            InvalidReason::OutOfRange {
                value: i64::from(priority),
                min: i64::from(MIN_PRIORITY),
                max: i64::from(MAX_PRIORITY),
            },
        ))
    }
}

/// Checks a time to keep a finished task against
/// [`MAX_TTL_AFTER_FINISHED_MS`](super::MAX_TTL_AFTER_FINISHED_MS); the path is
/// `ttlAfterFinishedMs`.
pub(super) fn check_ttl(ttl_ms: Option<u64>) -> Result<(), TaskError> {
    use super::limits::MAX_TTL_AFTER_FINISHED_MS;
    match ttl_ms {
        Some(value) if value > MAX_TTL_AFTER_FINISHED_MS => Err(TaskError::invalid(
            "ttlAfterFinishedMs",
            InvalidReason::TooLarge {
                value,
                max: MAX_TTL_AFTER_FINISHED_MS,
            },
        )),
        _ => Ok(()),
    }
}
