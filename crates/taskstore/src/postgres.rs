//! `PostgresStore`: the engine for teams that outgrow one machine (and for
//! PostgreSQL-compatible distributed engines).
//!
//! It talks to the server through tokio-postgres (the asynchronous client the synchronous
//! `postgres` crate wraps), driven on the calling thread by a runtime of its own, so a
//! transaction can send statements together instead of waiting for each answer: its
//! `BEGIN` goes with its first statement, a claim's two first reads go together, and a
//! claim's `COMMIT` goes with its write (two round trips a claim instead of five).

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::num::NonZeroU32;
use std::pin::pin;
use std::task::Poll;

use tokio::runtime::{Builder, Runtime};
use tokio_postgres::error::SqlState;
use tokio_postgres::tls::NoTlsStream;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Connection, NoTls, Socket, Statement};

use taskmodel::ids::TenantId;

use crate::claim;
use crate::engine::Engine;
use crate::error::StoreError;
use crate::floors::{self, DEFAULT_QUEUE_FLOOR_INTERVAL};
use crate::schema::{VERSION_TABLE, pending};
use crate::tx::{LOCK_HERE, Lock, Paired, Row, Sql, Tx, Value};
use crate::values::{ClaimRequest, Claimed};

/// Prepared statements kept per connection before the cache starts over.
const STATEMENT_CACHE: usize = 256;

/// The most tenants one connection counts claims of for their queue floors before the
/// counts start over.
const FLOOR_TENANTS: usize = 256;

/// The advisory lock key that serializes migrations of one database.
const MIGRATION_LOCK: i64 = 0x7461_736b_7374_6f72; // "taskstor"

/// How a write transaction, and a read one, begin.
const BEGIN_WRITE: &str = "BEGIN";
const BEGIN_READ: &str = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

/// The PostgreSQL engine: one connection, the same schema and the same code as
/// [`SqliteStore`](crate::SqliteStore).
///
/// Write transactions run at `READ COMMITTED`: a write reads the task `FOR UPDATE` (the row
/// is the transaction's until it ends) and writes it back with a compare-and-swap on its
/// version; a claim reads the queue `FOR UPDATE SKIP LOCKED`, so concurrent claims take
/// different tasks instead of waiting for each other. Reads run in a read-only
/// `REPEATABLE READ` transaction (one snapshot for a whole listing). One value holds one
/// connection: give each thread its own.
///
/// A claim reads the queue from the tenant's queue floor on: a position no pending task is
/// before, which writes that make a task pending lower and claiming connections move up
/// every so many claims ([`set_queue_floor_interval`](Self::set_queue_floor_interval)), so
/// that a claim does not step over the index entries of every task claimed since the last
/// vacuum (`docs/ARCHITECTURE.md`, "Queue floors").
pub struct PostgresStore {
    link: Link,
    statements: Statements,
    /// Claims between two tries to move a tenant's floor up.
    floor_interval: NonZeroU32,
    /// This connection's claims of each tenant since its last try.
    floor_claims: HashMap<TenantId, u32>,
}

/// The connection's prepared statements by lock and text (looked up by the borrowed text,
/// without copying it).
type Statements = HashMap<Lock, HashMap<String, Statement>>;

/// A connection to the server: the client that sends requests, the connection that
/// carries them, and the runtime that drives both on the calling thread for the time of
/// each call ([`drive`]).
struct Link {
    runtime: Runtime,
    client: Client,
    /// `None` once the connection has ended.
    connection: Option<Connection<Socket, NoTlsStream>>,
}

impl Link {
    /// Runs `request` (given the client) to its end ([`drive`]).
    fn run<T>(
        &mut self,
        request: impl AsyncFnOnce(&Client) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let Self {
            runtime,
            client,
            connection,
        } = self;
        let client = &*client;
        drive(runtime, connection, request(client))
    }
}

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

/// Runs `future` (requests of `connection`'s client) to its end on `runtime`, polling the
/// connection before it each time, as the synchronous `postgres` client does: requests go
/// out, answers come in, notices are dropped.
fn drive<T>(
    runtime: &Runtime,
    connection: &mut Option<Connection<Socket, NoTlsStream>>,
    future: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    let mut future = pin!(future);
    runtime.block_on(poll_fn(|cx| {
        while let Some(open) = connection.as_mut() {
            match open.poll_message(cx) {
                Poll::Ready(Some(Ok(_))) => {}
                Poll::Ready(Some(Err(error))) => {
                    *connection = None;
                    return Poll::Ready(Err(postgres(error)));
                }
                // The connection has ended: dropping it ends the requests still waiting.
                Poll::Ready(None) => *connection = None,
                Poll::Pending => break,
            }
        }
        match future.as_mut().poll(cx) {
            Poll::Ready(result) => Poll::Ready(result),
            Poll::Pending if connection.is_none() => Poll::Ready(Err(StoreError::Busy {
                reason: "the connection to PostgreSQL has ended".to_owned(),
            })),
            Poll::Pending => Poll::Pending,
        }
    }))
}

