//! The attempt rules (docs/attempts.md) checked after every step that changed a task: one
//! live attempt at most, only on a running task and numbered as the task counts; a lease
//! held by one runner, and no more live leases on a runner than its capacity; versions that
//! only go up.

use std::collections::{BTreeMap, BTreeSet};

use taskmodel::{RunnerId, TaskId, TaskPhase};

use super::plane::Observed;

/// What the checker remembers between steps: the last version of each task, the runner of
/// every lease granted, each runner's capacity and the live leases it holds.
#[derive(Debug, Default)]
pub(crate) struct Checker {
    versions: BTreeMap<TaskId, u64>,
    leases: BTreeMap<(TaskId, u64), RunnerId>,
    capacity: BTreeMap<RunnerId, u32>,
    holding: BTreeMap<RunnerId, BTreeSet<(TaskId, u64)>>,
}

impl Checker {
    /// A checker of runners with these capacities (a runner not named holds one lease).
    pub(crate) fn new(capacity: impl IntoIterator<Item = (RunnerId, u32)>) -> Self {
        Self {
            capacity: capacity.into_iter().collect(),
            ..Self::default()
        }
    }

    /// Checks a task a step changed; the rule it breaks, in words, if any.
    pub(crate) fn check(&mut self, observed: &Observed<'_>) -> Result<(), String> {
        let task = observed.task;
        let id = task.id();
        let version = task.resource_version();
        if let Some(last) = self.versions.insert(id.clone(), version)
            && version <= last
        {
            return Err(format!(
                "task {id}: the version went from {last} to {version} in a step that changed it"
            ));
        }
        let mut live = observed.attempts.iter().filter(|run| run.is_active());
        let current = live.next();
        if let Some(second) = live.next() {
            let first = current.map_or(0, |run| run.attempt());
            return Err(format!(
                "task {id}: attempts {first} and {} are live at once",
                second.attempt()
            ));
        }
        let phase = task.phase();
        match (phase, current) {
            (TaskPhase::Running, None) => {
                return Err(format!("task {id}: running without a live attempt"));
            }
            (TaskPhase::Running, Some(run)) if run.attempt() != task.status().attempt() => {
                return Err(format!(
                    "task {id}: attempt {} is live but the task counts attempt {}",
                    run.attempt(),
                    task.status().attempt()
                ));
            }
            (TaskPhase::Running, Some(_)) | (_, None) => {}
            (phase, Some(run)) => {
                return Err(format!(
                    "task {id}: attempt {} is live on a {} task",
                    run.attempt(),
                    phase.as_str()
                ));
            }
        }
        for run in observed.attempts {
            let lease = (id.clone(), run.lease().as_u64());
            match self.leases.get(&lease) {
                Some(holder) if holder != run.runner() => {
                    return Err(format!(
                        "task {id}: lease {} is held by {holder} and by {}",
                        lease.1,
                        run.runner()
                    ));
                }
                Some(_) => {}
                None => {
                    self.leases.insert(lease.clone(), run.runner().clone());
                }
            }
            let capacity = self.capacity.get(run.runner()).copied().unwrap_or(1);
            let held = self.holding.entry(run.runner().clone()).or_default();
            if !run.is_active() {
                held.remove(&lease);
            } else if held.insert(lease.clone())
                && u32::try_from(held.len()).unwrap_or(u32::MAX) > capacity
            {
                let others: Vec<String> = held
                    .iter()
                    .filter(|other| **other != lease)
                    .map(|(task, lease)| format!("lease {lease} of task {task}"))
                    .collect();
                return Err(format!(
                    "runner {}: holds lease {} of task {id} with {} at once, above its capacity {capacity}",
                    run.runner(),
                    lease.1,
                    others.join(", ")
                ));
            }
        }
        let mut numbers: Vec<u64> = observed
            .attempts
            .iter()
            .map(|run| run.lease().as_u64())
            .collect();
        numbers.sort_unstable();
        if let Some(pair) = numbers.windows(2).find(|pair| pair.first() == pair.last()) {
            return Err(format!(
                "task {id}: lease {} names two attempts",
                pair.first().copied().unwrap_or(0)
            ));
        }
        Ok(())
    }
}
