//! `Lifecycle`: draft, then sealed; `Stage`, the derived view that adds expired, which is
//! never stored.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{InvalidReason, RetentionError};

/// How a finished resource ended, for history limits: a schedule keeps its newest
/// succeeded and its newest failed runs apart, as Kubernetes' CronJob keeps successful and
/// failed jobs.
///
/// Every end that is not a success counts as failed (a task that failed, timed out, was
/// canceled or ran out of retries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// It succeeded.
    Succeeded,
    /// It ended any other way.
    Failed,
}

/// A resource's stored state as retention sees it: two states only, draft then sealed.
///
/// A draft is active and mutable: a pending or running task or attempt, a flow with jobs
/// left, a schedule that can still fire. Nothing in draft is ever collected. A resource is
/// sealed when it finishes, at a time and with an [`Outcome`]; its retention timer starts
/// then. Expired is derived, never stored ([`Lifecycle::stage`]).
///
/// On the wire: `{"state": "draft"}` or
/// `{"state": "sealed", "at": "2026-11-22T02:05:00Z", "outcome": "succeeded"}`.
///
/// ```
/// use chrono::{TimeDelta, TimeZone, Utc};
/// use model_retention::{Lifecycle, Outcome, Stage};
///
/// let at = Utc.with_ymd_and_hms(2026, 11, 22, 2, 0, 0).unwrap();
/// let sealed = Lifecycle::sealed(at, Outcome::Succeeded);
/// let hour = 3_600_000;
/// assert_eq!(sealed.expires_at(Some(hour)), Some(at + TimeDelta::hours(1)));
///
/// let later = at + TimeDelta::hours(1);
/// assert_eq!(sealed.stage(later, Some(hour), true), Stage::Expired);
/// // Still owning something, or without a time to live, it is only sealed.
/// assert_eq!(sealed.stage(later, Some(hour), false), Stage::Sealed);
/// assert_eq!(sealed.stage(later, None, true), Stage::Sealed);
/// assert_eq!(Lifecycle::Draft.stage(later, Some(0), true), Stage::Draft);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "LifecycleRaw", into = "LifecycleRaw")]
pub enum Lifecycle {
    /// Active: mutable, owned work may still be added, never collected.
    Draft,
    /// Finished: immutable from now on; the retention timer starts at `at`.
    Sealed {
        /// When it finished.
        at: DateTime<Utc>,
        /// How it ended.
        outcome: Outcome,
    },
}

/// Where a resource is in its lifecycle at a given time: [`Lifecycle`]'s two stored states
/// plus the derived one, expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Active.
    Draft,
    /// Finished, and kept: no time to live, the time has not passed, or it still owns
    /// something.
    Sealed,
    /// Finished, a time to live set, the time passed, and nothing still owned: it may be
    /// deleted.
    Expired,
}

impl Lifecycle {
    /// Sealed at `at` with `outcome`.
    pub const fn sealed(at: DateTime<Utc>, outcome: Outcome) -> Self {
        Self::Sealed { at, outcome }
    }

    /// Whether it is a draft (active).
    pub const fn is_draft(self) -> bool {
        matches!(self, Self::Draft)
    }

    /// When it was sealed, if it was.
    pub const fn sealed_at(self) -> Option<DateTime<Utc>> {
        match self {
            Self::Draft => None,
            Self::Sealed { at, .. } => Some(at),
        }
    }

    /// How it ended, if it did.
    pub const fn outcome(self) -> Option<Outcome> {
        match self {
            Self::Draft => None,
            Self::Sealed { outcome, .. } => Some(outcome),
        }
    }

    /// When its time to live runs out: sealed time plus `ttl_ms`. `None` for a draft, for
    /// no time to live (kept until deleted), and for a time past the last one chrono holds
    /// (which never comes).
    pub fn expires_at(self, ttl_ms: Option<u64>) -> Option<DateTime<Utc>> {
        let at = self.sealed_at()?;
        let ttl = TimeDelta::try_milliseconds(i64::try_from(ttl_ms?).ok()?)?;
        at.checked_add_signed(ttl)
    }

    /// The stage at `now`: expired when all four hold (sealed, a time to live set, `now` at
    /// or after the expiry, and `owns_nothing`), the stored state otherwise.
    pub fn stage(self, now: DateTime<Utc>, ttl_ms: Option<u64>, owns_nothing: bool) -> Stage {
        match self {
            Self::Draft => Stage::Draft,
            Self::Sealed { .. } => match self.expires_at(ttl_ms) {
                Some(expiry) if now >= expiry && owns_nothing => Stage::Expired,
                _ => Stage::Sealed,
            },
        }
    }
}

/// The two stored states, as the wire names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum State {
    Draft,
    Sealed,
}

/// The wire form of [`Lifecycle`]: a state, and for a sealed one when and how.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct LifecycleRaw {
    state: State,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    outcome: Option<Outcome>,
}

impl TryFrom<LifecycleRaw> for Lifecycle {
    type Error = RetentionError;

    fn try_from(raw: LifecycleRaw) -> Result<Self, RetentionError> {
        let rule =
            |path: &str, rule| RetentionError::invalid(path, InvalidReason::Missing { rule });
        match (raw.state, raw.at, raw.outcome) {
            (State::Draft, None, None) => Ok(Self::Draft),
            (State::Draft, _, _) => Err(RetentionError::invalid(
                "state",
                InvalidReason::Inconsistent {
                    rule: "a draft has no `at` or `outcome` (it has not finished)",
                },
            )),
            (State::Sealed, Some(at), Some(outcome)) => Ok(Self::Sealed { at, outcome }),
            (State::Sealed, None, _) => Err(rule("at", "a sealed resource says when it finished")),
            (State::Sealed, _, None) => Err(rule("outcome", "a sealed resource says how it ended")),
        }
    }
}

impl From<Lifecycle> for LifecycleRaw {
    fn from(lifecycle: Lifecycle) -> Self {
        match lifecycle {
            Lifecycle::Draft => Self {
                state: State::Draft,
                at: None,
                outcome: None,
            },
            Lifecycle::Sealed { at, outcome } => Self {
                state: State::Sealed,
                at: Some(at),
                outcome: Some(outcome),
            },
        }
    }
}

#[cfg(test)]
mod tests;
