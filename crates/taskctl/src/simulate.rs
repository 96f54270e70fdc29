//! `taskctl simulate`: the control plane on simulated time. Task specs, flows or schedules
//! and a runner inventory go in; runners claim, start, heartbeat and report, attempts fail and time out
//! at the given rates, crashed runners' leases expire and the reaper requeues, retries wait
//! their backoff; the attempt rules are checked after every step. Out come a summary, JSON,
//! and a Gantt chart of the attempts (docs/taskctl.md).
//!
//! Read first: [`engine`] (the events and what each step calls), then [`plane`] (the
//! [`ControlPlane`](plane::ControlPlane) trait, over taskstore's SQLite store or in memory over the
//! model). Every random draw comes from one seed, so a run is reproduced byte for byte.

mod clock;
mod engine;
mod flow;
mod input;
mod invariant;
mod plane;
mod schedule;
mod summary;
mod timeline;

use std::io::{self, Read, Write};

use taskmodel::fleet::Runner;
use taskmodel::ids::hash::splitmix64;
use taskmodel::{SeededRandom, TenantId};

use self::engine::{Engine, RunnerSim, Settings};
use self::input::Problems;
use self::plane::{ControlPlane, MemoryPlane, PlaneError, StorePlane};
use self::summary::Summary;
use crate::cli::{Output, PlaneKind, SimulateArgs};
use crate::outcome::Outcome;
use crate::report::Progress;
use crate::report::{CommandError, write_json};

pub use self::engine::MAX_STEPS;
pub use self::input::{MAX_COPIES, MAX_DURATION_MS, MAX_SIMULATED_TASKS};

/// The tenant every simulated task belongs to.
const TENANT: &str = "simulation";

/// Reads the inputs, runs the simulation and prints what happened.
///
/// Exit 0 when every step kept the attempt rules; 1 when an input is invalid or a step
/// broke a rule; 2 for a bad option, a file that cannot be read, or output that cannot be
/// written.
pub(crate) fn run(
    args: &SimulateArgs,
    output: Output,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    progress: Progress,
) -> Result<Outcome, CommandError> {
    let settings = input::settings(args)?;
    let submission = input::submission(args, stdin)?;
    let inventory = input::inventory(&args.runners, stdin)?;
    let (submission, inventory) = match (submission, inventory) {
        (Ok(submission), Ok(inventory)) => (submission, inventory),
        (submission, inventory) => {
            let mut problems = submission.err().unwrap_or_default();
            problems.extend(inventory.err().unwrap_or_default());
            problems.write(output, out)?;
            return Ok(Outcome::Invalid);
        }
    };
    let crashes = input::crashes(&args.crash, &inventory)?;
    let job_rates = input::job_rates(args, &submission.jobs)?;
    let settings = Settings {
        crashes,
        job_rates,
        ..settings
    };
    let tenant = TenantId::new(TENANT).map_err(|err| CommandError::Argument(err.to_string()))?;
    let rng = SeededRandom::new(splitmix64(args.seed));
    let input = Input {
        submission,
        inventory,
        settings,
    };
    let summary = match args.plane {
        PlaneKind::Memory if args.store_path.is_some() => {
            return Err(CommandError::Argument(
                "--store-path needs --plane sqlite".to_owned(),
            ));
        }
        PlaneKind::Memory => simulate(&mut MemoryPlane::new(tenant, rng), input, args, progress),
        PlaneKind::Sqlite => {
            let mut plane = StorePlane::open(args.store_path.as_deref(), tenant, rng)
                .map_err(|err| CommandError::Argument(format!("--store-path: {err}")))?;
            simulate(&mut plane, input, args, progress)
        }
    };
    let summary = match summary? {
        Ok(summary) => summary,
        Err((name, err)) => return invalid(output, out, &name, &err),
    };
    match output {
        Output::Json => write_json(out, &summary)?,
        Output::Text => summary.write_text(out)?,
    }
    Ok(Outcome::valid_if(summary.violation.is_none()))
}

/// The validated inputs of one run.
struct Input {
    submission: input::Submission,
    inventory: Vec<input::RunnerRow>,
    settings: Settings,
}

/// Runs the simulation on `plane` and writes the timeline: the summary, or the name of the
/// input that showed invalid only when the plane met it, with the reason.
fn simulate<P: ControlPlane>(
    plane: &mut P,
    input: Input,
    args: &SimulateArgs,
    progress: Progress,
) -> Result<Result<Summary, (String, String)>, CommandError> {
    let Input {
        submission,
        inventory,
        settings,
    } = input;
    let mut runners = Vec::with_capacity(inventory.len());
    for (id, labels, kinds, capacity) in inventory {
        runners.push(RunnerSim::new(
            id.clone(),
            labels.clone(),
            kinds.clone(),
            capacity,
        ));
        let runner = Runner::builder(id, kinds)
            .labels(labels)
            .max_concurrent(capacity)
            .build()
            .map_err(PlaneError::from)
            .and_then(|runner| plane.register(runner, clock::instant(0)));
        if let Err(err) = runner {
            return Ok(Err((args.runners.display().to_string(), err.to_string())));
        }
    }
    let mut engine = Engine::new(plane, runners, settings, SeededRandom::new(args.seed));
    if let Err(rule) = engine.submit(submission.tasks, submission.flows, submission.schedules) {
        return Ok(Err(("specs".to_owned(), rule.to_string())));
    }
    let bar = progress_bar(progress);
    let run = engine.run(&mut |finished, tasks| {
        if let Some(bar) = &bar {
            bar.set_length(tasks);
            bar.set_position(finished);
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let phases = run.tasks.iter().map(|id| {
        plane
            .observe(id)
            .map_or("unknown", |observed| observed.task.phase().as_str())
    });
    let summary = Summary::of(&run, args.seed, phases);
    if let Some(path) = &args.timeline {
        let title = format!(
            "taskctl simulate: {} tasks on {} runners, seed {}",
            summary.tasks, summary.runners, summary.seed
        );
        let svg = timeline::svg(&run.bars, &run.runners, run.end, &title)
            .map_err(|err| CommandError::Write(io::Error::other(err)))?;
        std::fs::write(path, svg).map_err(|err| {
            CommandError::Write(io::Error::new(
                err.kind(),
                format!("{}: {err}", path.display()),
            ))
        })?;
    }
    Ok(Ok(summary))
}

/// Reports one problem with the inputs that only showed when they met (exit 1).
fn invalid(
    output: Output,
    out: &mut dyn Write,
    name: &str,
    err: &dyn std::fmt::Display,
) -> Result<Outcome, CommandError> {
    let mut problems = Problems::default();
    problems.push(name, crate::diagnose::Problem::at("", err.to_string()));
    problems.write(output, out)?;
    Ok(Outcome::Invalid)
}

/// A progress bar of the tasks that reached a final phase out of those submitted so far
/// (flows submit more as they go), on the terminal only.
fn progress_bar(progress: Progress) -> Option<indicatif::ProgressBar> {
    match progress {
        Progress::Hidden => None,
        Progress::Terminal => Some(indicatif::ProgressBar::with_draw_target(
            None,
            indicatif::ProgressDrawTarget::stderr(),
        )),
    }
}
