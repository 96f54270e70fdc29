//! Running the real taskctl binary in tests.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    dead_code,
    reason = "test helpers fail the test on any error; not every test binary uses every helper"
)]

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// What one run of taskctl printed and returned.
#[derive(Debug)]
pub(crate) struct Run {
    /// The exit code.
    pub(crate) code: i32,
    /// Standard output.
    pub(crate) stdout: String,
    /// Standard error.
    pub(crate) stderr: String,
}

impl Run {
    /// Standard output parsed as JSON.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|err| panic!("stdout is not JSON ({err}):\n{}", self.stdout))
    }
}

/// The workspace root, where `examples/` and `docs/` are.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs taskctl with `args` from the workspace root, feeding `stdin`.
pub(crate) fn taskctl(args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_taskctl"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let written = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    // A command that does not read its input may exit before the write ends: the pipe is
    // then closed, which is no failure of the command.
    if let Err(err) = written {
        assert_eq!(
            err.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing stdin: {err}"
        );
    }
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code().unwrap(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// Runs taskctl with `args` and no input.
pub(crate) fn run(args: &[&str]) -> Run {
    taskctl(args, "")
}
