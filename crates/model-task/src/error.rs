//! `TaskError`, the one error type of this crate, and `InvalidReason`, why a value is invalid.
//!
//! Every validation error carries a field path relative to the value being validated
//! (`mode.body` inside a kind, `kind.mode.body` inside a spec, `spec.kind.mode.body` inside a
//! task). Validation code builds errors with a relative path and callers prefix it with
//! [`TaskError::at`], so the path always names the field the caller handed in.

use std::fmt;

use model_ids::ErrorKind;
use model_ids::text::{quote, shorten};

use crate::attempt::{AttemptState, GoneReason, LeaseId};
use crate::lifecycle::TaskPhase;

/// Everything that can go wrong in this crate.
///
/// One enum for the crate, its variants grouped by concept: validation (a value breaks a
/// rule), routing (no runner can take the task), lifecycle (a change to the task is
/// refused) and attempts (a call about an attempt is refused). [`kind`](Self::kind) gives
/// the category a caller branches on.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    // Validation: a value breaks a rule; fix the input.
    /// A field holds a value that breaks one of the crate's rules.
    #[error("invalid {}{}: {reason}", name_path(.path), quote_input(.input.as_deref()))]
    Invalid {
        /// Field path, relative to the value being validated (`kind.env[2].key`).
        path: String,
        /// The offending input, shortened if long; `None` when the input is not text.
        input: Option<String>,
        /// Why the value is invalid.
        reason: InvalidReason,
    },
    /// An identifier (slot, task id) is invalid; `error` says why.
    #[error("{}{error}", path_prefix(.path))]
    Id {
        /// Field path of the identifier.
        path: String,
        /// The identifier error (its message is part of this one, so it is not a `source`).
        error: model_ids::IdError,
    },
    /// A policy (backoff) is invalid; `error` says why.
    #[error("{}{error}", path_prefix(.path))]
    Policy {
        /// Field path of the offending policy field (`backoff.firstMs`).
        path: String,
        /// The policy error (its message is part of this one, so it is not a `source`).
        error: model_policy::PolicyError,
    },
    /// Labels or a label selector are invalid; the selector error carries the full field
    /// path (`runnerSelector.matchExpressions[1].values`).
    #[error(transparent)]
    Selector(model_selector::SelectorError),
    /// A document read from a stream is longer than its limit; reading stopped at the first
    /// byte past it.
    #[error("the document is longer than {max} bytes")]
    TooLarge {
        /// The limit in bytes.
        max: usize,
    },
    /// A document is not JSON, is JSON of the wrong shape (a missing or unknown field, a
    /// wrong type), or could not be read; `line` and `column` are where the reader stopped.
    #[error("unreadable document at line {line} column {column}: {message}")]
    Unreadable {
        /// The 1-based line.
        line: usize,
        /// The 1-based column.
        column: usize,
        /// What the reader reported, cut to 1024 bytes.
        message: String,
    },
    /// A string names no routable task kind.
    #[error(
        "unknown task kind {}, expected subprocess, container, wasm or an extension's apiVersion/kind",
        quote(.input)
    )]
    UnknownKind {
        /// The input, shortened if long.
        input: String,
    },
    /// A string names no task phase.
    #[error(
        "unknown task phase {}, expected one of pending, running, succeeded, failed, timeout, canceled, exhausted",
        quote(.input)
    )]
    UnknownTaskPhase {
        /// The input, shortened if long.
        input: String,
    },
    // Routing: no runner can take the task.
    /// A task kind cannot be routed to a runner (an embedded task runs in process).
    #[error("task kind {kind} is not routable: it runs in process")]
    NotRoutable {
        /// The kind's wire name.
        kind: &'static str,
    },
    /// No runner both runs the task's kind and matches its runner selector; the counts say
    /// which of the two rules out the runners.
    #[error(
        "no runner for a {kind} task with runnerSelector {}: {runners} registered, {supporting} run {kind}, {matching} match the selector, none both",
        quote(.selector)
    )]
    NoRunner {
        /// The task's kind.
        kind: crate::spec::KindName,
        /// The runner selector in string syntax, shortened if long.
        selector: String,
        /// Runners registered.
        runners: usize,
        /// Runners that run the kind.
        supporting: usize,
        /// Runners whose labels match the selector.
        matching: usize,
    },
    // Lifecycle: a change to the task is refused.
    /// A write stated a resource version that is not the current one.
    #[error("conflict: expected resource version {expected}, found {actual}")]
    Conflict {
        /// The version the caller expected.
        expected: u64,
        /// The task's current version.
        actual: u64,
    },
    /// The lifecycle does not allow moving from one phase to the other.
    #[error("invalid transition from {from} to {to}")]
    InvalidTransition {
        /// The task's current phase.
        from: TaskPhase,
        /// The phase the operation would lead to.
        to: TaskPhase,
    },
    /// An attempt was started before the time its restart was scheduled for.
    #[error("restart not due: scheduled for {due}, now is {now}")]
    RestartNotDue {
        /// When the restart is scheduled.
        due: chrono::DateTime<chrono::Utc>,
        /// The `now` the caller passed.
        now: chrono::DateTime<chrono::Utc>,
    },
    /// An apply would change what may not change now: the spec of a task that has ended,
    /// or the slot while an attempt runs in it (`docs/attempts.md`, "Changing the spec").
    #[error("apply refused at {path}: {rule} (the task is {phase})")]
    ApplyRefused {
        /// The field that may not change (`spec`, `spec.slot`).
        path: String,
        /// The task's phase.
        phase: TaskPhase,
        /// The rule.
        rule: &'static str,
    },
    /// A manifest was applied to a task of another name: a manifest applies only to the
    /// task its `metadata.name` names. Nothing changed.
    #[error(
        "invalid metadata.name: the manifest is for task {}, not task {}",
        quote(.manifest.as_str()),
        quote(.task.as_str())
    )]
    NameMismatch {
        /// The task the manifest was applied to.
        task: model_ids::TaskId,
        /// The name the manifest gives.
        manifest: model_ids::TaskId,
    },
    /// A write named a uid that is not the task's: the task the caller read was deleted and
    /// another was created under the same name. Gone, not a conflict: re-reading cannot
    /// give the caller back the task it meant (see
    /// [`Precondition`](crate::task::Precondition)).
    #[error(
        "gone: expected uid {expected}, found {actual}: the task was deleted and created again"
    )]
    UidMismatch {
        /// The uid the caller expected.
        expected: model_ids::Uid,
        /// The task's uid.
        actual: model_ids::Uid,
    },
    /// The resource version is at `u64::MAX` and cannot go up.
    #[error("resource version {version} cannot be incremented")]
    VersionOverflow {
        /// The current version.
        version: u64,
    },
    /// `now` plus the retry delay is outside the range of representable times.
    #[error("restart time out of range: {now} plus {delay_ms} ms")]
    TimeOverflow {
        /// The `now` the caller passed.
        now: chrono::DateTime<chrono::Utc>,
        /// The computed delay.
        delay_ms: u64,
    },
    // Attempts and leases: a call about an attempt is refused (`docs/attempts.md`).
    /// A runner call (start, heartbeat, logs, result) named a lease that is not the live
    /// lease of the task's current attempt: an API answers "gone", and the runner stops.
    #[error("gone: attempt {attempt}: {reason}")]
    Gone {
        /// The attempt the call was checked against (the task's current attempt).
        attempt: u32,
        /// Why the lease is not live.
        reason: GoneReason,
    },
    /// A call disagrees with what the attempt already holds: a different result for an ended
    /// attempt (results are first-write-wins), a result other than canceled for a cancelling
    /// attempt, or a start after cancel was requested. Nothing changed.
    #[error("conflict: attempt {attempt} is {state}, {rule}")]
    AttemptConflict {
        /// The attempt number.
        attempt: u32,
        /// The attempt's state, which the call did not change.
        state: AttemptState,
        /// Which rule the call broke.
        rule: &'static str,
    },
    /// The attempt's state machine does not allow the change (a result before start).
    #[error("invalid attempt transition from {from} to {to}")]
    InvalidAttemptTransition {
        /// The attempt's current state.
        from: AttemptState,
        /// The state the call would lead to.
        to: AttemptState,
    },
    /// An attempt was expired before its lease expiry time.
    #[error("lease not expired: expires at {expires_at}, now is {now}")]
    LeaseNotExpired {
        /// When the lease expires.
        expires_at: chrono::DateTime<chrono::Utc>,
        /// The `now` the caller passed.
        now: chrono::DateTime<chrono::Utc>,
    },
    /// A new attempt was leased under the lease id of the task's previous attempt, whose
    /// holder may still call: a lease id is new within a task.
    #[error("lease {lease} is attempt {attempt}'s: a new attempt needs a new lease id")]
    LeaseReused {
        /// The previous attempt, which holds the lease id.
        attempt: u32,
        /// The lease id.
        lease: LeaseId,
    },
    // Watches: where a watch of tasks resumes (`event::WatchWindow`).
    /// A watch asked to resume after a version whose following changes the store no longer
    /// holds: list again and watch from the listing's version.
    #[error(
        "gone: watch version {since} is too old, the oldest change held is {oldest}; list again"
    )]
    WatchExpired {
        /// The version the watcher last saw.
        since: u64,
        /// The oldest change the store holds.
        oldest: u64,
    },
    /// A watch asked to resume after a version the store has not reached: not one it issued.
    #[error("watch version {since} is after the latest change {latest}; list again")]
    WatchAhead {
        /// The version the watcher last saw.
        since: u64,
        /// The latest change of the store.
        latest: u64,
    },
    /// The attempt handed in with a task is not its current attempt, or the attempt's state
    /// disagrees with the task's phase (an active attempt needs a running task). Re-read both.
    #[error(
        "attempt {attempt} ({state}) does not match the task at attempt {task_attempt} ({task_phase})"
    )]
    AttemptMismatch {
        /// The task's attempt counter.
        task_attempt: u32,
        /// The task's phase.
        task_phase: TaskPhase,
        /// The attempt's number.
        attempt: u32,
        /// The attempt's state.
        state: AttemptState,
    },
}

