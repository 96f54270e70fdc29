//! The wire form of a [`FlowRun`]: its flow's jobs (names, dependencies, rules) with each
//! job's state and result, and the raw twin that reading goes through, which checks that
//! the states could have come from running the flow.

use std::sync::Arc;

use model_ids::{BoundedPairs, FlowId, JobName};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::FlowRun;
use super::result::JobResult;
use crate::bounded;
use crate::error::FlowError;
use crate::graph::FlowGraph;
use crate::limits::MAX_FLOW_RESULT_BYTES;
use crate::rule::{FailurePolicy, TriggerRule, UpstreamTally, Verdict};
use crate::state::{JobState, SkipReason, StateName};
use crate::wire::{DependsOnRaw, JobList, RawJob};

impl Serialize for FlowRun {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut run = serializer.serialize_struct("FlowRun", 3)?;
        run.serialize_field("flow", &self.flow)?;
        run.serialize_field("failurePolicy", &self.failure_policy)?;
        run.serialize_field("jobs", &Jobs(self))?;
        run.end()
    }
}

/// The `jobs` of a run, written one by one from the graph.
struct Jobs<'a>(&'a FlowRun);

impl Serialize for Jobs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let run = self.0;
        serializer.collect_seq((0..run.graph.len()).map(|i| Job { run, i }))
    }
}

/// One job of a run on the wire.
struct Job<'a> {
    run: &'a FlowRun,
    i: usize,
}

impl Serialize for Job<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let graph = &self.run.graph;
        let state = self.run.state_at(self.i);
        let deps = graph.deps_of(self.i);
        let rule = graph.rule(self.i).unwrap_or_default();
        let result = self.run.results.get(self.i).and_then(Option::as_ref);
        let mut job = serializer.serialize_struct("FlowRunJob", 6)?;
        job.serialize_field("name", &graph.name(self.i))?;
        if !deps.is_empty() {
            let names = deps.iter().filter_map(|&d| graph.name(d as usize));
            job.serialize_field("dependsOn", &Names(names))?;
        }
        if rule != TriggerRule::default() {
            job.serialize_field("when", &rule)?;
        }
        job.serialize_field("state", &state.name())?;
        if let Some(reason) = state.skip_reason() {
            job.serialize_field("skipReason", &reason)?;
        }
        if let Some(result) = result {
            job.serialize_field("result", result)?;
        }
        job.end()
    }
}

/// Names written as a list, from an iterator that can be cloned.
struct Names<I>(I);

impl<'a, I: Iterator<Item = &'a JobName> + Clone> Serialize for Names<I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.clone())
    }
}

impl<'de> Deserialize<'de> for FlowRun {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = FlowRunRaw::deserialize(deserializer)?;
        FlowRun::try_from(raw).map_err(serde::de::Error::custom)
    }
}

/// The unvalidated wire form of a [`FlowRun`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct FlowRunRaw {
    flow: String,
    #[serde(default)]
    failure_policy: Option<FailurePolicy>,
    jobs: JobList<RunJobRaw>,
}

/// The unvalidated wire form of one job of a run.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RunJobRaw {
    name: String,
    #[serde(default)]
    depends_on: DependsOnRaw,
    #[serde(default)]
    when: Option<TriggerRule>,
    state: StateName,
    #[serde(default)]
    skip_reason: Option<SkipReason>,
    #[serde(default)]
    result: Option<BoundedPairs<bounded::Result>>,
}

impl RawJob for RunJobRaw {
    fn dependencies(&self) -> usize {
        self.depends_on.names.len()
    }
}

impl TryFrom<FlowRunRaw> for FlowRun {
    type Error = FlowError;

