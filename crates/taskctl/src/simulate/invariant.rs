//! The attempt rules (docs/attempts.md) checked after every step that changed a task: one
//! live attempt at most, only on a running task and numbered as the task counts; a lease
//! held by one runner, and one live lease per runner; versions that only go up.

use std::collections::BTreeMap;

use taskmodel::{RunnerId, TaskId, TaskPhase};

use super::plane::Observed;

/// What the checker remembers between steps: the last version of each task, the runner of
/// every lease granted, and the live lease each runner holds.
#[derive(Debug, Default)]
pub(crate) struct Checker {
    versions: BTreeMap<TaskId, u64>,
    leases: BTreeMap<(TaskId, u64), RunnerId>,
    holding: BTreeMap<RunnerId, (TaskId, u64)>,
}

impl Checker {
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
            let held = self.holding.get(run.runner());
            if run.is_active() {
                match held {
                    Some(other) if *other != lease => {
                        return Err(format!(
                            "runner {}: holds lease {} of task {} and lease {} of task {id} at once",
                            run.runner(),
                            other.1,
                            other.0,
                            lease.1
                        ));
                    }
                    Some(_) => {}
                    None => {
                        self.holding.insert(run.runner().clone(), lease);
                    }
                }
            } else if held == Some(&lease) {
                self.holding.remove(run.runner());
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
