//! `taskctl schema`: the list of wire types and their JSON Schemas.

mod common;

use common::run;

#[test]
fn one_type_prints_its_schema() {
    let out = run(&["schema", "BackoffPolicy"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let schema = out.json();
    assert_eq!(schema["title"], "BackoffPolicy");
    assert_eq!(schema["type"], "object");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

#[test]
fn the_list_and_the_json_map_name_the_same_types() {
    let listed = run(&["schema"]);
    assert_eq!(listed.code, 0);
    let all = run(&["schema", "--output", "json"]).json();
    let all = all.as_object().unwrap();
    for name in [
        "TaskId",
        "Slot",
        "RestartPolicy",
        "BackoffPolicy",
        "AdmissionPolicy",
        "Labels",
        "LabelSelector",
        "Task",
        "TaskSpec",
        "TaskKind",
        "TaskStatus",
        "ObjectMeta",
        "TaskQuery",
    ] {
        assert!(all.contains_key(name), "{name} missing from the JSON map");
        assert!(
            listed.stdout.lines().any(|line| line.starts_with(name)),
            "{name} missing from the list"
        );
    }
    assert_eq!(
        all.len(),
        listed
            .stdout
            .lines()
            .filter(|line| line.contains("  "))
            .count()
    );
}
