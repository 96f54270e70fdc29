//! `ObjectMeta`: a task's identity, resource version and timestamps.

use chrono::{DateTime, Utc};
use model_ids::TaskId;
use serde::{Deserialize, Serialize};

use crate::error::{InvalidReason, TaskError};

/// Identity, version and timestamps of a task.
///
/// `resource_version` is 1 at creation and goes up by one with every change the task's own
/// methods make to its spec, its status or its current attempt (`docs/attempts.md`, "The
/// store contract"); it never wraps. `updated_at` never goes backwards and
/// is never before `created_at`. On the wire, camelCase with RFC 3339 times:
/// `{"id": "backup.9ix", "resourceVersion": 1, "createdAt": "2025-01-01T00:00:00Z",
///   "updatedAt": "2025-01-01T00:00:00Z"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "ObjectMetaRaw")]
pub struct ObjectMeta {
    pub(crate) id: TaskId,
    pub(crate) resource_version: u64,
    pub(crate) created_at: DateTime<Utc>,
    pub(crate) updated_at: DateTime<Utc>,
}

impl ObjectMeta {
    /// Metadata of a task created at `now`: version 1, both times `now`.
    pub const fn new(id: TaskId, now: DateTime<Utc>) -> Self {
        Self {
            id,
            resource_version: 1,
            created_at: now,
            updated_at: now,
        }
    }

    /// The task id.
    pub const fn id(&self) -> &TaskId {
        &self.id
    }

    /// The resource version (1 at creation).
    pub const fn resource_version(&self) -> u64 {
        self.resource_version
    }

    /// When the task was created.
    pub const fn created_at(&self) -> DateTime<Utc> {
        self.created_at
    }

    /// When the task last changed.
    pub const fn updated_at(&self) -> DateTime<Utc> {
        self.updated_at
    }

    /// Fails with [`TaskError::Conflict`] when `expected` is given and is not the version.
    pub fn check_version(&self, expected: Option<u64>) -> Result<(), TaskError> {
        match expected {
            Some(expected) if expected != self.resource_version => Err(TaskError::Conflict {
                expected,
                actual: self.resource_version,
            }),
            _ => Ok(()),
        }
    }

    /// The next version, or [`TaskError::VersionOverflow`].
    pub(crate) fn next_version(&self) -> Result<u64, TaskError> {
        self.resource_version
            .checked_add(1)
            .ok_or(TaskError::VersionOverflow {
                version: self.resource_version,
            })
    }

    /// Records a change: the version becomes `version` (from [`next_version`](Self::next_version))
    /// and `updated_at` moves to `now` unless that would go backwards.
    pub(crate) fn touch(&mut self, version: u64, now: DateTime<Utc>) {
        self.resource_version = version;
        self.updated_at = self.updated_at.max(now);
    }
}

/// The wire form of [`ObjectMeta`], unvalidated.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ObjectMetaRaw {
    id: TaskId,
    resource_version: u64,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl TryFrom<ObjectMetaRaw> for ObjectMeta {
    type Error = TaskError;

    fn try_from(raw: ObjectMetaRaw) -> Result<Self, TaskError> {
        if raw.resource_version == 0 {
            return Err(TaskError::invalid("resourceVersion", InvalidReason::Zero));
        }
        if raw.updated_at < raw.created_at {
            return Err(TaskError::invalid(
                "updatedAt",
                InvalidReason::Inconsistent {
                    rule: "updatedAt is before createdAt",
                },
            ));
        }
        Ok(Self {
            id: raw.id,
            resource_version: raw.resource_version,
            created_at: raw.created_at,
            updated_at: raw.updated_at,
        })
    }
}
