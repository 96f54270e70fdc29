//! `taskctl check` on the shipped examples, on stdin, and on broken documents.

mod common;

use common::{run, taskctl};

const VALID: [&str; 5] = [
    "examples/spec-command.json",
    "examples/spec-script.json",
    "examples/spec-container.json",
    "examples/spec-wasm.json",
    "examples/task.json",
];

#[test]
fn every_valid_example_is_valid() {
    for file in VALID {
        let out = run(&["check", file]);
        assert_eq!(out.code, 0, "{file}: {}{}", out.stdout, out.stderr);
        let shape = if file.ends_with("task.json") {
            "task"
        } else {
            "task spec"
        };
        assert_eq!(out.stdout, format!("{file}: valid {shape}\n"));
    }
}

#[test]
fn the_invalid_example_reports_each_problem_with_its_path() {
    let out = run(&["check", "examples/invalid-spec.json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    // Each line is FILE: PATH: REASON, the path from the document root written once.
    let expected = [
        r#"slot: invalid slot "nightly backup": invalid character ' ' at byte 7 (allowed: A-Z a-z 0-9 . _ -)"#,
        "kind.mode.command: must not be empty",
        "timeoutMs: must be greater than zero",
        r#"restart: unknown restart policy "sometimes": expected one of never, onFailure, always"#,
        "backoff.factor: must be at least 1.0, got 0.5",
        "runnerSelector.matchExpressions[0].values: operator In needs at least one value, got 0",
        r#"labels["-bad-key"]: invalid label key "-bad-key": a name must start and end with an ASCII letter or digit"#,
        "retries: unknown field `retries`, expected one of `slot`, `kind`, `timeoutMs`, `restart`, \
         `backoff`, `admission`, `runnerSelector`, `labels`, `maxRetries`, `priority`, \
         `ttlAfterFinishedMs`",
        "invalid task spec (8 problems)",
    ];
    let lines: Vec<&str> = out.stdout.lines().collect();
    let want: Vec<String> = expected
        .iter()
        .map(|line| format!("examples/invalid-spec.json: {line}"))
        .collect();
    assert_eq!(lines, want);
}

/// Paths inside kinds, environments, selectors and labels are joined from the structured
/// error path, never from a message that repeats it.
#[test]
fn nested_paths_are_written_once() {
    let check = |doc: &str, want: &str| {
        let out = taskctl(&["check", "-"], doc);
        assert_eq!(out.code, 1, "{doc}: {}{}", out.stdout, out.stderr);
        let first = out.stdout.lines().next().unwrap_or_default();
        assert_eq!(first, format!("<stdin>: {want}"), "{doc}");
    };
    let spec =
        |kind: &str, extra: &str| format!(r#"{{"slot":"s","kind":{kind},"timeoutMs":1{extra}}}"#);
    let wasm = r#"{"type":"wasm","module":"m"}"#;
    check(
        &spec(
            r#"{"type":"wasm","module":"m","env":[{"key":"A=B","value":""}]}"#,
            "",
        ),
        r#"kind.env[0].key: "A=B": holds '=' at index 1"#,
    );
    check(
        &spec(
            r#"{"type":"container","image":"i","args":["a","b\u0000"]}"#,
            "",
        ),
        r#"kind.args[1]: "b\0": holds a NUL byte at index 1"#,
    );
    check(
        &spec(wasm, r#","runnerSelector":{"matchLabels":{"zone":"EU!"}}"#),
        r#"runnerSelector.matchLabels["zone"]: invalid label value "EU!": a name must start and end with an ASCII letter or digit"#,
    );
    check(
        &spec(wasm, r#","backoff":{"firstMs":0,"factor":null}"#),
        "backoff.firstMs: must be greater than 0, got 0",
    );
    let task = format!(
        r#"{{"apiVersion":"taskmodel.io/v1","kind":"Task","metadata":{{"name":"t","uid":"00000000-0000-4000-8000-000000000001","tenant":"a","resourceVersion":0,"generation":1,"createdAt":"2025-01-01T00:00:00Z","updatedAt":"2025-01-01T00:00:00Z"}},"spec":{}}}"#,
        spec(
            r#"{"type":"subprocess","mode":{"type":"command","command":""}}"#,
            ""
        )
    );
    let out = taskctl(&["check", "-"], &task);
    assert_eq!(
        out.stdout.lines().take(2).collect::<Vec<_>>(),
        [
            "<stdin>: metadata.resourceVersion: must be greater than zero",
            "<stdin>: spec.kind.mode.command: must not be empty",
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn json_output_lists_the_problems_per_file() {
    let out = run(&[
        "check",
        "--output",
        "json",
        "examples/spec-wasm.json",
        "examples/invalid-spec.json",
    ]);
    assert_eq!(out.code, 1);
    let json = out.json();
    assert_eq!(json["valid"], false);
    let files = json["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["file"], "examples/spec-wasm.json");
    assert_eq!(files[0]["shape"], "taskSpec");
    assert_eq!(files[0]["valid"], true);
    assert_eq!(files[0]["problems"].as_array().unwrap().len(), 0);
    assert_eq!(files[1]["valid"], false);
    let paths: Vec<&str> = files[1]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.contains(&"slot") && paths.contains(&"timeoutMs"),
        "{paths:?}"
    );
}

#[test]
fn syntax_errors_give_line_and_column() {
    let out = taskctl(&["check", "-"], "{\n  \"slot\": \"a\",\n  \"kind\" {}\n}\n");
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout.lines().next().unwrap(),
        "<stdin>:3:10: expected `:`"
    );
    let json = taskctl(&["check", "-o", "json", "-"], "[1,").json();
    let problem = &json["files"][0]["problems"][0];
    assert_eq!(
        (problem["line"].as_u64(), problem["column"].as_u64()),
        (Some(1), Some(3))
    );
}

#[test]
fn a_document_with_metadata_spec_and_status_is_a_task() {
    let task = std::fs::read_to_string(common::root().join("examples/task.json")).unwrap();
    let out = taskctl(&["check", "-o", "json", "-"], &task);
    assert_eq!(out.json()["files"][0]["shape"], "task");
    // A bad field inside the task's spec is reported under spec.
    let broken = task.replace(r#""timeoutMs": 600000"#, r#""timeoutMs": 0"#);
    let out = taskctl(&["check", "-"], &broken);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.starts_with("<stdin>: spec.timeoutMs: "),
        "{}",
        out.stdout
    );
    // A document with a status or stored metadata is a task that lacks the rest.
    let out = taskctl(
        &["check", "-o", "json", "-"],
        r#"{"spec": {}, "status": {}}"#,
    );
    assert_eq!(out.json()["files"][0]["shape"], "task");
    let out = taskctl(&["check", "-"], r#"{"spec": {}, "status": {}}"#);
    assert!(
        out.stdout.contains("missing field `apiVersion`"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_document_with_a_type_and_no_stored_metadata_is_a_manifest() {
    let manifest = r#"{"apiVersion": "taskmodel.io/v1", "kind": "Task",
        "metadata": {"name": "thumbs", "labels": {"team": "media"}},
        "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m.wasm"}, "timeoutMs": 1000}}"#;
    let out = taskctl(&["check", "-o", "json", "-"], manifest);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(out.json()["files"][0]["shape"], "taskManifest");
    let out = taskctl(&["check", "-"], manifest);
    assert_eq!(out.stdout, "<stdin>: valid task manifest\n");
    // Every bad field is reported, each with its path from the root.
    let broken = manifest
        .replace("taskmodel.io/v1", "v2")
        .replace(r#""team""#, r#""bad key""#)
        .replace("1000}", "0}");
    let out = taskctl(&["check", "-"], &broken);
    assert_eq!(out.code, 1);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            r#"<stdin>: apiVersion: "v2": expected taskmodel.io/v1"#,
            r#"<stdin>: metadata.labels["bad key"]: invalid label key "bad key": a name may contain only ASCII letters, digits, '-', '_' and '.'"#,
            "<stdin>: spec.timeoutMs: must be greater than zero",
            "<stdin>: invalid task manifest (3 problems)",
        ],
        "{}",
        out.stdout
    );
    // The submit boundary: an embedded task cannot be submitted.
    let embedded = manifest.replace(
        r#"{"type": "wasm", "module": "m.wasm"}"#,
        r#"{"type": "embedded"}"#,
    );
    let out = taskctl(&["check", "-"], &embedded);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.starts_with("<stdin>: spec.kind.type: "),
        "{}",
        out.stdout
    );
}

#[test]
fn the_submit_boundary_rejects_embedded_specs() {
    let spec = r#"{"slot": "inproc", "kind": {"type": "embedded"}, "timeoutMs": 1000}"#;
    let out = taskctl(&["check", "-"], spec);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.starts_with("<stdin>: kind.type: "),
        "{}",
        out.stdout
    );
}

#[test]
fn several_files_get_a_summary_and_any_invalid_one_fails_the_run() {
    let mut args = vec!["check"];
    args.extend(VALID);
    let out = run(&args);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        out.stdout.lines().last().unwrap(),
        "5 files checked: 5 valid, 0 invalid"
    );
    args.push("examples/invalid-spec.json");
    let out = run(&args);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout.lines().last().unwrap(),
        "6 files checked: 5 valid, 1 invalid"
    );
}

#[test]
fn stdin_can_be_named_once() {
    let out = run(&["check", "-", "-"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("only once"), "{}", out.stderr);
}

/// `null` in an optional field reads as absent, as the library reads it
/// (docs/wire-format.md); a required field must hold a value.
#[test]
fn null_reads_as_absent_like_the_library() {
    let spec = r#"{"slot":"s","kind":{"type":"wasm","module":"m.wasm","args":null,"env":null},
        "timeoutMs":1000,"restart":null,"backoff":null,"admission":null,"runnerSelector":null,
        "labels":null,"maxRetries":null}"#;
    let out = taskctl(&["check", "-"], spec);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(out.stdout, "<stdin>: valid task spec\n");

    let task = r#"{"apiVersion":"taskmodel.io/v1","kind":"Task","metadata":{"name":"t",
        "uid":"00000000-0000-4000-8000-000000000001","tenant":"a","resourceVersion":1,
        "generation":1,"createdAt":"2025-01-01T00:00:00Z","updatedAt":"2025-01-01T00:00:00Z",
        "labels":null,"annotations":null,"ownerReferences":null},"spec":{"slot":"s",
        "kind":{"type":"embedded"},"timeoutMs":1,"backoff":null,"priority":null,
        "ttlAfterFinishedMs":null},"status":null}"#;
    let out = taskctl(&["check", "-"], task);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);

    let out = taskctl(
        &["check", "-"],
        r#"{"slot":"s","kind":{"type":"wasm","module":"m"},"timeoutMs":null}"#,
    );
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.starts_with("<stdin>: timeoutMs: "),
        "{}",
        out.stdout
    );
}

