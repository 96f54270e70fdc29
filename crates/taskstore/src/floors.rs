//! Queue floors (PostgreSQL): where a tenant's queue begins, so a claim seeks there
//! instead of stepping over the index entries of every task claimed since the last vacuum.
//!
//! A claim moves its task out of the partial index over pending tasks, but on PostgreSQL
//! the entry stays in the index, dead, until `VACUUM` removes it, and the queue is read
//! from its head: each claim's head read passed every entry claimed since the last vacuum
//! (105 to 135 index pages a read 10,000 to 15,000 claims in; `_bt_first` was 23% of the
//! server's CPU in the 16-worker claim bench, 2026-11-28). Autovacuum comes about once a
//! minute, so at a few thousand claims a second the walk grows to thousands of pages. SQLite
//! removes an index entry when its row leaves the index, and keeps no floor.
//!
//! **The invariant.** A tenant's row in `queue_floors`, `(priority, queued_ns, id)`, is a
//! position in queue order (`priority DESC, queued_ns, id`) that no pending task of the
//! tenant is before; without a row, nothing is known and a claim reads from the start. A
//! claim's head read seeks to the floor ([`from_floor`]).
//!
//! **Keeping it.** Every write that makes a task pending, or moves a pending task's
//! position, takes the tenant's floor lock shared and then lowers the floor to the task's
//! position if the task is before it ([`lower`]). Every so many claims, a claiming
//! connection tries the lock exclusively, without waiting, and if it gets it moves the
//! floor up to the first pending task ([`advance`]). The exclusive lock is granted only
//! while no transaction that made a task pending holds the shared one: each such
//! transaction has committed, so the advance's next statement, with its new snapshot, sees
//! its task; and one that takes the shared lock later waits for the advance to commit, then
//! compares its task with the floor the advance left. Locks are transaction advisory locks
//! (`pg_advisory_xact_lock_shared`), which write nothing to the table.

use std::sync::LazyLock;

use taskmodel::ids::TenantId;

use crate::error::StoreError;
use crate::tx::{Sql, Tx, Value};

/// How many of its claims of one tenant a PostgreSQL connection makes between two tries to
/// move that tenant's floor up, unless set otherwise
/// ([`PostgresStore::set_queue_floor_interval`](crate::PostgresStore::set_queue_floor_interval)).
/// A try costs about one small transaction; between two, a head read passes at most the
/// entries of the claims made since the last one.
pub const DEFAULT_QUEUE_FLOOR_INTERVAL: u32 = 64;

/// A tenant's floor lock: the two-key advisory lock whose first key is "qflr" as a 32-bit
/// integer (1902537842) and whose second hashes the schema and the tenant (`?1`), so stores
/// in different schemas of one database keep apart. Two tenants whose texts hash alike
/// share a lock, which only makes an advance skip more often.
macro_rules! floor_lock {
    () => {
        "(1902537842, hashtext(COALESCE(current_schema(), '') || '/' || ?1))"
    };
}

/// The queue order of the index over pending tasks.
pub(crate) const QUEUE_ORDER: &str = "ORDER BY t.priority DESC, t.queued_ns, t.id";

/// The first row of `SELECT {columns} FROM tasks t WHERE t.tenant = ?1 AND t.phase =
/// 'pending' {filter}` in queue order, from the tenant's floor on, with `lock` in each part
/// (PostgreSQL's row lock clause, or nothing): the rest of the floor's priority from its
/// position, then every lower priority, each a seek of the queue index. The subquery reads
/// the same as one read from the start would when the invariant holds; without a floor
/// row, the first part is empty and the second reads every priority (the store's
/// priorities are 32-bit, all below the default bound).
///
/// The floor is joined, not read by scalar subqueries: a statement's subqueries are all
/// set up again each time PostgreSQL rechecks a row another transaction changed after the
/// statement's snapshot (as concurrent claims do at the head of the queue), and five more
/// of them cost the 16-worker claim bench more than the floor saved.
pub(crate) fn from_floor(columns: &str, filter: &str, lock: &str) -> String {
    let part = |bound: &str| {
        format!(
            "CROSS JOIN LATERAL (SELECT {columns} FROM tasks t WHERE t.tenant = ?1 \
             AND t.phase = 'pending' {filter} AND {bound} {QUEUE_ORDER} LIMIT 1 {lock}) s"
        )
    };
    let same = part("t.priority = f.priority AND (t.queued_ns, t.id) >= (f.queued_ns, f.id)");
    let lower = part("t.priority < f.priority");
    format!(
        "SELECT s.* FROM queue_floors f {same} WHERE f.tenant = ?1 UNION ALL \
         SELECT s.* FROM (SELECT COALESCE(max(g.priority), 9223372036854775807) AS priority \
         FROM queue_floors g WHERE g.tenant = ?1) f {lower} LIMIT 1"
    )
}