/// Why a value is invalid: the `reason` of [`TaskError::Invalid`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidReason {
    /// The value is empty and must not be.
    Empty,
    /// The text is longer than allowed, in bytes.
    TooLong {
        /// Length in bytes.
        len: usize,
        /// Maximum in bytes.
        max: usize,
    },
    /// The list has more entries than allowed.
    TooMany {
        /// Number of entries.
        len: usize,
        /// Maximum number of entries.
        max: usize,
    },
    /// The number is larger than allowed.
    TooLarge {
        /// The value.
        value: u64,
        /// The maximum.
        max: u64,
    },
    /// The number is zero and must not be.
    Zero,
    /// The text holds a NUL byte, which cannot pass through `execve` or the environment.
    NulByte {
        /// Byte index of the first NUL.
        index: usize,
    },
    /// An environment key holds `=`.
    EqualsSign {
        /// Byte index of the first `=`.
        index: usize,
    },
    /// An environment key appears twice.
    DuplicateKey {
        /// Index of the entry that first used the key.
        first: usize,
    },
    /// A script body is not standard base64 with padding.
    NotBase64 {
        /// What the decoder reported.
        detail: String,
    },
    /// A decoded script body is not UTF-8.
    NotUtf8 {
        /// Length of the valid UTF-8 prefix.
        valid_up_to: usize,
    },
    /// An embedded task runs in process and cannot be submitted.
    EmbeddedNotSubmittable,
    /// The fields of a value contradict each other.
    Inconsistent {
        /// Which rule is broken.
        rule: &'static str,
    },
    /// The text does not have the required form.
    Format {
        /// What the value must look like.
        expected: &'static str,
    },
    /// A nested value is deeper than allowed.
    TooDeep {
        /// The depth reached (the outermost value is 1).
        depth: usize,
        /// The deepest allowed.
        max: usize,
    },
    /// The text holds a character outside its alphabet (the character itself is not shown:
    /// the text may be a secret).
    NotAllowed {
        /// Byte index of the first character not allowed.
        index: usize,
        /// The characters allowed.
        allowed: &'static str,
    },
    /// A key is not a Kubernetes qualified name (the label key rule).
    NotQualifiedName {
        /// Which part of the rule it breaks.
        rule: &'static str,
    },
    /// The number is outside its range.
    OutOfRange {
        /// The value.
        value: i64,
        /// The smallest allowed.
        min: i64,
        /// The largest allowed.
        max: i64,
    },
    /// The field must hold one exact value (an `apiVersion`, a `kind`).
    Expected {
        /// The value it must hold.
        expected: &'static str,
    },
}

