//! The schema and its versioned migrations, one text per engine; a database records its
//! version, and a build refuses one newer than it knows.
//!
//! The tables: `tasks` (the task as a JSON document plus the columns its indexes use),
//! `task_owners` (a task's owner references, found by owner uid), `attempts` (one row per
//! attempt, the current one active while the task runs),
//! `log_lines` (keyed by `(attempt, sequence)`), `runners` (the fleet's records), and
//! `actions` (schedule actions, version 2), `flows` (a flow's spec and run as JSON
//! documents, with its status, version and times as columns) and `flow_jobs` (each job's
//! state and the task made for it, version 3), `schedules` (a schedule's document with its
//! uid, version and where its ticks are, version 7).
//! The claim-columns step gives `tasks` what a claim decides "the runner fits" by, so a
//! claim reads no document to pass a task over: `kind_name` (the kind routing matches, empty for an
//! embedded task) and `runner_selector` (the selector's canonical text, empty for one that
//! matches every runner), filled from each task's document when an older database opens.
//! The indexes that keep the rules of `docs/attempts.md` even against a buggy writer:
//!
//! - one active attempt per task, and one active attempt per runner place
//!   (`(runner, runner_slot)`, places `0..maxConcurrent`): partial unique indexes (their
//!   condition, and the lease expiry index's, written with `OR` since the active-states
//!   step);
//! - one running task per slot: a partial unique index;
//! - queue order over pending tasks `(tenant, priority DESC, queued_ns, id)`, with each
//!   task's `kind_name` in the index so a claim passes over other kinds on the index alone;
//! - lease expiry over active attempts;
//! - each listing order, `(tenant, created_ns, id)` alone and after a slot or a phase;
//! - a task's uid, unique in its tenant; a finished task's expiry (`finishedAt` plus
//!   `ttlAfterFinishedMs`) for garbage collection; the tasks an owner owns, by its uid,
//!   with at most one controller per task;
//! - due actions `(tenant, due_ms, id)` over pending ones, and running ones by last update
//!   (startup recovery);
//! - a flow's uid, unique in its tenant; the flows in creation order; a finished flow's
//!   expiry; a job's task, unique in its tenant (the flow a task's end advances);
//! - finished actions by last update `(tenant, updated_ns, id)`, the order garbage
//!   collection reads them in (the finished-actions step);
//! - `schedules` (the schedules step): a schedule's uid, unique in its tenant; due
//!   schedules `(due_ms, tenant, name)`, the order the tick reads them in (a listing walks
//!   the primary key, `(tenant, name)`); one action per schedule and tick, unique; a
//!   schedule's unfinished actions.
//!
//! The check-lists step (`schema/checks.rs`) writes the `CHECK`s of `tasks.phase` and
//! `attempts.state` with `OR`, as the active-states step did the partial indexes. The
//! task-index-apart step (`schema/plans.rs`) narrows the index of one active attempt per
//! task; the unchecked-rows step (`schema/rules.rs`) drops the `CHECK`s of `tasks` and
//! `attempts` on PostgreSQL, where they are built again at every write.

use taskmodel::task::Task;

use crate::columns::kind_name;
use crate::error::StoreError;
use crate::tx::{Sql, Tx, Value};

/// The newest schema version this build knows: the last migration's.
pub const SCHEMA_VERSION: i64 = match MIGRATIONS.last() {
    Some(migration) => migration.version,
    None => 0,
};

/// One migration: the version it brings the database to, its statements per engine, and
/// what it fills in Rust after them (what needs the model to compute), in the same
/// transaction.
pub(crate) struct Migration {
    pub(crate) version: i64,
    pub(crate) sqlite: &'static str,
    pub(crate) postgres: &'static str,
    pub(crate) fill: Option<Fill>,
}

/// What a migration computes in Rust, over the migration's transaction.
pub(crate) type Fill = fn(&mut dyn Tx) -> Result<(), StoreError>;

/// Every migration, in order; the last one's version is [`SCHEMA_VERSION`].
pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        sqlite: V1_SQLITE,
        postgres: V1_POSTGRES,
        fill: None,
    },
    Migration {
        version: 2,
        sqlite: V2_SQLITE,
        postgres: V2_POSTGRES,
        fill: None,
    },
    Migration {
        version: 3,
        sqlite: V3_SQLITE,
        postgres: V3_POSTGRES,
        fill: None,
    },
    FINISHED_ACTIONS,
    CLAIM_COLUMNS,
    FLOW_JOB_ROWS,
    SCHEDULES,
    ACTIVE_STATES,
    checks::CHECK_LISTS,
    plans::TASK_INDEX_APART,
    rules::UNCHECKED_ROWS,
    floors::QUEUE_FLOORS,
];

