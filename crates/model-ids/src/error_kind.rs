//! `ErrorKind`: the category every layer's error falls into.

/// The category of an error of any taskmodel layer: what a caller branches on.
///
/// Every layer's error has a `kind()` that gives it; the facade's `Error::kind` forwards
/// to the layer. The enum lives in the lowest layer so that each layer classifies its own
/// errors.
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
