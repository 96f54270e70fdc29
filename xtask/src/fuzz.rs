//! `cargo xtask fuzz`: runs the cargo-fuzz targets in `fuzz/` one after another and sums up each run.
//!
//! Each target runs in one libFuzzer process (no `-jobs`, so one core) for the given
//! time, reading its committed seeds (`fuzz/seeds/<target>`) and growing its own corpus
//! (`fuzz/corpus/<target>`, not committed). libFuzzer's output goes to
//! `fuzz/artifacts/<target>.log`; a crashing input lands in `fuzz/artifacts/<target>/`.
//! The targets need the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).

use std::{
    fmt, fs,
    path::{Path, PathBuf},
    process::Command,
};

use crate::error::XtaskError;

/// How long each target runs when `--seconds` is not given.
pub const DEFAULT_FUZZ_SECONDS: u64 = 60;

/// The longest a single input may run before libFuzzer reports it as a hang, in seconds.
pub const FUZZ_INPUT_TIMEOUT_SECONDS: u64 = 10;

/// What `cargo xtask fuzz` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzOptions {
    /// Seconds each target runs.
    pub seconds: u64,
    /// The targets to run, in order; empty means every target.
    pub targets: Vec<String>,
}

impl FuzzOptions {
    /// Reads `[--seconds N] [TARGET...]` (also `--seconds=N`).
    ///
    /// # Errors
    ///
    /// A message for a missing or non-numeric `--seconds`, zero seconds, or an unknown flag.
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Self, String> {
        let mut options = FuzzOptions {
            seconds: DEFAULT_FUZZ_SECONDS,
            targets: Vec::new(),
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let seconds = if let Some(value) = arg.strip_prefix("--seconds=") {
                value.to_owned()
            } else if arg == "--seconds" {
                args.next().ok_or("--seconds needs a number")?
            } else if arg.starts_with('-') {
                return Err(format!("unknown argument \"{arg}\""));
            } else {
                options.targets.push(arg);
                continue;
            };
            options.seconds = match seconds.parse() {
                Ok(0) | Err(_) => {
                    return Err(format!(
                        "--seconds needs a positive whole number, not \"{seconds}\""
                    ));
                }
                Ok(n) => n,
            };
        }
        Ok(options)
    }
}

/// The outcome of one target's run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzSummary {
    /// The target's name.
    pub target: String,
    /// The seconds it was asked to run.
    pub seconds: u64,
    /// The inputs libFuzzer executed, when its output says.
    pub runs: Option<u64>,
    /// Whether libFuzzer stopped on a finding (crash, panic, hang, out of memory).
    pub crashed: bool,
    /// Where libFuzzer wrote the input of the finding.
    pub artifact: Option<String>,
}

impl FuzzSummary {
    /// Reads libFuzzer's output (its standard error) and exit status into a summary.
    ///
    /// The executions come from `stat::number_of_executed_units` (printed with
    /// `-print_final_stats=1`), else the `Done N runs` line, else the last `#N` status line.
    #[must_use]
    pub fn from_output(target: &str, seconds: u64, output: &str, success: bool) -> Self {
        let stat = output.lines().find_map(|line| {
            line.strip_prefix("stat::number_of_executed_units:")
                .and_then(|n| n.trim().parse().ok())
        });
        let done = || {
            output.lines().find_map(|line| {
                line.strip_prefix("Done ")
                    .and_then(|rest| rest.split_whitespace().next())
                    .and_then(|n| n.parse().ok())
            })
        };
        let status = || {
            output.lines().rev().find_map(|line| {
                line.strip_prefix('#')
                    .and_then(|rest| rest.split_whitespace().next())
                    .and_then(|n| n.parse().ok())
            })
        };
        let artifact = output.lines().find_map(|line| {
            line.split_once("Test unit written to ")
                .map(|(_, path)| path.trim().to_owned())
        });
        FuzzSummary {
            target: target.to_owned(),
            seconds,
            runs: stat.or_else(done).or_else(status),
            crashed: !success || artifact.is_some(),
            artifact,
        }
    }
}

