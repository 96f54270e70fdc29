//! Whole tasks: create (after the slot's admission policy), apply a new desired state, get,
//! delete.

use chrono::{DateTime, Utc};
use taskmodel::ids::{TaskId, TenantId};
use taskmodel::task::task::{AdmissionDecision, admit};
use taskmodel::task::{Applied, ApplyChanges, Precondition, Task, TaskManifest, TaskPhase};

use crate::attempts;
use crate::columns::{owner_values, read_task};
use crate::error::StoreError;
use crate::pair::{AttemptWrite, insert_tasks, load, refused};
use crate::store::MAX_IMPORT;
use crate::tx::{Lock, Sql, Tx, Value};
use crate::values::{Admitted, Change, Stored};

/// How many of a slot's unfinished tasks `replace` cancels per read.
const REPLACE_BATCH: i64 = 100;

/// [`Store::create`](crate::Store::create).
pub(crate) fn create(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    task: &Task,
    now: DateTime<Utc>,
) -> Result<Admitted, StoreError> {
    // The slot's task that decides admission: its running task, else its oldest pending one.
    const ACTIVE: Sql = Sql::new(
        "SELECT doc FROM tasks WHERE tenant = ?1 AND slot = ?2 \
         AND phase IN ('pending', 'running') \
         ORDER BY CASE phase WHEN 'running' THEN 0 ELSE 1 END, created_ns, id LIMIT 1",
    );
    check_new(tenant, task)?;
    let slot = task.spec().slot();
    let rows = tx.query(&ACTIVE, &[tenant.as_str().into(), slot.as_str().into()])?;
    let active = rows
        .first()
        .map(|row| read_task(row, 0, tenant, None))
        .transpose()?;
    let mut replaced = Vec::new();
    match admit(active.as_ref(), task.spec().admission()) {
        AdmissionDecision::Drop => {
            let active = active
                .map(|task| task.id().clone())
                .unwrap_or_else(|| task.id().clone());
            return Ok(Admitted::Dropped { active });
        }
        AdmissionDecision::Replace(_) => replaced = cancel_slot(tx, tenant, task, now)?,
        _ => {}
    }
    insert_tasks(tx, tenant, std::slice::from_ref(task))?;
    Ok(Admitted::Created { replaced })
}

/// [`Store::import`](crate::Store::import).
pub(crate) fn import(tx: &mut dyn Tx, tenant: &TenantId, tasks: &[Task]) -> Result<(), StoreError> {
    if tasks.len() > MAX_IMPORT {
        return Err(StoreError::OutOfRange {
            field: "tasks",
            value: format!("{} tasks, at most {MAX_IMPORT}", tasks.len()),
        });
    }
    for task in tasks {
        check_new(tenant, task)?;
    }
    insert_tasks(tx, tenant, tasks)?;
    tx.analyze("tasks")
}

/// Checks that `task` may be stored as new for `tenant`: of that tenant, pending, never
/// leased.
fn check_new(tenant: &TenantId, task: &Task) -> Result<(), StoreError> {
    if task.metadata().tenant() != tenant {
        return Err(StoreError::TenantMismatch {
            tenant: tenant.clone(),
            task: task.id().clone(),
            found: task.metadata().tenant().clone(),
        });
    }
    if task.phase() != TaskPhase::Pending || task.status().attempt() != 0 {
        return Err(StoreError::NotNew {
            tenant: tenant.clone(),
            task: task.id().clone(),
            phase: task.phase(),
        });
    }
    Ok(())
}

