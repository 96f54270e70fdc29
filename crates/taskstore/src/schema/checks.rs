//! The check-lists step: the `CHECK`s of `tasks.phase` and `attempts.state` written as
//! comparisons joined by `OR` instead of `IN (...)`. SQLite evaluates a constant `IN` list of
//! more than two values through a temporary B-tree it builds at every statement that tests
//! it, and every claim tests both (its update sets `phase`, its attempt is a new row).
//!
//! SQLite cannot change a table's `CHECK`, so it builds each table again: a copy with the
//! new text, the rows copied, the old table dropped, the copy renamed, its indexes created
//! again as they were. The store runs the migrations with foreign keys off (a dropped table
//! must not cascade to the rows that reference it) and checks them before committing
//! (`sqlite.rs`). PostgreSQL changes the two constraints in place.

use super::Migration;

/// The check-lists step. Its number is the one line to change when migrations are
/// renumbered.
pub(super) const CHECK_LISTS: Migration = Migration {
    version: 9,
    sqlite: CHECK_LISTS_SQLITE,
    postgres: CHECK_LISTS_POSTGRES,
    fill: None,
};

/// The step on SQLite: `tasks` and `attempts` built again, every column, constraint and
/// index as before but the two lists.
const CHECK_LISTS_SQLITE: &str = "
CREATE TABLE tasks_rebuilt (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    slot TEXT NOT NULL,
    phase TEXT NOT NULL CHECK (phase = 'pending' OR phase = 'running' OR phase = 'succeeded' OR phase = 'failed' OR phase = 'timeout' OR phase = 'canceled' OR phase = 'exhausted'),
    kind TEXT NOT NULL,
    priority INTEGER NOT NULL,
    queued_ns INTEGER,
    finished_ns INTEGER,
    expires_ns INTEGER,
    created_ns INTEGER NOT NULL,
    updated_ns INTEGER NOT NULL,
    resource_version INTEGER NOT NULL CHECK (resource_version >= 1),
    generation INTEGER NOT NULL CHECK (generation BETWEEN 1 AND resource_version),
    attempt INTEGER NOT NULL CHECK (attempt >= 0),
    doc TEXT NOT NULL,
    kind_name TEXT NOT NULL DEFAULT '',
    runner_selector TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tenant, id),
    CHECK ((phase = 'pending') = (queued_ns IS NOT NULL)),
    CHECK ((phase IN ('pending', 'running')) = (finished_ns IS NULL)),
    CHECK (expires_ns IS NULL OR finished_ns IS NOT NULL)
);
INSERT INTO tasks_rebuilt (tenant, id, uid, slot, phase, kind, priority, queued_ns, finished_ns, expires_ns, created_ns, updated_ns, resource_version, generation, attempt, doc, kind_name, runner_selector)
    SELECT tenant, id, uid, slot, phase, kind, priority, queued_ns, finished_ns, expires_ns, created_ns, updated_ns, resource_version, generation, attempt, doc, kind_name, runner_selector FROM tasks;
DROP TABLE tasks;
ALTER TABLE tasks_rebuilt RENAME TO tasks;
CREATE INDEX tasks_queue_idx ON tasks (tenant, priority DESC, queued_ns, id, kind_name) WHERE phase = 'pending';
CREATE UNIQUE INDEX tasks_running_slot_uq ON tasks (tenant, slot) WHERE phase = 'running';
CREATE INDEX tasks_created_idx ON tasks (tenant, created_ns, id);
CREATE INDEX tasks_slot_created_idx ON tasks (tenant, slot, created_ns, id);
CREATE INDEX tasks_phase_created_idx ON tasks (tenant, phase, created_ns, id);
CREATE UNIQUE INDEX tasks_uid_uq ON tasks (tenant, uid);
CREATE INDEX tasks_expires_idx ON tasks (expires_ns) WHERE expires_ns IS NOT NULL;
CREATE TABLE attempts_rebuilt (
    tenant TEXT NOT NULL,
    task_id TEXT NOT NULL,
    attempt INTEGER NOT NULL CHECK (attempt >= 1),
    runner_slot INTEGER NOT NULL CHECK (runner_slot >= 0),
    runner TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state = 'leased' OR state = 'running' OR state = 'cancelling' OR state = 'succeeded' OR state = 'failed' OR state = 'timeout' OR state = 'canceled' OR state = 'expired'),
    lease_expires_ns INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, task_id, attempt),
    FOREIGN KEY (tenant, task_id) REFERENCES tasks (tenant, id) ON DELETE CASCADE
);
INSERT INTO attempts_rebuilt (tenant, task_id, attempt, runner_slot, runner, state, lease_expires_ns, doc)
    SELECT tenant, task_id, attempt, runner_slot, runner, state, lease_expires_ns, doc FROM attempts;
DROP TABLE attempts;
ALTER TABLE attempts_rebuilt RENAME TO attempts;
CREATE UNIQUE INDEX attempts_active_task_uq ON attempts (tenant, task_id) WHERE (state = 'leased' OR state = 'running' OR state = 'cancelling');
CREATE UNIQUE INDEX attempts_active_runner_uq ON attempts (tenant, runner, runner_slot) WHERE (state = 'leased' OR state = 'running' OR state = 'cancelling');
CREATE INDEX attempts_expiry_idx ON attempts (lease_expires_ns) WHERE (state = 'leased' OR state = 'running' OR state = 'cancelling');
";

/// The step on PostgreSQL: the two constraints replaced in place.
const CHECK_LISTS_POSTGRES: &str = "
ALTER TABLE tasks DROP CONSTRAINT tasks_phase_check, ADD CONSTRAINT tasks_phase_check CHECK (phase = 'pending' OR phase = 'running' OR phase = 'succeeded' OR phase = 'failed' OR phase = 'timeout' OR phase = 'canceled' OR phase = 'exhausted');
ALTER TABLE attempts DROP CONSTRAINT attempts_state_check, ADD CONSTRAINT attempts_state_check CHECK (state = 'leased' OR state = 'running' OR state = 'cancelling' OR state = 'succeeded' OR state = 'failed' OR state = 'timeout' OR state = 'canceled' OR state = 'expired');
";
