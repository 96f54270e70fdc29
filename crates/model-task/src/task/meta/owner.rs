//! Owner references: which flow, schedule or task a task belongs to, after Kubernetes'
//! `ownerReferences`, so that retention can collect what an owner leaves behind.

use std::fmt;

use model_ids::{BoundedVec, IdKind, Limit, Uid};
use serde::{Deserialize, Serialize};

use crate::error::{InvalidReason, TaskError, broken_rule, index_path};

/// Most owner references on one resource.
pub const MAX_OWNER_REFERENCES: usize = 16;

/// The bound of an owner reference list read from the wire.
pub(crate) enum OwnersLimit {}

impl Limit for OwnersLimit {
    const FIELD: &'static str = "ownerReferences";
    const MAX: usize = MAX_OWNER_REFERENCES;
}

/// The wire form of an owner reference list: at most [`MAX_OWNER_REFERENCES`], unchecked.
pub(crate) type OwnersRaw = BoundedVec<OwnerReferenceRaw, OwnersLimit>;

/// The kind of resource that owns another. On the wire in PascalCase, as Kubernetes writes
/// kinds: `"Flow"`, `"Schedule"`, `"Task"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub enum OwnerKind {
    /// A flow, which owns the tasks of its jobs.
    Flow,
    /// A schedule, which owns the tasks it created.
    Schedule,
    /// A task.
    Task,
}

impl OwnerKind {
    /// Every kind.
    pub const ALL: [OwnerKind; 3] = [Self::Flow, Self::Schedule, Self::Task];

    /// The wire form.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Flow => "Flow",
            Self::Schedule => "Schedule",
            Self::Task => "Task",
        }
    }

    /// The identifier rule an owner of this kind is named by.
    pub const fn id_kind(self) -> IdKind {
        match self {
            Self::Flow => IdKind::FlowId,
            Self::Schedule => IdKind::ScheduleId,
            Self::Task => IdKind::TaskId,
        }
    }
}

impl fmt::Display for OwnerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A reference from a resource to one of its owners: the owner's kind, name and uid, and
/// whether it is the managing owner (the controller), as Kubernetes' `ownerReferences`
/// holds them (without `apiVersion`: every kind here is taskmodel's).
///
/// The name follows its kind's identifier rule ([`OwnerKind::id_kind`]); the uid pins one
/// incarnation, so a reference never reaches a later owner of the same name. A list of
/// references has at most one controller and names each uid once, and a resource never
/// owns itself ([`Task::create`](crate::Task::create) checks that, where the task's own
/// name and uid are known). On the wire, `controller` is left out when false:
/// `{"kind": "Flow", "name": "nightly-etl", "uid": "…", "controller": true}`.
///
/// ```
/// use model_ids::Uid;
/// use model_task::task::{OwnerKind, OwnerReference};
///
/// let owner = OwnerReference::new(OwnerKind::Flow, "nightly-etl", Uid::from_u128(7))?.controlling();
/// assert!(owner.is_controller());
/// assert!(OwnerReference::new(OwnerKind::Flow, "a b", Uid::from_u128(7)).is_err());
/// # Ok::<(), model_task::TaskError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "OwnerReferenceRaw")]
pub struct OwnerReference {
    kind: OwnerKind,
    name: String,
    uid: Uid,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    controller: bool,
}

impl OwnerReference {
    /// A reference to the owner of `kind` named `name` with `uid`, not the controller.
    /// Fails with [`TaskError::Id`] at `name` when the name breaks its kind's rule.
    pub fn new(kind: OwnerKind, name: impl Into<String>, uid: Uid) -> Result<Self, TaskError> {
        let name = name.into();
        kind.id_kind()
            .validate(&name)
            .map_err(|error| TaskError::Id {
                path: "name".into(),
                error,
            })?;
        Ok(Self {
            kind,
            name,
            uid,
            controller: false,
        })
    }

    /// The same reference, as the controller: the one owner that manages the resource.
    #[must_use]
    pub fn controlling(self) -> Self {
        Self {
            controller: true,
            ..self
        }
    }

    /// The owner's kind.
    pub const fn kind(&self) -> OwnerKind {
        self.kind
    }

    /// The owner's name (a flow id, a schedule id or a task id, by kind).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The owner's uid.
    pub const fn uid(&self) -> Uid {
        self.uid
    }

    /// Whether the owner is the controller.
    pub const fn is_controller(&self) -> bool {
        self.controller
    }
}

/// The wire form of [`OwnerReference`], unvalidated.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct OwnerReferenceRaw {
    kind: OwnerKind,
    name: String,
    uid: Uid,
    #[serde(default)]
    controller: Option<bool>,
}

impl TryFrom<OwnerReferenceRaw> for OwnerReference {
    type Error = TaskError;

    fn try_from(raw: OwnerReferenceRaw) -> Result<Self, TaskError> {
        let owner = Self::new(raw.kind, raw.name, raw.uid)?;
        Ok(if raw.controller.unwrap_or_default() {
            owner.controlling()
        } else {
            owner
        })
    }
}

/// Reads a list of references and checks it ([`check_owners`]); paths are relative to the
/// list (`[1].uid`).
pub(crate) fn read_owners(raw: OwnersRaw) -> Result<Vec<OwnerReference>, TaskError> {
    let mut owners = Vec::new();
    for (i, owner) in raw.into_inner().into_iter().enumerate() {
        owners.push(OwnerReference::try_from(owner).map_err(|e| e.at(&index_path(i, "")))?);
    }
    check_owners(&owners)?;
    Ok(owners)
}

/// Checks a list of references: at most [`MAX_OWNER_REFERENCES`], at most one controller,
/// each uid once. Paths are relative to the list (`[1].controller`).
pub(crate) fn check_owners(owners: &[OwnerReference]) -> Result<(), TaskError> {
    if owners.len() > MAX_OWNER_REFERENCES {
        return Err(TaskError::invalid(
            "",
            InvalidReason::TooMany {
                len: owners.len(),
                max: MAX_OWNER_REFERENCES,
            },
        ));
    }
    for (i, owner) in owners.iter().enumerate() {
        let earlier = owners.get(..i).unwrap_or_default();
        if owner.controller && earlier.iter().any(|o| o.controller) {
            return broken_rule(
                &index_path(i, "controller"),
                "at most one owner is the controller",
            );
        }
        if earlier.iter().any(|o| o.uid == owner.uid) {
            return broken_rule(&index_path(i, "uid"), "an owner is referenced once");
        }
    }
    Ok(())
}

/// Checks that no reference in `owners` is the task itself (named `name`, or with `uid`
/// when it is known). Paths are relative to the list.
pub(crate) fn check_not_self(
    owners: &[OwnerReference],
    name: &str,
    uid: Option<Uid>,
) -> Result<(), TaskError> {
    for (i, owner) in owners.iter().enumerate() {
        let same_name = owner.kind == OwnerKind::Task && owner.name == name;
        if same_name || Some(owner.uid) == uid {
            return broken_rule(&index_path(i, ""), "a task cannot own itself");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
