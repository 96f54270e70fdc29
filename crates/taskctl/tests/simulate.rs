//! `taskctl simulate`: the same inputs and seed give the same bytes (text, JSON and the
//! SVG timeline), the summary's counts agree with each other, the documented example prints
//! what docs/taskctl.md shows, and bad inputs and options get their exit codes.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions may fail loudly"
)]

mod common;

use common::{root, run};
use serde_json::Value;

const RUNNERS: &str = "examples/runners.json";

/// The example of docs/taskctl.md: 40 copies of a spec that retries over 10 slots, one
/// runner crashing and coming back.
const EXAMPLE: &[&str] = &[
    "simulate",
    "examples/spec-batch.json",
    "--runners",
    RUNNERS,
    "--copies",
    "40",
    "--slots",
    "10",
    "--seed",
    "7",
    "--fail-rate",
    "0.1",
    "--timeout-rate",
    "0.02",
    "--crash",
    "eu-spot-1@3000..8000",
    "--lease-ms",
    "3000",
    "--heartbeat-ms",
    "1000",
];

/// A path in the temp directory for this test process.
fn temp(name: &str) -> String {
    let path = std::env::temp_dir().join(format!("taskctl-simulate-{}-{name}", std::process::id()));
    path.display().to_string()
}

fn with(extra: &[&str]) -> Vec<String> {
    EXAMPLE
        .iter()
        .chain(extra)
        .map(|s| (*s).to_owned())
        .collect()
}

fn run_owned(args: &[String]) -> common::Run {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&args)
}

#[test]
fn the_same_inputs_and_seed_print_the_same_bytes() {
    for output in ["text", "json"] {
        let (first_svg, second_svg) = (
            temp(&format!("a-{output}.svg")),
            temp(&format!("b-{output}.svg")),
        );
        let first = run_owned(&with(&["-o", output, "--timeline", &first_svg]));
        let second = run_owned(&with(&["-o", output, "--timeline", &second_svg]));
        assert_eq!(first.code, 0, "{}", first.stderr);
        assert_eq!(first.stdout, second.stdout, "{output}");
        let (a, b) = (
            std::fs::read(&first_svg).unwrap(),
            std::fs::read(&second_svg).unwrap(),
        );
        assert_eq!(a, b, "the timeline of {output}");
        assert!(a.starts_with(b"<svg"), "an SVG document");
        std::fs::remove_file(first_svg).unwrap();
        std::fs::remove_file(second_svg).unwrap();
    }
    let mut other = with(&["-o", "json"]);
    let seed = other.iter().position(|a| a == "7").unwrap();
    other[seed] = "8".to_owned();
    assert_ne!(
        run_owned(&other).stdout,
        run_owned(&with(&["-o", "json"])).stdout
    );
}

fn sum(value: &Value) -> u64 {
    value
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum()
}

