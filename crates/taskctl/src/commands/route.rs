//! `taskctl route`: which runner of an inventory takes a task spec, and why each other runner
//! does not.

use std::io::{Read, Write};

use serde::{Serialize, Serializer};
use taskmodel::TaskId;
use taskmodel::fleet::{
    FleetError, KindSet, RouteExplanation, RouteOutcome, RunnerRouter, RunnerVerdict,
};
use taskmodel::selector::MAX_RUNNERS;
use taskmodel::task::{KindName, Parsed, TaskSpec};

use crate::cli::{Output, RouteArgs};
use crate::diagnose::{Problem, parse_all, parse_json};
use crate::input::{self, Input};
use crate::inventory::Inventory;
use crate::outcome::Outcome;
use crate::report::{CommandError, Failure, write_json};

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
    kind: Option<KindName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    picked: Option<String>,
    runners: Verdicts,
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
            runners: Verdicts::default(),
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
    let spec = parse_spec(&spec);
    let runners = input::read(&args.runners, stdin).map_err(CommandError::Read)?;
    let routed = route(spec, runners, args.task_id.as_deref());
    match output {
        Output::Json => write_json(out, &routed)?,
        Output::Text => write_text(out, &routed)?,
    }
    Ok(Outcome::valid_if(routed.routed))
}

/// Every problem of `input`, prefixed by the file name.
fn named(input: &Input, problems: Vec<Problem>) -> Vec<Problem> {
    problems
        .into_iter()
        .map(|p| Problem {
            path: format!("{}: {}", input.name, p.path)
                .trim_end_matches(": ")
                .to_owned(),
            ..p
        })
        .collect()
}

/// The text of `input`, or why it is not acceptable.
fn text(input: &Input) -> Result<&str, Vec<Problem>> {
    input
        .text
        .as_deref()
        .map_err(|reason| vec![Problem::at(input.name.clone(), reason.clone())])
}

/// Parses the spec, reporting every bad field.
fn parse_spec(input: &Input) -> Result<TaskSpec, Vec<Problem>> {
    let value = parse_json(text(input)?).map_err(|p| named(input, vec![p]))?;
    parse_all::<Parsed<TaskSpec>>(value).map_err(|ps| named(input, ps))
}

/// Reads the inventory, each runner checked (the router's bound, [`MAX_RUNNERS`], at most).
fn read_inventory(input: &Input) -> Result<Inventory<'_>, Vec<Problem>> {
    let value = parse_json(text(input)?).map_err(|p| named(input, vec![p]))?;
    Inventory::read(value, MAX_RUNNERS).map_err(|p| named(input, vec![p]))
}

/// Routes the spec over the inventory. What taskctl holds beside the router stays about
/// the inventory's size: its text is dropped once the router has the runners, and each
/// runner's verdict is made while the output is written ([`Verdicts`]).
fn route(spec: Result<TaskSpec, Vec<Problem>>, runners: Input, task_id: Option<&str>) -> Routed {
    let inventory = read_inventory(&runners);
    let (spec, inventory) = match (spec, inventory) {
        (Ok(spec), Ok(inventory)) => (spec, inventory),
        (spec, inventory) => {
            let mut problems = spec.err().unwrap_or_default();
            problems.extend(inventory.err().unwrap_or_default());
            return Routed::failed(problems);
        }
    };
    // Without --task-id, the slot stands in for the task id (both use the same characters).
    let task_id = match TaskId::new(task_id.unwrap_or(spec.slot().as_ref())) {
        Ok(id) => id,
        Err(err) => return Routed::failed(vec![Problem::at("--task-id", err.to_string())]),
    };
    let router = RunnerRouter::new();
    let loaded = inventory.load(&router);
    // The inventory's text is not needed once the router holds the runners.
    drop(runners);
    if let Err(err) = loaded {
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
            |e: FleetError| e.to_string(),
        );
        problems.push(Problem::at("runnerSelector", err));
    }
    Routed {
        routed: explained.picked.is_some(),
        task_id: Some(task_id.to_string()),
        kind: Some(explained.kind.clone()),
        picked: explained.picked.as_ref().map(ToString::to_string),
        runners: Verdicts(Some(explained)),
        problems,
    }
}

/// How `runner` fared, as printed: built for one runner at a time while the output is written.
fn verdict(explained: &RouteExplanation, runner: &RunnerVerdict) -> Verdict {
    let (outcome, kind_supported, weight) = match &runner.outcome {
        RouteOutcome::Picked => ("picked", true, None),
        RouteOutcome::Outranked { weight } => ("outranked", true, Some(format!("{weight:#018x}"))),
        RouteOutcome::Rejected { kind_supported, .. } => ("rejected", *kind_supported, None),
        _ => ("rejected", false, None),
    };
    let failures = explained
        .failures(runner)
        .map(|f| Failure {
            path: f.requirement.path.clone(),
            requirement: f.requirement.requirement.clone(),
            key: f.requirement.key.clone(),
            reason: f.reason.to_string(),
        })
        .collect();
    let reason = explained.reason(runner).to_string();
    let reason = match &runner.outcome {
        RouteOutcome::Rejected {
            kind_supported: false,
            ..
        } => reason.replacen(
            "kind not supported",
            &format!("runs {}, not {}", shown(&runner.kinds), explained.kind),
            1,
        ),
        _ => reason,
    };
    Verdict {
        id: runner.runner.to_string(),
        kinds: runner.kinds.clone(),
        outcome,
        kind_supported,
        failures,
        weight,
        reason,
    }
}

/// Every runner's verdict, made one at a time as the output is written.
#[derive(Debug, Default)]
struct Verdicts(Option<RouteExplanation>);

impl Verdicts {
    fn each(&self) -> impl Iterator<Item = Verdict> + '_ {
        self.0.iter().flat_map(|explained| {
            explained
                .runners
                .iter()
                .map(|runner| verdict(explained, runner))
        })
    }
}

impl Serialize for Verdicts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.each())
    }
}

fn shown(kinds: &KindSet) -> String {
    if kinds.is_empty() {
        "no kind".to_owned()
    } else {
        kinds.to_string()
    }
}

fn write_text(out: &mut dyn Write, routed: &Routed) -> Result<(), CommandError> {
    if let (Some(task_id), Some(kind)) = (&routed.task_id, &routed.kind) {
        writeln!(out, "task {task_id} ({kind})")?;
    }
    match &routed.picked {
        Some(picked) => writeln!(out, "picked: {picked}")?,
        None if routed.task_id.is_some() => writeln!(out, "picked: none")?,
        None => {}
    }
    let width = routed
        .runners
        .0
        .iter()
        .flat_map(|explained| &explained.runners)
        .map(|runner| runner.runner.as_ref().len())
        .max()
        .unwrap_or(0);
    for v in routed.runners.each() {
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
