//! Schedules in the store: a schedule's row (model-schedule's `Schedule` as a document, its
//! uid, `resourceVersion`, the time its fire times are counted after, a tick kept for when
//! its run ends, and when the tick next looks at it), created, read, listed in name order,
//! changed and deleted with a compare-and-swap on `resourceVersion`; the tick is `tick.rs`.

mod tick;

use chrono::{DateTime, Utc};
use taskmodel::ids::{ScheduleId, TenantId, Uid};
use taskmodel::schedule::Schedule;
use taskmodel::task::Precondition;

pub(crate) use self::tick::tick;
use crate::attempts::check_page;
use crate::columns::{exact_nanos, int};
use crate::error::StoreError;
use crate::tx::{Lock, Row, Sql, Tx, Value};
use crate::values::StoredSchedule;

/// The columns a read of a schedule selects, in [`read`]'s order.
pub(crate) const COLUMNS: &str =
    "name, uid, resource_version, after_ns, buffered_ns, due_ms, created_ns, updated_ns, doc";

/// [`Store::create_schedule`](crate::Store::create_schedule).
pub(crate) fn create(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    schedule: &Schedule,
    uid: Uid,
    now: DateTime<Utc>,
) -> Result<StoredSchedule, StoreError> {
    const INSERT: Sql = Sql::new(
        "INSERT INTO schedules (tenant, name, uid, resource_version, paused, after_ns, \
         buffered_ns, due_ms, created_ns, updated_ns, doc) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    );
    let stored = StoredSchedule {
        schedule: schedule.clone(),
        uid,
        resource_version: 1,
        after: now,
        buffered: None,
        next_due: next_due(schedule, now, None, now),
        created_at: now,
        updated_at: now,
    };
    let mut params = vec![
        tenant.as_str().into(),
        schedule.name().as_str().into(),
        uid.to_string().into(),
        Value::Int(1),
    ];
    params.extend(columns(&stored)?);
    params.push(Value::Int(exact_nanos("createdAt", now)?));
    params.push(Value::Int(exact_nanos("updatedAt", now)?));
    params.push(document(tenant, schedule)?.into());
    match tx.try_execute(&INSERT, &params)? {
        Some(_) => Ok(stored),
        None => Err(StoreError::ScheduleExists {
            tenant: tenant.clone(),
            schedule: schedule.name().clone(),
        }),
    }
}

/// [`Store::schedule`](crate::Store::schedule).
pub(crate) fn get(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &ScheduleId,
) -> Result<StoredSchedule, StoreError> {
    load(tx, tenant, name, Lock::None)
}

/// [`Store::schedules`](crate::Store::schedules): `ORDER BY` the primary key and a `WHERE`
/// after the last name, never an offset.
pub(crate) fn list(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    after: Option<&ScheduleId>,
    limit: u32,
) -> Result<Vec<StoredSchedule>, StoreError> {
    let page = Sql::built(format!(
        "SELECT {COLUMNS} FROM schedules WHERE tenant = ?1 AND name > ?2 ORDER BY name LIMIT ?3"
    ));
    let limit = check_page(limit)?;
    let rows = tx.query(
        &page,
        &[
            tenant.as_str().into(),
            after.map_or("", ScheduleId::as_str).into(),
            Value::Int(i64::from(limit)),
        ],
    )?;
    rows.iter().map(|row| read(tenant, row)).collect()
}

/// [`Store::update_schedule`](crate::Store::update_schedule) and
/// [`Store::pause_schedule`](crate::Store::pause_schedule): the stored schedule named
/// `name`, checked against `expected`, changed by `change`, written back with its version
/// one up and when the tick next looks at it recomputed at `now`.
pub(crate) fn change(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &ScheduleId,
    expected: Precondition,
    now: DateTime<Utc>,
    change: impl FnOnce(&mut Schedule),
) -> Result<StoredSchedule, StoreError> {
    let mut stored = load(tx, tenant, name, Lock::Update)?;
    check(tenant, &stored, expected)?;
    let read_in = stored.resource_version;
    change(&mut stored.schedule);
    stored.updated_at = stored.updated_at.max(now);
    stored.next_due = next_due(&stored.schedule, stored.after, stored.buffered, now);
    save(tx, tenant, &mut stored, read_in)?;
    Ok(stored)
}

/// [`Store::delete_schedule`](crate::Store::delete_schedule): the row and its pending
/// actions (ticks not fired yet); its running actions and the tasks it started stay.
pub(crate) fn delete(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &ScheduleId,
    expected: Precondition,
) -> Result<(), StoreError> {
    const DELETE: Sql = Sql::new("DELETE FROM schedules WHERE tenant = ?1 AND name = ?2");
    const PENDING: Sql = Sql::new(
        "DELETE FROM actions WHERE tenant = ?1 AND schedule_uid = ?2 AND state = 'pending'",
    );
    let stored = load(tx, tenant, name, Lock::Update)?;
    check(tenant, &stored, expected)?;
    tx.execute(&DELETE, &[tenant.as_str().into(), name.as_str().into()])?;
    tx.execute(
        &PENDING,
        &[tenant.as_str().into(), stored.uid.to_string().into()],
    )?;
    Ok(())
}

/// When the tick next looks at `schedule`, whose fire times after `after` are to come,
/// with a tick `buffered` or not, written at `now`: its next fire time; with a tick
/// buffered, no later than just after `now` (the tick looks again whether the run ended,
/// after the schedules due before it); nothing while it is paused; to the millisecond.
pub(crate) fn next_due(
    schedule: &Schedule,
    after: DateTime<Utc>,
    buffered: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let next = schedule.fire_times(after).next();
    let recheck = buffered
        .filter(|_| !schedule.paused())
        .and_then(|_| now.checked_add_signed(chrono::TimeDelta::milliseconds(1)));
    let due = match (next, recheck) {
        (Some(next), Some(recheck)) => Some(next.min(recheck)),
        (next, recheck) => next.or(recheck),
    };
    // To the millisecond, as the column holds it, so what is returned reads back equal.
    due.and_then(|due| DateTime::from_timestamp_millis(due.timestamp_millis()))
}

/// Refuses a write the caller's `expected` version or uid does not allow.
fn check(
    tenant: &TenantId,
    stored: &StoredSchedule,
    expected: Precondition,
) -> Result<(), StoreError> {
    let conflict = |reason: String| StoreError::ScheduleConflict {
        tenant: tenant.clone(),
        schedule: stored.schedule.name().clone(),
        reason,
    };
    if let Some(version) = expected.resource_version
        && version != stored.resource_version
    {
        return Err(conflict(format!(
            "expected resourceVersion {version}, found {}",
            stored.resource_version
        )));
    }
    if let Some(uid) = expected.uid
        && uid != stored.uid
    {
        return Err(conflict(format!(
            "expected uid {uid}, found {}",
            stored.uid
        )));
    }
    Ok(())
}

/// Reads the schedule; with `lock`, PostgreSQL holds its row until the transaction ends.
fn load(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    name: &ScheduleId,
    lock: Lock,
) -> Result<StoredSchedule, StoreError> {
    let select = Sql::built(format!(
        "SELECT {COLUMNS} FROM schedules WHERE tenant = ?1 AND name = ?2"
    ))
    .locking(lock);
    let rows = tx.query(&select, &[tenant.as_str().into(), name.as_str().into()])?;
    let row = rows.first().ok_or_else(|| StoreError::ScheduleNotFound {
        tenant: tenant.clone(),
        schedule: name.clone(),
    })?;
    read(tenant, row)
}

/// Writes the stored schedule back with its version one up, if its row is still at
/// version `read_in` (the compare-and-swap).
pub(crate) fn save(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    stored: &mut StoredSchedule,
    read_in: u64,
) -> Result<(), StoreError> {
    const UPDATE: Sql = Sql::new(
        "UPDATE schedules SET resource_version = ?3, paused = ?4, after_ns = ?5, \
         buffered_ns = ?6, due_ms = ?7, updated_ns = ?8, doc = ?9 \
         WHERE tenant = ?1 AND name = ?2 AND resource_version = ?10",
    );
    let name = stored.schedule.name().clone();
    stored.resource_version = read_in.saturating_add(1);
    let mut params = vec![tenant.as_str().into(), name.as_str().into()];
    params.push(Value::Int(int("resourceVersion", stored.resource_version)?));
    params.extend(columns(stored)?);
    params.push(Value::Int(exact_nanos("updatedAt", stored.updated_at)?));
    params.push(document(tenant, &stored.schedule)?.into());
    params.push(Value::Int(int("resourceVersion", read_in)?));
    match tx.execute(&UPDATE, &params)? {
        1 => Ok(()),
        _ => Err(StoreError::ScheduleConflict {
            tenant: tenant.clone(),
            schedule: name,
            reason: format!("its resourceVersion moved from {read_in}"),
        }),
    }
}

/// The columns `paused, after_ns, buffered_ns, due_ms` of a schedule's row.
fn columns(stored: &StoredSchedule) -> Result<[Value; 4], StoreError> {
    Ok([
        Value::Int(i64::from(stored.schedule.paused())),
        Value::Int(exact_nanos("after", stored.after)?),
        stored
            .buffered
            .map(|tick| exact_nanos("buffered", tick))
            .transpose()?
            .into(),
        stored.next_due.map(|due| due.timestamp_millis()).into(),
    ])
}

/// The schedule's document.
fn document(tenant: &TenantId, schedule: &Schedule) -> Result<String, StoreError> {
    serde_json::to_string(schedule).map_err(|error| StoreError::Corrupt {
        what: format!("schedule \"{}\" of tenant \"{tenant}\"", schedule.name()),
        reason: error.to_string(),
    })
}

/// A stored schedule from a row of [`COLUMNS`].
pub(crate) fn read(tenant: &TenantId, row: &Row) -> Result<StoredSchedule, StoreError> {
    let name = row.text(0)?;
    let corrupt = |reason: String| StoreError::Corrupt {
        what: format!("schedule \"{name}\" of tenant \"{tenant}\""),
        reason,
    };
    let time = |nanos: i64| DateTime::from_timestamp_nanos(nanos);
    let schedule: Schedule =
        serde_json::from_str(row.text(8)?).map_err(|error| corrupt(error.to_string()))?;
    if schedule.name().as_str() != name {
        return Err(corrupt(format!(
            "the document holds schedule \"{}\"",
            schedule.name()
        )));
    }
    let next_due = match row.optional_int(5)? {
        Some(ms) => Some(
            DateTime::from_timestamp_millis(ms)
                .ok_or_else(|| corrupt(format!("due time {ms} is out of range")))?,
        ),
        None => None,
    };
    Ok(StoredSchedule {
        uid: Uid::parse(row.text(1)?).map_err(|error| corrupt(error.to_string()))?,
        resource_version: u64::try_from(row.int(2)?).map_err(|error| corrupt(error.to_string()))?,
        after: time(row.int(3)?),
        buffered: row.optional_int(4)?.map(time),
        next_due,
        created_at: time(row.int(6)?),
        updated_at: time(row.int(7)?),
        schedule,
    })
}

#[cfg(test)]
mod tests;
