//! The aggregate a write reads and writes back: a task and its current attempt, loaded
//! together and saved together under a compare-and-swap on the task's `resourceVersion`.

use std::sync::OnceLock;

use taskmodel::ErrorKind;
use taskmodel::ids::{TaskId, TenantId};
use taskmodel::task::{Task, TaskError, TaskRun};

use crate::columns::{
    TASK_COLUMN_NAMES, TASK_KEYS, TaskColumns, TaskKeys, attempt_values, int, owner_values,
    queue_position, read_attempt, read_task, task_keys,
};
use crate::error::StoreError;
use crate::floors::{self, Position};
use crate::tx::{Lock, Paired, Sql, Tx, Value};

const SELECT_TASK: Sql = Sql::new("SELECT doc FROM tasks WHERE tenant = ?1 AND id = ?2");
const SELECT_ATTEMPT: Sql =
    Sql::new("SELECT doc FROM attempts WHERE tenant = ?1 AND task_id = ?2 AND attempt = ?3");

/// A task and its current attempt as read, with the version the write will compare.
#[derive(Debug)]
pub(crate) struct Pair {
    pub(crate) task: Task,
    pub(crate) attempt: Option<TaskRun>,
    /// The task's version when read.
    pub(crate) version: u64,
    /// The task's key columns when read (what [`save`] compares to write only the columns
    /// that changed).
    pub(crate) keys: TaskKeys,
}

/// Reads the task and its current attempt; with `lock`, PostgreSQL holds the task row
/// until the transaction ends (SQLite's write transaction holds the database already).
pub(crate) fn load(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &TaskId,
    lock: Lock,
) -> Result<Pair, StoreError> {
    let rows = tx.query(
        &SELECT_TASK.clone().locking(lock),
        &[tenant.as_str().into(), id.as_str().into()],
    )?;
    let row = rows.first().ok_or_else(|| StoreError::NotFound {
        tenant: tenant.clone(),
        task: id.clone(),
    })?;
    let task = read_task(row, 0, tenant, Some(id))?;
    let attempt = current_attempt(tx, tenant, &task)?;
    let version = task.resource_version();
    let keys = task_keys(&task)?;
    Ok(Pair {
        task,
        attempt,
        version,
        keys,
    })
}

impl Pair {
    /// Writes the task back as [`save`] does, against the version and the key columns it
    /// was read with (only the columns that changed are written).
    pub(crate) fn save(
        &self,
        tx: &mut dyn Tx,
        tenant: &TenantId,
        attempt: AttemptWrite<'_>,
    ) -> Result<(), StoreError> {
        save(
            tx,
            tenant,
            self.version,
            Some(&self.keys),
            &self.task,
            attempt,
        )
    }
}

/// The task's current attempt (`None` before the first).
pub(crate) fn current_attempt(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    task: &Task,
) -> Result<Option<TaskRun>, StoreError> {
    let number = task.status().attempt();
    if number == 0 {
        return Ok(None);
    }
    let id = task.id();
    let rows = tx.query(
        &SELECT_ATTEMPT,
        &[
            tenant.as_str().into(),
            id.as_str().into(),
            Value::Int(i64::from(number)),
        ],
    )?;
    let row = rows.first().ok_or_else(|| StoreError::Corrupt {
        what: format!("task \"{id}\" of tenant \"{tenant}\""),
        reason: format!("its current attempt {number} is not stored"),
    })?;
    Ok(Some(read_attempt(row, 0, tenant)?))
}

