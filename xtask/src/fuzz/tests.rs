//! Unit tests of the fuzz command: argument parsing and reading libFuzzer's output.

use super::*;

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn parses_arguments() {
    fn check(input: &[&str], seconds: u64, targets: &[&str]) {
        let parsed = FuzzOptions::parse(args(input)).unwrap();
        assert_eq!(
            parsed,
            FuzzOptions {
                seconds,
                targets: args(targets)
            },
            "{input:?}"
        );
    }
    check(&[], DEFAULT_FUZZ_SECONDS, &[]);
    check(&["--seconds", "600"], 600, &[]);
    check(&["--seconds=1"], 1, &[]);
    check(
        &["ids", "--seconds", "5", "backoff"],
        5,
        &["ids", "backoff"],
    );
    check(&["spec_json"], DEFAULT_FUZZ_SECONDS, &["spec_json"]);
}

#[test]
fn refuses_bad_arguments() {
    fn check(input: &[&str], fragment: &str) {
        let err = FuzzOptions::parse(args(input)).unwrap_err();
        assert!(err.contains(fragment), "{input:?}: {err}");
    }
    check(&["--seconds"], "--seconds needs a number");
    check(&["--seconds", "0"], "positive whole number, not \"0\"");
    check(&["--seconds=-3"], "not \"-3\"");
    check(&["--seconds", "ten"], "not \"ten\"");
    check(&["--jobs=2"], "unknown argument \"--jobs=2\"");
}

const CLEAN_RUN: &str = "\
INFO: Seed: 42
#2\tINITED cov: 10 ft: 11 corp: 1/1b exec/s: 0 rss: 30Mb
#8192\tpulse  cov: 10 ft: 11 corp: 1/1b lim: 4 exec/s: 4096 rss: 31Mb
Done 95236 runs in 9 second(s)
stat::number_of_executed_units: 95237
stat::average_exec_per_sec:     10581
";

const CRASH: &str = "\
#1024\tNEW    cov: 10 ft: 11 corp: 1/1b exec/s: 0 rss: 30Mb
thread '<unnamed>' panicked at fuzz_targets/ids.rs:9:5:
==123== ERROR: libFuzzer: deadly signal
artifact_prefix='/w/fuzz/artifacts/ids/'; Test unit written to /w/fuzz/artifacts/ids/crash-da39a3ee
Base64: YQ==
";

#[test]
fn reads_libfuzzer_output() {
    fn check(
        output: &str,
        success: bool,
        runs: Option<u64>,
        crashed: bool,
        artifact: Option<&str>,
    ) {
        let summary = FuzzSummary::from_output("t", 9, output, success);
        assert_eq!(summary.runs, runs, "{output}");
        assert_eq!(summary.crashed, crashed, "{output}");
        assert_eq!(summary.artifact.as_deref(), artifact, "{output}");
    }
    check(CLEAN_RUN, true, Some(95_237), false, None);
    check(
        &CLEAN_RUN.replace("stat::number_of_executed_units: 95237\n", ""),
        true,
        Some(95_236),
        false,
        None,
    );
    check(
        CRASH,
        false,
        Some(1024),
        true,
        Some("/w/fuzz/artifacts/ids/crash-da39a3ee"),
    );
    check("error: could not compile\n", false, None, true, None);
    check("", true, None, false, None);
}

#[test]
fn prints_one_line_per_target() {
    let clean = FuzzSummary::from_output("selector_str", 600, CLEAN_RUN, true);
    assert_eq!(
        clean.to_string(),
        "selector_str        600 s        95237 runs  no crash"
    );
    let crash = FuzzSummary::from_output("ids", 5, CRASH, false);
    assert!(
        crash
            .to_string()
            .ends_with("FOUND /w/fuzz/artifacts/ids/crash-da39a3ee"),
        "{crash}"
    );
    let unknown = FuzzSummary::from_output("ids", 5, "", false);
    assert!(
        unknown.to_string().contains("? runs  FOUND (see the log)"),
        "{unknown}"
    );
}

#[test]
fn lists_the_targets_of_the_fuzz_crate() {
    let fuzz_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let targets = fuzz_targets(&fuzz_dir).unwrap();
    for expected in [
        "selector_str",
        "spec_json",
        "query_pairs",
        "continue_token",
        "taskctl_check",
    ] {
        assert!(
            targets.iter().any(|t| t == expected),
            "{expected} missing from {targets:?}"
        );
    }
    assert!(
        !targets.iter().any(|t| t == "common"),
        "a helper module is not a target"
    );
    let err = fuzz_targets(Path::new("/nonexistent/fuzz")).unwrap_err();
    assert!(matches!(err, XtaskError::Io { .. }), "{err:?}");
}
