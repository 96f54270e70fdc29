//! The command line itself: help, usage errors and their exit code 2.

mod common;

use common::run;

#[test]
fn help_exits_zero_and_lists_the_subcommands() {
    let out = run(&["--help"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for sub in ["check", "route", "backoff", "selector", "schema"] {
        assert!(
            out.stdout.contains(sub),
            "{sub} missing from:\n{}",
            out.stdout
        );
    }
}

#[test]
fn usage_errors_exit_two() {
    let check = |args: &[&str]| {
        let out = run(args);
        assert_eq!(out.code, 2, "taskctl {args:?}: {out:?}");
        assert!(
            out.stdout.is_empty(),
            "taskctl {args:?} printed to stdout: {}",
            out.stdout
        );
        assert!(
            out.stderr.contains("error"),
            "taskctl {args:?}: {}",
            out.stderr
        );
    };
    check(&["frobnicate"]);
    check(&["check"]);
    check(&["backoff", "--jitter", "sometimes"]);
    check(&["backoff", "--retries", "0"]);
    check(&["backoff", "--retries", "10001"]);
    check(&["backoff", "--first-ms", "-5"]);
    check(&["backoff", "--output", "yaml"]);
    check(&["schema", "NoSuchType"]);
}

#[test]
fn no_subcommand_prints_the_usage_and_exits_two() {
    let out = run(&[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("Usage: taskctl"), "{}", out.stderr);
}

#[test]
fn an_unreadable_file_is_a_usage_error() {
    let out = run(&["check", "examples/does-not-exist.json"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("examples/does-not-exist.json"),
        "{}",
        out.stderr
    );
}