/// The finished-actions step: an index over finished actions by last update, the order
/// garbage collection reads them in (`gc/actions.rs`). Its number is the one line to change
/// when migrations are renumbered.
const FINISHED_ACTIONS: Migration = Migration {
    version: 4,
    sqlite: FINISHED_ACTIONS_SQL,
    postgres: FINISHED_ACTIONS_SQL,
    fill: None,
};

/// The claim-columns step: what a claim decides "the runner fits" by, beside each task's
/// document (see the module docs), filled by [`fill_claim_columns`]. Its number is the one
/// line to change when migrations are renumbered.
const CLAIM_COLUMNS: Migration = Migration {
    version: 5,
    sqlite: CLAIM_COLUMNS_SQLITE,
    postgres: CLAIM_COLUMNS_POSTGRES,
    fill: Some(fill_claim_columns),
};

/// The finished-actions step's statement, the same on both engines (the columns' types and
/// collations come from the table).
const FINISHED_ACTIONS_SQL: &str = "
CREATE INDEX actions_finished_idx ON actions (tenant, updated_ns, id) WHERE state IN ('completed', 'failed');
";

/// The flow-job-rows step: each job's row holds what its end reads and changes (its rule,
/// its dependency count, its upstream tally, its dependents' positions, its skip reason,
/// its result and its task spec), and the flow row the counts its status rolls up from,
/// so a job's end reads and writes its dependents' rows, not the flow's documents. A flow
/// stored before keeps its run document in `run` (`job_rows` 0) until its next write or
/// read moves it into its rows (`flows.rs`). Its number is the one line to change when
/// migrations are renumbered.
const FLOW_JOB_ROWS: Migration = Migration {
    version: 6,
    sqlite: FLOW_JOB_ROWS_SQL,
    postgres: FLOW_JOB_ROWS_SQL,
    fill: None,
};

/// The flow-job-rows step's statements, the same on both engines (SQLite reads `BIGINT`
/// as an integer; every integer column is 64-bit, as `tx.rs` binds them).
const FLOW_JOB_ROWS_SQL: &str = "
ALTER TABLE flows ADD COLUMN job_rows BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flows ADD COLUMN failure_policy TEXT NOT NULL DEFAULT 'failFast';
ALTER TABLE flows ADD COLUMN failure_seen BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flows ADD COLUMN result_bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flows ADD COLUMN not_started BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flows ADD COLUMN running BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flows ADD COLUMN failed BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flows ADD COLUMN canceled BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flows ADD COLUMN other_final BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flows ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';
ALTER TABLE flows ADD COLUMN ttl_ms BIGINT;
ALTER TABLE flow_jobs ADD COLUMN skip_reason TEXT;
ALTER TABLE flow_jobs ADD COLUMN rule TEXT NOT NULL DEFAULT 'allSucceeded';
ALTER TABLE flow_jobs ADD COLUMN dependencies BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flow_jobs ADD COLUMN up_succeeded BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flow_jobs ADD COLUMN up_failed BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flow_jobs ADD COLUMN up_skipped BIGINT NOT NULL DEFAULT 0;
ALTER TABLE flow_jobs ADD COLUMN dependents TEXT NOT NULL DEFAULT '';
ALTER TABLE flow_jobs ADD COLUMN result TEXT;
ALTER TABLE flow_jobs ADD COLUMN spec TEXT;
CREATE UNIQUE INDEX flow_jobs_position_uq ON flow_jobs (tenant, flow, position);
";

/// The schedules step: the `schedules` table (a schedule's document, its uid and
/// `resource_version`, whether it is paused, the time its fire times are counted after, a
/// tick kept for when its run ends, and when the tick next looks at it), with the index the
/// tick reads due schedules on; and on `actions`, the schedule and tick each tick's action
/// was made for, unique, so no tick is stored twice, with an index of a schedule's
/// unfinished actions (its run is active while one is). Its number is the one line to
/// change when migrations are renumbered.
const SCHEDULES: Migration = Migration {
    version: 7,
    sqlite: SCHEDULES_SQLITE,
    postgres: SCHEDULES_POSTGRES,
    fill: None,
};

