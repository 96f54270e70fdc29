//! Property tests on random flows: the order respects every dependency and breaks ties by
//! declaration, levels are what they say, every cycle is found and reported as a real one,
//! a run always ends with every job final and agrees step by step with a plain reference
//! (recounting every dependency, and rolling up the status from the table), the step over
//! rows (as a store keeps a run) gives exactly the states a `FlowRun` gives, runs and flows
//! read back equal, and storage keys never collide.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use std::collections::{BTreeSet, HashSet};

use chrono::DateTime;
use model_flow::{
    FailurePolicy, FlowError, FlowJob, FlowJobs, FlowRun, FlowSpec, FlowStatus, JobCounts, JobRow,
    JobState, SkipReason, StateChange, TriggerRule, attempt_end, cancel_jobs, end_job, flow_key,
    run_key, schedule_key, task_key,
};
use model_ids::{FlowId, JobName, ScheduleId, TaskId, TenantId};
use model_task::{RestartDecision, TaskEnv, TaskKind, TaskPhase, TaskSpec};
use proptest::prelude::*;

mod common;
use common::reaches;

/// A random flow: `deps[i]` are the positions job `i` depends on, `rules[i]` its rule.
#[derive(Debug, Clone)]
struct Shape {
    deps: Vec<Vec<usize>>,
    rules: Vec<TriggerRule>,
    policy: FailurePolicy,
    ttl: Option<u64>,
}

/// A DAG of 1 to `max` jobs declared in a shuffled order: job ranks are a random
/// permutation of positions (or the positions themselves), and a job depends only on jobs
/// of lower rank.
fn dag(max: usize) -> impl Strategy<Value = Shape> {
    dag_of(1, max)
}

/// A DAG of `min` to `max` jobs, as [`dag`] makes them.
fn dag_of(min: usize, max: usize) -> impl Strategy<Value = Shape> {
    (min..=max)
        .prop_flat_map(|n| {
            // Half the flows declare each job after its dependencies (the order is then the
            // declaration's), the others in any order.
            let declared = Just((0..n).collect::<Vec<usize>>());
            let ranks = prop_oneof![declared.clone(), declared.prop_shuffle()];
            let edges = proptest::collection::vec(proptest::collection::vec(any::<bool>(), n), n);
            let rules =
                proptest::collection::vec(proptest::sample::select(TriggerRule::ALL.to_vec()), n);
            let policy = prop_oneof![Just(FailurePolicy::FailFast), Just(FailurePolicy::Continue)];
            let ttl = proptest::option::of(0..=model_task::spec::MAX_TTL_AFTER_FINISHED_MS);
            (ranks, edges, rules, policy, ttl)
        })
        .prop_map(|(ranks, edges, rules, policy, ttl)| {
            let n = ranks.len();
            let deps = (0..n)
                .map(|i| {
                    (0..n)
                        .filter(|&j| ranks[j] < ranks[i] && edges[i][j])
                        .collect()
                })
                .collect();
            Shape {
                deps,
                rules,
                policy,
                ttl,
            }
        })
}

fn name(i: usize) -> String {
    format!("j{i}")
}

fn spec() -> TaskSpec {
    let kind = TaskKind::wasm("m.wasm".into(), vec![], TaskEnv::empty()).unwrap();
    TaskSpec::builder("s", kind, 1_000).build().unwrap()
}

fn build(shape: &Shape) -> Result<FlowSpec, FlowError> {
    let spec = spec();
    let jobs = shape.deps.iter().enumerate().map(|(i, deps)| {
        let deps = deps
            .iter()
            .map(|&d| JobName::new(name(d)).unwrap())
            .collect();
        FlowJob::new(
            JobName::new(name(i)).unwrap(),
            spec.clone(),
            deps,
            shape.rules[i],
        )
    });
    let builder = FlowSpec::builder("f").failure_policy(shape.policy);
    let builder = match shape.ttl {
        Some(ms) => builder.ttl_after_finished_ms(ms),
        None => builder,
    };
    builder.jobs(jobs).build()
}

