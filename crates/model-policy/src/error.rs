//! `PolicyError`, the one error type of this crate, and what makes a backoff field invalid.

use std::fmt;

use model_ids::{ErrorKind, text::shorten};

/// Everything that can be wrong with a policy value.
///
/// The `Unknown*` variants are an unknown policy name, each of its own [`ErrorKind`]; an
/// invalid backoff is [`ErrorKind::Invalid`] ([`PolicyError::kind`]). Messages are lowercase,
/// name the policy or the wire field, say why, and quote the input, shortened to
/// [`ERROR_INPUT_MAX_CHARS`](model_ids::ERROR_INPUT_MAX_CHARS) characters so an error holds
/// bounded memory whatever the caller passed in.
///
/// ```
/// use model_policy::{PolicyError, RestartPolicy};
///
/// let err = "sometimes".parse::<RestartPolicy>().unwrap_err();
/// assert_eq!(err, PolicyError::UnknownRestart { input: "sometimes".into() });
/// assert_eq!(
///     err.to_string(),
///     r#"unknown restart policy "sometimes": expected one of never, onFailure, always"#,
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// A string is not a [`RestartPolicy`](crate::RestartPolicy).
    #[error(r#"unknown restart policy "{input}": expected one of never, onFailure, always"#)]
    UnknownRestart {
        /// The rejected input, shortened to [`ERROR_INPUT_MAX_CHARS`](model_ids::ERROR_INPUT_MAX_CHARS) characters.
        input: String,
    },
    /// A string is not a [`JitterPolicy`](crate::JitterPolicy).
    #[error(r#"unknown jitter policy "{input}": expected one of none, full, equal, decorrelated"#)]
    UnknownJitter {
        /// The rejected input, shortened to [`ERROR_INPUT_MAX_CHARS`](model_ids::ERROR_INPUT_MAX_CHARS) characters.
        input: String,
    },
    /// A string is not an [`AdmissionPolicy`](crate::AdmissionPolicy).
    #[error(r#"unknown admission policy "{input}": expected one of dropIfRunning, replace, queue"#)]
    UnknownAdmission {
        /// The rejected input, shortened to [`ERROR_INPUT_MAX_CHARS`](model_ids::ERROR_INPUT_MAX_CHARS) characters.
        input: String,
    },
    /// A restart interval is 0 or above
    /// [`MAX_RESTART_INTERVAL_MS`](crate::MAX_RESTART_INTERVAL_MS).
    #[error(
        "invalid restart policy: intervalMs must be from 1 to {max}, got {value}",
        max = crate::MAX_RESTART_INTERVAL_MS
    )]
    InvalidInterval {
        /// The rejected interval in milliseconds.
        value: u64,
    },
    /// A restart policy other than `always` was given an interval.
    #[error("invalid restart policy: {policy} takes no intervalMs, only always does")]
    IntervalNotAllowed {
        /// The policy's name.
        policy: &'static str,
    },
    /// A [`BackoffPolicy`](crate::BackoffPolicy) field breaks a rule.
    #[error("invalid backoff: {field} {reason}")]
    InvalidBackoff {
        /// The wire name of the field, relative to the backoff object: `firstMs`, `maxMs` or
        /// `factor`. A caller embedding the policy prefixes its own path (`backoff.firstMs`).
        field: &'static str,
        /// Why the value is rejected, with the values involved.
        reason: BackoffViolation,
    },
}

impl PolicyError {
    /// The category of this error: the unknown-name kind of its policy, or
    /// [`ErrorKind::Invalid`] for a backoff or a restart interval that breaks a rule.
    ///
    /// ```
    /// use model_ids::ErrorKind;
    /// use model_policy::JitterPolicy;
    ///
    /// let err = "wobbly".parse::<JitterPolicy>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::UnknownJitter);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::UnknownRestart { .. } => ErrorKind::UnknownRestart,
            Self::UnknownJitter { .. } => ErrorKind::UnknownJitter,
            Self::UnknownAdmission { .. } => ErrorKind::UnknownAdmission,
            Self::InvalidBackoff { .. }
            | Self::InvalidInterval { .. }
            | Self::IntervalNotAllowed { .. } => ErrorKind::Invalid,
        }
    }

    /// An `UnknownRestart` error quoting `input` (shortened).
    pub(crate) fn unknown_restart(input: &str) -> Self {
        Self::UnknownRestart {
            input: shorten(input),
        }
    }

    /// An `UnknownJitter` error quoting `input` (shortened).
    pub(crate) fn unknown_jitter(input: &str) -> Self {
        Self::UnknownJitter {
            input: shorten(input),
        }
    }

    /// An `UnknownAdmission` error quoting `input` (shortened).
    pub(crate) fn unknown_admission(input: &str) -> Self {
        Self::UnknownAdmission {
            input: shorten(input),
        }
    }
}

/// Why a [`BackoffPolicy`](crate::BackoffPolicy) field is invalid.
///
/// Displays as the second half of a sentence whose subject is the field name, for example
/// `must be greater than 0, got 0`.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum BackoffViolation {
    /// `firstMs` is zero.
    Zero,
    /// `maxMs` is below `firstMs`.
    BelowFirst {
        /// The rejected `maxMs`.
        max_ms: u64,
        /// The `firstMs` it must reach.
        first_ms: u64,
    },
    /// A delay is above [`MAX_BACKOFF_MS`](crate::MAX_BACKOFF_MS).
    AboveCap {
        /// The rejected value in milliseconds.
        value: u64,
        /// The cap it exceeds.
        cap: u64,
    },
    /// `factor` is infinite or NaN.
    NotFinite {
        /// The rejected factor.
        factor: f64,
    },
    /// `factor` is below 1.0, so delays would shrink.
    BelowOne {
        /// The rejected factor.
        factor: f64,
    },
}

// Factors compare by their bits, as `BackoffPolicy` does, so NaN equals itself and errors are `Eq`.
impl PartialEq for BackoffViolation {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Zero, Self::Zero) => true,
            (
                Self::BelowFirst { max_ms, first_ms },
                Self::BelowFirst {
                    max_ms: m,
                    first_ms: f,
                },
            ) => max_ms == m && first_ms == f,
            (Self::AboveCap { value, cap }, Self::AboveCap { value: v, cap: c }) => {
                value == v && cap == c
            }
            (Self::NotFinite { factor }, Self::NotFinite { factor: f })
            | (Self::BelowOne { factor }, Self::BelowOne { factor: f }) => {
                factor.to_bits() == f.to_bits()
            }
            _ => false,
        }
    }
}

impl Eq for BackoffViolation {}

impl fmt::Display for BackoffViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Zero => f.write_str("must be greater than 0, got 0"),
            Self::BelowFirst { max_ms, first_ms } => {
                write!(f, "must be at least firstMs ({first_ms}), got {max_ms}")
            }
            Self::AboveCap { value, cap } => write!(f, "must be at most {cap}, got {value}"),
            Self::NotFinite { factor } => write!(f, "must be finite, got {factor}"),
            Self::BelowOne { factor } => write!(f, "must be at least 1.0, got {factor}"),
        }
    }
}

#[cfg(test)]
mod tests;
