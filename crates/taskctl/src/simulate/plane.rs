//! The control plane the simulation drives: the [`ControlPlane`] trait (the calls a control
//! plane answers) and [`MemoryPlane`], its in-memory implementation over model-task.
//!
//! Every step is the model's own call (`Task::create`, `lease_attempt`, `start_attempt`,
//! `heartbeat_attempt`, `report_result`, `expire_attempt`, `cancel_attempt` or `cancel`), and what a runner claims is
//! model-fleet's `Queue::claim` (one running task per slot, the runner's capacity); the
//! plane only keeps the tasks, their attempts and the indexes a control plane keeps (the
//! leases by expiry, the retries by due time). [`StorePlane`] implements the same trait
//! over taskstore, whose claim keeps the same rules in SQL.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use taskmodel::AttemptState;
use taskmodel::fleet::{ClaimRequest as FleetClaim, FleetError, LivenessTtl, Queue, Runner};
use taskmodel::ids::ActionId;
use taskmodel::schedule::{Action, ScheduleError};
use taskmodel::task::{AttemptResult, TaskError};
use taskmodel::{
    Applied, LeaseId, RestartDecision, RunnerId, SeededRandom, Task, TaskId, TaskManifest, TaskRun,
    TenantId, Uid,
};

use taskstore::StoreError;

use super::clock::{Millis, instant, millis};

mod store;
mod waiting;

use self::waiting::Waiting;

pub(crate) use self::store::StorePlane;

/// Why the control plane refused a step.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PlaneError {
    /// The model refused the call.
    #[error(transparent)]
    Model(#[from] TaskError),
    /// The schedule model refused an action's change.
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    /// An action the plane does not hold.
    #[error("unknown action {0}")]
    UnknownAction(ActionId),
    /// The fleet refused a runner or a task (model-fleet's queue and runners).
    #[error(transparent)]
    Fleet(#[from] FleetError),
    /// A call named a task the plane does not hold.
    #[error("unknown task {0:?}")]
    UnknownTask(String),
    /// A call named a task whose attempt the plane does not hold.
    #[error("task {0:?} has no attempt")]
    NoAttempt(String),
    /// A flow run or a schedule refused a step, or a job's or a tick's task could not be
    /// made.
    #[error("{0}")]
    Flow(String),
    /// A second task or runner with one id.
    #[error("{0} {1:?} is submitted twice")]
    Duplicate(&'static str, String),
    /// The store refused the call (the model's reason follows its message).
    #[error("{}", chain(.0))]
    Store(#[from] StoreError),
}

impl PlaneError {
    /// Whether the call named a lease that no longer holds: the runner stops its work.
    pub(crate) fn is_gone(&self) -> bool {
        matches!(
            self,
            Self::Model(TaskError::Gone { .. }) | Self::Store(StoreError::Gone { .. })
        )
    }
}

/// An error's message followed by its sources', joined by `: `.
fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(next) = source {
        text.push_str(": ");
        text.push_str(&next.to_string());
        source = next.source();
    }
    text
}

/// A claimed attempt, as the runner that claimed it learns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Claim {
    /// The task.
    pub(crate) task: TaskId,
    /// The attempt number.
    pub(crate) attempt: u32,
    /// The lease the runner names in every call.
    pub(crate) lease: LeaseId,
}

/// An attempt the reaper ended because its lease expired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reaped {
    /// The task.
    pub(crate) task: TaskId,
    /// What the task does next.
    pub(crate) decision: RestartDecision,
}

/// The answer to a heartbeat: whether it extended the lease, and whether the attempt is
/// cancelling (a control plane asked to cancel it: the runner stops and reports Canceled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Beat {
    /// Whether the lease was extended.
    pub(crate) applied: Applied,
    /// Whether the attempt is Cancelling.
    pub(crate) cancelling: bool,
}

/// A task and every attempt it had, oldest first, as the plane holds them.
#[derive(Debug, Clone)]
pub(crate) struct Observed<'p> {
    /// The task.
    pub(crate) task: &'p Task,
    /// Its attempts.
    pub(crate) attempts: &'p [TaskRun],
}

