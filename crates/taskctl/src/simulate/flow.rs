//! Flows in a simulation: each flow run is model-flow's [`FlowRun`]; a job becomes a task
//! (named `FLOW-JOB`, its spec with the flow's environment merged in) when the run says it
//! is ready, and the task's final restart decision is reported back, which readies, skips
//! or fails the jobs after it. After the run, each flow's critical path: the chain of jobs,
//! each the dependency that ended last, that ends with the flow's last job (a skipped job
//! ends when the end that skipped it came).

use std::collections::BTreeMap;

use serde::Serialize;
use taskmodel::flow::{FlowRun, FlowSpec, merge_flow_env};
use taskmodel::{RestartDecision, TaskId, TaskManifest};

use super::clock::Millis;

/// One flow run of the simulation.
#[derive(Debug)]
struct FlowSim {
    /// The run's name: the flow's, with the copy number when there are copies.
    name: String,
    spec: FlowSpec,
    run: FlowRun,
    /// When each job's task ended, by job position.
    ended: Vec<Option<Millis>>,
}

/// The flow runs, and which job each of their tasks is.
#[derive(Debug, Default)]
pub(crate) struct Flows {
    flows: Vec<FlowSim>,
    jobs: BTreeMap<TaskId, (usize, usize)>,
}

/// A flow run as the summary prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FlowSummary {
    pub(crate) flow: String,
    pub(crate) status: &'static str,
    /// How many jobs are in each state.
    pub(crate) jobs: BTreeMap<&'static str, u64>,
    /// The jobs of the critical path, first to last.
    pub(crate) critical_path: Vec<String>,
    /// When the critical path's last job ended (the flow's makespan, once every job ended).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) critical_path_ms: Option<Millis>,
}

impl Flows {
    /// Adds a flow run named `name`.
    pub(crate) fn add(&mut self, name: String, spec: FlowSpec) {
        let jobs = spec.jobs().len();
        let run = FlowRun::new(&spec);
        self.flows.push(FlowSim {
            name,
            spec,
            run,
            ended: vec![None; jobs],
        });
    }

    /// The tasks of every job ready at the start, started in their runs.
    pub(crate) fn start(&mut self) -> Result<Vec<TaskManifest>, String> {
        let mut tasks = Vec::new();
        for index in 0..self.flows.len() {
            let ready: Vec<String> = self
                .flows
                .get(index)
                .map(|flow| flow.run.ready().map(ToString::to_string).collect())
                .unwrap_or_default();
            tasks.extend(self.start_jobs(index, &ready)?);
        }
        Ok(tasks)
    }

    /// Reports that `task` ended with `decision` (a final one); the tasks of the jobs that
    /// became ready. A task that is no job changes nothing.
    pub(crate) fn ended(
        &mut self,
        task: &TaskId,
        decision: RestartDecision,
        now: Millis,
    ) -> Result<Vec<TaskManifest>, String> {
        let Some(&(index, position)) = self.jobs.get(task) else {
            return Ok(Vec::new());
        };
        let Some(flow) = self.flows.get_mut(index) else {
            return Ok(Vec::new());
        };
        let job = flow
            .run
            .graph()
            .name(position)
            .map(ToString::to_string)
            .unwrap_or_default();
        let changes = flow
            .run
            .end_attempt(&job, decision, None)
            .map_err(|err| format!("flow {}: {err}", flow.name))?;
        // The job ends now, and so does every job the end skipped.
        let finals = changes
            .changed()
            .iter()
            .filter(|change| change.to().is_final());
        for position in finals.map(|change| change.position()).chain([position]) {
            if let Some(ended) = flow.ended.get_mut(position) {
                *ended = Some(now);
            }
        }
        let ready: Vec<String> = changes.ready().map(ToString::to_string).collect();
        self.start_jobs(index, &ready)
    }

    /// Starts the jobs `ready` of flow `index`: their tasks, to submit.
    fn start_jobs(&mut self, index: usize, ready: &[String]) -> Result<Vec<TaskManifest>, String> {
        let Some(flow) = self.flows.get_mut(index) else {
            return Ok(Vec::new());
        };
        let mut tasks = Vec::with_capacity(ready.len());
        for job in ready {
            let in_flow =
                |err: &dyn std::fmt::Display| format!("flow {} job {job}: {err}", flow.name);
            let position = flow
                .run
                .graph()
                .position(job)
                .ok_or_else(|| in_flow(&"no such job"))?;
            let spec = flow
                .spec
                .jobs()
                .get(position)
                .ok_or_else(|| in_flow(&"no such job"))?
                .spec();
            let spec = merge_flow_env(flow.spec.env(), spec).map_err(|err| in_flow(&err))?;
            let id = TaskId::new(format!("{}-{job}", flow.name)).map_err(|err| in_flow(&err))?;
            flow.run.start(job).map_err(|err| in_flow(&err))?;
            self.jobs.insert(id.clone(), (index, position));
            tasks.push(TaskManifest::named(id, spec));
        }
        Ok(tasks)
    }

    /// The name of the job whose task `task` is, if it is a job's.
    pub(crate) fn job(&self, task: &TaskId) -> Option<&str> {
        let (index, position) = self.jobs.get(task)?;
        self.flows
            .get(*index)?
            .run
            .graph()
            .name(*position)
            .map(|name| name.as_str())
    }

    /// Each flow run's state and critical path.
    pub(crate) fn summaries(&self) -> Vec<FlowSummary> {
        self.flows.iter().map(FlowSim::summary).collect()
    }
}

impl FlowSim {
    fn summary(&self) -> FlowSummary {
        let mut jobs = BTreeMap::new();
        for (_, state) in self.run.states() {
            *jobs.entry(state.as_str()).or_insert(0) += 1;
        }
        let graph = self.run.graph();
        let ended = |position: usize| self.ended.get(position).copied().flatten();
        // The last job to end, then, each time, its dependency that ended last.
        let mut path = Vec::new();
        let mut at = (0..self.ended.len())
            .filter_map(|p| ended(p).map(|e| (e, p)))
            .max_by_key(|(e, p)| (*e, std::cmp::Reverse(*p)));
        let critical_path_ms = at.map(|(end, _)| end);
        while let Some((_, position)) = at {
            path.extend(graph.name(position).map(ToString::to_string));
            at = graph
                .dependencies(position)
                .filter_map(|p| ended(p).map(|e| (e, p)))
                .max_by_key(|(e, p)| (*e, std::cmp::Reverse(*p)));
        }
        path.reverse();
        FlowSummary {
            flow: self.name.clone(),
            status: self.run.status().as_str(),
            jobs,
            critical_path: path,
            critical_path_ms,
        }
    }
}
