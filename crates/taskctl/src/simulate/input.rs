//! What `taskctl simulate` reads: the options, checked; the task specs, manifests, flows and
//! schedules (checked as `taskctl check` checks them, then copied); the runner inventory (as
//! `taskctl route` reads it); and the crashes.

use std::io::{Read, Write};
use std::path::Path;

use serde::Serialize;
use taskmodel::fleet::KindSet;
use taskmodel::flow::FlowSpec;
use taskmodel::ids::hash::splitmix64;
use taskmodel::selector::{Labels, MAX_RUNNERS};
use taskmodel::task::{ManifestMeta, Task, TaskManifest, TaskSpec};
use taskmodel::{RunnerId, Schedule, TaskId};

use super::clock::Millis;
use super::engine::{Crash, Rates, Settings};
use super::flow::Flows;
use super::schedule::Schedules;
use crate::cli::{Output, SimulateArgs};
use crate::diagnose::{Problem, parse_json, parse_text};
use crate::document::{Shape, check_document};
use crate::input;
use crate::inventory::Inventory;
use crate::report::{CommandError, write_json, write_problem};

/// The most copies of one spec (`--copies`).
pub const MAX_COPIES: u32 = 100_000;

/// The most tasks one simulation holds: specs times copies.
pub const MAX_SIMULATED_TASKS: usize = 1_000_000;

/// The longest simulated duration (`--duration-ms`): 366 days.
pub const MAX_DURATION_MS: u64 = 366 * 86_400_000;

/// A runner of the inventory: its id, labels, the kinds it runs and its capacity.
pub(crate) type RunnerRow = (RunnerId, Labels, KindSet, u32);

/// The problems of the inputs, each with the input it is in.
#[derive(Debug, Default)]
pub(crate) struct Problems(Vec<(String, Problem)>);

/// One problem as `--output json` prints it.
#[derive(Debug, Serialize)]
struct Named<'a> {
    file: &'a str,
    #[serde(flatten)]
    problem: &'a Problem,
}

/// What `--output json` prints when an input is invalid.
#[derive(Debug, Serialize)]
struct Invalid<'a> {
    valid: bool,
    problems: Vec<Named<'a>>,
}

impl Problems {
    pub(crate) fn push(&mut self, name: &str, problem: Problem) {
        self.0.push((name.to_owned(), problem));
    }

