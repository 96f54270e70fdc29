//! `Tx`: the little one transaction of either engine offers (run a statement, read rows),
//! so every operation is written once over it, and the values that cross it.

use std::borrow::Cow;

use crate::error::StoreError;

/// A statement: its text (placeholders `?1`, `?2`...; the PostgreSQL engine writes them
/// `$1`, `$2`...) and the row lock PostgreSQL adds to a `SELECT` in a write transaction
/// (SQLite locks the whole database for a write transaction instead).
#[derive(Debug, Clone)]
pub(crate) struct Sql {
    pub(crate) text: Cow<'static, str>,
    pub(crate) lock: Lock,
}

impl Sql {
    /// A statement without a row lock.
    pub(crate) const fn new(text: &'static str) -> Self {
        Self::locked(text, Lock::None)
    }

    /// A `SELECT` that locks the rows it reads with `lock` on PostgreSQL.
    pub(crate) const fn locked(text: &'static str, lock: Lock) -> Self {
        Self {
            text: Cow::Borrowed(text),
            lock,
        }
    }

    /// A statement built at run time (a listing with its filters).
    pub(crate) fn built(text: String) -> Self {
        Self {
            text: Cow::Owned(text),
            lock: Lock::None,
        }
    }

    /// The same `SELECT`, locking the rows it reads with `lock` on PostgreSQL.
    pub(crate) fn locking(self, lock: Lock) -> Self {
        Self {
            text: self.text,
            lock,
        }
    }
}

/// Where in a statement's text PostgreSQL's lock clause goes when it locks the rows of a
/// subquery, not of the whole statement (a comment to SQLite); without it the clause is
/// appended.
pub(crate) const LOCK_HERE: &str = "/*lock*/";

/// The row lock a `SELECT` takes on PostgreSQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Lock {
    /// No lock.
    None,
    /// `FOR UPDATE`: the rows are this transaction's until it ends; others wait.
    Update,
    /// `FOR UPDATE SKIP LOCKED`: rows another transaction holds are left out, so concurrent
    /// claims take different tasks instead of waiting for each other.
    SkipLocked,
}

impl Lock {
    /// The clause PostgreSQL appends.
    pub(crate) const fn clause(self) -> &'static str {
        match self {
            Self::None => "",
            Self::Update => " FOR UPDATE",
            Self::SkipLocked => " FOR UPDATE SKIP LOCKED",
        }
    }
}

/// A value bound to a placeholder or read from a column: every column is a 64-bit integer
/// or text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// SQL `NULL`.
    Null,
    /// A 64-bit integer (`INTEGER` in SQLite, `BIGINT` in PostgreSQL).
    Int(i64),
    /// Text.
    Text(String),
}

impl From<i64> for Value {
    fn from(value: i64) -> Self {
        Self::Int(value)
    }
}

impl From<Option<i64>> for Value {
    fn from(value: Option<i64>) -> Self {
        value.map_or(Self::Null, Self::Int)
    }
}

impl From<&str> for Value {
    fn from(value: &str) -> Self {
        Self::Text(value.to_owned())
    }
}

impl From<String> for Value {
    fn from(value: String) -> Self {
        Self::Text(value)
    }
}

/// One row read: its columns in `SELECT` order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row(pub(crate) Vec<Value>);

impl Row {
    /// Column `index` as an integer.
    pub(crate) fn int(&self, index: usize) -> Result<i64, StoreError> {
        match self.0.get(index) {
            Some(Value::Int(value)) => Ok(*value),
            other => Err(column(index, "an integer", other)),
        }
    }

    /// Column `index` as an integer, or `None` for `NULL`.
    pub(crate) fn optional_int(&self, index: usize) -> Result<Option<i64>, StoreError> {
        match self.0.get(index) {
            Some(Value::Null) => Ok(None),
            _ => self.int(index).map(Some),
        }
    }

    /// Column `index` as text.
    pub(crate) fn text(&self, index: usize) -> Result<&str, StoreError> {
        match self.0.get(index) {
            Some(Value::Text(value)) => Ok(value),
            other => Err(column(index, "text", other)),
        }
    }
}

fn column(index: usize, expected: &str, found: Option<&Value>) -> StoreError {
    StoreError::Corrupt {
        what: format!("column {index}"),
        reason: format!("expected {expected}, found {found:?}"),
    }
}

/// What [`Tx::update_insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Paired {
    /// Both ran (the insert only if the update changed a row); how many rows the update
    /// changed.
    Done(u64),
    /// A unique index refused the update.
    UpdateRefused,
    /// A unique index refused the insert.
    InsertRefused,
}

/// What one transaction of an engine offers. Both engines run every statement through
/// these two methods, so an operation is written once and runs unchanged on both.
pub(crate) trait Tx {
    /// Runs a statement that returns no rows; returns how many rows it changed. A lock the
    /// database gave up waiting for, a deadlock or a serialization failure is
    /// [`StoreError::Busy`].
    fn execute(&mut self, sql: &Sql, params: &[Value]) -> Result<u64, StoreError>;

    /// Like [`execute`](Self::execute), but a unique index that refuses the write answers
    /// `Ok(None)` instead of an error, so the caller can say which race was lost.
    fn try_execute(&mut self, sql: &Sql, params: &[Value]) -> Result<Option<u64>, StoreError>;

    /// Runs a `SELECT` and returns its rows.
    fn query(&mut self, sql: &Sql, params: &[Value]) -> Result<Vec<Row>, StoreError>;

    /// Runs two `SELECT`s and returns the rows of each. PostgreSQL sends them together (and
    /// the transaction's `BEGIN` with them when they are its first statements), one round
    /// trip instead of two; SQLite runs one after the other.
    fn query_pair(
        &mut self,
        first: (&Sql, &[Value]),
        second: (&Sql, &[Value]),
    ) -> Result<(Vec<Row>, Vec<Row>), StoreError> {
        let first = self.query(first.0, first.1)?;
        let second = self.query(second.0, second.1)?;
        Ok((first, second))
    }

    /// Runs `update`, then `insert` when the update changed a row, as
    /// [`try_execute`](Self::try_execute) runs each: how many rows the update changed, or
    /// which of the two a unique index refused. PostgreSQL sends both as one statement (the
    /// insert reads the row the update returns, so it inserts nothing when the update
    /// changed nothing), and in a claim's transaction the `COMMIT` with it (`postgres.rs`):
    /// after it, nothing more runs in the transaction.
    fn update_insert(
        &mut self,
        update: (&Sql, &[Value]),
        insert: (&Sql, &[Value]),
    ) -> Result<Paired, StoreError> {
        match self.try_execute(update.0, update.1)? {
            None => Ok(Paired::UpdateRefused),
            Some(0) => Ok(Paired::Done(0)),
            Some(changed) => match self.try_execute(insert.0, insert.1)? {
                None => Ok(Paired::InsertRefused),
                Some(_) => Ok(Paired::Done(changed)),
            },
        }
    }

    /// Whether writes keep the queue floors of `floors.rs` (PostgreSQL, whose index entries
    /// of claimed tasks stay until a vacuum; not SQLite, which removes them at once).
    fn keeps_queue_floors(&self) -> bool {
        false
    }

    /// Refreshes the planner's statistics of `table` after a bulk load, where the engine
    /// needs it: PostgreSQL plans a fresh table it has not analyzed as if it held a few
    /// rows (a sort of the whole queue instead of a walk of its index); SQLite's planner
    /// takes the indexes without statistics.
    fn analyze(&mut self, table: &'static str) -> Result<(), StoreError>;
}