impl fmt::Display for InvalidReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("must not be empty"),
            Self::TooLong { len, max } => write!(f, "{len} bytes long, at most {max} allowed"),
            Self::TooMany { len, max } => write!(f, "{len} entries, at most {max} allowed"),
            Self::TooLarge { value, max } => write!(f, "{value} is larger than the maximum {max}"),
            Self::Zero => f.write_str("must be greater than zero"),
            Self::NulByte { index } => write!(f, "holds a NUL byte at index {index}"),
            Self::EqualsSign { index } => write!(f, "holds '=' at index {index}"),
            Self::DuplicateKey { first } => write!(f, "duplicate key, first used by entry {first}"),
            Self::NotBase64 { detail } => write!(f, "not standard base64: {detail}"),
            Self::NotUtf8 { valid_up_to } => {
                write!(f, "decoded body is not UTF-8 after byte {valid_up_to}")
            }
            Self::EmbeddedNotSubmittable => {
                f.write_str("an embedded task runs in process and cannot be submitted")
            }
            Self::Inconsistent { rule } => f.write_str(rule),
            Self::Format { expected } => write!(f, "expected {expected}"),
            Self::TooDeep { depth, max } => {
                write!(f, "nested {depth} levels deep, at most {max} allowed")
            }
            Self::NotAllowed { index, allowed } => {
                write!(
                    f,
                    "character at byte {index} not allowed (allowed: {allowed})"
                )
            }
            Self::NotQualifiedName { rule } => write!(f, "not a qualified name: {rule}"),
            Self::OutOfRange { value, min, max } => {
                write!(f, "{value} is outside the range {min} to {max}")
            }
            Self::Expected { expected } => write!(f, "expected {expected}"),
        }
    }
}

