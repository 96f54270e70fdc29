//! The queue: the order queued tasks are claimed in ([`QueueKey`]), what claiming needs of
//! each ([`QueueEntry`]), and [`Queue`], one tenant's queued tasks and busy slots in memory,
//! indexed by runner selector so a claim does not test every task.

use std::collections::BTreeMap;

use model_ids::{Slot, TaskId, TenantId};
use model_selector::{LabelSelector, Labels, Matching, SelectorIndex};
use model_task::{Task, TaskPhase};

use crate::error::FleetError;
use crate::route::KindSet;

mod entry;
mod key;
mod merge;

pub(crate) use self::{entry::Queued, merge::Merge};
pub use self::{
    entry::{QueueEntry, QueuedTask},
    key::{MAX_QUEUE_KEY_LEN, QUEUE_KEY_PREFIX_LEN, QueueKey},
};

/// One tenant's queued tasks and the tasks running in its slots, in memory: the reference
/// structure a simulator or a small control plane claims from (a store does the same in SQL,
/// `docs/queue.md`).
///
/// The queued tasks sit in one [`SelectorIndex`] per task kind, keyed in queue order. A claim
/// ([`Queue::claim`](crate::Queue::claim)) first tests the head of the queue in order
/// ([`CLAIM_HEAD_PROBE`](crate::CLAIM_HEAD_PROBE) tasks of the runner's kinds), where a busy
/// queue's answer usually is; past it, it asks the indexes of the kinds the runner runs which
/// selectors its labels match, first in queue order, and tests only those tasks for the rest
/// (due, slot free) instead of every queued task.
///
/// The queue follows the tasks: [`update`](Self::update) with each changed task (a Pending
/// task is queued, a Running one holds its slot, a finished one leaves) and
/// [`remove`](Self::remove) for a deleted one. It holds at most
/// [`MAX_SELECTORS`](model_selector::MAX_SELECTORS) queued tasks of each kind.
#[derive(Debug, Clone)]
pub struct Queue {
    tenant: TenantId,
    /// The queued tasks by id.
    queued: BTreeMap<TaskId, Queued>,
    /// One index of runner selectors per task kind, keyed in queue order.
    pub(crate) kinds: Vec<(KindSet, SelectorIndex<Queued>)>,
    /// The running task of each busy slot, and the slot of each running task.
    pub(crate) running: BTreeMap<Slot, Task>,
    running_ids: BTreeMap<TaskId, Slot>,
}

impl Queue {
    /// An empty queue of `tenant`'s tasks.
    pub fn new(tenant: TenantId) -> Self {
        Self {
            tenant,
            queued: BTreeMap::new(),
            kinds: Vec::new(),
            running: BTreeMap::new(),
            running_ids: BTreeMap::new(),
        }
    }

    /// The tenant whose tasks the queue holds.
    pub const fn tenant(&self) -> &TenantId {
        &self.tenant
    }

    /// How many tasks are queued.
    pub fn len(&self) -> usize {
        self.queued.len()
    }

    /// Whether no task is queued.
    pub fn is_empty(&self) -> bool {
        self.queued.is_empty()
    }

    /// Follows a change of `task`: a Pending task is queued (or its entry replaced), a
    /// Running task leaves the queue and holds its slot, a task in a final phase leaves both.
    /// An embedded task, which runs in process, is never queued.
    ///
    /// # Errors
    ///
    /// [`FleetError::OtherTenant`] for a task of another tenant; [`FleetError::Selector`]
    /// when a kind's index is full. The queue is unchanged then.
    pub fn update(&mut self, task: &Task) -> Result<(), FleetError> {
        if task.metadata().tenant() != &self.tenant {
            return Err(FleetError::OtherTenant {
                task: task.id().clone(),
                tenant: task.metadata().tenant().clone(),
                queue: self.tenant.clone(),
            });
        }
        match task.phase() {
            TaskPhase::Pending => match QueueEntry::of(task) {
                Ok(entry) => {
                    self.release(task.id());
                    self.insert(entry)
                }
                Err(FleetError::NotRoutable { .. }) => {
                    self.remove(task.id());
                    Ok(())
                }
                Err(err) => Err(err),
            },
            TaskPhase::Running => {
                self.dequeue(task.id());
                self.release(task.id());
                let slot = task.spec().slot().clone();
                self.running_ids.insert(task.id().clone(), slot.clone());
                self.running.insert(slot, task.clone());
                Ok(())
            }
            _ => {
                self.remove(task.id());
                Ok(())
            }
        }
    }

