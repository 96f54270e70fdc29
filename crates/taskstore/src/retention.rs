//! What garbage collection reads: the tasks an owner owns (by its uid, on the owner index)
//! and the finished tasks whose time to live ran out (on the expiry index), so a collector
//! builds its view without reading every task.

use chrono::{DateTime, Utc};
use taskmodel::ids::{TaskId, TenantId, Uid};
use taskmodel::task::Task;

use crate::attempts::check_page;
use crate::columns::{clamped_nanos, read_task};
use crate::error::StoreError;
use crate::tx::{Sql, Tx, Value};

/// [`Store::owned`](crate::Store::owned).
pub(crate) fn owned(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    owner: Uid,
    after: Option<&TaskId>,
    limit: u32,
) -> Result<Vec<Task>, StoreError> {
    const OWNED: Sql = Sql::new(
        "SELECT t.doc FROM task_owners o JOIN tasks t ON t.tenant = o.tenant AND t.id = o.task_id \
         WHERE o.tenant = ?1 AND o.owner_uid = ?2 AND o.task_id > ?3 ORDER BY o.task_id LIMIT ?4",
    );
    let limit = check_page(limit)?;
    let rows = tx.query(
        &OWNED,
        &[
            tenant.as_str().into(),
            owner.to_string().into(),
            after.map_or("", TaskId::as_str).into(),
            Value::Int(i64::from(limit)),
        ],
    )?;
    rows.iter()
        .map(|row| read_task(row, 0, tenant, None))
        .collect()
}

/// [`Store::ttl_expired`](crate::Store::ttl_expired).
pub(crate) fn ttl_expired(
    tx: &mut dyn Tx,
    now: DateTime<Utc>,
    limit: u32,
) -> Result<Vec<Task>, StoreError> {
    const EXPIRED: Sql = Sql::new(
        "SELECT tenant, doc FROM tasks WHERE expires_ns IS NOT NULL AND expires_ns <= ?1 \
         ORDER BY expires_ns, tenant, id LIMIT ?2",
    );
    let limit = check_page(limit)?;
    let rows = tx.query(
        &EXPIRED,
        &[Value::Int(clamped_nanos(now)), Value::Int(i64::from(limit))],
    )?;
    rows.iter()
        .map(|row| {
            let tenant = TenantId::new(row.text(0)?).map_err(|error| StoreError::Corrupt {
                what: "the tenant of a finished task".to_owned(),
                reason: error.to_string(),
            })?;
            read_task(row, 1, &tenant, None)
        })
        .collect()
}