/// The order by the definition: repeatedly the first declared job whose dependencies are
/// all placed.
fn reference_order(deps: &[Vec<usize>]) -> Vec<usize> {
    let mut placed = vec![false; deps.len()];
    let mut order = Vec::new();
    while let Some(next) =
        (0..deps.len()).find(|&i| !placed[i] && deps[i].iter().all(|&d| placed[d]))
    {
        placed[next] = true;
        order.push(next);
    }
    order
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn order_respects_every_dependency_and_breaks_ties_by_declaration(shape in dag(40)) {
        let flow = build(&shape).unwrap();
        let graph = flow.graph();
        let order: Vec<usize> = graph.order().collect();
        prop_assert_eq!(&order, &reference_order(&shape.deps));
        let mut place = vec![0; order.len()];
        for (at, &job) in order.iter().enumerate() {
            place[job] = at;
        }
        for (job, deps) in shape.deps.iter().enumerate() {
            for &dep in deps {
                prop_assert!(place[dep] < place[job]);
            }
            let want = deps.iter().map(|&d| graph.level(d).unwrap() + 1).max().unwrap_or(0);
            prop_assert_eq!(graph.level(job), Some(want));
            prop_assert_eq!(graph.dependencies(job).collect::<Vec<_>>(), deps.clone());
        }
        let levels = graph.levels();
        prop_assert_eq!(levels.iter().map(Vec::len).sum::<usize>(), shape.deps.len());
        for (level, jobs) in levels.iter().enumerate() {
            prop_assert!(!jobs.is_empty());
            prop_assert!(jobs.windows(2).all(|w| w[0] < w[1]));
            for &job in jobs {
                prop_assert_eq!(graph.level(job), Some(level));
            }
        }
        prop_assert_eq!(flow.ttl_after_finished_ms(), shape.ttl);
        let back: FlowSpec = serde_json::from_str(&serde_json::to_string(&flow).unwrap()).unwrap();
        prop_assert_eq!(back, flow);
    }

    #[test]
    fn every_cycle_is_found_and_is_real(
        shape in dag_of(2, 30),
        extra in proptest::collection::vec(any::<prop::sample::Index>(), 1..4),
    ) {
        // Close cycles: a job comes to depend on one that (through others) depends on it.
        let mut deps = shape.deps.clone();
        let n = deps.len();
        let mut reach = reaches(&deps);
        if !reach.iter().flatten().any(|&r| r) {
            deps[1].push(0);
            reach = reaches(&deps);
        }
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|a| (0..n).map(move |b| (a, b)))
            .filter(|&(a, b)| reach[a][b])
            .collect();
        for index in &extra {
            let (a, b) = pairs[index.index(pairs.len())];
            if !deps[a].contains(&b) {
                deps[a].push(b);
            }
        }
        let cyclic = Shape { deps: deps.clone(), ..shape };
        let err = build(&cyclic).unwrap_err();
        let FlowError::Cycle { cycles, unreported } = &err else {
            panic!("{err}");
        };
        // One cycle per group of jobs that reach each other.
        let reach = reaches(&deps);
        let mut groups = BTreeSet::new();
        for (i, row) in reach.iter().enumerate() {
            if row[i] {
                let first = (0..n).find(|&j| row[j] && reach[j][i]).unwrap();
                groups.insert(first);
            }
        }
        prop_assert_eq!(cycles.len() + unreported, groups.len());
        for cycle in cycles {
            let path: Vec<usize> = cycle.jobs().iter().map(|j| j[1..].parse().unwrap()).collect();
            prop_assert!(path.len() >= 3);
            prop_assert_eq!(path.first(), path.last());
            prop_assert!(groups.contains(&path[0]), "starts at the first job of its group");
            let inner: HashSet<usize> = path[1..].iter().copied().collect();
            prop_assert_eq!(inner.len(), path.len() - 1, "each job once");
            for step in path.windows(2) {
                prop_assert!(deps[step[1]].contains(&step[0]), "{} -> {} is an edge", step[0], step[1]);
            }
            let closing = deps[path[0]].iter().position(|&d| d == path[path.len() - 2]).unwrap();
            prop_assert_eq!(cycle.path(), format!("jobs[{}].dependsOn[{closing}]", path[0]));
        }
    }

    #[test]
    fn a_run_ends_with_every_job_final_and_agrees_with_the_reference(
        shape in dag(24),
        script in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..8), 1..80),
        cancel_at in proptest::option::of(0usize..80),
    ) {
        let flow = build(&shape).unwrap();
        let mut run = FlowRun::new(&flow);
        let mut reference = Reference::new(&shape);
        let mut steps = script.iter().cycle();
        // Each job retries at most twice; its third attempt ends as the script says, or well.
        let mut retries = vec![0; shape.deps.len()];
        for step in 0..10_000 {
            check_agree(&run, &reference)?;
            if cancel_at == Some(step) {
                let changes = run.cancel();
                prop_assert_eq!(names_of(changes.changed()), reference.cancel());
                continue;
            }
            let startable: Vec<usize> = (0..shape.deps.len())
                .filter(|&i| matches!(reference.states[i], JobState::Ready | JobState::Running))
                .collect();
            if startable.is_empty() {
                break;
            }
            let (pick, outcome) = steps.next().unwrap();
            let job = startable[pick.index(startable.len())];
            let job_name = name(job);
            run.start(&job_name).unwrap();
            reference.start(job);
            let decision = match decision(*outcome) {
                RestartDecision::Restart { .. } if retries[job] >= 2 => decision(0),
                other => other,
            };
            if matches!(decision, RestartDecision::Restart { .. }) {
                retries[job] += 1;
            }
            let changes = run.end_attempt(&job_name, decision, None).unwrap();
            prop_assert_eq!(names_of(changes.changed()), reference.end(job, decision));
            if step % 7 == 0 {
                let back: FlowRun = serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
                prop_assert_eq!(&back, &run);
            }
        }
        check_agree(&run, &reference)?;
        prop_assert!(run.is_done(), "every job final: {:?}", run.states().collect::<Vec<_>>());
        let back: FlowRun = serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
        prop_assert_eq!(back, run);
    }

    #[test]
    fn the_row_form_of_the_step_gives_the_states_a_flow_run_gives(
        shape in dag(24),
        script in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..8), 1..80),
        cancel_at in proptest::option::of(0usize..80),
    ) {
        let flow = build(&shape).unwrap();
        let mut run = FlowRun::new(&flow);
        let mut rows = Rows::new(run.graph(), shape.policy);
        let mut steps = script.iter().cycle();
        let mut retries = vec![0; shape.deps.len()];
        for step in 0..10_000 {
            prop_assert_eq!(&rows.states(), &run.states().map(|(_, s)| s).collect::<Vec<_>>());
            prop_assert_eq!(rows.counts.status(), run.status());
            prop_assert_eq!(rows.counts.all_final(), run.is_done());
            if cancel_at == Some(step) {
                let changes = run.cancel();
                let changed = rows.cancel();
                prop_assert_eq!(names_of(changes.changed()), changed);
                continue;
            }
            let startable: Vec<usize> = (0..shape.deps.len())
                .filter(|&i| matches!(rows.rows[i].state, JobState::Ready | JobState::Running))
                .collect();
            if startable.is_empty() {
                break;
            }
            let (pick, outcome) = steps.next().unwrap();
            let job = startable[pick.index(startable.len())];
            run.start(&name(job)).unwrap();
            rows.start(job);
            let decision = match decision(*outcome) {
                RestartDecision::Restart { .. } if retries[job] >= 2 => decision(0),
                other => other,
            };
            if matches!(decision, RestartDecision::Restart { .. }) {
                retries[job] += 1;
            }
            let changes = run.end_attempt(&name(job), decision, None).unwrap();
            let changed = rows.end(job, decision);
            prop_assert_eq!(names_of(changes.changed()), changed);
        }
        prop_assert!(rows.counts.all_final());
    }

    #[test]
    fn storage_keys_never_collide(
        a in ("[ab.]{1,3}", "[a-z0-9._-]{1,6}", 0usize..5, any::<u32>()),
        b in ("[ab.]{1,3}", "[a-z0-9._-]{1,6}", 0usize..5, any::<u32>()),
    ) {
        let key = |(tenant, id, resource, attempt): &(String, String, usize, u32)| -> Option<String> {
            let tenant = TenantId::new(tenant).ok()?;
            Some(match resource {
                0 => task_key(&tenant, &TaskId::new(id).ok()?),
                1 => run_key(&tenant, &TaskId::new(id).ok()?, *attempt),
                2 => flow_key(&tenant, &FlowId::new(id).ok()?),
                3 => schedule_key(&tenant, &ScheduleId::new(id).ok()?),
                _ => model_flow::run_key_prefix(&tenant, &TaskId::new(id).ok()?),
            })
        };
        let (Some(ka), Some(kb)) = (key(&a), key(&b)) else {
            return Ok(());
        };
        // Only a run key reads the attempt.
        let same = a.0 == b.0 && a.1 == b.1 && a.2 == b.2 && (a.2 != 1 || a.3 == b.3);
        prop_assert_eq!(ka == kb, same, "{} and {}", ka, kb);
    }
}

