#![allow(clippy::unwrap_used, reason = "tests fail on any error")]

use std::collections::BTreeMap;

use taskmodel::fleet::{KindSet, Runner};
use taskmodel::ids::ActionId;
use taskmodel::schedule::Action;
use taskmodel::task::{AttemptResult, Task, TaskManifest, TaskRun, TaskSpec};
use taskmodel::{Applied, LeaseId, RunnerId, TenantId};

use super::*;
use crate::simulate::flow::Flows;
use crate::simulate::plane::{Beat, Claim, MemoryPlane, Observed, Reaped};
use crate::simulate::schedule::Schedules;

/// A spec that retries failures three times, run by any runner labeled `zone=eu`.
const SPEC: &str = r#"{
    "slot": "job",
    "kind": {"type": "subprocess", "mode": {"type": "command", "command": "/bin/true"}},
    "timeoutMs": 5000,
    "restart": "onFailure",
    "backoff": {"jitter": "full", "firstMs": 200, "maxMs": 2000, "factor": 2.0},
    "runnerSelector": {"matchLabels": {"zone": "eu"}},
    "maxRetries": 3
}"#;

fn settings() -> Settings {
    Settings {
        lease_ms: 3_000,
        heartbeat_ms: 1_000,
        attempt_ms: 1_000,
        duration_ms: 3_600_000,
        rates: Rates {
            fail: 0.2,
            timeout: 0.05,
        },
        job_rates: BTreeMap::new(),
        crashes: Vec::new(),
    }
}

/// A plane with `tasks` copies of [`SPEC`] (each in its own slot) and runners `eu-0`..
/// `eu-{n-1}` plus `us-0`.
fn setup<P: ControlPlane>(
    plane: &mut P,
    tasks: usize,
    runners: usize,
) -> (Vec<RunnerSim>, Vec<(String, TaskManifest)>) {
    let spec: TaskSpec = serde_json::from_str(SPEC).unwrap();
    let mut sims = Vec::new();
    let zones = (0..runners)
        .map(|i| (format!("eu-{i}"), "eu"))
        .chain([("us-0".to_owned(), "us")]);
    for (name, zone) in zones {
        let id = RunnerId::new(&name).unwrap();
        let labels = Labels::from_pairs([("zone", zone)]).unwrap();
        let runner = Runner::builder(id.clone(), KindSet::ALL)
            .labels(labels.clone())
            .build()
            .unwrap();
        plane.register(runner, instant(0)).unwrap();
        sims.push(RunnerSim::new(id, labels, KindSet::ALL, 1));
    }
    let manifests = (0..tasks)
        .map(|i| {
            let mut value = serde_json::to_value(&spec).unwrap();
            value["slot"] = format!("job-{i}").into();
            let spec: TaskSpec = serde_json::from_value(value).unwrap();
            let manifest = TaskManifest::named(TaskId::new(format!("job-{i}")).unwrap(), spec);
            ("job".to_owned(), manifest)
        })
        .collect();
    (sims, manifests)
}

use taskmodel::selector::Labels;

fn memory(seed: u64) -> MemoryPlane {
    MemoryPlane::new(TenantId::new("t").unwrap(), SeededRandom::new(seed))
}

fn simulate(
    seed: u64,
    settings: Settings,
    tasks: usize,
    runners: usize,
) -> (Run, MemoryPlane, Vec<TaskId>) {
    let mut plane = memory(seed);
    let (sims, manifests) = setup(&mut plane, tasks, runners);
    let mut engine = Engine::new(&mut plane, sims, settings, SeededRandom::new(seed)).with_log();
    engine
        .submit(manifests, Flows::default(), Schedules::default())
        .unwrap();
    let run = engine.run(&mut |_, _| {});
    let ids = run.tasks.clone();
    (run, plane, ids)
}

#[test]
fn the_same_seed_takes_the_same_steps_and_another_seed_does_not() {
    let (a, _, _) = simulate(7, settings(), 50, 4);
    let (b, _, _) = simulate(7, settings(), 50, 4);
    assert_eq!(a.log, b.log);
    assert_eq!(a.bars, b.bars);
    assert_eq!(a.tally, b.tally);
    let (c, _, _) = simulate(8, settings(), 50, 4);
    assert_ne!(a.bars, c.bars);
}

