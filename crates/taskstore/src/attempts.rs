//! The runner's calls and the control plane's on one attempt: start, heartbeat, result,
//! cancel, expiry; and one task's attempt history.

use chrono::{DateTime, Utc};
use taskmodel::RandomSource;
use taskmodel::flow::JobResult;
use taskmodel::ids::{TaskId, TenantId};
use taskmodel::task::attempt::GoneReason;
use taskmodel::task::{
    Applied, AttemptResult, LeaseId, Precondition, RestartDecision, TaskError, TaskRun,
};

use crate::columns::read_attempt;
use crate::error::StoreError;
use crate::flows;
use crate::pair::{AttemptWrite, Pair, load, refused};
use crate::schema::active_attempt;
use crate::store::MAX_READ_PAGE;
use crate::tx::{Lock, Sql, Tx, Value};
use crate::values::Change;

/// Reads the pair, lets `decide` change it, and writes it back when it answers `Changed`.
/// A task without an attempt has no lease for a runner call to name: gone.
fn change_attempt<T>(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &TaskId,
    job: Option<JobResult>,
    decide: impl FnOnce(&mut Pair, &mut TaskRun) -> Result<Applied<T>, TaskError>,
) -> Result<Change<T>, StoreError> {
    let mut pair = load(tx, tenant, id, Lock::Update)?;
    let Some(mut run) = pair.attempt.take() else {
        let error = TaskError::Gone {
            attempt: 0,
            reason: GoneReason::NotCurrentLease,
        };
        return Err(refused(tenant, id, error));
    };
    let applied = decide(&mut pair, &mut run).map_err(|error| refused(tenant, id, error))?;
    commit(tx, tenant, pair, run, applied, job)
}

/// Writes the pair back when the model's answer is `Changed` (with the flow moved on when
/// the task's end ends its job, `job` the job's result), and says what the call did.
fn commit<T>(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    pair: Pair,
    run: TaskRun,
    applied: Applied<T>,
    job: Option<JobResult>,
) -> Result<Change<T>, StoreError> {
    if applied.is_changed() {
        pair.save(tx, tenant, AttemptWrite::Update(&run))?;
        flows::job_ended(tx, tenant, &pair.task, job)?;
    }
    Ok(Change {
        task: pair.task,
        attempt: Some(run),
        applied,
    })
}

/// [`Store::start`](crate::Store::start).
pub(crate) fn start(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &TaskId,
    lease: LeaseId,
    now: DateTime<Utc>,
) -> Result<Change, StoreError> {
    change_attempt(tx, tenant, id, None, |pair, run| {
        pair.task.start_attempt(run, lease, now)
    })
}

/// [`Store::heartbeat`](crate::Store::heartbeat).
pub(crate) fn heartbeat(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &TaskId,
    lease: LeaseId,
    lease_expires_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Change, StoreError> {
    change_attempt(tx, tenant, id, None, |pair, run| {
        pair.task
            .heartbeat_attempt(run, lease, lease_expires_at, now)
    })
}

/// [`Store::report`](crate::Store::report), and [`Store::report_job`](crate::Store::report_job)
/// with the job's result.
#[allow(
    clippy::too_many_arguments,
    reason = "the trait call's arguments, passed on"
)]
pub(crate) fn report(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &TaskId,
    lease: LeaseId,
    result: AttemptResult,
    job: Option<JobResult>,
    rng: &mut dyn RandomSource,
    now: DateTime<Utc>,
) -> Result<Change<RestartDecision>, StoreError> {
    change_attempt(tx, tenant, id, job, |pair, run| {
        pair.task.report_result(run, lease, result, rng, now)
    })
}

/// [`Store::cancel`](crate::Store::cancel): cancel intent on the current attempt, or the
/// task canceled at once when it has none.
pub(crate) fn cancel(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &TaskId,
    expected: Precondition,
    now: DateTime<Utc>,
) -> Result<Change, StoreError> {
    let mut pair = load(tx, tenant, id, Lock::Update)?;
    match pair.attempt.take() {
        Some(mut run) => {
            let applied = pair
                .task
                .cancel_attempt(expected, &mut run, now)
                .map_err(|error| refused(tenant, id, error))?;
            commit(tx, tenant, pair, run, applied, None)
        }
        None => {
            pair.task
                .cancel(expected, now)
                .map_err(|error| refused(tenant, id, error))?;
            pair.save(tx, tenant, AttemptWrite::None)?;
            flows::job_ended(tx, tenant, &pair.task, None)?;
            Ok(Change {
                task: pair.task,
                attempt: None,
                applied: Applied::Changed(()),
            })
        }
    }
}