/// The decision for a scripted outcome: mostly successes and failures, some retries.
fn decision(outcome: u8) -> RestartDecision {
    match outcome {
        0..=2 => RestartDecision::Final(TaskPhase::Succeeded),
        3 => RestartDecision::Final(TaskPhase::Failed),
        4 => RestartDecision::Final(TaskPhase::Timeout),
        5 => RestartDecision::Exhausted,
        6 => RestartDecision::Final(TaskPhase::Canceled),
        _ => RestartDecision::Restart {
            retry: 1,
            delay_ms: 1,
            at: DateTime::UNIX_EPOCH,
        },
    }
}

fn names_of(changes: &[model_flow::JobChange]) -> Vec<(usize, JobState)> {
    changes.iter().map(|c| (c.position(), c.to())).collect()
}

fn check_agree(run: &FlowRun, reference: &Reference) -> Result<(), TestCaseError> {
    let states: Vec<JobState> = run.states().map(|(_, s)| s).collect();
    prop_assert_eq!(&states, &reference.states);
    let status = reference_status(&states);
    prop_assert_eq!(run.status(), status);
    prop_assert_eq!(FlowStatus::of(states.iter().copied()), status);
    prop_assert_eq!(run.is_done(), states.iter().all(|s| s.is_final()));
    let ready: Vec<String> = run.ready().map(ToString::to_string).collect();
    let want: Vec<String> = (0..states.len())
        .filter(|&i| states[i] == JobState::Ready)
        .map(name)
        .collect();
    prop_assert_eq!(ready, want);
    Ok(())
}

