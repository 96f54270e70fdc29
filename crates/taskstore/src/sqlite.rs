//! `SqliteStore`: the embedded engine, a file path and nothing to start.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ErrorCode, OptionalExtension, ToSql, Transaction, TransactionBehavior};

use chrono::{DateTime, Utc};
use taskmodel::ids::TenantId;

use crate::claim;
use crate::engine::Engine;
use crate::error::StoreError;
use crate::group::{Batch, ClaimCall, ClaimGroup};
use crate::schema::{VERSION_TABLE, pending};
use crate::tx::{Row, Sql, Tx, Value};
use crate::values::{ClaimRequest, Claimed};

/// How long a connection waits for another's write lock before the call fails as
/// [`StoreError::Busy`]. Writers queue on SQLite's one write lock; this is generous so that
/// many writers at once wait rather than fail.
pub const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The page cache of each connection, in KiB: four times SQLite's default, which holds the
/// pages claims touch (the queue index's head, recent rows) and a scan past 99,000 queued
/// tasks. Not more: at every commit SQLite walks the cache's hash table to drop pages past
/// the database's end, and that walk grows with the cache. With the shared writer's cache
/// at 64 MiB it was 7 to 8% of a claim's CPU at 16 workers, with 8 MiB about 1%.
const SQLITE_CACHE_KIB: i64 = 8 * 1024;

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
/// than in SQLite's sleeping busy handler); readers never wait.
///
/// One value holds one connection for its reads: give each thread its own
/// ([`open`](Self::open) the same path again). The write transactions of every value open
/// on one file in this process run, one at a time, on one more connection they share:
/// SQLite drops a connection's whole page cache when it finds that another connection
/// wrote, so a writer that was not the last to write reads every page it touches again
/// (copied from the file or the log by the kernel). The shared writer keeps its pages
/// while it is the only one writing, and it closes with the last value open on the file.
/// An in-memory or temporary database (`:memory:`, an empty path) is private to the
/// connection that opens it, so such a value reads and writes on its one connection.
#[derive(Debug)]
pub struct SqliteStore {
    /// This value's connection for reads; `None` for an in-memory or temporary database,
    /// which only its own connection sees: the file's writer is then that connection.
    reader: Option<Connection>,
    /// What the store's connections to this file in this process share.
    file: Arc<File>,
}

/// What the connections to one database file in this process share: the connection its
/// write transactions run on, whose lock is the writers' turn (the writers of one file
/// queue here, in order, instead of in SQLite's busy handler, which sleeps and retries),
/// and the claims queued for it ([`ClaimGroup`], run as a group commit).
#[derive(Debug)]
struct File {
    /// The writer.
    writer: Mutex<Connection>,
    claims: ClaimGroup,
}

impl File {
    /// Runs `f` on the writer, in the writers' turn.
    fn with_writer<T>(&self, f: impl FnOnce(&mut Connection) -> T) -> T {
        f(&mut self.writer.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Which file a path names: on Unix its device and inode, so that a database deleted and
/// made again at the same path while a store still has the old one open is another file
/// (the old one's inode stays taken while it is open); elsewhere its canonical path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum FileKey {
    /// Device and inode.
    Inode(u64, u64),
    /// The canonical path, or the path as given.
    Path(PathBuf),
}

impl FileKey {
    /// The key of the file at `path` (after it exists).
    fn of(path: &Path) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if let Ok(meta) = std::fs::metadata(path) {
                return Self::Inode(meta.dev(), meta.ino());
            }
        }
        Self::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    }
}

/// What the connections to each database file open in this process share, while any
/// store has the file open.
static FILES: LazyLock<Mutex<HashMap<FileKey, Weak<File>>>> = LazyLock::new(Mutex::default);

