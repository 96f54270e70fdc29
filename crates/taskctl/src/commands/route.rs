//! `taskctl route`: which runner of an inventory takes a task spec, and why each other runner
//! does not.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};
use taskmodel::selector::Labels;
use taskmodel::task::route::RouteOutcome;
use taskmodel::task::{KindSet, Parsed, RunnerRouter, TaskError, TaskSpec};
use taskmodel::{RunnerId, TaskId};

use crate::cli::{Output, RouteArgs};
use crate::diagnose::{Problem, Wire, parse_all, parse_json};
use crate::input::{self, Input};
use crate::outcome::Outcome;
use crate::report::{CommandError, Failure, write_json};

/// One runner of the inventory file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunnerDoc {
    id: RunnerId,
    #[serde(default)]
    labels: Labels,
    kinds: KindSet,
}

/// The inventory file: a JSON array of runners, every rule of which serde checks.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
struct Inventory(Vec<RunnerDoc>);

impl Wire for Inventory {
    type Value = Vec<RunnerDoc>;

    fn check(self) -> Result<Self::Value, TaskError> {
        Ok(self.0)
    }
}

/// How one runner fared, as `--output json` prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Verdict {
    id: String,
    kinds: KindSet,
    /// `picked`, `outranked` or `rejected`.
    outcome: &'static str,
    kind_supported: bool,
    failures: Vec<Failure>,
    /// The rendezvous weight of an eligible runner, in hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<String>,
    /// The reason in one line, as the text output prints it.
    reason: String,
}

/// The whole result, as `--output json` prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Routed {
    /// Whether a runner was picked.
    routed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    picked: Option<String>,
    runners: Vec<Verdict>,
    /// Why nothing was picked: invalid input, or no eligible runner.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    problems: Vec<Problem>,
}

impl Routed {
    fn failed(problems: Vec<Problem>) -> Self {
        Self {
            routed: false,
            task_id: None,
            kind: None,
            picked: None,
            runners: Vec::new(),
            problems,
        }
    }
}

/// Reads the spec and the inventory, routes, and prints the verdicts.
///
/// Exit 0 when a runner is picked; 1 when an input is invalid or no runner can take the
/// task; 2 when a file cannot be read.
pub(crate) fn run(
    args: &RouteArgs,
    output: Output,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
) -> Result<Outcome, CommandError> {
    let spec = input::read(&args.spec, stdin).map_err(CommandError::Read)?;
    let runners = input::read(&args.runners, stdin).map_err(CommandError::Read)?;
    let routed = route(&spec, &runners, args.task_id.as_deref());
    match output {
        Output::Json => write_json(out, &routed)?,
        Output::Text => write_text(out, &routed)?,
    }
    Ok(Outcome::valid_if(routed.routed))
}

/// Parses one input as a `W`, with every problem prefixed by the file name.
fn parse<W: Wire>(input: &Input) -> Result<W::Value, Vec<Problem>> {
    let named = |p: Problem| Problem {
        path: format!("{}: {}", input.name, p.path)
            .trim_end_matches(": ")
            .to_owned(),
        ..p
    };
    let text = input
        .text
        .as_ref()
        .map_err(|reason| vec![Problem::at(input.name.clone(), reason.clone())])?;
    let value = parse_json(text).map_err(|p| vec![named(p)])?;
    parse_all::<W>(&value).map_err(|ps| ps.into_iter().map(named).collect())
}

