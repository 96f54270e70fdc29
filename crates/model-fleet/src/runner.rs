//! Runners: the record a control plane keeps of each runner ([`Runner`]), its state
//! ([`RunnerState`]), its liveness derived from `lastSeenAt` ([`Liveness`]), the operations
//! that change it (register, heartbeat, drain, resume, mark offline), and [`Fleet`], the
//! runners of one control plane by id.

use chrono::{DateTime, Utc};
use model_ids::RunnerId;
use model_selector::Labels;
use model_task::Applied;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::error::FleetError;
use crate::route::KindSet;

mod fleet;
mod liveness;
mod wire;

pub use self::{
    fleet::Fleet,
    liveness::{DEFAULT_LIVENESS_TTL_MS, Liveness, LivenessTtl, MAX_LIVENESS_TTL_MS},
};
pub(crate) use self::{liveness::rfc3339, wire::RunnerRaw};

/// The capacity of a runner that does not say (`maxConcurrent` left out): one attempt at a
/// time.
pub const DEFAULT_RUNNER_CAPACITY: u32 = 1;

/// The largest `maxConcurrent` a runner may declare.
pub const MAX_RUNNER_CAPACITY: u32 = 1_024;

/// Whether a runner takes new work: the state an operator or the runner itself sets.
/// Liveness is separate and derived ([`Liveness`]).
///
/// ```text
/// register ──► online ──drain──► draining ──resume──► online
///                │                  │
///                └──mark offline────┴──► offline ──register──► online
/// ```
///
/// On the wire: `"online"`, `"draining"`, `"offline"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum RunnerState {
    /// Takes new work while alive and below its capacity.
    #[default]
    Online,
    /// Finishes what it holds and takes nothing new.
    Draining,
    /// Marked offline after it stopped heartbeating; takes nothing until it registers again.
    Offline,
}

impl RunnerState {
    /// Every state, in declaration order.
    pub const ALL: [RunnerState; 3] = [
        RunnerState::Online,
        RunnerState::Draining,
        RunnerState::Offline,
    ];

    /// The wire name: `online`, `draining` or `offline`.
    pub const fn as_str(self) -> &'static str {
        match self {
            RunnerState::Online => "online",
            RunnerState::Draining => "draining",
            RunnerState::Offline => "offline",
        }
    }
}

impl std::fmt::Display for RunnerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a runner takes nothing new now: each reason that holds, from
/// [`Runner::unavailable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RunnerUnavailable {
    /// The runner is draining.
    Draining,
    /// The runner is offline.
    Offline,
    /// The runner has not been seen within the liveness TTL (or never).
    Stale {
        /// When it was last seen, if ever.
        last_seen_at: Option<DateTime<Utc>>,
    },
    /// The runner holds as many active attempts as its capacity.
    Full {
        /// The active attempts it holds.
        active: u32,
        /// Its capacity (`maxConcurrent`).
        max_concurrent: u32,
    },
}

impl std::fmt::Display for RunnerUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunnerUnavailable::Draining => f.write_str("the runner is draining"),
            RunnerUnavailable::Offline => f.write_str("the runner is offline"),
            RunnerUnavailable::Stale {
                last_seen_at: Some(at),
            } => write!(
                f,
                "the runner is stale (last seen at {})",
                liveness::rfc3339(*at)
            ),
            RunnerUnavailable::Stale { last_seen_at: None } => {
                f.write_str("the runner is stale (never seen)")
            }
            RunnerUnavailable::Full {
                active,
                max_concurrent,
            } => write!(
                f,
                "the runner is at capacity ({active} of {max_concurrent} active)"
            ),
        }
    }
}

/// A runner as a control plane records it: id, labels, the task kinds it runs, its
/// capacity (`maxConcurrent`), its [`RunnerState`] and when it was last seen.
///
/// Liveness is never stored: [`liveness`](Self::liveness) derives it from `lastSeenAt`, a
/// TTL and `now`. A runner takes new work ([`free_capacity`](Self::free_capacity) above 0)
/// only while it is online, alive and below its capacity.
///
/// On the wire (camelCase; `labels`, `maxConcurrent`, `state` and `lastSeenAt` may be left
/// out: no labels, [`DEFAULT_RUNNER_CAPACITY`], online, never seen):
/// `{"id": "eu-1", "labels": {"zone": "eu"}, "kinds": ["subprocess"], "maxConcurrent": 4,
/// "state": "online", "lastSeenAt": "2026-11-22T10:00:00Z"}`. An inventory of runners
/// (`taskctl route --runners`) is a JSON array of them.
///
/// ```
/// use chrono::{TimeDelta, TimeZone, Utc};
/// use model_fleet::{Liveness, LivenessTtl, Runner, RunnerState};
/// use model_ids::RunnerId;
/// use model_fleet::KindSet;
///
/// let t0 = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap();
/// let ttl = LivenessTtl::from_ms(30_000)?;
/// let runner = Runner::builder(RunnerId::new("eu-1")?, KindSet::ALL)
///     .max_concurrent(2)
///     .build()?
///     .register(None, t0, ttl)?;
/// assert_eq!(runner.state(), RunnerState::Online);
/// assert_eq!(runner.free_capacity(1, t0, ttl), 1);
/// assert_eq!(runner.liveness(t0 + TimeDelta::seconds(30), ttl), Liveness::Stale);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RunnerRaw", rename_all = "camelCase")]
pub struct Runner {
    id: RunnerId,
    labels: Labels,
    kinds: KindSet,
    max_concurrent: u32,
    state: RunnerState,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_seen_at: Option<DateTime<Utc>>,
}

