//! Repository automation for taskmodel, run as `cargo xtask <command>`.

use std::{path::PathBuf, process::ExitCode};

const USAGE: &str = "usage: cargo xtask check-layering [--manifest-path PATH]";

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
