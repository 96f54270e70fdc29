//! `taskctl schedule next` and `taskctl check` on schedules: fire times in UTC and local time
//! across daylight-saving changes, the errors of a bad expression or zone, and exit codes.

mod common;

use common::{run, taskctl};

#[test]
fn next_times_of_the_example_schedule_cross_the_spring_change() {
    let out = run(&[
        "schedule",
        "next",
        "examples/schedule-nightly.json",
        "--from",
        "2026-03-27T12:00:00Z",
        "--count",
        "3",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "2026-03-28T01:00:00Z  2026-03-28T02:00:00+01:00\n\
         2026-03-29T01:00:00Z  2026-03-29T03:00:00+02:00\n\
         2026-03-30T00:00:00Z  2026-03-30T02:00:00+02:00\n"
    );
}

#[test]
fn next_times_of_a_cron_expression_in_a_zone() {
    // A wildcard expression fires on both passes of the repeated hour.
    let out = run(&[
        "schedule",
        "next",
        "--cron",
        "*/30 * * * *",
        "--time-zone",
        "Europe/Berlin",
        "--from",
        "2026-10-25T00:45:00Z",
        "--count",
        "2",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "2026-10-25T01:00:00Z  2026-10-25T02:00:00+01:00\n\
         2026-10-25T01:30:00Z  2026-10-25T02:30:00+01:00\n"
    );
    let out = run(&[
        "-o",
        "json",
        "schedule",
        "next",
        "--cron",
        "0 9 * * 1-5",
        "--from",
        "2026-11-20T10:00:00Z",
        "--count",
        "1",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json = out.json();
    assert_eq!(json["valid"], true);
    assert_eq!(json["timeZone"], "UTC");
    assert_eq!(json["times"][0]["utc"], "2026-11-23T09:00:00Z");
}

#[test]
fn stdin_and_a_schedule_that_never_fires() {
    let doc = r#"{"name": "never", "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m"}, "timeoutMs": 1},
                  "trigger": {"cron": "0 0 30 2 *"}}"#;
    let out = taskctl(
        &["schedule", "next", "-", "--from", "2026-01-01T00:00:00Z"],
        doc,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "no fire time after 2026-01-01T00:00:00Z\n");
}

#[test]
fn invalid_input_names_the_flag_or_the_field() {
    let table: [(&[&str], &str, i32); 4] = [
        (
            &["--cron", "0 0 32 * *"],
            "--cron: day-of-month \"32\" is out of range 1-31\n",
            1,
        ),
        (
            &["--cron", "0 2 * * *", "--time-zone", "Europe/Berln"],
            "--time-zone: unknown time zone \"Europe/Berln\" (expected an IANA name such as \"Europe/Berlin\" or \"UTC\")\n",
            1,
        ),
        (&["--cron", "0 2 * * *", "--from", "yesterday"], "", 2),
        (&["--cron", "0 2 * * *", "--count", "1001"], "", 2),
    ];
    for (args, stdout, code) in table {
        let mut all = vec!["schedule", "next"];
        all.extend_from_slice(args);
        let out = run(&all);
        assert_eq!(out.code, code, "{args:?}: {}{}", out.stdout, out.stderr);
        assert_eq!(out.stdout, stdout, "{args:?}");
    }
    let doc = r#"{"name": "x", "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m"}, "timeoutMs": 1},
                  "trigger": {"cron": "0 0 * * *", "timeZone": "Nowhere"}}"#;
    let out = taskctl(&["schedule", "next", "-"], doc);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .starts_with("<stdin>: trigger.timeZone: unknown time zone \"Nowhere\""),
        "{}",
        out.stdout
    );
    let out = taskctl(&["schedule", "next", "-"], "{\"name\": ");
    assert_eq!(out.code, 1);
    assert!(out.stdout.starts_with("<stdin>:1:"), "{}", out.stdout);
    // A schedule file and --cron together is a usage error.
    let out = run(&[
        "schedule",
        "next",
        "examples/schedule-nightly.json",
        "--cron",
        "* * * * *",
    ]);
    assert_eq!(out.code, 2);
}

#[test]
fn check_reads_schedules() {
    let out = run(&["check", "examples/schedule-nightly.json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "examples/schedule-nightly.json: valid schedule\n"
    );
    let doc = r#"{"name": "x", "spec": {"slot": "a b", "kind": {"type": "embedded"}, "timeoutMs": 0},
                  "trigger": {"cron": "0 0 * * *"}}"#;
    let out = taskctl(&["check", "-"], doc);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("<stdin>: spec.slot: invalid slot \"a b\""),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("<stdin>: spec.timeoutMs: must be greater than zero"),
        "{}",
        out.stdout
    );
    let doc = r#"{"name": "x", "spec": {"slot": "s", "kind": {"type": "wasm", "module": "m"}, "timeoutMs": 1},
                  "trigger": {"cron": "0 0 * * 8"}, "jitterMs": 5}"#;
    let out = taskctl(&["check", "-"], doc);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout,
        "<stdin>: trigger.cron: day-of-week \"8\" is out of range 0-7\n<stdin>: invalid schedule (1 problem)\n"
    );
}
