//! `Error`: the one error every layer's error converts into, with its `ErrorKind`.

use model_flow::FlowError;
use model_ids::{ErrorKind, IdError};
use model_policy::PolicyError;
use model_query::QueryError;
use model_retention::RetentionError;
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
    /// A flow, a flow run or a call on a flow run is invalid or refused (layer 3,
    /// [`model_flow`]).
    #[error(transparent)]
    Flow(#[from] FlowError),
    /// A schedule, cron expression, time zone or action is invalid, or an action's status
    /// change is refused (layer 3, [`model_schedule`]).
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    /// A resource view, a retention rule or an ownership graph is refused (layer 4,
    /// [`model_retention`]).
    #[error(transparent)]
    Retention(#[from] RetentionError),
}

impl Error {
    /// The category of this error (see [`ErrorKind`]).
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Id(err) => err.kind(),
            Self::Policy(err) => err.kind(),
            Self::Selector(err) => err.kind(),
            Self::Task(err) => err.kind(),
            Self::Query(err) => err.kind(),
            Self::Flow(err) => err.kind(),
            Self::Schedule(err) => err.kind(),
            Self::Retention(err) => err.kind(),
        }
    }
}

#[cfg(test)]
mod tests;
