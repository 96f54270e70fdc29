//! The tenant's flows in creation order, a keyset page at a time on `flows_created_idx`
//! (`(tenant, created_ns, name)`): what each flow's columns say, without its documents.

use chrono::{DateTime, Utc};
use taskmodel::flow::FlowStatus;
use taskmodel::ids::{FlowId, TenantId, Uid};

use super::corrupt;
use crate::columns::clamped_nanos;
use crate::error::StoreError;
use crate::tx::{Row, Sql, Tx, Value};

/// One flow of a listing: its columns (name, identity, rolled-up status, version, times),
/// not its spec, run or jobs, which [`Store::flow`](crate::Store::flow) reads.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FlowSummary {
    /// The flow's name.
    pub name: FlowId,
    /// Its uid.
    pub uid: Uid,
    /// Its run's status (`FlowRun::status`) as of its last advance.
    pub status: FlowStatus,
    /// Goes up by one with every advance of the run.
    pub resource_version: u64,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When its run last changed.
    pub updated_at: DateTime<Utc>,
    /// When its last job ended, once every job is final.
    pub finished_at: Option<DateTime<Utc>>,
}

impl FlowSummary {
    /// Where the next page starts: right after this flow.
    pub fn cursor(&self) -> FlowCursor {
        FlowCursor::new(self.created_at, self.name.clone())
    }
}

/// A position in a flow listing: the creation time and name of the last flow a page
/// returned ([`FlowSummary::cursor`]); the next page starts strictly after it, so a flow
/// that exists for the whole listing is returned exactly once while others come and go.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FlowCursor {
    created_at: DateTime<Utc>,
    name: FlowId,
}

impl FlowCursor {
    /// The position right after the flow `name` created at `created_at`.
    pub fn new(created_at: DateTime<Utc>, name: FlowId) -> Self {
        Self { created_at, name }
    }

    /// The creation time of the flow it follows.
    pub fn created_at(&self) -> DateTime<Utc> {
        self.created_at
    }

    /// The name of the flow it follows.
    pub fn name(&self) -> &FlowId {
        &self.name
    }
}

/// [`Store::flows`](crate::Store::flows): `ORDER BY` the index and a row-value `WHERE`
/// after the cursor, never an offset; `limit` is checked by the caller (1 to
/// [`MAX_READ_PAGE`](crate::MAX_READ_PAGE)).
pub(crate) fn list(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    after: Option<&FlowCursor>,
    limit: u32,
) -> Result<Vec<FlowSummary>, StoreError> {
    const PAGE: Sql = Sql::new(
        "SELECT name, uid, status, resource_version, created_ns, updated_ns, finished_ns \
         FROM flows WHERE tenant = ?1 AND (created_ns, name) > (?2, ?3) \
         ORDER BY created_ns, name LIMIT ?4",
    );
    // No flow is before (i64::MIN, ""): a name is never empty.
    let (created, name) = after.map_or((i64::MIN, ""), |cursor| {
        (clamped_nanos(cursor.created_at), cursor.name.as_str())
    });
    let rows = tx.query(
        &PAGE,
        &[
            tenant.as_str().into(),
            Value::Int(created),
            name.into(),
            Value::Int(i64::from(limit)),
        ],
    )?;
    rows.iter().map(|row| summary(tenant, row)).collect()
}

/// A listed flow from its row.
fn summary(tenant: &TenantId, row: &Row) -> Result<FlowSummary, StoreError> {
    let name = FlowId::new(row.text(0)?).map_err(|e| StoreError::Corrupt {
        what: format!("a flow name of tenant \"{tenant}\""),
        reason: e.to_string(),
    })?;
    let bad = |e: &dyn std::fmt::Display| corrupt(tenant, &name, e);
    let uid = Uid::parse(row.text(1)?).map_err(|e| bad(&e))?;
    let status: FlowStatus =
        serde_json::from_value(serde_json::Value::String(row.text(2)?.to_owned()))
            .map_err(|e| bad(&e))?;
    let resource_version = u64::try_from(row.int(3)?).map_err(|e| bad(&e))?;
    Ok(FlowSummary {
        uid,
        status,
        resource_version,
        created_at: DateTime::from_timestamp_nanos(row.int(4)?),
        updated_at: DateTime::from_timestamp_nanos(row.int(5)?),
        finished_at: row.optional_int(6)?.map(DateTime::from_timestamp_nanos),
        name,
    })
}
