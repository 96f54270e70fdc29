use super::*;
use serde::Deserialize;
use serde_json::json;
use taskmodel::BackoffPolicy;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code, reason = "the fields are only parsed")]
struct Doc {
    name: taskmodel::Slot,
    count: u32,
    #[serde(default)]
    backoff: BackoffPolicy,
    #[serde(default)]
    tags: Vec<taskmodel::Slot>,
}

plain_wire!(Doc);

/// [`parse_all`] of `value` written as text.
fn all(value: &serde_json::Value) -> Result<Doc, Vec<Problem>> {
    let text = value.to_string();
    parse_all::<Doc>(parse_json(&text).unwrap())
}

fn paths(value: serde_json::Value) -> Vec<String> {
    all(&value)
        .unwrap_err()
        .into_iter()
        .map(|p| p.path)
        .collect()
}

#[test]
fn valid_document_parses() {
    let doc = all(&json!({"name": "a", "count": 1})).unwrap();
    assert_eq!(doc.name, "a");
}

#[test]
fn every_bad_field_is_reported_in_key_order() {
    let value =
        json!({"name": "a b", "count": -1, "backoff": {"firstMs": 0}, "tags": ["ok", "x y"]});
    assert_eq!(paths(value), ["backoff", "count", "name", "tags[1]"]);
}

#[test]
fn a_removed_required_field_is_not_also_missing() {
    let problems = all(&json!({"name": "a b", "count": 1})).unwrap_err();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].message.starts_with("invalid slot"),
        "{}",
        problems[0].message
    );
}

#[test]
fn unknown_fields_are_reported_at_their_key_and_missing_ones_at_the_root() {
    let problems = all(&json!({"nmae": "a", "count": 1})).unwrap_err();
    let messages: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
    assert_eq!(problems[0].path, "nmae");
    assert_eq!(problems[1].path, "");
    assert!(
        messages[0].starts_with("unknown field `nmae`"),
        "{messages:?}"
    );
    assert_eq!(messages[1], "missing field `name`");
    assert_eq!(problems.len(), 2);
}

#[test]
fn a_document_that_is_not_an_object_is_one_problem() {
    let problems = all(&json!([1, 2])).unwrap_err();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].path, "[0]"); // serde reads a sequence as the fields in order
}

#[test]
fn syntax_errors_carry_line_and_column() {
    let problem = parse_json("{\n  \"a\": 1,\n  \"b\" 2\n}").unwrap_err();
    assert_eq!((problem.line, problem.column), (Some(3), Some(7)));
    assert_eq!(problem.message, "expected `:`");
}

#[test]
fn join_paths() {
    let check = |prefix: &str, path: &str, expected: &str| assert_eq!(join(prefix, path), expected);
    check("", "", "");
    check("spec", "", "spec");
    check("", "kind", "kind");
    check("spec", "kind.image", "spec.kind.image");
    check("args", "[1]", "args[1]");
}

/// An object of `n` fields: a bad `name`, then unknown fields `u000`, `u001`, ...
fn wide(n: usize) -> String {
    let unknown = (1..n).map(|i| format!(",\"u{i:03}\":0"));
    format!("{{\"name\":\"a b\"{}}}", unknown.collect::<String>())
}

#[test]
fn objects_up_to_max_fields_are_diagnosed_field_by_field_for_max_rounds_and_wider_ones_whole() {
    let check = |n: usize, problems: usize| {
        let text = wide(n);
        let found = parse_all::<Doc>(parse_json(&text).unwrap()).unwrap_err();
        assert_eq!(found.len(), problems, "{n} fields: {found:?}");
    };
    check(3, 3); // name, u001, u002 (and count, missing, is not reached)
    check(MAX_ROUNDS, MAX_ROUNDS);
    check(MAX_ROUNDS + 1, MAX_ROUNDS); // one problem per round
    check(MAX_FIELDS, MAX_ROUNDS);
    check(MAX_FIELDS + 1, 1);
}

#[test]
fn the_last_of_two_equal_keys_is_kept_as_in_a_json_object() {
    let text = r#"{"name": "a b", "count": 1, "name": "a"}"#;
    let doc = parse_all::<Doc>(parse_json(text).unwrap()).unwrap();
    assert_eq!(doc.name, "a");
}

#[test]
fn has_any_field_reads_only_the_top_level_keys() {
    let check = |text: &str, found: bool| {
        let value = parse_json(text).unwrap();
        assert_eq!(has_any_field(value, &["spec", "status"]), found, "{text}");
    };
    check(r#"{"spec": 1}"#, true);
    check(r#"{"a": {"b": []}, "status": null}"#, true);
    check(r#"{"\u0073pec": 1}"#, true);
    check(r#"{"a": {"spec": 1}}"#, false);
    check(r#"{"specs": 1}"#, false);
    check(r#"[{"spec": 1}]"#, false);
    check(r#""spec""#, false);
    check("  {\"spec\": 1}", true);
}

#[test]
fn syntax_is_checked_as_a_json_value_reads_it() {
    let nested = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
    assert!(parse_json(&nested(127)).is_ok());
    let deep = parse_json(&nested(128)).unwrap_err();
    assert_eq!(deep.message, "recursion limit exceeded");
    let check = |text: &str, message: &str, column: usize| {
        let problem = parse_json(text).unwrap_err();
        assert_eq!(problem.message, message, "{text}");
        assert_eq!(
            (problem.line, problem.column),
            (Some(1), Some(column)),
            "{text}"
        );
    };
    check("[1,", "EOF while parsing a value", 3);
    check(r#"{"a": 1,}"#, "trailing comma", 9);
    check("[1e400]", "number out of range", 6);
    check("[1] [2]", "trailing characters", 5);
}
