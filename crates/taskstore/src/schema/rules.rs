//! The unchecked-rows step: on PostgreSQL, `tasks` and `attempts` lose their `CHECK`s;
//! SQLite keeps them.
//!
//! PostgreSQL builds each `CHECK` of a table again from its stored text (parsed, simplified
//! and compiled) at every statement that writes the table, and a claim writes both tables:
//! building its ten `CHECK`s (`ExecConstraints`) was about 8% of the server's CPU in a
//! profile of the 16-worker claim bench (2026-11-28). SQLite compiles them once into each
//! prepared statement.
//!
//! The rules they stated still hold on both engines: the store writes these columns only
//! from a task or attempt the model has validated, and a PostgreSQL test runs the
//! conformance suite's scenarios and then finds no row of either table that breaks them
//! (`tests/postgres.rs`).

use super::Migration;

/// The unchecked-rows step. Its number is the one line to change when migrations are
/// renumbered.
pub(super) const UNCHECKED_ROWS: Migration = Migration {
    version: 11,
    sqlite: "",
    postgres: UNCHECKED_ROWS_POSTGRES,
    fill: None,
};

/// The step on PostgreSQL: every `CHECK` of the two tables, by the names PostgreSQL gave
/// them when the tables were created (the check-lists step kept the names of the two it
/// replaced).
const UNCHECKED_ROWS_POSTGRES: &str = "
ALTER TABLE tasks
    DROP CONSTRAINT tasks_phase_check,
    DROP CONSTRAINT tasks_resource_version_check,
    DROP CONSTRAINT tasks_attempt_check,
    DROP CONSTRAINT tasks_check,
    DROP CONSTRAINT tasks_check1,
    DROP CONSTRAINT tasks_check2,
    DROP CONSTRAINT tasks_check3;
ALTER TABLE attempts
    DROP CONSTRAINT attempts_attempt_check,
    DROP CONSTRAINT attempts_runner_slot_check,
    DROP CONSTRAINT attempts_state_check;
";