/// The roll-up, from the table in the docs.
fn reference_status(states: &[JobState]) -> FlowStatus {
    let any = |f: &dyn Fn(&JobState) -> bool| states.iter().any(f);
    if any(&|s| {
        matches!(
            s,
            JobState::Canceled | JobState::Skipped(SkipReason::Canceled)
        )
    }) {
        FlowStatus::Canceled
    } else if any(&|s| *s == JobState::Failed) {
        FlowStatus::Error
    } else if states.iter().all(|s| s.is_final()) {
        FlowStatus::Finished
    } else if any(&|s| !matches!(s, JobState::Waiting | JobState::Ready)) {
        FlowStatus::Started
    } else {
        FlowStatus::Dispatched
    }
}

/// A plain flow run: no counters, every decision recounts the dependencies' states.
struct Reference {
    deps: Vec<Vec<usize>>,
    rules: Vec<TriggerRule>,
    policy: FailurePolicy,
    states: Vec<JobState>,
    failed_once: bool,
}

impl Reference {
    fn new(shape: &Shape) -> Self {
        let states = shape
            .deps
            .iter()
            .map(|d| {
                if d.is_empty() {
                    JobState::Ready
                } else {
                    JobState::Waiting
                }
            })
            .collect();
        Self {
            deps: shape.deps.clone(),
            rules: shape.rules.clone(),
            policy: shape.policy,
            states,
            failed_once: false,
        }
    }

