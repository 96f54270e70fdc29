//! `QueueEntry`: what claiming needs of a queued task (its key, slot, kind, admission
//! policy and runner selector), made from a Pending task; and `QueuedTask`, a view of one
//! held by a [`Queue`](super::Queue).

use std::cmp::Ordering;

use model_ids::Slot;
use model_policy::AdmissionPolicy;
use model_selector::LabelSelector;
use model_task::{Task, TaskPhase};

use super::QueueKey;
use crate::error::FleetError;
use crate::route::KindSet;

/// A queued task as claiming sees it: its place in the queue ([`QueueKey`]), its slot and
/// admission policy (at most one attempt of a slot runs at once), the kind it runs (a
/// one-kind [`KindSet`]) and its runner selector.
///
/// A store makes one from each Pending task it reads ([`QueueEntry::of`]) and asks the
/// claim decision about it ([`ClaimRequest::check`](crate::ClaimRequest::check)); a
/// [`Queue`](super::Queue) holds them for the in-memory claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueEntry {
    key: QueueKey,
    slot: Slot,
    kind: KindSet,
    admission: AdmissionPolicy,
    selector: LabelSelector,
}

impl QueueEntry {
    /// An entry from its parts, for a store that reads them from its own columns:
    /// `kind` is the one-kind set of the task's kind ([`KindSet::of`]).
    pub const fn new(
        key: QueueKey,
        slot: Slot,
        kind: KindSet,
        admission: AdmissionPolicy,
        selector: LabelSelector,
    ) -> Self {
        Self {
            key,
            slot,
            kind,
            admission,
            selector,
        }
    }

    /// The entry of `task`, which must be Pending and routable.
    ///
    /// # Errors
    ///
    /// [`FleetError::NotQueued`] for a task in another phase; [`FleetError::NotRoutable`]
    /// for an embedded task, which runs in process and is never claimed by a runner.
    pub fn of(task: &Task) -> Result<Self, FleetError> {
        if task.phase() != TaskPhase::Pending {
            return Err(FleetError::NotQueued {
                task: task.id().clone(),
                phase: task.phase(),
            });
        }
        let spec = task.spec();
        let kind = KindSet::of(spec.kind()).ok_or_else(|| FleetError::NotRoutable {
            kind: spec.kind().type_name(),
        })?;
        Ok(Self {
            key: QueueKey::new(spec.priority(), queued_at(task), task.id().clone()),
            slot: spec.slot().clone(),
            kind,
            admission: spec.admission(),
            selector: spec.runner_selector().clone(),
        })
    }

    /// The task's place in the queue.
    pub const fn key(&self) -> &QueueKey {
        &self.key
    }

    /// The task's slot.
    pub const fn slot(&self) -> &Slot {
        &self.slot
    }

    /// The task's kind.
    pub const fn kind(&self) -> &KindSet {
        &self.kind
    }

    /// The task's admission policy.
    pub const fn admission(&self) -> AdmissionPolicy {
        self.admission
    }

    /// The task's runner selector.
    pub const fn selector(&self) -> &LabelSelector {
        &self.selector
    }

    /// The entry as a [`Queue`](super::Queue) shows its tasks.
    pub fn as_queued(&self) -> QueuedTask<'_> {
        QueuedTask {
            key: &self.key,
            slot: &self.slot,
            kind: &self.kind,
            admission: self.admission,
            selector: &self.selector,
        }
    }

    /// The entry split into what a queue keeps beside the selector, and the selector.
    pub(super) fn into_parts(self) -> (Queued, LabelSelector) {
        let queued = Queued {
            key: self.key,
            slot: self.slot,
            kind: self.kind,
            admission: self.admission,
        };
        (queued, self.selector)
    }
}

/// When `task` became Pending ([`TaskStatus::queued_at`](model_task::TaskStatus::queued_at),
/// set while it is Pending); its creation time if a status lacks it.
fn queued_at(task: &Task) -> chrono::DateTime<chrono::Utc> {
    task.status()
        .queued_at()
        .unwrap_or_else(|| task.metadata().created_at())
}

/// A queued task as a [`Queue`](super::Queue) shows it: the fields of a [`QueueEntry`],
/// borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuedTask<'a> {
    key: &'a QueueKey,
    slot: &'a Slot,
    kind: &'a KindSet,
    admission: AdmissionPolicy,
    selector: &'a LabelSelector,
}

impl<'a> QueuedTask<'a> {
    /// The view of `queued` with its `selector`.
    pub(crate) const fn new(queued: &'a Queued, selector: &'a LabelSelector) -> Self {
        Self {
            key: &queued.key,
            slot: &queued.slot,
            kind: &queued.kind,
            admission: queued.admission,
            selector,
        }
    }

    /// The task's place in the queue.
    pub const fn key(&self) -> &'a QueueKey {
        self.key
    }

    /// The task's slot.
    pub const fn slot(&self) -> &'a Slot {
        self.slot
    }

    /// The task's kind.
    pub const fn kind(&self) -> &'a KindSet {
        self.kind
    }

    /// The task's admission policy.
    pub const fn admission(&self) -> AdmissionPolicy {
        self.admission
    }

    /// The task's runner selector.
    pub const fn selector(&self) -> &'a LabelSelector {
        self.selector
    }
}

/// What a [`Queue`](super::Queue) keeps of a task beside its selector (which its selector
/// index holds): ordered and compared by the key alone, which is unique in a queue.
#[derive(Debug, Clone)]
pub(crate) struct Queued {
    pub(crate) key: QueueKey,
    pub(crate) slot: Slot,
    pub(crate) kind: KindSet,
    pub(crate) admission: AdmissionPolicy,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Queued {}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
