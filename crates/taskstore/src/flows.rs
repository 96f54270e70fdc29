//! Flows: a flow stored with its run, each ready job made a task the flow owns, and the run
//! moved on in the transaction that ends a job's task, under a compare-and-swap on the
//! flow's `resource_version`.
//!
//! model-flow's `FlowRun` decides every step (which jobs are ready, which are skipped, the
//! rolled-up status); the store keeps it as a document beside the columns SQL reads, and
//! repeats each job's state and task in `flow_jobs`.

use chrono::{DateTime, Utc};
use taskmodel::flow::{FlowRun, FlowSpec, JobState};
use taskmodel::ids::{FlowId, JobName, TaskId, TenantId, Uid};
use taskmodel::task::{
    ManifestMeta, OwnerKind, OwnerReference, RestartDecision, Task, TaskManifest,
};

use crate::columns::{clamped_nanos, exact_nanos, expiry, int};
use crate::error::StoreError;
use crate::pair::insert_tasks;
use crate::tx::{Lock, Row, Sql, Tx, Value};

/// A flow as stored: its spec, its run (every job's state, as model-flow moved it), its
/// identity and version, and each job's task.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StoredFlow {
    /// The flow as created.
    pub spec: FlowSpec,
    /// Its run: each job's state and the rolled-up status (`FlowRun::status`).
    pub run: FlowRun,
    /// The flow's uid, which its jobs' tasks name as their controller.
    pub uid: Uid,
    /// Goes up by one with every advance of the run.
    pub resource_version: u64,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When its run last changed.
    pub updated_at: DateTime<Utc>,
    /// When its last job ended, once every job is final.
    pub finished_at: Option<DateTime<Utc>>,
    /// Each job, in declaration order.
    pub jobs: Vec<FlowJobStatus>,
}

/// One job of a stored flow: its state and the task made for it once it was ready.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FlowJobStatus {
    /// The job's name.
    pub name: JobName,
    /// Its state in the run.
    pub state: JobState,
    /// Its task (`<flow>.<job>`), once started.
    pub task: Option<TaskId>,
}

/// The most job rows one `INSERT` of a new flow writes (6 placeholders each).
const INSERT_ROWS: usize = 100;

/// [`Store::create_flow`](crate::Store::create_flow).
pub(crate) fn create(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    spec: &FlowSpec,
    uid: Uid,
    now: DateTime<Utc>,
) -> Result<StoredFlow, StoreError> {
    const INSERT: Sql = Sql::new(
        "INSERT INTO flows (tenant, name, uid, status, resource_version, created_ns, updated_ns, \
         finished_ns, expires_ns, spec, run) VALUES (?1, ?2, ?3, ?4, 1, ?5, ?5, ?6, ?7, ?8, ?9)",
    );
    let mut run = FlowRun::new(spec);
    let ready: Vec<JobName> = run.ready().cloned().collect();
    let tasks = dispatch(tenant, spec, uid, &mut run, &ready, now)?;
    let created = exact_nanos("createdAt", now)?;
    let (finished, expires) = ends(spec, &run, now);
    let spec_doc = to_json(tenant, spec.name(), "spec", serde_json::to_string(spec))?;
    let run_doc = to_json(tenant, spec.name(), "run", serde_json::to_string(&run))?;
    let inserted = tx.try_execute(
        &INSERT,
        &[
            tenant.as_str().into(),
            spec.name().as_str().into(),
            uid.to_string().into(),
            run.status().as_str().into(),
            Value::Int(created),
            finished.into(),
            expires.into(),
            spec_doc.into(),
            run_doc.into(),
        ],
    )?;
    if inserted.is_none() {
        return Err(StoreError::FlowExists {
            tenant: tenant.clone(),
            flow: spec.name().clone(),
        });
    }
    insert_jobs(tx, tenant, spec.name(), &run, &tasks)?;
    insert_tasks(tx, tenant, &tasks)?;
    get(tx, tenant, spec.name())
}

