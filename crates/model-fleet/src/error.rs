//! `FleetError`, the one error type of this crate, and its classification.

use chrono::{DateTime, Utc};
use model_ids::text::quote;
use model_ids::{ErrorKind, RunnerId, TaskId, TenantId};
use model_selector::SelectorError;
use model_task::{TaskError, TaskPhase};

use crate::access::{Actor, Denial};
use crate::runner::{MAX_LIVENESS_TTL_MS, MAX_RUNNER_CAPACITY, RunnerState};

/// Why a runner, a fleet operation, a route, a claim, an access check, an API error or a
/// log batch was refused.
///
/// Messages are lowercase, name the field or the runner, and quote the input (shortened to
/// [`ERROR_INPUT_MAX_CHARS`](model_ids::ERROR_INPUT_MAX_CHARS) characters when long).
/// [`FleetError::kind`] gives the category a caller branches on.
///
/// ```
/// use model_fleet::{FleetError, KindSet, Runner};
/// use model_ids::{ErrorKind, RunnerId};
///
/// let err = Runner::builder(RunnerId::new("eu-1")?, KindSet::ALL)
///     .max_concurrent(0)
///     .build()
///     .unwrap_err();
/// assert!(matches!(err, FleetError::CapacityOutOfRange { input: 0, .. }));
/// assert_eq!(err.to_string(), "invalid maxConcurrent: 0 is out of range (1 to 1024)");
/// assert_eq!(err.kind(), ErrorKind::Invalid);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FleetError {
    /// A runner's `maxConcurrent` is 0 or above [`MAX_RUNNER_CAPACITY`].
    #[error("invalid maxConcurrent: {input} is out of range (1 to {MAX_RUNNER_CAPACITY})")]
    #[non_exhaustive]
    CapacityOutOfRange {
        /// The capacity as given.
        input: u64,
    },

    /// A liveness TTL of 0 or above [`MAX_LIVENESS_TTL_MS`].
    #[error("invalid liveness ttl: {input} ms is out of range (1 to {MAX_LIVENESS_TTL_MS})")]
    #[non_exhaustive]
    TtlOutOfRange {
        /// The TTL as given, in milliseconds.
        input: u64,
    },

    /// An operation names a runner that is not registered.
    #[error("runner \"{runner}\" is not registered")]
    #[non_exhaustive]
    UnknownRunner {
        /// The runner.
        runner: RunnerId,
    },

    /// A runner registers while its previous record is online or draining, and alive.
    #[error("runner \"{runner}\" is already registered and {state}")]
    #[non_exhaustive]
    AlreadyRegistered {
        /// The runner.
        runner: RunnerId,
        /// The state of its record.
        state: RunnerState,
    },

    /// An offline runner heartbeats, drains or resumes: it must register again.
    #[error("{operation} of runner \"{runner}\": the runner is offline and must register again")]
    #[non_exhaustive]
    RunnerOffline {
        /// The runner.
        runner: RunnerId,
        /// `heartbeat`, `drain` or `resume`.
        operation: &'static str,
    },

    /// A runner that is still alive is not marked offline.
    #[error(
        "runner \"{runner}\" is alive (last seen at {}, liveness ttl {ttl_ms} ms) and is not marked offline",
        last_seen_at.map_or_else(|| "never".to_owned(), crate::runner::rfc3339)
    )]
    #[non_exhaustive]
    RunnerAlive {
        /// The runner.
        runner: RunnerId,
        /// When it was last seen.
        last_seen_at: Option<DateTime<Utc>>,
        /// The liveness TTL.
        ttl_ms: u64,
    },

    /// Bytes that are not a [`QueueKey`](crate::QueueKey)'s encoding.
    #[error("invalid queue key ({len} bytes): {reason}")]
    #[non_exhaustive]
    InvalidQueueKey {
        /// How many bytes were given.
        len: usize,
        /// What is wrong with them.
        reason: &'static str,
    },

    /// A message or a log line longer than its bound.
    #[error("invalid {field}: {len} bytes is longer than {max}")]
    #[non_exhaustive]
    TooLong {
        /// The field's path: `error.message`, `lines[3].line`.
        field: String,
        /// Its length in bytes.
        len: usize,
        /// The bound.
        max: usize,
    },

    /// A list holds more than its bound: a context's list more than
    /// [`MAX_CONTEXT_MEMBERS`](crate::MAX_CONTEXT_MEMBERS) actors, a log batch more than
    /// [`MAX_LOG_BATCH_LINES`](crate::MAX_LOG_BATCH_LINES) lines.
    #[error("invalid {field}: more than {max} entries")]
    #[non_exhaustive]
    TooManyEntries {
        /// `admins`, `readers`, `executors` or `lines`.
        field: &'static str,
        /// The bound.
        max: usize,
    },

    /// A context's list names an actor twice.
    #[error("invalid {field}: actor \"{actor}\" is listed twice")]
    #[non_exhaustive]
    DuplicateMember {
        /// `admins`, `readers` or `executors`.
        field: &'static str,
        /// The actor.
        actor: Actor,
    },

    /// A log batch of attempt 0.
    #[error("invalid attempt: must be greater than zero")]
    InvalidAttempt,

    /// A log batch without lines.
    #[error("invalid lines: a batch holds at least one line")]
    EmptyLogBatch,

    /// A log line whose sequence is not above the one before it in its batch.
    #[error(
        "invalid lines[{index}].sequence: {sequence} is not above the line before it ({before})"
    )]
    #[non_exhaustive]
    LogSequenceOrder {
        /// The line's place in the batch.
        index: usize,
        /// Its sequence.
        sequence: u64,
        /// The sequence of the line before it.
        before: u64,
    },

    /// An access check denied an operation.
    #[error("forbidden: {0}")]
    Forbidden(Denial),

    /// A task that is not Pending has no place in the queue.
    #[error("task {task} is not queued: it is {phase}")]
    #[non_exhaustive]
    NotQueued {
        /// The task.
        task: TaskId,
        /// Its phase.
        phase: TaskPhase,
    },

    /// A queue holds one tenant's tasks: a task of another tenant is refused.
    #[error("task {task} belongs to tenant \"{tenant}\", not to the queue's tenant \"{queue}\"")]
    #[non_exhaustive]
    OtherTenant {
        /// The task.
        task: TaskId,
        /// Its tenant.
        tenant: TenantId,
        /// The queue's tenant.
        queue: TenantId,
    },

    /// An embedded task runs in process and is never routed to or claimed by a runner.
    #[error("task kind {kind} is not routable: it runs in process")]
    #[non_exhaustive]
    NotRoutable {
        /// The kind's wire name.
        kind: &'static str,
    },

    /// A task kind's name does not parse: model-task's message (an unknown kind, or a
    /// malformed extension `apiVersion/kind`).
    #[error("{message}")]
    #[non_exhaustive]
    Kind {
        /// Model-task's message.
        message: String,
    },

    /// No runner both runs the task's kind and matches its runner selector; the counts say
    /// which of the two rules out the runners.
    #[error(
        "no runner for a {kind} task with runnerSelector {}: {runners} registered, {supporting} run {kind}, {matching} match the selector, none both",
        quote(.selector)
    )]
    #[non_exhaustive]
    NoRunner {
        /// The task's kind.
        kind: model_task::KindName,
        /// The runner selector in string syntax, shortened if long.
        selector: String,
        /// Runners registered.
        runners: usize,
        /// Runners that run the kind.
        supporting: usize,
        /// Runners whose labels match the selector.
        matching: usize,
    },

    /// A queue's selector index refused a task (it is full).
    #[error(transparent)]
    Selector(#[from] SelectorError),

    /// A fleet is full: a new runner past [`MAX_RUNNERS`](model_selector::MAX_RUNNERS).
    #[error("too many runners: the limit is {max}")]
    #[non_exhaustive]
    TooManyRunners {
        /// The limit.
        max: usize,
    },
}

