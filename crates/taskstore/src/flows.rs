//! Flows: a flow stored with its spec and one row per job, each ready job made a task the
//! flow owns, and the run moved on in the transaction that ends a job's task
//! (`advance.rs`), under a compare-and-swap on the flow's `resource_version`; the tenant's
//! flows listed in keyset pages (`list.rs`).
//!
//! model-flow decides every step: `FlowRun` when a flow is created or read whole, and its
//! step (`end_job`, `cancel_jobs`) over the jobs' rows (`rows.rs`) when a job ends, so an
//! end reads and writes the ended job's row, its dependents' and the flow row's counts,
//! never the flow's documents. Each job's row holds its state, rule, dependency count,
//! upstream tally, dependents' positions, result, task spec and task; the flow row holds
//! the counts its status rolls up from. A flow stored before the rows existed keeps its
//! run document (reads assemble it from that) until its first write moves it into rows
//! ([`upgrade`]).

mod advance;
mod list;
mod rows;

pub(crate) use self::advance::{cancel_run, job_ended};
pub(crate) use self::list::list;
pub use self::list::{FlowCursor, FlowSummary};

use chrono::{DateTime, Utc};
use taskmodel::flow::{
    FailurePolicy, FlowRun, FlowSpec, JobCounts, JobResult, JobState, SkipReason, UpstreamTally,
};
use taskmodel::ids::{FlowId, JobName, TaskId, TenantId, Uid};
use taskmodel::selector::Labels;

use crate::columns::{clamped_nanos, exact_nanos, expiry, int};
use crate::error::StoreError;
use crate::pair::insert_tasks;
use crate::tx::{Lock, Row, Sql, Tx, Value};

use self::advance::dispatch_all;
use self::rows::{count_value, count_values, format_positions, state_of};

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

/// The most job rows one `INSERT` of a new flow writes ([`JOB_INSERT`] placeholders each).
const INSERT_ROWS: usize = 50;

/// The columns a job's row is written with.
const JOB_INSERT: usize = 15;

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
         finished_ns, expires_ns, spec, run, job_rows, failure_policy, labels, ttl_ms, \
         not_started, running, failed, canceled, other_final) \
         VALUES (?1, ?2, ?3, ?4, 1, ?5, ?5, ?6, ?7, ?8, '', 1, ?9, ?10, ?11, ?12, ?13, ?14, \
         ?15, ?16)",
    );
    let mut run = FlowRun::new(spec);
    let ready: Vec<JobName> = run.ready().cloned().collect();
    let tasks = dispatch_all(tenant, spec, uid, &mut run, &ready, now)?;
    let counts = JobCounts::of(run.states().map(|(_, state)| state));
    let created = exact_nanos("createdAt", now)?;
    let (finished, expires) = if counts.all_final() {
        let expires = spec.ttl_after_finished_ms().map(|ttl| expiry(now, ttl));
        (Some(clamped_nanos(now)), expires)
    } else {
        (None, None)
    };
    let spec_doc = to_json(tenant, spec.name(), "spec", serde_json::to_string(spec))?;
    let labels = to_json(
        tenant,
        spec.name(),
        "labels",
        serde_json::to_string(spec.labels()),
    )?;
    let ttl = match spec.ttl_after_finished_ms() {
        Some(ms) => Value::Int(int("ttlAfterFinishedMs", ms)?),
        None => Value::Null,
    };
    let mut params = vec![
        tenant.as_str().into(),
        spec.name().as_str().into(),
        uid.to_string().into(),
        counts.status().as_str().into(),
        Value::Int(created),
        finished.into(),
        expires.into(),
        spec_doc.into(),
        spec.failure_policy().as_str().into(),
        labels.into(),
        ttl,
    ];
    params.extend(count_values(&counts)?);
    let inserted = tx.try_execute(&INSERT, &params)?;
    if inserted.is_none() {
        return Err(StoreError::FlowExists {
            tenant: tenant.clone(),
            flow: spec.name().clone(),
        });
    }
    insert_jobs(tx, tenant, spec, &run)?;
    insert_tasks(tx, tenant, &tasks)?;
    get(tx, tenant, spec.name())
}