/// A field named twice is refused, as the library refuses it: a JSON value would keep
/// only the last copy, so check reads the text itself once the fields look clean.
#[test]
fn a_field_named_twice_is_invalid_like_the_library() {
    let spec = r#"{"slot":"a","slot":"b","kind":{"type":"wasm","module":"m"},"timeoutMs":1000}"#;
    assert!(serde_json::from_str::<taskmodel::TaskSpec>(spec).is_err());
    let out = taskctl(&["check", "-"], spec);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.starts_with("<stdin>:1:") && out.stdout.contains("duplicate field `slot`"),
        "{}",
        out.stdout
    );

    let task = r#"{"apiVersion":"taskmodel.io/v1","kind":"Task","metadata":{"name":"t",
        "uid":"00000000-0000-4000-8000-000000000001","tenant":"a","resourceVersion":1,
        "generation":1,"createdAt":"2025-01-01T00:00:00Z","updatedAt":"2025-01-01T00:00:00Z"},
        "spec":{"slot":"s","kind":{"type":"wasm","module":"m"},"timeoutMs":1},
        "status":STATUS,
        "status":STATUS}"#
        .replace("STATUS", NEW_STATUS);
    let out = taskctl(&["check", "-"], &task);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("duplicate field `status`"),
        "{}",
        out.stdout
    );
}

