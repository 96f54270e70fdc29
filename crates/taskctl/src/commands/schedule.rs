//! `taskctl schedule next`: the next fire times of a schedule or a cron expression, in UTC and
//! in the schedule's time zone.

use std::io::{Read, Write};
use std::time::SystemTime;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use taskmodel::schedule::{CronExpr, Schedule, ScheduleError, Trigger, Zone};

use crate::cli::{NextArgs, Output, ScheduleArgs, ScheduleCommand};
use crate::diagnose::{Problem, parse_first, parse_json};
use crate::input;
use crate::outcome::Outcome;
use crate::report::{CommandError, write_json, write_problem};

/// The source of the times when they come from `--cron`.
const CRON_SOURCE: &str = "--cron";

/// One fire time, as both outputs print it.
#[derive(Debug, Serialize)]
struct FireTime {
    /// In UTC, `Z`.
    utc: String,
    /// In the time zone, with its offset.
    local: String,
}

/// The whole result, as `--output json` prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct NextTimes {
    /// The schedule file (`<stdin>` for standard input), or `--cron`.
    source: String,
    /// Whether the schedule or expression is valid.
    valid: bool,
    /// The zone the local times are in.
    #[serde(skip_serializing_if = "Option::is_none")]
    time_zone: Option<&'static str>,
    /// The times are after this one.
    from: String,
    times: Vec<FireTime>,
    /// Why nothing could be computed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    problems: Vec<Problem>,
}

/// Runs a `taskctl schedule` subcommand.
pub(crate) fn run(
    args: &ScheduleArgs,
    output: Output,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
) -> Result<Outcome, CommandError> {
    match &args.command {
        ScheduleCommand::Next(next) => run_next(next, output, stdin, out),
    }
}

fn run_next(
    args: &NextArgs,
    output: Output,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
) -> Result<Outcome, CommandError> {
    let from = match &args.from {
        Some(text) => DateTime::parse_from_rfc3339(text)
            .map_err(|err| {
                CommandError::Argument(format!(
                    "invalid value for --from: {text:?} is not an RFC 3339 time ({err})"
                ))
            })?
            .to_utc(),
        None => DateTime::<Utc>::from(SystemTime::now()),
    };
    let count = usize::from(args.count);
    let (source, computed) = match (&args.cron, &args.file) {
        (Some(cron), _) => (
            CRON_SOURCE.to_owned(),
            from_cron(cron, args.time_zone.as_deref(), from, count),
        ),
        (None, Some(path)) => {
            let doc = input::read(path, stdin).map_err(CommandError::Read)?;
            (doc.name, from_schedule(doc.text, from, count))
        }
        // clap requires one of the two.
        (None, None) => {
            return Err(CommandError::Argument(
                "give a schedule FILE or --cron EXPR".to_owned(),
            ));
        }
    };
    let result = match computed {
        Ok((zone, times)) => NextTimes {
            source,
            valid: true,
            time_zone: Some(zone.name()),
            from: utc(from),
            times: times
                .into_iter()
                .map(|time| FireTime {
                    utc: utc(time),
                    local: zone
                        .to_local(time)
                        .to_rfc3339_opts(SecondsFormat::AutoSi, true),
                })
                .collect(),
            problems: Vec::new(),
        },
        Err(problems) => NextTimes {
            source,
            valid: false,
            time_zone: None,
            from: utc(from),
            times: Vec::new(),
            problems,
        },
    };
    match output {
        Output::Json => write_json(out, &result)?,
        Output::Text => write_text(out, &result)?,
    }
    Ok(Outcome::valid_if(result.valid))
}

fn utc(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// The fire times of `--cron` in `--time-zone` (UTC when absent).
fn from_cron(
    cron: &str,
    zone: Option<&str>,
    from: DateTime<Utc>,
    count: usize,
) -> Result<(Zone, Vec<DateTime<Utc>>), Vec<Problem>> {
    // The error names the wire field (`cron: ...`); here the flag stands in its place.
    let problem = |flag: &str, field: &str, err: ScheduleError| {
        let message = err.to_string();
        let message = message.strip_prefix(field).unwrap_or(&message);
        vec![Problem::at(flag, message)]
    };
    let cron = CronExpr::parse(cron).map_err(|err| problem("--cron", "cron: ", err))?;
    let zone = zone
        .map(Zone::parse)
        .transpose()
        .map_err(|err| problem("--time-zone", "timeZone: ", err))?
        .unwrap_or(Zone::UTC);
    Ok((zone, cron.next_fire_times(&zone, from, count)))
}

/// The fire times of a schedule document; the local times are in its cron trigger's zone (UTC
/// for the other triggers).
fn from_schedule(
    text: Result<String, String>,
    from: DateTime<Utc>,
    count: usize,
) -> Result<(Zone, Vec<DateTime<Utc>>), Vec<Problem>> {
    let text = text.map_err(|reason| vec![Problem::at("", reason)])?;
    // A syntax error keeps its line and column; a broken rule names its own field path.
    let value = parse_json(&text).map_err(|problem| vec![problem])?;
    let schedule = parse_first::<Schedule>(value).map_err(|problem| vec![problem])?;
    let zone = match schedule.trigger() {
        Trigger::Cron { time_zone, .. } => *time_zone,
        _ => Zone::UTC,
    };
    let times = schedule
        .next_fire_times(from, count)
        .map_err(|err| vec![Problem::at("", err.to_string())])?;
    Ok((zone, times))
}

fn write_text(out: &mut dyn Write, result: &NextTimes) -> Result<(), CommandError> {
    for problem in &result.problems {
        if result.source == CRON_SOURCE {
            // The problem's path is the flag.
            writeln!(out, "{}: {}", problem.path, problem.message)?;
        } else {
            write_problem(out, &result.source, problem)?;
        }
    }
    if !result.valid {
        return Ok(());
    }
    if result.times.is_empty() {
        writeln!(out, "no fire time after {}", result.from)?;
    }
    for time in &result.times {
        writeln!(out, "{}  {}", time.utc, time.local)?;
    }
    Ok(())
}