/// `Err` of an [`InvalidReason::Inconsistent`] at `path`: the value breaks `rule`, which
/// ties its fields together.
pub(crate) fn broken_rule(path: &str, rule: &'static str) -> Result<(), TaskError> {
    Err(TaskError::invalid(
        path,
        InvalidReason::Inconsistent { rule },
    ))
}

impl TaskError {
    /// An [`TaskError::Invalid`] at `path` without quoted input.
    pub(crate) fn invalid(path: impl Into<String>, reason: InvalidReason) -> Self {
        Self::Invalid {
            path: path.into(),
            input: None,
            reason,
        }
    }

    /// An [`TaskError::Invalid`] at `path` quoting `input` (shortened).
    pub(crate) fn invalid_input(
        path: impl Into<String>,
        input: &str,
        reason: InvalidReason,
    ) -> Self {
        Self::Invalid {
            path: path.into(),
            input: Some(shorten(input)),
            reason,
        }
    }

    /// Prefixes the field path with `prefix`: `mode.body` at `kind` becomes `kind.mode.body`,
    /// `[2].key` at `env` becomes `env[2].key`. Errors without a path are returned unchanged.
    #[must_use]
    pub fn at(self, prefix: &str) -> Self {
        match self {
            Self::Selector(error) => Self::Selector(error.prefixed(prefix)),
            mut other => {
                if let Self::Invalid { path, .. }
                | Self::Id { path, .. }
                | Self::Policy { path, .. } = &mut other
                {
                    *path = join_path(prefix, path);
                }
                other
            }
        }
    }

    /// The error's message without its field path, for callers that show the path on their
    /// own: a field-level cause in an API answer (`{"field": ..., "message": ...}`), or
    /// `FILE: PATH: MESSAGE` in `taskctl check`. For errors without a path it is the whole
    /// message.
    ///
    /// ```
    /// use model_task::{SubprocessMode, TaskError};
    /// let err = SubprocessMode::command(String::new(), vec![]).unwrap_err().at("kind.mode");
    /// assert_eq!(err.path(), Some("kind.mode.command"));
    /// assert_eq!(err.message(), "must not be empty");
    /// assert_eq!(err.to_string(), "invalid kind.mode.command: must not be empty");
    /// ```
    pub fn message(&self) -> String {
        match self {
            Self::Invalid {
                input: Some(input),
                reason,
                ..
            } => format!("{input:?}: {reason}"),
            Self::Invalid { reason, .. } => reason.to_string(),
            Self::Id { error, .. } => error.to_string(),
            Self::Policy {
                error: model_policy::PolicyError::InvalidBackoff { reason, .. },
                path,
            } if !path.is_empty() => reason.to_string(),
            Self::Policy { error, .. } => error.to_string(),
            Self::Selector(error) => error.message(),
            other => other.to_string(),
        }
    }