/// Ends attempt `number` of the task if its lease expired (`expire_attempt`); `None` when
/// it is no longer the current active attempt (a result or another reaper came first).
pub(crate) fn expire(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &TaskId,
    number: u32,
    rng: &mut dyn RandomSource,
    now: DateTime<Utc>,
) -> Result<Option<RestartDecision>, StoreError> {
    let mut pair = match load(tx, tenant, id, Lock::Update) {
        Ok(pair) => pair,
        Err(StoreError::NotFound { .. }) => return Ok(None),
        Err(error) => return Err(error),
    };
    let Some(mut run) = pair.attempt.take().filter(|run| run.attempt() == number) else {
        return Ok(None);
    };
    let applied = pair
        .task
        .expire_attempt(&mut run, rng, now)
        .map_err(|error| refused(tenant, id, error))?;
    match applied {
        Applied::Changed(decision) => {
            pair.save(tx, tenant, AttemptWrite::Update(&run))?;
            flows::job_ended(tx, tenant, &pair.task, None)?;
            Ok(Some(decision))
        }
        Applied::Unchanged => Ok(None),
    }
}

/// Up to `?2` active attempts whose lease expired at or before `?1`, soonest first (the
/// active condition written as the partial index over them has it, `schema.rs`'s
/// active-states step).
pub(crate) const EXPIRED: Sql = Sql::new(concat!(
    "SELECT tenant, task_id, attempt FROM attempts WHERE ",
    active_attempt!(),
    " AND lease_expires_ns <= ?1 ORDER BY lease_expires_ns LIMIT ?2"
));

/// The attempts whose lease expired at or before `now`, soonest first:
/// `(tenant, task, attempt)`.
pub(crate) fn expired(
    tx: &mut dyn Tx,
    now: DateTime<Utc>,
    limit: u32,
) -> Result<Vec<(TenantId, TaskId, u32)>, StoreError> {
    let rows = tx.query(
        &EXPIRED,
        &[
            Value::Int(crate::columns::clamped_nanos(now)),
            Value::Int(i64::from(limit)),
        ],
    )?;
    rows.iter()
        .map(|row| {
            let tenant = TenantId::new(row.text(0)?).map_err(|error| corrupt_key(&error))?;
            let task = TaskId::new(row.text(1)?).map_err(|error| corrupt_key(&error))?;
            let attempt = u32::try_from(row.int(2)?).map_err(|error| corrupt_key(&error))?;
            Ok((tenant, task, attempt))
        })
        .collect()
}

fn corrupt_key(error: &dyn std::error::Error) -> StoreError {
    StoreError::Corrupt {
        what: "an expired attempt's key".to_owned(),
        reason: error.to_string(),
    }
}

/// [`Store::attempts`](crate::Store::attempts).
pub(crate) fn history(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &TaskId,
    after: Option<u32>,
    limit: u32,
) -> Result<Vec<TaskRun>, StoreError> {
    const HISTORY: Sql = Sql::new(
        "SELECT doc FROM attempts WHERE tenant = ?1 AND task_id = ?2 AND attempt > ?3 \
         ORDER BY attempt LIMIT ?4",
    );
    let limit = check_page(limit)?;
    let rows = tx.query(
        &HISTORY,
        &[
            tenant.as_str().into(),
            id.as_str().into(),
            Value::Int(i64::from(after.unwrap_or(0))),
            Value::Int(i64::from(limit)),
        ],
    )?;
    rows.iter()
        .map(|row| read_attempt(row, 0, tenant))
        .collect()
}

/// A read's page size, 1 to [`MAX_READ_PAGE`].
pub(crate) fn check_page(limit: u32) -> Result<u32, StoreError> {
    if (1..=MAX_READ_PAGE).contains(&limit) {
        Ok(limit)
    } else {
        Err(StoreError::OutOfRange {
            field: "limit",
            value: limit.to_string(),
        })
    }
}
