//! `taskctl check --type`: documents checked as a named wire type (events, tokens, kind sets,
//! run-history queries, ...), the new wire types among them.

mod common;

use common::{run, taskctl};

#[test]
fn a_valid_document_of_the_named_type() {
    let spec = std::fs::read_to_string(common::root().join("examples/spec-extension.json"))
        .unwrap_or_default();
    for (type_name, doc) in [
        ("TaskSpec", spec.as_str()),
        ("OutputEvent", r#"{"type": "lagged", "dropped": 3}"#),
        ("TaskWatchEvent", r#"{"type": "bookmark", "version": 9}"#),
        (
            "KindSet",
            r#"["wasm", {"apiVersion": "images.example.com/v1", "kind": "Resize"}]"#,
        ),
        (
            "Token",
            r#""tm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA""#,
        ),
        ("TaskRunQuery", r#"{"tenant": "team-a", "task": "job-1"}"#),
    ] {
        let out = taskctl(&["check", "--type", type_name, "-"], doc);
        assert_eq!(out.code, 0, "{type_name}: {}{}", out.stdout, out.stderr);
        assert_eq!(out.stdout, format!("<stdin>: valid {type_name}\n"));
    }
}

#[test]
fn an_invalid_document_names_its_problem_and_position() {
    let out = taskctl(
        &["check", "--type", "OutputEvent", "-"],
        "{\"type\": \"chunk\", \"attempt\": 1, \"stream\": \"stdout\",\n \"sequence\": 0, \"at\": \"2025-01-01T00:00:00Z\", \"data\": \"\"}",
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].starts_with("<stdin>:2:") && lines[0].ends_with("invalid data: must not be empty"),
        "{}",
        out.stdout
    );
    assert_eq!(lines[1], "<stdin>: invalid OutputEvent (1 problem)");
    // A secret never shows up in a problem.
    let out = taskctl(&["check", "--type", "Token", "-"], r#""my secret""#);
    assert_eq!(out.code, 1);
    assert!(!out.stdout.contains("my secret"), "{}", out.stdout);
}

#[test]
fn json_output_names_the_type_as_the_shape() {
    let out = taskctl(
        &["check", "--type", "TaskRunQuery", "-", "-o", "json"],
        r#"{"task": "job-1"}"#,
    );
    assert_eq!(out.code, 1);
    let json = out.json();
    assert_eq!(json["files"][0]["shape"], "TaskRunQuery");
    assert_eq!(json["files"][0]["valid"], false);
    let message = json["files"][0]["problems"][0]["message"].as_str().unwrap();
    assert!(message.starts_with("tenant: required"), "{message}");
}

#[test]
fn every_listed_wire_type_can_be_named_and_no_other() {
    let out = run(&["schema"]);
    assert!(
        out.stdout.contains("\n\nrun `taskctl schema TYPE`"),
        "{}",
        out.stdout
    );
    assert_eq!(out.code, 0);
    let names: Vec<&str> = out
        .stdout
        .lines()
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    for name in [
        "ExtensionKind",
        "KindSet",
        "TaskWatchEvent",
        "OutputEvent",
        "Token",
        "TaskRunQuery",
    ] {
        assert!(names.contains(&name), "taskctl schema does not list {name}");
    }
    for name in names {
        // A flow's job is read only inside its flow, so it is no type to check alone: a usage
        // error, before standard input is read (so none is sent).
        let (stdin, expected) = if name == "FlowJob" {
            ("", 2)
        } else {
            ("not json", 1)
        };
        let out = taskctl(&["check", "--type", name, "-"], stdin);
        assert_eq!(out.code, expected, "{name}: {}", out.stderr);
    }
    let out = taskctl(&["check", "--type", "Nope", "-"], "{}");
    assert_eq!(out.code, 2);
}
