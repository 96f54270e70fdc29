//! `ObjectMeta`: a task's identity (name, uid, tenant), versions, timestamps, labels,
//! annotations and owners; and `Precondition`, what a guarded write expects of them.

use chrono::{DateTime, Utc};
use model_ids::{TaskId, TenantId, Uid};
use model_selector::Labels;
use serde::{Deserialize, Serialize};

use crate::error::{InvalidReason, TaskError, broken_rule};
use crate::spec::LabelsRaw;

mod annotations;
mod owner;

pub(crate) use self::annotations::AnnotationsRaw;
pub(crate) use self::owner::{OwnersRaw, check_not_self, check_owners, read_owners};
pub use self::{
    annotations::{Annotations, MAX_ANNOTATIONS, MAX_ANNOTATIONS_BYTES},
    owner::{MAX_OWNER_REFERENCES, OwnerKind, OwnerReference},
};

/// Identity, versions, timestamps and user metadata of a stored task, in the shape of
/// Kubernetes' `metadata`.
///
/// - `name` ([`id`](Self::id)) addresses the task; `uid` identifies this incarnation (a
///   task deleted and created again under the same name has a new uid); `tenant` is the
///   tenant it belongs to. The three never change.
/// - `resourceVersion` is 1 at creation and goes up by exactly one with every change the
///   task's own methods make, to any part of it or to its current attempt
///   (`docs/attempts.md`, "The store contract"); it never wraps.
/// - `generation` is 1 at creation and goes up by one with every change to the spec
///   (never for labels, annotations or owners); so it never exceeds `resourceVersion`.
/// - `updatedAt` never goes backwards and is never before `createdAt`.
/// - `labels` and `annotations` are the caller's, `ownerReferences` the owners it named
///   (at most one controller, never the task itself).
///
/// On the wire, camelCase with RFC 3339 times; empty labels, annotations and owner lists
/// are left out:
/// `{"name": "backup.9ix", "uid": "…", "tenant": "infra", "resourceVersion": 1,
///   "generation": 1, "createdAt": "2025-01-01T00:00:00Z", "updatedAt": "2025-01-01T00:00:00Z"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "ObjectMetaRaw")]
pub struct ObjectMeta {
    #[serde(rename = "name")]
    pub(crate) id: TaskId,
    pub(crate) uid: Uid,
    pub(crate) tenant: TenantId,
    pub(crate) resource_version: u64,
    pub(crate) generation: u64,
    #[serde(serialize_with = "crate::time::write")]
    pub(crate) created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::time::write")]
    pub(crate) updated_at: DateTime<Utc>,
    #[serde(skip_serializing_if = "Labels::is_empty")]
    pub(crate) labels: Labels,
    #[serde(skip_serializing_if = "Annotations::is_empty")]
    pub(crate) annotations: Annotations,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) owner_references: Vec<OwnerReference>,
}

impl ObjectMeta {
    /// The task id: `metadata.name` on the wire, the address of the task.
    pub const fn id(&self) -> &TaskId {
        &self.id
    }

    /// The identity of this incarnation of the task.
    pub const fn uid(&self) -> Uid {
        self.uid
    }

    /// The tenant the task belongs to.
    pub const fn tenant(&self) -> &TenantId {
        &self.tenant
    }

    /// The resource version (1 at creation, one more with every change).
    pub const fn resource_version(&self) -> u64 {
        self.resource_version
    }

    /// The generation of the spec (1 at creation, one more with every spec change).
    pub const fn generation(&self) -> u64 {
        self.generation
    }

    /// When the task was created.
    pub const fn created_at(&self) -> DateTime<Utc> {
        self.created_at
    }

    /// When the task last changed.
    pub const fn updated_at(&self) -> DateTime<Utc> {
        self.updated_at
    }

    /// The task's labels.
    pub const fn labels(&self) -> &Labels {
        &self.labels
    }

    /// The task's annotations.
    pub const fn annotations(&self) -> &Annotations {
        &self.annotations
    }

    /// The task's owners.
    pub fn owner_references(&self) -> &[OwnerReference] {
        &self.owner_references
    }

    /// The owner that controls the task, if one does.
    pub fn controller(&self) -> Option<&OwnerReference> {
        self.owner_references.iter().find(|o| o.is_controller())
    }

