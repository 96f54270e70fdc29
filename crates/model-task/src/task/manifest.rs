//! `TaskManifest`, what a caller submits: the desired state of a task (its name, labels,
//! annotations, owners and spec) without anything the control plane owns.

use std::io::{BufReader, Read};

use model_ids::{BoundedReader, TaskId};
use model_selector::Labels;
use serde::{Deserialize, Serialize, Serializer};

use super::meta::{
    Annotations, AnnotationsRaw, OwnerReference, OwnersRaw, check_not_self, check_owners,
    read_annotations, read_labels, read_owners,
};
use crate::error::{InvalidReason, TaskError};
use crate::lifecycle::truncate_on_char_boundary;
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

    /// Reads a manifest document from `reader`, at most [`MAX_TASK_MANIFEST_BYTES`]: reading
    /// stops at the first byte past it ([`TaskError::TooLarge`]), however long the stream.
    /// A document that is not JSON or has the wrong shape is [`TaskError::Unreadable`] with
    /// its line and column (as is a failing `reader`); a broken rule is its own typed error,
    /// with its path (`spec.timeoutMs`). Reading is buffered here.
    ///
    /// ```
    /// use model_task::TaskManifest;
    /// use model_task::task::MAX_TASK_MANIFEST_BYTES;
    ///
    /// let doc = r#"{"apiVersion": "taskmodel.io/v1", "kind": "Task", "metadata": {"name": "t"},
    ///     "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m.wasm"}, "timeoutMs": 1000}}"#;
    /// let manifest = TaskManifest::from_json_reader(doc.as_bytes())?;
    /// assert_eq!(manifest.metadata().name().as_str(), "t");
    ///
    /// let endless = std::io::repeat(b' ');
    /// let err = TaskManifest::from_json_reader(endless).unwrap_err();
    /// assert_eq!(err.to_string(), format!("the document is longer than {MAX_TASK_MANIFEST_BYTES} bytes"));
    /// # Ok::<(), model_task::TaskError>(())
    /// ```
    pub fn from_json_reader<R: Read>(reader: R) -> Result<Self, TaskError> {
        let mut bounded = BufReader::new(BoundedReader::new(reader, MAX_TASK_MANIFEST_BYTES));
        let raw = serde_json::from_reader::<_, TaskManifestRaw>(&mut bounded);
        if bounded.get_ref().exceeded() {
            return Err(TaskError::TooLarge {
                max: MAX_TASK_MANIFEST_BYTES,
            });
        }
        Self::try_from(raw.map_err(unreadable)?)
    }

    /// Reads a manifest document from `bytes`, as [`from_json_reader`](Self::from_json_reader)
    /// does; a document over [`MAX_TASK_MANIFEST_BYTES`] is refused before it is parsed.
    pub fn from_json_slice(bytes: &[u8]) -> Result<Self, TaskError> {
        if bytes.len() > MAX_TASK_MANIFEST_BYTES {
            return Err(TaskError::TooLarge {
                max: MAX_TASK_MANIFEST_BYTES,
            });
        }
        Self::try_from(serde_json::from_slice::<TaskManifestRaw>(bytes).map_err(unreadable)?)
    }
}

/// Most bytes of a reader's message an [`TaskError::Unreadable`] keeps.
const UNREADABLE_MESSAGE_BYTES: usize = 1024;

/// A serde_json error as a [`TaskError::Unreadable`], its message without the position.
fn unreadable(err: serde_json::Error) -> TaskError {
    let (line, column) = (err.line(), err.column());
    let message = err.to_string();
    let suffix = format!(" at line {line} column {column}");
    let message = message
        .strip_suffix(&suffix)
        .map_or(message.clone(), str::to_owned);
    TaskError::Unreadable {
        line,
        column,
        message: truncate_on_char_boundary(message, UNREADABLE_MESSAGE_BYTES),
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
