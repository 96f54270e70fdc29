//! `Timeout`, the per-attempt time limit.

use serde::{Deserialize, Serialize};

use super::limits::MAX_TIMEOUT_MS;
use crate::error::{InvalidReason, TaskError};

/// How long one attempt may run, in milliseconds: non-zero and at most [`MAX_TIMEOUT_MS`].
///
/// On the wire, a plain number of milliseconds (`"timeoutMs": 5000` in a spec).
///
/// ```
/// use model_task::spec::Timeout;
/// assert_eq!(Timeout::new(5_000)?.as_millis(), 5_000);
/// assert!(Timeout::new(0).is_err());
/// # Ok::<(), model_task::TaskError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Timeout(u64);

impl Timeout {
    /// Validates and builds a timeout.
    pub const fn new(ms: u64) -> Result<Self, TaskError> {
        if ms == 0 {
            Err(TaskError::Invalid {
                path: String::new(),
                input: None,
                reason: InvalidReason::Zero,
            })
        } else if ms > MAX_TIMEOUT_MS {
            Err(TaskError::Invalid {
                path: String::new(),
                input: None,
                reason: InvalidReason::TooLarge {
                    value: ms,
                    max: MAX_TIMEOUT_MS,
                },
            })
        } else {
            Ok(Self(ms))
        }
    }

    /// The timeout in milliseconds.
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// The timeout as a [`std::time::Duration`].
    pub const fn as_duration(self) -> std::time::Duration {
        std::time::Duration::from_millis(self.0)
    }
}

impl TryFrom<u64> for Timeout {
    type Error = TaskError;

    fn try_from(ms: u64) -> Result<Self, TaskError> {
        Self::new(ms)
    }
}

impl<'de> Deserialize<'de> for Timeout {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::new(u64::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
