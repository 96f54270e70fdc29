//! `Error`: the one error every layer's error converts into, and `ErrorKind`, the seed's error model.

use model_ids::IdError;
use model_policy::PolicyError;
use model_query::QueryError;
use model_selector::SelectorError;
use model_task::TaskError;

/// `Result` with the facade's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Any error of any taskmodel layer.
///
/// Each layer keeps its own precise error; this enum wraps it unchanged (`From` is
/// implemented for each, so `?` converts) and prints it unchanged. Match on the variant to
/// reach the layer's error and its fields, or ask [`Error::kind`] for the coarse category
/// a caller branches on (an API maps it to a status code, a runner decides whether to retry).
///
/// ```
/// use taskmodel::{Error, ErrorKind, RestartPolicy, Slot};
///
/// fn parse(slot: &str, restart: &str) -> taskmodel::Result<(Slot, RestartPolicy)> {
///     Ok((Slot::new(slot)?, restart.parse()?))
/// }
///
/// let err = parse("nightly", "sometimes").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::UnknownRestart);
/// assert!(matches!(err, Error::Policy(_)));
/// assert!(err.to_string().starts_with(r#"unknown restart policy "sometimes""#));
///
/// let err = parse("no spaces", "never").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Invalid);
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An identifier is malformed (layer 0, [`model_ids`]).
    #[error(transparent)]
    Id(#[from] IdError),
    /// A policy name is unknown or a backoff policy breaks a rule (layer 1, [`model_policy`]).
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// Labels or a label selector are invalid (layer 1, [`model_selector`]).
    #[error(transparent)]
    Selector(#[from] SelectorError),
    /// A task, its spec or status is invalid, or a change to it is refused (layer 2, [`model_task`]).
    #[error(transparent)]
    Task(#[from] TaskError),
    /// A task query, its URL parameters or its continuation token are invalid (layer 3,
    /// [`model_query`]).
    #[error(transparent)]
    Query(#[from] QueryError),
}

impl Error {
    /// The category of this error, after the seed's error model.
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Id(_) => ErrorKind::Invalid,
            Self::Policy(err) => policy_kind(err),
            Self::Selector(_) => ErrorKind::Invalid,
            Self::Task(err) => task_kind(err),
            Self::Query(err) => query_kind(err),
        }
    }
}

fn policy_kind(err: &PolicyError) -> ErrorKind {
    match err {
        PolicyError::UnknownRestart { .. } => ErrorKind::UnknownRestart,
        PolicyError::UnknownJitter { .. } => ErrorKind::UnknownJitter,
        PolicyError::UnknownAdmission { .. } => ErrorKind::UnknownAdmission,
        _ => ErrorKind::Invalid,
    }
}

fn task_kind(err: &TaskError) -> ErrorKind {
    match err {
        TaskError::Policy { error, .. } => policy_kind(error),
        TaskError::UnknownTaskPhase { .. } => ErrorKind::UnknownTaskPhase,
        // A stale read of the task or its run, or a different result for an ended attempt.
        TaskError::Conflict { .. }
        | TaskError::RunConflict { .. }
        | TaskError::RunMismatch { .. } => ErrorKind::Conflict,
        // Starting an attempt before its restart is due, or expiring a lease before its
        // expiry, is a transition not allowed yet.
        TaskError::InvalidTransition { .. }
        | TaskError::RestartNotDue { .. }
        | TaskError::InvalidRunTransition { .. }
        | TaskError::LeaseNotExpired { .. } => ErrorKind::InvalidTransition,
        TaskError::Gone { .. } => ErrorKind::Gone,
        _ => ErrorKind::Invalid,
    }
}

/// A phase name that names no phase is an unknown task phase, as it is when a phase is parsed
/// alone; everything else, continuation tokens included (empty, damaged, or issued for another
/// query), is an input to fix.
fn query_kind(err: &QueryError) -> ErrorKind {
    match err {
        QueryError::InvalidPhase { source, .. } => task_kind(source),
        _ => ErrorKind::Invalid,
    }
}

/// The category of an [`Error`], after the error model of the core specification.
///
/// The first four name the unknown-name errors of text forms; the rest are what a caller
/// branches on: fix the input ([`Invalid`](Self::Invalid), [`InvalidTransition`](Self::InvalidTransition)),
/// re-read and retry ([`Conflict`](Self::Conflict)), or give up on a stale handle ([`Gone`](Self::Gone)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An admission policy name is not one of the known ones.
    UnknownAdmission,
    /// A restart policy name is not one of the known ones.
    UnknownRestart,
    /// A jitter policy name is not one of the known ones.
    UnknownJitter,
    /// A task phase name is not one of the known ones.
    UnknownTaskPhase,
    /// A value breaks a validation rule (a field is malformed, missing, too long or out of range).
    Invalid,
    /// A write lost a race: a resource version mismatch, or a different result for an attempt
    /// that already has one. Re-read and decide again.
    Conflict,
    /// A phase or attempt-state change the lifecycle does not allow.
    InvalidTransition,
    /// The call names something that no longer holds, such as a stale lease.
    Gone,
}

#[cfg(test)]
mod tests;
