//! `SqliteStore`: the embedded engine, a file path and nothing to start.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ErrorCode, ToSql, Transaction, TransactionBehavior};

use crate::engine::Engine;
use crate::error::StoreError;
use crate::schema::{VERSION_TABLE, pending};
use crate::tx::{Row, Sql, Tx, Value};

/// How long a connection waits for another's write lock before the call fails as
/// [`StoreError::Busy`]. Writers queue on SQLite's one write lock; this is generous so that
/// many writers at once wait rather than fail.
pub const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The page cache of each connection, in KiB (SQLite's default is 2 MiB, which a queue of
/// tens of thousands of tasks outgrows: every claim then reads its pages again).
const SQLITE_CACHE_KIB: i64 = 64 * 1024;

/// How many pages the write-ahead log grows to before a commit copies them back into the
/// database file (SQLite's default is 1,000). Every claim writes a dozen pages, most of
/// them the same few index pages as the claim before; a longer log copies each of those
/// pages back (and flushes the file) once for many more transactions. The log's file is
/// written again from its start after a checkpoint, so it stays at about 40 MiB.
pub const SQLITE_CHECKPOINT_PAGES: u32 = 10_000;

/// Prepared statements kept per connection.
const STATEMENT_CACHE: usize = 64;

/// The embedded engine: one SQLite database file, opened with write-ahead logging (a
/// checkpoint every [`SQLITE_CHECKPOINT_PAGES`]), foreign keys on, a busy timeout
/// ([`SQLITE_BUSY_TIMEOUT`]), `synchronous = NORMAL` and plans that never depend on bound
/// values.
///
/// `NORMAL` in WAL mode loses no committed transaction when the process dies (the
/// conformance suite kills a writer with `SIGKILL` and checks); a power loss may lose the
/// last ones, never corrupt the file. Every write transaction begins `IMMEDIATE`, taking
/// SQLite's one write lock at its start, so concurrent writers queue instead of failing
/// midway (the writers of one process queue on a lock of their own first, in order, rather
/// than in SQLite's sleeping busy handler); readers never wait. One value holds one connection: give each thread its own
/// ([`open`](Self::open) the same path again).
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
    /// Taken around each write transaction: the writers of one file in this process queue
    /// here, in order, instead of in SQLite's busy handler, which sleeps and retries.
    writer: Arc<Mutex<()>>,
}

/// One writer lock per database file opened in this process.
static WRITERS: LazyLock<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>> = LazyLock::new(Mutex::default);

/// The writer lock of the file at `path` (after it exists, so the path is canonical).
fn writer_lock(path: &Path) -> Arc<Mutex<()>> {
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut writers = WRITERS.lock().unwrap_or_else(PoisonError::into_inner);
    Arc::clone(writers.entry(key).or_default())
}

