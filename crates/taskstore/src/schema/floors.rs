//! The queue-floors step: on PostgreSQL, a table of where each tenant's queue begins
//! (`floors.rs`); SQLite needs none.

use super::Migration;

/// The queue-floors step. Its number is the one line to change when migrations are
/// renumbered.
pub(super) const QUEUE_FLOORS: Migration = Migration {
    version: 12,
    sqlite: "",
    postgres: QUEUE_FLOORS_POSTGRES,
    fill: None,
};

/// The table starts empty: a tenant without a row has no floor, and its claims read the
/// queue from its start until a claiming connection first moves the floor up.
const QUEUE_FLOORS_POSTGRES: &str = r#"
CREATE TABLE queue_floors (
    tenant TEXT COLLATE "C" PRIMARY KEY,
    priority BIGINT NOT NULL,
    queued_ns BIGINT NOT NULL,
    id TEXT COLLATE "C" NOT NULL
);
"#;
