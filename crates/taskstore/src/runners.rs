//! Runners in the store: a runner's record (model-fleet's `Runner`: labels, kinds, capacity,
//! state, `lastSeenAt`) registered, kept alive, drained and removed, each change the model's;
//! the records listed; and a claim made as a registered runner, from its row.

use chrono::{DateTime, Utc};
use taskmodel::fleet::{LivenessTtl, Runner};
use taskmodel::ids::{RunnerId, TenantId};
use taskmodel::task::{Applied, LeaseId};

use crate::attempts::check_page;
use crate::claim;
use crate::columns::clamped_nanos;
use crate::error::StoreError;
use crate::tx::{Lock, Sql, Tx, Value};
use crate::values::{ClaimRequest, Claimed};

const SELECT: Sql = Sql::new("SELECT doc FROM runners WHERE tenant = ?1 AND id = ?2");

/// [`Store::register_runner`](crate::Store::register_runner).
pub(crate) fn register(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    runner: Runner,
    ttl: LivenessTtl,
    now: DateTime<Utc>,
) -> Result<Runner, StoreError> {
    const INSERT: Sql = Sql::new(
        "INSERT INTO runners (tenant, id, state, max_concurrent, last_seen_ns, doc) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    );
    let id = runner.id().clone();
    let previous = load(tx, tenant, &id, Lock::Update)?;
    let registered = runner
        .register(previous.as_ref(), now, ttl)
        .map_err(|error| rejected(tenant, &id, error.into()))?;
    if previous.is_some() {
        update(tx, tenant, &registered)?;
        return Ok(registered);
    }
    let mut params: Vec<Value> = vec![tenant.as_str().into(), id.as_str().into()];
    params.extend(columns(tenant, &registered)?);
    match tx.try_execute(&INSERT, &params)? {
        Some(_) => Ok(registered),
        None => Err(StoreError::Busy {
            reason: format!(
                "runner \"{id}\" of tenant \"{tenant}\" was registered by another connection meanwhile"
            ),
        }),
    }
}

/// [`Store::runner_heartbeat`](crate::Store::runner_heartbeat) and
/// [`Store::drain_runner`](crate::Store::drain_runner): reads the record, lets the model
/// change it, and writes it back when it answers `Changed`.
pub(crate) fn change(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &RunnerId,
    decide: impl FnOnce(&mut Runner) -> Result<Applied, taskmodel::fleet::FleetError>,
) -> Result<Applied, StoreError> {
    let mut runner = load(tx, tenant, id, Lock::Update)?.ok_or_else(|| not_found(tenant, id))?;
    let applied = decide(&mut runner).map_err(|error| rejected(tenant, id, error.into()))?;
    if applied.is_changed() {
        update(tx, tenant, &runner)?;
    }
    Ok(applied)
}

/// [`Store::deregister_runner`](crate::Store::deregister_runner).
pub(crate) fn deregister(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &RunnerId,
) -> Result<(), StoreError> {
    const DELETE: Sql = Sql::new("DELETE FROM runners WHERE tenant = ?1 AND id = ?2");
    match tx.execute(&DELETE, &[tenant.as_str().into(), id.as_str().into()])? {
        0 => Err(not_found(tenant, id)),
        _ => Ok(()),
    }
}

/// [`Store::runner`](crate::Store::runner).
pub(crate) fn get(tx: &mut dyn Tx, tenant: &TenantId, id: &RunnerId) -> Result<Runner, StoreError> {
    load(tx, tenant, id, Lock::None)?.ok_or_else(|| not_found(tenant, id))
}

/// [`Store::runners`](crate::Store::runners).
pub(crate) fn list(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    after: Option<&RunnerId>,
    limit: u32,
) -> Result<Vec<Runner>, StoreError> {
    const LIST: Sql =
        Sql::new("SELECT doc FROM runners WHERE tenant = ?1 AND id > ?2 ORDER BY id LIMIT ?3");
    let limit = check_page(limit)?;
    let rows = tx.query(
        &LIST,
        &[
            tenant.as_str().into(),
            after.map_or("", RunnerId::as_str).into(),
            Value::Int(i64::from(limit)),
        ],
    )?;
    rows.iter().map(|row| read(tenant, row.text(0)?)).collect()
}

/// [`Store::claim_as`](crate::Store::claim_as): the claim of the registered runner `id`,
/// with the labels, kinds and capacity of its row; nothing when it takes no new work at
/// `now` (draining, offline, or not seen within `ttl`).
pub(crate) fn claim_as(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &RunnerId,
    lease: LeaseId,
    lease_expires_at: DateTime<Utc>,
    ttl: LivenessTtl,
    now: DateTime<Utc>,
) -> Result<Option<Claimed>, StoreError> {
    let runner = get(tx, tenant, id)?;
    // With no attempt counted, free capacity is zero exactly when the runner takes nothing
    // new; its active attempts are counted by the claim itself.
    if runner.free_capacity(0, now, ttl) == 0 {
        return Ok(None);
    }
    let request = ClaimRequest::new(
        id.clone(),
        runner.labels().clone(),
        runner.kinds().clone(),
        lease,
        lease_expires_at,
    )
    .with_max_concurrent(runner.max_concurrent());
    claim::claim(tx, tenant, &request, now)
}

/// The stored record of runner `id`, if any; with `lock`, PostgreSQL holds the row.
fn load(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &RunnerId,
    lock: Lock,
) -> Result<Option<Runner>, StoreError> {
    let rows = tx.query(
        &SELECT.clone().locking(lock),
        &[tenant.as_str().into(), id.as_str().into()],
    )?;
    rows.first()
        .map(|row| read(tenant, row.text(0)?))
        .transpose()
}

/// Writes back a runner's row.
fn update(tx: &mut dyn Tx, tenant: &TenantId, runner: &Runner) -> Result<(), StoreError> {
    const UPDATE: Sql = Sql::new(
        "UPDATE runners SET state = ?3, max_concurrent = ?4, last_seen_ns = ?5, doc = ?6 \
         WHERE tenant = ?1 AND id = ?2",
    );
    let mut params: Vec<Value> = vec![tenant.as_str().into(), runner.id().as_str().into()];
    params.extend(columns(tenant, runner)?);
    tx.execute(&UPDATE, &params)?;
    Ok(())
}

/// The columns `state, max_concurrent, last_seen_ns, doc` of a runner's row.
fn columns(tenant: &TenantId, runner: &Runner) -> Result<[Value; 4], StoreError> {
    let doc = serde_json::to_string(runner).map_err(|error| StoreError::Corrupt {
        what: format!("runner \"{}\" of tenant \"{tenant}\"", runner.id()),
        reason: error.to_string(),
    })?;
    Ok([
        runner.state().as_str().into(),
        Value::Int(i64::from(runner.max_concurrent())),
        Value::Int(runner.last_seen_at().map_or(i64::MIN, clamped_nanos)),
        doc.into(),
    ])
}

/// A runner from its document column.
fn read(tenant: &TenantId, doc: &str) -> Result<Runner, StoreError> {
    serde_json::from_str(doc).map_err(|error| StoreError::Corrupt {
        what: format!("a runner of tenant \"{tenant}\""),
        reason: error.to_string(),
    })
}

/// No runner `id` in the tenant.
fn not_found(tenant: &TenantId, id: &RunnerId) -> StoreError {
    StoreError::RunnerNotFound {
        tenant: tenant.clone(),
        runner: id.clone(),
    }
}

/// The model refused the runner's change.
fn rejected(tenant: &TenantId, id: &RunnerId, error: taskmodel::Error) -> StoreError {
    StoreError::RunnerRejected {
        tenant: tenant.clone(),
        runner: id.clone(),
        error: Box::new(error),
    }
}
