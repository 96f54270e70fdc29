//! A flow's run moved on: a job's end (in the transaction that ends its task) and a cancel,
//! each decided by model-flow's `FlowRun`, the jobs it makes ready dispatched as tasks the
//! flow owns.

use chrono::{DateTime, Utc};
use taskmodel::flow::{FlowRun, FlowSpec, JobResult, JobState};
use taskmodel::ids::{FlowId, JobName, TaskId, TenantId, Uid};
use taskmodel::task::{
    ManifestMeta, OwnerKind, OwnerReference, RestartDecision, Task, TaskManifest,
};

use super::{corrupt, job_task_id, load, rejected, save};
use crate::error::StoreError;
use crate::pair::insert_tasks;
use crate::tx::{Lock, Sql, Tx};

/// Moves the flow on after `task`, one of its jobs' tasks, reached a final phase (at its
/// `updatedAt`): the run records the job's end and its `result`, when the runner reported
/// one (`FlowRun::end_attempt` with the task's final phase, which bounds the flow's results
/// and refuses another end of an ended job), the jobs it makes ready become tasks, and the
/// flow row is written back under a compare-and-swap on its version, all in the caller's
/// transaction. A task that no flow's job names, or whose controlling flow is another
/// incarnation, moves nothing (and its `result` is dropped).
pub(crate) fn job_ended(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    task: &Task,
    result: Option<JobResult>,
) -> Result<(), StoreError> {
    const JOB_OF_TASK: Sql =
        Sql::new("SELECT flow, job FROM flow_jobs WHERE tenant = ?1 AND task_id = ?2");
    let Some(owner) = task
        .metadata()
        .controller()
        .filter(|owner| owner.kind() == OwnerKind::Flow)
    else {
        return Ok(());
    };
    if !task.phase().is_final() {
        return Ok(());
    }
    let rows = tx.query(
        &JOB_OF_TASK,
        &[tenant.as_str().into(), task.id().as_str().into()],
    )?;
    let Some(row) = rows.first() else {
        return Ok(());
    };
    let name = FlowId::new(row.text(0)?).map_err(|e| StoreError::Corrupt {
        what: format!("the flow of task \"{}\" of tenant \"{tenant}\"", task.id()),
        reason: e.to_string(),
    })?;
    let job = row.text(1)?.to_owned();
    let stored = load(tx, tenant, &name, Lock::Update)?;
    let mut flow = stored.flow;
    if flow.uid != owner.uid() {
        return Ok(());
    }
    let now = task.metadata().updated_at();
    let decision = RestartDecision::Final(task.phase());
    let changes = flow
        .run
        .end_attempt(&job, decision, result)
        .map_err(|e| rejected(tenant, &name, format!("jobs.{job}"), e.into()))?;
    if changes.is_empty() {
        return Ok(());
    }
    let ready: Vec<JobName> = changes.ready().cloned().collect();
    let tasks = dispatch(tenant, &flow.spec, flow.uid, &mut flow.run, &ready, now)?;
    let touched: Vec<&JobName> = changes.changed().iter().map(|c| c.name()).collect();
    save(tx, tenant, &flow, stored.version, &touched, now)?;
    insert_tasks(tx, tenant, &tasks)?;
    Ok(())
}

/// The first half of [`Store::cancel_flow`](crate::Store::cancel_flow): the run's cancel
/// (`FlowRun::cancel`: every job not started is skipped) written back under the
/// compare-and-swap; returns the tasks of the jobs still running, for the caller to cancel
/// (each one's end then moves the run on, as any job's end does). The running jobs' tasks
/// are locked before the flow, in id order, the order a job's end takes them in, so a
/// cancel and a result never wait for each other in a circle.
pub(crate) fn cancel_run(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &FlowId,
    now: DateTime<Utc>,
) -> Result<Vec<TaskId>, StoreError> {
    let peek = load(tx, tenant, name, Lock::None)?;
    let mut running: Vec<TaskId> = peek
        .flow
        .run
        .states()
        .filter(|(_, state)| *state == JobState::Running)
        .map(|(job, _)| job_task_id(name, job))
        .collect::<Result<_, _>>()?;
    running.sort();
    for id in &running {
        match crate::pair::load(tx, tenant, id, Lock::Update) {
            Ok(_) | Err(StoreError::NotFound { .. }) => {}
            Err(error) => return Err(error),
        }
    }
    let stored = load(tx, tenant, name, Lock::Update)?;
    let mut flow = stored.flow;
    let changes = flow.run.cancel();
    if !changes.changed().is_empty() {
        let touched: Vec<&JobName> = changes.changed().iter().map(|c| c.name()).collect();
        save(tx, tenant, &flow, stored.version, &touched, now)?;
    }
    changes
        .to_cancel()
        .iter()
        .map(|job| job_task_id(name, job))
        .collect()
}

/// Makes a task of each job in `ready` and starts the job in the run.
pub(super) fn dispatch(
    tenant: &TenantId,
    spec: &FlowSpec,
    uid: Uid,
    run: &mut FlowRun,
    ready: &[JobName],
    now: DateTime<Utc>,
) -> Result<Vec<Task>, StoreError> {
    let flow = spec.name();
    let mut tasks = Vec::with_capacity(ready.len());
    for job in ready {
        let field = || format!("jobs.{job}");
        let position = run
            .graph()
            .position(job.as_str())
            .ok_or_else(|| corrupt(tenant, flow, &format!("job \"{job}\" is not in its run")))?;
        let task_spec = spec
            .task_spec(job.as_str())
            .map_err(|e| rejected(tenant, flow, field(), e.into()))?;
        let owner = OwnerReference::new(OwnerKind::Flow, flow.as_str(), uid)
            .map_err(|e| rejected(tenant, flow, field(), e.into()))?
            .controlling();
        let meta = ManifestMeta::new(job_task_id(flow, job)?)
            .with_labels(spec.labels().clone())
            .with_owner_references(vec![owner])
            .map_err(|e| rejected(tenant, flow, field(), e.into()))?;
        let task = Task::create(
            TaskManifest::new(meta, task_spec),
            tenant.clone(),
            job_uid(uid, position),
            now,
        )
        .map_err(|e| rejected(tenant, flow, field(), e.into()))?;
        run.start(job.as_str())
            .map_err(|e| rejected(tenant, flow, field(), e.into()))?;
        tasks.push(task);
    }
    Ok(tasks)
}

/// The uid of the task of the job at `position` of the flow with uid `flow`: the flow's
/// uid mixed with a bijective hash of the position (SplitMix64's finalizer, never 0 for a
/// position + 1), so every job of one flow gets its own, and two flows' (random uids)
/// collide no more often than random uids do. The store draws no randomness.
fn job_uid(flow: Uid, position: usize) -> Uid {
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    let n = (position as u64).wrapping_add(1);
    let salt = (u128::from(mix(n)) << 64) | u128::from(mix(n ^ 0x9e37_79b9_7f4a_7c15));
    Uid::from_u128(flow.to_u128() ^ salt)
}
