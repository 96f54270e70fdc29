//! `taskctl check` on flows, and `taskctl flow`: order, levels and graph, or the problems.

mod common;

use common::{run, taskctl};

#[test]
fn the_flow_example_is_valid_and_its_order_levels_and_graph_are_printed() {
    let out = run(&["check", "examples/flow-etl.json"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(out.stdout, "examples/flow-etl.json: valid flow\n");

    let out = run(&["flow", "examples/flow-etl.json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let expected = "\
flow nightly-etl: 5 jobs, 5 dependencies, 4 levels
order: extract, transform, load, report, notify
levels:
  0: extract
  1: transform
  2: load, report
  3: notify

flowchart TD
    j0[\"extract\"]
    j1[\"transform\"]
    j2[\"load\"]
    j3[\"report\"]
    j4[\"notify (allDone)\"]
    j0 --> j1
    j1 --> j2
    j1 --> j3
    j2 --> j4
    j3 --> j4
";
    assert_eq!(out.stdout, expected);
}

#[test]
fn dot_and_json_output() {
    let out = run(&["flow", "--graph", "dot", "examples/flow-etl.json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let graph: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("digraph"))
        .collect();
    assert_eq!(graph.first(), Some(&"digraph \"nightly-etl\" {"));
    assert!(graph.contains(&"    \"notify\" [label=\"notify (allDone)\"];"));
    assert!(graph.contains(&"    \"transform\" -> \"report\";"));
    assert_eq!(graph.last(), Some(&"}"));

    let out = run(&["flow", "-o", "json", "examples/flow-etl.json"]);
    assert_eq!(out.code, 0);
    let json = out.json();
    assert_eq!(json["flow"], "nightly-etl");
    assert_eq!(json["jobs"], 5);
    assert_eq!(json["dependencies"], 5);
    assert_eq!(json["order"][4], "notify");
    assert_eq!(json["levels"][2], serde_json::json!(["load", "report"]));
    assert!(
        json["graph"]
            .as_str()
            .unwrap()
            .starts_with("flowchart TD\n")
    );
}

#[test]
fn the_invalid_flow_example_reports_each_problem_with_its_path() {
    let out = run(&["check", "examples/invalid-flow.json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let expected = [
        r#"name: invalid flow id "nightly etl": invalid character ' ' at byte 7 (allowed: A-Z a-z 0-9 . _ -)"#,
        "failurePolicy: unknown variant `sometimes`, expected `failFast` or `continue`",
        "jobs[0].spec.kind.module: must not be empty",
        "jobs[0].spec.timeoutMs: must be greater than zero",
        "jobs[1].when: unknown variant `sometimes`, expected one of `allSucceeded`, `allDone`, \
         `anySucceeded`, `anyFailed`, `noneFailed`",
        r#"jobs[2].name: invalid job name "load job": invalid character ' ' at byte 4 (allowed: A-Z a-z 0-9 . _ -)"#,
        r#"jobs[2].spec.kind.type: "embedded": an embedded task runs in process and cannot be submitted"#,
        "jobs[2].retries: unknown field `retries`, expected one of `name`, `spec`, `dependsOn`, `when`",
        "owner: unknown field `owner`, expected one of `name`, `env`, `labels`, `failurePolicy`, `jobs`",
        "invalid flow (9 problems)",
    ];
    let want: Vec<String> = expected
        .iter()
        .map(|line| format!("examples/invalid-flow.json: {line}"))
        .collect();
    assert_eq!(out.stdout.lines().collect::<Vec<_>>(), want);
    // `flow` on an invalid flow prints the same problems and exits 1.
    let flow = run(&["flow", "examples/invalid-flow.json"]);
    assert_eq!(flow.code, 1);
    assert_eq!(flow.stdout, out.stdout);
}

/// Problems across jobs come once every job's fields are valid: every cycle, the first
/// other graph problem, each with its path.
#[test]
fn graph_problems_name_their_path() {
    let job = |name: &str, deps: &str| {
        format!(
            r#"{{"name": "{name}", "dependsOn": [{deps}], "spec": {{"slot": "s", "kind": {{"type": "wasm", "module": "m"}}, "timeoutMs": 1}}}}"#
        )
    };
    let cases = [
        (
            vec![
                job("extract", r#""load""#),
                job("load", r#""extract""#),
                job("x", r#""y""#),
                job("y", r#""x""#),
            ],
            vec![
                "<stdin>: jobs[0].dependsOn[0]: jobs form a cycle: extract -> load -> extract",
                "<stdin>: jobs[2].dependsOn[0]: jobs form a cycle: x -> y -> x",
                "<stdin>: invalid flow (2 problems)",
            ],
        ),
        (
            vec![job("extract", ""), job("load", r#""extrct""#)],
            vec![
                r#"<stdin>: jobs[1].dependsOn[0]: unknown job "extrct" (did you mean "extract"?)"#,
                "<stdin>: invalid flow (1 problem)",
            ],
        ),
        (
            vec![job("a", ""), job("a", "")],
            vec![
                r#"<stdin>: jobs[1].name: duplicate job name "a", first at jobs[0]"#,
                "<stdin>: invalid flow (1 problem)",
            ],
        ),
        (
            vec![],
            vec![
                "<stdin>: jobs: a flow has at least one job",
                "<stdin>: invalid flow (1 problem)",
            ],
        ),
    ];
    for (jobs, want) in cases {
        let doc = format!(r#"{{"name": "f", "jobs": [{}]}}"#, jobs.join(","));
        let out = taskctl(&["check", "-"], &doc);
        assert_eq!(out.code, 1, "{doc}");
        assert_eq!(out.stdout.lines().collect::<Vec<_>>(), want, "{doc}");
    }
}

#[test]
fn check_json_names_the_flow_shape() {
    let out = run(&[
        "check",
        "-o",
        "json",
        "examples/flow-etl.json",
        "examples/invalid-flow.json",
    ]);
    assert_eq!(out.code, 1);
    let json = out.json();
    assert_eq!(json["files"][0]["shape"], "flow");
    assert_eq!(json["files"][0]["valid"], true);
    assert_eq!(
        json["files"][1]["problems"][2]["path"],
        "jobs[0].spec.kind.module"
    );
}