/// What the connections to the file at `path` share (after it exists and its schema is
/// current): the writer is opened here when no store has the file open (outside the
/// map's lock, so that a slow open holds up no other file's).
fn shared(path: &Path) -> Result<Arc<File>, StoreError> {
    let key = FileKey::of(path);
    let open = |files: &HashMap<FileKey, Weak<File>>| files.get(&key).and_then(Weak::upgrade);
    if let Some(file) = open(&FILES.lock().unwrap_or_else(PoisonError::into_inner)) {
        return Ok(file);
    }
    let writer = connect(path)?;
    writer
        .pragma_update(None, "foreign_keys", "ON")
        .map_err(sqlite)?;
    let mut files = FILES.lock().unwrap_or_else(PoisonError::into_inner);
    // Another store may have opened the file meanwhile: its writer is the one.
    if let Some(file) = open(&files) {
        return Ok(file);
    }
    files.retain(|_, file| file.strong_count() > 0);
    let file = Arc::new(File {
        writer: Mutex::new(writer),
        claims: ClaimGroup::default(),
    });
    files.insert(key, Arc::downgrade(&file));
    Ok(file)
}

/// A connection to the database at `path` with the store's settings (see
/// [`SqliteStore`]), foreign keys as the build of SQLite starts them.
fn connect(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path).map_err(sqlite)?;
    conn.busy_timeout(SQLITE_BUSY_TIMEOUT).map_err(sqlite)?;
    conn.pragma_update(None, "journal_mode", "WAL")
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
    Ok(conn)
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
        let mut conn = connect(path)?;
        // Foreign keys are on only after the migrations (this build of SQLite starts a
        // connection with them on): a migration that builds a table again drops the old
        // one, which must not cascade (`schema/checks.rs`); the migrations' transaction
        // checks every key before it commits.
        conn.pragma_update(None, "foreign_keys", "OFF")
            .map_err(sqlite)?;
        Self::migrate(&mut conn)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sqlite)?;
        if conn.path().is_none_or(str::is_empty) {
            return Ok(Self {
                reader: None,
                file: Arc::new(File {
                    writer: Mutex::new(conn),
                    claims: ClaimGroup::default(),
                }),
            });
        }
        Ok(Self {
            reader: Some(conn),
            file: shared(path)?,
        })
    }

    /// Applies the migrations the database lacks, in one transaction.
    fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
        conn.execute_batch(VERSION_TABLE).map_err(sqlite)?;
        let mut tx = SqliteTx(
            conn.transaction_with_behavior(TransactionBehavior::Immediate)
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
        // Foreign keys are off while the migrations run: they must leave every key whole.
        let broken: Option<String> = if todo.is_empty() {
            None
        } else {
            tx.0.query_row("PRAGMA foreign_key_check", [], |row| row.get(0))
                .optional()
                .map_err(sqlite)?
        };
        if let Some(table) = broken {
            return Err(StoreError::Corrupt {
                what: format!("table \"{table}\""),
                reason: "a row references a row the migrations left missing".to_owned(),
            });
        }
        tx.0.commit().map_err(sqlite)
    }

    /// Runs `f` in a transaction: a write (`IMMEDIATE`) on the file's writer, in the
    /// writers' turn; a read on this value's own connection (on the writer when the
    /// database is in memory).
    fn run<T>(
        &mut self,
        behavior: TransactionBehavior,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match &mut self.reader {
            Some(reader) if !matches!(behavior, TransactionBehavior::Immediate) => {
                transact(reader, behavior, f)
            }
            _ => self.file.with_writer(|conn| transact(conn, behavior, f)),
        }
    }
}

/// Runs `f` in a transaction of `conn` that begins as `behavior` says, and commits it.
fn transact<T>(
    conn: &mut Connection,
    behavior: TransactionBehavior,
    f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let mut tx = SqliteTx(conn.transaction_with_behavior(behavior).map_err(sqlite)?);
    let value = f(&mut tx)?;
    tx.0.commit().map_err(sqlite)?;
    Ok(value)
}