    fn try_from(raw: FlowRunRaw) -> Result<Self, FlowError> {
        let flow = FlowId::new(&raw.flow).map_err(|error| FlowError::Id {
            path: "flow".into(),
            error,
        })?;
        let failure_policy = raw.failure_policy.unwrap_or_default();
        let jobs = raw.jobs.0;
        let mut names = Vec::with_capacity(jobs.len());
        let mut rules = Vec::with_capacity(jobs.len());
        let mut states = Vec::with_capacity(jobs.len());
        let mut results = Vec::with_capacity(jobs.len());
        let mut lists = Vec::with_capacity(jobs.len());
        let mut result_bytes = 0usize;
        for (i, job) in jobs.into_iter().enumerate() {
            let at = |field: &str| format!("jobs[{i}].{field}");
            names.push(JobName::new(&job.name).map_err(|error| FlowError::Id {
                path: at("name"),
                error,
            })?);
            rules.push(job.when.unwrap_or_default());
            let state =
                state_of(job.state, job.skip_reason).map_err(|rule| FlowError::Inconsistent {
                    path: at("skipReason"),
                    rule,
                })?;
            let result = match job.result {
                Some(pairs) => {
                    let result = JobResult::from_pairs(pairs.into_inner())
                        .map_err(|e| e.at(&format!("jobs[{i}]")))?;
                    if !matches!(
                        state,
                        JobState::Succeeded | JobState::Failed | JobState::Canceled
                    ) {
                        return Err(FlowError::Inconsistent {
                            path: at("result"),
                            rule: "only a job that ran and ended has a result",
                        });
                    }
                    result_bytes = result_bytes.saturating_add(result.byte_len());
                    if result_bytes > MAX_FLOW_RESULT_BYTES {
                        return Err(FlowError::TooLong {
                            path: at("result"),
                            len: result_bytes,
                            max: MAX_FLOW_RESULT_BYTES,
                        });
                    }
                    Some(result)
                }
                None => None,
            };
            states.push(state);
            results.push(result);
            lists.push(job.depends_on);
        }
        let graph = FlowGraph::build(names, rules, &lists)?;
        check_states(&graph, failure_policy, &states)?;
        Ok(FlowRun::assemble(
            flow,
            failure_policy,
            Arc::new(graph),
            states,
            results,
        ))
    }
}

/// The state from its wire name and skip reason; the error is the rule broken.
fn state_of(name: StateName, reason: Option<SkipReason>) -> Result<JobState, &'static str> {
    Ok(match (name, reason) {
        (StateName::Skipped, Some(reason)) => JobState::Skipped(reason),
        (StateName::Skipped, None) => return Err("a skipped job has a skip reason"),
        (_, Some(_)) => return Err("only a skipped job has a skip reason"),
        (StateName::Waiting, None) => JobState::Waiting,
        (StateName::Ready, None) => JobState::Ready,
        (StateName::Running, None) => JobState::Running,
        (StateName::Succeeded, None) => JobState::Succeeded,
        (StateName::Failed, None) => JobState::Failed,
        (StateName::Canceled, None) => JobState::Canceled,
    })
}

/// Checks that each job's state agrees with its rule and its dependencies' states, with
/// the failure policy and with a cancel, as running the flow leaves them.
pub(super) fn check_states(
    graph: &FlowGraph,
    policy: FailurePolicy,
    states: &[JobState],
) -> Result<(), FlowError> {
    let mut tallies = vec![UpstreamTally::default(); states.len()];
    let mut failure_seen = false;
    let mut cancel_seen = false;
    for (i, state) in states.iter().enumerate() {
        failure_seen |= matches!(state, JobState::Failed | JobState::Canceled);
        cancel_seen |= *state == JobState::Skipped(SkipReason::Canceled);
        if let Some(upstream) = state.upstream() {
            for &d in graph.outs_of(i) {
                if let Some(tally) = tallies.get_mut(d as usize) {
                    tally.count(upstream);
                }
            }
        }
    }
    let fail_fast = policy == FailurePolicy::FailFast && failure_seen;
    for (i, (&state, &tally)) in states.iter().zip(&tallies).enumerate() {
        let rule = graph.rule(i).unwrap_or_default();
        let total = graph.deps_of(i).len() as u32;
        let verdict = rule.verdict(tally, total);
        let broken = match state {
            JobState::Waiting | JobState::Ready if cancel_seen => {
                Some("no job waits after the flow was canceled")
            }
            JobState::Waiting | JobState::Ready if fail_fast && rule.wants_success() => {
                Some("after a failure, a fail-fast flow starts no job whose rule asks for success")
            }
            JobState::Waiting if verdict != Verdict::Wait => {
                Some("a waiting job's trigger rule is still undecided")
            }
            JobState::Ready
            | JobState::Running
            | JobState::Succeeded
            | JobState::Failed
            | JobState::Canceled
                if verdict != Verdict::Run =>
            {
                Some("a job starts only when its trigger rule holds")
            }
            JobState::Skipped(reason @ (SkipReason::UpstreamFailed | SkipReason::NotTriggered))
                if !rule.allows_skip(reason, tally, total) =>
            {
                Some("a job is skipped by its rule only when the rule can no longer hold")
            }
            JobState::Skipped(SkipReason::FailFast) if !(fail_fast && rule.wants_success()) => {
                Some(
                    "fail-fast skips only jobs that ask for success, after a failure, in a fail-fast flow",
                )
            }
            _ => None,
        };
        if let Some(rule) = broken {
            return Err(FlowError::Inconsistent {
                path: format!("jobs[{i}].state"),
                rule,
            });
        }
    }
    Ok(())
}
