//! `FlowRun`: the state of every job of one run of a flow, and the calls that move it on.

mod result;
mod status;
mod step;
mod wire;

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::sync::Arc;

use model_ids::{FlowId, JobName};
use model_task::RestartDecision;

pub use self::result::JobResult;
pub use self::status::{FlowStatus, JobCounts};
pub use self::step::{FlowJobs, JobRow, StateChange, attempt_end, cancel_jobs, end_job};
pub(crate) use self::wire::FlowRunRaw;
use crate::error::FlowError;
use crate::graph::FlowGraph;
use crate::limits::MAX_FLOW_RESULT_BYTES;
use crate::rule::{FailurePolicy, UpstreamTally};
use crate::spec::FlowSpec;
use crate::state::JobState;

/// One run of a flow: each job's [`JobState`] and result, moved on by the caller's reports.
///
/// The caller (a control plane) starts the jobs [`FlowRun::ready`] lists
/// ([`FlowRun::start`]), and reports the end of each attempt of a job's task with the
/// restart decision model-task made for it ([`FlowRun::end_attempt`]): a decision to
/// restart keeps the job running, so a job that fails and will retry is not failed for its
/// dependents; only a final decision ends the job. Each call returns the [`FlowChanges`] it
/// made: jobs that became ready, and jobs skipped because their trigger rule can no longer
/// hold (skips propagate to their own dependents) or because a fail-fast flow saw a
/// failure. [`FlowRun::cancel`] skips every job not started and lists the running ones to
/// cancel.
///
/// A waiting job is decided when one of its dependencies ends, from the states all its
/// dependencies have at that moment; the jobs one call reaches are decided breadth first,
/// each job's dependents in declaration order, so the outcome is deterministic.
///
/// Each job keeps a count of its final dependencies by kind, so a job's end costs time in
/// its number of dependents (plus the jobs a skip reaches), never a rescan of the flow; over
/// a whole run every dependency is looked at once. The first failure of a fail-fast flow
/// and a cancel look at every job once. [`FlowRun::status`] and [`FlowRun::is_done`] cost
/// nothing: the run keeps the counts [`FlowStatus::of`] rolls up.
///
/// A run serializes with its jobs' names, dependencies and rules, so a store keeps it
/// alone, and reads back equal; reading checks the graph as a flow's, and that the states
/// could have come from running it (`docs/wire-format.md`, "FlowRun").
///
/// ```
/// use model_flow::{FlowRun, FlowSpec, FlowStatus, JobResult, JobState};
/// use model_task::{RestartDecision, TaskPhase};
///
/// let job = |name: &str, deps: &str| format!(
///     r#"{{"name": "{name}", "dependsOn": [{deps}],
///         "spec": {{"slot": "s", "kind": {{"type": "wasm", "module": "m.wasm"}}, "timeoutMs": 1000}}}}"#
/// );
/// let json = format!(r#"{{"name": "etl", "jobs": [{}, {}]}}"#, job("extract", ""), job("load", r#""extract""#));
/// let flow: FlowSpec = serde_json::from_str(&json)?;
/// let mut run = FlowRun::new(&flow);
/// assert_eq!(run.ready().map(|j| j.as_str()).collect::<Vec<_>>(), ["extract"]);
///
/// run.start("extract")?;
/// // The first attempt fails and model-task decides to retry: extract keeps running.
/// let retry = RestartDecision::Restart { retry: 1, delay_ms: 1_000, at: chrono::DateTime::UNIX_EPOCH };
/// assert!(run.end_attempt("extract", retry, None)?.is_empty());
/// assert_eq!(run.state("load"), Some(JobState::Waiting));
///
/// // The retry succeeds: load becomes ready.
/// let rows = JobResult::from_pairs([("rows", "120")])?;
/// let changes = run.end_attempt("extract", RestartDecision::Final(TaskPhase::Succeeded), Some(rows))?;
/// assert_eq!(changes.ready().map(|j| j.as_str()).collect::<Vec<_>>(), ["load"]);
/// assert_eq!(run.status(), FlowStatus::Started);
///
/// let back: FlowRun = serde_json::from_str(&serde_json::to_string(&run)?)?;
/// assert_eq!(back, run);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct FlowRun {
    flow: FlowId,
    failure_policy: FailurePolicy,
    graph: Arc<FlowGraph>,
    states: Vec<JobState>,
    results: Vec<Option<JobResult>>,
    // Derived from the above (and rebuilt when a run is read back):
    tallies: Vec<UpstreamTally>,
    ready: BTreeSet<u32>,
    counts: JobCounts,
    result_bytes: usize,
    failure_seen: bool,
}