impl SqliteStore {
    /// Opens (or creates) the database at `path` and brings its schema up to
    /// [`SCHEMA_VERSION`](crate::SCHEMA_VERSION).
    ///
    /// # Errors
    ///
    /// [`StoreError::SchemaTooNew`] when a newer build wrote the database;
    /// [`StoreError::Sqlite`] when the file cannot be opened or migrated.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref();
        let conn = Connection::open(path).map_err(sqlite)?;
        conn.busy_timeout(SQLITE_BUSY_TIMEOUT).map_err(sqlite)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sqlite)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sqlite)?;
        conn.pragma_update(None, "cache_size", -SQLITE_CACHE_KIB)
            .map_err(sqlite)?;
        conn.pragma_update(None, "wal_autocheckpoint", SQLITE_CHECKPOINT_PAGES)
            .map_err(sqlite)?;
        // The query planner stability guarantee: a plan never depends on the values bound
        // to a statement. Without it SQLite marks a statement whose plan looked at a bound
        // value (`LIMIT ?` bound to 1, for one) to be prepared again at every binding, and a
        // claim spent a sixth of its time preparing the queue's statement.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
            .map_err(sqlite)?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        let mut store = Self {
            conn,
            writer: writer_lock(path),
        };
        store.migrate()?;
        Ok(store)
    }

    /// Applies the migrations the database lacks, in one transaction.
    fn migrate(&mut self) -> Result<(), StoreError> {
        self.conn.execute_batch(VERSION_TABLE).map_err(sqlite)?;
        let mut tx = SqliteTx(
            self.conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(sqlite)?,
        );
        let found: Option<i64> =
            tx.0.query_row("SELECT max(version) FROM schema_version", [], |row| {
                row.get(0)
            })
            .map_err(sqlite)?;
        let todo = pending(found.unwrap_or(0))?;
        for migration in todo {
            tx.0.execute_batch(migration.sqlite).map_err(sqlite)?;
            if let Some(fill) = migration.fill {
                fill(&mut tx)?;
            }
            tx.0.execute("DELETE FROM schema_version", [])
                .map_err(sqlite)?;
            tx.0.execute(
                "INSERT INTO schema_version (version) VALUES (?1)",
                [migration.version],
            )
            .map_err(sqlite)?;
        }
        tx.0.commit().map_err(sqlite)
    }

    fn run<T>(
        &mut self,
        behavior: TransactionBehavior,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let writer = Arc::clone(&self.writer);
        let _queued = matches!(behavior, TransactionBehavior::Immediate)
            .then(|| writer.lock().unwrap_or_else(PoisonError::into_inner));
        let mut tx = SqliteTx(
            self.conn
                .transaction_with_behavior(behavior)
                .map_err(sqlite)?,
        );
        let value = f(&mut tx)?;
        tx.0.commit().map_err(sqlite)?;
        Ok(value)
    }
}

impl Engine for SqliteStore {
    fn read<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.run(TransactionBehavior::Deferred, f)
    }

    fn write<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.run(TransactionBehavior::Immediate, f)
    }
}

/// A SQLite transaction; rolled back when dropped without a commit.
struct SqliteTx<'c>(Transaction<'c>);

impl Tx for SqliteTx<'_> {
    fn analyze(&mut self, _table: &'static str) -> Result<(), StoreError> {
        Ok(())
    }

    fn execute(&mut self, sql: &Sql, params: &[Value]) -> Result<u64, StoreError> {
        let mut statement = self.0.prepare_cached(&sql.text).map_err(sqlite)?;
        let changed = statement
            .execute(rusqlite::params_from_iter(params))
            .map_err(sqlite)?;
        Ok(u64::try_from(changed).unwrap_or(u64::MAX))
    }

    fn try_execute(&mut self, sql: &Sql, params: &[Value]) -> Result<Option<u64>, StoreError> {
        match self.execute(sql, params) {
            Err(StoreError::Sqlite(error))
                if error.sqlite_error_code() == Some(ErrorCode::ConstraintViolation) =>
            {
                Ok(None)
            }
            other => other.map(Some),
        }
    }

    fn query(&mut self, sql: &Sql, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let mut statement = self.0.prepare_cached(&sql.text).map_err(sqlite)?;
        let columns = statement.column_count();
        let mut rows = statement
            .query(rusqlite::params_from_iter(params))
            .map_err(sqlite)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(sqlite)? {
            let mut values = Vec::with_capacity(columns);
            for index in 0..columns {
                values.push(match row.get_ref(index).map_err(sqlite)? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(value) => Value::Int(value),
                    ValueRef::Text(text) => Value::Text(String::from_utf8_lossy(text).into_owned()),
                    other => {
                        return Err(StoreError::Corrupt {
                            what: format!("column {index}"),
                            reason: format!("unexpected {:?}", other.data_type()),
                        });
                    }
                });
            }
            out.push(Row(values));
        }
        Ok(out)
    }
}

impl ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Self::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Self::Int(value) => ToSqlOutput::Borrowed(ValueRef::Integer(*value)),
            Self::Text(text) => ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes())),
        })
    }
}

/// A SQLite error; a busy or locked database is [`StoreError::Busy`] (retry).
fn sqlite(error: rusqlite::Error) -> StoreError {
    match error.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Busy {
            reason: error.to_string(),
        },
        _ => StoreError::Sqlite(error),
    }
}