/// Writes a new flow's `flow_jobs` rows, the started ones naming their tasks.
fn insert_jobs(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    flow: &FlowId,
    run: &FlowRun,
    tasks: &[Task],
) -> Result<(), StoreError> {
    let names: Vec<(usize, &JobName, JobState)> = run
        .states()
        .enumerate()
        .map(|(position, (name, state))| (position, name, state))
        .collect();
    for chunk in names.chunks(INSERT_ROWS) {
        let mut sql = String::from(
            "INSERT INTO flow_jobs (tenant, flow, job, position, state, task_id) VALUES ",
        );
        let mut params = Vec::with_capacity(chunk.len() * 6);
        for (row, (position, name, state)) in chunk.iter().enumerate() {
            let first = row * 6 + 1;
            // No task is written '' and stored NULL: PostgreSQL binds a NULL as an integer.
            let marks: Vec<String> = (first..first + 6)
                .map(|n| {
                    if n == first + 5 {
                        format!("NULLIF(?{n}, '')")
                    } else {
                        format!("?{n}")
                    }
                })
                .collect();
            sql.push_str(if row == 0 { "(" } else { ", (" });
            sql.push_str(&marks.join(", "));
            sql.push(')');
            let task = job_task_id(flow, name)?;
            let started = tasks.iter().any(|t| t.id() == &task);
            params.extend([
                tenant.as_str().into(),
                flow.as_str().into(),
                name.as_str().into(),
                Value::Int(int("position", *position as u64)?),
                state.as_str().into(),
                if started { task.as_str() } else { "" }.into(),
            ]);
        }
        tx.execute(&Sql::built(sql), &params)?;
    }
    Ok(())
}

/// [`Store::flow`](crate::Store::flow).
pub(crate) fn get(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &FlowId,
) -> Result<StoredFlow, StoreError> {
    const JOBS: Sql = Sql::new(
        "SELECT job, task_id FROM flow_jobs WHERE tenant = ?1 AND flow = ?2 ORDER BY position",
    );
    let stored = load(tx, tenant, name, Lock::None)?;
    let rows = tx.query(&JOBS, &[tenant.as_str().into(), name.as_str().into()])?;
    let mut flow = stored.flow;
    for row in &rows {
        let job = JobName::new(row.text(0)?).map_err(|e| corrupt(tenant, name, &e))?;
        let task = match row.0.get(1) {
            Some(Value::Text(id)) => Some(TaskId::new(id).map_err(|e| corrupt(tenant, name, &e))?),
            _ => None,
        };
        let state = flow
            .run
            .state(job.as_str())
            .ok_or_else(|| corrupt(tenant, name, &format!("job \"{job}\" is not in its run")))?;
        flow.jobs.push(FlowJobStatus {
            name: job,
            state,
            task,
        });
    }
    Ok(flow)
}

