//! The aggregate: [`Task`] (metadata, spec and status), made from a [`TaskManifest`] with
//! [`ObjectMeta`]; the lifecycle operations that change a task under a [`Precondition`];
//! and [`admit`], what a new task does when its slot is busy.

use chrono::{DateTime, Utc};
use model_ids::{TaskId, TenantId, Uid};
use serde::{Deserialize, Serialize, Serializer};

use crate::error::{TaskError, broken_rule};
use crate::lifecycle::{ConditionType, TaskPhase, TaskStatus, TaskStatusRaw};
use crate::spec::{TaskSpec, TaskSpecRaw};

mod admission;
mod apply;
mod lifecycle;
mod manifest;
mod meta;

pub(crate) use self::manifest::{ManifestMetaRaw, TaskManifestRaw};
pub(crate) use self::meta::{ObjectMetaRaw, check_not_self};
pub use self::{
    admission::{AdmissionDecision, admit},
    apply::ApplyChanges,
    manifest::{
        MAX_TASK_MANIFEST_BYTES, ManifestMeta, TASK_API_VERSION, TASK_KIND, TaskManifest,
        check_type,
    },
    meta::{
        Annotations, MAX_ANNOTATIONS, MAX_ANNOTATIONS_BYTES, MAX_OWNER_REFERENCES, ObjectMeta,
        OwnerKind, OwnerReference, Precondition,
    },
};

/// A task: metadata (identity, versions, times, labels, owners), spec (desired state) and
/// status (observed state), in the Kubernetes shape; made from a [`TaskManifest`] by
/// [`Task::create`].
///
/// Every change goes through a method that takes `now` and what the caller expects of the
/// task (a [`Precondition`]: `None`, `Some(version)`, or a version and a uid). A method
/// either fails and leaves the task unchanged, or applies one change: the version goes up
/// by one and `updated_at` becomes `now` (it never goes backwards). Checks run in this
/// order: expected uid ([`TaskError::UidMismatch`]) and version ([`TaskError::Conflict`]),
/// lifecycle ([`TaskError::InvalidTransition`] naming both phases, see
/// [`TaskPhase::can_become`]), other preconditions, version overflow.
///
/// Lifecycle: [`begin_attempt`](Self::begin_attempt) moves Pending to Running;
/// [`end_attempt`](Self::end_attempt) moves Running to the outcome's final phase, to
/// Exhausted, or back to Pending with `next_attempt_at` when a restart is scheduled;
/// [`cancel`](Self::cancel) moves Pending or Running to Canceled. Nothing leaves a final
/// phase. Attempts that run under a lease go through the methods that take the task and its
/// [`TaskRun`](crate::TaskRun) together ([`lease_attempt`](Self::lease_attempt) and the
/// others under "Attempts and leases"), which call these.
///
/// ```
/// use chrono::{TimeDelta, TimeZone, Utc};
/// use model_ids::{TaskId, TenantId, Uid};
/// use model_policy::{BackoffPolicy, JitterPolicy, RestartPolicy, SeededRandom};
/// use model_task::*;
///
/// let t0 = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
/// let kind = TaskKind::subprocess(SubprocessMode::command("/bin/true".into(), vec![])?, TaskEnv::empty(), None)?;
/// let spec = TaskSpec::builder("lane", kind, 1_000)
///     .restart(RestartPolicy::OnFailure)
///     .backoff(BackoffPolicy::new(JitterPolicy::None, 500, 10_000, 2.0)?)
///     .max_retries(1)
///     .build()?;
/// let manifest = TaskManifest::new(ManifestMeta::new(TaskId::new("job-1")?), spec);
/// let mut task = Task::create(manifest, TenantId::new("infra")?, Uid::from_u128(1), t0)?;
/// assert_eq!(task.status().queued_at(), Some(t0));
/// let mut rng = SeededRandom::new(1);
///
/// task.begin_attempt(Some(1), t0)?;
/// let failed = AttemptResult::new(AttemptOutcome::Failed).with_exit_code(1);
/// let decision = task.end_attempt(Some(2), failed.clone(), &mut rng, t0)?;
/// let retry_at = t0 + TimeDelta::milliseconds(500);
/// assert_eq!(decision, RestartDecision::Restart { retry: 1, delay_ms: 500, at: retry_at });
/// assert_eq!(task.phase(), TaskPhase::Pending);
///
/// task.begin_attempt(None, retry_at)?;
/// assert_eq!(task.status().attempt(), 2);
/// let decision = task.end_attempt(None, failed, &mut rng, retry_at)?;
/// assert_eq!(decision, RestartDecision::Exhausted);
/// assert_eq!(task.phase(), TaskPhase::Exhausted);
/// assert_eq!(task.resource_version(), 5);
///
/// let err = task.begin_attempt(Some(4), retry_at).unwrap_err();
/// assert!(matches!(err, TaskError::Conflict { expected: 4, actual: 5 }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "TaskRaw")]
pub struct Task {
    metadata: ObjectMeta,
    spec: TaskSpec,
    status: TaskStatus,
}

