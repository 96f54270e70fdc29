//! Schedules in a simulation: each schedule document is model-schedule's `Schedule`. Each of
//! its fire times within the simulated duration becomes an action the control plane
//! stores, fires when it is due and finishes (taskstore's `add_action`, `fire_due` and
//! `finish_action` on the sqlite plane; model-schedule's `Action` calls in memory), and the
//! fired action's overlap decision (`OverlapPolicy::decide`, the previous task still
//! unfinished or not) starts a task named `SCHEDULE-N`, buffers the tick until that task
//! ends, skips it, or (`replace`) has the control plane cancel the unfinished task and
//! starts the new one. Each tick counts against `remainingRuns`. A schedule with `jitterMs`
//! has each action due at its fire time plus `Schedule::jitter_ms`, drawn from the run's
//! seed; the next fire time follows the last fire time, not the jittered dispatch.

use std::collections::BTreeMap;

use serde::Serialize;
use taskmodel::ids::ActionId;
use taskmodel::schedule::{Action, OverlapDecision};
use taskmodel::{Schedule, SeededRandom, TaskId, TaskManifest};

use super::clock::{Millis, instant, millis};

/// One schedule of the simulation.
#[derive(Debug)]
struct ScheduleSim {
    name: String,
    schedule: Schedule,
    /// The fire time of its last action, before jitter: the next one follows it.
    fired_for: Option<chrono::DateTime<chrono::Utc>>,
    /// Its last task, while it is unfinished.
    running: Option<TaskId>,
    /// A tick waits for the running task to end.
    buffered: bool,
    ticks: u64,
    started: u64,
    skipped: u64,
    replaced: u64,
}

/// The schedules, and which schedule each of their tasks belongs to.
#[derive(Debug)]
pub(crate) struct Schedules {
    schedules: Vec<ScheduleSim>,
    by_task: BTreeMap<TaskId, usize>,
    next_action: u128,
    /// The source of the schedules' dispatch jitter.
    rng: SeededRandom,
}

/// No schedules yet; jitter from seed 0.
impl Default for Schedules {
    fn default() -> Self {
        Schedules::new(0)
    }
}

/// A schedule as the summary prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScheduleSummary {
    pub(crate) schedule: String,
    /// Fire times reached.
    pub(crate) ticks: u64,
    /// Tasks started.
    pub(crate) started: u64,
    /// Ticks the overlap policy dropped.
    pub(crate) skipped: u64,
    /// Ticks that canceled the schedule's unfinished task to start theirs (`replace`).
    pub(crate) replaced: u64,
}

/// What a fired action does.
#[derive(Debug)]
pub(crate) struct Fired {
    /// The task to submit now, with its schedule's name (its job).
    pub(crate) task: Option<(String, TaskManifest)>,
    /// The schedule's unfinished task the control plane cancels first (`replace`).
    pub(crate) cancel: Option<TaskId>,
    /// What the action completes with.
    pub(crate) result: serde_json::Value,
    /// The schedule's next action, to store.
    pub(crate) next: Option<Action>,
}

