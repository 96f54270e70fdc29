//! `Fleet`: the runners of one control plane by id, with the runner operations addressed by
//! id (an unknown id is an error), and the reaper's pass that marks stale runners offline.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use model_ids::RunnerId;
use model_selector::MAX_RUNNERS;
use model_task::Applied;

use super::{Liveness, LivenessTtl, Runner, RunnerState};
use crate::error::FleetError;

/// The runners of one control plane by id, with one liveness TTL: the in-memory reference
/// of what a store keeps in its runners table (a simulator or a small control plane uses it
/// as is). At most [`MAX_RUNNERS`] runners.
///
/// Each operation looks the runner up and applies the [`Runner`] method of the same name;
/// a store does the same with the row it read.
///
/// ```
/// use chrono::{TimeDelta, TimeZone, Utc};
/// use model_fleet::{Fleet, LivenessTtl, Runner, RunnerState};
/// use model_ids::RunnerId;
/// use model_fleet::KindSet;
///
/// let t0 = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap();
/// let mut fleet = Fleet::new(LivenessTtl::from_ms(30_000)?);
/// let id = RunnerId::new("eu-1")?;
/// fleet.register(Runner::builder(id.clone(), KindSet::ALL).build()?, t0)?;
/// let _ = fleet.heartbeat(&id, t0 + TimeDelta::seconds(10))?;
/// assert!(fleet.reap(t0 + TimeDelta::seconds(39)).is_empty());
/// assert_eq!(fleet.reap(t0 + TimeDelta::seconds(40)), [id.clone()]);
/// assert_eq!(fleet.get(&id).map(Runner::state), Some(RunnerState::Offline));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Fleet {
    ttl: LivenessTtl,
    runners: BTreeMap<RunnerId, Runner>,
}

impl Fleet {
    /// A fleet without runners, whose runners are alive for `ttl` after they were last seen.
    pub fn new(ttl: LivenessTtl) -> Self {
        Self {
            ttl,
            runners: BTreeMap::new(),
        }
    }

    /// The liveness TTL.
    pub const fn ttl(&self) -> LivenessTtl {
        self.ttl
    }

    /// The runner `id`, if registered.
    pub fn get(&self, id: &RunnerId) -> Option<&Runner> {
        self.runners.get(id)
    }

    /// Every runner, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &Runner> {
        self.runners.values()
    }

    /// How many runners there are.
    pub fn len(&self) -> usize {
        self.runners.len()
    }

    /// Whether there is no runner.
    pub fn is_empty(&self) -> bool {
        self.runners.is_empty()
    }

    /// Registers `runner` at `now` ([`Runner::register`]) and returns the record kept.
    ///
    /// # Errors
    ///
    /// [`FleetError::AlreadyRegistered`] as [`Runner::register`] says;
    /// [`FleetError::TooManyRunners`] for a new runner past [`MAX_RUNNERS`].
    pub fn register(&mut self, runner: Runner, now: DateTime<Utc>) -> Result<&Runner, FleetError> {
        let previous = self.runners.get(runner.id());
        if previous.is_none() && self.runners.len() >= MAX_RUNNERS {
            return Err(FleetError::TooManyRunners { max: MAX_RUNNERS });
        }
        let runner = runner.register(previous, now, self.ttl)?;
        let id = runner.id().clone();
        Ok(self.runners.entry(id).insert_entry(runner).into_mut())
    }

    /// A heartbeat from runner `id` at `now` ([`Runner::heartbeat`]).
    ///
    /// # Errors
    ///
    /// [`FleetError::UnknownRunner`], or the runner's error.
    pub fn heartbeat(&mut self, id: &RunnerId, now: DateTime<Utc>) -> Result<Applied, FleetError> {
        self.runner_mut(id)?.heartbeat(now)
    }

    /// Drains runner `id` ([`Runner::drain`]).
    ///
    /// # Errors
    ///
    /// [`FleetError::UnknownRunner`], or the runner's error.
    pub fn drain(&mut self, id: &RunnerId) -> Result<Applied, FleetError> {
        self.runner_mut(id)?.drain()
    }

    /// Ends the drain of runner `id` ([`Runner::resume`]).
    ///
    /// # Errors
    ///
    /// [`FleetError::UnknownRunner`], or the runner's error.
    pub fn resume(&mut self, id: &RunnerId) -> Result<Applied, FleetError> {
        self.runner_mut(id)?.resume()
    }

    /// Marks runner `id` offline at `now` ([`Runner::mark_offline`]).
    ///
    /// # Errors
    ///
    /// [`FleetError::UnknownRunner`], or the runner's error.
    pub fn mark_offline(
        &mut self,
        id: &RunnerId,
        now: DateTime<Utc>,
    ) -> Result<Applied, FleetError> {
        let ttl = self.ttl;
        self.runner_mut(id)?.mark_offline(now, ttl)
    }

    /// Removes runner `id` and returns its record.
    ///
    /// # Errors
    ///
    /// [`FleetError::UnknownRunner`].
    pub fn remove(&mut self, id: &RunnerId) -> Result<Runner, FleetError> {
        self.runners
            .remove(id)
            .ok_or_else(|| FleetError::UnknownRunner { runner: id.clone() })
    }

    /// The reaper's pass at `now`: marks every runner that is stale and not yet offline
    /// offline, and returns their ids in id order.
    pub fn reap(&mut self, now: DateTime<Utc>) -> Vec<RunnerId> {
        let ttl = self.ttl;
        let mut reaped = Vec::new();
        for runner in self.runners.values_mut() {
            if runner.state() != RunnerState::Offline
                && runner.liveness(now, ttl) == Liveness::Stale
                && runner.mark_offline(now, ttl).is_ok()
            {
                reaped.push(runner.id().clone());
            }
        }
        reaped
    }

    fn runner_mut(&mut self, id: &RunnerId) -> Result<&mut Runner, FleetError> {
        self.runners
            .get_mut(id)
            .ok_or_else(|| FleetError::UnknownRunner { runner: id.clone() })
    }
}