/// Both futures polled together, so the requests of both go out before either answer is
/// awaited (tokio-postgres sends a request when its future is first polled, and answers
/// them in order).
async fn both<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (pin!(a), pin!(b));
    let (mut first, mut second) = (None, None);
    poll_fn(move |cx| {
        if first.is_none()
            && let Poll::Ready(value) = a.as_mut().poll(cx)
        {
            first = Some(value);
        }
        if second.is_none()
            && let Poll::Ready(value) = b.as_mut().poll(cx)
        {
            second = Some(value);
        }
        match (first.take(), second.take()) {
            (Some(a), Some(b)) => Poll::Ready((a, b)),
            (a, b) => {
                (first, second) = (a, b);
                Poll::Pending
            }
        }
    })
    .await
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
        let runtime = Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| StoreError::Busy {
                reason: format!("no runtime for the PostgreSQL client: {error}"),
            })?;
        let (client, open) = runtime
            .block_on(tokio_postgres::connect(url, NoTls))
            .map_err(postgres)?;
        let mut store = Self {
            link: Link {
                runtime,
                client,
                connection: Some(open),
            },
            statements: HashMap::new(),
            floor_interval: NonZeroU32::new(DEFAULT_QUEUE_FLOOR_INTERVAL)
                .unwrap_or(NonZeroU32::MIN),
            floor_claims: HashMap::new(),
        };
        store.migrate()?;
        Ok(store)
    }

    /// Sets how many of its claims of one tenant this connection makes between two tries to
    /// move the tenant's queue floor up to its first pending task (by default
    /// [`DEFAULT_QUEUE_FLOOR_INTERVAL`]). A try is a small transaction after the claim's;
    /// it does nothing while a transaction that makes one of the tenant's tasks pending is
    /// open, and its failure leaves the floor where it was (the claim has committed, and
    /// its answer stands). The first claim of a tenant on a connection tries too. Between
    /// two tries, a claim's read of the queue steps over at most the index entries of the
    /// claims made since the last one; 1 tries after every claim.
    pub fn set_queue_floor_interval(&mut self, claims: NonZeroU32) {
        self.floor_interval = claims;
    }

    /// Counts a claim of `tenant`: whether this one is due to try moving its floor up (the
    /// first of the tenant's claims on this connection, then every interval's).
    fn floor_due(&mut self, tenant: &TenantId) -> bool {
        if let Some(count) = self.floor_claims.get_mut(tenant) {
            *count += 1;
            if *count >= self.floor_interval.get() {
                *count = 0;
                return true;
            }
            return false;
        }
        // A tenant's first claim on this connection tries at once: a connection that
        // starts (or a tenant it has not claimed for) may find the floor far behind.
        if self.floor_claims.len() >= FLOOR_TENANTS {
            self.floor_claims.clear();
        }
        self.floor_claims.insert(tenant.clone(), 0);
        true
    }

    /// Applies the migrations the database lacks, in one transaction.
    fn migrate(&mut self) -> Result<(), StoreError> {
        self.transaction(BEGIN_WRITE, false, |tx| {
            let lock = [Value::Int(MIGRATION_LOCK)];
            tx.query(&Sql::new("SELECT pg_advisory_xact_lock(?1)::text"), &lock)?;
            tx.batch(VERSION_TABLE)?;
            let found = tx.query(
                &Sql::new("SELECT COALESCE(max(version), 0) FROM schema_version"),
                &[],
            )?;
            let found = found.first().map_or(Ok(0), |row| row.int(0))?;
            for migration in pending(found)? {
                tx.batch(migration.postgres)?;
                if let Some(fill) = migration.fill {
                    fill(tx)?;
                }
                tx.execute(&Sql::new("DELETE FROM schema_version"), &[])?;
                tx.execute(
                    &Sql::new("INSERT INTO schema_version (version) VALUES (?1)"),
                    &[Value::Int(migration.version)],
                )?;
            }
            Ok(())
        })
    }

    /// Runs `f` in a transaction that `begin` opens (sent with its first statement) and
    /// commits when `f` returns `Ok`, unless it ended already (a claim's write commits with
    /// its `COMMIT`, `commit_with_pair`); an error rolls it back.
    fn transaction<T>(
        &mut self,
        begin: &'static str,
        commit_with_pair: bool,
        f: impl FnOnce(&mut PostgresTx<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let Self {
            link, statements, ..
        } = self;
        let mut tx = PostgresTx {
            link,
            statements,
            begin: Some(begin),
            ended: false,
            commit_with_pair,
        };
        let result = f(&mut tx);
        let open = tx.begin.is_none() && !tx.ended;
        match result {
            Ok(value) if open => {
                tx.link
                    .run(async |client| client.batch_execute("COMMIT").await.map_err(postgres))?;
                Ok(value)
            }
            Ok(value) => Ok(value),
            Err(error) => {
                if open {
                    // The error is the answer; a rollback that fails (a connection gone)
                    // leaves nothing behind either.
                    let _ = tx.link.run(async |client| {
                        client.batch_execute("ROLLBACK").await.map_err(postgres)
                    });
                }
                Err(error)
            }
        }
    }
}

