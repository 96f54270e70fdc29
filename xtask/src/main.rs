//! Repository automation for taskmodel, run as `cargo xtask <command>`.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

const USAGE: &str = "\
usage: cargo xtask check-layering [--manifest-path PATH]
       cargo xtask fuzz [--seconds N] [TARGET...]

commands:
  check-layering  check the layer table's rules, module cycles and file rules against the
                  workspace (exit 1 if one is broken)
  fuzz            run the cargo-fuzz targets in fuzz/ (all, or the named ones) one after
                  another for N seconds each (default 60), then print per target the
                  executions and whether a crash was found (exit 1 if one was); needs the
                  nightly toolchain and cargo-fuzz; see docs/limits.md";

fn main() -> ExitCode {
    match try_main() {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Runs the command; `Err` is a usage or I/O problem (exit code 2).
fn try_main() -> Result<ExitCode, String> {
    let mut args = std::env::args().skip(1);
    let command = args.next().ok_or("no command given")?;
    match command.as_str() {
        "check-layering" => {}
        "fuzz" => return fuzz(args),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            return Ok(ExitCode::SUCCESS);
        }
        other => return Err(format!("unknown command \"{other}\"")),
    }
    let mut manifest_path = None;
    while let Some(arg) = args.next() {
        if let Some(path) = arg.strip_prefix("--manifest-path=") {
            manifest_path = Some(PathBuf::from(path));
        } else if arg == "--manifest-path" {
            let path = args.next().ok_or("--manifest-path needs a PATH")?;
            manifest_path = Some(PathBuf::from(path));
        } else {
            return Err(format!("unknown argument \"{arg}\""));
        }
    }
    let report = xtask::check_layering(manifest_path.as_deref()).map_err(|err| err.to_string())?;
    println!("{report}");
    Ok(if report.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `cargo xtask fuzz`: every target (or the named ones) for the given time, then a summary.
fn fuzz(args: impl Iterator<Item = String>) -> Result<ExitCode, String> {
    let options = xtask::FuzzOptions::parse(args)?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("xtask is not inside the workspace")?;
    let summaries = xtask::run_fuzz(root, &options).map_err(|err| err.to_string())?;
    println!(
        "{:<16} {:>8} {:>17}  result",
        "target", "time", "executions"
    );
    for summary in &summaries {
        println!("{summary}");
    }
    Ok(if summaries.iter().any(|s| s.crashed) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