/// Moves the flow on after `task`, one of its jobs' tasks, reached a final phase (at its
/// `updatedAt`): the run records the job's end (`FlowRun::end_attempt` with the task's
/// final phase), the jobs it makes ready become tasks, and the flow row is written back
/// under a compare-and-swap on its version, all in the caller's transaction. A task that
/// no flow's job names, or whose controlling flow is another incarnation, moves nothing.
pub(crate) fn job_ended(tx: &mut dyn Tx, tenant: &TenantId, task: &Task) -> Result<(), StoreError> {
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
        .end_attempt(&job, decision, None)
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
fn dispatch(
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

/// The id of a job's task: `<flow>.<job>` (at most 128 + 1 + 64 bytes, within a task id's
/// 256).
fn job_task_id(flow: &FlowId, job: &JobName) -> Result<TaskId, StoreError> {
    TaskId::new(format!("{flow}.{job}")).map_err(|e| StoreError::OutOfRange {
        field: "jobs[].name",
        value: e.to_string(),
    })
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

/// When the run ended (`now`, once every job is final) and when garbage collection may take
/// the flow (its end plus its `ttlAfterFinishedMs`).
fn ends(spec: &FlowSpec, run: &FlowRun, now: DateTime<Utc>) -> (Option<i64>, Option<i64>) {
    if !run.is_done() {
        return (None, None);
    }
    let expires = spec.ttl_after_finished_ms().map(|ttl| expiry(now, ttl));
    (Some(clamped_nanos(now)), expires)
}

/// Writes the run back if the flow is still at `version`, and the touched jobs' rows.
fn save(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    flow: &StoredFlow,
    version: u64,
    touched: &[&JobName],
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    const UPDATE: Sql = Sql::new(
        "UPDATE flows SET status = ?3, resource_version = ?4, updated_ns = ?5, finished_ns = ?6, \
         expires_ns = ?7, run = ?8 WHERE tenant = ?1 AND name = ?2 AND resource_version = ?9",
    );
    const JOB: Sql = Sql::new(
        "UPDATE flow_jobs SET state = ?4, task_id = COALESCE(task_id, NULLIF(?5, '')) \
         WHERE tenant = ?1 AND flow = ?2 AND job = ?3",
    );
    let name = flow.spec.name();
    let (finished, expires) = ends(&flow.spec, &flow.run, now);
    let next = version
        .checked_add(1)
        .ok_or_else(|| StoreError::OutOfRange {
            field: "flow.resourceVersion",
            value: version.to_string(),
        })?;
    let params = [
        tenant.as_str().into(),
        name.as_str().into(),
        flow.run.status().as_str().into(),
        Value::Int(int("flow.resourceVersion", next)?),
        Value::Int(clamped_nanos(now)),
        finished.into(),
        expires.into(),
        to_json(tenant, name, "run", serde_json::to_string(&flow.run))?.into(),
        Value::Int(int("flow.resourceVersion", version)?),
    ];
    if tx.execute(&UPDATE, &params)? != 1 {
        return Err(StoreError::FlowConflict {
            tenant: tenant.clone(),
            flow: name.clone(),
            reason: format!("the flow is no longer at version {version}"),
        });
    }
    let mut jobs: Vec<&JobName> = touched.to_vec();
    jobs.sort();
    jobs.dedup();
    for job in jobs {
        let state = flow.run.state(job.as_str()).unwrap_or(JobState::Waiting);
        // No task is written '' (see `insert_jobs`).
        let task = if state == JobState::Running {
            Value::from(job_task_id(name, job)?.as_str())
        } else {
            Value::from("")
        };
        tx.execute(
            &JOB,
            &[
                tenant.as_str().into(),
                name.as_str().into(),
                job.as_str().into(),
                state.as_str().into(),
                task,
            ],
        )?;
    }
    Ok(())
}

/// A flow as read, with the version an advance compares.
struct Loaded {
    flow: StoredFlow,
    version: u64,
}

/// Reads the flow row (its jobs' rows left out); with `lock`, PostgreSQL holds it until the
/// transaction ends.
fn load(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &FlowId,
    lock: Lock,
) -> Result<Loaded, StoreError> {
    const SELECT: Sql = Sql::new(
        "SELECT uid, resource_version, created_ns, updated_ns, finished_ns, spec, run \
         FROM flows WHERE tenant = ?1 AND name = ?2",
    );
    let rows = tx.query(
        &SELECT.clone().locking(lock),
        &[tenant.as_str().into(), name.as_str().into()],
    )?;
    let row = rows.first().ok_or_else(|| StoreError::FlowNotFound {
        tenant: tenant.clone(),
        flow: name.clone(),
    })?;
    let bad = |e: &dyn std::fmt::Display| corrupt(tenant, name, e);
    let uid = Uid::parse(row.text(0)?).map_err(|e| bad(&e))?;
    let version = u64::try_from(row.int(1)?).map_err(|e| bad(&e))?;
    let spec: FlowSpec = serde_json::from_str(row.text(5)?).map_err(|e| bad(&e))?;
    let run: FlowRun = serde_json::from_str(row.text(6)?).map_err(|e| bad(&e))?;
    if spec.name() != name || run.flow() != name {
        return Err(bad(&"the documents hold another flow"));
    }
    Ok(Loaded {
        flow: StoredFlow {
            spec,
            run,
            uid,
            resource_version: version,
            created_at: DateTime::from_timestamp_nanos(row.int(2)?),
            updated_at: DateTime::from_timestamp_nanos(row.int(3)?),
            finished_at: optional_int(row, 4)?.map(DateTime::from_timestamp_nanos),
            jobs: Vec::new(),
        },
        version,
    })
}

/// Column `index` as an integer or `NULL`.
fn optional_int(row: &Row, index: usize) -> Result<Option<i64>, StoreError> {
    match row.0.get(index) {
        Some(Value::Null) => Ok(None),
        _ => row.int(index).map(Some),
    }
}

/// A document written, or [`StoreError::Corrupt`] naming `what` of the flow.
fn to_json(
    tenant: &TenantId,
    flow: &FlowId,
    what: &str,
    written: serde_json::Result<String>,
) -> Result<String, StoreError> {
    written.map_err(|e| corrupt(tenant, flow, &format!("its {what}: {e}")))
}

/// A stored flow that does not read back.
fn corrupt(tenant: &TenantId, flow: &FlowId, reason: &dyn std::fmt::Display) -> StoreError {
    StoreError::Corrupt {
        what: format!("flow \"{flow}\" of tenant \"{tenant}\""),
        reason: reason.to_string(),
    }
}

/// The model refused a change of the flow at `field`.
fn rejected(
    tenant: &TenantId,
    flow: &FlowId,
    field: String,
    error: taskmodel::Error,
) -> StoreError {
    StoreError::FlowRejected {
        tenant: tenant.clone(),
        flow: flow.clone(),
        field,
        error: Box::new(error),
    }
}
