//! Repository automation for taskmodel, run as `cargo xtask <command>`.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

const USAGE: &str = "\
usage: cargo xtask check-layering [--manifest-path PATH]
       cargo xtask fuzz [--seconds N] [TARGET...]
       cargo xtask test [ARGS...]
       cargo xtask with-postgres PROGRAM [ARGS...]

commands:
  check-layering  check the layer table's rules, module cycles and file rules against the
                  workspace (exit 1 if one is broken)
  fuzz            run the cargo-fuzz targets in fuzz/ (all, or the named ones) one after
                  another for N seconds each (default 60), then print per target the
                  executions and whether a crash was found (exit 1 if one was); needs the
                  nightly toolchain and cargo-fuzz; see docs/limits.md
  test            cargo test --workspace ARGS with a throwaway PostgreSQL server on loopback
                  for taskstore's tests (installs Debian's postgresql package first when it
                  is missing and xtask runs as root); exits with the tests' exit code
  with-postgres   run PROGRAM ARGS with such a server, its URL in TASKSTORE_POSTGRES_URL";

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
        "test" => {
            let mut cargo_args = vec!["test".to_owned(), "--workspace".to_owned()];
            cargo_args.extend(args);
            return with_postgres("cargo", &cargo_args);
        }
        "with-postgres" => {
            let program = args.next().ok_or("with-postgres needs a PROGRAM")?;
            return with_postgres(&program, &args.collect::<Vec<_>>());
        }
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

/// Runs `program args` with a throwaway PostgreSQL server; its exit code is the program's.
fn with_postgres(program: &str, args: &[String]) -> Result<ExitCode, String> {
    let status = xtask::with_postgres(program, args).map_err(|err| err.to_string())?;
    let code = status
        .code()
        .and_then(|code| u8::try_from(code).ok())
        .unwrap_or(1);
    Ok(ExitCode::from(code))
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
