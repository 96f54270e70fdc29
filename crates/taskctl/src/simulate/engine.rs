//! The discrete-event engine: events on simulated time in a binary heap ordered by (time,
//! sequence), so equal times run in the order they were scheduled and every run with the
//! same inputs and seed takes the same steps. Nothing sleeps and no clock is read.
//!
//! A runner takes up to its capacity of attempts at once. An idle runner claims as soon as
//! a task may be free for it (a long poll: a task queued, a retry due, a slot freed); a
//! claimed attempt starts at once, heartbeats every `heartbeat_ms` and ends after its drawn
//! run time with its drawn outcome (the rates of its job, or the overall ones). A crashed
//! runner stops calling: its leases expire and the reaper ends the attempts; a runner that
//! comes back has forgotten them and claims again. A canceled attempt ([`cancel`]) ends
//! when its runner learns of the cancel at its next call and reports it Canceled.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use taskmodel::task::AttemptOutcome;
use taskmodel::{LeaseId, RestartDecision, SeededRandom, TaskId, TaskManifest};

use super::clock::{Millis, instant};
use super::flow::{FlowSummary, Flows};
use super::invariant::Checker;
use super::plane::{ControlPlane, PlaneError};
use super::schedule::{ScheduleSummary, Schedules};

mod cancel;
mod draw;
mod event;
mod report;
mod runner;
mod tick;
mod wake;

pub(crate) use self::draw::Rates;
pub(crate) use self::event::Event;
use self::event::{Described, Scheduled};
pub(crate) use self::runner::{Bar, Ending, RunnerSim};
use self::wake::Pending;

/// The most steps one simulation takes; a run that would take more stops there.
pub const MAX_STEPS: u64 = 50_000_000;

/// What the engine is told, beyond the plane and the runners.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) lease_ms: Millis,
    pub(crate) heartbeat_ms: Millis,
    pub(crate) attempt_ms: Millis,
    pub(crate) duration_ms: Millis,
    /// The overall rates.
    pub(crate) rates: Rates,
    /// The rates of named jobs (a flow's job, a schedule, or a spec or manifest by its
    /// name), in place of the overall ones.
    pub(crate) job_rates: BTreeMap<String, Rates>,
    /// Which runner crashes when, and when it comes back.
    pub(crate) crashes: Vec<Crash>,
}

/// A runner (by index) that crashes at `at` and comes back at `back`, if ever.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Crash {
    pub(crate) runner: usize,
    pub(crate) at: Millis,
    pub(crate) back: Option<Millis>,
}

/// A step that broke an attempt rule, or that the control plane refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    pub(crate) at: Millis,
    pub(crate) event: String,
    pub(crate) rule: String,
}

/// Why the run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Nothing was left to happen.
    Done,
    /// The simulated duration ran out.
    Duration,
    /// [`MAX_STEPS`] steps were taken.
    Steps,
    /// A step broke a rule.
    Violation,
}

/// The counts of what happened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) steps: u64,
    pub(crate) attempts: u64,
    pub(crate) retries: u64,
    pub(crate) expirations: u64,
    /// Runner calls answered "gone" (a lease the runner no longer holds).
    pub(crate) gone: u64,
    /// Tasks that reached a final phase.
    pub(crate) finished: u64,
    /// When the last one did.
    pub(crate) last_final: Millis,
}

/// What a run produced.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) tally: Tally,
    pub(crate) bars: Vec<Bar>,
    pub(crate) runners: Vec<RunnerSim>,
    pub(crate) end: Millis,
    pub(crate) stop: Stop,
    pub(crate) violation: Option<Violation>,
    /// Every task submitted, in order.
    pub(crate) tasks: Vec<TaskId>,
    /// Each flow run's state and critical path.
    pub(crate) flows: Vec<FlowSummary>,
    /// Each schedule's ticks.
    pub(crate) schedules: Vec<ScheduleSummary>,
    /// Every step taken, when asked for (tests).
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "only tests ask for the step log")
    )]
    pub(crate) log: Option<Vec<(Millis, Event)>>,
}

