//! The ownership graph's pass: the tenant's flows and the tasks that name an owner or are
//! named as one, read in one snapshot for model-retention's `collect` to decide on (an
//! owner is decided together with everything it owns and everything that owns it), and
//! what it decided written in bounded batches: releases first, then deletions in cleanup
//! order. The writers of a batch ([`delete_batch`]) serve the standalone tasks' pass too.

use chrono::{DateTime, Utc};
use taskmodel::ids::{FlowId, TaskId, TenantId, Uid};
use taskmodel::retention::{Deletion, OwnedResource, Release, ResourceKind, collect};
use taskmodel::task::{Precondition, Task};

use super::{Connection, MAX_GC_VIEW, Pass, VIEW_PAGE, task_id};
use crate::columns::{int, read_task};
use crate::error::StoreError;
use crate::pair::{AttemptWrite, load, refused};
use crate::schedules;
use crate::tasks::{delete, replace_owners};
use crate::tx::{Lock, Row as TxRow, Sql, Tx, Value};

/// What the view holds of each resource besides its [`OwnedResource`]: the row a write
/// goes back to, and the version it was read at.
#[derive(Debug)]
pub(super) struct Entry {
    kind: ResourceKind,
    name: String,
    uid: Uid,
    version: u64,
}

/// The graph's pass: the view in one snapshot, `collect`, then the releases and the
/// deletions, `size` writes a transaction, stopping at the first resource changed since
/// the view was read.
pub(super) fn collect_graph<E: Connection>(pass: &mut Pass<'_, E>) -> Result<(), StoreError> {
    let (tenant, now) = (pass.tenant, pass.now);
    let (views, entries) = pass.engine.snapshot(|tx| view(tx, tenant))?;
    let collection = collect(now, &views);
    pass.expires(collection.next_expiry());
    for chunk in collection.releases().chunks(pass.size) {
        let (released, stopped) = pass
            .engine
            .commit(|tx| release_batch(tx, tenant, &entries, chunk, now))?;
        pass.collected.released.extend(released);
        if stopped {
            pass.collected.complete = false;
            return Ok(());
        }
    }
    write_deletions(pass, &entries, collection.deletions())
}

