//! The aggregate: [`Task`] (metadata, spec and status), made from a [`TaskManifest`] with
//! [`ObjectMeta`]; the lifecycle operations that change a task under a [`Precondition`];
//! and [`admit`], what a new task does when its slot is busy.

use chrono::{DateTime, SecondsFormat, Utc};
use model_ids::{TaskId, TenantId, Uid};
use model_policy::RandomSource;
use serde::{Deserialize, Serialize, Serializer};

use crate::error::{InvalidReason, TaskError, broken_rule};
use crate::lifecycle::{
    AttemptOutcome, AttemptResult, MAX_STATUS_ERROR_BYTES, RestartDecision, TaskPhase, TaskStatus,
    TaskStatusRaw, plan, time_plan, truncate_on_char_boundary,
};
use crate::spec::{TaskSpec, TaskSpecRaw};

mod admission;
mod manifest;
mod meta;

pub(crate) use self::manifest::{ManifestMetaRaw, TaskManifestRaw};
pub(crate) use self::meta::{ObjectMetaRaw, check_not_self};
pub use self::{
    admission::{AdmissionDecision, admit},
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
            status: TaskStatus::queued(now),
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

    /// Starts the next attempt: Pending to Running, `attempt` + 1. Returns the new attempt
    /// number. When a restart is scheduled, `now` must not be before `next_attempt_at`
    /// ([`TaskError::RestartNotDue`]).
    pub fn begin_attempt(
        &mut self,
        expected: impl Into<Precondition>,
        now: DateTime<Utc>,
    ) -> Result<u32, TaskError> {
        self.metadata.check(&expected.into())?;
        self.phase().check_transition(TaskPhase::Running)?;
        if let Some(due) = self.status.next_attempt_at
            && now < due
        {
            return Err(TaskError::RestartNotDue { due, now });
        }
        let attempt = self
            .status
            .attempt
            .checked_add(1)
            .ok_or(TaskError::Invalid {
                path: "status.attempt".into(),
                input: None,
                reason: InvalidReason::TooLarge {
                    value: u64::from(u32::MAX),
                    max: u64::from(u32::MAX) - 1,
                },
            })?;
        let version = self.metadata.next_version()?;
        self.status = TaskStatus {
            phase: TaskPhase::Running,
            attempt,
            outcome: None,
            exit_code: None,
            error: None,
            next_attempt_at: None,
            last_delay_ms: self.status.last_delay_ms,
            queued_at: None,
            finished_at: None,
        };
        self.metadata.touch(version, now);
        Ok(attempt)
    }

    /// Ends the running attempt with `result` and applies the restart decision from the
    /// spec (see [`decide_restart`](crate::lifecycle::decide_restart)): Running to the outcome's final
    /// phase, to Exhausted, or back to Pending with `next_attempt_at` for a restart. The
    /// previous delay for decorrelated jitter comes from the status; random numbers are
    /// drawn only for a restart, after every check has passed. The error text is cut to
    /// [`MAX_STATUS_ERROR_BYTES`] on a character boundary. A restart whose time would be past
    /// the last representable time cannot happen: the task ends Exhausted (the decision is
    /// [`RestartDecision::Exhausted`]) and its error says so, in front of the runner's.
    /// Only a running attempt ends: on a
    /// task in any other phase every outcome is [`TaskError::InvalidTransition`] (a pending
    /// task is canceled with [`cancel`](Self::cancel)).
    pub fn end_attempt<R: RandomSource + ?Sized>(
        &mut self,
        expected: impl Into<Precondition>,
        result: AttemptResult,
        rng: &mut R,
        now: DateTime<Utc>,
    ) -> Result<RestartDecision, TaskError> {
        self.metadata.check(&expected.into())?;
        let plan = plan(
            self.spec.restart(),
            self.spec.max_retries(),
            result.outcome,
            self.status.attempt,
        );
        self.phase().check_transition(plan.phase())?;
        if self.phase() != TaskPhase::Running {
            // Pending may become Canceled, but by `cancel`: no attempt runs to end.
            return Err(TaskError::InvalidTransition {
                from: self.phase(),
                to: plan.phase(),
            });
        }
        let version = self.metadata.next_version()?;
        // A restart whose time is past the last representable one cannot happen: the task
        // ends Exhausted and says why, rather than stay Running with an attempt that can
        // neither end nor expire.
        let (decision, why) = match time_plan(
            plan,
            self.spec.backoff(),
            self.status.last_delay_ms,
            rng,
            now,
        ) {
            Ok(decision) => (decision, None),
            Err(TaskError::TimeOverflow { now, delay_ms }) => (
                RestartDecision::Exhausted,
                Some(format!(
                    "exhausted: the restart time is out of range: {} plus {delay_ms} ms",
                    now.to_rfc3339_opts(SecondsFormat::AutoSi, true)
                )),
            ),
            Err(other) => return Err(other),
        };
        let error = match (why, result.error) {
            (Some(why), Some(error)) => Some(format!("{why}; {error}")),
            (why, error) => why.or(error),
        };
        let (phase, next_attempt_at, last_delay_ms) = match decision {
            RestartDecision::Restart { delay_ms, at, .. } => {
                (TaskPhase::Pending, Some(at), Some(delay_ms))
            }
            other => (other.phase(), None, self.status.last_delay_ms),
        };
        self.metadata.touch(version, now);
        self.status = TaskStatus {
            phase,
            attempt: self.status.attempt,
            outcome: Some(result.outcome),
            exit_code: result.exit_code,
            error: error.map(|e| truncate_on_char_boundary(e, MAX_STATUS_ERROR_BYTES)),
            next_attempt_at,
            last_delay_ms,
            queued_at: next_attempt_at,
            finished_at: phase.is_final().then_some(self.metadata.updated_at),
        };
        Ok(decision)
    }

    /// Records a change to the task's current attempt (the pair is one aggregate): the
    /// version goes up by one and `updated_at` moves to `now`. Fails only with
    /// [`TaskError::VersionOverflow`], before anything changes.
    pub(crate) fn touch(&mut self, now: DateTime<Utc>) -> Result<(), TaskError> {
        let version = self.metadata.next_version()?;
        self.metadata.touch(version, now);
        Ok(())
    }

    /// Cancels the task: Pending (also while a restart is scheduled) or Running to
    /// Canceled. Canceling a running task ends it at once, with outcome Canceled; a later
    /// result from its runner is rejected because Canceled is final (with runs, as
    /// [`TaskError::Gone`], and [`expire_attempt`](Self::expire_attempt) ends the attempt left behind).
    /// To let the attempt wind down first, use [`cancel_attempt`](Self::cancel_attempt): the attempt
    /// goes to Cancelling and the task ends Canceled when the attempt does.
    pub fn cancel(
        &mut self,
        expected: impl Into<Precondition>,
        now: DateTime<Utc>,
    ) -> Result<(), TaskError> {
        self.metadata.check(&expected.into())?;
        self.phase().check_transition(TaskPhase::Canceled)?;
        let version = self.metadata.next_version()?;
        if self.phase() == TaskPhase::Running {
            self.status.outcome = Some(AttemptOutcome::Canceled);
            self.status.exit_code = None;
            self.status.error = None;
        }
        self.metadata.touch(version, now);
        self.status.phase = TaskPhase::Canceled;
        self.status.next_attempt_at = None;
        self.status.queued_at = None;
        self.status.finished_at = Some(self.metadata.updated_at);
        Ok(())
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
            None => TaskStatus::queued(metadata.created_at),
        };
        let task = Self {
            metadata,
            spec,
            status,
        };
        task.check_times().map_err(|e| e.at("status"))?;
        Ok(task)
    }
}

impl Task {
    /// Checks the status's times against the metadata's: a task that never ran is queued
    /// since its creation, and a final task finished between its creation and its last
    /// change. Paths are relative to the status.
    fn check_times(&self) -> Result<(), TaskError> {
        let (meta, status) = (&self.metadata, &self.status);
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
