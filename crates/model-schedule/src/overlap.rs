//! `OverlapPolicy`: what a tick does while the schedule's previous run is still going.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

use model_ids::text::shorten;

use crate::error::ScheduleError;

/// What to do when a tick comes while the run started by an earlier tick is still active,
/// after Temporal's overlap policies and Kubernetes CronJob's `concurrencyPolicy`.
///
/// camelCase on the wire (`"allow"`, `"skip"`, `"bufferOne"`, `"replace"`); [`FromStr`]
/// also takes any case and the kebab and snake spellings. The default is `skip`, Temporal's.
///
/// ```
/// use model_schedule::{OverlapDecision, OverlapPolicy};
///
/// let policy: OverlapPolicy = "buffer-one".parse()?;
/// assert_eq!(policy.to_string(), "bufferOne");
/// // The previous run is active and nothing is buffered yet: keep this tick for later.
/// assert_eq!(policy.decide(true, false), OverlapDecision::Buffer);
/// // A tick is already buffered: this one is dropped.
/// assert_eq!(policy.decide(true, true), OverlapDecision::Skip);
/// // Nothing is running: start, whatever the policy.
/// assert_eq!(policy.decide(false, false), OverlapDecision::Start);
/// # Ok::<(), model_schedule::ScheduleError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum OverlapPolicy {
    /// Start another run beside the active one (Kubernetes `Allow`, Temporal `AllowAll`).
    Allow,
    /// Drop the tick (Kubernetes `Forbid`, Temporal `Skip`).
    #[default]
    Skip,
    /// Keep at most one tick and start it when the active run ends; drop any further ones
    /// (Temporal `BufferOne`).
    BufferOne,
    /// Cancel the active run, then start (Kubernetes `Replace`, Temporal `CancelOther`).
    Replace,
}

/// What a tick does, given the overlap policy and what is active: the decision of
/// [`OverlapPolicy::decide`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OverlapDecision {
    /// Start a run for this tick now.
    Start,
    /// Drop this tick.
    Skip,
    /// Keep this tick; start it when the active run ends.
    Buffer,
    /// Cancel the active run, then start a run for this tick.
    CancelThenStart,
}

impl OverlapPolicy {
    /// Every policy, in declaration order.
    pub const ALL: [OverlapPolicy; 4] = [
        OverlapPolicy::Allow,
        OverlapPolicy::Skip,
        OverlapPolicy::BufferOne,
        OverlapPolicy::Replace,
    ];

    /// What a tick does when the previous run is `running` (or not), with a tick already
    /// `buffered` (or not). Nothing running: start. Running: `allow` starts another, `skip`
    /// drops the tick, `bufferOne` buffers it unless one is buffered (then drops it), and
    /// `replace` cancels the running one and starts.
    ///
    /// A buffered tick starts when the run ends, before any later tick is decided, so
    /// `buffered` only matters while a run is active.
    #[must_use]
    pub const fn decide(self, running: bool, buffered: bool) -> OverlapDecision {
        if !running {
            return OverlapDecision::Start;
        }
        match self {
            OverlapPolicy::Allow => OverlapDecision::Start,
            OverlapPolicy::Skip => OverlapDecision::Skip,
            OverlapPolicy::BufferOne if buffered => OverlapDecision::Skip,
            OverlapPolicy::BufferOne => OverlapDecision::Buffer,
            OverlapPolicy::Replace => OverlapDecision::CancelThenStart,
        }
    }

    /// The wire name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            OverlapPolicy::Allow => "allow",
            OverlapPolicy::Skip => "skip",
            OverlapPolicy::BufferOne => "bufferOne",
            OverlapPolicy::Replace => "replace",
        }
    }
}

impl fmt::Display for OverlapPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for OverlapPolicy {
    type Err = ScheduleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let folded: String = s
            .chars()
            .filter(|c| *c != '-' && *c != '_')
            .map(|c| c.to_ascii_lowercase())
            .collect();
        OverlapPolicy::ALL
            .into_iter()
            .find(|policy| policy.as_str().eq_ignore_ascii_case(&folded))
            .ok_or_else(|| ScheduleError::InvalidText {
                path: "overlap".to_owned(),
                input: shorten(s),
                reason: "unknown overlap policy (expected allow, skip, bufferOne or replace)",
            })
    }
}

#[cfg(test)]
mod tests;
