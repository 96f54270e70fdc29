//! `FlowSpec`, a flow's desired state (its jobs, their dependencies and trigger rules, the
//! shared environment, labels and failure policy), `FlowJob`, and the builder.

mod env;
mod wire;

use std::sync::Arc;

use model_ids::{FlowId, IdError, JobName};
use model_selector::Labels;
use model_task::{TaskEnv, TaskSpec};
use serde::{Deserialize, Serialize};

use self::env::EnvFit;
pub use self::env::merge_flow_env;
pub(crate) use self::wire::FlowSpecRaw;
use crate::error::FlowError;
use crate::graph::FlowGraph;
use crate::names::JobNames;
use crate::rule::{FailurePolicy, TriggerRule};

/// A flow: jobs that run as their dependencies and trigger rules allow, sharing an
/// environment, with labels and a failure policy.
///
/// Valid by construction: [`FlowSpec::builder`] and serde (through a raw twin) run the same
/// checks, and every error names its field path from the flow's root: the name is a
/// [`FlowId`] and job names are [`JobName`]s; each job's spec is a valid [`TaskSpec`]; a
/// job's environment merged with the flow's fits its bound; then the graph checks of
/// [`FlowGraph`] (at least one job, unique names, known dependencies, none repeated or on
/// itself, no cycle; every cycle is reported with its path). Field checks come first, in
/// job order; the graph is checked once every job's fields are valid.
///
/// On the wire, camelCase: `name`, `jobs` (required), `env`, `labels`, `failurePolicy`,
/// `ttlAfterFinishedMs` (optional: no variables, no labels, `failFast`, no time to live of
/// its own; at most model-task's
/// [`MAX_TTL_AFTER_FINISHED_MS`](model_task::spec::MAX_TTL_AFTER_FINISHED_MS)); each job has `name`, `spec`, and
/// optionally `dependsOn` and `when` (none, `allSucceeded`). Unknown fields are rejected.
/// `env` is kept as written and merged into a job's spec on demand by [`merge_flow_env`]
/// ([`FlowSpec::task_spec`]), so a flow of many jobs does not hold a copy of it per job.
/// See `docs/wire-format.md`, "FlowSpec".
///
/// ```
/// use model_flow::{FlowError, FlowSpec};
///
/// let json = r#"{
///   "name": "nightly-etl",
///   "env": [{ "key": "STAGE", "value": "prod" }],
///   "jobs": [
///     { "name": "extract", "spec": { "slot": "etl", "kind": { "type": "wasm", "module": "extract.wasm" }, "timeoutMs": 60000 } },
///     { "name": "load", "spec": { "slot": "etl", "kind": { "type": "wasm", "module": "load.wasm",
///       "env": [{ "key": "STAGE", "value": "test" }] }, "timeoutMs": 60000 }, "dependsOn": ["extract"] }
///   ]
/// }"#;
/// let flow: FlowSpec = serde_json::from_str(json)?;
/// assert_eq!(flow.jobs().len(), 2);
/// // The job's own value wins over the flow's.
/// assert_eq!(flow.task_spec("load")?.kind().env().get("STAGE"), Some("test"));
/// assert_eq!(flow.task_spec("extract")?.kind().env().get("STAGE"), Some("prod"));
///
/// let cyclic = json.replace(r#""jobs": [
///     { "name": "extract", "spec""#, r#""jobs": [
///     { "name": "extract", "dependsOn": ["load"], "spec""#);
/// let err = serde_json::from_str::<FlowSpec>(&cyclic).unwrap_err();
/// assert!(err.to_string().starts_with("jobs[0].dependsOn[0]: jobs form a cycle: extract -> load -> extract"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "FlowSpecRaw")]
pub struct FlowSpec {
    name: FlowId,
    #[serde(skip_serializing_if = "TaskEnv::is_empty")]
    env: TaskEnv,
    #[serde(skip_serializing_if = "Labels::is_empty")]
    labels: Labels,
    failure_policy: FailurePolicy,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl_after_finished_ms: Option<u64>,
    jobs: Vec<FlowJob>,
    #[serde(skip)]
    graph: Arc<FlowGraph>,
}

/// One job of a flow: its name, the spec of the task it runs, the jobs it depends on and
/// its trigger rule.
///
/// A job on its own is not checked against the others; [`FlowSpec::builder`] checks the
/// whole flow. On the wire `{"name", "spec", "dependsOn", "when"}`; `dependsOn` is left out
/// when empty and `when` when it is `allSucceeded`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowJob {
    name: JobName,
    spec: TaskSpec,
    #[serde(skip_serializing_if = "JobNames::is_empty")]
    depends_on: JobNames,
    #[serde(skip_serializing_if = "is_default_rule")]
    when: TriggerRule,
}