#[test]
fn the_summary_counts_agree() {
    let out = run_owned(&with(&["-o", "json", "--plane", "memory"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json = out.json();
    let attempts = json["attempts"].as_u64().unwrap();
    let tasks = json["tasks"].as_u64().unwrap();
    assert_eq!(tasks, 40);
    let inventory: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join(RUNNERS)).unwrap()).unwrap();
    assert_eq!(json["runners"], inventory.as_array().unwrap().len());
    assert_eq!(json["stopped"], "done");
    assert_eq!(
        sum(&json["outcomes"]),
        attempts,
        "every attempt ended one way"
    );
    assert_eq!(
        sum(&json["finalStates"]),
        tasks,
        "every task is counted once"
    );
    assert_eq!(json["finalStates"]["succeeded"], 40);
    // Every task ended, so every attempt after a task's first was a retry.
    assert_eq!(json["retries"].as_u64().unwrap(), attempts - tasks);
    assert!(
        json["expirations"].as_u64().unwrap() >= 1,
        "the crash expires a lease"
    );
    assert_eq!(json["outcomes"]["expired"], json["expirations"]);
    let load = json["runnerLoad"].as_array().unwrap();
    let per_runner: u64 = load.iter().map(|r| r["attempts"].as_u64().unwrap()).sum();
    assert_eq!(per_runner, attempts);
    let end = json["endMs"].as_u64().unwrap();
    assert_eq!(json["makespanMs"].as_u64().unwrap(), end);
    for runner in load {
        let down: u64 = runner["down"].as_array().map_or(0, |down| {
            down.iter()
                .map(|d| d["backAtMs"].as_u64().unwrap_or(end) - d["atMs"].as_u64().unwrap())
                .sum()
        });
        let places = (end - down) * runner["capacity"].as_u64().unwrap();
        let busy = runner["busyMs"].as_u64().unwrap();
        assert_eq!(
            busy + runner["idleMs"].as_u64().unwrap(),
            places,
            "{runner}"
        );
    }
    let spot = load.iter().find(|r| r["runner"] == "eu-spot-1").unwrap();
    assert_eq!(
        spot["down"],
        serde_json::json!([{"atMs": 3000, "backAtMs": 8000}])
    );
    let came_back = json_bars_after(&with(&["--plane", "memory"]), "eu-spot-1", 8_000);
    assert!(came_back, "eu-spot-1 claims again once it is back");
    // Runners that run no subprocess, or are not amd64, take nothing.
    for idle in ["gpu-h100-1", "edge-wasm-1"] {
        let runner = load.iter().find(|r| r["runner"] == idle).unwrap();
        assert_eq!(runner["attempts"], 0, "{idle}");
    }
}

/// Whether `runner` started an attempt at or after `from` in the run of `args`, read from
/// its SVG timeline (each bar's title is not drawn, so the bars per runner are counted in
/// the JSON instead: attempts after a crash show as more attempts than before it).
fn json_bars_after(args: &[String], runner: &str, from: u64) -> bool {
    let mut short = args.to_vec();
    short.extend([
        "--duration-ms".to_owned(),
        from.to_string(),
        "-o".to_owned(),
        "json".to_owned(),
    ]);
    let mut long = args.to_vec();
    long.extend(["-o".to_owned(), "json".to_owned()]);
    let attempts = |args: &[String]| {
        let json = run_owned(args).json();
        let load = json["runnerLoad"].as_array().unwrap().clone();
        let found = load.iter().find(|r| r["runner"] == runner).unwrap();
        found["attempts"].as_u64().unwrap()
    };
    attempts(&long) > attempts(&short)
}

/// Tasks of four slots and 30 copies of one spec over 6 slots, on runners one of which
/// runs two at once, that fail (one job at its own rate), time out and lose a runner that
/// comes back, for 200 simulated seconds: every `extra` argument on both planes.
fn mixed(seed: &str, plane: &str, extra: &[&str]) -> common::Run {
    let runners = temp(&format!("mixed-{seed}-{plane}-runners.json"));
    std::fs::write(&runners, CAPACITY_RUNNERS).unwrap();
    let mut args = vec![
        "simulate",
        "examples/spec-batch.json",
        "examples/spec-container.json",
        "examples/spec-wasm.json",
        "examples/spec-script.json",
        "--runners",
        &runners,
        "--copies",
        "30",
        "--slots",
        "6",
        "--seed",
        seed,
        "--fail-rate",
        "0.3",
        "--timeout-rate",
        "0.1",
        "--job-fail-rate",
        "render-frame=0.5",
        "--crash",
        "eu-ssd-1@1500..9000",
        "--crash",
        "eu-hdd-1@4000",
        "--lease-ms",
        "3000",
        "--heartbeat-ms",
        "1000",
        "--duration-ms",
        "200000",
        "--plane",
        plane,
    ];
    args.extend_from_slice(extra);
    let out = run(&args);
    std::fs::remove_file(&runners).unwrap();
    assert_eq!(out.code, 0, "{}", out.stderr);
    out
}

/// 1,100 copies of a spec only eu runners take, at a higher priority, before 1,100 of one
/// any runner takes: the us runner finds its tasks behind the eu ones on both planes (the
/// store's claim passes over the tasks whose selector it does not match without decoding
/// them, as deep as the queue goes), so both print the same bytes.
#[test]
fn the_planes_agree_when_a_runner_fits_only_tasks_deep_in_the_queue() {
    let file = |name: &str, text: &str| {
        let path = temp(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let eu = file(
        "deep-eu.json",
        r#"{"slot": "eu", "kind": {"type": "subprocess", "mode": {"type": "command", "command": "/bin/eu"}},
            "timeoutMs": 60000, "priority": 10, "runnerSelector": {"matchLabels": {"zone": "eu"}}}"#,
    );
    let any = file(
        "deep-any.json",
        r#"{"slot": "any", "kind": {"type": "subprocess", "mode": {"type": "command", "command": "/bin/any"}},
            "timeoutMs": 60000}"#,
    );
    let runners = file(
        "deep-runners.json",
        r#"[{"id": "eu-1", "labels": {"zone": "eu"}, "kinds": ["subprocess"]},
            {"id": "us-1", "labels": {"zone": "us"}, "kinds": ["subprocess"]}]"#,
    );
    let out = |plane: &str| {
        let out = run(&[
            "simulate",
            &eu,
            &any,
            "--runners",
            &runners,
            "--copies",
            "1100",
            "--slots",
            "1100",
            "--duration-ms",
            "5000",
            "-o",
            "json",
            "--plane",
            plane,
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out
    };
    let (memory, sqlite) = (out("memory"), out("sqlite"));
    assert_eq!(memory.stdout, sqlite.stdout);
    let json = sqlite.json();
    let busy = json["runnerLoad"]
        .as_array()
        .unwrap()
        .iter()
        .find(|load| load["runner"] == "us-1")
        .unwrap()["attempts"]
        .as_u64()
        .unwrap();
    assert!(busy >= 3, "the us runner ran tasks: {json}");
    for path in [eu, any, runners] {
        std::fs::remove_file(path).unwrap();
    }
}

/// examples/runners.json's eu runners, eu-ssd-1 running two attempts at once.
const CAPACITY_RUNNERS: &str = r#"[
  {"id": "eu-ssd-1", "labels": {"zone": "eu", "ssd": "true", "arch": "amd64"}, "kinds": ["subprocess", "container"], "maxConcurrent": 2},
  {"id": "eu-hdd-1", "labels": {"zone": "eu", "arch": "amd64"}, "kinds": ["subprocess"]},
  {"id": "edge-wasm-1", "labels": {"zone": "eu", "arch": "wasm32"}, "kinds": ["wasm"]},
  {"id": "us-ssd-1", "labels": {"zone": "us", "ssd": "true", "arch": "amd64"}, "kinds": ["subprocess", "container"], "maxConcurrent": 3}
]"#;

#[test]
fn the_sqlite_plane_and_the_memory_plane_print_the_same_bytes() {
    for seed in ["1", "3"] {
        for output in ["text", "json"] {
            let svg = |plane: &str| temp(&format!("planes-{seed}-{output}-{plane}.svg"));
            let (memory_svg, sqlite_svg) = (svg("memory"), svg("sqlite"));
            let memory = mixed(seed, "memory", &["-o", output, "--timeline", &memory_svg]);
            let sqlite = mixed(seed, "sqlite", &["-o", output, "--timeline", &sqlite_svg]);
            assert_eq!(memory.stdout, sqlite.stdout, "seed {seed}, {output}");
            let (a, b) = (
                std::fs::read(&memory_svg).unwrap(),
                std::fs::read(&sqlite_svg).unwrap(),
            );
            assert!(a == b, "seed {seed}: the timelines differ");
            std::fs::remove_file(memory_svg).unwrap();
            std::fs::remove_file(sqlite_svg).unwrap();
        }
        let json = mixed(seed, "memory", &["-o", "json"]).json();
        // Something of everything happened: retries, expired leases, the down runners.
        assert!(json["retries"].as_u64().unwrap() > 5, "{json}");
        assert!(json["expirations"].as_u64().unwrap() >= 1, "{json}");
        assert!(
            json["finalStates"].as_object().unwrap().len() >= 2,
            "{json}"
        );
    }
}

#[test]
fn a_runner_runs_up_to_its_capacity_and_a_slot_one_task_at_a_time() {
    for plane in ["memory", "sqlite"] {
        let json = mixed("5", plane, &["-o", "json"]).json();
        let load = json["runnerLoad"].as_array().unwrap();
        let end = json["endMs"].as_u64().unwrap();
        let find = |name: &str| load.iter().find(|r| r["runner"] == name).unwrap();
        // us-ssd-1 runs three at once: its busy time passes the time it was up.
        let us = find("us-ssd-1");
        assert_eq!(us["capacity"], 3);
        assert!(us["busyMs"].as_u64().unwrap() > end, "{plane}: {us}");
    }
    // 40 copies in one slot run one after another: the busy time of all runners adds up
    // to at most the makespan, on both planes.
    for plane in ["memory", "sqlite"] {
        let out = run(&[
            "simulate",
            "examples/spec-batch.json",
            "--runners",
            RUNNERS,
            "--copies",
            "40",
            "--plane",
            plane,
            "-o",
            "json",
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let json = out.json();
        assert_eq!(json["finalStates"]["succeeded"], 40);
        let busy: u64 = json["runnerLoad"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["busyMs"].as_u64().unwrap())
            .sum();
        assert!(
            busy <= json["makespanMs"].as_u64().unwrap(),
            "{plane}: {json}"
        );
    }
}

/// `simulate FILES` on the example runners for six simulated hours, runs of 40 s to 120 s, a
/// fifth of them failing, seed 3, on `plane`, then `extra`.
fn six_hours<'a>(files: &[&'a str], plane: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["simulate"];
    args.extend_from_slice(files);
    args.extend_from_slice(&[
        "--runners",
        RUNNERS,
        "--duration-ms",
        "21600000",
        "--attempt-ms",
        "80000",
        "--fail-rate",
        "0.2",
        "--seed",
        "3",
        "--plane",
        plane,
    ]);
    args.extend_from_slice(extra);
    args
}

#[test]
fn schedules_fire_through_the_control_plane_on_both_planes() {
    let args = |plane| {
        six_hours(
            &[
                "examples/schedule-report.json",
                "examples/schedule-nightly.json",
            ],
            plane,
            &["--job-fail-rate", "nightly-backup=0", "-o", "json"],
        )
    };
    let (memory, sqlite) = (run(&args("memory")), run(&args("sqlite")));
    assert_eq!(memory.code, 0, "{}", memory.stderr);
    assert_eq!(memory.stdout, sqlite.stdout, "the planes agree");
    let json = memory.json();
    let schedules = json["schedules"].as_array().unwrap();
    let find = |name: &str| schedules.iter().find(|s| s["schedule"] == name).unwrap();
    // Every minute for six hours, 0 s included; a run of 40 to 120 s: bufferOne keeps one
    // tick while a task runs and drops the rest.
    let report = find("report");
    assert_eq!(report["ticks"], 361);
    let (ticks, started, skipped) = (
        report["ticks"].as_u64().unwrap(),
        report["started"].as_u64().unwrap(),
        report["skipped"].as_u64().unwrap(),
    );
    assert!(skipped > 0 && started > skipped, "{report}");
    assert!(
        ticks - started - skipped <= 1,
        "at most one tick buffered at the end"
    );
    // 02:00 in Berlin (01:00 UTC in winter), once a day: once in the first six hours.
    let nightly = find("nightly-backup");
    assert_eq!(nightly["ticks"], 1);
    assert_eq!(nightly["started"], 1);
    let tasks = json["tasks"].as_u64().unwrap();
    assert_eq!(tasks, started + 1, "one task a started tick");
}

#[test]
fn replace_cancels_the_running_task_through_the_control_plane_on_both_planes() {
    // The report schedule with `replace` and 30 runs, so the run ends when they have.
    let path = temp("replace-report.json");
    let text = std::fs::read_to_string(root().join("examples/schedule-report.json")).unwrap();
    let text = text.replace(
        r#""overlap": "bufferOne""#,
        r#""overlap": "replace", "remainingRuns": 30"#,
    );
    std::fs::write(&path, text).unwrap();
    // The runner learns of the cancel from a heartbeat (every second), or, heartbeating
    // less often than it runs, from its report being refused.
    for beat in [
        &[][..],
        &["--lease-ms", "200000", "--heartbeat-ms", "150000"],
    ] {
        let args =
            |plane, output| six_hours(&[&path], plane, &[&["-o", output][..], beat].concat());
        for output in ["text", "json"] {
            let (memory, sqlite) = (run(&args("memory", output)), run(&args("sqlite", output)));
            assert_eq!(memory.code, 0, "{beat:?}: {}", memory.stderr);
            assert_eq!(memory.stdout, sqlite.stdout, "{beat:?}: the planes agree");
        }
        let json = run(&args("memory", "json")).json();
        assert_eq!(json["stopped"], "done", "{beat:?}: {json}");
        let report = &json["schedules"][0];
        assert_eq!(report["ticks"], 30, "{beat:?}: {report}");
        assert_eq!(report["started"], 30, "{beat:?}: every tick starts a task");
        assert_eq!(report["skipped"], 0, "{beat:?}: {report}");
        let replaced = report["replaced"].as_u64().unwrap();
        assert!(
            replaced > 10,
            "{beat:?}: ticks a minute apart, runs of 40 to 120 s"
        );
        // Each replaced task ended canceled, and only those: the runner reported most
        // (a task not yet claimed is canceled at once, without an attempt).
        assert_eq!(
            json["finalStates"]["canceled"], replaced,
            "{beat:?}: {json}"
        );
        let reported = json["outcomes"]["canceled"].as_u64().unwrap();
        assert!(reported > 0 && reported <= replaced, "{beat:?}: {json}");
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_job_rate_applies_to_its_job_alone() {
    let flow = |extra: &[&str]| {
        let mut args = vec![
            "simulate",
            "examples/flow-etl.json",
            "--runners",
            RUNNERS,
            "-o",
            "json",
        ];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.json()
    };
    // Every load attempt fails; every other job succeeds at once.
    let json = flow(&["--job-fail-rate", "load=1"]);
    let jobs = &json["flows"][0]["jobs"];
    assert_eq!(jobs["failed"], 1, "{json}");
    assert_eq!(
        json["outcomes"]["failed"],
        json["attempts"].as_u64().unwrap() - 4
    );
    // The overall rate fails everything but the job whose rate is 0.
    let json = flow(&["--fail-rate", "1", "--job-fail-rate", "extract=0"]);
    assert_eq!(json["flows"][0]["criticalPath"][0], "extract");
    assert_eq!(json["finalStates"]["succeeded"], 1, "{json}");
}

#[test]
fn the_store_stays_at_store_path_and_an_existing_file_is_refused() {
    let path = temp("kept.db");
    let _ = std::fs::remove_file(&path);
    let first = run_owned(&with(&["--store-path", &path]));
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        std::fs::metadata(&path).unwrap().len() > 0,
        "the store is kept"
    );
    let again = run_owned(&with(&["--store-path", &path]));
    assert_eq!(again.code, 2);
    assert!(again.stderr.contains("exists"), "{}", again.stderr);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
    let memory = run_owned(&with(&["--plane", "memory", "--store-path", &path]));
    assert_eq!(memory.code, 2);
    assert!(
        memory.stderr.contains("--plane sqlite"),
        "{}",
        memory.stderr
    );
}

#[test]
fn the_documented_examples_print_what_the_docs_show() {
    let docs = std::fs::read_to_string(root().join("docs/taskctl.md")).unwrap();
    let command = format!("$ taskctl {}", EXAMPLE.join(" "));
    assert!(
        docs.contains(&command),
        "docs/taskctl.md shows no `{command}`"
    );
    let mut checked = 0;
    let mut lines = docs.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(args) = line.strip_prefix("$ taskctl simulate ") else {
            continue;
        };
        let mut shown = Vec::new();
        while let Some(next) = lines.next_if(|l| !l.starts_with("```") && !l.starts_with("$ ")) {
            shown.push(next);
        }
        let mut argv = vec!["simulate"];
        argv.extend(args.split(' '));
        let out = run(&argv);
        assert_eq!(out.code, 0, "{line}: {}", out.stderr);
        if shown.contains(&"...") {
            // An excerpt: each line shown is printed.
            for part in shown.iter().filter(|l| **l != "...") {
                assert!(
                    out.stdout.lines().any(|l| l == *part),
                    "{line}: no {part:?} in\n{}",
                    out.stdout
                );
            }
        } else {
            let shown: String = shown.iter().map(|l| format!("{l}\n")).collect();
            assert_eq!(out.stdout, shown, "{line}");
        }
        checked += 1;
    }
    assert!(checked >= 3, "{checked} examples");
}

#[test]
fn a_violation_free_run_on_runners_that_never_match_ends_with_tasks_pending() {
    let out = run(&[
        "simulate",
        "examples/spec-wasm.json",
        "--runners",
        RUNNERS,
        "--crash",
        "edge-wasm-1@0",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json = out.json();
    assert_eq!(json["attempts"], 0);
    assert_eq!(json["finalStates"]["pending"], 1);
    assert!(json.get("makespanMs").is_none());
}

#[test]
fn bad_inputs_exit_1_and_bad_options_exit_2() {
    let invalid = run(&[
        "simulate",
        "examples/invalid-spec.json",
        "--runners",
        RUNNERS,
    ]);
    assert_eq!(invalid.code, 1);
    assert!(
        invalid
            .stdout
            .starts_with("examples/invalid-spec.json: slot: invalid slot"),
        "{}",
        invalid.stdout
    );
    let twice = run(&[
        "simulate",
        "examples/spec-batch.json",
        "examples/spec-batch.json",
        "--runners",
        RUNNERS,
    ]);
    assert_eq!(twice.code, 1);
    assert_eq!(
        twice.stdout,
        "examples/spec-batch.json: task render-frame is given twice\n"
    );
    // (arguments, what standard error says)
    let cases: &[(&[&str], &str)] = &[
        (
            &["--crash", "nobody@5"],
            r#"invalid value "nobody@5" for --crash: no runner "nobody" in the inventory"#,
        ),
        (
            &["--crash", "eu-ssd-1"],
            r#"invalid value "eu-ssd-1" for --crash: expected RUNNER@MS or RUNNER@MS..MS"#,
        ),
        (
            &["--crash", "eu-ssd-1@500..500"],
            r#"invalid value "eu-ssd-1@500..500" for --crash: the runner must come back after it crashed"#,
        ),
        (
            &["--crash", "eu-ssd-1@500..900", "--crash", "eu-ssd-1@800"],
            r#"invalid value "eu-ssd-1@800" for --crash: runner eu-ssd-1 is down then already"#,
        ),
        (
            &["--copies", "4", "--slots", "5"],
            "invalid value for --slots: must be 1 to --copies (4), got 5",
        ),
        (
            &["--job-fail-rate", "nobody=0.5"],
            r#"invalid value "nobody=0.5" for --job-fail-rate: no flow job, spec or manifest named "nobody" is given"#,
        ),
        (
            &["--job-timeout-rate", "render-frame=2"],
            r#"invalid value "render-frame=2" for --job-timeout-rate: "2" is not a rate between 0 and 1"#,
        ),
        (
            &["--job-fail-rate", "render-frame"],
            r#"invalid value "render-frame" for --job-fail-rate: expected NAME=RATE"#,
        ),
        (
            &[
                "--timeout-rate",
                "0.5",
                "--job-fail-rate",
                "render-frame=0.6",
            ],
            r#"invalid value "render-frame=0.6" for --job-fail-rate: the fail and timeout rates of render-frame add up to more than 1"#,
        ),
        (
            &["--crash", "eu-ssd-1@soon"],
            r#"invalid value "eu-ssd-1@soon" for --crash: "soon" is not a number of milliseconds"#,
        ),
        (
            &["--fail-rate", "1.5"],
            "invalid value for --fail-rate: must be between 0 and 1, got 1.5",
        ),
        (
            &["--timeout-rate=-0.1"],
            "invalid value for --timeout-rate: must be between 0 and 1, got -0.1",
        ),
        (
            &["--fail-rate", "0.6", "--timeout-rate", "0.5"],
            "invalid value for --fail-rate: with --timeout-rate it must be at most 1",
        ),
        (
            &["--lease-ms", "1000", "--heartbeat-ms", "1000"],
            "invalid value for --heartbeat-ms: must be below --lease-ms (1000), or every lease expires",
        ),
        (
            &["--attempt-ms", "0"],
            "invalid value for --attempt-ms: must be greater than zero",
        ),
        (
            &["--duration-ms", "31622400001"],
            "invalid value for --duration-ms: must be at most 31622400000",
        ),
    ];
    for (extra, message) in cases {
        let mut args = vec!["simulate", "examples/spec-batch.json", "--runners", RUNNERS];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert_eq!(out.code, 2, "{extra:?}");
        assert_eq!(out.stderr, format!("error: {message}\n"), "{extra:?}");
        assert_eq!(out.stdout, "", "{extra:?}");
    }
    for copies in ["0", "100001"] {
        let out = run(&[
            "simulate",
            "examples/spec-batch.json",
            "--runners",
            RUNNERS,
            "--copies",
            copies,
        ]);
        assert_eq!(out.code, 2, "{copies}");
        assert!(out.stderr.contains("--copies"), "{}", out.stderr);
    }
    // Eleven specs of 100,000 copies are refused before anything is read.
    let mut args = vec!["simulate"];
    args.extend(["examples/spec-batch.json"; 11]);
    args.extend(["--runners", RUNNERS, "--copies", "100000"]);
    let many = run(&args);
    assert_eq!(many.code, 2);
    assert_eq!(
        many.stderr,
        "error: invalid value for --copies: 11 specs times 100000 copies is more than 1000000 tasks\n"
    );
    let missing = run(&["simulate", "examples/nope.json", "--runners", RUNNERS]);
    assert_eq!(missing.code, 2);
    assert!(
        missing
            .stderr
            .starts_with("error: cannot read examples/nope.json"),
        "{}",
        missing.stderr
    );
}

#[test]
fn flows_run_their_jobs_in_order_and_report_the_critical_path() {
    let args = [
        "simulate",
        "examples/flow-etl.json",
        "--runners",
        RUNNERS,
        "--seed",
        "1",
        "--attempt-ms",
        "5000",
        "--copies",
        "2",
        "-o",
        "json",
    ];
    let out = run(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, run(&args).stdout, "the same bytes again");
    let json = out.json();
    // Two runs of a five-job flow, every job a task named FLOW-JOB.
    assert_eq!(json["tasks"], 10);
    assert_eq!(json["finalStates"]["succeeded"], 10);
    let makespan = json["makespanMs"].as_u64().unwrap();
    let flows = json["flows"].as_array().unwrap();
    let names: Vec<&str> = flows.iter().map(|f| f["flow"].as_str().unwrap()).collect();
    assert_eq!(names, ["nightly-etl-1", "nightly-etl-2"]);
    let mut ends = Vec::new();
    for flow in flows {
        assert_eq!(flow["status"], "finished");
        assert_eq!(flow["jobs"]["succeeded"], 5);
        let path: Vec<&str> = flow["criticalPath"]
            .as_array()
            .unwrap()
            .iter()
            .map(|job| job.as_str().unwrap())
            .collect();
        // notify waits for load and report, which wait for transform, which waits for extract.
        assert!(
            path == ["extract", "transform", "load", "notify"]
                || path == ["extract", "transform", "report", "notify"],
            "{path:?}"
        );
        ends.push(flow["criticalPathMs"].as_u64().unwrap());
    }
    assert_eq!(
        ends.iter().max(),
        Some(&makespan),
        "the last flow ends the run"
    );

    // Every attempt fails: extract is exhausted after its two retries, fail-fast skips
    // the jobs that want success, and notify (allDone) still runs, and fails.
    let failing = run(&[
        "simulate",
        "examples/flow-etl.json",
        "--runners",
        RUNNERS,
        "--fail-rate",
        "1",
        "-o",
        "json",
    ]);
    let json = failing.json();
    assert_eq!(json["tasks"], 2);
    assert_eq!(json["attempts"], 4);
    assert_eq!(json["finalStates"]["exhausted"], 1);
    assert_eq!(json["finalStates"]["failed"], 1);
    let flow = &json["flows"][0];
    assert_eq!(flow["status"], "error");
    assert_eq!(flow["jobs"]["failed"], 2);
    assert_eq!(flow["jobs"]["skipped"], 3);
}

#[test]
fn the_readme_main_job_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let prefix = "cargo run -p taskctl -- simulate ";
    let line = readme
        .lines()
        .find(|line| line.starts_with(prefix))
        .expect("the README runs taskctl simulate");
    let mut args = vec!["simulate"];
    args.extend(line[prefix.len()..].split(' '));
    // The first text block after the one that shows the check is the simulation's output.
    let blocks: Vec<&str> = readme.split("```text\n").skip(1).collect();
    let shown = blocks
        .iter()
        .map(|block| block.split("```").next().unwrap())
        .find(|block| block.starts_with("simulated "))
        .expect("the README shows the simulation's output");
    let out = run(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, *shown);
}
