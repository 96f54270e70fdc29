//! Failed writes: a full device or a closed pipe on standard output or standard error never
//! panics; a result that cannot be written ends the run with exit code 2 (docs/taskctl.md).
#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail on any error")]

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use taskctl::Outcome;

/// The workspace root, where `examples/` is.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A stream that refuses every write, as a full disk or a closed pipe does.
struct Broken;

impl Write for Broken {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"))
    }

    fn flush(&mut self) -> io::Result<()> {
        Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"))
    }
}

/// Runs taskctl in process with `args`, each standard stream either a buffer or [`Broken`].
fn run(args: &[&str], stdout_works: bool, stderr_works: bool) -> (Outcome, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut broken_out = Broken;
    let mut broken_err = Broken;
    let stdout: &mut dyn Write = if stdout_works {
        &mut out
    } else {
        &mut broken_out
    };
    let stderr: &mut dyn Write = if stderr_works {
        &mut err
    } else {
        &mut broken_err
    };
    let args = std::iter::once("taskctl").chain(args.iter().copied());
    let outcome = taskctl::run(args, &mut io::empty(), stdout, stderr);
    (outcome, String::from_utf8(err).unwrap())
}

#[test]
fn a_broken_stream_never_panics_and_a_lost_result_exits_two() {
    let valid = root().join("examples/spec-command.json");
    let valid = valid.to_str().unwrap();
    let invalid = root().join("examples/invalid-spec.json");
    let invalid = invalid.to_str().unwrap();
    let runners = root().join("examples/runners.json");
    let runners = runners.to_str().unwrap();
    // (args, the outcome when both streams work)
    let commands: [(&[&str], Outcome); 8] = [
        (&["check", valid], Outcome::Valid),
        (&["check", "-o", "json", invalid], Outcome::Invalid),
        (&["check", "/nonexistent"], Outcome::Usage),
        (&["route", valid, "--runners", runners], Outcome::Valid),
        (&["schema", "-o", "json"], Outcome::Valid),
        (&["backoff", "--retries", "3"], Outcome::Valid),
        (&["--help"], Outcome::Valid),
        (&["frobnicate"], Outcome::Usage),
    ];
    for (args, outcome) in commands {
        assert_eq!(run(args, true, true).0, outcome, "{args:?}");
        // Nothing to tell on stderr is lost with it: the outcome stands.
        assert_eq!(run(args, true, false).0, outcome, "{args:?}, stderr broken");
        // A result that cannot be written (and nothing to say it on) is exit code 2.
        assert_eq!(
            run(args, false, false).0,
            Outcome::Usage,
            "{args:?}, both broken"
        );
        let (lost, said) = run(args, false, true);
        assert_eq!(lost, Outcome::Usage, "{args:?}, stdout broken");
        if outcome != Outcome::Usage {
            assert!(
                said.starts_with("error: cannot write output"),
                "{args:?}: {said}"
            );
        }
    }
}

/// Runs the binary with `args`, standard output and error going where the caller says.
fn exit_code(args: &[&str], stdout: Stdio, stderr: Stdio) -> i32 {
    Command::new(env!("CARGO_BIN_EXE_taskctl"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .status()
        .unwrap()
        .code()
        .unwrap_or_else(|| panic!("taskctl {args:?} was killed by a signal"))
}

#[cfg(target_os = "linux")]
fn full() -> Stdio {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap()
        .into()
}

#[cfg(target_os = "linux")]
#[test]
fn the_binary_exits_two_when_a_stream_is_full() {
    // `eprintln!` panicked here (exit code 101).
    assert_eq!(
        exit_code(&["check", "/nonexistent"], Stdio::null(), full()),
        2
    );
    assert_eq!(exit_code(&["schema", "-o", "json"], full(), full()), 2);
    assert_eq!(
        exit_code(&["schema", "-o", "json"], full(), Stdio::null()),
        2
    );
    assert_eq!(
        exit_code(
            &["check", "examples/spec-command.json"],
            Stdio::null(),
            full()
        ),
        0
    );
}

#[test]
fn the_binary_exits_two_when_stdout_is_a_closed_pipe() {
    let (reader, writer) = io::pipe().unwrap();
    drop(reader);
    let stderr = Command::new(env!("CARGO_BIN_EXE_taskctl"))
        .args(["check", "examples/spec-command.json"])
        .current_dir(root())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(stderr.status.code(), Some(2));
    let said = String::from_utf8(stderr.stderr).unwrap();
    assert!(said.starts_with("error: cannot write output"), "{said}");
}
