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

fn paths(value: Value) -> Vec<String> {
    parse_all::<Doc>(&value)
        .unwrap_err()
        .into_iter()
        .map(|p| p.path)
        .collect()
}

#[test]
fn valid_document_parses() {
    let doc = parse_all::<Doc>(&json!({"name": "a", "count": 1})).unwrap();
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
    let problems = parse_all::<Doc>(&json!({"name": "a b", "count": 1})).unwrap_err();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].message.starts_with("invalid slot"),
        "{}",
        problems[0].message
    );
}

#[test]
fn unknown_fields_are_reported_at_their_key_and_missing_ones_at_the_root() {
    let problems = parse_all::<Doc>(&json!({"nmae": "a", "count": 1})).unwrap_err();
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
    let problems = parse_all::<Doc>(&json!([1, 2])).unwrap_err();
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