impl FleetError {
    /// The error for a kind name model-task refused, with its message.
    pub(crate) fn kind_name(err: TaskError) -> Self {
        Self::Kind {
            message: err.to_string(),
        }
    }

    /// The category of this error: [`ErrorKind::Invalid`] for input to fix,
    /// [`ErrorKind::NotFound`] for an unknown runner, [`ErrorKind::Conflict`] for a second
    /// registration, [`ErrorKind::Gone`] for an offline runner (it registers again), and
    /// [`ErrorKind::InvalidTransition`] for marking an alive runner offline.
    ///
    /// ```
    /// use model_fleet::{Fleet, LivenessTtl};
    /// use model_ids::{ErrorKind, RunnerId};
    ///
    /// let mut fleet = Fleet::new(LivenessTtl::default());
    /// let err = fleet.drain(&RunnerId::new("nobody")?).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::NotFound);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            FleetError::CapacityOutOfRange { .. }
            | FleetError::TtlOutOfRange { .. }
            | FleetError::TooManyRunners { .. }
            | FleetError::InvalidQueueKey { .. }
            | FleetError::TooLong { .. }
            | FleetError::TooManyEntries { .. }
            | FleetError::DuplicateMember { .. }
            | FleetError::InvalidAttempt
            | FleetError::EmptyLogBatch
            | FleetError::LogSequenceOrder { .. } => ErrorKind::Invalid,
            FleetError::Forbidden(_) | FleetError::OtherTenant { .. } => ErrorKind::Forbidden,
            FleetError::NotQueued { .. } => ErrorKind::InvalidTransition,
            FleetError::NotRoutable { .. }
            | FleetError::NoRunner { .. }
            | FleetError::Kind { .. } => ErrorKind::Invalid,
            FleetError::Selector(err) => err.kind(),
            FleetError::UnknownRunner { .. } => ErrorKind::NotFound,
            FleetError::AlreadyRegistered { .. } => ErrorKind::Conflict,
            FleetError::RunnerOffline { .. } => ErrorKind::Gone,
            FleetError::RunnerAlive { .. } => ErrorKind::InvalidTransition,
        }
    }
}

#[cfg(test)]
mod tests;