    /// The category of this error, what a caller branches on: fix the input
    /// ([`ErrorKind::Invalid`], [`ErrorKind::UnknownTaskPhase`]), re-read and decide again
    /// ([`ErrorKind::Conflict`]), wait or stop ([`ErrorKind::InvalidTransition`]), or drop a
    /// stale lease ([`ErrorKind::Gone`]).
    ///
    /// ```
    /// use model_ids::ErrorKind;
    /// use model_task::TaskPhase;
    /// let err = "sleeping".parse::<TaskPhase>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::UnknownTaskPhase);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Invalid { .. } | Self::UnknownKind { .. } => ErrorKind::Invalid,
            Self::TooLarge { .. } | Self::Unreadable { .. } | Self::NameMismatch { .. } => {
                ErrorKind::Invalid
            }
            Self::Id { error, .. } => error.kind(),
            Self::Policy { error, .. } => error.kind(),
            Self::Selector(error) => error.kind(),
            Self::UnknownTaskPhase { .. } => ErrorKind::UnknownTaskPhase,
            // No runner fits the task: the spec (or the fleet) must change.
            Self::NotRoutable { .. } | Self::NoRunner { .. } => ErrorKind::Invalid,
            // A stale read of the task or its attempt, or a different result for an ended
            // attempt.
            Self::Conflict { .. } | Self::AttemptConflict { .. } | Self::AttemptMismatch { .. } => {
                ErrorKind::Conflict
            }
            // Starting an attempt before its restart is due, or expiring a lease before its
            // expiry, is a transition not allowed yet.
            Self::InvalidTransition { .. }
            | Self::ApplyRefused { .. }
            | Self::RestartNotDue { .. }
            | Self::InvalidAttemptTransition { .. }
            | Self::LeaseNotExpired { .. } => ErrorKind::InvalidTransition,
            // The control plane mints a new lease id.
            Self::LeaseReused { .. } => ErrorKind::Invalid,
            // A number at the end of its range: no retry helps.
            Self::VersionOverflow { .. } | Self::TimeOverflow { .. } => ErrorKind::Invalid,
            // Changes were compacted away: the watcher lists again (HTTP 410, as Kubernetes).
            Self::WatchExpired { .. } => ErrorKind::Gone,
            // A version this store never issued.
            Self::WatchAhead { .. } => ErrorKind::Invalid,
            // The task the caller meant was deleted; its write can never apply.
            Self::Gone { .. } | Self::UidMismatch { .. } => ErrorKind::Gone,
        }
    }

    /// The field path of a validation error, relative to the value that was validated, or
    /// of the field an apply may not change.
    pub fn path(&self) -> Option<&str> {
        match self {
            Self::Invalid { path, .. }
            | Self::Id { path, .. }
            | Self::Policy { path, .. }
            | Self::ApplyRefused { path, .. } => Some(path),
            Self::NameMismatch { .. } => Some("metadata.name"),
            Self::Selector(error) => Some(error.path()),
            _ => None,
        }
    }
}

/// Joins a prefix and a relative path: `a` + `b.c` = `a.b.c`, `a` + `[1]` = `a[1]`, `a` + `` = `a`.
pub(crate) fn join_path(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        path.to_owned()
    } else if path.is_empty() {
        prefix.to_owned()
    } else if path.starts_with('[') {
        format!("{prefix}{path}")
    } else {
        format!("{prefix}.{path}")
    }
}

/// `[index]` followed by an optional relative path.
pub(crate) fn index_path(index: usize, rest: &str) -> String {
    join_path(&format!("[{index}]"), rest)
}

/// The path as an error names it: `value` when the value itself (empty path) is invalid,
/// as when a `Timeout` is parsed on its own.
fn name_path(path: &str) -> &str {
    if path.is_empty() { "value" } else { path }
}

/// `path: ` in front of a lower layer's message, or nothing for an empty path.
fn path_prefix(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

fn quote_input(input: Option<&str>) -> String {
    input.map(|s| format!(" {s:?}")).unwrap_or_default()
}

#[cfg(test)]
mod tests;
