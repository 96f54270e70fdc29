//! [`StorePlane`]: the [`ControlPlane`] over taskstore's embedded SQLite store, so a
//! simulation drives the real store through the calls a control plane makes.
//!
//! Every step is one store call (`import`, `claim`, `start`, `heartbeat`, `report`, `cancel`,
//! `reap`, `get`; `add_action`, `fire_due`, `finish_action` for a schedule's ticks), and what the plane shows the invariant checks is what the store returned: the
//! task and its current attempt from each call, appended to the attempts seen before. The
//! plane keeps only what a control plane keeps beside its store: the runners it knows, and
//! when the next lease expires and the next retry is due (to know when to wake).
//!
//! Both planes claim the same task: the store's claim looks up to `MAX_CLAIM_SCAN`
//! (100,000) queued tasks of the runner's kinds deep, so a runner behind thousands of tasks
//! it may not take finds its own, as [`MemoryPlane`](super::MemoryPlane)'s does (`docs/taskctl.md`,
//! "Planes"). Tasks enter with `import`, the store's bulk load without the admission
//! policy, as the memory plane does.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use taskmodel::fleet::Runner;
use taskmodel::ids::ActionId;
use taskmodel::schedule::Action;
use taskmodel::task::AttemptResult;
use taskmodel::{
    Applied, AttemptState, LeaseId, Precondition, RestartDecision, RunnerId, SeededRandom, Task,
    TaskId, TaskManifest, TaskRun, TenantId, Uid,
};
use taskstore::{ActionOutcome, ClaimRequest, MAX_READ_PAGE, SqliteStore, Store, StoreError};

use super::{Beat, Claim, ControlPlane, Observed, PlaneError, Reaped, Waiting};
use crate::simulate::clock::{Millis, instant, millis};

/// How many expired leases one `reap` call ends; the plane calls again while it is full.
const REAP_BATCH: u32 = 1_000;

/// A task and every attempt the store returned for it, oldest first.
#[derive(Debug)]
struct Seen {
    task: Task,
    attempts: Vec<TaskRun>,
}

/// The control plane on taskstore's SQLite store.
#[derive(Debug)]
pub(crate) struct StorePlane {
    store: SqliteStore,
    tenant: TenantId,
    /// Each runner's claim, whose lease and expiry each claim sets.
    runners: BTreeMap<RunnerId, ClaimRequest>,
    seen: BTreeMap<TaskId, Seen>,
    /// Active attempts by lease expiry.
    leases: BTreeSet<(Millis, TaskId)>,
    /// Tasks waiting for a retry, by due time.
    waiting: Waiting<TaskId>,
    next_lease: u64,
    next_uid: u128,
    /// The random source of backoff jitter.
    rng: SeededRandom,
}

impl StorePlane {
    /// A plane on a new store at `path`, which must not exist yet; in an in-memory SQLite
    /// database (`:memory:`, the same store code without file I/O, four times faster) when
    /// `path` is `None`.
    pub(crate) fn open(
        path: Option<&Path>,
        tenant: TenantId,
        rng: SeededRandom,
    ) -> Result<Self, String> {
        let file = match path {
            Some(path) if path.exists() => {
                return Err(format!("{} exists: give a new file", path.display()));
            }
            Some(path) => path.to_path_buf(),
            None => PathBuf::from(":memory:"),
        };
        let store = SqliteStore::open(&file).map_err(|err| format!("{}: {err}", file.display()))?;
        Ok(Self {
            store,
            tenant,
            runners: BTreeMap::new(),
            seen: BTreeMap::new(),
            leases: BTreeSet::new(),
            waiting: Waiting::new(),
            next_lease: 0,
            next_uid: 0,
            rng,
        })
    }

    /// Takes the task out of the lease and retry indexes, before what the store returned
    /// replaces it.
    fn unfile(&mut self, id: &TaskId) {
        let Some(seen) = self.seen.get(id) else {
            return;
        };
        if let Some(queued) = seen.task.status().queued_at() {
            self.waiting.remove(queued, id.clone());
        }
        if let Some(run) = seen.attempts.last().filter(|run| run.is_active()) {
            self.leases
                .remove(&(millis(run.lease_expires_at()), id.clone()));
        }
    }

    /// Records what the store returned for a task: the task, and its current attempt (the
    /// last one seen again, or a new one); files it under its lease expiry or retry time.
    fn record(&mut self, task: Task, attempt: Option<TaskRun>) {
        let id = task.id().clone();
        self.unfile(&id);
        let seen = self.seen.entry(id.clone()).or_insert_with(|| Seen {
            task: task.clone(),
            attempts: Vec::new(),
        });
        seen.task = task;
        if let Some(run) = attempt {
            match seen.attempts.last_mut() {
                Some(last) if last.attempt() == run.attempt() => *last = run,
                _ => seen.attempts.push(run),
            }
        }
        let status = seen.task.status();
        if let (Some(queued), Some(_)) = (status.queued_at(), status.next_attempt_at()) {
            self.waiting.insert(queued, id.clone());
        }
        if let Some(run) = seen.attempts.last().filter(|run| run.is_active()) {
            self.leases.insert((millis(run.lease_expires_at()), id));
        }
    }

    /// Reads the task back from the store and records it.
    fn reread(&mut self, id: &TaskId) -> Result<(), PlaneError> {
        let stored = self.store.get(&self.tenant, id)?;
        self.record(stored.task, stored.attempt);
        Ok(())
    }
}