/// What one call on a [`FlowRun`] changed: the jobs whose state it changed, in the order it
/// changed them, and (for a cancel) the running jobs whose tasks the caller should cancel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlowChanges {
    changed: Vec<JobChange>,
    to_cancel: Vec<JobName>,
}

impl FlowChanges {
    /// The state changes, in the order they were made.
    pub fn changed(&self) -> &[JobChange] {
        &self.changed
    }

    /// The jobs that became ready, to start next.
    pub fn ready(&self) -> impl Iterator<Item = &JobName> + '_ {
        self.changed
            .iter()
            .filter(|change| change.to == JobState::Ready)
            .map(|change| &change.name)
    }

    /// The running jobs whose tasks should be canceled (only after [`FlowRun::cancel`]).
    pub fn to_cancel(&self) -> &[JobName] {
        &self.to_cancel
    }

    /// Whether the call changed nothing and asks for nothing.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.to_cancel.is_empty()
    }
}

/// One job's state change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobChange {
    name: JobName,
    position: usize,
    from: JobState,
    to: JobState,
}

impl JobChange {
    /// The job's name.
    pub fn name(&self) -> &JobName {
        &self.name
    }

    /// The job's position in the flow's `jobs`.
    pub fn position(&self) -> usize {
        self.position
    }

    /// The state before the change.
    pub fn from(&self) -> JobState {
        self.from
    }

    /// The state after the change.
    pub fn to(&self) -> JobState {
        self.to
    }
}

impl FlowRun {
    /// A new run of `flow`: jobs without dependencies are ready, the others wait. The run
    /// shares the flow's graph (no copy).
    pub fn new(flow: &FlowSpec) -> Self {
        let graph = Arc::clone(flow.shared_graph());
        let states = (0..graph.len())
            .map(|i| {
                if graph.deps_of(i).is_empty() {
                    JobState::Ready
                } else {
                    JobState::Waiting
                }
            })
            .collect();
        let results = vec![None; graph.len()];
        Self::assemble(
            flow.name().clone(),
            flow.failure_policy(),
            graph,
            states,
            results,
        )
    }

    /// A run of `flow` with these states and results, one per job in declaration order (as
    /// a store that keeps each job in a row reads them back), checked as reading a run
    /// checks them: each result belongs to a job that ran and ended, the results stay
    /// within [`MAX_FLOW_RESULT_BYTES`](crate::MAX_FLOW_RESULT_BYTES), and the states
    /// could have come from running the flow.
    ///
    /// # Errors
    ///
    /// [`FlowError::Inconsistent`] (path `jobs` for a count that is not the flow's, or
    /// `jobs[i].result`, `jobs[i].state`), [`FlowError::TooLong`].
    pub fn from_parts(
        flow: &FlowSpec,
        states: Vec<JobState>,
        results: Vec<Option<JobResult>>,
    ) -> Result<Self, FlowError> {
        let graph = Arc::clone(flow.shared_graph());
        if states.len() != graph.len() || results.len() != graph.len() {
            return Err(FlowError::Inconsistent {
                path: "jobs".into(),
                rule: "a run has one state and one result slot per job of its flow",
            });
        }
        let mut bytes = 0usize;
        for (i, (state, result)) in states.iter().zip(&results).enumerate() {
            let Some(result) = result else { continue };
            if !matches!(
                state,
                JobState::Succeeded | JobState::Failed | JobState::Canceled
            ) {
                return Err(FlowError::Inconsistent {
                    path: format!("jobs[{i}].result"),
                    rule: "only a job that ran and ended has a result",
                });
            }
            bytes = bytes.saturating_add(result.byte_len());
            if bytes > MAX_FLOW_RESULT_BYTES {
                return Err(FlowError::TooLong {
                    path: format!("jobs[{i}].result"),
                    len: bytes,
                    max: MAX_FLOW_RESULT_BYTES,
                });
            }
        }
        wire::check_states(&graph, flow.failure_policy(), &states)?;
        Ok(Self::assemble(
            flow.name().clone(),
            flow.failure_policy(),
            graph,
            states,
            results,
        ))
    }

