//! `PostgresStore`: the engine for teams that outgrow one machine (and for
//! PostgreSQL-compatible distributed engines).

use std::collections::HashMap;

use postgres::error::SqlState;
use postgres::types::{ToSql, Type};
use postgres::{Client, IsolationLevel, NoTls, Statement, Transaction};

use crate::engine::Engine;
use crate::error::StoreError;
use crate::schema::{VERSION_TABLE, pending};
use crate::tx::{Lock, Paired, Row, Sql, Tx, Value};

/// Prepared statements kept per connection before the cache starts over.
const STATEMENT_CACHE: usize = 256;

/// The advisory lock key that serializes migrations of one database.
const MIGRATION_LOCK: i64 = 0x7461_736b_7374_6f72; // "taskstor"

/// The PostgreSQL engine: one connection, the same schema and the same code as
/// [`SqliteStore`](crate::SqliteStore).
///
/// Write transactions run at `READ COMMITTED`: a write reads the task `FOR UPDATE` (the row
/// is the transaction's until it ends) and writes it back with a compare-and-swap on its
/// version; a claim reads the queue `FOR UPDATE SKIP LOCKED`, so concurrent claims take
/// different tasks instead of waiting for each other. Reads run in a read-only
/// `REPEATABLE READ` transaction (one snapshot for a whole listing). One value holds one
/// connection: give each thread its own.
pub struct PostgresStore {
    client: Client,
    statements: Statements,
}

/// The connection's prepared statements by lock and text (looked up by the borrowed text,
/// without copying it).
type Statements = HashMap<Lock, HashMap<String, Statement>>;

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field(
                "statements",
                &self.statements.values().map(HashMap::len).sum::<usize>(),
            )
            .finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// Connects to `url` (`postgresql://user@host:port/database`, or the key-value form)
    /// without TLS, and brings the schema up to [`SCHEMA_VERSION`](crate::SCHEMA_VERSION)
    /// (migrations of one database are serialized by an advisory lock).
    ///
    /// # Errors
    ///
    /// [`StoreError::SchemaTooNew`] when a newer build wrote the database;
    /// [`StoreError::Postgres`] when the server cannot be reached or the schema migrated.
    pub fn connect(url: &str) -> Result<Self, StoreError> {
        let client = Client::connect(url, NoTls).map_err(postgres)?;
        let mut store = Self {
            client,
            statements: HashMap::new(),
        };
        store.migrate()?;
        Ok(store)
    }

    /// Applies the migrations the database lacks, in one transaction.
    fn migrate(&mut self) -> Result<(), StoreError> {
        let Self { client, statements } = self;
        let tx = client.transaction().map_err(postgres)?;
        let mut tx = PostgresTx { tx, statements };
        tx.tx
            .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .map_err(postgres)?;
        tx.tx.batch_execute(VERSION_TABLE).map_err(postgres)?;
        let found: Option<i64> = tx
            .tx
            .query_one("SELECT max(version) FROM schema_version", &[])
            .and_then(|row| row.try_get(0))
            .map_err(postgres)?;
        for migration in pending(found.unwrap_or(0))? {
            tx.tx.batch_execute(migration.postgres).map_err(postgres)?;
            if let Some(fill) = migration.fill {
                fill(&mut tx)?;
            }
            tx.tx
                .execute("DELETE FROM schema_version", &[])
                .map_err(postgres)?;
            tx.tx
                .execute(
                    "INSERT INTO schema_version (version) VALUES ($1)",
                    &[&migration.version],
                )
                .map_err(postgres)?;
        }
        tx.tx.commit().map_err(postgres)
    }
}

impl Engine for PostgresStore {
    fn read<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let Self { client, statements } = self;
        let tx = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .map_err(postgres)?;
        let mut tx = PostgresTx { tx, statements };
        let value = f(&mut tx)?;
        tx.tx.commit().map_err(postgres)?;
        Ok(value)
    }

    fn write<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let Self { client, statements } = self;
        let tx = client.transaction().map_err(postgres)?;
        let mut tx = PostgresTx { tx, statements };
        let value = f(&mut tx)?;
        tx.tx.commit().map_err(postgres)?;
        Ok(value)
    }
}

/// A PostgreSQL transaction with the connection's statement cache; rolled back when
/// dropped without a commit.
struct PostgresTx<'c> {
    tx: Transaction<'c>,
    statements: &'c mut Statements,
}

impl PostgresTx<'_> {
    /// The prepared statement for `sql`: `?N` placeholders written `$N`, the lock clause
    /// appended.
    fn statement(&mut self, sql: &Sql) -> Result<Statement, StoreError> {
        if let Some(statement) = self
            .statements
            .get(&sql.lock)
            .and_then(|texts| texts.get(sql.text.as_ref()))
        {
            return Ok(statement.clone());
        }
        let text = format!("{}{}", sql.text.replace('?', "$"), sql.lock.clause());
        let statement = self.tx.prepare(&text).map_err(postgres)?;
        if self.statements.values().map(HashMap::len).sum::<usize>() >= STATEMENT_CACHE {
            self.statements.clear();
        }
        self.statements
            .entry(sql.lock)
            .or_default()
            .insert(sql.text.clone().into_owned(), statement.clone());
        Ok(statement)
    }
}