    /// Queues `entry`, replacing the entry of the same task.
    ///
    /// # Errors
    ///
    /// [`FleetError::Selector`] when the index of the entry's kind is full; the queue is
    /// unchanged then.
    pub fn insert(&mut self, entry: QueueEntry) -> Result<(), FleetError> {
        let (queued, selector) = entry.into_parts();
        let id = queued.key.id().clone();
        let previous = self.queued.get(&id).cloned();
        // The same key in the same index: out first, so the index keeps the new entry's
        // slot and policy (an index keeps the first of two equal keys).
        let same_place = previous
            .as_ref()
            .filter(|p| p.kind == queued.kind && p.key == queued.key);
        if let Some(previous) = same_place {
            self.unindex(previous);
        }
        let index = match self.kinds.iter().position(|(kind, _)| *kind == queued.kind) {
            Some(i) => i,
            None => {
                self.kinds.push((queued.kind.clone(), SelectorIndex::new()));
                self.kinds.len() - 1
            }
        };
        if let Some((_, selectors)) = self.kinds.get_mut(index)
            && let Err(err) = selectors.insert(queued.clone(), &selector)
        {
            // Only a new key can fail (the index is full), and then nothing changed but
            // perhaps an empty index.
            self.kinds.retain(|(_, selectors)| !selectors.is_empty());
            return Err(FleetError::Selector(err));
        }
        if let Some(previous) = previous.filter(|p| p.kind != queued.kind || p.key != queued.key) {
            self.unindex(&previous);
        }
        self.queued.insert(id, queued);
        Ok(())
    }

    /// Forgets task `id`: its entry if it is queued, its slot if it is running. Returns
    /// whether the queue knew it.
    pub fn remove(&mut self, id: &TaskId) -> bool {
        let queued = self.dequeue(id);
        let running = self.release(id);
        queued || running
    }

    /// The queued task `id`.
    pub fn get(&self, id: &TaskId) -> Option<QueuedTask<'_>> {
        let queued = self.queued.get(id)?;
        self.view(queued)
    }

    /// The task running in `slot`, if any.
    pub fn running(&self, slot: &Slot) -> Option<&Task> {
        self.running.get(slot)
    }

    /// Every queued task, in queue order.
    pub fn iter(&self) -> impl Iterator<Item = QueuedTask<'_>> + '_ {
        Merge::new(
            self.kinds
                .iter()
                .map(|(_, selectors)| selectors.iter().map(|(queued, _)| queued)),
        )
        .filter_map(|queued| self.view(queued))
    }

    /// The queued tasks whose runner selector `labels` match and whose kind is in `kinds`,
    /// in queue order, as the selector indexes answer.
    pub(crate) fn matching<'q, 'l>(
        &'q self,
        labels: &'l Labels,
        kinds: &KindSet,
    ) -> Merge<Matching<'q, 'l, Queued>> {
        Merge::new(
            self.kinds
                .iter()
                .filter(|(kind, _)| kinds.contains(kind))
                .map(|(_, selectors)| selectors.matching(labels)),
        )
    }

    /// The view of `queued`, with the selector its kind's index holds.
    pub(crate) fn view<'q>(&'q self, queued: &'q Queued) -> Option<QueuedTask<'q>> {
        let selector = self.selector(queued)?;
        Some(QueuedTask::new(queued, selector))
    }

    fn selector(&self, queued: &Queued) -> Option<&LabelSelector> {
        self.kinds
            .iter()
            .find(|(kind, _)| *kind == queued.kind)
            .and_then(|(_, selectors)| selectors.get(queued))
    }

    /// Takes task `id` out of the queued tasks; whether it was there.
    fn dequeue(&mut self, id: &TaskId) -> bool {
        match self.queued.remove(id) {
            Some(queued) => {
                self.unindex(&queued);
                true
            }
            None => false,
        }
    }

    /// Frees the slot of running task `id`; whether it was running.
    fn release(&mut self, id: &TaskId) -> bool {
        let Some(slot) = self.running_ids.remove(id) else {
            return false;
        };
        if self.running.get(&slot).is_some_and(|task| task.id() == id) {
            self.running.remove(&slot);
        }
        true
    }

    fn unindex(&mut self, queued: &Queued) {
        if let Some((_, selectors)) = self.kinds.iter_mut().find(|(kind, _)| *kind == queued.kind) {
            selectors.remove(queued);
        }
        self.kinds.retain(|(_, selectors)| !selectors.is_empty());
    }
}

#[cfg(test)]
mod tests;
