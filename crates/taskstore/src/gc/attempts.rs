//! The attempt history's pass: tasks that started more attempts than the task rule's
//! history limits keep (model-retention's default policy: a task restarted forever), a
//! page at a time in id order, each with all its stored attempts. Each task is viewed
//! active and unowned, so only its history limits decide on its attempts (whether the task
//! itself goes is the other passes' question, and its attempts then go with it); the
//! newest attempt, which the task's next lease is checked against, is always kept. An
//! attempt goes with its log lines (the foreign key).

use taskmodel::ids::{TaskId, TenantId};
use taskmodel::retention::{Lifecycle, OwnedResource, ResourceKind, RetentionPolicy, collect};

use super::{Connection, MAX_GC_VIEW, Pass, VIEW_PAGE};
use crate::columns::{read_attempt, read_task};
use crate::error::StoreError;
use crate::tx::{Sql, Tx, Value};

/// An attempt in the view: its task, its number, and the task's current attempt number.
type Slot = Option<(TaskId, u32, u32)>;

/// Decides and deletes the attempts past their task's history limits, page by page.
pub(super) fn collect_attempts<E: Connection>(pass: &mut Pass<'_, E>) -> Result<(), StoreError> {
    // A task with fewer attempts than the smaller limit keeps them all.
    let Some(limits) = RetentionPolicy::DEFAULT.rule(ResourceKind::Task).history() else {
        return Ok(());
    };
    let threshold = i64::from(limits.succeeded().min(limits.failed()));
    let tenant = pass.tenant;
    let mut after = String::new();
    loop {
        let (views, slots, more) = pass
            .engine
            .snapshot(|tx| page(tx, tenant, &after, threshold))?;
        if let Some(task) = views
            .iter()
            .rev()
            .find(|view| view.kind() == ResourceKind::Task)
        {
            after = task.name().to_owned();
        }
        let collection = collect(pass.now, &views);
        let doomed: Vec<&(TaskId, u32, u32)> = collection
            .deletions()
            .iter()
            .filter(|deletion| deletion.resource().kind() == ResourceKind::Attempt)
            .filter_map(|deletion| slots.get(deletion.index()).and_then(Option::as_ref))
            .collect();
        for chunk in doomed.chunks(pass.size) {
            let deleted = pass
                .engine
                .commit(|tx| delete_attempts(tx, tenant, chunk))?;
            if deleted < chunk.len() {
                pass.collected.complete = false;
            }
            pass.collected.deleted_attempts += deleted;
        }
        if !more {
            return Ok(());
        }
    }
}

/// One page: the tasks after `after` with more than `threshold` attempts started, each
/// viewed active and unowned with its stored attempts, while the view stays within
/// [`MAX_GC_VIEW`]; `true` beside it when more tasks may follow.
fn page(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    after: &str,
    threshold: i64,
) -> Result<(Vec<OwnedResource>, Vec<Slot>, bool), StoreError> {
    const TASKS: Sql = Sql::new(
        "SELECT doc FROM tasks WHERE tenant = ?1 AND id > ?2 AND attempt > ?3 \
         ORDER BY id LIMIT ?4",
    );
    const ATTEMPTS: Sql = Sql::new(
        "SELECT doc FROM attempts WHERE tenant = ?1 AND task_id = ?2 ORDER BY attempt LIMIT ?3",
    );
    let rows = tx.query(
        &TASKS,
        &[
            tenant.as_str().into(),
            after.into(),
            Value::Int(threshold),
            Value::Int(VIEW_PAGE),
        ],
    )?;
    let full = rows.len() == usize::try_from(VIEW_PAGE).unwrap_or(usize::MAX);
    let mut views = Vec::new();
    let mut slots = Vec::new();
    for row in &rows {
        let task = read_task(row, 0, tenant, None)?;
        let bound = i64::try_from(MAX_GC_VIEW).unwrap_or(i64::MAX);
        let attempts = tx.query(
            &ATTEMPTS,
            &[
                tenant.as_str().into(),
                task.id().as_str().into(),
                Value::Int(bound),
            ],
        )?;
        if attempts.len() + 1 > MAX_GC_VIEW {
            return Err(StoreError::GcViewTooLarge {
                tenant: tenant.clone(),
                what: format!("the attempts of task \"{}\"", task.id()),
                max: MAX_GC_VIEW,
            });
        }
        if !views.is_empty() && views.len() + attempts.len() + 1 > MAX_GC_VIEW {
            // The rest of the page is the next one's.
            return Ok((views, slots, true));
        }
        let refused = |error: &dyn std::fmt::Display| StoreError::Corrupt {
            what: format!(
                "the history of task \"{}\" of tenant \"{tenant}\"",
                task.id()
            ),
            reason: error.to_string(),
        };
        let owner = OwnedResource::builder(
            ResourceKind::Task,
            tenant.clone(),
            task.id().as_str(),
            Lifecycle::Draft,
        )
        .uid(task.metadata().uid())
        .build()
        .map_err(|e| refused(&e))?;
        views.push(owner);
        slots.push(None);
        let current = task.status().attempt();
        for attempt in &attempts {
            let run = read_attempt(attempt, 0, tenant)?;
            views.push(OwnedResource::from_attempt(&run, &task).map_err(|e| refused(&e))?);
            slots.push(Some((task.id().clone(), run.attempt(), current)));
        }
    }
    Ok((views, slots, full))
}

/// Deletes the attempts, each only while it is final and not its task's current one;
/// returns how many went (with their log lines).
fn delete_attempts(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    attempts: &[&(TaskId, u32, u32)],
) -> Result<usize, StoreError> {
    const DELETE: Sql = Sql::new(
        "DELETE FROM attempts WHERE tenant = ?1 AND task_id = ?2 AND attempt = ?3 \
         AND state IN ('succeeded', 'failed', 'timeout', 'canceled', 'expired') \
         AND attempt < (SELECT t.attempt FROM tasks t WHERE t.tenant = ?1 AND t.id = ?2)",
    );
    let mut deleted = 0;
    for (task, number, current) in attempts {
        if number >= current {
            continue;
        }
        let changed = tx.execute(
            &DELETE,
            &[
                tenant.as_str().into(),
                task.as_str().into(),
                Value::Int(i64::from(*number)),
            ],
        )?;
        deleted += usize::try_from(changed).unwrap_or(0);
    }
    Ok(deleted)
}