impl Schedules {
    /// No schedules yet; their dispatch jitter is drawn from `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Schedules {
            schedules: Vec::new(),
            by_task: BTreeMap::new(),
            next_action: 0,
            rng: SeededRandom::new(seed),
        }
    }

    /// Adds schedule `schedule`, named `name`.
    pub(crate) fn add(&mut self, name: String, schedule: Schedule) {
        self.schedules.push(ScheduleSim {
            name,
            schedule,
            fired_for: None,
            running: None,
            buffered: false,
            ticks: 0,
            started: 0,
            skipped: 0,
            replaced: 0,
        });
    }

    /// The first action of each schedule that fires at or after the start.
    pub(crate) fn first_actions(&mut self) -> Result<Vec<Action>, String> {
        let before_start = instant(0) - chrono::TimeDelta::milliseconds(1);
        let mut actions = Vec::new();
        for index in 0..self.schedules.len() {
            actions.extend(self.action_after(index, before_start)?);
        }
        Ok(actions)
    }

    /// The action of schedule `index`'s first fire time after `after`, if it fires again,
    /// due at that time plus the schedule's jitter.
    fn action_after(
        &mut self,
        index: usize,
        after: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<Action>, String> {
        let Some(sim) = self.schedules.get_mut(index) else {
            return Ok(None);
        };
        let Some(at) = sim.schedule.fire_times(after).next() else {
            return Ok(None);
        };
        sim.fired_for = Some(at);
        let jitter = sim.schedule.jitter_ms(&mut self.rng);
        let due = i64::try_from(jitter)
            .ok()
            .and_then(chrono::TimeDelta::try_milliseconds)
            .and_then(|delay| at.checked_add_signed(delay))
            .unwrap_or(at);
        self.next_action = self.next_action.saturating_add(1);
        let id = ActionId::from_u128(self.next_action);
        Action::scheduled(id, sim.name.clone(), due, None, instant(0))
            .map(Some)
            .map_err(|err| format!("schedule {}: {err}", sim.name))
    }

    /// The action `action` fired at `now`: its schedule's overlap decision, the task it
    /// starts and the schedule's next action.
    pub(crate) fn fired(&mut self, action: &Action, now: Millis) -> Result<Fired, String> {
        let index = self
            .schedules
            .iter()
            .position(|s| s.name == action.label())
            .ok_or_else(|| format!("action {} names no schedule", action.id()))?;
        let Some(sim) = self.schedules.get_mut(index) else {
            return Err(format!("action {} names no schedule", action.id()));
        };
        sim.ticks += 1;
        sim.schedule.record_fire();
        let after = sim.fired_for.unwrap_or_else(|| instant(now));
        let decision = sim
            .schedule
            .overlap()
            .decide(sim.running.is_some(), sim.buffered);
        let mut cancel = None;
        let (task, word) = match decision {
            OverlapDecision::Start => (Some(self.start(index)?), "started"),
            OverlapDecision::Buffer => {
                sim.buffered = true;
                (None, "buffered")
            }
            OverlapDecision::CancelThenStart => {
                // The canceled task is no longer the schedule's: when it ends, it starts
                // nothing.
                cancel = sim.running.take();
                sim.replaced += 1;
                (Some(self.start(index)?), "replaced")
            }
            _ => {
                sim.skipped += 1;
                (None, "skipped")
            }
        };
        let next = self.action_after(index, after)?;
        Ok(Fired {
            task,
            cancel,
            result: serde_json::json!({ "tick": word }),
            next,
        })
    }

    /// Starts a task of schedule `index`: `NAME-N`, the N-th it started.
    fn start(&mut self, index: usize) -> Result<(String, TaskManifest), String> {
        let Some(sim) = self.schedules.get_mut(index) else {
            return Err("no such schedule".to_owned());
        };
        sim.started += 1;
        let id = TaskId::new(format!("{}-{}", sim.name, sim.started))
            .map_err(|err| format!("schedule {}: {err}", sim.name))?;
        sim.running = Some(id.clone());
        self.by_task.insert(id.clone(), index);
        let manifest = TaskManifest::named(id, sim.schedule.spec().clone());
        Ok((sim.name.clone(), manifest))
    }

    /// Hears that `task` reached a final phase: a tick its schedule buffered starts now.
    pub(crate) fn ended(
        &mut self,
        task: &TaskId,
    ) -> Result<Option<(String, TaskManifest)>, String> {
        let Some(&index) = self.by_task.get(task) else {
            return Ok(None);
        };
        let Some(sim) = self.schedules.get_mut(index) else {
            return Ok(None);
        };
        if sim.running.as_ref() != Some(task) {
            return Ok(None);
        }
        sim.running = None;
        if !sim.buffered {
            return Ok(None);
        }
        sim.buffered = false;
        self.start(index).map(Some)
    }

    /// Each schedule's counts.
    pub(crate) fn summaries(&self) -> Vec<ScheduleSummary> {
        self.schedules
            .iter()
            .map(|sim| ScheduleSummary {
                schedule: sim.name.clone(),
                ticks: sim.ticks,
                started: sim.started,
                skipped: sim.skipped,
                replaced: sim.replaced,
            })
            .collect()
    }
}

/// When `action` is due, in simulated time.
pub(crate) fn due(action: &Action) -> Millis {
    millis(action.due_at())
}

#[cfg(test)]
mod tests;