/// The calls a control plane answers, one per step of the simulation.
///
/// Runner calls name the task and the lease; the plane holds the attempt. Times are
/// simulated instants.
pub(crate) trait ControlPlane {
    /// Registers a runner: its labels, the kinds it runs and its capacity.
    fn register(&mut self, runner: Runner, now: DateTime<Utc>) -> Result<(), PlaneError>;
    /// Creates the task `manifest` describes and queues it.
    fn submit(&mut self, manifest: TaskManifest, now: DateTime<Utc>) -> Result<(), PlaneError>;
    /// Gives `runner` the first queued task it may take, under a new lease that lasts
    /// `lease_ms`; `None` when there is none.
    fn claim(
        &mut self,
        runner: &RunnerId,
        lease_ms: Millis,
        now: DateTime<Utc>,
    ) -> Result<Option<Claim>, PlaneError>;
    /// The runner starts its attempt.
    fn start(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        now: DateTime<Utc>,
    ) -> Result<Applied, PlaneError>;
    /// The runner extends its lease by `lease_ms` from `now`; the answer says whether the
    /// attempt is cancelling.
    fn heartbeat(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        lease_ms: Millis,
        now: DateTime<Utc>,
    ) -> Result<Beat, PlaneError>;
    /// A control plane cancels the task: its active attempt goes to Cancelling (the runner
    /// learns at its next call), a task with none is canceled at once.
    fn cancel(&mut self, task: &TaskId, now: DateTime<Utc>) -> Result<Applied, PlaneError>;
    /// The runner reports how its attempt ended.
    fn finish(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        result: AttemptResult,
        now: DateTime<Utc>,
    ) -> Result<Applied<RestartDecision>, PlaneError>;
    /// Ends every attempt whose lease expired at or before `now`.
    fn reap(&mut self, now: DateTime<Utc>) -> Result<Vec<Reaped>, PlaneError>;
    /// The earliest lease expiry of an active attempt.
    fn next_expiry(&self) -> Option<DateTime<Utc>>;
    /// Queues every retry that is due at `now`; how many were.
    fn release_due(&mut self, now: DateTime<Utc>) -> usize;
    /// The earliest due time of a retry that waits.
    fn next_due(&self) -> Option<DateTime<Utc>>;
    /// A task and its attempts.
    fn observe(&self, task: &TaskId) -> Option<Observed<'_>>;
    /// Stores a new action (a schedule's tick), pending until it is due.
    fn add_action(&mut self, action: &Action) -> Result<(), PlaneError>;
    /// Fires the actions due at `now`, in `(due, id)` order: each is Running when returned.
    fn fire_due(&mut self, now: DateTime<Utc>) -> Result<Vec<Action>, PlaneError>;
    /// Completes a running action with `result`.
    fn finish_action(
        &mut self,
        action: ActionId,
        result: serde_json::Value,
        now: DateTime<Utc>,
    ) -> Result<(), PlaneError>;
}

/// One task the plane holds.
#[derive(Debug)]
struct Entry {
    task: Task,
    attempts: Vec<TaskRun>,
}

/// The control plane in memory: tasks and attempts in vectors, the queued tasks and busy
/// slots in model-fleet's [`Queue`], whose claim decides what a runner takes (the rules of
/// [`FleetClaim`]: kind, selector, due, a free slot by model-task's `admit`, free capacity),
/// and the lease and retry indexes in ordered sets, so every answer is deterministic.
#[derive(Debug)]
pub(crate) struct MemoryPlane {
    tenant: TenantId,
    entries: Vec<Entry>,
    by_id: BTreeMap<TaskId, usize>,
    runners: BTreeMap<RunnerId, Runner>,
    /// How many active attempts each runner holds (what its free capacity is counted from).
    active: BTreeMap<RunnerId, u32>,
    queue: Queue,
    /// Tasks waiting for a retry, by due time.
    waiting: Waiting<usize>,
    /// Active attempts by lease expiry, then lease (the order the store reaps them in: by
    /// expiry, then as they were claimed).
    leases: BTreeSet<(Millis, u64, usize)>,
    /// Pending actions by due time, and running ones.
    actions: BTreeMap<(Millis, ActionId), Action>,
    running_actions: BTreeMap<ActionId, Action>,
    next_lease: u64,
    /// The random source of backoff jitter.
    rng: SeededRandom,
}

/// How long a runner counts as alive after a call: every claim is a call, so a runner
/// that claims is alive.
fn runner_ttl() -> LivenessTtl {
    LivenessTtl::default()
}

impl MemoryPlane {
    /// An empty plane for `tenant` whose backoff jitter comes from `rng`.
    pub(crate) fn new(tenant: TenantId, rng: SeededRandom) -> Self {
        Self {
            queue: Queue::new(tenant.clone()),
            tenant,
            entries: Vec::new(),
            by_id: BTreeMap::new(),
            runners: BTreeMap::new(),
            active: BTreeMap::new(),
            waiting: Waiting::new(),
            leases: BTreeSet::new(),
            actions: BTreeMap::new(),
            running_actions: BTreeMap::new(),
            next_lease: 0,
            rng,
        }
    }

