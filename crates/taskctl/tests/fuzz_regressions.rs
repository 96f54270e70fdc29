//! Inputs the fuzz targets found, kept as tests (docs/limits.md, "Fuzzing").

mod common;

use common::taskctl;

/// JSON that `serde_json::Value` cannot hold, a number past `f64`'s range or nesting past
/// serde_json's recursion limit, is one problem at its position, with or without `--type`
/// (found by the `taskctl_check` fuzz target, whose oracle had taken the first for a
/// readable document).
#[test]
fn json_no_value_can_hold_is_one_problem_at_its_position() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    for (text, problem) in [
        ("2e2200000000000", "<stdin>:1:12: number out of range"),
        ("[1, -1e400]", "<stdin>:1:10: number out of range"),
        (deep.as_str(), "<stdin>:1:128: recursion limit exceeded"),
    ] {
        for args in [
            &["check", "-"][..],
            &["check", "--type", "OutputEvent", "-"],
        ] {
            let out = taskctl(args, text);
            assert_eq!(out.code, 1, "{args:?}: {}{}", out.stdout, out.stderr);
            assert_eq!(
                out.stdout,
                format!("{problem}\n<stdin>: invalid JSON document (1 problem)\n"),
                "{args:?}"
            );
        }
    }
}
