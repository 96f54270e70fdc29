//! `taskctl selector`: canonical form, JSON form, match explanation, and syntax errors.

mod common;

use common::run;
use taskmodel::selector::LabelSelector;

#[test]
fn text_output_gives_both_forms_and_each_failed_requirement() {
    let out = run(&[
        "selector",
        "zone=eu, gpu in (h100,a100), !draining",
        "--labels",
        "zone=us,draining=yes",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "canonical: !draining,gpu in (a100,h100),zone=eu");
    let json = lines[1].strip_prefix("json:").unwrap().trim();
    let from_json: LabelSelector = serde_json::from_str(json).unwrap();
    let from_text: LabelSelector = "zone=eu,gpu in (a100,h100),!draining".parse().unwrap();
    assert_eq!(from_json, from_text);
    assert_eq!(lines[2], "labels:    draining=yes,zone=us (does not match)");
    assert_eq!(lines.len(), 6, "three failures:\n{}", out.stdout);
    assert!(lines[4].ends_with("key missing"), "{}", lines[4]);
}

#[test]
fn json_output_says_whether_the_labels_match() {
    let out = run(&[
        "selector",
        "tier notin (spot),ssd",
        "--labels",
        "ssd=true,tier=prod",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 0);
    let json = out.json();
    assert_eq!(json["valid"], true);
    assert_eq!(json["canonical"], "ssd,tier!=spot");
    assert_eq!(json["match"]["matches"], true);
    assert_eq!(json["match"]["failures"].as_array().unwrap().len(), 0);
    assert_eq!(json["selector"]["matchExpressions"][1]["operator"], "NotIn");
}

#[test]
fn a_syntax_error_points_at_its_position_and_exits_one() {
    let out = run(&["selector", "zone in (eu"]);
    assert_eq!(out.code, 1);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[0].starts_with("invalid selector: "), "{}", lines[0]);
    assert_eq!(lines[1], "  zone in (eu");
    assert_eq!(lines[2], format!("  {}^", " ".repeat(11)));
    let json = run(&["selector", "zone in (eu", "-o", "json"]).json();
    assert_eq!(json["valid"], false);
    assert_eq!(json["error"]["position"], 11);
}

#[test]
fn invalid_labels_exit_one() {
    let out = run(&["selector", "a=b", "--labels", "-x=1"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.starts_with("invalid labels: "), "{}", out.stdout);
}