/// Writes a flow's `flow_jobs` rows from its run, each with everything a job's end reads;
/// a job that ran names its task.
fn insert_jobs(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    spec: &FlowSpec,
    run: &FlowRun,
) -> Result<(), StoreError> {
    let flow = spec.name();
    let graph = run.graph();
    let states: Vec<JobState> = run.states().map(|(_, state)| state).collect();
    let positions: Vec<usize> = (0..graph.len()).collect();
    for chunk in positions.chunks(INSERT_ROWS) {
        let mut sql = String::from(
            "INSERT INTO flow_jobs (tenant, flow, job, position, state, task_id, skip_reason, \
             rule, dependencies, up_succeeded, up_failed, up_skipped, dependents, result, spec) \
             VALUES ",
        );
        let mut params = Vec::with_capacity(chunk.len() * JOB_INSERT);
        for (row, &position) in chunk.iter().enumerate() {
            let first = row * JOB_INSERT + 1;
            let marks: Vec<String> = (first..first + JOB_INSERT)
                .map(|n| format!("?{n}"))
                .collect();
            sql.push_str(if row == 0 { "(" } else { ", (" });
            sql.push_str(&marks.join(", "));
            sql.push(')');
            let name = graph
                .name(position)
                .ok_or_else(|| corrupt(tenant, flow, &"a job has no name"))?;
            let state = states.get(position).copied().unwrap_or(JobState::Waiting);
            let ran = matches!(
                state,
                JobState::Running | JobState::Succeeded | JobState::Failed | JobState::Canceled
            );
            let mut tally = UpstreamTally::default();
            for d in graph.dependencies(position) {
                tally.add(states.get(d).copied().unwrap_or(JobState::Waiting));
            }
            let task_spec = spec
                .task_spec(name.as_str())
                .map_err(|e| rejected(tenant, flow, format!("jobs.{name}"), e.into()))?;
            let task_doc = to_json(tenant, flow, "job spec", serde_json::to_string(&task_spec))?;
            let result = match run.result(name.as_str()) {
                Some(result) => {
                    to_json(tenant, flow, "result", serde_json::to_string(result))?.into()
                }
                None => Value::Null,
            };
            params.extend([
                tenant.as_str().into(),
                flow.as_str().into(),
                name.as_str().into(),
                Value::Int(int("position", position as u64)?),
                state.as_str().into(),
                if ran {
                    job_task_id(flow, name)?.as_str().into()
                } else {
                    Value::Null
                },
                optional_text(state.skip_reason().map(SkipReason::as_str)),
                graph.rule(position).unwrap_or_default().as_str().into(),
                Value::Int(int(
                    "dependencies",
                    graph.dependencies(position).len() as u64,
                )?),
                Value::Int(i64::from(tally.succeeded())),
                Value::Int(i64::from(tally.failed())),
                Value::Int(i64::from(tally.skipped())),
                format_positions(graph.dependents(position)).into(),
                result,
                task_doc.into(),
            ]);
        }
        tx.execute(&Sql::built(sql), &params)?;
    }
    Ok(())
}

/// [`Store::flow`](crate::Store::flow): the flow row, its spec and its jobs' rows, the run
/// assembled from the rows (`FlowRun::from_parts`, which checks them), or read from its
/// document for a flow stored before the rows.
pub(crate) fn get(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &FlowId,
) -> Result<StoredFlow, StoreError> {
    const SELECT: Sql = Sql::new(
        "SELECT uid, resource_version, created_ns, updated_ns, finished_ns, spec, job_rows, run \
         FROM flows WHERE tenant = ?1 AND name = ?2",
    );
    let rows = tx.query(&SELECT, &[tenant.as_str().into(), name.as_str().into()])?;
    let row = rows.first().ok_or_else(|| StoreError::FlowNotFound {
        tenant: tenant.clone(),
        flow: name.clone(),
    })?;
    let bad = |e: &dyn std::fmt::Display| corrupt(tenant, name, e);
    let uid = Uid::parse(row.text(0)?).map_err(|e| bad(&e))?;
    let version = u64::try_from(row.int(1)?).map_err(|e| bad(&e))?;
    let spec: FlowSpec = serde_json::from_str(row.text(5)?).map_err(|e| bad(&e))?;
    if spec.name() != name {
        return Err(bad(&"the spec holds another flow"));
    }
    let (run, jobs) = if row.int(6)? == 0 {
        let run: FlowRun = serde_json::from_str(row.text(7)?).map_err(|e| bad(&e))?;
        let jobs = jobs_of_document(tx, tenant, &run)?;
        (run, jobs)
    } else {
        run_of(tx, tenant, &spec)?
    };
    Ok(StoredFlow {
        spec,
        run,
        uid,
        resource_version: version,
        created_at: DateTime::from_timestamp_nanos(row.int(2)?),
        updated_at: DateTime::from_timestamp_nanos(row.int(3)?),
        finished_at: row.optional_int(4)?.map(DateTime::from_timestamp_nanos),
        jobs,
    })
}