/// Cancels every unfinished task of `task`'s slot (cancel intent on a running one, so it
/// ends when its runner stops), in batches; returns their ids.
fn cancel_slot(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    task: &Task,
    now: DateTime<Utc>,
) -> Result<Vec<TaskId>, StoreError> {
    const UNFINISHED: Sql = Sql::new(
        "SELECT id FROM tasks WHERE tenant = ?1 AND slot = ?2 \
         AND phase IN ('pending', 'running') AND id > ?3 ORDER BY id LIMIT ?4",
    );
    let mut canceled = Vec::new();
    let mut after = String::new();
    loop {
        let rows = tx.query(
            &UNFINISHED,
            &[
                tenant.as_str().into(),
                task.spec().slot().as_str().into(),
                after.as_str().into(),
                Value::Int(REPLACE_BATCH),
            ],
        )?;
        for row in &rows {
            let id = TaskId::new(row.text(0)?).map_err(|error| StoreError::Corrupt {
                what: format!("a task id of tenant \"{tenant}\""),
                reason: error.to_string(),
            })?;
            let change = attempts::cancel(tx, tenant, &id, Precondition::default(), now)?;
            if change.applied.is_changed() {
                canceled.push(id.clone());
            }
            after = id.as_str().to_owned();
        }
        if rows.len() < usize::try_from(REPLACE_BATCH).unwrap_or(usize::MAX) {
            return Ok(canceled);
        }
    }
}

/// [`Store::apply`](crate::Store::apply): the model's `Task::apply` on the stored task,
/// written back under the compare-and-swap with its owner rows when they changed.
pub(crate) fn apply(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    manifest: TaskManifest,
    expected: Precondition,
    now: DateTime<Utc>,
) -> Result<Change<ApplyChanges>, StoreError> {
    let id = manifest.metadata().name().clone();
    let mut pair = load(tx, tenant, &id, Lock::Update)?;
    let changes = pair
        .task
        .apply(manifest, expected, now)
        .map_err(|error| refused(tenant, &id, error))?;
    if !changes.is_changed() {
        return Ok(Change {
            task: pair.task,
            attempt: pair.attempt,
            applied: Applied::Unchanged,
        });
    }
    pair.save(tx, tenant, AttemptWrite::None)?;
    if changes.owner_references {
        replace_owners(tx, tenant, &pair.task)?;
    }
    Ok(Change {
        task: pair.task,
        attempt: pair.attempt,
        applied: Applied::Changed(changes),
    })
}

/// Rewrites the `task_owners` rows of `task` from its owner references.
pub(crate) fn replace_owners(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    task: &Task,
) -> Result<(), StoreError> {
    const CLEAR: Sql = Sql::new("DELETE FROM task_owners WHERE tenant = ?1 AND task_id = ?2");
    const INSERT: Sql = Sql::new(
        "INSERT INTO task_owners (tenant, task_id, owner_uid, owner_kind, owner_name, controller) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    );
    let key = [tenant.as_str().into(), task.id().as_str().into()];
    tx.execute(&CLEAR, &key)?;
    for values in owner_values(task) {
        let mut params = key.to_vec();
        params.extend(values);
        tx.execute(&INSERT, &params)?;
    }
    Ok(())
}

/// [`Store::get`](crate::Store::get).
pub(crate) fn get(tx: &mut dyn Tx, tenant: &TenantId, id: &TaskId) -> Result<Stored, StoreError> {
    let pair = load(tx, tenant, id, Lock::None)?;
    Ok(Stored {
        task: pair.task,
        attempt: pair.attempt,
    })
}

/// [`Store::delete`](crate::Store::delete).
pub(crate) fn delete(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &TaskId,
    expected: Precondition,
) -> Result<(), StoreError> {
    const DELETE: Sql =
        Sql::new("DELETE FROM tasks WHERE tenant = ?1 AND id = ?2 AND resource_version = ?3");
    let pair = load(tx, tenant, id, Lock::Update)?;
    let conflict = |reason: String| StoreError::Conflict {
        tenant: tenant.clone(),
        task: id.clone(),
        reason,
    };
    pair.task
        .metadata()
        .check(&expected)
        .map_err(|error| refused(tenant, id, error))?;
    if pair.task.phase() == TaskPhase::Running
        || pair.attempt.as_ref().is_some_and(|run| run.is_active())
    {
        return Err(conflict(
            "an attempt is active; cancel the task first".to_owned(),
        ));
    }
    let version = crate::columns::int("metadata.resourceVersion", pair.version)?;
    match tx.execute(
        &DELETE,
        &[
            tenant.as_str().into(),
            id.as_str().into(),
            Value::Int(version),
        ],
    )? {
        1 => Ok(()),
        _ => Err(conflict(format!(
            "the task is no longer at version {}",
            pair.version
        ))),
    }
}