/// The status of a task created at 2025-01-01T00:00:00Z.
const NEW_STATUS: &str = r#"{"phase":"pending","attempt":0,"queuedAt":"2025-01-01T00:00:00Z",
    "conditions":[
        {"type":"Scheduled","status":"False","reason":"Queued","lastTransitionTime":"2025-01-01T00:00:00Z"},
        {"type":"Running","status":"False","reason":"Queued","lastTransitionTime":"2025-01-01T00:00:00Z"},
        {"type":"Succeeded","status":"Unknown","reason":"NotEnded","lastTransitionTime":"2025-01-01T00:00:00Z"}]}"#;

/// Files are checked one at a time, but a file that cannot be opened (missing, or a
/// directory) is found before any is checked: the run prints nothing and exits 2.
#[test]
fn an_unopenable_file_stops_the_run_before_anything_is_printed() {
    for (bad, why) in [
        ("examples/does-not-exist.json", "No such file"),
        ("examples", "is a directory"),
    ] {
        for output in ["text", "json"] {
            let out = run(&["check", "-o", output, VALID[0], bad, VALID[1]]);
            assert_eq!(out.code, 2, "{bad}: {out:?}");
            assert!(out.stdout.is_empty(), "{bad}: {}", out.stdout);
            assert!(
                out.stderr
                    .starts_with(&format!("error: cannot read {bad}: "))
                    && out.stderr.contains(why),
                "{bad}: {}",
                out.stderr
            );
        }
    }
}

/// With `--output json`, every file is written as it is checked and `valid` comes last.
#[test]
fn json_output_says_valid_after_the_files() {
    let out = run(&[
        "check",
        "-o",
        "json",
        VALID[0],
        "examples/invalid-spec.json",
    ]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.starts_with("{\n  \"files\": ["),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.ends_with("  ],\n  \"valid\": false\n}\n"),
        "{}",
        out.stdout
    );
    assert_eq!(out.json()["valid"], false);
}
