//! A flow's run moved on: a job's end (in the transaction that ends its task) and a cancel,
//! each decided by model-flow's step over the jobs' rows, the jobs it makes ready
//! dispatched as tasks the flow owns.

use chrono::{DateTime, Utc};
use taskmodel::flow::{
    FlowJobs, FlowRun, FlowSpec, JobResult, JobState, attempt_end, cancel_jobs, end_job,
};
use taskmodel::ids::{FlowId, JobName, TaskId, TenantId, Uid};
use taskmodel::selector::Labels;
use taskmodel::task::{
    ManifestMeta, OwnerKind, OwnerReference, RestartDecision, Task, TaskManifest, TaskSpec,
};

use super::rows::JobRows;
use super::{Head, corrupt, job_task_id, read_head, rejected, to_json, write_head};
use crate::error::StoreError;
use crate::pair::insert_tasks;
use crate::tx::{Lock, Sql, Tx, Value};

/// Moves the flow on after `task`, one of its jobs' tasks, reached a final phase (at its
/// `updatedAt`), in the caller's transaction: model-flow's `attempt_end` checks the end
/// against the job's row (the task's final phase, the result the runner reported, the
/// flow's results' size; another end of an ended job is refused), its `end_job` moves the
/// job and its dependents (and the rows a skip reaches) over their rows, the jobs it makes
/// ready become tasks, and the flow row's counts are written under a compare-and-swap on
/// its version. The flow's documents are not read. A task that no flow's job names, or
/// whose controlling flow is another incarnation, moves nothing (and its `result` is
/// dropped).
pub(crate) fn job_ended(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    task: &Task,
    result: Option<JobResult>,
) -> Result<(), StoreError> {
    const JOB_OF_TASK: Sql =
        Sql::new("SELECT flow, position, result FROM flow_jobs WHERE tenant = ?1 AND task_id = ?2");
    const RESULT: Sql = Sql::new(
        "UPDATE flow_jobs SET result = ?4 WHERE tenant = ?1 AND flow = ?2 AND position = ?3",
    );
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
    let bad = |e: &dyn std::fmt::Display| corrupt(tenant, &name, e);
    let position = u32::try_from(row.int(1)?).map_err(|e| bad(&e))?;
    let kept: Option<JobResult> = match row.0.get(2) {
        Some(Value::Text(doc)) => Some(serde_json::from_str(doc).map_err(|e| bad(&e))?),
        _ => None,
    };
    let mut head = read_head(tx, tenant, &name, Lock::Update)?;
    if head.uid != owner.uid() {
        return Ok(());
    }
    let now = task.metadata().updated_at();
    let decision = RestartDecision::Final(task.phase());
    let mut jobs = JobRows::new(tx, tenant, &name);
    let ended = jobs.job(position)?;
    let job = ended.name.clone();
    let bytes = usize::try_from(head.result_bytes).unwrap_or(usize::MAX);
    let target = attempt_end(
        &job,
        ended.row.state,
        kept.as_ref(),
        &decision,
        result.as_ref(),
        bytes,
    )
    .map_err(|e| rejected(tenant, &name, format!("jobs.{job}"), e.into()))?;
    let Some(target) = target else {
        return Ok(());
    };
    let failure_seen = head.failure_seen;
    head.failure_seen |= matches!(target, JobState::Failed | JobState::Canceled);
    let changes = end_job(&mut jobs, position, target, head.policy, failure_seen)?;
    for change in &changes {
        head.counts.change(change.from, change.to);
    }
    let ready: Vec<u32> = changes
        .iter()
        .filter(|c| c.to == JobState::Ready)
        .map(|c| c.position)
        .collect();
    let tasks = dispatch(&mut jobs, &mut head, &name, &ready, now)?;
    jobs.write()?;
    if let Some(result) = &result {
        head.result_bytes = head.result_bytes.saturating_add(result.byte_len() as u64);
        let doc = to_json(tenant, &name, "result", serde_json::to_string(result))?;
        tx.execute(
            &RESULT,
            &[
                tenant.as_str().into(),
                name.as_str().into(),
                Value::Int(i64::from(position)),
                doc.into(),
            ],
        )?;
    }
    write_head(tx, tenant, &name, &head, head.version, now)?;
    insert_tasks(tx, tenant, &tasks)?;
    Ok(())
}

