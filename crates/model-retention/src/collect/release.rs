//! Writing a [`Release`] on a task: the task's desired state without the released owner,
//! which the store applies with model-task's `Task::apply`.

use model_task::task::{ManifestMeta, OwnerReference, Task, TaskManifest};

use super::Release;
use crate::error::{InvalidReason, RetentionError};
use crate::kind::ResourceKind;

impl Release<'_> {
    /// The manifest that writes this release on `task`, the task it was decided for: the
    /// task's desired state ([`Task::manifest`]) without its reference to the released owner
    /// (the one with [`owner`](Self::owner)'s uid), everything else as it is. A store
    /// applies it with [`Task::apply`], guarded by the task's uid and version, before it
    /// deletes anything (`docs/retention.md`, "What the store writes"); the spec is
    /// unchanged, so the generation stays and only the version goes up. `Ok(None)` when the
    /// task no longer names that owner: released already, nothing to write.
    ///
    /// # Errors
    ///
    /// [`RetentionError::Invalid`] at `task` when `task` is not the resource the release was
    /// decided for (not a task, or another tenant, name or uid): the view is stale, so
    /// collect again from fresh rows.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use model_ids::{TaskId, TenantId, Uid};
    /// use model_retention::{Lifecycle, OwnedResource, Outcome, ResourceKind, collect};
    /// use model_task::task::{ManifestMeta, OwnerKind, OwnerReference, Task, TaskManifest};
    /// use model_task::{SubprocessMode, TaskEnv, TaskKind, TaskSpec};
    ///
    /// let at = Utc.with_ymd_and_hms(2026, 11, 22, 2, 0, 0).unwrap();
    /// let acme = TenantId::new("acme")?;
    /// // A task owned by two flows; flow "old" is gone (no view of it is given).
    /// let old = OwnerReference::new(OwnerKind::Flow, "old", Uid::from_u128(1))?;
    /// let new = OwnerReference::new(OwnerKind::Flow, "new", Uid::from_u128(2))?;
    /// let kind = TaskKind::subprocess(SubprocessMode::command("/bin/true".into(), vec![])?, TaskEnv::empty(), None)?;
    /// let meta = ManifestMeta::new(TaskId::new("job")?).with_owner_references(vec![old, new])?;
    /// let task = Task::create(TaskManifest::new(meta, TaskSpec::builder("s", kind, 1_000).build()?), acme.clone(), Uid::from_u128(3), at)?;
    /// let flow = OwnedResource::builder(ResourceKind::Flow, acme, "new", Lifecycle::Draft).uid(Uid::from_u128(2)).build()?;
    /// let views = [OwnedResource::from_task(&task)?, flow];
    ///
    /// let collection = collect(at, &views);
    /// let release = &collection.releases()[0];
    /// let manifest = release.task_manifest(&task)?.expect("the task names the gone owner");
    /// let names: Vec<&str> = manifest.metadata().owner_references().iter().map(|o| o.name()).collect();
    /// assert_eq!(names, ["new"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn task_manifest(&self, task: &Task) -> Result<Option<TaskManifest>, RetentionError> {
        let resource = self.resource;
        let meta = task.metadata();
        let same = resource.kind() == ResourceKind::Task
            && resource.tenant() == meta.tenant()
            && resource.name() == task.id().as_str()
            && resource.uid() == Some(meta.uid());
        if !same {
            return Err(RetentionError::invalid_input(
                "task",
                task.id().as_str(),
                InvalidReason::Inconsistent {
                    rule: "a release is written on the task it was decided for",
                },
            ));
        }
        let released = self.owner.uid();
        if !meta
            .owner_references()
            .iter()
            .any(|owner| owner.uid() == released)
        {
            return Ok(None);
        }
        let kept: Vec<OwnerReference> = meta
            .owner_references()
            .iter()
            .filter(|owner| owner.uid() != released)
            .cloned()
            .collect();
        let (desired, spec) = task.manifest().into_parts();
        let metadata = ManifestMeta::new(desired.name().clone())
            .with_labels(desired.labels().clone())
            .with_annotations(desired.annotations().clone())
            .with_owner_references(kept)
            .map_err(|_| {
                RetentionError::invalid_input(
                    "task.metadata.ownerReferences",
                    task.id().as_str(),
                    InvalidReason::Inconsistent {
                        rule: "the owners a task keeps after a release were valid before it",
                    },
                )
            })?;
        Ok(Some(TaskManifest::new(metadata, spec)))
    }
}

#[cfg(test)]
mod tests;