/// Writes `deletions` in order, the pass's `size` a transaction; stops at the first
/// resource changed since it was read (`complete` goes `false`).
pub(super) fn write_deletions<E: Connection>(
    pass: &mut Pass<'_, E>,
    entries: &[Entry],
    deletions: &[Deletion<'_>],
) -> Result<(), StoreError> {
    let tenant = pass.tenant;
    for chunk in deletions.chunks(pass.size) {
        let (tasks, flows, stopped) = pass
            .engine
            .commit(|tx| delete_batch(tx, tenant, entries, chunk))?;
        pass.collected.deleted_tasks.extend(tasks);
        pass.collected.deleted_flows.extend(flows);
        if stopped {
            pass.collected.complete = false;
            break;
        }
    }
    Ok(())
}

/// Writes one transaction's releases; `true` beside what it released when it stopped at a
/// task changed since the view was read.
fn release_batch(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    entries: &[Entry],
    releases: &[Release<'_>],
    now: DateTime<Utc>,
) -> Result<(Vec<TaskId>, bool), StoreError> {
    let mut released = Vec::new();
    for release in releases {
        let Some(entry) = entries.get(release.index()) else {
            continue;
        };
        if entry.kind != ResourceKind::Task {
            continue;
        }
        match release_one(tx, tenant, entry, release, now) {
            Ok(Some(id)) => released.push(id),
            Ok(None) => {}
            Err(error) if stale(&error) => return Ok((released, true)),
            Err(error) => return Err(error),
        }
    }
    Ok((released, false))
}

/// Writes one transaction's deletions, in order; `true` beside what it deleted when it
/// stopped at a resource changed since the view was read.
fn delete_batch(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    entries: &[Entry],
    deletions: &[Deletion<'_>],
) -> Result<(Vec<TaskId>, Vec<FlowId>, bool), StoreError> {
    let (mut tasks, mut flows) = (Vec::new(), Vec::new());
    for deletion in deletions {
        let Some(entry) = entries.get(deletion.index()) else {
            continue;
        };
        let done = match entry.kind {
            ResourceKind::Task => delete_task(tx, tenant, entry).map(|id| tasks.push(id)),
            ResourceKind::Flow => delete_flow(tx, tenant, entry).map(|id| flows.push(id)),
            _ => Ok(()),
        };
        match done {
            Ok(()) => {}
            Err(error) if stale(&error) => return Ok((tasks, flows, true)),
            Err(error) => return Err(error),
        }
    }
    Ok((tasks, flows, false))
}

/// Whether a write failed because its resource changed since the view was read (then the
/// collection stops and the caller collects again).
fn stale(error: &StoreError) -> bool {
    matches!(
        error,
        StoreError::Conflict { .. }
            | StoreError::Gone { .. }
            | StoreError::NotFound { .. }
            | StoreError::FlowConflict { .. }
            | StoreError::FlowNotFound { .. }
    )
}

/// Removes one owner reference from a task that stays (model-retention's
/// `Release::task_manifest`, applied with `Task::apply` under the task's uid and version).
fn release_one(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    row: &Entry,
    release: &Release<'_>,
    now: DateTime<Utc>,
) -> Result<Option<TaskId>, StoreError> {
    let id = task_id(tenant, &row.name)?;
    let mut pair = load(tx, tenant, &id, Lock::Update)?;
    let manifest = match release.task_manifest(&pair.task) {
        Ok(Some(manifest)) => manifest,
        Ok(None) => return Ok(None),
        Err(error) => {
            return Err(StoreError::Conflict {
                tenant: tenant.clone(),
                task: id,
                reason: error.to_string(),
            });
        }
    };
    let expected = Precondition::version(pair.version).and_uid(row.uid);
    let changes = pair
        .task
        .apply(manifest, expected, now)
        .map_err(|error| refused(tenant, &id, error))?;
    if !changes.is_changed() {
        return Ok(None);
    }
    pair.save(tx, tenant, AttemptWrite::None)?;
    replace_owners(tx, tenant, &pair.task)?;
    Ok(Some(id))
}

/// Deletes a task at the uid and version the view read (its attempts, owner rows and log
/// lines go with it).
fn delete_task(tx: &mut dyn Tx, tenant: &TenantId, row: &Entry) -> Result<TaskId, StoreError> {
    let id = task_id(tenant, &row.name)?;
    delete(
        tx,
        tenant,
        &id,
        Precondition::version(row.version).and_uid(row.uid),
    )?;
    Ok(id)
}

/// Deletes a flow at the uid and version the view read (its job rows go with it).
fn delete_flow(tx: &mut dyn Tx, tenant: &TenantId, row: &Entry) -> Result<FlowId, StoreError> {
    const DELETE: Sql = Sql::new(
        "DELETE FROM flows WHERE tenant = ?1 AND name = ?2 AND uid = ?3 AND resource_version = ?4",
    );
    let flow = FlowId::new(&row.name).map_err(|error| StoreError::Corrupt {
        what: format!("a flow name of tenant \"{tenant}\""),
        reason: error.to_string(),
    })?;
    let deleted = tx.execute(
        &DELETE,
        &[
            tenant.as_str().into(),
            flow.as_str().into(),
            row.uid.to_string().into(),
            Value::Int(int("flow.resourceVersion", row.version)?),
        ],
    )?;
    if deleted == 1 {
        Ok(flow)
    } else {
        Err(StoreError::FlowConflict {
            tenant: tenant.clone(),
            flow,
            reason: format!("the flow is no longer at version {}", row.version),
        })
    }
}

/// The view of the tenant's ownership graph, read in one snapshot: every flow, every
/// schedule, and every task that names an owner or that another task names as one, at most [`MAX_GC_VIEW`]
/// (each one's `OwnedResource` and, at the same position, its row).
fn view(
    tx: &mut dyn Tx,
    tenant: &TenantId,
) -> Result<(Vec<OwnedResource>, Vec<Entry>), StoreError> {
    const TASKS: Sql = Sql::new(
        "SELECT t.id, t.doc FROM tasks t WHERE t.tenant = ?1 AND t.id > ?2 \
         AND (EXISTS (SELECT 1 FROM task_owners o WHERE o.tenant = t.tenant AND o.task_id = t.id) \
         OR EXISTS (SELECT 1 FROM task_owners o WHERE o.tenant = t.tenant AND o.owner_uid = t.uid)) \
         ORDER BY t.id LIMIT ?3",
    );
    const FLOWS: Sql = Sql::new(
        "SELECT name FROM flows \
         WHERE tenant = ?1 AND name > ?2 ORDER BY name LIMIT ?3",
    );
    let schedules = Sql::built(format!(
        "SELECT {} FROM schedules WHERE tenant = ?1 AND name > ?2 ORDER BY name LIMIT ?3",
        schedules::COLUMNS
    ));
    let mut views = Vec::new();
    let mut rows = Vec::new();
    let sources = [
        (&TASKS, ResourceKind::Task),
        (&FLOWS, ResourceKind::Flow),
        (&schedules, ResourceKind::Schedule),
    ];
    for (sql, kind) in sources {
        let mut after = String::new();
        loop {
            let page = tx.query(
                sql,
                &[
                    tenant.as_str().into(),
                    after.as_str().into(),
                    Value::Int(VIEW_PAGE),
                ],
            )?;
            if views.len() + page.len() > MAX_GC_VIEW {
                return Err(StoreError::GcViewTooLarge {
                    tenant: tenant.clone(),
                    what: "its flows, its schedules and the tasks that name an owner or are \
                           named as one"
                        .to_owned(),
                    max: MAX_GC_VIEW,
                });
            }
            for row in &page {
                let (resource, kept) = match kind {
                    ResourceKind::Task => task_view(tenant, row)?,
                    ResourceKind::Flow => flow_view(tx, tenant, row)?,
                    _ => schedule_view(tenant, row)?,
                };
                views.push(resource);
                after.clone_from(&kept.name);
                rows.push(kept);
            }
            if page.len() < usize::try_from(VIEW_PAGE).unwrap_or(usize::MAX) {
                break;
            }
        }
    }
    Ok((views, rows))
}

/// A task's view (`OwnedResource::from_task`) and row.
pub(super) fn task_view(
    tenant: &TenantId,
    row: &TxRow,
) -> Result<(OwnedResource, Entry), StoreError> {
    let task: Task = read_task(row, 1, tenant, None)?;
    let view = OwnedResource::from_task(&task).map_err(|error| unreadable(tenant, row, &error))?;
    let kept = Entry {
        kind: ResourceKind::Task,
        name: task.id().as_str().to_owned(),
        uid: task.metadata().uid(),
        version: task.resource_version(),
    };
    Ok((view, kept))
}

/// A flow's view (`OwnedResource::from_flow`, sealed at its end) and row, the flow read
/// whole (`Store::flow`'s read, its run assembled from its jobs' rows).
fn flow_view(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    row: &TxRow,
) -> Result<(OwnedResource, Entry), StoreError> {
    let bad = |error: &dyn std::fmt::Display| unreadable(tenant, row, error);
    let name = FlowId::new(row.text(0)?).map_err(|e| bad(&e))?;
    let flow = crate::flows::get(tx, tenant, &name)?;
    let view = OwnedResource::from_flow(
        &flow.spec,
        &flow.run,
        tenant.clone(),
        flow.uid,
        flow.finished_at,
    )
    .map_err(|e| bad(&e))?;
    let kept = Entry {
        kind: ResourceKind::Flow,
        name: name.as_str().to_owned(),
        uid: flow.uid,
        version: flow.resource_version,
    };
    Ok((view, kept))
}

/// A schedule's view (`OwnedResource::from_schedule`, active while it is stored: its tasks
/// are kept by its history limits, never released as a gone owner's) and row.
fn schedule_view(tenant: &TenantId, row: &TxRow) -> Result<(OwnedResource, Entry), StoreError> {
    let stored = schedules::read(tenant, row)?;
    let view = OwnedResource::from_schedule(&stored.schedule, tenant.clone(), stored.uid, None)
        .map_err(|e| unreadable(tenant, row, &e))?;
    let kept = Entry {
        kind: ResourceKind::Schedule,
        name: stored.schedule.name().as_str().to_owned(),
        uid: stored.uid,
        version: stored.resource_version,
    };
    Ok((view, kept))
}

/// A stored task, flow or schedule whose view does not build.
fn unreadable(tenant: &TenantId, row: &TxRow, error: &dyn std::fmt::Display) -> StoreError {
    StoreError::Corrupt {
        what: format!(
            "\"{}\" of tenant \"{tenant}\"",
            row.text(0).unwrap_or("a resource")
        ),
        reason: error.to_string(),
    }
}