    fn start(&mut self, job: usize) {
        self.states[job] = JobState::Running;
    }

    fn end(&mut self, job: usize, decision: RestartDecision) -> Vec<(usize, JobState)> {
        let state = match decision.phase() {
            TaskPhase::Succeeded => JobState::Succeeded,
            TaskPhase::Canceled => JobState::Canceled,
            TaskPhase::Pending => return Vec::new(),
            _ => JobState::Failed,
        };
        let mut changes = vec![(job, state)];
        self.states[job] = state;
        let mut queue = vec![job];
        if matches!(state, JobState::Failed | JobState::Canceled) {
            if self.policy == FailurePolicy::FailFast && !self.failed_once {
                for k in 0..self.states.len() {
                    let asks_success = matches!(
                        self.rules[k],
                        TriggerRule::AllSucceeded
                            | TriggerRule::AnySucceeded
                            | TriggerRule::NoneFailed
                    );
                    if matches!(self.states[k], JobState::Waiting | JobState::Ready) && asks_success
                    {
                        self.states[k] = JobState::Skipped(SkipReason::FailFast);
                        changes.push((k, self.states[k]));
                        queue.push(k);
                    }
                }
            }
            self.failed_once = true;
        }
        self.decide(queue, &mut changes);
        changes
    }

    fn cancel(&mut self) -> Vec<(usize, JobState)> {
        let mut changes = Vec::new();
        for k in 0..self.states.len() {
            if matches!(self.states[k], JobState::Waiting | JobState::Ready) {
                self.states[k] = JobState::Skipped(SkipReason::Canceled);
                changes.push((k, self.states[k]));
            }
        }
        changes
    }

    /// Decides the waiting dependents of each queued job, breadth first.
    fn decide(&mut self, mut queue: Vec<usize>, changes: &mut Vec<(usize, JobState)>) {
        let mut next = 0;
        while next < queue.len() {
            let job = queue[next];
            next += 1;
            for dependent in 0..self.deps.len() {
                if !self.deps[dependent].contains(&job)
                    || self.states[dependent] != JobState::Waiting
                {
                    continue;
                }
                if let Some(state) = self.rule_says(dependent) {
                    self.states[dependent] = state;
                    changes.push((dependent, state));
                    if state != JobState::Ready {
                        queue.push(dependent);
                    }
                }
            }
        }
    }

    /// What the job's rule says from its dependencies' states, by Airflow's definitions.
    fn rule_says(&self, job: usize) -> Option<JobState> {
        let deps: Vec<JobState> = self.deps[job].iter().map(|&d| self.states[d]).collect();
        let total = deps.len();
        let succeeded = deps.iter().filter(|s| **s == JobState::Succeeded).count();
        let failed = deps
            .iter()
            .filter(|s| {
                matches!(
                    s,
                    JobState::Failed
                        | JobState::Canceled
                        | JobState::Skipped(SkipReason::UpstreamFailed)
                )
            })
            .count();
        let done = deps.iter().filter(|s| s.is_final()).count();
        let skipped = done - succeeded - failed;
        let all_done = done == total;
        let upstream_failed = Some(JobState::Skipped(SkipReason::UpstreamFailed));
        let not_triggered = Some(JobState::Skipped(SkipReason::NotTriggered));
        match self.rules[job] {
            TriggerRule::AllSucceeded if failed > 0 => upstream_failed,
            TriggerRule::AllSucceeded if skipped > 0 => not_triggered,
            TriggerRule::AllSucceeded if succeeded == total => Some(JobState::Ready),
            TriggerRule::AllDone if all_done => Some(JobState::Ready),
            TriggerRule::AnySucceeded if succeeded > 0 => Some(JobState::Ready),
            TriggerRule::AnySucceeded if all_done && skipped == total => not_triggered,
            TriggerRule::AnySucceeded if all_done => upstream_failed,
            TriggerRule::AnyFailed if failed > 0 => Some(JobState::Ready),
            TriggerRule::AnyFailed if all_done => not_triggered,
            TriggerRule::NoneFailed if failed > 0 => upstream_failed,
            TriggerRule::NoneFailed if all_done => Some(JobState::Ready),
            _ => None,
        }
    }
}