#[test]
fn the_counts_agree_with_the_steps_and_the_tasks() {
    let mut with_crash = settings();
    with_crash.crashes = vec![Crash {
        runner: 0,
        at: 2_500,
        back: None,
    }];
    let (run, plane, ids) = simulate(3, with_crash, 60, 4);
    assert_eq!(run.stop, Stop::Done);
    assert!(run.violation.is_none());
    let log = run.log.as_ref().unwrap();
    let starts = log
        .iter()
        .filter(|(_, e)| matches!(e, Event::Start { .. }))
        .count();
    assert_eq!(run.tally.attempts, starts as u64, "one start per claim");
    assert_eq!(run.bars.len() as u64, run.tally.attempts);
    let mut attempts = 0;
    let mut finals = 0;
    let mut expired = 0;
    for id in &ids {
        let observed = plane.observe(id).unwrap();
        attempts += observed.attempts.len() as u64;
        finals += u64::from(observed.task.phase().is_final());
        expired += observed
            .attempts
            .iter()
            .filter(|run| run.state() == taskmodel::AttemptState::Expired)
            .count() as u64;
    }
    assert_eq!(attempts, run.tally.attempts);
    assert_eq!(finals, run.tally.finished);
    assert_eq!(finals, ids.len() as u64, "every task ends");
    assert_eq!(expired, run.tally.expirations);
    assert!(expired >= 1, "the crashed runner's lease expires");
    // Every attempt after a task's first is a retry.
    assert_eq!(run.tally.retries, attempts - ids.len() as u64);
    // The runner in the other zone never runs a task; the crashed one stops at its crash.
    assert!(run.bars.iter().all(|bar| bar.runner != 4));
    assert!(
        run.bars
            .iter()
            .filter(|bar| bar.runner == 0)
            .all(|bar| bar.from <= 2_500)
    );
    assert_eq!(run.end, run.tally.last_final);
}

#[test]
fn the_duration_stops_a_run_with_attempts_live() {
    let mut short = settings();
    short.duration_ms = 1_500;
    let (run, _, _) = simulate(1, short, 50, 2);
    assert_eq!(run.stop, Stop::Duration);
    assert_eq!(run.end, 1_500);
    assert!(
        run.bars
            .iter()
            .any(|bar| bar.ending == Ending::Live && bar.to == 1_500)
    );
}

/// A plane that answers with what it was asked to break: a task's version as first
/// submitted (so versions never go up), or a live attempt twice.
struct Faulty {
    inner: MemoryPlane,
    stale: BTreeMap<TaskId, Task>,
    doubled: BTreeMap<TaskId, Vec<TaskRun>>,
    double: bool,
}

