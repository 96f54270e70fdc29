//! Schedule actions: stored pending, fired by a tick loop (Running committed before this
//! returns, so the caller dispatches only after), ended, and recovered after a restart;
//! each change is the model's (`Action::start`, `complete`, `fail`, `recover`,
//! `next_recurring`), committed with a compare-and-swap on the state it was read in.

use chrono::{DateTime, TimeDelta, Utc};
use taskmodel::ids::{ActionId, ScheduleId, TenantId, Uid};
use taskmodel::schedule::{Action, ActionState, ScheduleError};

use crate::attempts::check_page;
use crate::columns::{clamped_nanos, exact_nanos};
use crate::error::StoreError;
use crate::tx::{Lock, Row, Sql, Tx, Value};
use crate::values::{ActionOutcome, FinishedAction};

const SELECT: Sql = Sql::new("SELECT doc FROM actions WHERE tenant = ?1 AND id = ?2");

/// [`Store::add_action`](crate::Store::add_action).
pub(crate) fn add(tx: &mut dyn Tx, tenant: &TenantId, action: &Action) -> Result<(), StoreError> {
    const INSERT: Sql = Sql::new(
        "INSERT INTO actions (tenant, id, state, due_ms, updated_ns, doc) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    );
    let mut params = vec![tenant.as_str().into(), action.id().to_string().into()];
    params.extend(columns(tenant, action)?);
    match tx.try_execute(&INSERT, &params)? {
        Some(_) => Ok(()),
        None => Err(StoreError::ActionExists {
            tenant: tenant.clone(),
            action: action.id(),
        }),
    }
}

/// Stores a schedule's new action, made for its tick `tick` (before jitter): the index of
/// schedules and ticks refuses a tick stored already, and that is
/// [`StoreError::ScheduleConflict`] (another tick loop fired it first).
pub(crate) fn add_tick(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    action: &Action,
    schedule: &ScheduleId,
    uid: Uid,
    tick: DateTime<Utc>,
) -> Result<(), StoreError> {
    const INSERT: Sql = Sql::new(
        "INSERT INTO actions (tenant, id, state, due_ms, updated_ns, doc, schedule_uid, tick_ns) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    );
    let mut params = vec![tenant.as_str().into(), action.id().to_string().into()];
    params.extend(columns(tenant, action)?);
    params.push(uid.to_string().into());
    params.push(Value::Int(exact_nanos("nextTickAt", tick)?));
    match tx.try_execute(&INSERT, &params)? {
        Some(_) => Ok(()),
        None => Err(StoreError::ScheduleConflict {
            tenant: tenant.clone(),
            schedule: schedule.clone(),
            reason: format!(
                "its tick at {} or action {} is stored already",
                tick.to_rfc3339(),
                action.id()
            ),
        }),
    }
}

/// [`Store::action`](crate::Store::action).
pub(crate) fn get(tx: &mut dyn Tx, tenant: &TenantId, id: ActionId) -> Result<Action, StoreError> {
    load(tx, tenant, id, Lock::None)
}

/// [`Store::fire_due`](crate::Store::fire_due).
pub(crate) fn fire_due(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    now: DateTime<Utc>,
    limit: u32,
) -> Result<Vec<Action>, StoreError> {
    const DUE: Sql = Sql::locked(
        "SELECT doc FROM actions WHERE tenant = ?1 AND state = 'pending' AND due_ms <= ?2 \
         ORDER BY due_ms, id LIMIT ?3",
        Lock::SkipLocked,
    );
    let limit = check_page(limit)?;
    let rows = tx.query(
        &DUE,
        &[
            tenant.as_str().into(),
            Value::Int(now.timestamp_millis()),
            Value::Int(i64::from(limit)),
        ],
    )?;
    let mut fired = Vec::with_capacity(rows.len());
    for row in &rows {
        let mut action = read(row, 0, tenant)?;
        action
            .start(now)
            .map_err(|error| rejected(tenant, action.id(), error))?;
        save(tx, tenant, &action, ActionState::Pending)?;
        fired.push(action);
    }
    Ok(fired)
}

/// [`Store::finish_action`](crate::Store::finish_action).
pub(crate) fn finish(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: ActionId,
    outcome: ActionOutcome,
    next_id: ActionId,
    now: DateTime<Utc>,
) -> Result<FinishedAction, StoreError> {
    let mut action = load(tx, tenant, id, Lock::Update)?;
    let ended = match outcome {
        ActionOutcome::Completed(result) => action.complete(result, now),
        ActionOutcome::Failed(reason) => action.fail(reason, now),
    };
    ended.map_err(|error| rejected(tenant, id, error))?;
    save(tx, tenant, &action, ActionState::Running)?;
    let next = match action.state() {
        ActionState::Completed => action
            .next_recurring(next_id, now)
            .map_err(|error| rejected(tenant, id, error))?,
        _ => None,
    };
    if let Some(next) = &next {
        add(tx, tenant, next)?;
    }
    Ok(FinishedAction { action, next })
}

/// [`Store::recover_actions`](crate::Store::recover_actions): the running actions of every
/// tenant last updated more than `max_age_ms` before `now` (on the index of running
/// actions), each changed by `Action::recover`.
pub(crate) fn recover(
    tx: &mut dyn Tx,
    now: DateTime<Utc>,
    max_age_ms: u64,
    limit: u32,
) -> Result<usize, StoreError> {
    const STALE: Sql = Sql::locked(
        "SELECT tenant, doc FROM actions WHERE state = 'running' AND updated_ns < ?1 \
         ORDER BY updated_ns, tenant, id LIMIT ?2",
        Lock::SkipLocked,
    );
    let limit = check_page(limit)?;
    let max_age = i64::try_from(max_age_ms)
        .ok()
        .and_then(TimeDelta::try_milliseconds)
        .unwrap_or(TimeDelta::MAX);
    // Stale means `now - updatedAt > max_age`, so `updatedAt < now - max_age`; nothing is
    // when that time is before chrono's range.
    let Some(before) = now.checked_sub_signed(max_age) else {
        return Ok(0);
    };
    let rows = tx.query(
        &STALE,
        &[
            Value::Int(clamped_nanos(before)),
            Value::Int(i64::from(limit)),
        ],
    )?;
    let mut recovered = 0;
    for row in &rows {
        let tenant = TenantId::new(row.text(0)?).map_err(|error| StoreError::Corrupt {
            what: "the tenant of a running action".to_owned(),
            reason: error.to_string(),
        })?;
        let mut action = read(row, 1, &tenant)?;
        if action.recover(now, max_age_ms) {
            save(tx, &tenant, &action, ActionState::Running)?;
            recovered += 1;
        }
    }
    Ok(recovered)
}

/// Reads the action; with `lock`, PostgreSQL holds its row until the transaction ends.
fn load(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: ActionId,
    lock: Lock,
) -> Result<Action, StoreError> {
    let rows = tx.query(
        &SELECT.clone().locking(lock),
        &[tenant.as_str().into(), id.to_string().into()],
    )?;
    let row = rows.first().ok_or_else(|| StoreError::ActionNotFound {
        tenant: tenant.clone(),
        action: id,
    })?;
    let action = read(row, 0, tenant)?;
    if action.id() != id {
        return Err(StoreError::Corrupt {
            what: format!("action {id} of tenant \"{tenant}\""),
            reason: format!("the document holds action {}", action.id()),
        });
    }
    Ok(action)
}

/// Writes the action back if it is still in state `read_in` (the compare-and-swap).
pub(crate) fn save(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    action: &Action,
    read_in: ActionState,
) -> Result<(), StoreError> {
    const UPDATE: Sql = Sql::new(
        "UPDATE actions SET state = ?3, due_ms = ?4, updated_ns = ?5, doc = ?6 \
         WHERE tenant = ?1 AND id = ?2 AND state = ?7",
    );
    let mut params = vec![tenant.as_str().into(), action.id().to_string().into()];
    params.extend(columns(tenant, action)?);
    params.push(read_in.as_str().into());
    match tx.execute(&UPDATE, &params)? {
        1 => Ok(()),
        _ => Err(StoreError::ActionConflict {
            tenant: tenant.clone(),
            action: action.id(),
            expected: read_in.as_str(),
        }),
    }
}

/// The columns after `tenant, id`: `state, due_ms, updated_ns, doc`.
fn columns(tenant: &TenantId, action: &Action) -> Result<[Value; 4], StoreError> {
    let doc = serde_json::to_string(action).map_err(|error| StoreError::Corrupt {
        what: format!("action {} of tenant \"{tenant}\"", action.id()),
        reason: error.to_string(),
    })?;
    Ok([
        action.state().as_str().into(),
        Value::Int(action.due_at().timestamp_millis()),
        Value::Int(clamped_nanos(action.updated_at())),
        doc.into(),
    ])
}

/// The action in column `index` of `row`.
pub(crate) fn read(row: &Row, index: usize, tenant: &TenantId) -> Result<Action, StoreError> {
    serde_json::from_str(row.text(index)?).map_err(|error| StoreError::Corrupt {
        what: format!("an action of tenant \"{tenant}\""),
        reason: error.to_string(),
    })
}

fn rejected(tenant: &TenantId, action: ActionId, error: ScheduleError) -> StoreError {
    StoreError::ActionRejected {
        tenant: tenant.clone(),
        action,
        error: Box::new(error.into()),
    }
}