/// The schedules step on SQLite.
const SCHEDULES_SQLITE: &str = "
CREATE TABLE schedules (
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    uid TEXT NOT NULL,
    resource_version INTEGER NOT NULL CHECK (resource_version >= 1),
    paused INTEGER NOT NULL CHECK (paused IN (0, 1)),
    after_ns INTEGER NOT NULL,
    buffered_ns INTEGER,
    due_ms INTEGER,
    created_ns INTEGER NOT NULL,
    updated_ns INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, name)
);
CREATE UNIQUE INDEX schedules_uid_uq ON schedules (tenant, uid);
CREATE INDEX schedules_due_idx ON schedules (due_ms, tenant, name) WHERE due_ms IS NOT NULL;
ALTER TABLE actions ADD COLUMN schedule_uid TEXT;
ALTER TABLE actions ADD COLUMN tick_ns INTEGER;
CREATE UNIQUE INDEX actions_tick_uq ON actions (tenant, schedule_uid, tick_ns) WHERE schedule_uid IS NOT NULL;
CREATE INDEX actions_schedule_active_idx ON actions (tenant, schedule_uid) WHERE schedule_uid IS NOT NULL AND state IN ('pending', 'running');
";

/// The schedules step on PostgreSQL: the same table and columns.
const SCHEDULES_POSTGRES: &str = r#"
CREATE TABLE schedules (
    tenant TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    uid TEXT COLLATE "C" NOT NULL,
    resource_version BIGINT NOT NULL CHECK (resource_version >= 1),
    paused BIGINT NOT NULL CHECK (paused IN (0, 1)),
    after_ns BIGINT NOT NULL,
    buffered_ns BIGINT,
    due_ms BIGINT,
    created_ns BIGINT NOT NULL,
    updated_ns BIGINT NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, name)
);
CREATE UNIQUE INDEX schedules_uid_uq ON schedules (tenant, uid);
CREATE INDEX schedules_due_idx ON schedules (due_ms, tenant, name) WHERE due_ms IS NOT NULL;
ALTER TABLE actions ADD COLUMN schedule_uid TEXT COLLATE "C";
ALTER TABLE actions ADD COLUMN tick_ns BIGINT;
CREATE UNIQUE INDEX actions_tick_uq ON actions (tenant, schedule_uid, tick_ns) WHERE schedule_uid IS NOT NULL;
CREATE INDEX actions_schedule_active_idx ON actions (tenant, schedule_uid) WHERE schedule_uid IS NOT NULL AND state IN ('pending', 'running');
"#;

/// The active-states step: the three partial indexes over active attempts again, their
/// condition written as comparisons joined by `OR` instead of `state IN (...)`. SQLite
/// evaluates a constant `IN` list of more than two values through a temporary B-tree it
/// builds at every statement that tests it, and every attempt written tests all three
/// conditions (a tenth of a claim's time). SQLite reads one of these indexes for a
/// statement only when its `WHERE` holds the index's condition as written, so the
/// statements over active attempts write it the same way (`claim.rs`, `attempts.rs`; the
/// SQLite engine's tests check their plans). Its number is the one line to change when
/// migrations are renumbered.
const ACTIVE_STATES: Migration = Migration {
    version: 8,
    sqlite: ACTIVE_STATES_SQL,
    postgres: ACTIVE_STATES_SQL,
    fill: None,
};

/// An active attempt's condition as the statements over active attempts write it: the text
/// of the active-states step's index conditions, to the letter, since SQLite reads a partial
/// index for a statement only when its `WHERE` holds the index's condition as written (the
/// SQLite engine's tests check the plans). The step's own text stays a literal: a migration
/// that has run must not change.
macro_rules! active_attempt {
    () => {
        "(state = 'leased' OR state = 'running' OR state = 'cancelling')"
    };
}
pub(crate) use active_attempt;

/// The active-states step's statements, the same on both engines (each index keeps its
/// name, columns and uniqueness).
const ACTIVE_STATES_SQL: &str = "
DROP INDEX attempts_active_task_uq;
CREATE UNIQUE INDEX attempts_active_task_uq ON attempts (tenant, task_id) WHERE (state = 'leased' OR state = 'running' OR state = 'cancelling');
DROP INDEX attempts_active_runner_uq;
CREATE UNIQUE INDEX attempts_active_runner_uq ON attempts (tenant, runner, runner_slot) WHERE (state = 'leased' OR state = 'running' OR state = 'cancelling');
DROP INDEX attempts_expiry_idx;
CREATE INDEX attempts_expiry_idx ON attempts (lease_expires_ns) WHERE (state = 'leased' OR state = 'running' OR state = 'cancelling');
";

