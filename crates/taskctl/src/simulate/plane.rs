//! The control plane the simulation drives: the [`ControlPlane`] trait (the calls a control
//! plane answers) and [`MemoryPlane`], its in-memory implementation over model-task.
//!
//! Every step is the model's own call (`Task::create`, `lease_attempt`, `start_attempt`,
//! `heartbeat_attempt`, `report_result`, `expire_attempt`); the plane only keeps the tasks,
//! their attempts and the indexes a control plane keeps (the queue, the leases by expiry,
//! the retries by due time). [`StorePlane`] implements the same trait over taskstore.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use taskmodel::fleet::KindSet;
use taskmodel::selector::{LabelSelector, Labels};
use taskmodel::task::{AttemptResult, TaskError};
use taskmodel::{
    Applied, LeaseId, RestartDecision, RunnerId, SeededRandom, Task, TaskId, TaskManifest, TaskRun,
    TenantId, Uid,
};

use taskstore::StoreError;

use super::clock::{Millis, instant, millis};

mod store;

pub(crate) use self::store::StorePlane;

/// Why the control plane refused a step.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PlaneError {
    /// The model refused the call.
    #[error(transparent)]
    Model(#[from] TaskError),
    /// A call named a task the plane does not hold.
    #[error("unknown task {0:?}")]
    UnknownTask(String),
    /// A call named a task whose attempt the plane does not hold.
    #[error("task {0:?} has no attempt")]
    NoAttempt(String),
    /// A flow run refused a job's end, or a job's task could not be made.
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
    /// Registers a runner with its labels and the kinds it runs.
    fn register(
        &mut self,
        runner: RunnerId,
        labels: Labels,
        kinds: KindSet,
    ) -> Result<(), PlaneError>;
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
    /// The runner extends its lease by `lease_ms` from `now`.
    fn heartbeat(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        lease_ms: Millis,
        now: DateTime<Utc>,
    ) -> Result<Applied, PlaneError>;
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
    /// Whether a claim runs one task at a time in a slot, so that a task leaving Running
    /// may let an idle runner claim one it was refused.
    fn holds_slots(&self) -> bool {
        false
    }
}

/// One task the plane holds.
#[derive(Debug)]
struct Entry {
    task: Task,
    attempts: Vec<TaskRun>,
    /// The class of its kind and runner selector.
    class: usize,
}

/// The queued tasks that one runner may take or not as a group: those with one kind and
/// one runner selector, in queue order. A claim matches the runner against each class
/// once and looks at the head of each queue it may take, so it never walks past tasks it
/// cannot take (model-fleet's queue is indexed by runner selector for the same reason).
#[derive(Debug)]
struct Class {
    kind: Option<KindSet>,
    selector: LabelSelector,
    queue: BTreeSet<(QueueKey, usize)>,
}

/// A runner as the plane routes to it.
#[derive(Debug)]
struct RunnerEntry {
    labels: Labels,
    kinds: KindSet,
}

/// The queue order of model-fleet's queue: priority first (highest first), then when the
/// task was queued, then its id (the index of submission keeps ids apart in a stable way).
type QueueKey = (Reverse<i32>, Millis, TaskId);

/// Where `task`, queued at `queued`, stands in the queue.
fn queue_key(task: &Task, queued: Millis) -> QueueKey {
    (Reverse(task.spec().priority()), queued, task.id().clone())
}

/// The control plane in memory: tasks and attempts in vectors, the queue and the lease
/// and retry indexes in ordered sets, so every answer is deterministic.
#[derive(Debug)]
pub(crate) struct MemoryPlane {
    tenant: TenantId,
    entries: Vec<Entry>,
    by_id: BTreeMap<TaskId, usize>,
    runners: BTreeMap<RunnerId, RunnerEntry>,
    /// Tasks that may be claimed now, by class, in queue order.
    classes: Vec<Class>,
    /// The class of each (kind, runner selector), both as text.
    class_of: BTreeMap<(String, String), usize>,
    /// Tasks waiting for a retry, by due time.
    waiting: BTreeSet<(Millis, usize)>,
    /// Active attempts by lease expiry.
    leases: BTreeSet<(Millis, usize)>,
    next_lease: u64,
    /// The random source of backoff jitter.
    rng: SeededRandom,
}