    fn index(&self, task: &TaskId) -> Result<usize, PlaneError> {
        self.by_id
            .get(task)
            .copied()
            .ok_or_else(|| PlaneError::UnknownTask(task.to_string()))
    }

    fn entry(&mut self, index: usize) -> Result<&mut Entry, PlaneError> {
        self.entries
            .get_mut(index)
            .ok_or_else(|| PlaneError::UnknownTask(format!("#{index}")))
    }

    /// Files the task at `index` where its state says: the queue follows it (queued,
    /// running in its slot, or gone), a retry waits under its due time, and its active
    /// attempt under its lease expiry and on its runner's count.
    fn file(&mut self, index: usize) -> Result<(), PlaneError> {
        let Some(entry) = self.entries.get(index) else {
            return Ok(());
        };
        self.queue.update(&entry.task)?;
        let status = entry.task.status();
        if let (Some(queued), Some(_)) = (status.queued_at(), status.next_attempt_at()) {
            self.waiting.insert(queued, index);
        }
        if let Some(run) = entry.attempts.last().filter(|run| run.is_active()) {
            let key = (millis(run.lease_expires_at()), run.lease().as_u64(), index);
            self.leases.insert(key);
            *self.active.entry(run.runner().clone()).or_insert(0) += 1;
        }
        Ok(())
    }

    /// Takes the task at `index` out of the retry and lease indexes and its runner's count,
    /// before a change re-files it.
    fn unfile(&mut self, index: usize) {
        let Some(entry) = self.entries.get(index) else {
            return;
        };
        if let Some(queued) = entry.task.status().queued_at() {
            self.waiting.remove(queued, index);
        }
        if let Some(run) = entry.attempts.last().filter(|run| run.is_active()) {
            let key = (millis(run.lease_expires_at()), run.lease().as_u64(), index);
            self.leases.remove(&key);
            if let Some(count) = self.active.get_mut(run.runner()) {
                *count = count.saturating_sub(1);
            }
        }
    }

    /// Applies `change` to the task at `index` and its current attempt, keeping the indexes.
    fn change<T>(
        &mut self,
        index: usize,
        change: impl FnOnce(&mut Task, &mut TaskRun, &mut SeededRandom) -> Result<T, TaskError>,
    ) -> Result<T, PlaneError> {
        self.unfile(index);
        let mut rng = self.rng.clone();
        let result = self.entry(index).and_then(|entry| {
            let Entry { task, attempts } = entry;
            let id = task.id().to_string();
            let run = attempts.last_mut().ok_or(PlaneError::NoAttempt(id))?;
            Ok(change(task, run, &mut rng)?)
        });
        self.rng = rng;
        self.file(index)?;
        result
    }
}

impl ControlPlane for MemoryPlane {
    fn register(&mut self, runner: Runner, now: DateTime<Utc>) -> Result<(), PlaneError> {
        if self.runners.contains_key(runner.id()) {
            return Err(PlaneError::Duplicate("runner", runner.id().to_string()));
        }
        let runner = runner.register(None, now, runner_ttl())?;
        self.runners.insert(runner.id().clone(), runner);
        Ok(())
    }

    fn submit(&mut self, manifest: TaskManifest, now: DateTime<Utc>) -> Result<(), PlaneError> {
        let index = self.entries.len();
        let uid = Uid::from_u128(u128::try_from(index).unwrap_or(u128::MAX).saturating_add(1));
        let task = Task::create(manifest, self.tenant.clone(), uid, now)?;
        if self.by_id.contains_key(task.id()) {
            return Err(PlaneError::Duplicate("task", task.id().to_string()));
        }
        self.by_id.insert(task.id().clone(), index);
        self.entries.push(Entry {
            task,
            attempts: Vec::new(),
        });
        self.file(index)
    }

    fn claim(
        &mut self,
        runner: &RunnerId,
        lease_ms: Millis,
        now: DateTime<Utc>,
    ) -> Result<Option<Claim>, PlaneError> {
        let Some(profile) = self.runners.get_mut(runner) else {
            return Ok(None);
        };
        // A claim is a call: the runner is seen now (unchanged when it was already).
        let _seen = profile.heartbeat(now)?;
        let active = self.active.get(runner).copied().unwrap_or(0);
        let request = FleetClaim::new(profile, active, now, runner_ttl());
        let found = self
            .queue
            .claim(&request)
            .map(|task| task.key().id().clone());
        let Some(index) = found.map(|id| self.index(&id)).transpose()? else {
            return Ok(None);
        };
        self.unfile(index);
        self.next_lease += 1;
        let lease = LeaseId::new(self.next_lease);
        let expires = instant(millis(now).saturating_add(lease_ms));
        let claimed = self.entry(index).and_then(|entry| {
            let run = entry.task.lease_attempt(
                None,
                entry.attempts.last(),
                runner.clone(),
                lease,
                expires,
                now,
            )?;
            let claim = Claim {
                task: entry.task.id().clone(),
                attempt: run.attempt(),
                lease,
            };
            entry.attempts.push(run);
            Ok(claim)
        });
        self.file(index)?;
        claimed.map(Some)
    }

