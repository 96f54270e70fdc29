//! The raw twin a [`Runner`] is read through: every field as the wire has it, then checked.

use crate::route::KindSet;
use chrono::{DateTime, Utc};
use model_ids::RunnerId;
use model_selector::Labels;
use serde::Deserialize;

use super::{DEFAULT_RUNNER_CAPACITY, Runner, RunnerState, check_capacity};
use crate::error::FleetError;

/// A runner as read, before its rules are checked. `null` in an optional field reads as
/// absent.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RunnerRaw {
    id: RunnerId,
    #[serde(default)]
    labels: Option<Labels>,
    kinds: KindSet,
    /// Read as a `u64`, so a negative or huge number reaches the range check.
    #[serde(default)]
    max_concurrent: Option<u64>,
    #[serde(default)]
    state: Option<RunnerState>,
    #[serde(default)]
    last_seen_at: Option<DateTime<Utc>>,
}

impl TryFrom<RunnerRaw> for Runner {
    type Error = FleetError;

    fn try_from(raw: RunnerRaw) -> Result<Self, FleetError> {
        let max_concurrent = match raw.max_concurrent {
            Some(n) => check_capacity(n)?,
            None => DEFAULT_RUNNER_CAPACITY,
        };
        Ok(Runner {
            id: raw.id,
            labels: raw.labels.unwrap_or_default(),
            kinds: raw.kinds,
            max_concurrent,
            state: raw.state.unwrap_or_default(),
            last_seen_at: raw.last_seen_at,
        })
    }
}
