//! `LeaseId`, the identity of one lease: the token a runner names in every call about its
//! attempt.

use std::fmt;
use std::str::FromStr;

use model_ids::{Base36, decode_base36};
use serde::{Deserialize, Serialize};

use crate::error::TaskError;

/// The identity of one lease, minted by the control plane when it leases an attempt to a
/// runner, and named by the runner in every call about that attempt (start, heartbeat, logs,
/// result). A call naming any other lease is gone ([`TaskError::Gone`]).
///
/// A `u64` the control plane chooses (a counter, or random bits); this crate only compares
/// lease ids, it never mints them. A lease id is new within a task:
/// [`Task::lease_attempt`](crate::Task::lease_attempt) refuses the previous attempt's
/// ([`TaskError::LeaseReused`]). A lease id is an identity, not a secret: authenticate the
/// runner separately and keep tokens out of the model (a store keeps only a token's hash).
///
/// Shown and sent as a base-36 string (`"9ix"` for 12345), so JSON readers that hold numbers
/// as doubles cannot round it; parsing also accepts uppercase letters and leading zeros.
///
/// ```
/// use model_task::LeaseId;
/// let lease = LeaseId::new(12345);
/// assert_eq!(lease.to_string(), "9ix");
/// assert_eq!("9IX".parse::<LeaseId>()?, lease);
/// assert_eq!(serde_json::to_string(&lease)?, r#""9ix""#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LeaseId(u64);

impl LeaseId {
    /// The lease id with this value.
    pub const fn new(value: u64) -> Self {
        Self(value)
    }

    /// The value.
    pub const fn as_u64(self) -> u64 {
        self.0
    }
}

impl fmt::Display for LeaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Base36(self.0), f)
    }
}

impl FromStr for LeaseId {
    type Err = TaskError;

    /// Parses the base-36 form; a bad one is [`TaskError::Id`] with the slug error.
    fn from_str(s: &str) -> Result<Self, TaskError> {
        decode_base36(s).map(Self).map_err(|error| TaskError::Id {
            path: String::new(),
            error,
        })
    }
}

impl From<u64> for LeaseId {
    fn from(value: u64) -> Self {
        Self(value)
    }
}

impl From<LeaseId> for u64 {
    fn from(lease: LeaseId) -> Self {
        lease.0
    }
}

impl Serialize for LeaseId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for LeaseId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = LeaseId;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a base-36 lease id")
            }

            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<LeaseId, E> {
                s.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}