/// The table that records the version.
pub(crate) const VERSION_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)";

/// Schema version 1 on SQLite (text compares with the `BINARY` collation, byte by byte).
const V1_SQLITE: &str = "
CREATE TABLE tasks (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    slot TEXT NOT NULL,
    phase TEXT NOT NULL CHECK (phase IN ('pending', 'running', 'succeeded', 'failed', 'timeout', 'canceled', 'exhausted')),
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
    PRIMARY KEY (tenant, id),
    CHECK ((phase = 'pending') = (queued_ns IS NOT NULL)),
    CHECK ((phase IN ('pending', 'running')) = (finished_ns IS NULL)),
    CHECK (expires_ns IS NULL OR finished_ns IS NOT NULL)
);
CREATE INDEX tasks_queue_idx ON tasks (tenant, priority DESC, queued_ns, id) WHERE phase = 'pending';
CREATE UNIQUE INDEX tasks_running_slot_uq ON tasks (tenant, slot) WHERE phase = 'running';
CREATE INDEX tasks_created_idx ON tasks (tenant, created_ns, id);
CREATE INDEX tasks_slot_created_idx ON tasks (tenant, slot, created_ns, id);
CREATE INDEX tasks_phase_created_idx ON tasks (tenant, phase, created_ns, id);
CREATE UNIQUE INDEX tasks_uid_uq ON tasks (tenant, uid);
CREATE INDEX tasks_expires_idx ON tasks (expires_ns) WHERE expires_ns IS NOT NULL;

CREATE TABLE task_owners (
    tenant TEXT NOT NULL,
    task_id TEXT NOT NULL,
    owner_uid TEXT NOT NULL,
    owner_kind TEXT NOT NULL CHECK (owner_kind IN ('Flow', 'Schedule', 'Task')),
    owner_name TEXT NOT NULL,
    controller INTEGER NOT NULL CHECK (controller IN (0, 1)),
    PRIMARY KEY (tenant, task_id, owner_uid),
    FOREIGN KEY (tenant, task_id) REFERENCES tasks (tenant, id) ON DELETE CASCADE
);
CREATE INDEX task_owners_owner_idx ON task_owners (tenant, owner_uid, task_id);
CREATE UNIQUE INDEX task_owners_controller_uq ON task_owners (tenant, task_id) WHERE controller = 1;

CREATE TABLE attempts (
    tenant TEXT NOT NULL,
    task_id TEXT NOT NULL,
    attempt INTEGER NOT NULL CHECK (attempt >= 1),
    runner_slot INTEGER NOT NULL CHECK (runner_slot >= 0),
    runner TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('leased', 'running', 'cancelling', 'succeeded', 'failed', 'timeout', 'canceled', 'expired')),
    lease_expires_ns INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, task_id, attempt),
    FOREIGN KEY (tenant, task_id) REFERENCES tasks (tenant, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX attempts_active_task_uq ON attempts (tenant, task_id) WHERE state IN ('leased', 'running', 'cancelling');
CREATE UNIQUE INDEX attempts_active_runner_uq ON attempts (tenant, runner, runner_slot) WHERE state IN ('leased', 'running', 'cancelling');
CREATE INDEX attempts_expiry_idx ON attempts (lease_expires_ns) WHERE state IN ('leased', 'running', 'cancelling');

CREATE TABLE log_lines (
    tenant TEXT NOT NULL,
    task_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    sequence INTEGER NOT NULL CHECK (sequence >= 0),
    stream TEXT NOT NULL CHECK (stream IN ('stdout', 'stderr')),
    line TEXT NOT NULL,
    logged_at TEXT NOT NULL,
    PRIMARY KEY (tenant, task_id, attempt, sequence),
    FOREIGN KEY (tenant, task_id, attempt) REFERENCES attempts (tenant, task_id, attempt) ON DELETE CASCADE
);

CREATE TABLE runners (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'online' CHECK (state IN ('online', 'draining', 'offline')),
    max_concurrent INTEGER NOT NULL DEFAULT 1 CHECK (max_concurrent >= 1),
    last_seen_ns INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, id)
);
";