/// The simulation: a control plane, the runners, the events to come and what happened.
pub(crate) struct Engine<'p, P: ControlPlane> {
    plane: &'p mut P,
    settings: Settings,
    runners: Vec<RunnerSim>,
    heap: BinaryHeap<Reverse<Scheduled>>,
    sequence: u64,
    now: Millis,
    /// Draws outcomes and run times.
    rng: SeededRandom,
    checker: Checker,
    tally: Tally,
    bars: Vec<Bar>,
    /// The bar of each lease, to close when the attempt ends.
    open: BTreeMap<(TaskId, u64), usize>,
    /// The rates of the tasks whose job has its own.
    rates_of: BTreeMap<TaskId, Rates>,
    /// The pending reaper and due events, so each is scheduled once.
    reap_at: Option<Millis>,
    due_at: Option<Millis>,
    /// When a step last changed a task: the end of a run that runs out of events.
    last_change: Millis,
    tasks: Vec<TaskId>,
    /// The pending tasks by kind and runner selector, for whom a wake is.
    pending: Pending,
    flows: Flows,
    schedules: Schedules,
    log: Option<Vec<(Millis, Event)>>,
}

impl<'p, P: ControlPlane> Engine<'p, P> {
    /// An engine over `plane` (tasks submitted, runners registered) and `runners`.
    pub(crate) fn new(
        plane: &'p mut P,
        runners: Vec<RunnerSim>,
        settings: Settings,
        rng: SeededRandom,
    ) -> Self {
        let checker = Checker::new(runners.iter().map(|r| (r.id.clone(), r.capacity)));
        Self {
            plane,
            settings,
            runners,
            heap: BinaryHeap::new(),
            sequence: 0,
            now: 0,
            rng,
            checker,
            tally: Tally::default(),
            bars: Vec::new(),
            open: BTreeMap::new(),
            rates_of: BTreeMap::new(),
            reap_at: None,
            due_at: None,
            last_change: 0,
            tasks: Vec::new(),
            pending: Pending::default(),
            flows: Flows::default(),
            schedules: Schedules::default(),
            log: None,
        }
    }

