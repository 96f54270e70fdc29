//! Unit tests for `Parsed`: rule errors come back typed with paths relative to the value,
//! shape errors fail the deserializer, valid values equal the plain parse.

use super::*;

/// Parses `json` as `Parsed<T>`: `Ok(Ok(_))` valid, `Ok(Err((path, message)))` a broken
/// rule, `Err(text)` a shape error.
fn parse<T>(json: &str) -> Result<Result<T, (String, String)>, String>
where
    Parsed<T>: for<'de> Deserialize<'de>,
{
    let parsed: Parsed<T> = serde_json::from_str(json).map_err(|e| e.to_string())?;
    Ok(parsed
        .into_result()
        .map_err(|e| (e.path().unwrap_or_default().to_owned(), e.message())))
}

#[track_caller]
fn rule<T: std::fmt::Debug>(
    got: Result<Result<T, (String, String)>, String>,
    path: &str,
    message: &str,
) {
    match got {
        Ok(Err((p, m))) => assert_eq!((p.as_str(), m.as_str()), (path, message)),
        other => panic!("want {path}: {message}, got {other:?}"),
    }
}

const KIND: &str = r#"{"type":"wasm","module":"m"}"#;

#[test]
fn rule_errors_are_typed_with_relative_paths() {
    rule(
        parse::<TaskKind>(r#"{"type":"wasm","module":""}"#),
        "module",
        "must not be empty",
    );
    rule(
        parse::<TaskSpec>(&format!(r#"{{"slot":"s","kind":{KIND},"timeoutMs":0}}"#)),
        "timeoutMs",
        "must be greater than zero",
    );
    rule(parse::<Timeout>("0"), "", "must be greater than zero");
    rule(
        parse::<TaskEnv>(r#"[{"key":"A","value":""},{"key":"A","value":""}]"#),
        "[1].key",
        r#""A": duplicate key, first used by entry 0"#,
    );
    rule(
        parse::<RunnerEnv>(r#"[{"key":"A=","value":""}]"#),
        "[0].key",
        r#""A=": holds '=' at index 1"#,
    );
    rule(
        parse::<BackoffPolicy>(r#"{"firstMs":10,"maxMs":5}"#),
        "maxMs",
        "must be at least firstMs (10), got 5",
    );
    rule(
        parse::<LabelSelector>(
            r#"{"matchExpressions":[{"key":"a","operator":"Gt","values":["x"]}]}"#,
        ),
        "matchExpressions[0].values[0]",
        r#"operator Gt needs an integer value, got "x""#,
    );
    rule(
        parse::<Labels>(r#"{"a":"b c"}"#),
        r#"["a"]"#,
        r#"invalid label value "b c": a name may contain only ASCII letters, digits, '-', '_' and '.'"#,
    );
    rule(
        parse::<ObjectMeta>(
            r#"{"name":"t","uid":"00000000-0000-0000-0000-000000000001","tenant":"a","resourceVersion":0,"generation":1,"createdAt":"2025-01-01T00:00:00Z","updatedAt":"2025-01-01T00:00:00Z"}"#,
        ),
        "resourceVersion",
        "must be greater than zero",
    );
    rule(
        parse::<TaskStatus>(&format!(
            r#"{{"phase":"running","attempt":0,"conditions":{CONDITIONS}}}"#
        )),
        "attempt",
        "running needs attempt >= 1",
    );
}

/// Conditions of a running task.
const CONDITIONS: &str = r#"[{"type":"Scheduled","status":"True","reason":"R","lastTransitionTime":"2025-01-01T00:00:00Z"},{"type":"Running","status":"True","reason":"R","lastTransitionTime":"2025-01-01T00:00:00Z"},{"type":"Succeeded","status":"Unknown","reason":"R","lastTransitionTime":"2025-01-01T00:00:00Z"}]"#;

#[test]
fn shape_errors_fail_the_deserializer_and_valid_values_match_the_plain_parse() {
    assert!(
        parse::<TaskKind>(r#"{"type":"wasm","module":"m","x":1}"#)
            .unwrap_err()
            .contains("unknown field `x`")
    );
    assert!(parse::<Timeout>(r#""1""#).is_err());
    let json = format!(r#"{{"slot":"s","kind":{KIND},"timeoutMs":5,"labels":{{"a":"b"}}}}"#);
    let plain: TaskSpec = serde_json::from_str(&json).unwrap();
    assert_eq!(parse::<TaskSpec>(&json).unwrap().unwrap(), plain);
    let parsed: Parsed<Timeout> = serde_json::from_str("5").unwrap();
    assert_eq!(parsed.as_result().ok().map(|t| t.as_millis()), Some(5));
}