/// A flow's run and jobs, from its jobs' rows.
pub(crate) fn run_of(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    spec: &FlowSpec,
) -> Result<(FlowRun, Vec<FlowJobStatus>), StoreError> {
    const JOBS: Sql = Sql::new(
        "SELECT job, task_id, state, skip_reason, result FROM flow_jobs \
         WHERE tenant = ?1 AND flow = ?2 ORDER BY position",
    );
    let name = spec.name();
    let bad = |e: &dyn std::fmt::Display| corrupt(tenant, name, e);
    let rows = tx.query(&JOBS, &[tenant.as_str().into(), name.as_str().into()])?;
    let mut jobs = Vec::with_capacity(rows.len());
    let mut states = Vec::with_capacity(rows.len());
    let mut results = Vec::with_capacity(rows.len());
    for row in &rows {
        let job = JobName::new(row.text(0)?).map_err(|e| bad(&e))?;
        let task = match optional_text_at(row, 1) {
            Some(id) => Some(TaskId::new(id).map_err(|e| bad(&e))?),
            None => None,
        };
        let state = state_of(row.text(2)?, optional_text_at(row, 3))
            .ok_or_else(|| bad(&format!("job \"{job}\" has no known state")))?;
        let result: Option<JobResult> = match optional_text_at(row, 4) {
            Some(doc) => Some(serde_json::from_str(doc).map_err(|e| bad(&e))?),
            None => None,
        };
        states.push(state);
        results.push(result.clone());
        jobs.push(FlowJobStatus {
            name: job,
            state,
            task,
            result,
        });
    }
    let run = FlowRun::from_parts(spec, states, results).map_err(|e| bad(&e))?;
    Ok((run, jobs))
}

/// The jobs of a flow stored before the jobs' rows (`job_rows` 0): states and results
/// from its run document, tasks from its rows.
fn jobs_of_document(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    run: &FlowRun,
) -> Result<Vec<FlowJobStatus>, StoreError> {
    const JOBS: Sql = Sql::new(
        "SELECT job, task_id FROM flow_jobs WHERE tenant = ?1 AND flow = ?2 ORDER BY position",
    );
    let name = run.flow();
    let bad = |e: &dyn std::fmt::Display| corrupt(tenant, name, e);
    let rows = tx.query(&JOBS, &[tenant.as_str().into(), name.as_str().into()])?;
    let mut jobs = Vec::with_capacity(rows.len());
    for row in &rows {
        let job = JobName::new(row.text(0)?).map_err(|e| bad(&e))?;
        let task = match optional_text_at(row, 1) {
            Some(id) => Some(TaskId::new(id).map_err(|e| bad(&e))?),
            None => None,
        };
        let state = run
            .state(job.as_str())
            .ok_or_else(|| bad(&format!("job \"{job}\" is not in its run")))?;
        let result = run.result(job.as_str()).cloned();
        jobs.push(FlowJobStatus {
            name: job,
            state,
            task,
            result,
        });
    }
    Ok(jobs)
}

/// The id of a job's task: `<flow>.<job>` (at most 128 + 1 + 64 bytes, within a task id's
/// 256).
fn job_task_id(flow: &FlowId, job: &JobName) -> Result<TaskId, StoreError> {
    TaskId::new(format!("{flow}.{job}")).map_err(|e| StoreError::OutOfRange {
        field: "jobs[].name",
        value: e.to_string(),
    })
}