impl Task {
    /// The task `manifest` describes, created at `now` for `tenant` with `uid` (which the
    /// caller mints, a random UUID as a rule): version 1, generation 1, Pending, queued at
    /// `now`, no attempt yet. Fails when an owner reference is the task itself by uid
    /// ([`TaskError::Invalid`] at `metadata.ownerReferences[i]`); by name the manifest
    /// already refused it.
    pub fn create(
        manifest: TaskManifest,
        tenant: TenantId,
        uid: Uid,
        now: DateTime<Utc>,
    ) -> Result<Self, TaskError> {
        let (metadata, spec) = manifest.into_parts();
        let (id, labels, annotations, owner_references) = metadata.into_parts();
        check_not_self(&owner_references, &id, Some(uid))
            .map_err(|e| e.at("metadata.ownerReferences"))?;
        Ok(Self {
            metadata: ObjectMeta {
                id,
                uid,
                tenant,
                resource_version: 1,
                generation: 1,
                created_at: now,
                updated_at: now,
                labels,
                annotations,
                owner_references,
            },
            spec,
            status: TaskStatus::queued(now, 1),
        })
    }

    /// The desired state: the manifest that [`create`](Self::create) would make this task
    /// from (name, labels, annotations, owners and spec).
    pub fn manifest(&self) -> TaskManifest {
        let meta = &self.metadata;
        let metadata = ManifestMeta::new(meta.id.clone())
            .with_labels(meta.labels.clone())
            .with_annotations(meta.annotations.clone());
        // The owners were checked when they were set; they keep holding.
        let metadata = ManifestMeta::with_checked_owners(metadata, meta.owner_references.clone());
        TaskManifest::new(metadata, self.spec.clone())
    }

    /// Identity, versions, timestamps, labels and owners.
    pub const fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    /// The desired state.
    pub const fn spec(&self) -> &TaskSpec {
        &self.spec
    }

    /// The observed state.
    pub const fn status(&self) -> &TaskStatus {
        &self.status
    }

    /// The task id.
    pub const fn id(&self) -> &TaskId {
        &self.metadata.id
    }

    /// The current phase.
    pub const fn phase(&self) -> TaskPhase {
        self.status.phase
    }

    /// The current resource version.
    pub const fn resource_version(&self) -> u64 {
        self.metadata.resource_version
    }
}

impl Serialize for Task {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("Task", 5)?;
        out.serialize_field("apiVersion", TASK_API_VERSION)?;
        out.serialize_field("kind", TASK_KIND)?;
        out.serialize_field("metadata", &self.metadata)?;
        out.serialize_field("spec", &self.spec)?;
        out.serialize_field("status", &self.status)?;
        out.end()
    }
}

/// The wire form of [`Task`]: each part goes through its raw twin so its errors get the
/// `metadata.`, `spec.` or `status.` prefix. An absent status is a new task's status.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TaskRaw {
    api_version: String,
    kind: String,
    metadata: ObjectMetaRaw,
    spec: TaskSpecRaw,
    #[serde(default)]
    status: Option<TaskStatusRaw>,
}

impl TryFrom<TaskRaw> for Task {
    type Error = TaskError;

    fn try_from(raw: TaskRaw) -> Result<Self, TaskError> {
        check_type(&raw.api_version, &raw.kind)?;
        let metadata = ObjectMeta::try_from(raw.metadata).map_err(|e| e.at("metadata"))?;
        let spec = TaskSpec::try_from(raw.spec).map_err(|e| e.at("spec"))?;
        let status = match raw.status {
            Some(status) => TaskStatus::try_from(status).map_err(|e| e.at("status"))?,
            None => TaskStatus::queued(metadata.created_at, metadata.generation),
        };
        let task = Self {
            metadata,
            spec,
            status,
        };
        task.check_status().map_err(|e| e.at("status"))?;
        Ok(task)
    }
}

impl Task {
    /// Checks the status against the metadata: the attempt's generation is not newer than
    /// the spec's, the conditions agree with both and flipped between the creation and the
    /// last change, a task that never ran is queued since its creation, and a final task
    /// finished between its creation and its last change. Paths are relative to the status.
    fn check_status(&self) -> Result<(), TaskError> {
        let (meta, status) = (&self.metadata, &self.status);
        if status.observed_generation > meta.generation {
            return broken_rule(
                "observedGeneration",
                "an attempt runs a generation the spec has had",
            );
        }
        status
            .conditions
            .check(
                &ConditionType::ALL,
                &status.facts(meta.generation),
                meta.created_at,
                meta.updated_at,
            )
            .map_err(|e| e.at("conditions"))?;
        if status.attempt == 0
            && status.phase == TaskPhase::Pending
            && status.queued_at != Some(meta.created_at)
        {
            return broken_rule(
                "queuedAt",
                "a task that never ran is queued since createdAt",
            );
        }
        if let Some(finished) = status.finished_at
            && (finished < meta.created_at || finished > meta.updated_at)
        {
            return broken_rule(
                "finishedAt",
                "finishedAt is between createdAt and updatedAt",
            );
        }
        Ok(())
    }
}
