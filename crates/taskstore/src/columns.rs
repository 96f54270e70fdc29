//! The columns a store keeps beside each JSON document: what its indexes order and filter
//! by, derived from the task or attempt in one place, and times as integer nanoseconds.

use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use taskmodel::ids::{TaskId, TenantId};
use taskmodel::task::{Task, TaskRun};

use crate::error::StoreError;
use crate::floors::Position;
use crate::tx::{Row, Value};

/// A time as nanoseconds since 1970, exactly, for a column whose order must be the model's
/// (`createdAt`, the listing key): a time outside what an `i64` of nanoseconds holds
/// (1677-09-21 to 2262-04-11) is [`StoreError::OutOfRange`].
pub(crate) fn exact_nanos(field: &'static str, time: DateTime<Utc>) -> Result<i64, StoreError> {
    time.timestamp_nanos_opt()
        .ok_or_else(|| StoreError::OutOfRange {
            field,
            value: time.to_rfc3339_opts(SecondsFormat::AutoSi, true),
        })
}

/// A time as nanoseconds since 1970, saturating at the ends of the `i64` range: for
/// columns compared with `now` or filtered on, whose exact value stays in the document
/// (a lease that expires after 2262 does not expire before then either).
pub(crate) fn clamped_nanos(time: DateTime<Utc>) -> i64 {
    time.timestamp_nanos_opt()
        .unwrap_or(if time.timestamp() < 0 {
            i64::MIN
        } else {
            i64::MAX
        })
}

/// A count or version as a column value, or [`StoreError::OutOfRange`] above `i64::MAX`.
pub(crate) fn int(field: &'static str, value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::OutOfRange {
        field,
        value: value.to_string(),
    })
}

/// The columns of a task row after `tenant` and `id`: its [`TaskKeys`], then `doc`.
#[derive(Debug)]
pub(crate) struct TaskColumns {
    keys: TaskKeys,
    doc: String,
}

/// The columns of a task row between `id` and `doc`: `uid, slot, phase, kind, kind_name,
/// runner_selector, priority, queued_ns, finished_ns, expires_ns, created_ns, updated_ns,
/// resource_version, generation, attempt`. Cheap to compute (no document), so a write can
/// compare a task's keys before and after the model's decision and write only the columns
/// that changed.
pub(crate) type TaskKeys = [Value; TASK_KEYS];

/// How many columns [`TaskKeys`] holds.
pub(crate) const TASK_KEYS: usize = 15;

/// How many columns [`TaskColumns`] holds: the keys and the document.
pub(crate) const TASK_COLUMNS: usize = TASK_KEYS + 1;

/// The columns of `tasks` in the order of a row's values: `tenant, id`, the [`TaskKeys`],
/// then `doc`.
pub(crate) const TASK_COLUMN_NAMES: [&str; TASK_COLUMNS + 2] = [
    "tenant",
    "id",
    "uid",
    "slot",
    "phase",
    "kind",
    "kind_name",
    "runner_selector",
    "priority",
    "queued_ns",
    "finished_ns",
    "expires_ns",
    "created_ns",
    "updated_ns",
    "resource_version",
    "generation",
    "attempt",
    "doc",
];

/// The keys of `task`.
///
/// Queue order is `priority DESC, queued_ns, id` over pending tasks; `queued_ns` is the
/// model's `queuedAt` (its creation, or the time its restart is due: a task is due when it
/// is at or before `now`; `docs/attempts.md`, "Queue order"), set exactly while the task is
/// pending. `finished_ns` is `finishedAt`, set exactly in a final phase, and `expires_ns`
/// when garbage collection may take the task: `finishedAt` plus its `ttlAfterFinishedMs`,
/// when it has one.
///
/// What a claim decides "the runner fits" by, so it reads no document to decide it:
/// `kind_name` is the kind routing matches runners by ([`KindName`]'s text: a built-in
/// kind's wire name, an extension's `apiVersion/kind`; empty for an embedded task, which
/// no runner takes, as no kind's name is empty), and `runner_selector` the task's runner selector in its canonical
/// string syntax (empty when it matches every runner), which parses back to an equal
/// selector.
///
/// [`KindName`]: taskmodel::task::KindName
pub(crate) fn task_keys(task: &Task) -> Result<TaskKeys, StoreError> {
    let meta = task.metadata();
    let status = task.status();
    let finished = status.finished_at();
    let expires = finished
        .zip(task.spec().ttl_after_finished_ms())
        .map(|(finished, ttl)| expiry(finished, ttl));
    Ok([
        meta.uid().to_string().into(),
        task.spec().slot().as_str().into(),
        task.phase().as_str().into(),
        task.spec().kind().type_name().into(),
        kind_name(task),
        task.spec().runner_selector().to_string().into(),
        Value::Int(i64::from(task.spec().priority())),
        status.queued_at().map(clamped_nanos).into(),
        finished.map(clamped_nanos).into(),
        expires.into(),
        Value::Int(exact_nanos("metadata.createdAt", meta.created_at())?),
        Value::Int(clamped_nanos(meta.updated_at())),
        Value::Int(int("metadata.resourceVersion", task.resource_version())?),
        Value::Int(int("metadata.generation", meta.generation())?),
        Value::Int(i64::from(status.attempt())),
    ])
}