impl FlowJob {
    /// A job named `name` running `spec`, after the jobs `depends_on`, when `when` holds.
    pub fn new(name: JobName, spec: TaskSpec, depends_on: JobNames, when: TriggerRule) -> Self {
        Self {
            name,
            spec,
            depends_on,
            when,
        }
    }

    /// The job's name.
    pub fn name(&self) -> &JobName {
        &self.name
    }

    /// The spec of the job's task, as written (without the flow's environment; see
    /// [`FlowSpec::task_spec`]).
    pub fn spec(&self) -> &TaskSpec {
        &self.spec
    }

    /// The jobs this one depends on, in the order given.
    pub fn depends_on(&self) -> &JobNames {
        &self.depends_on
    }

    /// The job's trigger rule.
    pub fn when(&self) -> TriggerRule {
        self.when
    }
}

fn is_default_rule(rule: &TriggerRule) -> bool {
    *rule == TriggerRule::default()
}

impl FlowSpec {
    /// Starts a builder for a flow named `name` (checked by [`FlowSpecBuilder::build`]).
    pub fn builder(name: impl AsRef<str>) -> FlowSpecBuilder {
        FlowSpecBuilder {
            name: FlowId::new(name.as_ref()),
            env: TaskEnv::empty(),
            labels: Labels::default(),
            failure_policy: FailurePolicy::default(),
            ttl_after_finished_ms: None,
            jobs: Vec::new(),
        }
    }

    /// The submit boundary: every job's spec passes [`TaskSpec::validate`] (an embedded task
    /// cannot be submitted; error path `jobs[i].spec.kind.type`).
    pub fn validate(&self) -> Result<(), FlowError> {
        for (i, job) in self.jobs.iter().enumerate() {
            job.spec
                .validate()
                .map_err(|e| FlowError::Task(e.at(&format!("jobs[{i}].spec"))))?;
        }
        Ok(())
    }

    /// The flow's name.
    pub fn name(&self) -> &FlowId {
        &self.name
    }

    /// The environment every job's task gets (a job's own value wins).
    pub fn env(&self) -> &TaskEnv {
        &self.env
    }

    /// The flow's labels, for queries.
    pub fn labels(&self) -> &Labels {
        &self.labels
    }

    /// What a failure does to the rest of the flow.
    pub fn failure_policy(&self) -> FailurePolicy {
        self.failure_policy
    }

    /// How long a finished run of this flow is kept, in milliseconds, as a task's
    /// `ttlAfterFinishedMs` (at most model-task's
    /// [`MAX_TTL_AFTER_FINISHED_MS`](model_task::spec::MAX_TTL_AFTER_FINISHED_MS); 0 collects
    /// it once it has finished); `None` leaves it to the retention policy's rule for flows.
    pub const fn ttl_after_finished_ms(&self) -> Option<u64> {
        self.ttl_after_finished_ms
    }

    /// The jobs, in declaration order.
    pub fn jobs(&self) -> &[FlowJob] {
        &self.jobs
    }

    /// The job named `name`.
    pub fn job(&self, name: &str) -> Option<&FlowJob> {
        self.graph.position(name).and_then(|i| self.jobs.get(i))
    }

    /// The jobs' dependency graph, with its order and levels.
    pub fn graph(&self) -> &FlowGraph {
        &self.graph
    }

    /// The graph, to share with a run.
    pub(crate) fn shared_graph(&self) -> &Arc<FlowGraph> {
        &self.graph
    }

    /// The spec the task of job `job` runs with: the job's spec with the flow's environment
    /// merged in by [`merge_flow_env`] (the job's own value wins).
    ///
    /// # Errors
    ///
    /// [`FlowError::UnknownJob`] for a name the flow does not have. (The merge itself always
    /// fits, as parsing and the builder check it.)
    pub fn task_spec(&self, job: &str) -> Result<TaskSpec, FlowError> {
        let (i, _) = self.graph.locate(job)?;
        // The graph and the jobs list the same jobs in the same order.
        let flow_job = self.jobs.get(i).ok_or_else(|| FlowError::UnknownJob {
            name: model_ids::text::shorten(job),
        })?;
        merge_flow_env(&self.env, &flow_job.spec).map_err(|e| e.at(&format!("jobs[{i}].spec")))
    }

