//! `TaskManifest`, what a caller submits: the desired state of a task (its name, labels,
//! annotations, owners and spec) without anything the control plane owns.

use model_ids::TaskId;
use model_selector::Labels;
use serde::{Deserialize, Serialize, Serializer};

use super::meta::{
    Annotations, AnnotationsRaw, OwnerReference, OwnersRaw, check_not_self, check_owners,
    read_annotations, read_labels, read_owners,
};
use crate::error::{InvalidReason, TaskError};
use crate::spec::{LabelsRaw, TaskSpec, TaskSpecRaw};

/// The `apiVersion` of a task: group `taskmodel.io`, version `v1`.
pub const TASK_API_VERSION: &str = "taskmodel.io/v1";

/// The `kind` of a task.
pub const TASK_KIND: &str = "Task";

/// Most bytes of one manifest document (4 MiB): a script body of
/// [`MAX_SCRIPT_BODY_BYTES`](crate::spec::MAX_SCRIPT_BODY_BYTES) in base64 fits, with room
/// for the rest.
pub const MAX_TASK_MANIFEST_BYTES: usize = 4 * 1024 * 1024;

/// The metadata a caller gives a task: its name, labels, annotations and owners. What the
/// control plane owns (uid, tenant, versions, times) is not here; [`ObjectMeta`](crate::ObjectMeta)
/// adds it.
///
/// Owner references follow [`OwnerReference`]'s rules, and none is the task itself by name
/// (by uid once the task has one: [`Task::create`](crate::Task::create)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "ManifestMetaRaw")]
pub struct ManifestMeta {
    name: TaskId,
    #[serde(skip_serializing_if = "Labels::is_empty")]
    labels: Labels,
    #[serde(skip_serializing_if = "Annotations::is_empty")]
    annotations: Annotations,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    owner_references: Vec<OwnerReference>,
}

impl ManifestMeta {
    /// Metadata with a name and nothing else.
    pub fn new(name: TaskId) -> Self {
        Self {
            name,
            labels: Labels::default(),
            annotations: Annotations::default(),
            owner_references: Vec::new(),
        }
    }

    /// The same metadata with `labels`.
    #[must_use]
    pub fn with_labels(self, labels: Labels) -> Self {
        Self { labels, ..self }
    }

    /// The same metadata with `annotations`.
    #[must_use]
    pub fn with_annotations(self, annotations: Annotations) -> Self {
        Self {
            annotations,
            ..self
        }
    }

    /// The same metadata with `owners`; fails when they break a list rule (paths at
    /// `ownerReferences[i]`) or name the task itself.
    pub fn with_owner_references(self, owners: Vec<OwnerReference>) -> Result<Self, TaskError> {
        check_owners(&owners).map_err(|e| e.at("ownerReferences"))?;
        check_not_self(&owners, &self.name, None).map_err(|e| e.at("ownerReferences"))?;
        Ok(Self {
            owner_references: owners,
            ..self
        })
    }

    /// The same metadata with `owners` that were checked when they were set on the task.
    pub(crate) fn with_checked_owners(self, owners: Vec<OwnerReference>) -> Self {
        Self {
            owner_references: owners,
            ..self
        }
    }

    /// The task's name (its id).
    pub const fn name(&self) -> &TaskId {
        &self.name
    }

    /// The labels.
    pub const fn labels(&self) -> &Labels {
        &self.labels
    }

    /// The annotations.
    pub const fn annotations(&self) -> &Annotations {
        &self.annotations
    }

    /// The owners.
    pub fn owner_references(&self) -> &[OwnerReference] {
        &self.owner_references
    }

    /// The parts, for the aggregate to take.
    pub(crate) fn into_parts(self) -> (TaskId, Labels, Annotations, Vec<OwnerReference>) {
        (
            self.name,
            self.labels,
            self.annotations,
            self.owner_references,
        )
    }
}

/// What a caller submits to create or change a task: `apiVersion`, `kind`, `metadata` (name,
/// labels, annotations, owner references) and `spec`, in the shape of a Kubernetes
/// manifest. The stored [`Task`](crate::Task) adds uid, tenant, versions, times and status.
///
/// `apiVersion` must be [`TASK_API_VERSION`] and `kind` [`TASK_KIND`]; a whole document is
/// at most [`MAX_TASK_MANIFEST_BYTES`]. Parsing validates the spec as a spec parses;
/// [`validate`](Self::validate) adds the submit boundary ([`TaskSpec::validate`]).
///
/// ```
/// use model_task::task::{TASK_API_VERSION, TaskManifest};
///
/// let manifest: TaskManifest = serde_json::from_str(r#"{
///     "apiVersion": "taskmodel.io/v1",
///     "kind": "Task",
///     "metadata": { "name": "thumbs-1", "labels": { "team": "media" } },
///     "spec": { "slot": "thumbs", "kind": { "type": "wasm", "module": "t.wasm" }, "timeoutMs": 1000 }
/// }"#)?;
/// assert_eq!(manifest.metadata().name().as_str(), "thumbs-1");
/// assert_eq!(manifest.api_version(), TASK_API_VERSION);
///
/// let json = serde_json::to_string(&manifest)?;
/// assert_eq!(serde_json::from_str::<TaskManifest>(&json)?, manifest);
/// let wrong = json.replace("taskmodel.io/v1", "v1");
/// let err = serde_json::from_str::<TaskManifest>(&wrong).unwrap_err();
/// assert!(err.to_string().starts_with(r#"invalid apiVersion "v1": expected taskmodel.io/v1"#));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "TaskManifestRaw")]
pub struct TaskManifest {
    metadata: ManifestMeta,
    spec: TaskSpec,
}

