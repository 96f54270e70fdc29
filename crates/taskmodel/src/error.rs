//! `Error`: the one error every layer's error converts into, with its `ErrorKind`.

use model_ids::{ErrorKind, IdError};
use model_policy::PolicyError;
use model_query::QueryError;
use model_schedule::ScheduleError;
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
    /// A schedule, cron expression, time zone or action is invalid, or an action's status
    /// change is refused (layer 3, [`model_schedule`]).
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
}

impl Error {
    /// The category of this error (see [`ErrorKind`]).
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Id(err) => err.kind(),
            Self::Policy(err) => policy_kind(err),
            Self::Selector(_) => ErrorKind::Invalid,
            Self::Task(err) => task_kind(err),
            Self::Query(err) => query_kind(err),
            Self::Schedule(err) => err.kind(),
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

#[cfg(test)]
mod tests;