/// Builds a [`Runner`]: [`Runner::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct RunnerBuilder {
    id: RunnerId,
    kinds: KindSet,
    labels: Labels,
    max_concurrent: u32,
}

impl RunnerBuilder {
    /// The runner's labels (none by default).
    pub fn labels(mut self, labels: Labels) -> Self {
        self.labels = labels;
        self
    }

    /// The most attempts it runs at once ([`DEFAULT_RUNNER_CAPACITY`] by default).
    pub fn max_concurrent(mut self, max_concurrent: u32) -> Self {
        self.max_concurrent = max_concurrent;
        self
    }

    /// The runner: online, never seen.
    ///
    /// # Errors
    ///
    /// [`FleetError::CapacityOutOfRange`] for a `maxConcurrent` of 0 or above
    /// [`MAX_RUNNER_CAPACITY`].
    pub fn build(self) -> Result<Runner, FleetError> {
        check_capacity(u64::from(self.max_concurrent))?;
        Ok(Runner {
            id: self.id,
            labels: self.labels,
            kinds: self.kinds,
            max_concurrent: self.max_concurrent,
            state: RunnerState::Online,
            last_seen_at: None,
        })
    }
}

/// `max_concurrent` if it is within 1 to [`MAX_RUNNER_CAPACITY`].
pub(crate) fn check_capacity(max_concurrent: u64) -> Result<u32, FleetError> {
    u32::try_from(max_concurrent)
        .ok()
        .filter(|n| (1..=MAX_RUNNER_CAPACITY).contains(n))
        .ok_or(FleetError::CapacityOutOfRange {
            input: max_concurrent,
        })
}

impl Runner {
    /// A builder for runner `id`, which runs the task kinds `kinds`.
    pub fn builder(id: RunnerId, kinds: KindSet) -> RunnerBuilder {
        RunnerBuilder {
            id,
            kinds,
            labels: Labels::new(),
            max_concurrent: DEFAULT_RUNNER_CAPACITY,
        }
    }

    /// The runner's id.
    pub const fn id(&self) -> &RunnerId {
        &self.id
    }

    /// The runner's labels, which task runner selectors match.
    pub const fn labels(&self) -> &Labels {
        &self.labels
    }

    /// The task kinds it runs.
    pub const fn kinds(&self) -> &KindSet {
        &self.kinds
    }

    /// The most attempts it runs at once (`maxConcurrent`).
    pub const fn max_concurrent(&self) -> u32 {
        self.max_concurrent
    }

    /// Online, draining or offline.
    pub const fn state(&self) -> RunnerState {
        self.state
    }

    /// When it was last seen (registered or heartbeated), if ever.
    pub const fn last_seen_at(&self) -> Option<DateTime<Utc>> {
        self.last_seen_at
    }

    /// Alive or stale at `now`: see [`Liveness::of`].
    pub fn liveness(&self, now: DateTime<Utc>, ttl: LivenessTtl) -> Liveness {
        Liveness::of(self.last_seen_at, now, ttl)
    }

    /// How many more attempts the runner takes at `now` while it holds `active`: its
    /// capacity minus `active` when it is online and alive, and 0 otherwise.
    pub fn free_capacity(&self, active: u32, now: DateTime<Utc>, ttl: LivenessTtl) -> u32 {
        if self.state != RunnerState::Online || self.liveness(now, ttl) != Liveness::Alive {
            return 0;
        }
        self.max_concurrent.saturating_sub(active)
    }