impl fmt::Display for FuzzSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let runs = self
            .runs
            .map_or_else(|| "?".to_owned(), |runs| runs.to_string());
        write!(
            f,
            "{:<16} {:>6} s {:>12} runs  ",
            self.target, self.seconds, runs
        )?;
        match (&self.artifact, self.crashed) {
            (Some(artifact), _) => write!(f, "FOUND {artifact}"),
            (None, true) => f.write_str("FOUND (see the log)"),
            (None, false) => f.write_str("no crash"),
        }
    }
}

/// The fuzz targets of the crate in `fuzz_dir`: the files in `fuzz_targets/`, by name.
///
/// # Errors
///
/// [`XtaskError::Io`] when the directory cannot be read.
pub fn fuzz_targets(fuzz_dir: &Path) -> Result<Vec<String>, XtaskError> {
    let dir = fuzz_dir.join("fuzz_targets");
    let io = |source| XtaskError::Io {
        path: dir.clone(),
        source,
    };
    let mut targets = Vec::new();
    for entry in fs::read_dir(&dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.extension().is_some_and(|ext| ext == "rs")
            && let Some(stem) = path.file_stem().and_then(|stem| stem.to_str())
        {
            targets.push(stem.to_owned());
        }
    }
    targets.sort();
    Ok(targets)
}

/// Builds the fuzz crate in `root/fuzz`, then runs each target of `options` in turn and
/// returns a summary per target (a target that finds something does not stop the others).
///
/// # Errors
///
/// [`XtaskError::Fuzz`] for an unknown target or when cargo-fuzz cannot build or start;
/// [`XtaskError::Io`] when a directory or log cannot be made.
pub fn run_fuzz(root: &Path, options: &FuzzOptions) -> Result<Vec<FuzzSummary>, XtaskError> {
    let fuzz_dir = root.join("fuzz");
    let known = fuzz_targets(&fuzz_dir)?;
    let targets = if options.targets.is_empty() {
        known.clone()
    } else {
        options.targets.clone()
    };
    if let Some(unknown) = targets.iter().find(|t| !known.contains(t)) {
        return Err(XtaskError::Fuzz {
            message: format!(
                "no fuzz target \"{unknown}\"; the targets are: {}",
                known.join(", ")
            ),
        });
    }
    let status = cargo_fuzz(root)
        .arg("build")
        .status()
        .map_err(|err| fuzz_error(&format!("cannot start cargo +nightly fuzz: {err}")))?;
    if !status.success() {
        return Err(fuzz_error(
            "cargo +nightly fuzz build failed (is cargo-fuzz installed?)",
        ));
    }
    let mut summaries = Vec::new();
    for target in &targets {
        let corpus = fuzz_dir.join("corpus").join(target);
        let seeds = fuzz_dir.join("seeds").join(target);
        let artifacts = fuzz_dir.join("artifacts");
        for dir in [&corpus, &seeds, &artifacts] {
            fs::create_dir_all(dir).map_err(|source| XtaskError::Io {
                path: dir.clone(),
                source,
            })?;
        }
        eprintln!("fuzzing {target} for {} s", options.seconds);
        let output = cargo_fuzz(root)
            .args(["run", target.as_str()])
            .arg(&corpus)
            .arg(&seeds)
            .arg("--")
            .arg(format!("-max_total_time={}", options.seconds))
            .arg(format!("-timeout={FUZZ_INPUT_TIMEOUT_SECONDS}"))
            .arg("-print_final_stats=1")
            .output()
            .map_err(|err| fuzz_error(&format!("cannot run {target}: {err}")))?;
        let log: PathBuf = artifacts.join(format!("{target}.log"));
        let text = String::from_utf8_lossy(&output.stderr);
        fs::write(&log, text.as_bytes()).map_err(|source| XtaskError::Io {
            path: log.clone(),
            source,
        })?;
        let summary =
            FuzzSummary::from_output(target, options.seconds, &text, output.status.success());
        eprintln!("{summary}");
        summaries.push(summary);
    }
    Ok(summaries)
}

/// `cargo +nightly fuzz` in `root`, without the pinned toolchain's overrides.
fn cargo_fuzz(root: &Path) -> Command {
    let mut command = Command::new("cargo");
    command
        .current_dir(root)
        .args(["+nightly", "fuzz"])
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTC")
        .env_remove("CARGO");
    command
}

fn fuzz_error(message: &str) -> XtaskError {
    XtaskError::Fuzz {
        message: message.to_owned(),
    }
}

#[cfg(test)]
mod tests;