impl Engine for PostgresStore {
    fn read<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.transaction(BEGIN_READ, false, |tx| f(tx))
    }

    fn write<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.transaction(BEGIN_WRITE, false, |tx| f(tx))
    }

    /// A claim in two round trips: `BEGIN`, the runner's places and the head of the queue
    /// together, then the task's compare-and-swap with the attempt's insert and the
    /// `COMMIT` together.
    fn write_claim(
        &mut self,
        tenant: &taskmodel::ids::TenantId,
        request: &ClaimRequest,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<Claimed>, StoreError> {
        let claimed = self.transaction(BEGIN_WRITE, true, |tx| {
            claim::claim(tx, tenant, request, now)
        })?;
        if claimed.is_some() && self.floor_due(tenant) {
            // The claim has committed: a failed try leaves the floor lower than it could be,
            // which is allowed, and a connection that ended fails the next call.
            let _ = self.transaction(BEGIN_WRITE, false, |tx| floors::advance(tx, tenant));
        }
        Ok(claimed)
    }
}

/// A PostgreSQL transaction with the connection's statement cache; the engine commits or
/// rolls it back ([`PostgresStore::transaction`]).
struct PostgresTx<'c> {
    link: &'c mut Link,
    statements: &'c mut Statements,
    /// The `BEGIN` not sent yet: it goes with the transaction's first statement.
    begin: Option<&'static str>,
    /// Whether the transaction has ended already (committed with its last write).
    ended: bool,
    /// Whether [`Tx::update_insert`] sends the `COMMIT` with its statement (a claim's
    /// transaction, whose last write it is).
    commit_with_pair: bool,
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
        let text = sql.text.replace('?', "$");
        let text = if text.contains(LOCK_HERE) {
            text.replace(LOCK_HERE, sql.lock.clause())
        } else {
            format!("{text}{}", sql.lock.clause())
        };
        let statement = self
            .link
            .run(async |client| client.prepare(&text).await.map_err(postgres))?;
        if self.statements.values().map(HashMap::len).sum::<usize>() >= STATEMENT_CACHE {
            self.statements.clear();
        }
        self.statements
            .entry(sql.lock)
            .or_default()
            .insert(sql.text.clone().into_owned(), statement.clone());
        Ok(statement)
    }

    /// Refuses a statement after the transaction ended with a claim's write.
    fn check_open(&self) -> Result<(), StoreError> {
        if self.ended {
            return Err(StoreError::Busy {
                reason: "a statement after its transaction's commit".to_owned(),
            });
        }
        Ok(())
    }

    /// Runs `request` (given the client) to its end, after the transaction's `BEGIN` when it
    /// has not been sent: the `BEGIN` then goes with it, and an error of either is the answer.
    fn send<T>(
        &mut self,
        request: impl AsyncFnOnce(&Client) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.check_open()?;
        let begin = self.begin.take();
        self.link.run(async move |client| match begin {
            Some(begin) => {
                let (begun, answer) = both(client.batch_execute(begin), request(client)).await;
                begun.map_err(postgres)?;
                answer
            }
            None => request(client).await,
        })
    }

    /// Runs a batch of statements without parameters (a migration's).
    fn batch(&mut self, text: &str) -> Result<(), StoreError> {
        self.send(async |client| client.batch_execute(text).await.map_err(postgres))
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

/// The rows of a `SELECT` as [`Row`]s.
fn rows(rows: &[tokio_postgres::Row]) -> Result<Vec<Row>, StoreError> {
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

/// Whether `error` is a unique index's refusal.
fn unique_violation(error: &tokio_postgres::Error) -> bool {
    error.code() == Some(&SqlState::UNIQUE_VIOLATION)
}

impl Tx for PostgresTx<'_> {
    fn keeps_queue_floors(&self) -> bool {
        true
    }

    fn analyze(&mut self, table: &'static str) -> Result<(), StoreError> {
        self.batch(&format!("ANALYZE {table}"))
    }

    fn execute(&mut self, sql: &Sql, params: &[Value]) -> Result<u64, StoreError> {
        let statement = self.statement(sql)?;
        let params = bind(params, statement.params());
        self.send(async |client| client.execute(&statement, &params).await.map_err(postgres))
    }

    fn try_execute(&mut self, sql: &Sql, params: &[Value]) -> Result<Option<u64>, StoreError> {
        let statement = self.statement(sql)?;
        let params = bind(params, statement.params());
        self.send(
            async |client| match client.execute(&statement, &params).await {
                Ok(changed) => Ok(Some(changed)),
                Err(error) if unique_violation(&error) => Ok(None),
                Err(error) => Err(postgres(error)),
            },
        )
    }

    fn query(&mut self, sql: &Sql, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql)?;
        let params = bind(params, statement.params());
        self.send(async |client| {
            let found = client.query(&statement, &params).await.map_err(postgres)?;
            rows(&found)
        })
    }

    /// Both `SELECT`s sent together (with the `BEGIN`, when they are the transaction's
    /// first statements): one round trip.
    fn query_pair(
        &mut self,
        first: (&Sql, &[Value]),
        second: (&Sql, &[Value]),
    ) -> Result<(Vec<Row>, Vec<Row>), StoreError> {
        let (one, two) = (self.statement(first.0)?, self.statement(second.0)?);
        let (one_params, two_params) = (bind(first.1, one.params()), bind(second.1, two.params()));
        self.send(async |client| {
            let (a, b) = both(
                client.query(&one, &one_params),
                client.query(&two, &two_params),
            )
            .await;
            Ok((rows(&a.map_err(postgres)?)?, rows(&b.map_err(postgres)?)?))
        })
    }

    /// One statement, one round trip: the update as a data-modifying `WITH` returning the
    /// row it changed, and the insert of a row for each row it returns (none when the
    /// compare-and-swap failed: nothing is written then). In a claim's transaction the
    /// `COMMIT` goes with it, and the transaction has ended when this returns (a refused
    /// statement has rolled it back). A unique index's refusal is told apart by the table
    /// it names.
    fn update_insert(
        &mut self,
        update: (&Sql, &[Value]),
        insert: (&Sql, &[Value]),
    ) -> Result<Paired, StoreError> {
        let shifted_insert = shifted(&insert.0.text, update.1.len());
        let Some(insert_text) = from_updated(&shifted_insert) else {
            return Err(StoreError::Corrupt {
                what: "an insert statement".to_owned(),
                reason: format!("not of the form INSERT ... VALUES (...): {}", insert.0.text),
            });
        };
        let text = format!(
            "WITH updated AS ({} RETURNING 1) {insert_text}",
            update.0.text
        );
        let statement = self.statement(&Sql::built(text))?;
        let values: Vec<Value> = update.1.iter().chain(insert.1).cloned().collect();
        let params = bind(&values, statement.params());
        let commit = self.commit_with_pair;
        let answer = self.send(async |client| {
            let written = client.execute(&statement, &params);
            if commit {
                let (written, committed) = both(written, client.batch_execute("COMMIT")).await;
                // A refused statement aborts the transaction, and its `COMMIT` then rolls
                // back: the statement's answer says what happened.
                if written.is_ok() {
                    committed.map_err(postgres)?;
                }
                Ok(written)
            } else {
                Ok(written.await)
            }
        });
        if commit {
            self.ended = true;
        }
        match answer? {
            Ok(changed) => Ok(Paired::Done(changed)),
            Err(error) if unique_violation(&error) => {
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
}

/// `INSERT INTO t (columns) VALUES (values)` as `INSERT INTO t (columns) SELECT values FROM
/// updated`: one row for each row the `WITH` named `updated` returns.
fn from_updated(insert: &str) -> Option<String> {
    let (head, tail) = insert.split_once(" VALUES (")?;
    let values = tail.strip_suffix(')')?;
    Some(format!("{head} SELECT {values} FROM updated"))
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
fn postgres(error: tokio_postgres::Error) -> StoreError {
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
