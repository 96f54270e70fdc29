//! The conformance suite on the embedded engine, plus what only it has: a file that
//! survives a killed process, and a schema check on open.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod suite;

use std::path::PathBuf;

use suite::Backend;
use taskstore::{SqliteStore, Store, StoreError};

struct Sqlite {
    path: PathBuf,
}

impl Backend for Sqlite {
    type Store = SqliteStore;
    fn open(&self) -> SqliteStore {
        SqliteStore::open(&self.path).unwrap()
    }
}

impl Drop for Sqlite {
    fn drop(&mut self) {
        remove(&self.path);
    }
}

fn remove(path: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

/// A fresh database file for one test, under cargo's scratch directory, in a folder of
/// this process (two runs at once do not share files).
fn fresh(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("taskstore-sqlite")
        .join(std::process::id().to_string());
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.db"));
    remove(&path);
    path
}

fn sqlite(name: &str) -> Option<Sqlite> {
    Some(Sqlite { path: fresh(name) })
}

conformance!(sqlite);

#[test]
fn a_database_of_a_newer_schema_is_refused() {
    let path = fresh("newer_schema");
    drop(SqliteStore::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE schema_version SET version = version + 1", [])
        .unwrap();
    drop(conn);
    let error = SqliteStore::open(&path).unwrap_err();
    assert!(
        matches!(error, StoreError::SchemaTooNew { found, supported } if found == supported + 1),
        "{error}"
    );
    // A database at version 1 (before actions and flows) gains the later versions on open
    // and keeps its tasks.
    let path = fresh("version_1");
    let task = suite::task("a", suite::at(0));
    let mut store = SqliteStore::open(&path).unwrap();
    store.create(&suite::tenant(), &task, suite::at(0)).unwrap();
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(suite::TO_VERSION_3).unwrap();
    conn.execute_batch("DROP TABLE flow_jobs; DROP TABLE flows; DROP TABLE actions; UPDATE schema_version SET version = 1")
        .unwrap();
    drop(conn);
    suite::a_version_1_database_migrates_on_open(&mut SqliteStore::open(&path).unwrap(), &task);
    // A database at version 3 (before the claim columns) gains them, filled from each
    // task's document.
    let path = fresh("version_3");
    let tasks = suite::version_3_tasks();
    let mut store = SqliteStore::open(&path).unwrap();
    store.import(&suite::tenant(), &tasks).unwrap();
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(suite::TO_VERSION_3).unwrap();
    drop(conn);
    let mut store = SqliteStore::open(&path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mut statement = conn
        .prepare("SELECT id, kind_name, runner_selector FROM tasks ORDER BY id")
        .unwrap();
    let columns: Vec<(String, String, String)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(columns, suite::version_3_columns());
    suite::a_version_3_database_migrates_on_open(&mut store, &tasks);
    // Opening again at the same version migrates nothing and keeps the data.
    let path = fresh("same_schema");
    drop(SqliteStore::open(&path).unwrap());
    SqliteStore::open(&path).unwrap();
}

#[test]
fn a_flow_stored_as_a_document_moves_into_rows() {
    let backend = sqlite("flow_document").unwrap();
    let path = backend.path.clone();
    suite::a_flow_stored_as_a_document_moves_into_rows(&backend, |sql| {
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
    });
}