/// Takes the tenant's floor lock shared (`?1` = tenant).
const LOCK_SHARED: Sql = Sql::new(concat!(
    "SELECT pg_advisory_xact_lock_shared",
    floor_lock!(),
    "::text"
));

/// Lowers the tenant's floor to `(?2, ?3, ?4)` if that position is before it.
const LOWER: Sql = Sql::new(
    "UPDATE queue_floors SET priority = ?2, queued_ns = ?3, id = ?4 WHERE tenant = ?1 \
     AND (priority < ?2 OR (priority = ?2 AND (queued_ns, id) > (?3, ?4))) RETURNING tenant",
);

/// A pending task's place in queue order: its priority, its `queued_ns` and its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) priority: i64,
    pub(crate) queued_ns: i64,
    pub(crate) id: String,
}

impl Position {
    /// Whether `self` comes before `other` in queue order (`priority DESC, queued_ns, id`).
    pub(crate) fn before(&self, other: &Self) -> bool {
        (other.priority, self.queued_ns, self.id.as_str())
            < (self.priority, other.queued_ns, other.id.as_str())
    }
}

/// After a write made a task of `tenant` pending at `position` (or moved it there), on an
/// engine that keeps floors: the tenant's floor lock, shared, for the rest of the
/// transaction, and the floor lowered to `position` if the task is before it. One round
/// trip on PostgreSQL; nothing on SQLite.
pub(crate) fn lower(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    position: Position,
) -> Result<(), StoreError> {
    if !tx.keeps_queue_floors() {
        return Ok(());
    }
    let Position {
        priority,
        queued_ns,
        id,
    } = position;
    tx.query_pair(
        (&LOCK_SHARED, &[tenant.as_str().into()]),
        (
            &LOWER,
            &[
                tenant.as_str().into(),
                Value::Int(priority),
                Value::Int(queued_ns),
                Value::Text(id),
            ],
        ),
    )?;
    Ok(())
}

/// Tries the tenant's floor lock exclusively, without waiting (`?1` = tenant): `true` when
/// no transaction that made one of its tasks pending is open.
const TRY_LOCK: Sql = Sql::new(concat!(
    "SELECT pg_try_advisory_xact_lock",
    floor_lock!(),
    "::int"
));

/// Moves a tenant's floor up to its first pending task, due or not, of any kind, locked by
/// another transaction or not (`?1` = tenant); with no pending task from the floor on, the
/// floor stays.
static ADVANCE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "INSERT INTO queue_floors (tenant, priority, queued_ns, id) \
         SELECT ?1, h.priority, h.queued_ns, h.id FROM ({}) h \
         ON CONFLICT (tenant) DO UPDATE SET priority = EXCLUDED.priority, \
         queued_ns = EXCLUDED.queued_ns, id = EXCLUDED.id",
        from_floor("t.priority, t.queued_ns, t.id", "", "")
    )
});

/// Moves `tenant`'s floor up to its first pending task, in a transaction of its own, if the
/// floor lock is free; when it is not (a transaction that made a task pending is open), the
/// floor stays.
pub(crate) fn advance(tx: &mut dyn Tx, tenant: &TenantId) -> Result<(), StoreError> {
    let rows = tx.query(&TRY_LOCK, &[tenant.as_str().into()])?;
    // The lock's boolean answer, as 1 or 0.
    if rows.first().map(|row| row.int(0)).transpose()? != Some(1) {
        return Ok(());
    }
    // A statement of its own: its snapshot is taken after the lock was granted.
    tx.execute(&Sql::new(ADVANCE.as_str()), &[tenant.as_str().into()])?;
    Ok(())
}

#[cfg(test)]
mod tests;
