//! taskctl as a library: `run` in process with its streams as arguments, and
//! `check_document` on one document, agreeing with the binary's output.
#![allow(clippy::unwrap_used, reason = "tests fail on any error")]

use std::path::PathBuf;

use taskctl::{Outcome, Shape, check_document};

/// What one in-process run returned and wrote.
struct Ran {
    outcome: Outcome,
    stdout: String,
    stderr: String,
}

/// Runs taskctl in process with `args` (after the program name), `stdin` as standard input.
fn run(args: &[&str], stdin: &str) -> Ran {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let args = args.iter().map(|arg| {
        if arg.starts_with("examples/") {
            root.join(arg).into_os_string()
        } else {
            arg.into()
        }
    });
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let outcome = taskctl::run(
        std::iter::once("taskctl".into()).chain(args),
        &mut stdin.as_bytes(),
        &mut stdout,
        &mut stderr,
    );
    Ran {
        outcome,
        stdout: String::from_utf8(stdout).unwrap(),
        stderr: String::from_utf8(stderr).unwrap(),
    }
}

#[test]
fn each_outcome_has_its_exit_code() {
    let check = |outcome: Outcome, code: u8| assert_eq!(outcome.code(), code, "{outcome:?}");
    check(Outcome::Valid, 0);
    check(Outcome::Invalid, 1);
    check(Outcome::Usage, 2);
}

#[test]
fn run_reads_stdin_and_writes_the_result_to_stdout() {
    let spec = r#"{"slot": "a", "kind": {"type": "wasm", "module": "m"}, "timeoutMs": 1}"#;
    let valid = run(&["check", "-"], spec);
    assert_eq!(valid.outcome, Outcome::Valid, "{}", valid.stderr);
    assert_eq!(valid.stdout, "<stdin>: valid task spec\n");

    let invalid = run(&["check", "-"], &spec.replace("\"a\"", "\"a b\""));
    assert_eq!(invalid.outcome, Outcome::Invalid);
    assert!(
        invalid.stdout.starts_with("<stdin>: slot: invalid slot"),
        "{}",
        invalid.stdout
    );
    assert!(invalid.stderr.is_empty());
}

#[test]
fn help_goes_to_stdout_and_usage_errors_to_stderr() {
    let help = run(&["--help"], "");
    assert_eq!(help.outcome, Outcome::Valid);
    assert!(help.stdout.contains("Usage: taskctl"), "{}", help.stdout);
    assert!(help.stderr.is_empty());

    let usage = run(&["check"], "");
    assert_eq!(usage.outcome, Outcome::Usage);
    assert!(usage.stdout.is_empty());
    assert!(usage.stderr.starts_with("error:"), "{}", usage.stderr);

    let missing = run(&["check", "examples/does-not-exist.json"], "");
    assert_eq!(missing.outcome, Outcome::Usage);
    assert!(missing.stdout.is_empty());
    assert!(
        missing.stderr.starts_with("error: cannot read ")
            && missing.stderr.contains("does-not-exist.json"),
        "{}",
        missing.stderr
    );
}

#[test]
fn check_document_gives_the_shape_and_the_problems_the_command_prints() {
    let read = |name: &str| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples")
            .join(name);
        std::fs::read_to_string(path).unwrap()
    };
    let spec = check_document(&read("spec-command.json"));
    assert_eq!(spec.shape, Some(Shape::TaskSpec));
    assert!(spec.is_valid(), "{:?}", spec.problems);

    let task = check_document(&read("task.json"));
    assert_eq!(task.shape, Some(Shape::Task));
    assert!(task.is_valid(), "{:?}", task.problems);

    let invalid = check_document(&read("invalid-spec.json"));
    assert_eq!(invalid.shape, Some(Shape::TaskSpec));
    let paths: Vec<&str> = invalid.problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "slot",
            "kind.mode.command",
            "timeoutMs",
            "restart",
            "backoff.factor",
            "runnerSelector.matchExpressions[0].values",
            "labels[\"-bad-key\"]",
            "retries",
        ]
    );
    let printed = run(&["check", "examples/invalid-spec.json"], "");
    assert_eq!(printed.outcome, Outcome::Invalid);
    for problem in &invalid.problems {
        assert!(
            printed
                .stdout
                .contains(&format!("{}: {}", problem.path, problem.message)),
            "{problem:?} not in\n{}",
            printed.stdout
        );
    }
}

#[test]
fn a_syntax_error_has_no_shape_and_a_position() {
    let checked = check_document("{\n  \"slot\": \"a\",\n  \"kind\" {}\n}\n");
    assert_eq!(checked.shape, None);
    assert!(!checked.is_valid());
    let problem = &checked.problems[0];
    assert_eq!((problem.line, problem.column), (Some(3), Some(10)));
    assert_eq!(problem.message, "expected `:`");
}