/// The first half of [`Store::cancel_flow`](crate::Store::cancel_flow): model-flow's
/// `cancel_jobs` over the jobs' rows (every job not started is skipped) and the flow row's
/// counts written back under the compare-and-swap; returns the tasks of the jobs still
/// running, for the caller to cancel (each one's end then moves the run on, as any job's
/// end does). The running jobs' tasks are locked before the flow, in id order, the order a
/// job's end takes them in, so a cancel and a result never wait for each other in a
/// circle.
pub(crate) fn cancel_run(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &FlowId,
    now: DateTime<Utc>,
) -> Result<Vec<TaskId>, StoreError> {
    read_head(tx, tenant, name, Lock::None)?;
    let mut running = running_tasks(tx, tenant, name)?;
    running.sort();
    for id in &running {
        match crate::pair::load(tx, tenant, id, Lock::Update) {
            Ok(_) | Err(StoreError::NotFound { .. }) => {}
            Err(error) => return Err(error),
        }
    }
    let mut head = read_head(tx, tenant, name, Lock::Update)?;
    let mut jobs = JobRows::new(tx, tenant, name);
    let changes = cancel_jobs(&mut jobs)?;
    jobs.write()?;
    if !changes.is_empty() {
        for change in &changes {
            head.counts.change(change.from, change.to);
        }
        write_head(tx, tenant, name, &head, head.version, now)?;
    }
    running_tasks(tx, tenant, name)
}

/// The tasks of the flow's running jobs, in declaration order.
fn running_tasks(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &FlowId,
) -> Result<Vec<TaskId>, StoreError> {
    const RUNNING: Sql = Sql::new(
        "SELECT job FROM flow_jobs WHERE tenant = ?1 AND flow = ?2 AND state = 'running' \
         ORDER BY position",
    );
    let rows = tx.query(&RUNNING, &[tenant.as_str().into(), name.as_str().into()])?;
    rows.iter()
        .map(|row| {
            let job = JobName::new(row.text(0)?).map_err(|e| corrupt(tenant, name, &e))?;
            job_task_id(name, &job)
        })
        .collect()
}

/// Starts each ready job at `ready` over the rows: a task made from the job's stored task
/// spec (the flow's environment merged in when the flow was created), the job's row
/// running and naming its task, the counts moved.
fn dispatch(
    jobs: &mut JobRows<'_>,
    head: &mut Head,
    flow: &FlowId,
    ready: &[u32],
    now: DateTime<Utc>,
) -> Result<Vec<Task>, StoreError> {
    const SPEC: Sql =
        Sql::new("SELECT spec FROM flow_jobs WHERE tenant = ?1 AND flow = ?2 AND position = ?3");
    const TASK: Sql = Sql::new(
        "UPDATE flow_jobs SET task_id = ?4 WHERE tenant = ?1 AND flow = ?2 AND position = ?3",
    );
    let tenant = jobs.tenant().clone();
    let mut tasks = Vec::with_capacity(ready.len());
    for &position in ready {
        let job = jobs.job(position)?.name.clone();
        let key = [
            Value::from(tenant.as_str()),
            flow.as_str().into(),
            Value::Int(i64::from(position)),
        ];
        let rows = jobs.tx().query(&SPEC, &key)?;
        let doc = rows
            .first()
            .ok_or_else(|| corrupt(&tenant, flow, &format!("job \"{job}\" has no row")))?
            .text(0)?;
        let spec: TaskSpec = serde_json::from_str(doc).map_err(|e| corrupt(&tenant, flow, &e))?;
        let task = job_task(
            &tenant,
            flow,
            head.uid,
            &head.labels,
            &job,
            position as usize,
            spec,
            now,
        )?;
        let [tenant_v, flow_v, position_v] = key;
        jobs.tx().execute(
            &TASK,
            &[tenant_v, flow_v, position_v, task.id().as_str().into()],
        )?;
        let mut row = jobs.row(position)?;
        head.counts.change(row.state, JobState::Running);
        row.state = JobState::Running;
        jobs.set_row(position, row)?;
        tasks.push(task);
    }
    Ok(tasks)
}

/// Makes a task of each job in `ready` of a run held whole (a new flow) and starts the
/// job in the run.
pub(super) fn dispatch_all(
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
        let task = job_task(
            tenant,
            flow,
            uid,
            spec.labels(),
            job,
            position,
            task_spec,
            now,
        )?;
        run.start(job.as_str())
            .map_err(|e| rejected(tenant, flow, field(), e.into()))?;
        tasks.push(task);
    }
    Ok(tasks)
}

/// The task of the job `job` at `position` of the flow `flow` (uid `uid`), owned by the
/// flow and labeled with its labels.
#[allow(
    clippy::too_many_arguments,
    reason = "each is one part of the task's identity"
)]
fn job_task(
    tenant: &TenantId,
    flow: &FlowId,
    uid: Uid,
    labels: &Labels,
    job: &JobName,
    position: usize,
    task_spec: TaskSpec,
    now: DateTime<Utc>,
) -> Result<Task, StoreError> {
    let field = || format!("jobs.{job}");
    let owner = OwnerReference::new(OwnerKind::Flow, flow.as_str(), uid)
        .map_err(|e| rejected(tenant, flow, field(), e.into()))?
        .controlling();
    let meta = ManifestMeta::new(job_task_id(flow, job)?)
        .with_labels(labels.clone())
        .with_owner_references(vec![owner])
        .map_err(|e| rejected(tenant, flow, field(), e.into()))?;
    Task::create(
        TaskManifest::new(meta, task_spec),
        tenant.clone(),
        job_uid(uid, position),
        now,
    )
    .map_err(|e| rejected(tenant, flow, field(), e.into()))
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