fn route(spec: &Input, runners: &Input, task_id: Option<&str>) -> Routed {
    let spec: Result<TaskSpec, _> = parse::<Parsed<TaskSpec>>(spec);
    let runners: Result<Vec<RunnerDoc>, _> = parse::<Inventory>(runners);
    let (spec, runners) = match (spec, runners) {
        (Ok(spec), Ok(runners)) => (spec, runners),
        (spec, runners) => {
            let mut problems = spec.err().unwrap_or_default();
            problems.extend(runners.err().unwrap_or_default());
            return Routed::failed(problems);
        }
    };
    // Without --task-id, the slot stands in for the task id (both use the same characters).
    let task_id = match TaskId::new(task_id.unwrap_or(spec.slot().as_ref())) {
        Ok(id) => id,
        Err(err) => return Routed::failed(vec![Problem::at("--task-id", err.to_string())]),
    };
    let router = RunnerRouter::new();
    if let Err(err) = router.replace_all(runners.into_iter().map(|r| (r.id, r.labels, r.kinds))) {
        return Routed::failed(vec![Problem::at("runners", err.to_string())]);
    }
    let explained = match router.explain(&spec, &task_id) {
        Ok(explained) => explained,
        Err(err) => return Routed::failed(vec![Problem::at("kind", err.to_string())]),
    };
    let mut problems = Vec::new();
    if explained.picked.is_none() {
        let err = router.pick(&spec, &task_id).err().map_or_else(
            || "no runner can take the task".to_owned(),
            |e: TaskError| e.to_string(),
        );
        problems.push(Problem::at("runnerSelector", err));
    }
    let runners = explained
        .runners
        .iter()
        .map(|v| {
            let (outcome, kind_supported, weight) = match &v.outcome {
                RouteOutcome::Picked => ("picked", true, None),
                RouteOutcome::Outranked { weight } => {
                    ("outranked", true, Some(format!("{weight:#018x}")))
                }
                RouteOutcome::Rejected { kind_supported, .. } => {
                    ("rejected", *kind_supported, None)
                }
                _ => ("rejected", false, None),
            };
            let failures = explained
                .failures(v)
                .map(|f| Failure {
                    path: f.requirement.path.clone(),
                    requirement: f.requirement.requirement.clone(),
                    key: f.requirement.key.clone(),
                    reason: f.reason.to_string(),
                })
                .collect();
            let reason = explained.reason(v).to_string();
            let reason = match &v.outcome {
                RouteOutcome::Rejected {
                    kind_supported: false,
                    ..
                } => reason.replacen(
                    "kind not supported",
                    &format!("runs {}, not {}", shown(v.kinds), explained.kind),
                    1,
                ),
                _ => reason,
            };
            Verdict {
                id: v.runner.to_string(),
                kinds: v.kinds,
                outcome,
                kind_supported,
                failures,
                weight,
                reason,
            }
        })
        .collect();
    Routed {
        routed: explained.picked.is_some(),
        task_id: Some(task_id.to_string()),
        kind: Some(explained.kind),
        picked: explained.picked.map(|id| id.to_string()),
        runners,
        problems,
    }
}

fn shown(kinds: KindSet) -> String {
    if kinds.is_empty() {
        "no kind".to_owned()
    } else {
        kinds.to_string()
    }
}

fn write_text(out: &mut dyn Write, routed: &Routed) -> Result<(), CommandError> {
    if let (Some(task_id), Some(kind)) = (&routed.task_id, routed.kind) {
        writeln!(out, "task {task_id} ({kind})")?;
    }
    match &routed.picked {
        Some(picked) => writeln!(out, "picked: {picked}")?,
        None if routed.task_id.is_some() => writeln!(out, "picked: none")?,
        None => {}
    }
    let width = routed.runners.iter().map(|v| v.id.len()).max().unwrap_or(0);
    for v in &routed.runners {
        writeln!(out, "  {:width$}  {}", v.id, v.reason)?;
    }
    for p in &routed.problems {
        match (p.line, p.column) {
            (Some(line), Some(column)) => {
                writeln!(
                    out,
                    "error: {} (line {line}, column {column}): {}",
                    p.path, p.message
                )?;
            }
            _ if p.path.is_empty() => writeln!(out, "error: {}", p.message)?,
            _ => writeln!(out, "error: {}: {}", p.path, p.message)?,
        }
    }
    Ok(())
}