/// Schema version 1 on PostgreSQL: the same tables, text in the `C` collation (byte order,
/// as the model compares ids) and integers as `BIGINT`.
const V1_POSTGRES: &str = r#"
CREATE TABLE tasks (
    tenant TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT COLLATE "C" NOT NULL,
    slot TEXT COLLATE "C" NOT NULL,
    phase TEXT NOT NULL CHECK (phase IN ('pending', 'running', 'succeeded', 'failed', 'timeout', 'canceled', 'exhausted')),
    kind TEXT NOT NULL,
    priority BIGINT NOT NULL,
    queued_ns BIGINT,
    finished_ns BIGINT,
    expires_ns BIGINT,
    created_ns BIGINT NOT NULL,
    updated_ns BIGINT NOT NULL,
    resource_version BIGINT NOT NULL CHECK (resource_version >= 1),
    generation BIGINT NOT NULL CHECK (generation BETWEEN 1 AND resource_version),
    attempt BIGINT NOT NULL CHECK (attempt >= 0),
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, id),
    CHECK ((phase = 'pending') = (queued_ns IS NOT NULL)),
    CHECK ((phase IN ('pending', 'running')) = (finished_ns IS NULL)),
    CHECK (expires_ns IS NULL OR finished_ns IS NOT NULL)
);
CREATE INDEX tasks_queue_idx ON tasks (tenant, priority DESC, queued_ns, id) WHERE phase = 'pending';
CREATE UNIQUE INDEX tasks_running_slot_uq ON tasks (tenant, slot) WHERE phase = 'running';
CREATE INDEX tasks_created_idx ON tasks (tenant, created_ns, id);
CREATE INDEX tasks_slot_created_idx ON tasks (tenant, slot, created_ns, id);
CREATE INDEX tasks_phase_created_idx ON tasks (tenant, phase, created_ns, id);
CREATE UNIQUE INDEX tasks_uid_uq ON tasks (tenant, uid);
CREATE INDEX tasks_expires_idx ON tasks (expires_ns) WHERE expires_ns IS NOT NULL;

CREATE TABLE task_owners (
    tenant TEXT COLLATE "C" NOT NULL,
    task_id TEXT COLLATE "C" NOT NULL,
    owner_uid TEXT COLLATE "C" NOT NULL,
    owner_kind TEXT NOT NULL CHECK (owner_kind IN ('Flow', 'Schedule', 'Task')),
    owner_name TEXT COLLATE "C" NOT NULL,
    controller BIGINT NOT NULL CHECK (controller IN (0, 1)),
    PRIMARY KEY (tenant, task_id, owner_uid),
    FOREIGN KEY (tenant, task_id) REFERENCES tasks (tenant, id) ON DELETE CASCADE
);
CREATE INDEX task_owners_owner_idx ON task_owners (tenant, owner_uid, task_id);
CREATE UNIQUE INDEX task_owners_controller_uq ON task_owners (tenant, task_id) WHERE controller = 1;

CREATE TABLE attempts (
    tenant TEXT COLLATE "C" NOT NULL,
    task_id TEXT COLLATE "C" NOT NULL,
    attempt BIGINT NOT NULL CHECK (attempt >= 1),
    runner_slot BIGINT NOT NULL CHECK (runner_slot >= 0),
    runner TEXT COLLATE "C" NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('leased', 'running', 'cancelling', 'succeeded', 'failed', 'timeout', 'canceled', 'expired')),
    lease_expires_ns BIGINT NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, task_id, attempt),
    FOREIGN KEY (tenant, task_id) REFERENCES tasks (tenant, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX attempts_active_task_uq ON attempts (tenant, task_id) WHERE state IN ('leased', 'running', 'cancelling');
CREATE UNIQUE INDEX attempts_active_runner_uq ON attempts (tenant, runner, runner_slot) WHERE state IN ('leased', 'running', 'cancelling');
CREATE INDEX attempts_expiry_idx ON attempts (lease_expires_ns) WHERE state IN ('leased', 'running', 'cancelling');

CREATE TABLE log_lines (
    tenant TEXT COLLATE "C" NOT NULL,
    task_id TEXT COLLATE "C" NOT NULL,
    attempt BIGINT NOT NULL,
    sequence BIGINT NOT NULL CHECK (sequence >= 0),
    stream TEXT NOT NULL CHECK (stream IN ('stdout', 'stderr')),
    line TEXT NOT NULL,
    logged_at TEXT NOT NULL,
    PRIMARY KEY (tenant, task_id, attempt, sequence),
    FOREIGN KEY (tenant, task_id, attempt) REFERENCES attempts (tenant, task_id, attempt) ON DELETE CASCADE
);

CREATE TABLE runners (
    tenant TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    state TEXT NOT NULL DEFAULT 'online' CHECK (state IN ('online', 'draining', 'offline')),
    max_concurrent BIGINT NOT NULL DEFAULT 1 CHECK (max_concurrent >= 1),
    last_seen_ns BIGINT NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, id)
);
"#;

