//! Flows: a flow stored with its run, each ready job made a task the flow owns, and the run
//! moved on in the transaction that ends a job's task (`advance.rs`), under a
//! compare-and-swap on the flow's `resource_version`; the tenant's flows listed in keyset
//! pages (`list.rs`).
//!
//! model-flow's `FlowRun` decides every step (which jobs are ready, which are skipped, the
//! rolled-up status) and keeps the jobs' results; the store keeps it as a document beside
//! the columns SQL reads, and repeats each job's state and task in `flow_jobs`.

mod advance;
mod list;

pub(crate) use self::advance::{cancel_run, job_ended};
pub(crate) use self::list::list;
pub use self::list::{FlowCursor, FlowSummary};

use chrono::{DateTime, Utc};
use taskmodel::flow::{FlowRun, FlowSpec, JobResult, JobState};
use taskmodel::ids::{FlowId, JobName, TaskId, TenantId, Uid};
use taskmodel::task::Task;

use crate::columns::{clamped_nanos, exact_nanos, expiry, int};
use crate::error::StoreError;
use crate::pair::insert_tasks;
use crate::tx::{Lock, Row, Sql, Tx, Value};

use self::advance::dispatch;

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

/// One job of a stored flow: its state, the task made for it once it was ready, and the
/// result it ended with.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FlowJobStatus {
    /// The job's name.
    pub name: JobName,
    /// Its state in the run.
    pub state: JobState,
    /// Its task (`<flow>.<job>`), once started.
    pub task: Option<TaskId>,
    /// The result its task's runner reported with the attempt that ended the job
    /// ([`Store::report_job`](crate::Store::report_job)), as the run keeps it
    /// (`FlowRun::result`).
    pub result: Option<JobResult>,
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
            let marks: Vec<String> = (first..first + 6).map(|n| format!("?{n}")).collect();
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
                if started {
                    task.as_str().into()
                } else {
                    Value::Null
                },
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
        let result = flow.run.result(job.as_str()).cloned();
        flow.jobs.push(FlowJobStatus {
            name: job,
            state,
            task,
            result,
        });
    }
    Ok(flow)
}

/// The id of a job's task: `<flow>.<job>` (at most 128 + 1 + 64 bytes, within a task id's
/// 256).
fn job_task_id(flow: &FlowId, job: &JobName) -> Result<TaskId, StoreError> {
    TaskId::new(format!("{flow}.{job}")).map_err(|e| StoreError::OutOfRange {
        field: "jobs[].name",
        value: e.to_string(),
    })
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
        "UPDATE flow_jobs SET state = ?4, task_id = COALESCE(task_id, ?5) \
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
        let task = if state == JobState::Running {
            Value::from(job_task_id(name, job)?.as_str())
        } else {
            Value::Null
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