    fn start(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        now: DateTime<Utc>,
    ) -> Result<Applied, PlaneError> {
        let index = self.index(task)?;
        self.change(index, |task, run, _| task.start_attempt(run, lease, now))
    }

    fn heartbeat(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        lease_ms: Millis,
        now: DateTime<Utc>,
    ) -> Result<Beat, PlaneError> {
        let index = self.index(task)?;
        let until = instant(millis(now).saturating_add(lease_ms));
        self.change(index, |task, run, _| {
            let applied = task.heartbeat_attempt(run, lease, until, now)?;
            let cancelling = run.state() == AttemptState::Cancelling;
            Ok(Beat {
                applied,
                cancelling,
            })
        })
    }

    fn cancel(&mut self, task: &TaskId, now: DateTime<Utc>) -> Result<Applied, PlaneError> {
        let index = self.index(task)?;
        self.unfile(index);
        let result = self.entry(index).and_then(|entry| {
            let Entry { task, attempts } = entry;
            // Cancel intent on the current attempt, or the task canceled at once when it has
            // none, as taskstore's `cancel` does.
            Ok(match attempts.last_mut() {
                Some(run) => task.cancel_attempt(None, run, now)?,
                None => {
                    task.cancel(None, now)?;
                    Applied::Changed(())
                }
            })
        });
        self.file(index)?;
        result
    }

    fn finish(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        result: AttemptResult,
        now: DateTime<Utc>,
    ) -> Result<Applied<RestartDecision>, PlaneError> {
        let index = self.index(task)?;
        self.change(index, |task, run, rng| {
            task.report_result(run, lease, result, rng, now)
        })
    }

    fn reap(&mut self, now: DateTime<Utc>) -> Result<Vec<Reaped>, PlaneError> {
        let due: Vec<usize> = self
            .leases
            .range(..=(millis(now), u64::MAX, usize::MAX))
            .map(|(_, _, index)| *index)
            .collect();
        let mut reaped = Vec::with_capacity(due.len());
        for index in due {
            let applied =
                self.change(index, |task, run, rng| task.expire_attempt(run, rng, now))?;
            if let Applied::Changed(decision) = applied {
                let task = self.entry(index)?.task.id().clone();
                reaped.push(Reaped { task, decision });
            }
        }
        Ok(reaped)
    }

    fn next_expiry(&self) -> Option<DateTime<Utc>> {
        self.leases.first().map(|(at, _, _)| instant(*at))
    }

    fn release_due(&mut self, now: DateTime<Utc>) -> usize {
        // The queue holds a retry already and a claim takes it once it is due.
        self.waiting.release_due(now)
    }

    fn next_due(&self) -> Option<DateTime<Utc>> {
        self.waiting.next_due()
    }

    fn observe(&self, task: &TaskId) -> Option<Observed<'_>> {
        let entry = self.entries.get(*self.by_id.get(task)?)?;
        Some(Observed {
            task: &entry.task,
            attempts: &entry.attempts,
        })
    }

    fn add_action(&mut self, action: &Action) -> Result<(), PlaneError> {
        let key = (millis(action.due_at()), action.id());
        self.actions.insert(key, action.clone());
        Ok(())
    }

    fn fire_due(&mut self, now: DateTime<Utc>) -> Result<Vec<Action>, PlaneError> {
        let due: Vec<(Millis, ActionId)> = self
            .actions
            .range(..=(millis(now), ActionId::from_u128(u128::MAX)))
            .map(|(key, _)| *key)
            .collect();
        let mut fired = Vec::with_capacity(due.len());
        for key in due {
            if let Some(mut action) = self.actions.remove(&key) {
                action.start(now)?;
                self.running_actions.insert(action.id(), action.clone());
                fired.push(action);
            }
        }
        Ok(fired)
    }

    fn finish_action(
        &mut self,
        action: ActionId,
        result: serde_json::Value,
        now: DateTime<Utc>,
    ) -> Result<(), PlaneError> {
        let mut running = self
            .running_actions
            .remove(&action)
            .ok_or(PlaneError::UnknownAction(action))?;
        Ok(running.complete(result, now)?)
    }
}

#[cfg(test)]
mod tests;
