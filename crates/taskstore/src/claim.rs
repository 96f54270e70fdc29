//! Claims: the first pending task in queue order that a runner may take, leased to it in
//! one transaction.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use taskmodel::ids::TenantId;
use taskmodel::task::Task;

use crate::columns::{clamped_nanos, read_task, task_keys};
use crate::error::StoreError;
use crate::pair::{AttemptWrite, current_attempt, refused, save};
use crate::store::{ClaimRequest, Claimed, MAX_CLAIM_SCAN};
use crate::tx::{Lock, Sql, Tx, Value};

/// How many queued tasks one read of the queue returns (and PostgreSQL locks).
const SCAN_BATCH: i64 = 16;

/// The queue in order: the tenant's due pending tasks, `priority DESC, queued_ns, id`, on
/// the partial index over pending tasks. (Whether a task's slot is busy is asked
/// separately, of the unique index over running tasks: as a correlated subquery here,
/// PostgreSQL may keep a plan, made while no task ran, that reads every running task for
/// each queued one.)
macro_rules! queue_head {
    () => {
        "SELECT t.priority, t.queued_ns, t.id, t.doc FROM tasks t \
         WHERE t.tenant = ?1 AND t.phase = 'pending' AND t.queued_ns <= ?2"
    };
}
macro_rules! queue_order {
    () => {
        " ORDER BY t.priority DESC, t.queued_ns, t.id LIMIT ?3"
    };
}

/// The head of the queue.
const QUEUE: Sql = Sql::locked(concat!(queue_head!(), queue_order!()), Lock::SkipLocked);

/// The queue after the position `(priority, queued_ns, id)`.
const QUEUE_AFTER: Sql = Sql::locked(
    concat!(
        queue_head!(),
        " AND (t.priority < ?4 OR (t.priority = ?4 AND (t.queued_ns, t.id) > (?5, ?6)))",
        queue_order!()
    ),
    Lock::SkipLocked,
);

/// The places the runner's active attempts hold.
const RUNNER_PLACES: Sql = Sql::new(
    "SELECT runner_slot FROM attempts WHERE tenant = ?1 AND runner = ?2 \
     AND state IN ('leased', 'running', 'cancelling')",
);

/// [`Store::claim`](crate::Store::claim).
pub(crate) fn claim(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    request: &ClaimRequest,
    now: DateTime<Utc>,
) -> Result<Option<Claimed>, StoreError> {
    let Some(place) = free_place(tx, tenant, request)? else {
        return Ok(None);
    };
    let Some(mut task) = first_claimable(tx, tenant, request, now)? else {
        return Ok(None);
    };
    // The queue read the task (and, on PostgreSQL, locked it); a task that ran before
    // needs its last attempt to check the new lease against.
    let previous = current_attempt(tx, tenant, &task)?;
    let version = task.resource_version();
    let keys = task_keys(&task)?;
    let run = task
        .lease_attempt(
            Some(version),
            previous.as_ref(),
            request.runner.clone(),
            request.lease,
            request.lease_expires_at,
            now,
        )
        .map_err(|error| refused(tenant, task.id(), error))?;
    save(
        tx,
        tenant,
        version,
        Some(&keys),
        &task,
        AttemptWrite::Insert(&run, place),
    )?;
    Ok(Some(Claimed { task, attempt: run }))
}

/// The lowest place `0..max_concurrent` the runner's active attempts leave free; `None`
/// when it is at capacity. A unique index on `(tenant, runner, runner_slot)` over active
/// attempts makes two concurrent claims of one place conflict.
fn free_place(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    request: &ClaimRequest,
) -> Result<Option<i64>, StoreError> {
    let rows = tx.query(
        &RUNNER_PLACES,
        &[tenant.as_str().into(), request.runner.as_str().into()],
    )?;
    let taken: BTreeSet<i64> = rows
        .iter()
        .map(|row| row.int(0))
        .collect::<Result<_, _>>()?;
    Ok((0..i64::from(request.max_concurrent)).find(|place| !taken.contains(place)))
}

/// Whether the runner may take `task`: it supports the kind and its labels match the
/// task's runner selector (with the model's matcher).
fn fits(task: &Task, request: &ClaimRequest) -> bool {
    let kind = task.spec().kind();
    kind.is_routable()
        && kind
            .name()
            .is_some_and(|name| request.kinds.contains_kind(&name))
        && task.spec().runner_selector().matches(&request.labels)
}

/// Walks the queue in order (PostgreSQL skips rows other claims hold) and returns the
/// first task the runner fits, within [`MAX_CLAIM_SCAN`]. The first read asks for one row:
/// the head of the queue usually fits, and PostgreSQL then locks only it; later reads ask
/// for [`SCAN_BATCH`].
fn first_claimable(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    request: &ClaimRequest,
    now: DateTime<Utc>,
) -> Result<Option<Task>, StoreError> {
    let mut position: Option<(i64, i64, String)> = None;
    let mut scanned = 0;
    while scanned < MAX_CLAIM_SCAN {
        let batch = if position.is_none() { 1 } else { SCAN_BATCH };
        let mut params: Vec<Value> = vec![
            tenant.as_str().into(),
            Value::Int(clamped_nanos(now)),
            Value::Int(batch),
        ];
        let sql = match &position {
            None => &QUEUE,
            Some((priority, queued, id)) => {
                params.extend([
                    Value::Int(*priority),
                    Value::Int(*queued),
                    id.as_str().into(),
                ]);
                &QUEUE_AFTER
            }
        };
        let rows = tx.query(sql, &params)?;
        let mut fitting = Vec::new();
        for row in &rows {
            let task = read_task(row, 3, tenant, None)?;
            if fits(&task, request) {
                fitting.push(task);
            }
            position = Some((row.int(0)?, row.int(1)?, row.text(2)?.to_owned()));
        }
        let busy = busy_slots(tx, tenant, &fitting)?;
        if let Some(task) = fitting
            .into_iter()
            .find(|task| !busy.contains(task.spec().slot().as_str()))
        {
            return Ok(Some(task));
        }
        scanned += rows.len();
        if rows.len() < usize::try_from(batch).unwrap_or(usize::MAX) {
            break;
        }
    }
    Ok(None)
}

/// Which of the tasks' slots have a running task (one task runs at a time in a slot).
fn busy_slots(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    tasks: &[Task],
) -> Result<BTreeSet<String>, StoreError> {
    if tasks.is_empty() {
        return Ok(BTreeSet::new());
    }
    let slots: BTreeSet<&str> = tasks
        .iter()
        .map(|task| task.spec().slot().as_str())
        .collect();
    let marks: Vec<String> = (2..slots.len() + 2).map(|n| format!("?{n}")).collect();
    let sql = Sql::built(format!(
        "SELECT slot FROM tasks WHERE tenant = ?1 AND phase = 'running' AND slot IN ({})",
        marks.join(", ")
    ));
    let mut params: Vec<Value> = vec![tenant.as_str().into()];
    params.extend(slots.into_iter().map(Value::from));
    let rows = tx.query(&sql, &params)?;
    rows.iter()
        .map(|row| row.text(0).map(str::to_owned))
        .collect()
}