    /// Keeps every step taken in [`Run::log`].
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "only tests ask for the step log")
    )]
    pub(crate) fn with_log(mut self) -> Self {
        self.log = Some(Vec::new());
        self
    }

    /// Submits `tasks` (each with the name of its job) before anything runs, starts
    /// `flows` (the tasks of their first jobs are submitted too), and stores the first
    /// action of each of `schedules`. Each submitted task is held to the rules.
    pub(crate) fn submit(
        &mut self,
        tasks: Vec<(String, TaskManifest)>,
        mut flows: Flows,
        schedules: Schedules,
    ) -> Result<(), String> {
        let first = flows.start()?;
        self.flows = flows;
        self.schedules = schedules;
        self.plan_schedules()?;
        for (job, manifest) in tasks {
            self.submit_checked(manifest, Some(&job))?;
        }
        for manifest in first {
            self.submit_checked(manifest, None)?;
        }
        Ok(())
    }

    fn submit_checked(&mut self, manifest: TaskManifest, job: Option<&str>) -> Result<(), String> {
        let id = self
            .submit_one(manifest, job)
            .map_err(|err| err.to_string())?;
        if let Some(observed) = self.plane.observe(&id) {
            self.pending.follow(observed.task);
            self.checker.check(&observed)?;
        }
        Ok(())
    }

    /// Submits one task now, of job `job` (a flow's job when `None`: the flow knows it).
    fn submit_one(
        &mut self,
        manifest: TaskManifest,
        job: Option<&str>,
    ) -> Result<TaskId, PlaneError> {
        let id = manifest.metadata().name().clone();
        self.plane.submit(manifest, instant(self.now))?;
        if let Some(observed) = self.plane.observe(&id) {
            self.pending.follow(observed.task);
        }
        let job = job.or_else(|| self.flows.job(&id));
        if let Some(rates) = job.and_then(|job| self.settings.job_rates.get(job)) {
            self.rates_of.insert(id.clone(), *rates);
        }
        self.tasks.push(id.clone());
        Ok(id)
    }

    fn schedule(&mut self, at: Millis, event: Event) {
        self.sequence += 1;
        self.heap.push(Reverse(Scheduled {
            at,
            sequence: self.sequence,
            event,
        }));
    }

    /// Runs until nothing is left, the duration ends, or a step breaks a rule; `progress`
    /// hears how many tasks have reached a final phase, and how many were submitted, after
    /// each step.
    pub(crate) fn run(mut self, progress: &mut dyn FnMut(u64, u64)) -> Run {
        // Crashes first, so a runner that crashes at 0 never claims.
        for crash in self.settings.crashes.clone() {
            self.schedule(
                crash.at,
                Event::Crash {
                    runner: crash.runner,
                },
            );
            if let Some(back) = crash.back {
                self.schedule(
                    back,
                    Event::Back {
                        runner: crash.runner,
                    },
                );
            }
        }
        for runner in 0..self.runners.len() {
            self.schedule(0, Event::Claim { runner });
        }
        self.plan_timers();
        let mut stop = Stop::Done;
        let mut violation = None;
        while let Some(Reverse(next)) = self.heap.pop() {
            if next.at > self.settings.duration_ms {
                self.now = self.settings.duration_ms;
                stop = Stop::Duration;
                break;
            }
            if self.tally.steps == MAX_STEPS {
                stop = Stop::Steps;
                break;
            }
            self.now = next.at;
            self.tally.steps += 1;
            if let Some(log) = &mut self.log {
                log.push((next.at, next.event.clone()));
            }
            if let Err(rule) = self.step(&next) {
                violation = Some(Violation {
                    at: next.at,
                    event: Described(&next.event, &self.runners).to_string(),
                    rule,
                });
                stop = Stop::Violation;
                break;
            }
            self.plan_timers();
            progress(self.tally.finished, self.tasks.len() as u64);
        }
        let end = match stop {
            Stop::Done => self.last_change,
            _ => self.now,
        };
        for bar in &mut self.bars {
            if bar.ending == Ending::Live {
                bar.to = end;
            }
        }
        Run {
            tally: self.tally,
            bars: self.bars,
            runners: self.runners,
            end,
            stop,
            violation,
            tasks: self.tasks,
            flows: self.flows.summaries(),
            schedules: self.schedules.summaries(),
            log: self.log,
        }
    }

    /// Schedules the reaper at the next lease expiry and the due event at the next retry,
    /// unless one is already scheduled as early.
    fn plan_timers(&mut self) {
        if let Some(at) = self.plane.next_expiry().map(super::clock::millis)
            && self.reap_at.is_none_or(|pending| at < pending)
        {
            self.reap_at = Some(at);
            self.schedule(at, Event::Reap);
        }
        if let Some(at) = self.plane.next_due().map(super::clock::millis)
            && self.due_at.is_none_or(|pending| at < pending)
        {
            self.due_at = Some(at);
            self.schedule(at, Event::Due);
        }
    }

    /// One step: the plane calls the event makes, then the rules on every task it changed.
    fn step(&mut self, next: &Scheduled) -> Result<(), String> {
        let changed = self
            .apply(next)
            .map_err(|err| format!("the control plane refused the step: {err}"))?;
        if !changed.is_empty() {
            self.last_change = self.now;
        }
        for task in changed {
            if let Some(observed) = self.plane.observe(&task) {
                self.pending.follow(observed.task);
                self.checker.check(&observed)?;
            }
        }
        Ok(())
    }

    /// Makes the plane calls of one event; the tasks they changed.
    fn apply(&mut self, next: &Scheduled) -> Result<Vec<TaskId>, PlaneError> {
        let now = instant(self.now);
        match &next.event {
            Event::Claim { runner } => self.claim(*runner),
            Event::Start { runner, claim } => {
                if !self
                    .runner(*runner)
                    .is_some_and(|r| r.holds(&claim.task, claim.lease))
                {
                    return Ok(Vec::new());
                }
                let started = self.plane.start(&claim.task, claim.lease, now);
                if self.cancel_refused(&claim.task, claim.lease, &started) {
                    return self.report(
                        *runner,
                        &claim.task,
                        claim.lease,
                        AttemptOutcome::Canceled,
                    );
                }
                if self
                    .gone(*runner, &claim.task, claim.lease, started)?
                    .is_none()
                {
                    return Ok(Vec::new());
                }
                let timeout = self
                    .plane
                    .observe(&claim.task)
                    .map_or(1, |o| o.task.spec().timeout().as_millis());
                let rates = self.rates(&claim.task);
                let (outcome, run_ms) = self.draw(rates, timeout);
                let (task, lease) = (claim.task.clone(), claim.lease);
                if self.settings.heartbeat_ms < run_ms {
                    let at = self.now.saturating_add(self.settings.heartbeat_ms);
                    self.schedule(
                        at,
                        Event::Heartbeat {
                            runner: *runner,
                            task: task.clone(),
                            lease,
                        },
                    );
                }
                let at = self.now.saturating_add(run_ms);
                self.schedule(
                    at,
                    Event::Finish {
                        runner: *runner,
                        task: task.clone(),
                        lease,
                        outcome,
                    },
                );
                Ok(vec![task])
            }
            Event::Heartbeat {
                runner,
                task,
                lease,
            } => {
                if !self.runner(*runner).is_some_and(|r| r.holds(task, *lease)) {
                    return Ok(Vec::new());
                }
                let beat = self
                    .plane
                    .heartbeat(task, *lease, self.settings.lease_ms, now);
                let Some(beat) = self.gone(*runner, task, *lease, beat)? else {
                    return Ok(Vec::new());
                };
                if beat.cancelling {
                    return self.report(*runner, task, *lease, AttemptOutcome::Canceled);
                }
                let at = self.now.saturating_add(self.settings.heartbeat_ms);
                self.schedule(
                    at,
                    Event::Heartbeat {
                        runner: *runner,
                        task: task.clone(),
                        lease: *lease,
                    },
                );
                Ok(if beat.applied.is_changed() {
                    vec![task.clone()]
                } else {
                    Vec::new()
                })
            }
            Event::Finish {
                runner,
                task,
                lease,
                outcome,
            } => self.report(*runner, task, *lease, *outcome),
            Event::Reap => {
                if self.reap_at != Some(next.at) {
                    return Ok(Vec::new());
                }
                self.reap_at = None;
                let reaped = self.plane.reap(now)?;
                let mut changed = Vec::with_capacity(reaped.len());
                for one in reaped {
                    self.tally.expirations += 1;
                    changed.extend(self.decided(&one.task, one.decision)?);
                    let lease = self
                        .plane
                        .observe(&one.task)
                        .and_then(|o| o.attempts.last().map(|run| run.lease()));
                    if let Some(lease) = lease {
                        self.close(&one.task, lease, Ending::Expired);
                    }
                    changed.push(one.task);
                }
                Ok(changed)
            }
            Event::Due => {
                if self.due_at != Some(next.at) {
                    return Ok(Vec::new());
                }
                self.due_at = None;
                if self.plane.release_due(now) > 0 {
                    self.wake();
                }
                Ok(Vec::new())
            }
            Event::Crash { runner } => {
                if let Some(r) = self.runners.get_mut(*runner) {
                    r.crash(self.now);
                }
                Ok(Vec::new())
            }
            Event::Tick => self.tick(),
            Event::Back { runner } => {
                if let Some(r) = self.runners.get_mut(*runner) {
                    r.back(self.now);
                }
                self.schedule(self.now, Event::Claim { runner: *runner });
                Ok(Vec::new())
            }
        }
    }

    fn runner(&self, runner: usize) -> Option<&RunnerSim> {
        self.runners.get(runner)
    }

    /// A runner that is up claims until it is full; it waits idle when nothing is free for
    /// it.
    fn claim(&mut self, runner: usize) -> Result<Vec<TaskId>, PlaneError> {
        let mut claimed = Vec::new();
        while let Some(sim) = self.runners.get(runner).filter(|r| r.may_claim()) {
            let id = sim.id.clone();
            let answer = self
                .plane
                .claim(&id, self.settings.lease_ms, instant(self.now))?;
            let bar = self.bars.len();
            let Some(sim) = self.runners.get_mut(runner) else {
                break;
            };
            let Some(claim) = answer else {
                sim.idle = true;
                break;
            };
            let place = sim.take(claim.task.clone(), claim.lease, bar);
            self.tally.attempts += 1;
            self.bars.push(Bar {
                runner,
                place,
                task: claim.task.clone(),
                attempt: claim.attempt,
                from: self.now,
                to: self.now,
                ending: Ending::Live,
            });
            self.open
                .insert((claim.task.clone(), claim.lease.as_u64()), bar);
            claimed.push(claim.task.clone());
            self.schedule(self.now, Event::Start { runner, claim });
        }
        Ok(claimed)
    }

    /// The answer to a runner call, or `None` when it found its lease gone: the runner drops
    /// the attempt and claims again (the reaper ends the attempt). Any other refusal is an
    /// error.
    fn gone<T>(
        &mut self,
        runner: usize,
        task: &TaskId,
        lease: LeaseId,
        answer: Result<T, PlaneError>,
    ) -> Result<Option<T>, PlaneError> {
        match answer {
            Ok(value) => Ok(Some(value)),
            Err(err) if err.is_gone() => {
                self.tally.gone += 1;
                self.free(runner, task, lease);
                Ok(None)
            }
            Err(err) => Err(err),
        }
    }

    /// The runner is done with the attempt of `lease` and asks for work at once.
    fn free(&mut self, runner: usize, task: &TaskId, lease: LeaseId) {
        if let Some(sim) = self.runners.get_mut(runner) {
            sim.drop_attempt(task, lease);
        }
        self.schedule(self.now, Event::Claim { runner });
    }

    /// Ends the bar of `lease` at now.
    fn close(&mut self, task: &TaskId, lease: LeaseId, ending: Ending) {
        let Some(index) = self.open.remove(&(task.clone(), lease.as_u64())) else {
            return;
        };
        if let Some(bar) = self.bars.get_mut(index) {
            bar.to = self.now;
            bar.ending = ending;
            if let Some(runner) = self.runners.get_mut(bar.runner) {
                runner.close(index);
            }
        }
    }

    /// Idle runners that fit a pending task claim again: work was queued, or a slot or a
    /// place freed.
    fn wake(&mut self) {
        for runner in 0..self.runners.len() {
            let Some(sim) = self.runners.get_mut(runner) else {
                continue;
            };
            // Only a runner that fits a pending task may find one; it is woken once until
            // its claim runs.
            if sim.idle && self.pending.fits(sim) {
                sim.idle = false;
                self.schedule(self.now, Event::Claim { runner });
            }
        }
    }

    /// Counts a restart decision: a retry, or a task that reached a final phase, which its
    /// flow hears of; the tasks of the jobs that became ready are submitted now.
    fn decided(
        &mut self,
        task: &TaskId,
        decision: RestartDecision,
    ) -> Result<Vec<TaskId>, PlaneError> {
        // The task left Running: its slot, and its runner's place, are free for a task a
        // runner was refused.
        self.wake();
        if let RestartDecision::Restart { .. } = decision {
            self.tally.retries += 1;
            return Ok(Vec::new());
        }
        self.tally.finished += 1;
        self.tally.last_final = self.now;
        let next = self
            .flows
            .ended(task, decision, self.now)
            .map_err(PlaneError::Flow)?;
        let mut submitted = Vec::with_capacity(next.len());
        for manifest in next {
            submitted.push(self.submit_one(manifest, None)?);
        }
        // A tick its schedule buffered while the task ran starts now.
        if let Some((job, manifest)) = self.schedules.ended(task).map_err(PlaneError::Flow)? {
            submitted.push(self.submit_one(manifest, Some(&job))?);
        }
        if !submitted.is_empty() {
            self.wake();
        }
        Ok(submitted)
    }

    /// The rates of `task`: its job's, or the overall ones.
    fn rates(&self, task: &TaskId) -> Rates {
        self.rates_of
            .get(task)
            .copied()
            .unwrap_or(self.settings.rates)
    }

    /// An attempt's outcome and run time at `rates` ([`draw::draw`]).
    fn draw(&mut self, rates: Rates, timeout_ms: Millis) -> (AttemptOutcome, Millis) {
        draw::draw(&mut self.rng, self.settings.attempt_ms, rates, timeout_ms)
    }
}

#[cfg(test)]
mod tests;
