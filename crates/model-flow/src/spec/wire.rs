//! The unvalidated wire form of a [`FlowSpec`], and the checks that turn it into one.

use std::sync::Arc;

use model_ids::{BoundedPairs, FlowId, JobName};
use model_selector::Labels;
use model_task::{Parsed, TaskEnv, TaskSpec};
use serde::Deserialize;

use super::env::EnvFit;
use super::{FlowJob, FlowSpec, check_ttl};
use crate::bounded;
use crate::error::FlowError;
use crate::graph::FlowGraph;
use crate::rule::{FailurePolicy, TriggerRule};
use crate::wire::{DependsOnRaw, JobList, RawJob};

/// The wire form of [`FlowSpec`]: plain serde types, so every rule is checked in one place
/// (`TryFrom`) with its full field path. Specs are read as model-task's [`Parsed`], which
/// keeps a broken rule as a typed error for the path to be put in front.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct FlowSpecRaw {
    name: String,
    #[serde(default)]
    env: Option<Parsed<TaskEnv>>,
    #[serde(default)]
    labels: Option<BoundedPairs<bounded::Labels>>,
    #[serde(default)]
    failure_policy: Option<FailurePolicy>,
    #[serde(default)]
    ttl_after_finished_ms: Option<u64>,
    jobs: JobList<FlowJobRaw>,
}

/// The wire form of one job.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct FlowJobRaw {
    name: String,
    spec: Parsed<TaskSpec>,
    #[serde(default)]
    depends_on: DependsOnRaw,
    #[serde(default)]
    when: Option<TriggerRule>,
}

impl RawJob for FlowJobRaw {
    fn dependencies(&self) -> usize {
        self.depends_on.names.len()
    }
}

impl TryFrom<FlowSpecRaw> for FlowSpec {
    type Error = FlowError;

    fn try_from(raw: FlowSpecRaw) -> Result<Self, FlowError> {
        let name = FlowId::new(&raw.name).map_err(|error| FlowError::Id {
            path: "name".into(),
            error,
        })?;
        let env = match raw.env {
            Some(parsed) => parsed
                .into_result()
                .map_err(|e| FlowError::Task(e.at("env")))?,
            None => TaskEnv::empty(),
        };
        let labels = match raw.labels {
            Some(pairs) => Labels::from_pairs(pairs.into_inner())
                .map_err(|e| FlowError::Selector(e.prefixed("labels")))?,
            None => Labels::default(),
        };
        check_ttl(raw.ttl_after_finished_ms)?;
        let raw_jobs = raw.jobs.0;
        let fit = EnvFit::new(&env);
        let mut names = Vec::with_capacity(raw_jobs.len());
        let mut specs = Vec::with_capacity(raw_jobs.len());
        let mut rules = Vec::with_capacity(raw_jobs.len());
        let mut lists = Vec::with_capacity(raw_jobs.len());
        for (i, job) in raw_jobs.into_iter().enumerate() {
            names.push(JobName::new(&job.name).map_err(|error| FlowError::Id {
                path: format!("jobs[{i}].name"),
                error,
            })?);
            let spec = job
                .spec
                .into_result()
                .map_err(|e| FlowError::Task(e.at(&format!("jobs[{i}].spec"))))?;
            fit.check(i, &spec)?;
            specs.push(spec);
            rules.push(job.when.unwrap_or_default());
            lists.push(job.depends_on);
        }
        let graph = FlowGraph::build(names, rules, &lists)?;
        // Valid: each list holds job names only, and moves into its job as read.
        let jobs = specs
            .into_iter()
            .zip(lists)
            .enumerate()
            .map(|(i, (spec, list))| {
                let name = graph.name(i).cloned();
                let when = graph.rule(i).unwrap_or_default();
                name.map(|name| FlowJob::new(name, spec, list.names, when))
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| FlowError::NoJobs {
                path: "jobs".into(),
            })?;
        Ok(FlowSpec {
            name,
            env,
            labels,
            failure_policy: raw.failure_policy.unwrap_or_default(),
            ttl_after_finished_ms: raw.ttl_after_finished_ms,
            jobs,
            graph: Arc::new(graph),
        })
    }
}
