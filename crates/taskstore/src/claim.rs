//! Claims: the first pending task in queue order that a runner may take, leased to it in
//! one transaction.

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

/// The queue in order, in one statement with the checks a claim needs: the tenant's due
/// pending tasks, `priority DESC, queued_ns, id`, on the partial index over pending tasks;
/// beside each, whether its slot is busy (a task of the slot is running: a probe of the
/// unique index over running tasks, made per row returned, so no plan can read every
/// running task for each queued one) and the runner's lowest free place. A runner at
/// capacity reads nothing: the place is computed once (it depends on no row) and compared
/// before the queue is read, so no row is locked either.
///
/// Parameters: `?1` tenant, `?2` now, `?3` how many rows, `?4` runner, `?5` its
/// `maxConcurrent`; after a position, `?6` priority, `?7` queued_ns, `?8` id. Columns:
/// `priority, queued_ns, id, busy (0 or 1), place, doc`.
macro_rules! queue_head {
    () => {
        concat!(
            "SELECT t.priority, t.queued_ns, t.id, \
             CASE WHEN EXISTS (SELECT 1 FROM tasks r WHERE r.tenant = ?1 AND r.slot = t.slot \
             AND r.phase = 'running') THEN 1 ELSE 0 END, ",
            free_place!(),
            ", t.doc FROM tasks t \
             WHERE t.tenant = ?1 AND t.phase = 'pending' AND t.queued_ns <= ?2 AND ",
            free_place!(),
            " < ?5"
        )
    };
}
/// The lowest place the runner's active attempts leave free: 0, or one past a taken place,
/// that no active attempt holds (a unique index on `(tenant, runner, runner_slot)` over
/// active attempts makes two concurrent claims of one place conflict).
macro_rules! free_place {
    () => {
        "(SELECT min(p.n) FROM (SELECT 0 AS n UNION ALL SELECT a.runner_slot + 1 FROM attempts a \
         WHERE a.tenant = ?1 AND a.runner = ?4 AND a.state IN ('leased', 'running', 'cancelling')) p \
         WHERE p.n NOT IN (SELECT b.runner_slot FROM attempts b WHERE b.tenant = ?1 \
         AND b.runner = ?4 AND b.state IN ('leased', 'running', 'cancelling')))"
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
        " AND (t.priority < ?6 OR (t.priority = ?6 AND (t.queued_ns, t.id) > (?7, ?8)))",
        queue_order!()
    ),
    Lock::SkipLocked,
);

/// [`Store::claim`](crate::Store::claim).
pub(crate) fn claim(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    request: &ClaimRequest,
    now: DateTime<Utc>,
) -> Result<Option<Claimed>, StoreError> {
    let Some((mut task, place)) = first_claimable(tx, tenant, request, now)? else {
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
/// first task the runner fits whose slot is free, with the runner's free place, within
/// [`MAX_CLAIM_SCAN`]; `None` when nothing is claimable or the runner is at capacity. The
/// first read asks for one row: the head of the queue usually fits, and PostgreSQL then
/// locks only it; later reads ask for [`SCAN_BATCH`]. Only the documents of rows whose slot
/// is free are parsed.
fn first_claimable(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    request: &ClaimRequest,
    now: DateTime<Utc>,
) -> Result<Option<(Task, i64)>, StoreError> {
    let mut position: Option<(i64, i64, String)> = None;
    let mut scanned = 0;
    while scanned < MAX_CLAIM_SCAN {
        let batch = if position.is_none() { 1 } else { SCAN_BATCH };
        let mut params: Vec<Value> = vec![
            tenant.as_str().into(),
            Value::Int(clamped_nanos(now)),
            Value::Int(batch),
            request.runner.as_str().into(),
            Value::Int(i64::from(request.max_concurrent)),
        ];
        let sql = match position.take() {
            None => &QUEUE,
            Some((priority, queued, id)) => {
                params.extend([Value::Int(priority), Value::Int(queued), Value::Text(id)]);
                &QUEUE_AFTER
            }
        };
        let rows = tx.query(sql, &params)?;
        for row in &rows {
            if row.int(3)? == 0 {
                let task = read_task(row, 5, tenant, None)?;
                if fits(&task, request) {
                    return Ok(Some((task, row.int(4)?)));
                }
            }
            position = Some((row.int(0)?, row.int(1)?, row.text(2)?.to_owned()));
        }
        scanned += rows.len();
        if rows.len() < usize::try_from(batch).unwrap_or(usize::MAX) {
            break;
        }
    }
    Ok(None)
}