/// Where in queue order the task `id` with keys `keys` waits: `None` unless it is pending.
pub(crate) fn queue_position(keys: &TaskKeys, id: &str) -> Option<Position> {
    let [
        _,
        _,
        Value::Text(phase),
        _,
        _,
        _,
        Value::Int(priority),
        Value::Int(queued_ns),
        ..,
    ] = keys
    else {
        return None;
    };
    (phase == "pending").then(|| Position {
        priority: *priority,
        queued_ns: *queued_ns,
        id: id.to_owned(),
    })
}

/// The `kind_name` column of `task` (see [`task_keys`]).
pub(crate) fn kind_name(task: &Task) -> Value {
    task.spec()
        .kind()
        .name()
        .map_or_else(|| "".into(), |name| name.as_str().into())
}

impl TaskColumns {
    /// The columns of `task`: its keys and its document.
    pub(crate) fn of(task: &Task) -> Result<Self, StoreError> {
        let doc = serde_json::to_string(task).map_err(|error| StoreError::Corrupt {
            what: format!("task \"{}\"", task.id()),
            reason: error.to_string(),
        })?;
        Ok(Self {
            keys: task_keys(task)?,
            doc,
        })
    }

    /// The keys.
    pub(crate) fn keys(&self) -> &TaskKeys {
        &self.keys
    }

    /// The keys, then the document.
    pub(crate) fn into_parts(self) -> (TaskKeys, String) {
        (self.keys, self.doc)
    }

    /// The values, in column order.
    pub(crate) fn into_values(self) -> impl Iterator<Item = Value> {
        self.keys.into_iter().chain([Value::Text(self.doc)])
    }
}

/// `finished` plus `ttl_ms` milliseconds as nanoseconds, saturating at the end of the
/// column's range (a task kept past 2262 is not collected before then either).
pub(crate) fn expiry(finished: DateTime<Utc>, ttl_ms: u64) -> i64 {
    let ttl = i64::try_from(ttl_ms)
        .ok()
        .and_then(TimeDelta::try_milliseconds)
        .unwrap_or(TimeDelta::MAX);
    finished
        .checked_add_signed(ttl)
        .map_or(i64::MAX, clamped_nanos)
}

/// The rows of `task_owners` for `task`, after `tenant` and `task_id`: `owner_uid,
/// owner_kind, owner_name, controller` for each owner reference.
pub(crate) fn owner_values(task: &Task) -> impl Iterator<Item = [Value; 4]> + '_ {
    task.metadata().owner_references().iter().map(|owner| {
        [
            owner.uid().to_string().into(),
            owner.kind().as_str().into(),
            owner.name().into(),
            Value::Int(i64::from(owner.is_controller())),
        ]
    })
}

/// The values of the attempt columns `runner, state, lease_expires_ns, doc` for `run` (after
/// `tenant`, `task_id`, `attempt` and, for an insert, `runner_slot`).
pub(crate) fn attempt_values(run: &TaskRun) -> Result<[Value; 4], StoreError> {
    let doc = serde_json::to_string(run).map_err(|error| StoreError::Corrupt {
        what: format!("attempt {} of task \"{}\"", run.attempt(), run.task_id()),
        reason: error.to_string(),
    })?;
    Ok([
        run.runner().as_str().into(),
        run.state().as_str().into(),
        Value::Int(clamped_nanos(run.lease_expires_at())),
        doc.into(),
    ])
}

/// Reads a task from its document column, checking that it is the row's task (its tenant
/// and, when given, its id).
pub(crate) fn read_task(
    row: &Row,
    index: usize,
    tenant: &TenantId,
    id: Option<&TaskId>,
) -> Result<Task, StoreError> {
    let doc = row.text(index)?;
    let task: Task = serde_json::from_str(doc).map_err(|error| StoreError::Corrupt {
        what: format!("task of tenant \"{tenant}\""),
        reason: error.to_string(),
    })?;
    if task.metadata().tenant() != tenant {
        return Err(StoreError::Corrupt {
            what: format!("task \"{}\" of tenant \"{tenant}\"", task.id()),
            reason: format!(
                "the document belongs to tenant \"{}\"",
                task.metadata().tenant()
            ),
        });
    }
    if let Some(id) = id
        && task.id() != id
    {
        return Err(StoreError::Corrupt {
            what: format!("task \"{id}\" of tenant \"{tenant}\""),
            reason: format!("the document holds task \"{}\"", task.id()),
        });
    }
    Ok(task)
}

/// Reads an attempt from its document column.
pub(crate) fn read_attempt(
    row: &Row,
    index: usize,
    tenant: &TenantId,
) -> Result<TaskRun, StoreError> {
    let doc = row.text(index)?;
    serde_json::from_str(doc).map_err(|error| StoreError::Corrupt {
        what: format!("attempt of tenant \"{tenant}\""),
        reason: error.to_string(),
    })
}

#[cfg(test)]
mod tests;