    pub(crate) fn extend(&mut self, other: Self) {
        self.0.extend(other.0);
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Writes the problems, one a line as `taskctl check` does, or as JSON.
    pub(crate) fn write(&self, output: Output, out: &mut dyn Write) -> Result<(), CommandError> {
        match output {
            Output::Json => write_json(
                out,
                &Invalid {
                    valid: false,
                    problems: self
                        .0
                        .iter()
                        .map(|(file, problem)| Named { file, problem })
                        .collect(),
                },
            ),
            Output::Text => {
                for (name, problem) in &self.0 {
                    write_problem(out, name, problem)?;
                }
                Ok(())
            }
        }
    }
}

/// The options as the engine takes them (no crashes yet: they need the inventory).
pub(crate) fn settings(args: &SimulateArgs) -> Result<Settings, CommandError> {
    let bad = |flag: &str, reason: &str| {
        Err(CommandError::Argument(format!(
            "invalid value for {flag}: {reason}"
        )))
    };
    for (flag, rate) in [
        ("--fail-rate", args.fail_rate),
        ("--timeout-rate", args.timeout_rate),
    ] {
        if !(0.0..=1.0).contains(&rate) {
            return bad(flag, &format!("must be between 0 and 1, got {rate}"));
        }
    }
    if args.fail_rate + args.timeout_rate > 1.0 {
        return bad("--fail-rate", "with --timeout-rate it must be at most 1");
    }
    for (flag, value) in [
        ("--lease-ms", args.lease_ms),
        ("--heartbeat-ms", args.heartbeat_ms),
        ("--attempt-ms", args.attempt_ms),
    ] {
        if value == 0 {
            return bad(flag, "must be greater than zero");
        }
    }
    if !(1..=MAX_COPIES).contains(&args.copies) {
        return bad(
            "--copies",
            &format!("must be 1 to {MAX_COPIES}, got {}", args.copies),
        );
    }
    if !(1..=args.copies).contains(&args.slots) {
        return bad(
            "--slots",
            &format!(
                "must be 1 to --copies ({}), got {}",
                args.copies, args.slots
            ),
        );
    }
    if args.heartbeat_ms >= args.lease_ms {
        return bad(
            "--heartbeat-ms",
            &format!(
                "must be below --lease-ms ({}), or every lease expires",
                args.lease_ms
            ),
        );
    }
    if args.duration_ms > MAX_DURATION_MS {
        return bad(
            "--duration-ms",
            &format!("must be at most {MAX_DURATION_MS}"),
        );
    }
    Ok(Settings {
        lease_ms: args.lease_ms,
        heartbeat_ms: args.heartbeat_ms,
        attempt_ms: args.attempt_ms,
        duration_ms: args.duration_ms,
        rates: Rates {
            fail: args.fail_rate,
            timeout: args.timeout_rate,
        },
        job_rates: std::collections::BTreeMap::new(),
        crashes: Vec::new(),
    })
}

/// `--job-fail-rate` and `--job-timeout-rate` as each named job's rates (the overall rate
/// where only the other is given); every name must be one of `jobs`.
pub(crate) fn job_rates(
    args: &SimulateArgs,
    jobs: &std::collections::BTreeSet<String>,
) -> Result<std::collections::BTreeMap<String, Rates>, CommandError> {
    let overall = Rates {
        fail: args.fail_rate,
        timeout: args.timeout_rate,
    };
    let mut rates = std::collections::BTreeMap::new();
    for (flag, given, fail) in [
        ("--job-fail-rate", &args.job_fail_rate, true),
        ("--job-timeout-rate", &args.job_timeout_rate, false),
    ] {
        for value in given {
            let bad = |reason: String| {
                CommandError::Argument(format!("invalid value {value:?} for {flag}: {reason}"))
            };
            let (name, rate) = value
                .split_once('=')
                .ok_or_else(|| bad("expected NAME=RATE".to_owned()))?;
            let rate: f64 = rate
                .parse()
                .ok()
                .filter(|rate| (0.0..=1.0).contains(rate))
                .ok_or_else(|| bad(format!("{rate:?} is not a rate between 0 and 1")))?;
            if !jobs.contains(name) {
                return Err(bad(format!(
                    "no flow job, spec or manifest named {name:?} is given"
                )));
            }
            let entry = rates.entry(name.to_owned()).or_insert(overall);
            if fail {
                entry.fail = rate;
            } else {
                entry.timeout = rate;
            }
            if entry.fail + entry.timeout > 1.0 {
                return Err(bad(format!(
                    "the fail and timeout rates of {name} add up to more than 1"
                )));
            }
        }
    }
    Ok(rates)
}

/// Every task and flow to submit: each spec, manifest or flow `--copies` times, in the
/// order given; or every problem of the inputs.
pub(crate) fn submission(
    args: &SimulateArgs,
    stdin: &mut dyn Read,
) -> Result<Result<Submission, Problems>, CommandError> {
    let copies = usize::try_from(args.copies).unwrap_or(usize::MAX);
    if args.specs.len().saturating_mul(copies) > MAX_SIMULATED_TASKS {
        return Err(CommandError::Argument(format!(
            "invalid value for --copies: {} specs times {copies} copies is more than {MAX_SIMULATED_TASKS} tasks",
            args.specs.len()
        )));
    }
    for path in &args.specs {
        input::probe(path).map_err(CommandError::Read)?;
    }
    let mut problems = Problems::default();
    let mut manifests = Vec::with_capacity(args.specs.len().saturating_mul(copies));
    let mut jobs = std::collections::BTreeSet::new();
    let mut names = std::collections::BTreeSet::new();
    let mut flow_names = std::collections::BTreeSet::new();
    let mut flows = Flows::default();
    // Its own stream of the run's seed, apart from the engine's and the plane's.
    let mut schedules = Schedules::new(splitmix64(splitmix64(args.seed)));
    let mut tasks: usize = 0;
    for path in &args.specs {
        let read = input::read(path, stdin).map_err(CommandError::Read)?;
        let document = match &read.text {
            Ok(text) => document(text),
            Err(reason) => Err(vec![Problem::at("", reason.clone())]),
        };
        let manifest = match document {
            Ok(Document::Task(manifest)) => *manifest,
            Ok(Document::Schedule(schedule)) => {
                let name = schedule.name().to_string();
                if flow_names.insert(name.clone()) {
                    jobs.insert(name.clone());
                    schedules.add(name, *schedule);
                } else {
                    problems.push(
                        &read.name,
                        Problem::at("", format!("schedule {name} is given twice")),
                    );
                }
                continue;
            }
            Ok(Document::Flow(flow)) => {
                tasks = tasks.saturating_add(flow.jobs().len().saturating_mul(copies));
                jobs.extend(flow.jobs().iter().map(|job| job.name().to_string()));
                for copy in 1..=args.copies {
                    let name = match args.copies {
                        1 => flow.name().to_string(),
                        _ => format!("{}-{copy}", flow.name()),
                    };
                    if !flow_names.insert(name.clone()) {
                        problems.push(
                            &read.name,
                            Problem::at("", format!("flow {name} is given twice")),
                        );
                        break;
                    }
                    flows.add(name, (*flow).clone());
                }
                continue;
            }
            Err(found) => {
                for problem in found {
                    problems.push(&read.name, problem);
                }
                continue;
            }
        };
        tasks = tasks.saturating_add(copies);
        let job = manifest.metadata().name().to_string();
        jobs.insert(job.clone());
        for copy in copied(manifest, args.copies, args.slots) {
            match copy {
                Ok(copy) if names.insert(copy.metadata().name().clone()) => {
                    manifests.push((job.clone(), copy));
                }
                Ok(copy) => problems.push(
                    &read.name,
                    Problem::at(
                        "",
                        format!("task {} is given twice", copy.metadata().name()),
                    ),
                ),
                Err(problem) => problems.push(&read.name, problem),
            }
        }
    }
    if tasks > MAX_SIMULATED_TASKS {
        return Err(CommandError::Argument(format!(
            "invalid value for --copies: the specs and the flows' jobs times {copies} copies are {tasks} tasks, more than {MAX_SIMULATED_TASKS}"
        )));
    }
    Ok(if problems.is_empty() {
        Ok(Submission {
            tasks: manifests,
            flows,
            schedules,
            jobs,
        })
    } else {
        Err(problems)
    })
}

/// What a document gives: a task, a flow or a schedule.
enum Document {
    Task(Box<TaskManifest>),
    Flow(Box<FlowSpec>),
    Schedule(Box<Schedule>),
}

/// The tasks (each with its job: the name of the spec or manifest it copies) and the flows
/// to submit, and the names of every job.
pub(crate) struct Submission {
    pub(crate) tasks: Vec<(String, TaskManifest)>,
    pub(crate) flows: Flows,
    pub(crate) schedules: Schedules,
    pub(crate) jobs: std::collections::BTreeSet<String>,
}

/// What a document describes: a flow, or a task's manifest (a spec is named by its slot; a
/// stored task gives its manifest). Problems as `taskctl check` finds them.
fn document(text: &str) -> Result<Document, Vec<Problem>> {
    let checked = check_document(text);
    if !checked.is_valid() {
        return Err(checked.problems);
    }
    if checked.shape == Some(Shape::Flow) {
        return parse_text::<FlowSpec>(text)
            .map(|flow| Document::Flow(Box::new(flow)))
            .map_err(|problem| vec![problem]);
    }
    if checked.shape == Some(Shape::Schedule) {
        return parse_text::<Schedule>(text)
            .map(|schedule| Document::Schedule(Box::new(schedule)))
            .map_err(|problem| vec![problem]);
    }
    manifest(checked.shape, text).map(|manifest| Document::Task(Box::new(manifest)))
}

/// The manifest of a checked document of `shape`.
fn manifest(shape: Option<Shape>, text: &str) -> Result<TaskManifest, Vec<Problem>> {
    let one = |problem| vec![problem];
    match shape {
        Some(Shape::TaskManifest) => parse_text::<TaskManifest>(text).map_err(one),
        Some(Shape::Task) => parse_text::<Task>(text)
            .map(|task| task.manifest())
            .map_err(one),
        Some(Shape::TaskSpec) => {
            let spec = parse_text::<TaskSpec>(text).map_err(one)?;
            let name = TaskId::new(spec.slot().as_ref())
                .map_err(|err| vec![Problem::at("slot", err.to_string())])?;
            Ok(TaskManifest::named(name, spec))
        }
        Some(Shape::Wire(name)) => Err(vec![Problem::at(
            "",
            format!("a {name} is not simulated: give task specs, manifests or flows"),
        )]),
        // A flow and a schedule are read before, and a document without a shape has problems.
        Some(Shape::Flow | Shape::Schedule) | None => {
            Err(vec![Problem::at("", "not a task spec or manifest")])
        }
    }
}

/// `manifest` itself for one copy; else copies named `NAME-1`, `NAME-2`, ..., spread over
/// `slots` slots: copy k in slot `SLOT-j`, j = (k - 1) mod `slots` + 1 (the spec's own slot
/// when `slots` is 1).
fn copied(
    manifest: TaskManifest,
    copies: u32,
    slots: u32,
) -> Box<dyn Iterator<Item = Result<TaskManifest, Problem>>> {
    if copies == 1 {
        return Box::new(std::iter::once(Ok(manifest)));
    }
    Box::new((1..=copies).map(move |copy| {
        let meta = manifest.metadata();
        let name = TaskId::new(format!("{}-{copy}", meta.name()))
            .map_err(|err| Problem::at("metadata.name", format!("copy {copy}: {err}")))?;
        let meta = ManifestMeta::new(name)
            .with_labels(meta.labels().clone())
            .with_annotations(meta.annotations().clone())
            .with_owner_references(meta.owner_references().to_vec())
            .map_err(|err| Problem::at("metadata.ownerReferences", err.to_string()))?;
        let spec = match slots {
            1 => manifest.spec().clone(),
            _ => in_slot(manifest.spec(), (copy - 1) % slots + 1)
                .map_err(|err| Problem::at("slot", format!("copy {copy}: {err}")))?,
        };
        Ok(TaskManifest::new(meta, spec))
    }))
}

/// `spec` in slot `SLOT-n`, read back through the spec's own parser so every rule holds.
fn in_slot(spec: &TaskSpec, n: u32) -> Result<TaskSpec, serde_json::Error> {
    let mut value = serde_json::to_value(spec)?;
    if let Some(slot) = value.get_mut("slot") {
        *slot = serde_json::Value::String(format!("{}-{n}", spec.slot()));
    }
    serde_json::from_value(value)
}

/// The runners of the inventory at `path`, in its order; or its problems.
pub(crate) fn inventory(
    path: &Path,
    stdin: &mut dyn Read,
) -> Result<Result<Vec<RunnerRow>, Problems>, CommandError> {
    let read = input::read(path, stdin).map_err(CommandError::Read)?;
    let mut problems = Problems::default();
    let text = match &read.text {
        Ok(text) => text,
        Err(reason) => {
            problems.push(&read.name, Problem::at("", reason.clone()));
            return Ok(Err(problems));
        }
    };
    let runners = parse_json(text).and_then(|value| Inventory::read(value, MAX_RUNNERS));
    Ok(match runners {
        Ok(runners) => Ok(runners.runners().collect()),
        Err(problem) => {
            problems.push(&read.name, problem);
            Err(problems)
        }
    })
}

/// `--crash RUNNER@MS` and `RUNNER@MS..BACK` as crashes; one runner's times may not
/// overlap.
pub(crate) fn crashes(
    crashes: &[String],
    runners: &[RunnerRow],
) -> Result<Vec<Crash>, CommandError> {
    let mut parsed: Vec<Crash> = Vec::with_capacity(crashes.len());
    for crash in crashes {
        let bad = |reason: String| {
            CommandError::Argument(format!("invalid value {crash:?} for --crash: {reason}"))
        };
        let (runner, times) = crash
            .rsplit_once('@')
            .ok_or_else(|| bad("expected RUNNER@MS or RUNNER@MS..MS".to_owned()))?;
        let number = |text: &str| {
            text.parse::<Millis>()
                .map_err(|_| bad(format!("{text:?} is not a number of milliseconds")))
        };
        let (at, back) = match times.split_once("..") {
            Some((at, back)) => (number(at)?, Some(number(back)?)),
            None => (number(times)?, None),
        };
        if back.is_some_and(|back| back <= at) {
            return Err(bad("the runner must come back after it crashed".to_owned()));
        }
        let index = runners
            .iter()
            .position(|(id, ..)| id.as_ref() == runner)
            .ok_or_else(|| bad(format!("no runner {runner:?} in the inventory")))?;
        let end = |c: &Crash| c.back.unwrap_or(Millis::MAX);
        let next = Crash {
            runner: index,
            at,
            back,
        };
        if parsed
            .iter()
            .any(|c| c.runner == index && c.at < end(&next) && next.at < end(c))
        {
            return Err(bad(format!("runner {runner} is down then already")));
        }
        parsed.push(next);
    }
    Ok(parsed)
}
