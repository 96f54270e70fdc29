//! [`Task::apply`]: a new desired state (a [`TaskManifest`]) for a stored task, under a
//! guarded write, and what it changed ([`ApplyChanges`]).

use chrono::{DateTime, Utc};

use super::{Precondition, Task, TaskManifest, check_not_self};
use crate::error::TaskError;
use crate::lifecycle::TaskPhase;
use crate::spec::TaskSpec;

/// What [`Task::apply`] changed. Nothing changed (every field false) means the task was left
/// as it was, its version included: a store writes nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct ApplyChanges {
    /// The spec changed: `metadata.generation` went up by one.
    pub spec: bool,
    /// The labels changed.
    pub labels: bool,
    /// The annotations changed.
    pub annotations: bool,
    /// The owner references changed.
    pub owner_references: bool,
}

impl ApplyChanges {
    /// Whether anything changed, so the version went up by one.
    pub const fn is_changed(&self) -> bool {
        self.spec || self.labels || self.annotations || self.owner_references
    }

    /// Whether only metadata changed (labels, annotations, owners), not the spec.
    pub const fn is_metadata_only(&self) -> bool {
        self.is_changed() && !self.spec
    }
}

impl Task {
    /// Applies `manifest`, the desired state, to this task at `now`, as Kubernetes' apply
    /// does: labels, annotations, owner references and spec become the manifest's, and the
    /// answer says which of them changed.
    ///
    /// - Nothing differs: nothing changes, the version neither (every field of the answer
    ///   is false).
    /// - Otherwise the version goes up by exactly one, whatever changed; the generation goes
    ///   up by one when the spec changed, never for labels, annotations or owners.
    /// - The spec may change while the task is Pending; waiting for a restart, the new spec
    ///   is due at once (at `now`, if that is sooner than the restart) with a retry budget of
    ///   its own. While an attempt runs, every field but `slot` may change: the attempt runs
    ///   on under the generation it was leased with, its result is recorded but decides
    ///   nothing for the new spec, and the task is queued again for it
    ///   ([`end_attempt`](Self::end_attempt)). Once the task has ended its spec stays.
    ///   These rules are `docs/attempts.md`'s ("Changing the spec").
    ///
    /// Errors, in order: the [`Precondition`] ([`TaskError::UidMismatch`],
    /// [`TaskError::Conflict`]); a manifest of another name ([`TaskError::NameMismatch`]);
    /// an owner that is the task itself ([`TaskError::Invalid`] at
    /// `metadata.ownerReferences[i]`);
    /// a refused spec change ([`TaskError::ApplyRefused`] at `spec` or `spec.slot`); the
    /// version at its end ([`TaskError::VersionOverflow`]). A failed apply changes nothing.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use model_ids::{TaskId, TenantId, Uid};
    /// use model_selector::Labels;
    /// use model_task::*;
    ///
    /// let t0 = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    /// let kind = TaskKind::subprocess(SubprocessMode::command("/bin/true".into(), vec![])?, TaskEnv::empty(), None)?;
    /// let spec = TaskSpec::builder("lane", kind.clone(), 1_000).build()?;
    /// let name = TaskId::new("job")?;
    /// let uid = Uid::from_u128(7);
    /// let mut task = Task::create(TaskManifest::named(name.clone(), spec.clone()), TenantId::new("infra")?, uid, t0)?;
    ///
    /// // Labels only: a new version, the same generation.
    /// let labeled = ManifestMeta::new(name.clone()).with_labels(Labels::from_pairs([("team", "infra")])?);
    /// let changes = task.apply(TaskManifest::new(labeled.clone(), spec), Precondition::version(1).and_uid(uid), t0)?;
    /// assert!(changes.labels && !changes.spec);
    /// assert_eq!((task.resource_version(), task.metadata().generation()), (2, 1));
    ///
    /// // A new spec: a new generation too.
    /// let longer = TaskSpec::builder("lane", kind, 5_000).build()?;
    /// let changes = task.apply(TaskManifest::new(labeled, longer), Some(2), t0)?;
    /// assert!(changes.spec && !changes.labels);
    /// assert_eq!((task.resource_version(), task.metadata().generation()), (3, 2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn apply(
        &mut self,
        manifest: TaskManifest,
        expected: impl Into<Precondition>,
        now: DateTime<Utc>,
    ) -> Result<ApplyChanges, TaskError> {
        self.metadata.check(&expected.into())?;
        let (metadata, spec) = manifest.into_parts();
        let (name, labels, annotations, owners) = metadata.into_parts();
        if name != self.metadata.id {
            return Err(TaskError::NameMismatch {
                task: self.metadata.id.clone(),
                manifest: name,
            });
        }
        check_not_self(&owners, &name, Some(self.metadata.uid))
            .map_err(|e| e.at("metadata.ownerReferences"))?;
        let changes = ApplyChanges {
            spec: spec != self.spec,
            labels: labels != self.metadata.labels,
            annotations: annotations != self.metadata.annotations,
            owner_references: owners != self.metadata.owner_references,
        };
        if !changes.is_changed() {
            return Ok(changes);
        }
        if changes.spec {
            self.check_spec_change(&spec)?;
        }
        let version = self.metadata.next_version()?;
        let generation = if changes.spec {
            self.metadata
                .generation
                .checked_add(1)
                .ok_or(TaskError::VersionOverflow {
                    version: self.metadata.generation,
                })?
        } else {
            self.metadata.generation
        };
        self.metadata.labels = labels;
        self.metadata.annotations = annotations;
        self.metadata.owner_references = owners;
        if changes.spec {
            self.spec = spec;
            self.metadata.generation = generation;
            // A restart of the old spec gives way to the new one, due at once.
            if let Some(due) = self.status.next_attempt_at {
                let at = due.min(now);
                self.status.next_attempt_at = Some(at);
                self.status.queued_at = Some(at);
            }
        }
        self.record(version, now);
        Ok(changes)
    }

    /// Whether the spec may become `spec` now (see [`apply`](Self::apply)).
    fn check_spec_change(&self, spec: &TaskSpec) -> Result<(), TaskError> {
        let phase = self.phase();
        if phase.is_final() {
            return Err(TaskError::ApplyRefused {
                path: "spec".into(),
                phase,
                rule: "a task that has ended keeps its spec; create a new task",
            });
        }
        if phase == TaskPhase::Running && spec.slot() != self.spec.slot() {
            return Err(TaskError::ApplyRefused {
                path: "spec.slot".into(),
                phase,
                rule: "the slot cannot change while an attempt runs in it",
            });
        }
        Ok(())
    }
}