/// Runs a group of claims in one write transaction, taking the calls queued as it goes,
/// and commits them together.
///
/// The claims run one after another without savepoints: a claim that fails has
/// almost always written nothing (the model refused it, or its compare-and-swap
/// changed no row), and then the group goes on. Only a claim that fails after it wrote
/// (a unique index refused its attempt after its task's update) needs its writes
/// undone: the transaction is rolled back and the same claims run again, each in its
/// own savepoint ([`claim_group_in_savepoints`]).
/// A savepoint copies every page a claim changes into its journal first, a tenth of
/// a claim's time.
fn claim_group(conn: &mut Connection, batch: &mut Batch<'_>) {
    let Some(first) = batch.next() else {
        return;
    };
    let mut calls = vec![first];
    let mut results = Vec::new();
    {
        let mut tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
            Ok(tx) => SqliteTx(tx),
            Err(error) => return batch.fail(sqlite(error)),
        };
        let mut wrote = false;
        while let Some(call) = calls.get(results.len()) {
            let before = tx.0.total_changes();
            let result = claim::claim(&mut tx, &call.tenant, &call.request, call.now);
            if result.is_err() && tx.0.total_changes() != before {
                wrote = true;
                break;
            }
            results.push(result);
            if results.len() == calls.len() {
                match batch.next() {
                    Some(call) => calls.push(call),
                    None => break,
                }
            }
        }
        if !wrote {
            let committed = tx.0.commit();
            for result in results {
                batch.answer(result);
            }
            if let Err(error) = committed {
                batch.fail(sqlite(error));
            }
            return;
        }
        // Dropped: rolled back.
    }
    claim_group_in_savepoints(conn, calls, batch);
}

/// Runs `calls`, then the calls queued as it goes, in one write transaction, each in
/// its own savepoint (one that fails rolls back only itself and keeps its own error),
/// answers each and commits.
fn claim_group_in_savepoints(conn: &mut Connection, calls: Vec<ClaimCall>, batch: &mut Batch<'_>) {
    let mut tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
        Ok(tx) => SqliteTx(tx),
        Err(error) => return batch.fail(sqlite(error)),
    };
    let mut calls = calls.into_iter();
    while let Some(call) = calls.next().or_else(|| batch.next()) {
        if let Err(error) = tx.statement(SAVEPOINT) {
            return batch.fail(error);
        }
        let result = claim::claim(&mut tx, &call.tenant, &call.request, call.now);
        let ended = if result.is_ok() {
            tx.statement(RELEASE)
        } else {
            tx.statement(ROLLBACK_TO)
                .and_then(|()| tx.statement(RELEASE))
        };
        batch.answer(result);
        if let Err(error) = ended {
            return batch.fail(error);
        }
    }
    if let Err(error) = tx.0.commit() {
        batch.fail(sqlite(error));
    }
}

/// The savepoint around each claim of a group, and its two ends.
const SAVEPOINT: &str = "SAVEPOINT claim";
const RELEASE: &str = "RELEASE claim";
const ROLLBACK_TO: &str = "ROLLBACK TO claim";

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

    /// Joins the claims of this file queued in this process: one group commit
    /// (`group.rs`).
    fn write_claim(
        &mut self,
        tenant: &TenantId,
        request: &ClaimRequest,
        now: DateTime<Utc>,
    ) -> Result<Option<Claimed>, StoreError> {
        let call = ClaimCall {
            tenant: tenant.clone(),
            request: request.clone(),
            now,
        };
        let file = Arc::clone(&self.file);
        file.claims.claim(call, |batch| {
            file.with_writer(|conn| claim_group(conn, batch));
        })
    }
}

/// A SQLite transaction; rolled back when dropped without a commit.
struct SqliteTx<'c>(Transaction<'c>);

impl SqliteTx<'_> {
    /// Runs a statement without parameters (a savepoint's), prepared once per connection.
    fn statement(&mut self, sql: &str) -> Result<(), StoreError> {
        self.0
            .prepare_cached(sql)
            .and_then(|mut statement| statement.execute([]))
            .map(drop)
            .map_err(sqlite)
    }
}

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
                    ValueRef::Text(text) => Value::Text(text_of(text)),
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

/// A text column's value: the store writes only valid UTF-8, which is checked by the
/// standard library's validator (several times faster on a task's document than the
/// lossy conversion's); anything else, written by another program, reads with its bad
/// bytes replaced, as before.
fn text_of(text: &[u8]) -> String {
    match std::str::from_utf8(text) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(text).into_owned(),
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

#[cfg(test)]
mod tests;