impl ControlPlane for Faulty {
    fn register(
        &mut self,
        runner: Runner,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), PlaneError> {
        self.inner.register(runner, now)
    }
    fn submit(
        &mut self,
        manifest: TaskManifest,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), PlaneError> {
        let id = manifest.metadata().name().clone();
        self.inner.submit(manifest, now)?;
        if !self.double {
            let task = self.inner.observe(&id).unwrap().task.clone();
            self.stale.insert(id, task);
        }
        Ok(())
    }
    fn claim(
        &mut self,
        runner: &RunnerId,
        lease_ms: Millis,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<Claim>, PlaneError> {
        let claim = self.inner.claim(runner, lease_ms, now)?;
        if let (true, Some(claim)) = (self.double, &claim) {
            let mut runs = self.inner.observe(&claim.task).unwrap().attempts.to_vec();
            runs.push(runs.last().unwrap().clone());
            self.doubled.insert(claim.task.clone(), runs);
        }
        Ok(claim)
    }
    fn start(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Applied, PlaneError> {
        self.inner.start(task, lease, now)
    }
    fn heartbeat(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        lease_ms: Millis,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Beat, PlaneError> {
        self.inner.heartbeat(task, lease, lease_ms, now)
    }
    fn cancel(
        &mut self,
        task: &TaskId,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Applied, PlaneError> {
        self.inner.cancel(task, now)
    }
    fn finish(
        &mut self,
        task: &TaskId,
        lease: LeaseId,
        result: AttemptResult,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Applied<RestartDecision>, PlaneError> {
        self.inner.finish(task, lease, result, now)
    }
    fn reap(&mut self, now: chrono::DateTime<chrono::Utc>) -> Result<Vec<Reaped>, PlaneError> {
        self.inner.reap(now)
    }
    fn next_expiry(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        self.inner.next_expiry()
    }
    fn release_due(&mut self, now: chrono::DateTime<chrono::Utc>) -> usize {
        self.inner.release_due(now)
    }
    fn next_due(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        self.inner.next_due()
    }
    fn add_action(&mut self, action: &Action) -> Result<(), PlaneError> {
        self.inner.add_action(action)
    }
    fn fire_due(&mut self, now: chrono::DateTime<chrono::Utc>) -> Result<Vec<Action>, PlaneError> {
        self.inner.fire_due(now)
    }
    fn finish_action(
        &mut self,
        action: ActionId,
        result: serde_json::Value,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), PlaneError> {
        self.inner.finish_action(action, result, now)
    }
    fn observe(&self, task: &TaskId) -> Option<Observed<'_>> {
        let observed = self.inner.observe(task)?;
        Some(Observed {
            task: self.stale.get(task).unwrap_or(observed.task),
            attempts: self
                .doubled
                .get(task)
                .map_or(observed.attempts, Vec::as_slice),
        })
    }
}

fn broken(double: bool) -> Run {
    let mut plane = Faulty {
        inner: memory(1),
        stale: BTreeMap::new(),
        doubled: BTreeMap::new(),
        double,
    };
    let (sims, manifests) = setup(&mut plane, 3, 2);
    let mut engine = Engine::new(&mut plane, sims, settings(), SeededRandom::new(1));
    engine
        .submit(manifests, Flows::default(), Schedules::default())
        .unwrap();
    engine.run(&mut |_, _| {})
}

#[test]
fn a_version_that_does_not_go_up_stops_the_run_at_its_step() {
    let run = broken(false);
    assert_eq!(run.stop, Stop::Violation);
    let violation = run.violation.unwrap();
    assert_eq!(violation.at, 0);
    assert_eq!(violation.event, "claim by eu-0");
    assert_eq!(
        violation.rule,
        "task job-0: the version went from 1 to 1 in a step that changed it"
    );
    assert_eq!(run.tally.steps, 1, "nothing runs after the broken step");
}

#[test]
fn two_live_attempts_stop_the_run_at_their_step() {
    let run = broken(true);
    assert_eq!(run.stop, Stop::Violation);
    let violation = run.violation.unwrap();
    assert_eq!(
        (violation.at, violation.event.as_str()),
        (0, "claim by eu-0")
    );
    assert_eq!(
        violation.rule,
        "task job-0: attempts 1 and 1 are live at once"
    );
}

#[test]
fn draws_stay_in_their_bands() {
    let mut plane = memory(0);
    let (sims, _) = setup(&mut plane, 0, 1);
    assert_eq!(sims.len(), 2);
    // (fail rate, timeout rate, timeout ms) -> the outcomes that may come out.
    let cases = [
        (0.0, 0.0, 5_000, &[AttemptOutcome::Succeeded][..]),
        (1.0, 0.0, 5_000, &[AttemptOutcome::Failed][..]),
        (0.0, 1.0, 5_000, &[AttemptOutcome::Timeout][..]),
        // Every run time (500 to 1500 ms) reaches a 500 ms timeout.
        (0.0, 0.0, 500, &[AttemptOutcome::Timeout][..]),
    ];
    for (fail_rate, timeout_rate, timeout, allowed) in cases {
        let rates = Rates {
            fail: fail_rate,
            timeout: timeout_rate,
        };
        let mut engine = Engine::new(&mut plane, Vec::new(), settings(), SeededRandom::new(5));
        for _ in 0..200 {
            let (outcome, run_ms) = engine.draw(rates, timeout);
            assert!(
                allowed.contains(&outcome),
                "{outcome:?} for {fail_rate} {timeout_rate}"
            );
            let band = if outcome == AttemptOutcome::Timeout {
                timeout..=timeout
            } else {
                500..=1_500
            };
            assert!(band.contains(&run_ms), "{run_ms}");
        }
    }
}