/// What a job's end reads and writes of the flow row (never its documents).
#[derive(Debug, Clone)]
struct Head {
    uid: Uid,
    version: u64,
    policy: FailurePolicy,
    failure_seen: bool,
    result_bytes: u64,
    counts: JobCounts,
    labels: Labels,
    ttl_ms: Option<u64>,
}

impl Head {
    /// The head of a new flow's row, before its first jobs start.
    fn of(spec: &FlowSpec, uid: Uid, run: &FlowRun) -> Self {
        Self {
            uid,
            version: 1,
            policy: spec.failure_policy(),
            failure_seen: false,
            result_bytes: 0,
            counts: JobCounts::of(run.states().map(|(_, state)| state)),
            labels: spec.labels().clone(),
            ttl_ms: spec.ttl_after_finished_ms(),
        }
    }

    /// This head with the counts of `run` (its results' size and whether a job failed).
    fn moved(&self, run: &FlowRun) -> Self {
        let mut head = self.clone();
        head.counts = JobCounts::of(run.states().map(|(_, state)| state));
        head.failure_seen = run
            .states()
            .any(|(_, s)| matches!(s, JobState::Failed | JobState::Canceled));
        head.result_bytes = run.results().map(|(_, r)| r.byte_len() as u64).sum();
        head
    }
}

/// Reads the flow row's head; with `lock`, PostgreSQL holds the row until the transaction
/// ends. A flow stored before the jobs' rows is moved into them first.
fn read_head(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &FlowId,
    lock: Lock,
) -> Result<Head, StoreError> {
    const SELECT: Sql = Sql::new(
        "SELECT uid, resource_version, failure_policy, failure_seen, result_bytes, not_started, \
         running, failed, canceled, other_final, labels, ttl_ms FROM flows \
         WHERE tenant = ?1 AND name = ?2",
    );
    upgrade(tx, tenant, name)?;
    let rows = tx.query(
        &SELECT.clone().locking(lock),
        &[tenant.as_str().into(), name.as_str().into()],
    )?;
    let row = rows.first().ok_or_else(|| StoreError::FlowNotFound {
        tenant: tenant.clone(),
        flow: name.clone(),
    })?;
    let bad = |e: &dyn std::fmt::Display| corrupt(tenant, name, e);
    let count =
        |i: usize| -> Result<u64, StoreError> { u64::try_from(row.int(i)?).map_err(|e| bad(&e)) };
    let policy = [FailurePolicy::FailFast, FailurePolicy::Continue]
        .into_iter()
        .find(|p| p.as_str() == row.text(2).unwrap_or_default())
        .ok_or_else(|| bad(&"its failure policy is unknown"))?;
    Ok(Head {
        uid: Uid::parse(row.text(0)?).map_err(|e| bad(&e))?,
        version: count(1)?,
        policy,
        failure_seen: row.int(3)? != 0,
        result_bytes: count(4)?,
        counts: JobCounts::from_parts([count(5)?, count(6)?, count(7)?, count(8)?, count(9)?]),
        labels: serde_json::from_str(row.text(10)?).map_err(|e| bad(&e))?,
        ttl_ms: row
            .optional_int(11)?
            .map(|ms| u64::try_from(ms).map_err(|e| bad(&e)))
            .transpose()?,
    })
}

