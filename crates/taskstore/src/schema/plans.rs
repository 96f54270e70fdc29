//! The task-index-apart step: the unique index of one active attempt per task gains
//! `attempt >= 1` in its condition, so that no statement over a runner's active attempts
//! can read it.
//!
//! Its only work is uniqueness, and every attempt has `attempt >= 1` (the table's `CHECK`),
//! so the index still holds one active attempt per task. Before, its condition was the
//! active one alone, and with `tenant` first it was also a way to read a runner's active
//! attempts (`claim.rs`'s places: `tenant` from the index, `runner` tested on each row).
//! While `attempts` has no statistics (a new database; PostgreSQL gathers them about a
//! minute after the table fills) PostgreSQL costs that path within a hundredth of the
//! runner index's, and a connection whose cached plan took it read every active attempt of
//! the tenant at each claim (1,500 to 1,900 rows, 5 ms, at the 16-worker claim bench). A
//! partial index serves a statement only when the statement's condition implies the
//! index's, and the planner does not read `CHECK`s to prove it: the places' statement does
//! not say `attempt >= 1`, so this index is no longer a way to it.

use super::Migration;

/// The task-index-apart step. Its number is the one line to change when migrations are
/// renumbered.
pub(super) const TASK_INDEX_APART: Migration = Migration {
    version: 10,
    sqlite: TASK_INDEX_APART_SQL,
    postgres: TASK_INDEX_APART_SQL,
    fill: None,
};

/// The step's statements, the same on both engines (the index keeps its name, columns and
/// uniqueness).
const TASK_INDEX_APART_SQL: &str = "
DROP INDEX attempts_active_task_uq;
CREATE UNIQUE INDEX attempts_active_task_uq ON attempts (tenant, task_id) WHERE (state = 'leased' OR state = 'running' OR state = 'cancelling') AND attempt >= 1;
";