    /// Checks a flow's parts and builds it; see [`FlowSpec`] for the order of the checks.
    fn assemble(builder: FlowSpecBuilder) -> Result<Self, FlowError> {
        let FlowSpecBuilder {
            name,
            env,
            labels,
            failure_policy,
            ttl_after_finished_ms,
            jobs,
        } = builder;
        let name = name.map_err(|error| FlowError::Id {
            path: "name".into(),
            error,
        })?;
        check_ttl(ttl_after_finished_ms)?;
        let fit = EnvFit::new(&env);
        for (i, job) in jobs.iter().enumerate() {
            fit.check(i, &job.spec)?;
        }
        let graph = FlowGraph::new(
            jobs.iter()
                .map(|job| (&job.name, &job.depends_on, job.when)),
        )?;
        Ok(Self {
            name,
            env,
            labels,
            failure_policy,
            ttl_after_finished_ms,
            jobs,
            graph: Arc::new(graph),
        })
    }
}

/// A flow's `ttlAfterFinishedMs` is at most model-task's
/// [`MAX_TTL_AFTER_FINISHED_MS`](model_task::spec::MAX_TTL_AFTER_FINISHED_MS), the bound of
/// a task's.
pub(crate) fn check_ttl(ttl_ms: Option<u64>) -> Result<(), FlowError> {
    let max = model_task::spec::MAX_TTL_AFTER_FINISHED_MS;
    match ttl_ms {
        Some(value) if value > max => Err(FlowError::TooLarge {
            path: "ttlAfterFinishedMs".into(),
            value,
            max,
        }),
        _ => Ok(()),
    }
}

/// Builds a [`FlowSpec`]; see [`FlowSpec::builder`]. Unset fields take their defaults (no
/// variables, no labels, `failFast`, no jobs, which `build` refuses).
///
/// ```
/// use model_flow::{FlowJob, FlowSpec, JobNames, TriggerRule};
/// use model_ids::JobName;
/// use model_task::{SubprocessMode, TaskEnv, TaskKind, TaskSpec};
///
/// let kind = TaskKind::subprocess(SubprocessMode::command("/bin/true".into(), vec![])?, TaskEnv::empty(), None)?;
/// let spec = TaskSpec::builder("etl", kind, 60_000).build()?;
/// let extract = JobName::new("extract")?;
/// let flow = FlowSpec::builder("nightly")
///     .job(FlowJob::new(extract.clone(), spec.clone(), JobNames::new(), TriggerRule::AllSucceeded))
///     .job(FlowJob::new(JobName::new("notify")?, spec, JobNames::from_iter([extract]), TriggerRule::AllDone))
///     .build()?;
/// assert_eq!(flow.graph().levels().len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct FlowSpecBuilder {
    name: Result<FlowId, IdError>,
    env: TaskEnv,
    labels: Labels,
    failure_policy: FailurePolicy,
    ttl_after_finished_ms: Option<u64>,
    jobs: Vec<FlowJob>,
}

impl FlowSpecBuilder {
    /// Sets the environment every job gets (a job's own value wins).
    pub fn env(self, env: TaskEnv) -> Self {
        Self { env, ..self }
    }

    /// Sets the labels.
    pub fn labels(self, labels: Labels) -> Self {
        Self { labels, ..self }
    }

    /// Sets the failure policy (default `failFast`).
    pub fn failure_policy(self, failure_policy: FailurePolicy) -> Self {
        Self {
            failure_policy,
            ..self
        }
    }

    /// Keeps a finished run `ms` milliseconds (checked by [`build`](Self::build): at most
    /// model-task's [`MAX_TTL_AFTER_FINISHED_MS`](model_task::spec::MAX_TTL_AFTER_FINISHED_MS)).
    pub fn ttl_after_finished_ms(self, ms: u64) -> Self {
        Self {
            ttl_after_finished_ms: Some(ms),
            ..self
        }
    }

    /// Adds a job.
    pub fn job(mut self, job: FlowJob) -> Self {
        self.jobs.push(job);
        self
    }

    /// Adds jobs, in order.
    pub fn jobs(mut self, jobs: impl IntoIterator<Item = FlowJob>) -> Self {
        self.jobs.extend(jobs);
        self
    }

    /// The flow, or the first problem (see [`FlowSpec`] for the order of the checks).
    pub fn build(self) -> Result<FlowSpec, FlowError> {
        FlowSpec::assemble(self)
    }
}

#[cfg(test)]
mod tests;