    /// Every reason the runner takes nothing new at `now` while it holds `active`; empty
    /// exactly when [`free_capacity`](Self::free_capacity) is above 0.
    pub fn unavailable(
        &self,
        active: u32,
        now: DateTime<Utc>,
        ttl: LivenessTtl,
    ) -> SmallVec<[RunnerUnavailable; 3]> {
        let mut reasons = SmallVec::new();
        match self.state {
            RunnerState::Online => {}
            RunnerState::Draining => reasons.push(RunnerUnavailable::Draining),
            RunnerState::Offline => reasons.push(RunnerUnavailable::Offline),
        }
        if self.liveness(now, ttl) == Liveness::Stale {
            reasons.push(RunnerUnavailable::Stale {
                last_seen_at: self.last_seen_at,
            });
        }
        if active >= self.max_concurrent {
            reasons.push(RunnerUnavailable::Full {
                active,
                max_concurrent: self.max_concurrent,
            });
        }
        reasons
    }

    /// This runner registered at `now`, where `previous` is the record already kept under
    /// its id, if any: online, last seen at `now`, with this runner's labels, kinds and
    /// capacity.
    ///
    /// A runner registers once. It may register again once its previous record is offline
    /// or stale (a runner that restarted before it was marked offline).
    ///
    /// # Errors
    ///
    /// [`FleetError::AlreadyRegistered`] when `previous` is online or draining and alive at
    /// `now`. A `previous` record of another id is ignored.
    pub fn register(
        mut self,
        previous: Option<&Runner>,
        now: DateTime<Utc>,
        ttl: LivenessTtl,
    ) -> Result<Runner, FleetError> {
        if let Some(previous) = previous.filter(|p| p.id == self.id)
            && previous.state != RunnerState::Offline
            && previous.liveness(now, ttl) == Liveness::Alive
        {
            return Err(FleetError::AlreadyRegistered {
                runner: self.id,
                state: previous.state,
            });
        }
        self.state = RunnerState::Online;
        self.last_seen_at = Some(now);
        Ok(self)
    }

    /// Records a heartbeat at `now`: `lastSeenAt` moves to `now`, never back.
    ///
    /// `Unchanged` when `now` is not after `lastSeenAt` (a repeat).
    ///
    /// # Errors
    ///
    /// [`FleetError::RunnerOffline`] for an offline runner: it registers again.
    pub fn heartbeat(&mut self, now: DateTime<Utc>) -> Result<Applied, FleetError> {
        self.check_not_offline("heartbeat")?;
        if self.last_seen_at.is_some_and(|seen| seen >= now) {
            return Ok(Applied::Unchanged);
        }
        self.last_seen_at = Some(now);
        Ok(Applied::Changed(()))
    }

    /// Drains the runner: it finishes what it holds and takes nothing new.
    ///
    /// `Unchanged` for a draining runner.
    ///
    /// # Errors
    ///
    /// [`FleetError::RunnerOffline`] for an offline runner.
    pub fn drain(&mut self) -> Result<Applied, FleetError> {
        self.set_state("drain", RunnerState::Draining)
    }

    /// Ends a drain: the runner takes new work again.
    ///
    /// `Unchanged` for an online runner.
    ///
    /// # Errors
    ///
    /// [`FleetError::RunnerOffline`] for an offline runner: it registers again.
    pub fn resume(&mut self) -> Result<Applied, FleetError> {
        self.set_state("resume", RunnerState::Online)
    }

    /// Marks the runner offline, which is allowed once it is stale at `now`: the decision a
    /// control plane's reaper makes.
    ///
    /// `Unchanged` for an offline runner.
    ///
    /// # Errors
    ///
    /// [`FleetError::RunnerAlive`] when the runner is alive at `now`.
    pub fn mark_offline(
        &mut self,
        now: DateTime<Utc>,
        ttl: LivenessTtl,
    ) -> Result<Applied, FleetError> {
        if self.state == RunnerState::Offline {
            return Ok(Applied::Unchanged);
        }
        if self.liveness(now, ttl) == Liveness::Alive {
            return Err(FleetError::RunnerAlive {
                runner: self.id.clone(),
                last_seen_at: self.last_seen_at,
                ttl_ms: ttl.as_ms(),
            });
        }
        self.state = RunnerState::Offline;
        Ok(Applied::Changed(()))
    }

    fn check_not_offline(&self, operation: &'static str) -> Result<(), FleetError> {
        if self.state == RunnerState::Offline {
            return Err(FleetError::RunnerOffline {
                runner: self.id.clone(),
                operation,
            });
        }
        Ok(())
    }

    fn set_state(
        &mut self,
        operation: &'static str,
        state: RunnerState,
    ) -> Result<Applied, FleetError> {
        self.check_not_offline(operation)?;
        if self.state == state {
            return Ok(Applied::Unchanged);
        }
        self.state = state;
        Ok(Applied::Changed(()))
    }
}

#[cfg(test)]
mod tests;