/// A run kept as a store keeps it: one [`JobRow`] per job with its dependents' positions,
/// the counts and whether a job failed, moved on only by model-flow's public step.
struct Rows {
    rows: Vec<JobRow>,
    dependents: Vec<Vec<u32>>,
    counts: JobCounts,
    policy: FailurePolicy,
    failure_seen: bool,
}

impl Rows {
    fn new(graph: &model_flow::FlowGraph, policy: FailurePolicy) -> Self {
        let rows: Vec<JobRow> = (0..graph.len())
            .map(|i| JobRow::new(graph.rule(i).unwrap(), graph.dependencies(i).len() as u32))
            .collect();
        Self {
            counts: JobCounts::of(rows.iter().map(|r| r.state)),
            rows,
            dependents: (0..graph.len())
                .map(|i| graph.dependents(i).map(|d| d as u32).collect())
                .collect(),
            policy,
            failure_seen: false,
        }
    }

    fn states(&self) -> Vec<JobState> {
        self.rows.iter().map(|r| r.state).collect()
    }

    fn start(&mut self, job: usize) {
        if self.rows[job].state == JobState::Ready {
            self.counts.change(JobState::Ready, JobState::Running);
            self.rows[job].state = JobState::Running;
        }
    }

    fn end(&mut self, job: usize, decision: RestartDecision) -> Vec<(usize, JobState)> {
        let name = JobName::new(name(job)).unwrap();
        let state = self.rows[job].state;
        let Some(to) = attempt_end(&name, state, None, &decision, None, 0).unwrap() else {
            return Vec::new();
        };
        let seen = self.failure_seen;
        self.failure_seen |= matches!(to, JobState::Failed | JobState::Canceled);
        let policy = self.policy;
        let changes = end_job(&mut *self, job as u32, to, policy, seen).unwrap();
        self.count(&changes)
    }

    fn cancel(&mut self) -> Vec<(usize, JobState)> {
        let changes = cancel_jobs(&mut *self).unwrap();
        self.count(&changes)
    }

    fn count(&mut self, changes: &[StateChange]) -> Vec<(usize, JobState)> {
        for change in changes {
            self.counts.change(change.from, change.to);
        }
        changes
            .iter()
            .map(|c| (c.position as usize, c.to))
            .collect()
    }
}

impl FlowJobs for Rows {
    type Error = std::convert::Infallible;

    fn row(&mut self, job: u32) -> Result<JobRow, Self::Error> {
        Ok(self.rows[job as usize])
    }

    fn set_row(&mut self, job: u32, row: JobRow) -> Result<(), Self::Error> {
        self.rows[job as usize] = row;
        Ok(())
    }

    fn dependents(&mut self, job: u32, into: &mut Vec<u32>) -> Result<(), Self::Error> {
        into.extend(&self.dependents[job as usize]);
        Ok(())
    }

    fn not_started(&mut self, into: &mut Vec<u32>) -> Result<(), Self::Error> {
        let waiting = |r: &JobRow| matches!(r.state, JobState::Waiting | JobState::Ready);
        into.extend((0..self.rows.len() as u32).filter(|&i| waiting(&self.rows[i as usize])));
        Ok(())
    }
}
