//! Every rule can fail: each case is the clean workspace plus a small change that breaks
//! exactly one rule, or that looks like a break the rule must not report.
//!
//! The clean workspace lives in `tests/clean_workspace/` and keeps every rule. A case copies
//! it into a directory of its own under cargo's test scratch directory, applies its
//! changes (files written, or one fragment of a file replaced), and checks the report.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] fns fail the test by panicking"
)]

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Output},
};

use xtask::{Report, Rule, XtaskError, check_layering};

/// One change to the clean workspace.
enum Change {
    /// Writes a file, new or replacing the clean one.
    Write(&'static str, String),
    /// Replaces the one occurrence of a fragment of a clean file.
    Edit(&'static str, &'static str, &'static str),
}

fn write(path: &'static str, text: impl Into<String>) -> Change {
    Change::Write(path, text.into())
}

fn edit(path: &'static str, from: &'static str, to: &'static str) -> Change {
    Change::Edit(path, from, to)
}

/// A file of `n` lines.
fn lines(n: usize) -> String {
    "//\n".repeat(n)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}

/// Builds case `name` (the clean workspace with `changes`) and returns its root manifest.
fn materialize(name: &str, changes: &[Change]) -> PathBuf {
    let clean = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clean_workspace");
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("fixtures")
        .join(name);
    if root.exists() {
        fs::remove_dir_all(&root).unwrap();
    }
    copy_dir(&clean, &root);
    for change in changes {
        match change {
            Change::Write(path, text) => {
                let path = root.join(path);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(path, text).unwrap();
            }
            Change::Edit(path, from, to) => {
                let path = root.join(path);
                let text = fs::read_to_string(&path).unwrap();
                assert_eq!(
                    text.matches(from).count(),
                    1,
                    "case {name}: {from:?} must occur once in {}",
                    path.display()
                );
                fs::write(&path, text.replacen(from, to, 1)).unwrap();
            }
        }
    }
    root.join("Cargo.toml")
}

fn report(name: &str, changes: &[Change]) -> Report {
    match check_layering(Some(&materialize(name, changes))) {
        Ok(report) => report,
        Err(err) => panic!("case {name} could not be checked: {err}"),
    }
}

/// Checks that case `name` breaks only `rule`, with exactly these violations.
#[track_caller]
fn check(name: &str, changes: &[Change], rule: Rule, expected: &[&str]) {
    let report = report(name, changes);
    assert_eq!(report.broken_rules(), [rule], "case {name}:\n{report}");
    let outcome = report.outcome(rule).unwrap();
    assert_eq!(outcome.violations(), expected, "case {name}:\n{report}");
}

/// Checks that case `name` keeps every rule.
#[track_caller]
fn check_clean(name: &str, changes: &[Change]) {
    let report = report(name, changes);
    assert!(report.is_clean(), "case {name}:\n{report}");
}

#[test]
fn clean_workspace_keeps_every_rule() {
    let report = report("clean", &[]);
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.outcomes().len(), Rule::ALL.len());
    assert!(
        report
            .to_string()
            .ends_with("check-layering: 9 rules kept, 0 broken"),
        "{report}"
    );
}

#[test]
fn unassigned_member_and_stray_table_entry_break_rule_1() {
    check(
        "unassigned",
        &[edit("Cargo.toml", "tool = { tool", "ghost = { tool")],
        Rule::MembersAssigned,
        &[
            "tool: member has no entry in [workspace.metadata.layers.crates]",
            "ghost: table entry is not a workspace member",
        ],
    );
}

#[test]
fn dependencies_pointing_up_break_rule_2() {
    let base = "crates/base/Cargo.toml";
    let doc = edit("crates/base/src/lib.rs", "on: nothing.", "on: high.");
    let renamed = "serde = \"1\"\nhi = { package = \"high\", path = \"../high\" }";
    check(
        "up_normal",
        &[edit(base, "serde = \"1\"", renamed), doc],
        Rule::NoUpwardDependency,
        &["base (layer 0) -> high (layer 3) [normal, renamed hi]"],
    );
    let dev = "proptest = \"1\"\nhigh = { path = \"../high\" }";
    check(
        "up_dev",
        &[edit(base, "proptest = \"1\"", dev)],
        Rule::NoUpwardDependency,
        &["base (layer 0) -> high (layer 3) [dev]"],
    );
    let build = "[build-dependencies]\nhigh = { path = \"../high\" }\n\n[dev-dependencies]";
    check(
        "up_build",
        &[edit(base, "[dev-dependencies]", build)],
        Rule::NoUpwardDependency,
        &["base (layer 0) -> high (layer 3) [build]"],
    );
}

/// `left` depends on `right`, both in layer 1 (its doc line says so, to keep rule 7).
fn same_layer() -> [Change; 2] {
    [
        edit(
            "crates/left/Cargo.toml",
            "thiserror = \"2\"",
            "right = { path = \"../right\" }",
        ),
        edit("crates/left/src/lib.rs", "on: base.", "on: base, right."),
    ]
}

#[test]
fn same_layer_dependency_breaks_rule_3() {
    check(
        "same_layer",
        &same_layer(),
        Rule::SameLayerIndependent,
        &["left (layer 1) -> right (layer 1) [normal]"],
    );
}

#[test]
fn dev_dependency_on_a_tool_breaks_rule_4() {
    let dev = "proptest = \"1\"\ntool = { path = \"../tool\" }";
    check(
        "tool_dep",
        &[edit("crates/base/Cargo.toml", "proptest = \"1\"", dev)],
        Rule::NoToolDependency,
        &["base -> tool (tool) [dev]"],
    );
}

#[test]
fn a_model_crate_depending_on_an_adapter_breaks_rule_4() {
    // The clean workspace has tool -> store (a tool may use an adapter) and store -> top (an
    // adapter may use model crates); a model crate, even as a dev-dependency, may not.
    let dev = "proptest = \"1\"\nstore = { path = \"../store\" }";
    check(
        "adapter_dep",
        &[edit("crates/base/Cargo.toml", "proptest = \"1\"", dev)],
        Rule::NoToolDependency,
        &["base -> store (adapter) [dev]"],
    );
    // An adapter may depend on another adapter.
    let second = "[package]\nname = \"cache\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
                  [dependencies]\nstore = { path = \"../store\" }\n";
    check_clean(
        "adapter_on_adapter",
        &[
            write("crates/cache/Cargo.toml", second),
            write("crates/cache/src/lib.rs", "//! Another adapter.\n"),
            edit(
                "Cargo.toml",
                "    \"crates/store\",\n",
                "    \"crates/store\",\n    \"crates/cache\",\n",
            ),
            edit(
                "Cargo.toml",
                "store = { adapter = true }\n",
                "store = { adapter = true }\ncache = { adapter = true }\n",
            ),
        ],
    );
}

#[test]
fn an_adapter_entry_with_an_allow_list_is_an_error() {
    let changes = [edit(
        "Cargo.toml",
        "store = { adapter = true }",
        "store = { adapter = true, allow = [\"regex\"] }",
    )];
    let result = check_layering(Some(&materialize("adapter_allow", &changes)));
    assert!(
        matches!(&result, Err(XtaskError::LayerTable { message })
            if message == "crates.store.allow: adapters may use any crate, allow is for model crates"),
        "{result:?}"
    );
}

#[test]
fn disallowed_external_crates_break_rule_5() {
    check(
        "external",
        &[
            edit(
                "crates/base/Cargo.toml",
                "serde = \"1\"",
                "serde = \"1\"\nrand = \"0.9\"",
            ),
            edit(
                "crates/left/Cargo.toml",
                "thiserror = \"2\"",
                "proptest = \"1\"",
            ),
            edit("crates/top/Cargo.toml", "proptest = \"1\"", "regex = \"1\""),
        ],
        Rule::AllowedExternalCrates,
        &[
            "base -> rand [normal]: not in external or its allow list",
            "left -> proptest [normal]: not in external or its allow list \
             (dev-tools are for dev-dependencies)",
            "top -> regex [dev]: not in external, dev-tools or its allow list",
        ],
    );
}

/// Declares more modules in base's lib.rs, after `spec`.
fn modules(list: &'static str) -> Change {
    edit("crates/base/src/lib.rs", "mod spec;", list)
}

#[test]
fn cycle_between_two_concepts_breaks_rule_6_with_file_and_line_per_edge() {
    // kind.rs names `crate::Spec`, which the root re-exports from `spec`; spec uses kind.
    let reach_back = r"pub struct Kind;

impl Kind {
    /// Makes a spec.
    pub fn spec(self) -> crate::Spec {
        crate::Spec(self)
    }
}";
    check(
        "concept_cycle",
        &[edit(
            "crates/base/src/kind.rs",
            "pub struct Kind;",
            reach_back,
        )],
        Rule::NoModuleCycle,
        &["crates/base/src/kind.rs:8 (kind -> spec) -> crates/base/src/spec.rs:3 (spec -> kind)"],
    );
}

#[test]
fn a_folder_module_is_one_concept() {
    // outer/inner.rs uses kind, and kind names outer's X: a cycle between kind and outer.
    check(
        "folder_cycle",
        &[edit(
            "crates/base/src/kind.rs",
            "pub struct Kind;",
            "pub struct Kind(crate::X);",
        )],
        Rule::NoModuleCycle,
        &["crates/base/src/kind.rs:4 (kind -> outer) -> \
           crates/base/src/outer/inner.rs:3 (outer -> kind)"],
    );
    // The same references between the files of one concept are not judged.
    let helper = r"use crate::kind::Kind;

/// Helps.
pub fn helper() -> crate::outer::x::X {
    X
}";
    check_clean(
        "inside_one_concept",
        &[
            edit(
                "crates/base/src/outer/inner.rs",
                "use crate::kind::Kind;",
                helper,
            ),
            edit(
                "crates/base/src/outer/x.rs",
                "//! X.\n",
                "//! X.\nuse super::inner::helper;\n",
            ),
        ],
    );
}

#[test]
fn a_cycle_through_error_is_not_reported() {
    let error = r#"//! Errors.

/// An error.
pub enum BaseError {
    #[error("not a kind: {}", crate::kind::NAME)]
    Kind,
}
"#;
    check_clean(
        "error_cycle",
        &[
            modules("mod spec;\nmod error;"),
            write("crates/base/src/error.rs", error),
            edit(
                "crates/base/src/kind.rs",
                "pub struct Kind;",
                "pub struct Kind(crate::error::BaseError);",
            ),
        ],
    );
}

#[test]
fn a_cycle_of_paths_inside_attributes_breaks_rule_6() {
    let message = r#"//! Messages.

/// A message.
pub enum Message {
    #[error("at most {} bytes", crate::limit::MAX)]
    TooLong,
}
"#;
    let limit = r#"//! Limits.

/// A limit.
pub struct Limit {
    #[serde(default = "crate::message::fallback")]
    pub max: u8,
}
"#;
    check(
        "attribute_cycle",
        &[
            modules("mod spec;\nmod limit;\nmod message;"),
            write("crates/base/src/message.rs", message),
            write("crates/base/src/limit.rs", limit),
        ],
        Rule::NoModuleCycle,
        &["crates/base/src/limit.rs:5 (limit -> message) -> \
           crates/base/src/message.rs:5 (message -> limit)"],
    );
}

#[test]
fn a_cycle_of_paths_inside_macro_invocations_breaks_rule_6() {
    let phase = r"//! Phases.

/// Whether the phase is final.
pub fn is_final(x: u8) -> bool {
    matches!(x, crate::text::FINAL)
}
";
    let text = r#"//! Text.

/// The final phase.
pub const FINAL: u8 = 3;

/// Says it.
pub fn say() -> String {
    format!("{}", crate::phase::is_final(3))
}
"#;
    check(
        "macro_cycle",
        &[
            modules("mod spec;\nmod phase;\nmod text;"),
            write("crates/base/src/phase.rs", phase),
            write("crates/base/src/text.rs", text),
        ],
        Rule::NoModuleCycle,
        &["crates/base/src/phase.rs:5 (phase -> text) -> \
           crates/base/src/text.rs:8 (text -> phase)"],
    );
}

#[test]
fn a_cycle_only_in_cfg_test_code_is_not_reported() {
    let kind = r"//! Kinds; only their tests use specs.

#[cfg(test)]
mod tests;
#[cfg(test)]
use crate::spec::Spec;

/// A kind.
pub struct Kind;

#[cfg(test)]
mod more_tests {
    use crate::{outer::X, spec::Spec};
    fn f() -> Spec {
        crate::spec::Spec(crate::kind::Kind)
    }
}
";
    let x_test = r#"pub struct X;

#[cfg(all(test, feature = "slow"))]
fn test_only() -> crate::kind::Kind {
    crate::kind::Kind
}"#;
    check_clean(
        "cfg_test_cycle",
        &[
            write("crates/base/src/kind.rs", kind),
            write(
                "crates/base/src/kind/tests.rs",
                "//! Tests.\nuse crate::spec::Spec;\n",
            ),
            edit("crates/base/src/outer/x.rs", "pub struct X;", x_test),
        ],
    );
}

#[test]
fn wrong_doc_lines_break_rule_7() {
    check(
        "doc_line",
        &[
            edit(
                "crates/base/src/lib.rs",
                "Layer 0. Depends on: nothing. Used by: left, right, top.",
                "Layer 1. Depends on: nothing. Used by: left, top.",
            ),
            edit("crates/left/src/lib.rs", "on: base.", "on: nothing."),
            edit("crates/right/src/lib.rs", "on: base.", "on: base, left."),
            write("crates/top/src/lib.rs", "//! Top, with no layer line.\n"),
        ],
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
fn a_model_source_file_over_700_lines_breaks_rule_8() {
    check(
        "long_file",
        &[
            write("crates/base/src/long.rs", lines(701)),
            write("crates/right/src/deep/longer.rs", lines(900)),
            // At the limit, tests, integration tests, other files and tools are not judged.
            write("crates/base/src/edge.rs", lines(700)),
            write("crates/base/src/kind/tests.rs", lines(900)),
            write("crates/base/src/outer/tests/big.rs", lines(900)),
            write("crates/base/tests/big.rs", lines(900)),
            write("crates/base/src/notes.md", lines(900)),
            write("crates/tool/src/big.rs", lines(900)),
        ],
        Rule::ModelFileLength,
        &[
            "crates/base/src/long.rs: 701 lines (at most 700)",
            "crates/right/src/deep/longer.rs: 900 lines (at most 700)",
        ],
    );
}

#[test]
fn citing_documents_the_repository_does_not_hold_breaks_rule_9() {
    check(
        "citation",
        &[
            edit(
                "crates/base/src/kind.rs",
                "//! Kinds.",
                "//! Kinds (Seed 002, \"kinds\").",
            ),
            edit(
                "crates/tool/Cargo.toml",
                "publish = false",
                "publish = false\n# issue 14",
            ),
            write(
                "docs/leases.md",
                "# Leases\n\nAfter seeds/003 (invariant 5, section 11 of it).\n",
            ),
            edit(
                "README.md",
                "# The clean workspace",
                "# The clean workspace\n\nWritten from DESIGN.md.",
            ),
            // Outside crates/, docs/ and the README, and in build output, nobody reads them.
            write("notes/seed 003.md", "seed 003, section 11\n"),
            write("crates/base/target/seed.txt", "seed 003\n"),
        ],
        Rule::NoOutsideCitation,
        &[
            "crates/base/src/kind.rs:1: cites \"Seed 002\"",
            "crates/tool/Cargo.toml:6: cites \"issue 14\"",
            "docs/leases.md:3: cites \"seeds/003\", \"invariant 5\", \"section 11\"",
            "README.md:3: cites \"DESIGN.md\"",
        ],
    );
}

/// A root manifest without a layer table.
fn no_table() -> [Change; 1] {
    let manifest = "[workspace]\nresolver = \"3\"\nmembers = [\"crates/base\"]\n";
    [write("Cargo.toml", manifest)]
}

#[test]
fn missing_layer_table_is_an_error() {
    let result = check_layering(Some(&materialize("no_table", &no_table())));
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
    let clean = materialize("binary_clean", &[]);
    let output = run_binary(&["check-layering", "--manifest-path", clean.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");

    let broken = materialize("binary_broken", &same_layer());
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
            && stdout.ends_with("check-layering: 8 rules kept, 1 broken\n"),
        "{stdout}"
    );

    let no_table = materialize("binary_no_table", &no_table());
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
