//! `Engine`: what each database provides (a read and a write transaction over [`Tx`]), and
//! the one [`Store`] implementation over it, so both engines run the same code.

use chrono::{DateTime, Utc};
use taskmodel::RandomSource;
use taskmodel::fleet::{LivenessTtl, LogLine, Runner};
use taskmodel::flow::{FlowSpec, JobResult};
use taskmodel::ids::{ActionId, FlowId, RunnerId, ScheduleId, TaskId, TenantId, Uid};
use taskmodel::query::{TaskPage, TaskQuery};
use taskmodel::schedule::{Action, Schedule};
use taskmodel::task::attempt::LogKey;
use taskmodel::task::{
    Applied, ApplyChanges, AttemptResult, LeaseId, Precondition, RestartDecision, TaskManifest,
    TaskRun,
};

use crate::error::StoreError;
use crate::flows::{self, FlowCursor, FlowSummary, StoredFlow};
use crate::gc;
use crate::schedules;
use crate::store::Store;
use crate::tx::Tx;
use crate::values::{
    ActionOutcome, Admitted, Change, ClaimRequest, Claimed, Collected, FinishedAction, Reaped,
    Stored, StoredLogLine, StoredSchedule, Ticked,
};
use crate::{actions, attempts, claim, list, logs, retention, runners, tasks};

/// A database connection that runs closures in transactions.
pub(crate) trait Engine {
    /// Runs `f` in a transaction that reads one consistent snapshot and writes nothing.
    fn read<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError>;

    /// Runs `f` in a write transaction and commits when it returns `Ok`; an error rolls
    /// everything back. SQLite takes the write lock at the start (`BEGIN IMMEDIATE`), so
    /// writers queue instead of failing midway; PostgreSQL locks the rows read with
    /// `FOR UPDATE`.
    fn write<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError>;

    /// [`Store::claim`]: [`claim::claim`] in a write transaction of its own; SQLite runs
    /// the claims of one file queued behind each other in one transaction instead
    /// (`group.rs`), with the same results.
    fn write_claim(
        &mut self,
        tenant: &TenantId,
        request: &ClaimRequest,
        now: DateTime<Utc>,
    ) -> Result<Option<Claimed>, StoreError> {
        self.write(|tx| claim::claim(tx, tenant, request, now))
    }
}

impl<E: Engine> gc::Connection for E {
    fn snapshot<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.read(f)
    }

    fn commit<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.write(f)
    }
}

impl<E: Engine> Store for E {
    fn create(
        &mut self,
        tenant: &TenantId,
        task: &taskmodel::task::Task,
        now: DateTime<Utc>,
    ) -> Result<Admitted, StoreError> {
        self.write(|tx| tasks::create(tx, tenant, task, now))
    }

    fn import(
        &mut self,
        tenant: &TenantId,
        tasks: &[taskmodel::task::Task],
    ) -> Result<(), StoreError> {
        self.write(|tx| tasks::import(tx, tenant, tasks))
    }

    fn apply(
        &mut self,
        tenant: &TenantId,
        manifest: TaskManifest,
        expected: Precondition,
        now: DateTime<Utc>,
    ) -> Result<Change<ApplyChanges>, StoreError> {
        self.write(|tx| tasks::apply(tx, tenant, manifest, expected, now))
    }

    fn get(&mut self, tenant: &TenantId, id: &TaskId) -> Result<Stored, StoreError> {
        self.read(|tx| tasks::get(tx, tenant, id))
    }

    fn list(&mut self, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        self.read(|tx| list::list(tx, query))
    }

    fn attempts(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        after: Option<u32>,
        limit: u32,
    ) -> Result<Vec<TaskRun>, StoreError> {
        self.read(|tx| attempts::history(tx, tenant, id, after, limit))
    }

    fn delete(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        expected: Precondition,
    ) -> Result<(), StoreError> {
        self.write(|tx| tasks::delete(tx, tenant, id, expected))
    }

    fn claim(
        &mut self,
        tenant: &TenantId,
        request: &ClaimRequest,
        now: DateTime<Utc>,
    ) -> Result<Option<Claimed>, StoreError> {
        self.write_claim(tenant, request, now)
    }

    fn start(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        lease: LeaseId,
        now: DateTime<Utc>,
    ) -> Result<Change, StoreError> {
        self.write(|tx| attempts::start(tx, tenant, id, lease, now))
    }