impl ControlPlane for StorePlane {
    fn register(&mut self, runner: Runner, _now: DateTime<Utc>) -> Result<(), PlaneError> {
        if self.runners.contains_key(runner.id()) {
            return Err(PlaneError::Duplicate("runner", runner.id().to_string()));
        }
        let request = ClaimRequest::new(
            runner.id().clone(),
            runner.labels().clone(),
            runner.kinds().clone(),
            LeaseId::new(0),
            DateTime::UNIX_EPOCH,
        )
        .with_max_concurrent(runner.max_concurrent());
        self.runners.insert(runner.id().clone(), request);
        Ok(())
    }

    fn submit(&mut self, manifest: TaskManifest, now: DateTime<Utc>) -> Result<(), PlaneError> {
        self.next_uid = self.next_uid.saturating_add(1);
        let task = Task::create(
            manifest,
            self.tenant.clone(),
            Uid::from_u128(self.next_uid),
            now,
        )?;
        match self.store.import(&self.tenant, std::slice::from_ref(&task)) {
            Err(StoreError::Exists { task, .. }) => {
                Err(PlaneError::Duplicate("task", task.to_string()))
            }
            other => Ok(other?),
        }?;
        self.reread(task.id())
    }

    fn claim(
        &mut self,
        runner: &RunnerId,
        lease_ms: Millis,
        now: DateTime<Utc>,
    ) -> Result<Option<Claim>, PlaneError> {
        let Some(request) = self.runners.get_mut(runner) else {
            return Ok(None);
        };
        request.lease = LeaseId::new(self.next_lease.saturating_add(1));
        request.lease_expires_at = instant(millis(now).saturating_add(lease_ms));
        let Some(claimed) = self.store.claim(&self.tenant, request, now)? else {
            return Ok(None);
        };
        self.next_lease = self.next_lease.saturating_add(1);
        let claim = Claim {
            task: claimed.task.id().clone(),
            attempt: claimed.attempt.attempt(),
            lease: claimed.attempt.lease(),
        };
        self.record(claimed.task, Some(claimed.attempt));
        Ok(Some(claim))
    }

    fn start(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        now: DateTime<Utc>,
    ) -> Result<Applied, PlaneError> {
        let change = self.store.start(&self.tenant, task, lease, now)?;
        self.record(change.task, change.attempt);
        Ok(change.applied)
    }

    fn heartbeat(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        lease_ms: Millis,
        now: DateTime<Utc>,
    ) -> Result<Beat, PlaneError> {
        let until = instant(millis(now).saturating_add(lease_ms));
        let change = self
            .store
            .heartbeat(&self.tenant, task, lease, until, now)?;
        let cancelling = change
            .attempt
            .as_ref()
            .is_some_and(|run| run.state() == AttemptState::Cancelling);
        self.record(change.task, change.attempt);
        Ok(Beat {
            applied: change.applied,
            cancelling,
        })
    }

    fn cancel(&mut self, task: &TaskId, now: DateTime<Utc>) -> Result<Applied, PlaneError> {
        let change = self
            .store
            .cancel(&self.tenant, task, Precondition::default(), now)?;
        self.record(change.task, change.attempt);
        Ok(change.applied)
    }

    fn finish(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        result: AttemptResult,
        now: DateTime<Utc>,
    ) -> Result<Applied<RestartDecision>, PlaneError> {
        let change = self
            .store
            .report(&self.tenant, task, lease, result, &mut self.rng, now)?;
        self.record(change.task, change.attempt);
        Ok(change.applied)
    }

    fn reap(&mut self, now: DateTime<Utc>) -> Result<Vec<Reaped>, PlaneError> {
        let mut reaped = Vec::new();
        loop {
            let batch = self.store.reap(now, REAP_BATCH, &mut self.rng)?;
            let full = batch.len() >= usize::try_from(REAP_BATCH).unwrap_or(usize::MAX);
            for one in batch {
                self.reread(&one.task)?;
                reaped.push(Reaped {
                    task: one.task,
                    decision: one.decision,
                });
            }
            if !full {
                return Ok(reaped);
            }
        }
    }

    fn next_expiry(&self) -> Option<DateTime<Utc>> {
        self.leases.first().map(|(at, _)| instant(*at))
    }

    fn release_due(&mut self, now: DateTime<Utc>) -> usize {
        // The store's claim takes a retry once it is due.
        self.waiting.release_due(now)
    }

    fn next_due(&self) -> Option<DateTime<Utc>> {
        self.waiting.next_due()
    }

    fn add_action(&mut self, action: &Action) -> Result<(), PlaneError> {
        Ok(self.store.add_action(&self.tenant, action)?)
    }

    fn fire_due(&mut self, now: DateTime<Utc>) -> Result<Vec<Action>, PlaneError> {
        let mut fired = Vec::new();
        loop {
            let batch = self.store.fire_due(&self.tenant, now, MAX_READ_PAGE)?;
            let full = batch.len() >= usize::try_from(MAX_READ_PAGE).unwrap_or(usize::MAX);
            fired.extend(batch);
            if !full {
                return Ok(fired);
            }
        }
    }

    fn finish_action(
        &mut self,
        action: ActionId,
        result: serde_json::Value,
        now: DateTime<Utc>,
    ) -> Result<(), PlaneError> {
        // The next id is for a recurring action's next; a schedule's ticks do not recur
        // (each fire time is its own action), so it is never used.
        let next = ActionId::from_u128(0);
        let outcome = ActionOutcome::Completed(result);
        self.store
            .finish_action(&self.tenant, action, outcome, next, now)?;
        Ok(())
    }

    fn observe(&self, task: &TaskId) -> Option<Observed<'_>> {
        let seen = self.seen.get(task)?;
        Some(Observed {
            task: &seen.task,
            attempts: &seen.attempts,
        })
    }
}
