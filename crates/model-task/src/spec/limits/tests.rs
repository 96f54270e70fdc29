//! Unit tests for `limits`: every collection a raw twin reads stops one entry past its limit,
//! with an error naming the field and the limit, before reading the rest.

use model_selector::{MAX_LABELS, MAX_REQUIREMENTS, MAX_VALUES};

use crate::spec::{MAX_ARGS, MAX_ENV_VARS, TaskEnv, TaskKind, TaskSpec};

/// A spec around `kind` with `extra` top-level fields.
fn spec(kind: &str, extra: &str) -> String {
    format!(r#"{{"slot":"s","kind":{kind},"timeoutMs":1{extra}}}"#)
}

fn list(n: usize, item: impl Fn(usize) -> String) -> String {
    let items: Vec<String> = (0..n).map(item).collect();
    format!("[{}]", items.join(","))
}

fn object(n: usize) -> String {
    let items: Vec<String> = (0..n).map(|i| format!(r#""k{i}":"v""#)).collect();
    format!("{{{}}}", items.join(","))
}

/// Makes a spec with `n` entries in one bounded field.
type MakeSpec = Box<dyn Fn(usize) -> String>;

/// Each bounded field of a spec: its name, its limit, and a spec with `n` entries in it.
fn cases() -> Vec<(&'static str, usize, MakeSpec)> {
    let arg = |_| r#""a""#.to_owned();
    let var = |i| format!(r#"{{"key":"K{i}","value":""}}"#);
    vec![
        (
            "args",
            MAX_ARGS,
            Box::new(move |n| {
                let mode = format!(
                    r#"{{"type":"command","command":"x","args":{}}}"#,
                    list(n, arg)
                );
                spec(&format!(r#"{{"type":"subprocess","mode":{mode}}}"#), "")
            }),
        ),
        (
            "args",
            MAX_ARGS,
            Box::new(move |n| {
                spec(
                    &format!(r#"{{"type":"wasm","module":"m","args":{}}}"#, list(n, arg)),
                    "",
                )
            }),
        ),
        (
            "args",
            MAX_ARGS,
            Box::new(move |n| {
                let body = r#""type":"script","interpreter":"bash","body":"eA==""#;
                let mode = format!(r#"{{{body},"args":{}}}"#, list(n, arg));
                spec(&format!(r#"{{"type":"subprocess","mode":{mode}}}"#), "")
            }),
        ),
        (
            "command",
            MAX_ARGS,
            Box::new(move |n| {
                spec(
                    &format!(
                        r#"{{"type":"container","image":"i","command":{}}}"#,
                        list(n, arg)
                    ),
                    "",
                )
            }),
        ),
        (
            "env",
            MAX_ENV_VARS,
            Box::new(move |n| {
                spec(
                    &format!(
                        r#"{{"type":"container","image":"i","env":{}}}"#,
                        list(n, var)
                    ),
                    "",
                )
            }),
        ),
        (
            "labels",
            MAX_LABELS,
            Box::new(|n| {
                spec(
                    r#"{"type":"embedded"}"#,
                    &format!(r#","labels":{}"#, object(n)),
                )
            }),
        ),
        (
            "matchLabels",
            MAX_REQUIREMENTS,
            Box::new(|n| {
                let selector = format!(r#"{{"matchLabels":{}}}"#, object(n));
                spec(
                    r#"{"type":"embedded"}"#,
                    &format!(r#","runnerSelector":{selector}"#),
                )
            }),
        ),
        (
            "matchExpressions",
            MAX_REQUIREMENTS,
            Box::new(|n| {
                let req = |i| format!(r#"{{"key":"k{i}","operator":"Exists"}}"#);
                let selector = format!(r#"{{"matchExpressions":{}}}"#, list(n, req));
                spec(
                    r#"{"type":"embedded"}"#,
                    &format!(r#","runnerSelector":{selector}"#),
                )
            }),
        ),
        (
            "values",
            MAX_VALUES,
            Box::new(|n| {
                let values = list(n, |i| format!(r#""v{i}""#));
                let req = format!(r#"{{"key":"k","operator":"In","values":{values}}}"#);
                let selector = format!(r#"{{"matchExpressions":[{req}]}}"#);
                spec(
                    r#"{"type":"embedded"}"#,
                    &format!(r#","runnerSelector":{selector}"#),
                )
            }),
        ),
    ]
}

#[test]
fn every_bounded_field_takes_its_limit_and_stops_one_past_it() {
    for (field, max, make) in cases() {
        let at_limit = make(max);
        if let Err(e) = serde_json::from_str::<TaskSpec>(&at_limit) {
            panic!("{field} with {max} entries: {e}");
        }
        let err = serde_json::from_str::<TaskSpec>(&make(max + 1))
            .unwrap_err()
            .to_string();
        let want = format!("invalid {field}: more than {max} entries");
        assert!(
            err.starts_with(&want),
            "{field}: got {err:?}, want {want:?}"
        );
    }
}

/// Ten million entries: reading stops at the limit, so the error is the early one (it could
/// not count the entries without reading them all).
#[test]
fn a_huge_list_is_rejected_at_the_limit() {
    let huge = 10_000_000;
    let args = format!("[{}\"\"]", "\"\",".repeat(huge - 1));
    let json = format!(r#"{{"type":"wasm","module":"m","args":{args}}}"#);
    let err = serde_json::from_str::<TaskKind>(&json).unwrap_err();
    // The parser stopped right after entry MAX_ARGS + 1 (three bytes each), not at the end.
    let prefix = r#"{"type":"wasm","module":"m","args":["#.len();
    assert!(err.column() <= prefix + 3 * (MAX_ARGS + 2), "{err}");
    assert!(
        err.to_string()
            .starts_with(&format!("invalid args: more than {MAX_ARGS} entries")),
        "{err}"
    );
    let env = format!("[{}]", vec![r#"{"key":"K","value":""}"#; huge].join(","));
    let err = serde_json::from_str::<TaskEnv>(&env).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("invalid env: more than {MAX_ENV_VARS} entries")),
        "{err}"
    );
}