    fn heartbeat(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        lease: LeaseId,
        lease_expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Change, StoreError> {
        self.write(|tx| attempts::heartbeat(tx, tenant, id, lease, lease_expires_at, now))
    }

    fn report(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        lease: LeaseId,
        result: AttemptResult,
        rng: &mut dyn RandomSource,
        now: DateTime<Utc>,
    ) -> Result<Change<RestartDecision>, StoreError> {
        self.write(|tx| attempts::report(tx, tenant, id, lease, result, None, rng, now))
    }

    fn report_job(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        lease: LeaseId,
        result: AttemptResult,
        job_result: JobResult,
        rng: &mut dyn RandomSource,
        now: DateTime<Utc>,
    ) -> Result<Change<RestartDecision>, StoreError> {
        let job = Some(job_result);
        self.write(|tx| attempts::report(tx, tenant, id, lease, result, job, rng, now))
    }

    fn cancel(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        expected: Precondition,
        now: DateTime<Utc>,
    ) -> Result<Change, StoreError> {
        self.write(|tx| attempts::cancel(tx, tenant, id, expected, now))
    }

    fn reap(
        &mut self,
        now: DateTime<Utc>,
        limit: u32,
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<Reaped>, StoreError> {
        let due = self.read(|tx| attempts::expired(tx, now, limit))?;
        let mut reaped = Vec::with_capacity(due.len());
        for (tenant, task, attempt) in due {
            // Each in its own transaction: one failure does not undo the others, and a
            // result that came in meanwhile stands (the expiry is then Unchanged).
            let decision = self.write(|tx| attempts::expire(tx, &tenant, &task, attempt, rng, now));
            match decision {
                Ok(Some(decision)) => reaped.push(Reaped {
                    tenant,
                    task,
                    attempt,
                    decision,
                }),
                Ok(None) => {}
                Err(error) if error.is_retryable() => {}
                Err(error) => return Err(error),
            }
        }
        Ok(reaped)
    }

    fn owned(
        &mut self,
        tenant: &TenantId,
        owner: Uid,
        after: Option<&TaskId>,
        limit: u32,
    ) -> Result<Vec<taskmodel::task::Task>, StoreError> {
        self.read(|tx| retention::owned(tx, tenant, owner, after, limit))
    }

    fn ttl_expired(
        &mut self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<taskmodel::task::Task>, StoreError> {
        self.read(|tx| retention::ttl_expired(tx, now, limit))
    }

    fn create_flow(
        &mut self,
        tenant: &TenantId,
        flow: &FlowSpec,
        uid: Uid,
        now: DateTime<Utc>,
    ) -> Result<StoredFlow, StoreError> {
        self.write(|tx| flows::create(tx, tenant, flow, uid, now))
    }

    fn cancel_flow(
        &mut self,
        tenant: &TenantId,
        name: &FlowId,
        now: DateTime<Utc>,
    ) -> Result<StoredFlow, StoreError> {
        self.write(|tx| {
            for task in flows::cancel_run(tx, tenant, name, now)? {
                match attempts::cancel(tx, tenant, &task, Precondition::default(), now) {
                    Ok(_) | Err(StoreError::NotFound { .. }) => {}
                    Err(error) => return Err(error),
                }
            }
            flows::get(tx, tenant, name)
        })
    }

    fn flow(&mut self, tenant: &TenantId, name: &FlowId) -> Result<StoredFlow, StoreError> {
        self.read(|tx| flows::get(tx, tenant, name))
    }

    fn flows(
        &mut self,
        tenant: &TenantId,
        after: Option<&FlowCursor>,
        limit: u32,
    ) -> Result<Vec<FlowSummary>, StoreError> {
        let limit = attempts::check_page(limit)?;
        self.read(|tx| flows::list(tx, tenant, after, limit))
    }

    fn register_runner(
        &mut self,
        tenant: &TenantId,
        runner: Runner,
        ttl: LivenessTtl,
        now: DateTime<Utc>,
    ) -> Result<Runner, StoreError> {
        self.write(|tx| runners::register(tx, tenant, runner, ttl, now))
    }

    fn runner_heartbeat(
        &mut self,
        tenant: &TenantId,
        id: &RunnerId,
        now: DateTime<Utc>,
    ) -> Result<Applied, StoreError> {
        self.write(|tx| runners::change(tx, tenant, id, |runner| runner.heartbeat(now)))
    }

    fn drain_runner(&mut self, tenant: &TenantId, id: &RunnerId) -> Result<Applied, StoreError> {
        self.write(|tx| runners::change(tx, tenant, id, Runner::drain))
    }

    fn deregister_runner(&mut self, tenant: &TenantId, id: &RunnerId) -> Result<(), StoreError> {
        self.write(|tx| runners::deregister(tx, tenant, id))
    }

    fn runner(&mut self, tenant: &TenantId, id: &RunnerId) -> Result<Runner, StoreError> {
        self.read(|tx| runners::get(tx, tenant, id))
    }

    fn runners(
        &mut self,
        tenant: &TenantId,
        after: Option<&RunnerId>,
        limit: u32,
    ) -> Result<Vec<Runner>, StoreError> {
        self.read(|tx| runners::list(tx, tenant, after, limit))
    }

    fn claim_as(
        &mut self,
        tenant: &TenantId,
        runner: &RunnerId,
        lease: LeaseId,
        lease_expires_at: DateTime<Utc>,
        ttl: LivenessTtl,
        now: DateTime<Utc>,
    ) -> Result<Option<Claimed>, StoreError> {
        self.write(|tx| runners::claim_as(tx, tenant, runner, lease, lease_expires_at, ttl, now))
    }

    fn collect_garbage(
        &mut self,
        tenant: &TenantId,
        now: DateTime<Utc>,
        batch: u32,
    ) -> Result<Collected, StoreError> {
        gc::collect(self, tenant, now, batch)
    }

    fn add_action(&mut self, tenant: &TenantId, action: &Action) -> Result<(), StoreError> {
        self.write(|tx| actions::add(tx, tenant, action))
    }

    fn action(&mut self, tenant: &TenantId, id: ActionId) -> Result<Action, StoreError> {
        self.read(|tx| actions::get(tx, tenant, id))
    }

    fn fire_due(
        &mut self,
        tenant: &TenantId,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<Action>, StoreError> {
        self.write(|tx| actions::fire_due(tx, tenant, now, limit))
    }

    fn finish_action(
        &mut self,
        tenant: &TenantId,
        id: ActionId,
        outcome: ActionOutcome,
        next_id: ActionId,
        now: DateTime<Utc>,
    ) -> Result<FinishedAction, StoreError> {
        self.write(|tx| actions::finish(tx, tenant, id, outcome, next_id, now))
    }

    fn recover_actions(
        &mut self,
        now: DateTime<Utc>,
        max_age_ms: u64,
        limit: u32,
    ) -> Result<usize, StoreError> {
        self.write(|tx| actions::recover(tx, now, max_age_ms, limit))
    }

    fn create_schedule(
        &mut self,
        tenant: &TenantId,
        schedule: &Schedule,
        uid: Uid,
        now: DateTime<Utc>,
    ) -> Result<StoredSchedule, StoreError> {
        self.write(|tx| schedules::create(tx, tenant, schedule, uid, now))
    }

    fn schedule(
        &mut self,
        tenant: &TenantId,
        name: &ScheduleId,
    ) -> Result<StoredSchedule, StoreError> {
        self.read(|tx| schedules::get(tx, tenant, name))
    }

    fn schedules(
        &mut self,
        tenant: &TenantId,
        after: Option<&ScheduleId>,
        limit: u32,
    ) -> Result<Vec<StoredSchedule>, StoreError> {
        self.read(|tx| schedules::list(tx, tenant, after, limit))
    }

    fn update_schedule(
        &mut self,
        tenant: &TenantId,
        schedule: &Schedule,
        expected: Precondition,
        now: DateTime<Utc>,
    ) -> Result<StoredSchedule, StoreError> {
        self.write(|tx| {
            schedules::change(tx, tenant, schedule.name(), expected, now, |stored| {
                *stored = schedule.clone();
            })
        })
    }

    fn pause_schedule(
        &mut self,
        tenant: &TenantId,
        name: &ScheduleId,
        paused: bool,
        expected: Precondition,
        now: DateTime<Utc>,
    ) -> Result<StoredSchedule, StoreError> {
        self.write(|tx| {
            schedules::change(tx, tenant, name, expected, now, |stored| {
                stored.set_paused(paused);
            })
        })
    }

    fn delete_schedule(
        &mut self,
        tenant: &TenantId,
        name: &ScheduleId,
        expected: Precondition,
    ) -> Result<(), StoreError> {
        self.write(|tx| schedules::delete(tx, tenant, name, expected))
    }

    fn tick_schedules(
        &mut self,
        now: DateTime<Utc>,
        limit: u32,
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<Ticked>, StoreError> {
        self.write(|tx| schedules::tick(tx, now, limit, rng))
    }

    fn append_logs(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        lease: LeaseId,
        lines: &[LogLine],
        now: DateTime<Utc>,
    ) -> Result<usize, StoreError> {
        self.write(|tx| logs::append(tx, tenant, id, lease, lines, now))
    }

    fn logs(
        &mut self,
        tenant: &TenantId,
        id: &TaskId,
        after: Option<LogKey>,
        limit: u32,
    ) -> Result<Vec<StoredLogLine>, StoreError> {
        self.read(|tx| logs::read(tx, tenant, id, after, limit))
    }
}
