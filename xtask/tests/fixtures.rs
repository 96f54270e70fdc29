//! Every layering rule can fail: one fixture workspace per rule breaks exactly that rule.
//!
//! The fixtures live in `tests/fixtures/<case>/`, each a tiny workspace of its own. `clean`
//! keeps every rule; every other case is `clean` with one deliberate break.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] fns fail the test by panicking"
)]

use std::{
    path::PathBuf,
    process::{Command, Output},
};

use xtask::{Report, Rule, XtaskError, check_layering};

fn manifest(case: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(case)
        .join("Cargo.toml")
}

fn report(case: &str) -> Report {
    match check_layering(Some(&manifest(case))) {
        Ok(report) => report,
        Err(err) => panic!("fixture {case} could not be checked: {err}"),
    }
}

/// Checks that `case` breaks only `rule`, with exactly these offending edges.
#[track_caller]
fn check(case: &str, rule: Rule, expected: &[&str]) {
    let report = report(case);
    assert_eq!(report.broken_rules(), [rule], "fixture {case}:\n{report}");
    let outcome = report.outcome(rule).unwrap();
    assert_eq!(outcome.violations(), expected, "fixture {case}:\n{report}");
}

#[test]
fn clean_workspace_keeps_every_rule() {
    let report = report("clean");
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.outcomes().len(), Rule::ALL.len());
    assert!(
        report
            .to_string()
            .ends_with("check-layering: 7 rules kept, 0 broken"),
        "{report}"
    );
}

#[test]
fn unassigned_member_and_stray_table_entry_break_rule_1() {
    check(
        "unassigned",
        Rule::MembersAssigned,
        &[
            "extra: member has no entry in [workspace.metadata.layers.crates]",
            "ghost: table entry is not a workspace member",
        ],
    );
}

#[test]
fn renamed_normal_dependency_pointing_up_breaks_rule_2() {
    check(
        "up_normal",
        Rule::NoUpwardDependency,
        &["base (layer 0) -> high (layer 3) [normal, renamed hi]"],
    );
}

#[test]
fn dev_dependency_pointing_up_breaks_rule_2() {
    check(
        "up_dev",
        Rule::NoUpwardDependency,
        &["base (layer 0) -> high (layer 3) [dev]"],
    );
}

#[test]
fn build_dependency_pointing_up_breaks_rule_2() {
    check(
        "up_build",
        Rule::NoUpwardDependency,
        &["base (layer 0) -> high (layer 3) [build]"],
    );
}

#[test]
fn same_layer_dependency_breaks_rule_3() {
    check(
        "same_layer",
        Rule::SameLayerIndependent,
        &["left (layer 1) -> right (layer 1) [normal]"],
    );
}

#[test]
fn dev_dependency_on_a_tool_breaks_rule_4() {
    check(
        "tool_dep",
        Rule::NoToolDependency,
        &["base -> tool (tool) [dev]"],
    );
}

#[test]
fn disallowed_external_crates_break_rule_5() {
    check(
        "external",
        Rule::AllowedExternalCrates,
        &[
            "base -> rand [normal]: not in external or its allow list",
            "left -> proptest [normal]: not in external or its allow list \
             (dev-tools are for dev-dependencies)",
            "top -> regex [dev]: not in external, dev-tools or its allow list",
        ],
    );
}

#[test]
fn module_cycles_break_rule_6_with_file_and_line_per_edge() {
    check(
        "module_cycle",
        Rule::NoModuleCycle,
        &[
            // kind.rs names `crate::Spec`, which the root re-exports from `spec`.
            "crates/base/src/kind.rs:8 (kind -> spec) -> crates/base/src/spec.rs:3 (spec -> kind)",
            "crates/base/src/outer/inner.rs:2 (outer::inner -> outer::x) -> \
             crates/base/src/outer/x.rs:3 (outer::x -> outer::inner)",
        ],
    );
}

#[test]
fn module_cycle_only_in_cfg_test_code_is_not_reported() {
    let report = report("cfg_test_cycle");
    assert!(report.is_clean(), "{report}");
}

#[test]
fn wrong_doc_lines_break_rule_7() {
    check(
        "doc_line",
        Rule::DocLineMatches,
        &[
            "base: crates/base/src/lib.rs:3: doc says layer 1, the table says layer 0",
            "base: crates/base/src/lib.rs:3: \"Used by\" misses right \
             (right -> base is a normal dependency)",
            "left: crates/left/src/lib.rs:3: \"Depends on\" misses base \
             (left -> base is a normal dependency)",
            "right: crates/right/src/lib.rs:3: \"Depends on\" lists left, \
             but right -> left is not a normal dependency",
            "top: crates/top/src/lib.rs has no top doc line \"Layer 2. Depends on: ...\"",
        ],
    );
}

#[test]
fn missing_layer_table_is_an_error() {
    let result = check_layering(Some(&manifest("no_table")));
    assert!(
        matches!(&result, Err(XtaskError::LayerTable { message }) if message == "missing"),
        "{result:?}"
    );
}

fn run_binary(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn binary_exits_0_when_clean_1_when_broken_2_on_usage_errors() {
    let clean = manifest("clean");
    let output = run_binary(&["check-layering", "--manifest-path", clean.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");

    let broken = manifest("same_layer");
    let output = run_binary(&[
        "check-layering",
        "--manifest-path",
        broken.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("broken 3. crates in the same layer are independent\n")
            && stdout.contains("\n           left (layer 1) -> right (layer 1) [normal]\n")
            && stdout.ends_with("check-layering: 6 rules kept, 1 broken\n"),
        "{stdout}"
    );

    let no_table = manifest("no_table");
    let flag = format!("--manifest-path={}", no_table.display());
    let output = run_binary(&["check-layering", &flag]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");

    for args in [
        &[][..],
        &["lint"],
        &["check-layering", "--manifest-path"],
        &["check-layering", "-v"],
    ] {
        let output = run_binary(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
    }
}