    /// Checks a guarded write's expectation: a uid that is not this one is
    /// [`TaskError::UidMismatch`] (gone: the task the caller meant was deleted), then a
    /// version that is not the current one is [`TaskError::Conflict`].
    pub fn check(&self, expected: &Precondition) -> Result<(), TaskError> {
        if let Some(uid) = expected.uid
            && uid != self.uid
        {
            return Err(TaskError::UidMismatch {
                expected: uid,
                actual: self.uid,
            });
        }
        self.check_version(expected.resource_version)
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

    /// Checks that the fields agree; paths are relative to the metadata.
    fn check_fields(&self) -> Result<(), TaskError> {
        if self.resource_version == 0 {
            return Err(TaskError::invalid("resourceVersion", InvalidReason::Zero));
        }
        if self.generation == 0 {
            return Err(TaskError::invalid("generation", InvalidReason::Zero));
        }
        if self.generation > self.resource_version {
            return broken_rule(
                "generation",
                "every spec change is a change: generation never exceeds resourceVersion",
            );
        }
        if self.updated_at < self.created_at {
            return broken_rule("updatedAt", "updatedAt is before createdAt");
        }
        check_not_self(&self.owner_references, &self.id, Some(self.uid))
            .map_err(|e| e.at("ownerReferences"))
    }
}

/// What a guarded write expects of the task it changes: its resource version, its uid, or
/// both (nothing: the write is unconditional).
///
/// A uid that is not the task's means the task the caller read was deleted and another
/// was created under the same name: the write is gone ([`TaskError::UidMismatch`], kind
/// [`ErrorKind::Gone`](model_ids::ErrorKind::Gone)), since re-reading cannot give the
/// caller back the task it meant. Kubernetes answers the same case with a conflict; here a
/// conflict means "re-read and decide again", which would retarget the write. A version
/// that is not the current one is [`TaskError::Conflict`]. Every write method takes
/// `impl Into<Precondition>`, so `None`, `Some(version)` and a `Precondition` all do.
///
/// ```
/// use model_ids::Uid;
/// use model_task::task::Precondition;
///
/// let guard = Precondition::version(3).and_uid(Uid::from_u128(9));
/// assert_eq!(guard, Precondition { resource_version: Some(3), uid: Some(Uid::from_u128(9)) });
/// assert_eq!(Precondition::from(None), Precondition::default());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Precondition {
    /// The resource version the caller read, if it is to be checked.
    pub resource_version: Option<u64>,
    /// The uid the caller read, if it is to be checked.
    pub uid: Option<Uid>,
}

impl Precondition {
    /// Expects the resource version `version`.
    pub const fn version(version: u64) -> Self {
        Self {
            resource_version: Some(version),
            uid: None,
        }
    }

    /// The same expectation, and the uid `uid`.
    #[must_use]
    pub const fn and_uid(self, uid: Uid) -> Self {
        Self {
            uid: Some(uid),
            ..self
        }
    }
}

impl From<Option<u64>> for Precondition {
    fn from(resource_version: Option<u64>) -> Self {
        Self {
            resource_version,
            uid: None,
        }
    }
}

impl From<u64> for Precondition {
    fn from(version: u64) -> Self {
        Self::version(version)
    }
}

impl From<Uid> for Precondition {
    fn from(uid: Uid) -> Self {
        Self {
            resource_version: None,
            uid: Some(uid),
        }
    }
}

/// The wire form of [`ObjectMeta`], unvalidated.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ObjectMetaRaw {
    name: TaskId,
    uid: Uid,
    tenant: TenantId,
    resource_version: u64,
    generation: u64,
    #[serde(deserialize_with = "crate::time::read")]
    created_at: DateTime<Utc>,
    #[serde(deserialize_with = "crate::time::read")]
    updated_at: DateTime<Utc>,
    #[serde(default)]
    labels: Option<LabelsRaw>,
    #[serde(default)]
    annotations: Option<AnnotationsRaw>,
    #[serde(default)]
    owner_references: Option<OwnersRaw>,
}

impl TryFrom<ObjectMetaRaw> for ObjectMeta {
    type Error = TaskError;

    fn try_from(raw: ObjectMetaRaw) -> Result<Self, TaskError> {
        let meta = Self {
            id: raw.name,
            uid: raw.uid,
            tenant: raw.tenant,
            resource_version: raw.resource_version,
            generation: raw.generation,
            created_at: raw.created_at,
            updated_at: raw.updated_at,
            labels: read_labels(raw.labels)?,
            annotations: read_annotations(raw.annotations)?,
            owner_references: match raw.owner_references {
                Some(owners) => read_owners(owners).map_err(|e| e.at("ownerReferences"))?,
                None => Vec::new(),
            },
        };
        meta.check_fields()?;
        Ok(meta)
    }
}

/// Reads metadata labels; errors are at `labels["key"]`.
pub(crate) fn read_labels(raw: Option<LabelsRaw>) -> Result<Labels, TaskError> {
    match raw {
        Some(pairs) => Labels::from_pairs(pairs.into_inner())
            .map_err(|e| TaskError::Selector(e.prefixed("labels"))),
        None => Ok(Labels::default()),
    }
}

/// Reads metadata annotations; errors are at `annotations["key"]`.
pub(crate) fn read_annotations(raw: Option<AnnotationsRaw>) -> Result<Annotations, TaskError> {
    match raw {
        Some(raw) => Annotations::try_from(raw).map_err(|e| e.at("annotations")),
        None => Ok(Annotations::default()),
    }
}

#[cfg(test)]
mod tests;
