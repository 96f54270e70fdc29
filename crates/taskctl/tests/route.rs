//! `taskctl route`: the runner picked for a spec, why each other runner is not, and the
//! exit codes for no eligible runner, embedded specs and invalid inventories.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions may fail loudly"
)]

mod common;

use std::collections::BTreeSet;

use common::{run, taskctl};

const RUNNERS: &str = "examples/runners.json";

/// Writes `text` to a fresh file in the temp directory and returns its path.
fn temp_file(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("taskctl-route-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn text_output_names_the_pick_and_a_reason_for_every_other_runner() {
    let out = run(&["route", "examples/spec-command.json", "--runners", RUNNERS]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "task nightly-backup (subprocess)");
    assert_eq!(lines[1], "picked: eu-ssd-1");
    let line = |id: &str| {
        lines
            .iter()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no line for {id}:\n{}", out.stdout))
            .to_owned()
    };
    assert!(line("eu-ssd-1").ends_with(" picked"));
    assert!(line("eu-spot-1").ends_with(r#"(tier!=spot): value "spot" is excluded"#));
    assert!(line("eu-hdd-1").ends_with("(ssd): key missing"));
    assert!(line("us-ssd-1").ends_with(r#"(zone=eu): value "us" is not listed"#));
    assert!(line("gpu-h100-1").contains("runs container, not subprocess"));
    assert!(line("edge-wasm-1").contains("runs wasm, not subprocess"));
    assert!(
        line("img-eu-1").contains("runs container,images.example.com/v1/Resize, not subprocess")
    );
    assert_eq!(lines.len(), 9);
}

#[test]
fn json_output_has_a_verdict_per_runner() {
    let out = run(&[
        "route",
        "examples/spec-container.json",
        "--runners",
        RUNNERS,
        "--task-id",
        "job-1",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json = out.json();
    assert_eq!(json["routed"], true);
    assert_eq!(json["taskId"], "job-1");
    assert_eq!(json["kind"], "container");
    assert_eq!(json["picked"], "gpu-h100-1");
    let runners = json["runners"].as_array().unwrap();
    assert_eq!(runners.len(), 7);
    let picked: Vec<&str> = runners
        .iter()
        .filter(|r| r["outcome"] == "picked")
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(picked, ["gpu-h100-1"]);
    let us = runners.iter().find(|r| r["id"] == "us-ssd-1").unwrap();
    assert_eq!(us["outcome"], "rejected");
    assert_eq!(us["kindSupported"], true);
    assert_eq!(us["failures"][0]["key"], "gpu");
    assert_eq!(us["failures"][0]["reason"], "key missing");
    assert_eq!(us["kinds"], serde_json::json!(["subprocess", "container"]));
}

#[test]
fn no_eligible_runner_exits_one_and_says_why() {
    let spec = r#"{"slot": "s", "kind": {"type": "wasm", "module": "m.wasm"}, "timeoutMs": 1000,
                   "runnerSelector": {"matchLabels": {"zone": "us"}}}"#;
    let out = taskctl(&["route", "-", "--runners", RUNNERS], spec);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("picked: none"), "{}", out.stdout);
    assert!(
        out.stdout.contains(
            r#"no runner for a wasm task with runnerSelector "zone=us": 7 registered, 1 run wasm, 1 match the selector, none both"#
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn an_extension_spec_goes_to_a_runner_that_declares_its_kind() {
    let out = run(&[
        "route",
        "examples/spec-extension.json",
        "--runners",
        RUNNERS,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "task thumbnails (images.example.com/v1/Resize)");
    assert_eq!(lines[1], "picked: img-eu-1");
    let line = |id: &str| {
        lines
            .iter()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no line for {id}:\n{}", out.stdout))
    };
    assert!(
        line("gpu-h100-1").ends_with("runs container, not images.example.com/v1/Resize"),
        "{}",
        out.stdout
    );
    // In JSON, the task's kind and the runner's kinds are written as on the wire.
    let out = run(&[
        "route",
        "examples/spec-extension.json",
        "--runners",
        RUNNERS,
        "-o",
        "json",
    ]);
    let json = out.json();
    let resize = serde_json::json!({ "apiVersion": "images.example.com/v1", "kind": "Resize" });
    assert_eq!(json["kind"], resize);
    let picked = &json["runners"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "img-eu-1")
        .unwrap()["kinds"];
    assert_eq!(*picked, serde_json::json!(["container", resize]));
}

#[test]
fn an_embedded_spec_is_not_routable() {
    let spec = r#"{"slot": "s", "kind": {"type": "embedded"}, "timeoutMs": 1000}"#;
    let out = taskctl(&["route", "-", "--runners", RUNNERS, "-o", "json"], spec);
    assert_eq!(out.code, 1);
    let json = out.json();
    assert_eq!(json["routed"], false);
    let message = json["problems"][0]["message"].as_str().unwrap();
    assert_eq!(
        message,
        "task kind embedded is not routable: it runs in process"
    );
}

#[test]
fn an_invalid_inventory_is_reported_with_its_path() {
    let check = |name: &str, runners: &str, want: &str| {
        let file = temp_file(name, runners);
        let out = run(&["route", "examples/spec-command.json", "--runners", &file]);
        assert_eq!(out.code, 1, "{name}: {}", out.stdout);
        assert!(out.stdout.contains(want), "{name}: {}", out.stdout);
    };
    check(
        "kind",
        r#"[{"id": "a", "kinds": ["gpu"]}]"#,
        r#"[0].kinds[0]: unknown task kind "gpu", expected subprocess, container, wasm or an extension's apiVersion/kind"#,
    );
    check("id", r#"[{"id": "a b", "kinds": []}]"#, "[0].id");
    check(
        "label",
        r#"[{"id": "a", "labels": {"Bad Key": "x"}, "kinds": []}]"#,
        "[0].labels",
    );
    check(
        "duplicate",
        r#"[{"id": "a", "kinds": []}, {"id": "a", "kinds": []}]"#,
        r#"runner "a" is already registered"#,
    );
    check("syntax", "[{", "line 1");
}

#[test]
fn the_task_id_spreads_tasks_and_the_same_id_picks_the_same_runner() {
    let runners = r#"[
        {"id": "a", "labels": {"zone": "eu", "ssd": "true"}, "kinds": ["subprocess"]},
        {"id": "b", "labels": {"zone": "eu", "ssd": "true"}, "kinds": ["subprocess"]},
        {"id": "c", "labels": {"zone": "eu", "ssd": "true"}, "kinds": ["subprocess"]}
    ]"#;
    let file = temp_file("spread", runners);
    let pick = |task: &str| {
        let out = run(&[
            "route",
            "examples/spec-command.json",
            "--runners",
            &file,
            "--task-id",
            task,
            "-o",
            "json",
        ]);
        assert_eq!(out.code, 0, "{}", out.stdout);
        out.json()["picked"].as_str().unwrap().to_owned()
    };
    let picks: BTreeSet<String> = (0..12).map(|i| pick(&format!("task-{i}"))).collect();
    assert!(picks.len() >= 2, "12 tasks all went to {picks:?}");
    assert_eq!(pick("task-3"), pick("task-3"));
    let out = run(&[
        "route",
        "examples/spec-command.json",
        "--runners",
        &file,
        "--task-id",
        "task-3",
    ]);
    assert!(
        out.stdout.contains("eligible, but outranked for this task"),
        "{}",
        out.stdout
    );
}