/// Writes the flow row's head if the flow is still at `version`, bumping it: the counts,
/// the rolled-up status, and the end and expiry once every job is final.
fn write_head(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &FlowId,
    head: &Head,
    version: u64,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    const UPDATE: Sql = Sql::new(
        "UPDATE flows SET status = ?3, resource_version = ?4, updated_ns = ?5, finished_ns = ?6, \
         expires_ns = ?7, failure_seen = ?8, result_bytes = ?9, not_started = ?10, \
         running = ?11, failed = ?12, canceled = ?13, other_final = ?14 \
         WHERE tenant = ?1 AND name = ?2 AND resource_version = ?15",
    );
    let next = version
        .checked_add(1)
        .ok_or_else(|| StoreError::OutOfRange {
            field: "flow.resourceVersion",
            value: version.to_string(),
        })?;
    let (finished, expires) = if head.counts.all_final() {
        let expires = head.ttl_ms.map(|ttl| expiry(now, ttl));
        (Some(clamped_nanos(now)), expires)
    } else {
        (None, None)
    };
    let [not_started, running, failed, canceled, other_final] = count_values(&head.counts)?;
    let params = [
        tenant.as_str().into(),
        name.as_str().into(),
        head.counts.status().as_str().into(),
        Value::Int(int("flow.resourceVersion", next)?),
        Value::Int(clamped_nanos(now)),
        finished.into(),
        expires.into(),
        Value::Int(i64::from(head.failure_seen)),
        count_value("flow.resultBytes", head.result_bytes)?,
        not_started,
        running,
        failed,
        canceled,
        other_final,
        Value::Int(int("flow.resourceVersion", version)?),
    ];
    if tx.execute(&UPDATE, &params)? != 1 {
        return Err(StoreError::FlowConflict {
            tenant: tenant.clone(),
            flow: name.clone(),
            reason: format!("the flow is no longer at version {version}"),
        });
    }
    Ok(())
}

/// Moves a flow stored before the jobs' rows (its run a document, `job_rows` 0), in a
/// write, into them: its jobs' rows rewritten from the run, the flow row's head filled in, the
/// document dropped. Does nothing for a flow already in rows (or not there).
fn upgrade(tx: &mut dyn Tx, tenant: &TenantId, name: &FlowId) -> Result<(), StoreError> {
    const OLD: Sql = Sql::new(
        "SELECT spec, run, uid FROM flows WHERE tenant = ?1 AND name = ?2 AND job_rows = 0",
    );
    const DELETE_JOBS: Sql = Sql::new("DELETE FROM flow_jobs WHERE tenant = ?1 AND flow = ?2");
    const MOVED: Sql = Sql::new(
        "UPDATE flows SET job_rows = 1, run = '', failure_policy = ?3, failure_seen = ?4, \
         result_bytes = ?5, not_started = ?6, running = ?7, failed = ?8, canceled = ?9, \
         other_final = ?10, labels = ?11, ttl_ms = ?12 WHERE tenant = ?1 AND name = ?2",
    );
    let key = [Value::from(tenant.as_str()), name.as_str().into()];
    let rows = tx.query(&OLD.clone().locking(Lock::Update), &key)?;
    let Some(row) = rows.first() else {
        return Ok(());
    };
    let bad = |e: &dyn std::fmt::Display| corrupt(tenant, name, e);
    let spec: FlowSpec = serde_json::from_str(row.text(0)?).map_err(|e| bad(&e))?;
    let run: FlowRun = serde_json::from_str(row.text(1)?).map_err(|e| bad(&e))?;
    let uid = Uid::parse(row.text(2)?).map_err(|e| bad(&e))?;
    if spec.name() != name || run.flow() != name || run.graph() != spec.graph() {
        return Err(bad(&"the documents hold another flow"));
    }
    tx.execute(&DELETE_JOBS, &key)?;
    insert_jobs(tx, tenant, &spec, &run)?;
    let head = Head::of(&spec, uid, &run).moved(&run);
    let labels = to_json(tenant, name, "labels", serde_json::to_string(&head.labels))?;
    let [not_started, running, failed, canceled, other_final] = count_values(&head.counts)?;
    tx.execute(
        &MOVED,
        &[
            tenant.as_str().into(),
            name.as_str().into(),
            head.policy.as_str().into(),
            Value::Int(i64::from(head.failure_seen)),
            count_value("flow.resultBytes", head.result_bytes)?,
            not_started,
            running,
            failed,
            canceled,
            other_final,
            labels.into(),
            match head.ttl_ms {
                Some(ms) => Value::Int(int("ttlAfterFinishedMs", ms)?),
                None => Value::Null,
            },
        ],
    )?;
    Ok(())
}

/// Column `index` as text, or `None` for `NULL`.
fn optional_text_at(row: &Row, index: usize) -> Option<&str> {
    match row.0.get(index) {
        Some(Value::Text(text)) => Some(text),
        _ => None,
    }
}

/// Text or `NULL`.
fn optional_text(text: Option<&str>) -> Value {
    text.map_or(Value::Null, Value::from)
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