    /// A run from its defining parts, with the derived counts computed from the states.
    pub(crate) fn assemble(
        flow: FlowId,
        failure_policy: FailurePolicy,
        graph: Arc<FlowGraph>,
        states: Vec<JobState>,
        results: Vec<Option<JobResult>>,
    ) -> Self {
        let mut tallies = vec![UpstreamTally::default(); graph.len()];
        let mut ready = BTreeSet::new();
        let mut counts = JobCounts::default();
        let mut failure_seen = false;
        for (i, &state) in states.iter().enumerate() {
            counts.add(state);
            if state == JobState::Ready {
                ready.insert(i as u32);
            }
            failure_seen |= matches!(state, JobState::Failed | JobState::Canceled);
            if let Some(upstream) = state.upstream() {
                for &d in graph.outs_of(i) {
                    if let Some(tally) = tallies.get_mut(d as usize) {
                        tally.count(upstream);
                    }
                }
            }
        }
        let result_bytes = results.iter().flatten().map(JobResult::byte_len).sum();
        Self {
            flow,
            failure_policy,
            graph,
            states,
            results,
            tallies,
            ready,
            counts,
            result_bytes,
            failure_seen,
        }
    }

    /// The flow's name.
    pub fn flow(&self) -> &FlowId {
        &self.flow
    }

    /// The flow's failure policy.
    pub fn failure_policy(&self) -> FailurePolicy {
        self.failure_policy
    }

    /// The flow's jobs and dependencies.
    pub fn graph(&self) -> &FlowGraph {
        &self.graph
    }

    /// The state of the job named `job`.
    pub fn state(&self, job: &str) -> Option<JobState> {
        self.graph
            .position(job)
            .and_then(|i| self.states.get(i).copied())
    }

