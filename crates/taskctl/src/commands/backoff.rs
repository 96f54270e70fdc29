//! `taskctl backoff`: the retry schedule of a backoff policy for a seed.

use std::io::Write;

use serde::Serialize;
use taskmodel::policy::PolicyError;
use taskmodel::{BackoffPolicy, SeededRandom};

use crate::cli::{BackoffArgs, Output};
use crate::outcome::Outcome;
use crate::report::{CommandError, write_json};

/// One row of the schedule.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Row {
    /// The retry number (1 is the second attempt).
    retry: u32,
    /// The capped exponential delay before jitter.
    base_ms: u64,
    /// The delay with jitter.
    delay_ms: u64,
    /// The sum of the delays so far (saturating).
    total_ms: u64,
}

/// The whole result, as `--output json` prints it.
#[derive(Debug, Serialize)]
struct Schedule {
    policy: BackoffPolicy,
    seed: u64,
    retries: Vec<Row>,
}

/// Prints the schedule of the policy the arguments describe.
pub(crate) fn run(
    args: &BackoffArgs,
    output: Output,
    out: &mut dyn Write,
) -> Result<Outcome, CommandError> {
    let policy = BackoffPolicy::new(args.jitter, args.first_ms, args.max_ms, args.factor)
        .map_err(argument_error)?;
    let schedule = schedule(policy, args.seed, args.retries);
    match output {
        Output::Json => write_json(out, &schedule)?,
        Output::Text => write_table(out, &schedule)?,
    }
    Ok(Outcome::Valid)
}

/// The policy error in terms of the command line: `firstMs` is the `--first-ms` flag.
fn argument_error(err: PolicyError) -> CommandError {
    match err {
        PolicyError::InvalidBackoff { field, reason } => {
            let flag = match field {
                "firstMs" => "--first-ms",
                "maxMs" => "--max-ms",
                "factor" => "--factor",
                other => other,
            };
            CommandError::Argument(format!("invalid value for {flag}: {reason}"))
        }
        other => CommandError::Argument(other.to_string()),
    }
}

fn schedule(policy: BackoffPolicy, seed: u64, retries: u32) -> Schedule {
    let mut total_ms = 0_u64;
    let rows = (1..=retries)
        .zip(policy.schedule(SeededRandom::new(seed)))
        .map(|(retry, delay_ms)| {
            total_ms = total_ms.saturating_add(delay_ms);
            Row {
                retry,
                base_ms: policy.base_delay_ms(retry),
                delay_ms,
                total_ms,
            }
        })
        .collect();
    Schedule {
        policy,
        seed,
        retries: rows,
    }
}

fn write_table(out: &mut dyn Write, schedule: &Schedule) -> Result<(), CommandError> {
    let policy = &schedule.policy;
    writeln!(
        out,
        "backoff: jitter {}, first {} ms, max {} ms, factor {}, seed {}",
        policy.jitter(),
        policy.first_ms(),
        policy.max_ms(),
        policy.factor(),
        schedule.seed
    )?;
    let headers = ["retry", "base ms", "delay ms", "total ms"];
    let cells: Vec<[String; 4]> = schedule
        .retries
        .iter()
        .map(|row| {
            [
                u64::from(row.retry),
                row.base_ms,
                row.delay_ms,
                row.total_ms,
            ]
            .map(|n| n.to_string())
        })
        .collect();
    let mut widths = headers.map(str::len);
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let line = |out: &mut dyn Write, row: [&str; 4]| -> std::io::Result<()> {
        let [a, b, c, d] = row;
        let [wa, wb, wc, wd] = widths;
        writeln!(out, "{a:>wa$}  {b:>wb$}  {c:>wc$}  {d:>wd$}")
    };
    line(out, headers)?;
    for row in &cells {
        line(
            out,
            [&row[0], &row[1], &row[2], &row[3]].map(String::as_str),
        )?;
    }
    Ok(())
}