/// A `NULL` typed for an integer parameter, and one typed for any other (text).
const NULL_INT: Option<i64> = None;
const NULL_TEXT: Option<&str> = None;

/// The parameters as the statement takes them: a `NULL` with the type PostgreSQL inferred
/// for its placeholder (the column it is compared with or written to).
fn bind<'a>(params: &'a [Value], types: &[Type]) -> Vec<&'a (dyn ToSql + Sync)> {
    params
        .iter()
        .enumerate()
        .map(|(index, value)| -> &(dyn ToSql + Sync) {
            match value {
                Value::Null if types.get(index).is_some_and(|ty| *ty == Type::INT8) => &NULL_INT,
                Value::Null => &NULL_TEXT,
                Value::Int(value) => value,
                Value::Text(text) => text,
            }
        })
        .collect()
}

impl Tx for PostgresTx<'_> {
    fn analyze(&mut self, table: &'static str) -> Result<(), StoreError> {
        self.tx
            .batch_execute(&format!("ANALYZE {table}"))
            .map_err(postgres)
    }

    fn execute(&mut self, sql: &Sql, params: &[Value]) -> Result<u64, StoreError> {
        let statement = self.statement(sql)?;
        self.tx
            .execute(&statement, &bind(params, statement.params()))
            .map_err(postgres)
    }

    fn try_execute(&mut self, sql: &Sql, params: &[Value]) -> Result<Option<u64>, StoreError> {
        let statement = self.statement(sql)?;
        match self
            .tx
            .execute(&statement, &bind(params, statement.params()))
        {
            Ok(changed) => Ok(Some(changed)),
            Err(error) if error.code() == Some(&SqlState::UNIQUE_VIOLATION) => Ok(None),
            Err(error) => Err(postgres(error)),
        }
    }

    /// One statement, one round trip: the insert as a data-modifying `WITH` before the
    /// update, both on the statement's snapshot. The insert runs even when the update
    /// changes no row, which the caller then rolls back; a unique index's refusal is told
    /// apart by the table it names.
    fn update_insert(
        &mut self,
        update: (&Sql, &[Value]),
        insert: (&Sql, &[Value]),
    ) -> Result<Paired, StoreError> {
        let text = format!(
            "WITH inserted AS ({}) {}",
            shifted(&insert.0.text, update.1.len()),
            update.0.text
        );
        let statement = self.statement(&Sql::built(text))?;
        let params: Vec<Value> = update.1.iter().chain(insert.1).cloned().collect();
        match self
            .tx
            .execute(&statement, &bind(&params, statement.params()))
        {
            Ok(changed) => Ok(Paired::Done(changed)),
            Err(error) if error.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                let table = error.as_db_error().and_then(|db| db.table());
                Ok(if table == Some("tasks") {
                    Paired::UpdateRefused
                } else {
                    Paired::InsertRefused
                })
            }
            Err(error) => Err(postgres(error)),
        }
    }

    fn query(&mut self, sql: &Sql, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql)?;
        let rows = self
            .tx
            .query(&statement, &bind(params, statement.params()))
            .map_err(postgres)?;
        rows.iter()
            .map(|row| {
                let mut values = Vec::with_capacity(row.len());
                for (index, column) in row.columns().iter().enumerate() {
                    let ty = column.type_();
                    let value = if *ty == Type::INT8 {
                        row.try_get::<_, Option<i64>>(index)
                            .map(|value| value.map_or(Value::Null, Value::Int))
                    } else if *ty == Type::INT4 {
                        row.try_get::<_, Option<i32>>(index)
                            .map(|value| value.map_or(Value::Null, |v| Value::Int(i64::from(v))))
                    } else {
                        row.try_get::<_, Option<String>>(index)
                            .map(|value| value.map_or(Value::Null, Value::Text))
                    };
                    values.push(value.map_err(postgres)?);
                }
                Ok(Row(values))
            })
            .collect()
    }
}

/// `text` with each placeholder `?N` written `?(N + by)`, for a statement that follows
/// `by` parameters of another in one.
fn shifted(text: &str, by: usize) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(at) = rest.find('?') {
        let (before, after) = rest.split_at(at);
        out.push_str(before);
        let digits = after
            .char_indices()
            .skip(1)
            .find(|(_, c)| !c.is_ascii_digit())
            .map_or(after.len(), |(index, _)| index);
        let (mark, tail) = after.split_at(digits);
        match mark
            .get(1..)
            .and_then(|number| number.parse::<usize>().ok())
        {
            Some(number) => out.push_str(&format!("?{}", number + by)),
            None => out.push_str(mark),
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// A PostgreSQL error; a serialization failure, a deadlock or a lock timeout is
/// [`StoreError::Busy`] (retry).
fn postgres(error: postgres::Error) -> StoreError {
    match error.code() {
        Some(code)
            if *code == SqlState::T_R_SERIALIZATION_FAILURE
                || *code == SqlState::T_R_DEADLOCK_DETECTED
                || *code == SqlState::LOCK_NOT_AVAILABLE =>
        {
            StoreError::Busy {
                reason: error.to_string(),
            }
        }
        _ => StoreError::Postgres(error),
    }
}

#[cfg(test)]
mod tests;