    /// Every job's name and state, in declaration order.
    pub fn states(&self) -> impl ExactSizeIterator<Item = (&JobName, JobState)> + '_ {
        self.graph.names().iter().zip(self.states.iter().copied())
    }

    /// The jobs that may start now, in declaration order.
    pub fn ready(&self) -> impl Iterator<Item = &JobName> + '_ {
        self.ready
            .iter()
            .filter_map(|&i| self.graph.name(i as usize))
    }

    /// The flow's status, rolled up from the jobs' states (see [`FlowStatus`]).
    pub fn status(&self) -> FlowStatus {
        self.counts.status()
    }

    /// Whether every job is final.
    pub fn is_done(&self) -> bool {
        self.counts.all_final()
    }

    /// The result the job named `job` reported.
    pub fn result(&self, job: &str) -> Option<&JobResult> {
        self.graph
            .position(job)
            .and_then(|i| self.results.get(i))
            .and_then(Option::as_ref)
    }

    /// The flow's result: each job's result under its name, in declaration order (jobs
    /// without a result are left out).
    pub fn results(&self) -> impl Iterator<Item = (&JobName, &JobResult)> + '_ {
        self.graph
            .names()
            .iter()
            .zip(&self.results)
            .filter_map(|(name, result)| result.as_ref().map(|r| (name, r)))
    }

    /// Starts a ready job: it becomes running. Starting a running job again changes nothing.
    ///
    /// # Errors
    ///
    /// [`FlowError::UnknownJob`], or [`FlowError::JobTransition`] for a job that is not
    /// ready or running.
    pub fn start(&mut self, job: &str) -> Result<FlowChanges, FlowError> {
        let (i, name) = self.find(job)?;
        let mut changes = FlowChanges::default();
        match self.state_at(i) {
            JobState::Ready => self.set(i, JobState::Running, &mut changes),
            JobState::Running => {}
            from => {
                return Err(FlowError::JobTransition {
                    job: name,
                    from,
                    to: JobState::Running,
                });
            }
        }
        Ok(changes)
    }

    /// Reports that an attempt of a running job's task ended, with the restart decision
    /// model-task made for it ([`Task::end_attempt`](model_task::Task::end_attempt) returns it,
    /// [`decide_restart`](model_task::lifecycle::decide_restart) computes it), and the job's
    /// result.
    ///
    /// The decision's phase says what the job becomes: pending (a restart) keeps it
    /// running and changes nothing, so its dependents go on waiting; succeeded ends it
    /// succeeded; failed, timeout and exhausted end it failed; canceled ends it canceled.
    /// A job's final end records its result, updates its dependents (which may become ready
    /// or be skipped, and skips propagate), and, for the first failure of a fail-fast flow,
    /// skips the jobs not yet started whose rule asks for success. A result that comes with
    /// a restart is not kept. The same end reported again (same state, same or no result)
    /// changes nothing.
    ///
    /// # Errors
    ///
    /// [`FlowError::UnknownJob`]; [`FlowError::NotAnAttemptEnd`] for a decision to move to
    /// running; [`FlowError::JobTransition`] for a job that is not running;
    /// [`FlowError::EndConflict`] for another end of an ended job; [`FlowError::TooLong`]
    /// (path `result`) when the flow's results would pass [`MAX_FLOW_RESULT_BYTES`].
    pub fn end_attempt(
        &mut self,
        job: &str,
        decision: RestartDecision,
        result: Option<JobResult>,
    ) -> Result<FlowChanges, FlowError> {
        let (i, name) = self.find(job)?;
        let kept = self.results.get(i).and_then(Option::as_ref);
        let target = attempt_end(
            &name,
            self.state_at(i),
            kept,
            &decision,
            result.as_ref(),
            self.result_bytes,
        )?;
        let Some(target) = target else {
            return Ok(FlowChanges::default());
        };
        if let Some(result) = result {
            self.result_bytes = self.result_bytes.saturating_add(result.byte_len());
            if let Some(slot) = self.results.get_mut(i) {
                *slot = Some(result);
            }
        }
        let failure_seen = self.failure_seen;
        self.failure_seen |= matches!(target, JobState::Failed | JobState::Canceled);
        let policy = self.failure_policy;
        let Ok(changed) = end_job(&mut Memory(self), i as u32, target, policy, failure_seen);
        Ok(self.changes(changed))
    }

    /// Cancels the run: every job not started is skipped ([`SkipReason::Canceled`](crate::SkipReason::Canceled)), and
    /// the running jobs are listed in [`FlowChanges::to_cancel`] for the caller to cancel
    /// their tasks (each then ends through [`FlowRun::end_attempt`], canceled or otherwise).
    /// Canceling again skips nothing more and lists the jobs still running.
    pub fn cancel(&mut self) -> FlowChanges {
        let Ok(changed) = cancel_jobs(&mut Memory(self));
        let mut changes = self.changes(changed);
        changes.to_cancel = self
            .states()
            .filter(|(_, state)| *state == JobState::Running)
            .map(|(name, _)| name.clone())
            .collect();
        changes
    }

    /// The step's changes, with the jobs' names.
    fn changes(&self, changed: Vec<StateChange>) -> FlowChanges {
        let changed = changed
            .into_iter()
            .filter_map(|change| {
                let position = change.position as usize;
                self.graph.name(position).map(|name| JobChange {
                    name: name.clone(),
                    position,
                    from: change.from,
                    to: change.to,
                })
            })
            .collect();
        FlowChanges {
            changed,
            to_cancel: Vec::new(),
        }
    }

    /// Moves job `i` to `to` (not a final state: the step moves jobs to those), keeping
    /// the counts and the ready set, and records the change.
    fn set(&mut self, i: usize, to: JobState, changes: &mut FlowChanges) {
        let Some(state) = self.states.get_mut(i) else {
            return;
        };
        let from = std::mem::replace(state, to);
        self.moved(i, from, to);
        if let Some(name) = self.graph.name(i) {
            changes.changed.push(JobChange {
                name: name.clone(),
                position: i,
                from,
                to,
            });
        }
    }

    /// Keeps the counts and the ready set after job `i` moved from `from` to `to`.
    fn moved(&mut self, i: usize, from: JobState, to: JobState) {
        self.counts.change(from, to);
        if from == JobState::Ready {
            self.ready.remove(&(i as u32));
        }
        if to == JobState::Ready {
            self.ready.insert(i as u32);
        }
    }

    /// The state of job `i` (waiting for a position out of range, which callers never pass).
    fn state_at(&self, i: usize) -> JobState {
        self.states.get(i).copied().unwrap_or(JobState::Waiting)
    }

    /// The position and name of the job named `job`.
    fn find(&self, job: &str) -> Result<(usize, JobName), FlowError> {
        self.graph.locate(job).map(|(i, name)| (i, name.clone()))
    }
}