/// Schema version 2 on SQLite: schedule actions (a schedule's ticks and webhook deliveries),
/// with the index a tick loop reads due actions on, `(tenant, due_ms, id)` over pending ones
/// (the model's due rule is to the millisecond), and the one startup recovery reads running
/// actions on.
const V2_SQLITE: &str = "
CREATE TABLE actions (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'completed', 'failed')),
    due_ms INTEGER NOT NULL,
    updated_ns INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX actions_due_idx ON actions (tenant, due_ms, id) WHERE state = 'pending';
CREATE INDEX actions_running_idx ON actions (updated_ns) WHERE state = 'running';
";

/// Schema version 2 on PostgreSQL: the same table.
const V2_POSTGRES: &str = r#"
CREATE TABLE actions (
    tenant TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'completed', 'failed')),
    due_ms BIGINT NOT NULL,
    updated_ns BIGINT NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX actions_due_idx ON actions (tenant, due_ms, id) WHERE state = 'pending';
CREATE INDEX actions_running_idx ON actions (updated_ns) WHERE state = 'running';
"#;

/// Schema version 3 on SQLite: flows and their jobs. A flow row holds the flow's spec and
/// its run (model-flow's `FlowSpec` and `FlowRun`, the run the source of every job's
/// state), its rolled-up status and a `resource_version` every advance compares and bumps;
/// `flow_jobs` repeats each job's state for SQL readers and names the task made for it.
const V3_SQLITE: &str = "
CREATE TABLE flows (
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    uid TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('dispatched', 'started', 'error', 'finished', 'canceled')),
    resource_version INTEGER NOT NULL CHECK (resource_version >= 1),
    created_ns INTEGER NOT NULL,
    updated_ns INTEGER NOT NULL,
    finished_ns INTEGER,
    expires_ns INTEGER,
    spec TEXT NOT NULL,
    run TEXT NOT NULL,
    PRIMARY KEY (tenant, name),
    CHECK (expires_ns IS NULL OR finished_ns IS NOT NULL)
);
CREATE UNIQUE INDEX flows_uid_uq ON flows (tenant, uid);
CREATE INDEX flows_created_idx ON flows (tenant, created_ns, name);
CREATE INDEX flows_expires_idx ON flows (expires_ns) WHERE expires_ns IS NOT NULL;

CREATE TABLE flow_jobs (
    tenant TEXT NOT NULL,
    flow TEXT NOT NULL,
    job TEXT NOT NULL,
    position INTEGER NOT NULL CHECK (position >= 0),
    state TEXT NOT NULL CHECK (state IN ('waiting', 'ready', 'running', 'succeeded', 'failed', 'skipped', 'canceled')),
    task_id TEXT,
    PRIMARY KEY (tenant, flow, job),
    FOREIGN KEY (tenant, flow) REFERENCES flows (tenant, name) ON DELETE CASCADE
);
CREATE UNIQUE INDEX flow_jobs_task_uq ON flow_jobs (tenant, task_id) WHERE task_id IS NOT NULL;
";

/// Schema version 3 on PostgreSQL: the same tables.
const V3_POSTGRES: &str = r#"
CREATE TABLE flows (
    tenant TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    uid TEXT COLLATE "C" NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('dispatched', 'started', 'error', 'finished', 'canceled')),
    resource_version BIGINT NOT NULL CHECK (resource_version >= 1),
    created_ns BIGINT NOT NULL,
    updated_ns BIGINT NOT NULL,
    finished_ns BIGINT,
    expires_ns BIGINT,
    spec TEXT NOT NULL,
    run TEXT NOT NULL,
    PRIMARY KEY (tenant, name),
    CHECK (expires_ns IS NULL OR finished_ns IS NOT NULL)
);
CREATE UNIQUE INDEX flows_uid_uq ON flows (tenant, uid);
CREATE INDEX flows_created_idx ON flows (tenant, created_ns, name);
CREATE INDEX flows_expires_idx ON flows (expires_ns) WHERE expires_ns IS NOT NULL;

