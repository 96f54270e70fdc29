//! What a run amounts to: the [`Summary`] (makespan, attempts, retries, expirations,
//! outcomes, final states, per-runner load and idle time), as text or JSON.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;

use super::clock::Millis;
use super::engine::{Run, Stop};
use super::flow::FlowSummary;
use super::schedule::ScheduleSummary;
use crate::report::CommandError;

/// How one runner was used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunnerLoad {
    pub(crate) runner: String,
    /// How many attempts it runs at once.
    pub(crate) capacity: u32,
    pub(crate) attempts: u64,
    /// Time holding attempts, summed over its places, each until it ended or the runner
    /// crashed.
    pub(crate) busy_ms: Millis,
    /// Time up, times its capacity, less the busy time: its places' time without an attempt.
    pub(crate) idle_ms: Millis,
    /// Each time it was down.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) down: Vec<DownTime>,
}

/// A time a runner was down.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DownTime {
    /// When it crashed.
    pub(crate) at_ms: Millis,
    /// When it came back, if it did before the run stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) back_at_ms: Option<Millis>,
}

/// The step that broke a rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Broken {
    pub(crate) at_ms: Millis,
    pub(crate) event: String,
    pub(crate) rule: String,
}

/// The whole result, as `--output json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Summary {
    pub(crate) seed: u64,
    pub(crate) tasks: usize,
    pub(crate) runners: usize,
    /// `done`, `duration` (the simulated duration ran out), `steps` or `violation`.
    pub(crate) stopped: &'static str,
    pub(crate) steps: u64,
    /// When the run stopped.
    pub(crate) end_ms: Millis,
    /// When the last task reached a final phase, if every task did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) makespan_ms: Option<Millis>,
    pub(crate) attempts: u64,
    pub(crate) retries: u64,
    pub(crate) expirations: u64,
    /// Runner calls answered gone (a lease lost while the runner held it).
    pub(crate) lost_leases: u64,
    /// How the attempts ended, by name (`live` for those still running at the end).
    pub(crate) outcomes: BTreeMap<&'static str, u64>,
    /// How many tasks ended in each phase (or are still pending or running).
    pub(crate) final_states: BTreeMap<&'static str, u64>,
    pub(crate) runner_load: Vec<RunnerLoad>,
    /// Each flow run: its status, its jobs by state, its critical path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) flows: Vec<FlowSummary>,
    /// Each schedule: its ticks, the tasks they started, the ticks skipped and those that
    /// replaced an unfinished task.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) schedules: Vec<ScheduleSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) violation: Option<Broken>,
}

impl Summary {
    /// Sums up `run` of `tasks` tasks whose phases are `phases`.
    pub(crate) fn of(run: &Run, seed: u64, phases: impl IntoIterator<Item = &'static str>) -> Self {
        let mut final_states = BTreeMap::new();
        let mut tasks = 0;
        for phase in phases {
            tasks += 1;
            *final_states.entry(phase).or_insert(0) += 1;
        }
        let mut outcomes = BTreeMap::new();
        let mut load: Vec<RunnerLoad> = run
            .runners
            .iter()
            .map(|runner| RunnerLoad {
                runner: runner.id.to_string(),
                capacity: runner.capacity,
                attempts: 0,
                busy_ms: 0,
                idle_ms: 0,
                down: runner
                    .down
                    .iter()
                    .filter(|(at, _)| *at <= run.end)
                    .map(|(at, back)| DownTime {
                        at_ms: *at,
                        back_at_ms: back.filter(|back| *back <= run.end),
                    })
                    .collect(),
            })
            .collect();
        for bar in &run.bars {
            *outcomes.entry(bar.ending.as_str()).or_insert(0) += 1;
            if let Some(runner) = load.get_mut(bar.runner) {
                // A crash ends the runner's work on the attempt, whenever its lease ends.
                let crash = runner
                    .down
                    .iter()
                    .map(|down| down.at_ms)
                    .find(|at| *at >= bar.from);
                let to = crash.map_or(bar.to, |at| at.min(bar.to));
                runner.attempts += 1;
                runner.busy_ms += to.saturating_sub(bar.from);
            }
        }
        for (runner, sim) in load.iter_mut().zip(&run.runners) {
            let up = sim.up_within(0, run.end);
            runner.idle_ms = up
                .saturating_mul(Millis::from(runner.capacity))
                .saturating_sub(runner.busy_ms);
        }
        let all_final = run.tally.finished == tasks;
        Self {
            seed,
            tasks: usize::try_from(tasks).unwrap_or(usize::MAX),
            runners: run.runners.len(),
            stopped: match run.stop {
                Stop::Done => "done",
                Stop::Duration => "duration",
                Stop::Steps => "steps",
                Stop::Violation => "violation",
            },
            steps: run.tally.steps,
            end_ms: run.end,
            makespan_ms: all_final.then_some(run.tally.last_final),
            attempts: run.tally.attempts,
            retries: run.tally.retries,
            expirations: run.tally.expirations,
            lost_leases: run.tally.gone,
            outcomes,
            final_states,
            runner_load: load,
            flows: run.flows.clone(),
            schedules: run.schedules.clone(),
            violation: run.violation.as_ref().map(|v| Broken {
                at_ms: v.at,
                event: v.event.clone(),
                rule: v.rule.clone(),
            }),
        }
    }