/// A run's jobs as the step sees them: rows built from its vectors and its graph.
struct Memory<'a>(&'a mut FlowRun);

impl FlowJobs for Memory<'_> {
    type Error = Infallible;

    fn row(&mut self, job: u32) -> Result<JobRow, Infallible> {
        let run = &*self.0;
        let i = job as usize;
        Ok(JobRow {
            state: run.state_at(i),
            rule: run.graph.rule(i).unwrap_or_default(),
            dependencies: run.graph.deps_of(i).len() as u32,
            tally: run.tallies.get(i).copied().unwrap_or_default(),
        })
    }

    fn set_row(&mut self, job: u32, row: JobRow) -> Result<(), Infallible> {
        let run = &mut *self.0;
        let i = job as usize;
        if let Some(tally) = run.tallies.get_mut(i) {
            *tally = row.tally;
        }
        if let Some(state) = run.states.get_mut(i) {
            let from = std::mem::replace(state, row.state);
            run.moved(i, from, row.state);
        }
        Ok(())
    }

    fn dependents(&mut self, job: u32, into: &mut Vec<u32>) -> Result<(), Infallible> {
        into.extend_from_slice(self.0.graph.outs_of(job as usize));
        Ok(())
    }

    fn not_started(&mut self, into: &mut Vec<u32>) -> Result<(), Infallible> {
        let states = self.0.states.iter().enumerate();
        into.extend(
            states
                .filter(|(_, state)| matches!(state, JobState::Waiting | JobState::Ready))
                .map(|(i, _)| i as u32),
        );
        Ok(())
    }
}

impl PartialEq for FlowRun {
    /// Runs are equal when their flow, policy, jobs, states and results are (the counts are
    /// computed from those).
    fn eq(&self, other: &Self) -> bool {
        self.flow == other.flow
            && self.failure_policy == other.failure_policy
            && self.graph == other.graph
            && self.states == other.states
            && self.results == other.results
    }
}

impl Eq for FlowRun {}

#[cfg(test)]
mod tests;