impl TaskManifest {
    /// A manifest of `metadata` and `spec`.
    pub const fn new(metadata: ManifestMeta, spec: TaskSpec) -> Self {
        Self { metadata, spec }
    }

    /// A manifest of a task named `name` with `spec`, and no labels, annotations or owners.
    pub fn named(name: TaskId, spec: TaskSpec) -> Self {
        Self::new(ManifestMeta::new(name), spec)
    }

    /// The `apiVersion`, [`TASK_API_VERSION`].
    pub const fn api_version(&self) -> &'static str {
        TASK_API_VERSION
    }

    /// The `kind`, [`TASK_KIND`].
    pub const fn kind(&self) -> &'static str {
        TASK_KIND
    }

    /// The caller's metadata.
    pub const fn metadata(&self) -> &ManifestMeta {
        &self.metadata
    }

    /// The desired state.
    pub const fn spec(&self) -> &TaskSpec {
        &self.spec
    }

    /// The submit boundary: the spec's ([`TaskSpec::validate`]), at `spec.`.
    pub fn validate(&self) -> Result<(), TaskError> {
        self.spec.validate().map_err(|e| e.at("spec"))
    }

    /// The metadata and the spec.
    pub fn into_parts(self) -> (ManifestMeta, TaskSpec) {
        (self.metadata, self.spec)
    }
}

impl Serialize for TaskManifest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("TaskManifest", 4)?;
        out.serialize_field("apiVersion", TASK_API_VERSION)?;
        out.serialize_field("kind", TASK_KIND)?;
        out.serialize_field("metadata", &self.metadata)?;
        out.serialize_field("spec", &self.spec)?;
        out.end()
    }
}

/// Checks a document's `apiVersion` and `kind` against a task's ([`TASK_API_VERSION`],
/// [`TASK_KIND`]), as parsing a [`TaskManifest`] or a [`Task`](crate::Task) does; the error
/// path is the field's.
///
/// ```
/// use model_task::task::check_type;
/// assert!(check_type("taskmodel.io/v1", "Task").is_ok());
/// assert_eq!(check_type("taskmodel.io/v1", "Pod").unwrap_err().path(), Some("kind"));
/// ```
pub fn check_type(api_version: &str, kind: &str) -> Result<(), TaskError> {
    if api_version != TASK_API_VERSION {
        return Err(TaskError::invalid_input(
            "apiVersion",
            api_version,
            InvalidReason::Expected {
                expected: TASK_API_VERSION,
            },
        ));
    }
    if kind != TASK_KIND {
        return Err(TaskError::invalid_input(
            "kind",
            kind,
            InvalidReason::Expected {
                expected: TASK_KIND,
            },
        ));
    }
    Ok(())
}

/// The wire form of [`ManifestMeta`], unvalidated.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ManifestMetaRaw {
    name: TaskId,
    #[serde(default)]
    labels: Option<LabelsRaw>,
    #[serde(default)]
    annotations: Option<AnnotationsRaw>,
    #[serde(default)]
    owner_references: Option<OwnersRaw>,
}

impl TryFrom<ManifestMetaRaw> for ManifestMeta {
    type Error = TaskError;

    fn try_from(raw: ManifestMetaRaw) -> Result<Self, TaskError> {
        let meta = Self::new(raw.name)
            .with_labels(read_labels(raw.labels)?)
            .with_annotations(read_annotations(raw.annotations)?);
        let owners = match raw.owner_references {
            Some(owners) => read_owners(owners).map_err(|e| e.at("ownerReferences"))?,
            None => Vec::new(),
        };
        meta.with_owner_references(owners)
    }
}

/// The wire form of [`TaskManifest`], unvalidated.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TaskManifestRaw {
    api_version: String,
    kind: String,
    metadata: ManifestMetaRaw,
    spec: TaskSpecRaw,
}

impl TryFrom<TaskManifestRaw> for TaskManifest {
    type Error = TaskError;

    fn try_from(raw: TaskManifestRaw) -> Result<Self, TaskError> {
        check_type(&raw.api_version, &raw.kind)?;
        let metadata = ManifestMeta::try_from(raw.metadata).map_err(|e| e.at("metadata"))?;
        let spec = TaskSpec::try_from(raw.spec).map_err(|e| e.at("spec"))?;
        Ok(Self { metadata, spec })
    }
}

#[cfg(test)]
mod tests;