/// What to write of the attempt beside the task.
pub(crate) enum AttemptWrite<'a> {
    /// Nothing: only the task changed.
    None,
    /// A new attempt, holding place `runner_slot` of its runner.
    Insert(&'a TaskRun, i64),
    /// The current attempt changed.
    Update(&'a TaskRun),
}

/// The most rows one `INSERT` of [`insert_tasks`] writes (18 placeholders each, and 6 for
/// each of at most 16 owners, well under both engines' limits).
const INSERT_ROWS: usize = 100;

/// Inserts new tasks with their owner references, up to [`INSERT_ROWS`] per statement; an
/// id or a uid the tenant already uses is [`StoreError::Exists`] (naming the first task of
/// the statement that failed).
pub(crate) fn insert_tasks(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    tasks: &[Task],
) -> Result<(), StoreError> {
    let floors = tx.keeps_queue_floors();
    // The first of the new pending tasks in queue order, for the tenant's queue floor.
    let mut first: Option<Position> = None;
    for chunk in tasks.chunks(INSERT_ROWS) {
        let mut rows = Vec::with_capacity(chunk.len());
        for task in chunk {
            let columns = TaskColumns::of(task)?;
            if floors
                && let Some(position) = queue_position(columns.keys(), task.id().as_str())
                && first.as_ref().is_none_or(|first| position.before(first))
            {
                first = Some(position);
            }
            let mut row = vec![tenant.as_str().into(), task.id().as_str().into()];
            row.extend(columns.into_values());
            rows.push(row);
        }
        if tx
            .try_execute(
                &insert("tasks", &TASK_COLUMN_NAMES, rows.len()),
                &rows.concat(),
            )?
            .is_none()
            && let Some(first) = chunk.first()
        {
            return Err(StoreError::Exists {
                tenant: tenant.clone(),
                task: first.id().clone(),
            });
        }
        let owners: Vec<Vec<Value>> = chunk
            .iter()
            .flat_map(|task| {
                owner_values(task).map(move |values| {
                    let mut row = vec![tenant.as_str().into(), task.id().as_str().into()];
                    row.extend(values);
                    row
                })
            })
            .collect();
        for rows in owners.chunks(INSERT_ROWS) {
            let columns = [
                "tenant",
                "task_id",
                "owner_uid",
                "owner_kind",
                "owner_name",
                "controller",
            ];
            tx.execute(&insert("task_owners", &columns, rows.len()), &rows.concat())?;
        }
    }
    match first {
        Some(position) => floors::lower(tx, tenant, position),
        None => Ok(()),
    }
}

/// `INSERT INTO table (columns) VALUES (?1, ...), ...` for `rows` rows.
fn insert(table: &str, columns: &[&str], rows: usize) -> Sql {
    let mut sql = format!("INSERT INTO {table} ({}) VALUES ", columns.join(", "));
    for row in 0..rows {
        let first = row * columns.len() + 1;
        let marks: Vec<String> = (first..first + columns.len())
            .map(|n| format!("?{n}"))
            .collect();
        sql.push_str(if row == 0 { "(" } else { ", (" });
        sql.push_str(&marks.join(", "));
        sql.push(')');
    }
    Sql::built(sql)
}

/// Which of a task's [`TaskKeys`] an update writes: bit `k` for key `k`.
type Changed = u16;

/// Update texts kept: more than the sets of changed keys a store's writes use (a claim,
/// a start, a heartbeat, a result, a cancel, an expiry each change a few keys, always the
/// same ones); a set past them is formatted at each of its writes.
const KEPT_UPDATE_TEXTS: usize = 64;

/// The text of each update of a task, with the keys it writes, built the first time a
/// write needs it: 64 slots of a few words, whatever the number of possible sets (2^15).
static UPDATE_TEXTS: KeptTexts<KEPT_UPDATE_TEXTS> = KeptTexts::new();

/// Texts by the set of keys they write, each in the slot its set hashes to or the next
/// free one after it; `N` sets at most, others built at each call.
struct KeptTexts<const N: usize>([OnceLock<(Changed, String)>; N]);

impl<const N: usize> KeptTexts<N> {
    /// No text kept yet.
    const fn new() -> Self {
        Self([const { OnceLock::new() }; N])
    }

    /// The text for `changed`: kept, or built by `build` and kept while a slot is free.
    fn get(&'static self, changed: Changed, build: impl Fn() -> String) -> Sql {
        // A multiplicative hash of the set: sets differing in any key start apart.
        let home = (u32::from(changed).wrapping_mul(0x9E37_79B1) >> 16) as usize;
        for probe in 0..N {
            let Some(slot) = self.0.get(home.wrapping_add(probe) % N) else {
                break;
            };
            // The first write of a set takes a free slot; a slot another set took is passed.
            let (set, text) = slot.get_or_init(|| (changed, build()));
            if *set == changed {
                return Sql::new(text);
            }
        }
        Sql::built(build())
    }
}

/// The update of a task that writes the keys in `changed` (each as the next placeholder
/// after `?1` = tenant and `?2` = id, in key order) and the document, if the stored
/// version is the next placeholder's.
fn update_task(changed: Changed) -> Sql {
    UPDATE_TEXTS.get(changed, || update_text(changed))
}

/// The text of [`update_task`], formatted.
fn update_text(changed: Changed) -> String {
    let mut sql = String::from("UPDATE tasks SET ");
    let mut next = 3;
    let names = TASK_COLUMN_NAMES.iter().skip(2).take(TASK_KEYS);
    for (index, name) in names.enumerate() {
        if changed & (1 << index) != 0 {
            sql.push_str(&format!("{name} = ?{next}, "));
            next += 1;
        }
    }
    sql.push_str(&format!(
        "doc = ?{next} WHERE tenant = ?1 AND id = ?2 AND resource_version = ?{}",
        next + 1
    ));
    sql
}

/// Writes the task back if its stored version is still `version` (the compare-and-swap),
/// then the attempt; a lost race, or a unique index that refuses the pair (a second running
/// task in a slot, a runner place or an active attempt taken meanwhile), is
/// [`StoreError::Conflict`] and the transaction must end. Given the task's keys as read
/// (`before`), only the columns that changed are written with the document, so SQLite
/// leaves the indexes over the others untouched (it rewrites every index on a column an
/// `UPDATE` sets, whatever the value).
pub(crate) fn save(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    version: u64,
    before: Option<&TaskKeys>,
    task: &Task,
    attempt: AttemptWrite<'_>,
) -> Result<(), StoreError> {
    const INSERT_ATTEMPT: Sql = Sql::new(
        "INSERT INTO attempts (tenant, task_id, attempt, runner_slot, runner, state, \
         lease_expires_ns, doc) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    );
    const UPDATE_ATTEMPT: Sql = Sql::new(
        "UPDATE attempts SET runner = ?4, state = ?5, lease_expires_ns = ?6, doc = ?7 \
         WHERE tenant = ?1 AND task_id = ?2 AND attempt = ?3",
    );
    let conflict = |reason: &str| StoreError::Conflict {
        tenant: tenant.clone(),
        task: task.id().clone(),
        reason: reason.to_owned(),
    };
    let (keys, doc) = TaskColumns::of(task)?.into_parts();
    // A task made pending, or moved in the queue, may be before the tenant's queue floor.
    if tx.keeps_queue_floors()
        && let Some(position) = queue_position(&keys, task.id().as_str())
        && before
            .and_then(|before| queue_position(before, task.id().as_str()))
            .as_ref()
            != Some(&position)
    {
        floors::lower(tx, tenant, position)?;
    }
    let mut params = vec![tenant.as_str().into(), task.id().as_str().into()];
    let mut changed_keys: Changed = 0;
    for (index, value) in keys.into_iter().enumerate() {
        if before.and_then(|before| before.get(index)) != Some(&value) {
            params.push(value);
            changed_keys |= 1 << index;
        }
    }
    params.push(Value::Text(doc));
    params.push(Value::Int(int("metadata.resourceVersion", version)?));
    let update = update_task(changed_keys);
    let key = |run: &TaskRun| -> [Value; 3] {
        [
            tenant.as_str().into(),
            run.task_id().as_str().into(),
            Value::Int(i64::from(run.attempt())),
        ]
    };
    let changed = if let AttemptWrite::Insert(run, runner_slot) = &attempt {
        let mut values = key(run).to_vec();
        values.push(Value::Int(*runner_slot));
        values.extend(attempt_values(run)?);
        match tx.update_insert((&update, &params), (&INSERT_ATTEMPT, &values))? {
            Paired::Done(changed) => Some(changed),
            Paired::UpdateRefused => None,
            Paired::InsertRefused => {
                return Err(conflict(
                    "the runner's place or the task's attempt was taken",
                ));
            }
        }
    } else {
        tx.try_execute(&update, &params)?
    };
    match changed {
        Some(1) => {}
        Some(_) => {
            return Err(conflict(&format!(
                "the task is no longer at version {version}"
            )));
        }
        None => return Err(conflict("another task of its slot is running")),
    }
    match attempt {
        AttemptWrite::None | AttemptWrite::Insert(..) => Ok(()),
        AttemptWrite::Update(run) => {
            let mut params = key(run).to_vec();
            params.extend(attempt_values(run)?);
            tx.execute(&UPDATE_ATTEMPT, &params)?;
            Ok(())
        }
    }
}

/// The store's error for a change the model refused: a stale lease is
/// [`StoreError::Gone`]; a stale read (the caller's expected version, or a pair that no
/// longer agrees) is [`StoreError::Conflict`], retryable; anything else is
/// [`StoreError::Rejected`].
pub(crate) fn refused(tenant: &TenantId, id: &TaskId, error: TaskError) -> StoreError {
    let (tenant, task) = (tenant.clone(), id.clone());
    match error {
        TaskError::Conflict { .. } | TaskError::AttemptMismatch { .. } => StoreError::Conflict {
            tenant,
            task,
            reason: error.to_string(),
        },
        error if error.kind() == ErrorKind::Gone => StoreError::Gone {
            tenant,
            task,
            error: Box::new(error.into()),
        },
        error => StoreError::Rejected {
            tenant,
            task,
            error: Box::new(error.into()),
        },
    }
}

#[cfg(test)]
mod tests;
