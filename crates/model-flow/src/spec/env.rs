//! The flow's environment in each job's task: `merge_flow_env`, the one rule, and the
//! cheap check parsing runs to know that every job's merge fits its bound.

use std::collections::HashSet;

use model_task::spec::{MAX_ENV_VARS, RunnerEnv, merge_env};
use model_task::{TaskEnv, TaskKind, TaskSpec};

use crate::error::FlowError;

/// The spec a flow's job runs with: `spec` with the flow's `flow_env` merged into its
/// kind's environment, the job's own value winning.
///
/// The rule is model-task's [`merge_env`], with the flow's environment in the place of a
/// runner's: first every flow variable in the flow's order, with the job's value when the
/// job sets the same key; then every job variable the flow does not set, in the job's
/// order. Every other field of the spec is kept. An embedded task has no environment and
/// is returned as it is; so is every spec when the flow's environment is empty.
///
/// ```
/// use model_flow::merge_flow_env;
/// use model_task::{TaskEnv, TaskKind, TaskSpec};
///
/// let kind = TaskKind::wasm("job.wasm".into(), vec![], TaskEnv::from_pairs([("MODE", "fast"), ("STAGE", "test")])?)?;
/// let spec = TaskSpec::builder("etl", kind, 1_000).build()?;
/// let flow_env = TaskEnv::from_pairs([("STAGE", "prod"), ("REGION", "eu")])?;
/// let merged = merge_flow_env(&flow_env, &spec)?;
/// let env: Vec<(&str, &str)> = merged.kind().env().iter().map(|v| (v.key(), v.value())).collect();
/// assert_eq!(env, [("STAGE", "test"), ("REGION", "eu"), ("MODE", "fast")]);
/// assert_eq!(merged.slot(), spec.slot());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`FlowError::Task`] at `kind.env` when the merged environment has more than
/// [`MAX_ENV_VARS`] variables.
pub fn merge_flow_env(flow_env: &TaskEnv, spec: &TaskSpec) -> Result<TaskSpec, FlowError> {
    if flow_env.is_empty() {
        return Ok(spec.clone());
    }
    let task_error = |at: &'static str| move |e: model_task::TaskError| FlowError::Task(e.at(at));
    let base = RunnerEnv::new(flow_env.as_slice().to_vec()).map_err(task_error("env"))?;
    let env = TaskEnv::new(merge_env(&base, spec.kind().env())).map_err(task_error("kind.env"))?;
    let kind = match spec.kind() {
        TaskKind::Subprocess { mode, cwd, .. } => {
            TaskKind::subprocess(mode.clone(), env, cwd.clone())
        }
        TaskKind::Container {
            image,
            command,
            args,
            ..
        } => TaskKind::container(image.clone(), command.clone(), args.clone(), env),
        TaskKind::Wasm { module, args, .. } => TaskKind::wasm(module.clone(), args.clone(), env),
        // An embedded task, or a kind this crate does not know, has no environment to merge into.
        _ => return Ok(spec.clone()),
    }
    .map_err(task_error("kind"))?;
    let mut builder = TaskSpec::builder(spec.slot(), kind, spec.timeout().as_millis())
        .restart(spec.restart())
        .backoff(*spec.backoff())
        .admission(spec.admission())
        .runner_selector(spec.runner_selector().clone())
        .labels(spec.labels().clone());
    if let Some(max_retries) = spec.max_retries() {
        builder = builder.max_retries(max_retries);
    }
    builder.build().map_err(FlowError::Task)
}

/// Whether each job's merged environment fits [`MAX_ENV_VARS`], checked by counting keys
/// (linear in the variables), not by merging.
pub(super) struct EnvFit<'a> {
    flow_env: &'a TaskEnv,
    keys: HashSet<&'a str>,
}

impl<'a> EnvFit<'a> {
    pub(super) fn new(flow_env: &'a TaskEnv) -> Self {
        let keys = flow_env.iter().map(|var| var.key()).collect();
        Self { flow_env, keys }
    }

    /// Checks job `i`'s spec; a merge that does not fit gives [`merge_flow_env`]'s error at
    /// `jobs[i].spec.kind.env`.
    pub(super) fn check(&self, i: usize, spec: &TaskSpec) -> Result<(), FlowError> {
        if self.flow_env.is_empty() {
            return Ok(());
        }
        let own = spec.kind().env();
        let extra = own
            .iter()
            .filter(|var| !self.keys.contains(var.key()))
            .count();
        if self.flow_env.len() + extra <= MAX_ENV_VARS {
            return Ok(());
        }
        merge_flow_env(self.flow_env, spec)
            .map(drop)
            .map_err(|e| e.at(&format!("jobs[{i}].spec")))
    }
}