impl MemoryPlane {
    /// An empty plane for `tenant` whose backoff jitter comes from `rng`.
    pub(crate) fn new(tenant: TenantId, rng: SeededRandom) -> Self {
        Self {
            tenant,
            entries: Vec::new(),
            by_id: BTreeMap::new(),
            runners: BTreeMap::new(),
            classes: Vec::new(),
            class_of: BTreeMap::new(),
            waiting: BTreeSet::new(),
            leases: BTreeSet::new(),
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

    /// Files the task at `index` where its state says: queued, waiting for a retry, or
    /// neither (running or final); and its active attempt under its lease expiry.
    fn file(&mut self, index: usize) {
        let Some(entry) = self.entries.get(index) else {
            return;
        };
        let status = entry.task.status();
        if let Some(queued) = status.queued_at() {
            let key = queue_key(&entry.task, millis(queued));
            if status.next_attempt_at().is_some() {
                self.waiting.insert((millis(queued), index));
            } else if let Some(class) = self.classes.get_mut(entry.class) {
                class.queue.insert((key, index));
            }
        }
        if let Some(run) = entry.attempts.last().filter(|run| run.is_active()) {
            self.leases.insert((millis(run.lease_expires_at()), index));
        }
    }

    /// Takes the task at `index` out of every index, before a change re-files it.
    fn unfile(&mut self, index: usize) {
        let Some(entry) = self.entries.get(index) else {
            return;
        };
        let status = entry.task.status();
        if let Some(queued) = status.queued_at() {
            let key = queue_key(&entry.task, millis(queued));
            if let Some(class) = self.classes.get_mut(entry.class) {
                class.queue.remove(&(key, index));
            }
            self.waiting.remove(&(millis(queued), index));
        }
        if let Some(run) = entry.attempts.last().filter(|run| run.is_active()) {
            self.leases.remove(&(millis(run.lease_expires_at()), index));
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
            let Entry { task, attempts, .. } = entry;
            let id = task.id().to_string();
            let run = attempts.last_mut().ok_or(PlaneError::NoAttempt(id))?;
            Ok(change(task, run, &mut rng)?)
        });
        self.rng = rng;
        self.file(index);
        result
    }

    /// The class of `task`'s kind and runner selector, made when it is the first of it.
    fn class(&mut self, task: &Task) -> usize {
        let spec = task.spec();
        let kind = KindSet::of(spec.kind());
        let key = (
            kind.as_ref().map_or_else(String::new, ToString::to_string),
            spec.runner_selector().to_string(),
        );
        let next = self.classes.len();
        let class = *self.class_of.entry(key).or_insert(next);
        if class == next {
            self.classes.push(Class {
                kind,
                selector: spec.runner_selector().clone(),
                queue: BTreeSet::new(),
            });
        }
        class
    }
}

impl ControlPlane for MemoryPlane {
    fn register(
        &mut self,
        runner: RunnerId,
        labels: Labels,
        kinds: KindSet,
    ) -> Result<(), PlaneError> {
        if self.runners.contains_key(&runner) {
            return Err(PlaneError::Duplicate("runner", runner.to_string()));
        }
        self.runners.insert(runner, RunnerEntry { labels, kinds });
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
        let class = self.class(&task);
        self.entries.push(Entry {
            task,
            attempts: Vec::new(),
            class,
        });
        self.file(index);
        Ok(())
    }

    fn claim(
        &mut self,
        runner: &RunnerId,
        lease_ms: Millis,
        now: DateTime<Utc>,
    ) -> Result<Option<Claim>, PlaneError> {
        let Some(profile) = self.runners.get(runner) else {
            return Ok(None);
        };
        // The first in queue order among the heads of the classes the runner may take:
        // it runs the kind and its labels match the selector.
        let found = self
            .classes
            .iter()
            .filter(|class| {
                class
                    .kind
                    .as_ref()
                    .is_some_and(|kind| profile.kinds.contains(kind))
                    && class.selector.matches(&profile.labels)
            })
            .filter_map(|class| class.queue.first())
            .min()
            .map(|(_, index)| *index);
        let Some(index) = found else {
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
        self.file(index);
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
    ) -> Result<Applied, PlaneError> {
        let index = self.index(task)?;
        let until = instant(millis(now).saturating_add(lease_ms));
        self.change(index, |task, run, _| {
            task.heartbeat_attempt(run, lease, until, now)
        })
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
            .range(..=(millis(now), usize::MAX))
            .map(|(_, index)| *index)
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
        self.leases.first().map(|(at, _)| instant(*at))
    }

    fn release_due(&mut self, now: DateTime<Utc>) -> usize {
        let due: Vec<(Millis, usize)> = self
            .waiting
            .range(..=(millis(now), usize::MAX))
            .copied()
            .collect();
        for (at, index) in &due {
            self.waiting.remove(&(*at, *index));
            if let Some(entry) = self.entries.get(*index) {
                let key = queue_key(&entry.task, *at);
                if let Some(class) = self.classes.get_mut(entry.class) {
                    class.queue.insert((key, *index));
                }
            }
        }
        due.len()
    }

    fn next_due(&self) -> Option<DateTime<Utc>> {
        self.waiting.first().map(|(at, _)| instant(*at))
    }

    fn observe(&self, task: &TaskId) -> Option<Observed<'_>> {
        let entry = self.entries.get(*self.by_id.get(task)?)?;
        Some(Observed {
            task: &entry.task,
            attempts: &entry.attempts,
        })
    }
}

#[cfg(test)]
mod tests;