CREATE TABLE flow_jobs (
    tenant TEXT COLLATE "C" NOT NULL,
    flow TEXT COLLATE "C" NOT NULL,
    job TEXT COLLATE "C" NOT NULL,
    position BIGINT NOT NULL CHECK (position >= 0),
    state TEXT NOT NULL CHECK (state IN ('waiting', 'ready', 'running', 'succeeded', 'failed', 'skipped', 'canceled')),
    task_id TEXT COLLATE "C",
    PRIMARY KEY (tenant, flow, job),
    FOREIGN KEY (tenant, flow) REFERENCES flows (tenant, name) ON DELETE CASCADE
);
CREATE UNIQUE INDEX flow_jobs_task_uq ON flow_jobs (tenant, task_id) WHERE task_id IS NOT NULL;
"#;

/// The claim-columns step on SQLite: the columns a claim tests a runner against, and the
/// queue index again with `kind_name` after the order, so a claim filters the runner's
/// kinds on the index.
const CLAIM_COLUMNS_SQLITE: &str = "
ALTER TABLE tasks ADD COLUMN kind_name TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN runner_selector TEXT NOT NULL DEFAULT '';
DROP INDEX tasks_queue_idx;
CREATE INDEX tasks_queue_idx ON tasks (tenant, priority DESC, queued_ns, id, kind_name) WHERE phase = 'pending';
";

/// The claim-columns step on PostgreSQL: the same columns and index.
const CLAIM_COLUMNS_POSTGRES: &str = r#"
ALTER TABLE tasks ADD COLUMN kind_name TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN runner_selector TEXT COLLATE "C" NOT NULL DEFAULT '';
DROP INDEX tasks_queue_idx;
CREATE INDEX tasks_queue_idx ON tasks (tenant, priority DESC, queued_ns, id, kind_name) WHERE phase = 'pending';
"#;

/// How many tasks one read of [`fill_claim_columns`] decodes.
const FILL_PAGE: i64 = 1_000;

/// The claim-columns step's fill: `kind_name` and `runner_selector` of every stored task, from its
/// document (the selector's canonical text needs the model), in pages of [`FILL_PAGE`] by
/// `(tenant, id)`.
fn fill_claim_columns(tx: &mut dyn Tx) -> Result<(), StoreError> {
    const PAGE: Sql = Sql::new(
        "SELECT tenant, id, doc FROM tasks WHERE (tenant, id) > (?1, ?2) \
         ORDER BY tenant, id LIMIT ?3",
    );
    const SET: Sql = Sql::new(
        "UPDATE tasks SET kind_name = ?3, runner_selector = ?4 WHERE tenant = ?1 AND id = ?2",
    );
    let mut after = (String::new(), String::new());
    loop {
        let rows = tx.query(
            &PAGE,
            &[
                after.0.as_str().into(),
                after.1.as_str().into(),
                Value::Int(FILL_PAGE),
            ],
        )?;
        for row in &rows {
            let (tenant, id) = (row.text(0)?, row.text(1)?);
            let task: Task =
                serde_json::from_str(row.text(2)?).map_err(|error| StoreError::Corrupt {
                    what: format!("task \"{id}\" of tenant \"{tenant}\""),
                    reason: error.to_string(),
                })?;
            tx.execute(
                &SET,
                &[
                    tenant.into(),
                    id.into(),
                    kind_name(&task),
                    task.spec().runner_selector().to_string().into(),
                ],
            )?;
            after = (tenant.to_owned(), id.to_owned());
        }
        if rows.len() < usize::try_from(FILL_PAGE).unwrap_or(usize::MAX) {
            return Ok(());
        }
    }
}

/// The migrations a database at version `found` (0 for an empty one) still needs, or
/// [`StoreError::SchemaTooNew`] when it is newer than this build.
pub(crate) fn pending(found: i64) -> Result<&'static [Migration], StoreError> {
    if found > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew {
            found,
            supported: SCHEMA_VERSION,
        });
    }
    let done = MIGRATIONS
        .iter()
        .take_while(|migration| migration.version <= found)
        .count();
    Ok(MIGRATIONS.get(done..).unwrap_or_default())
}

mod checks;
mod floors;
mod plans;
mod rules;

#[cfg(test)]
mod tests;