    /// Writes the summary for people.
    pub(crate) fn write_text(&self, out: &mut dyn Write) -> Result<(), CommandError> {
        writeln!(
            out,
            "simulated {} tasks on {} runners, seed {}: {} steps, stopped at {} ({})",
            self.tasks,
            self.runners,
            self.seed,
            self.steps,
            ms(self.end_ms),
            match self.stopped {
                "done" => "nothing left to do",
                "duration" => "the simulated duration ran out",
                "steps" => "the step limit",
                _ => "a rule was broken",
            }
        )?;
        match self.makespan_ms {
            Some(at) => writeln!(out, "makespan:     {}", ms(at))?,
            None => writeln!(
                out,
                "makespan:     none (not every task reached a final phase)"
            )?,
        }
        writeln!(
            out,
            "attempts:     {} (retries {}, expired leases {}, lost leases {})",
            self.attempts, self.retries, self.expirations, self.lost_leases
        )?;
        writeln!(out, "outcomes:     {}", counts(&self.outcomes))?;
        writeln!(out, "final states: {}", counts(&self.final_states))?;
        for flow in &self.flows {
            write!(
                out,
                "flow {}: {} (jobs {})",
                flow.flow,
                flow.status,
                counts(&flow.jobs)
            )?;
            match flow.critical_path_ms {
                Some(at) => writeln!(
                    out,
                    "; critical path {}, ends at {}",
                    flow.critical_path.join(" -> "),
                    ms(at)
                )?,
                None => writeln!(out)?,
            }
        }
        for schedule in &self.schedules {
            write!(
                out,
                "schedule {}: {} ticks (started {}, skipped {}",
                schedule.schedule, schedule.ticks, schedule.started, schedule.skipped
            )?;
            if schedule.replaced > 0 {
                write!(out, ", replaced {}", schedule.replaced)?;
            }
            writeln!(out, ")")?;
        }
        let width = self
            .runner_load
            .iter()
            .map(|r| r.runner.len())
            .max()
            .unwrap_or(0)
            .max("runner".len());
        writeln!(
            out,
            "{:width$}  {:>8}  {:>10}  {:>10}  {:>6}  down",
            "runner", "attempts", "busy", "idle", "busy %"
        )?;
        for runner in &self.runner_load {
            let up = runner.busy_ms + runner.idle_ms;
            let share = runner
                .busy_ms
                .saturating_mul(100)
                .checked_div(up)
                .unwrap_or(0);
            write!(
                out,
                "{:width$}  {:>8}  {:>10}  {:>10}  {:>5}%",
                runner.runner,
                runner.attempts,
                ms(runner.busy_ms),
                ms(runner.idle_ms),
                share
            )?;
            let down: Vec<String> = runner
                .down
                .iter()
                .map(|down| match down.back_at_ms {
                    Some(back) => format!("{} to {}", ms(down.at_ms), ms(back)),
                    None => format!("from {}", ms(down.at_ms)),
                })
                .collect();
            if down.is_empty() {
                writeln!(out)?;
            } else {
                writeln!(out, "  {}", down.join(", "))?;
            }
        }
        if let Some(broken) = &self.violation {
            writeln!(
                out,
                "rule broken at {} by {}: {}",
                ms(broken.at_ms),
                broken.event,
                broken.rule
            )?;
        }
        Ok(())
    }
}

/// `name count, name count`, in name order.
fn counts(map: &BTreeMap<&'static str, u64>) -> String {
    if map.is_empty() {
        return "none".to_owned();
    }
    map.iter()
        .map(|(name, count)| format!("{name} {count}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Milliseconds for people: `850 ms`, `12.345 s`.
fn ms(value: Millis) -> String {
    if value < 1_000 {
        format!("{value} ms")
    } else {
        format!("{}.{:03} s", value / 1_000, value % 1_000)
    }
}
