//! JSON in and out of the identifier types, through serde_json and the public API only.

use std::collections::BTreeMap;

use model_ids::{AgentId, RunnerId, Slot, TaskId};
use serde::de::DeserializeOwned;

/// Parses `json` as `T` and returns the string it holds, or the error message.
fn parse<T: DeserializeOwned + ToString>(json: &str) -> Result<String, String> {
    serde_json::from_str::<T>(json)
        .map(|v| v.to_string())
        .map_err(|e| e.to_string())
}

#[test]
fn slot_from_json() {
    assert_eq!(parse::<Slot>(r#""abc""#), Ok("abc".to_owned()));
    assert_eq!(parse::<Slot>(r#""a\u002db""#), Ok("a-b".to_owned()));
    let table = [
        (
            r#""a b""#,
            r#"invalid slot "a b": invalid character ' ' at byte 1 (allowed: A-Z a-z 0-9 . _ -) at line 1 column 5"#,
        ),
        (r#""""#, r#"invalid slot "": empty at line 1 column 2"#),
        (
            r#"".""#,
            r#"invalid slot ".": reserved name ("." and ".." are not allowed) at line 1 column 3"#,
        ),
        (
            "42",
            "invalid type: integer `42`, expected slot: a string of A-Z a-z 0-9 . _ -, 1 to 64 bytes at line 1 column 2",
        ),
        (
            "null",
            "invalid type: null, expected slot: a string of A-Z a-z 0-9 . _ -, 1 to 64 bytes at line 1 column 4",
        ),
        (
            "true",
            "invalid type: boolean `true`, expected slot: a string of A-Z a-z 0-9 . _ -, 1 to 64 bytes at line 1 column 4",
        ),
        (
            r#"["a"]"#,
            "invalid type: sequence, expected slot: a string of A-Z a-z 0-9 . _ -, 1 to 64 bytes at line 1 column 0",
        ),
    ];
    for (json, want) in table {
        assert_eq!(parse::<Slot>(json), Err(want.to_owned()), "{json}");
    }
}

#[test]
fn every_kind_names_itself_in_json_errors() {
    type Parse = fn(&str) -> Result<String, String>;
    let table: [(&str, Parse); 4] = [
        ("task id", parse::<TaskId>),
        ("slot", parse::<Slot>),
        ("agent id", parse::<AgentId>),
        ("runner id", parse::<RunnerId>),
    ];
    for (kind, parse) in table {
        assert_eq!(parse(r#""abc""#), Ok("abc".to_owned()), "{kind}");
        for json in [r#""a b""#, "42", "null", r#""..""#, r#""a/b""#] {
            let err = parse(json).expect_err(json);
            assert!(err.contains(kind), "{kind}: {json} gave {err}");
        }
    }
}

#[test]
fn serializes_as_a_plain_string() {
    let id = TaskId::new("t-1").unwrap();
    assert_eq!(serde_json::to_string(&id).unwrap(), r#""t-1""#);
    assert_eq!(serde_json::to_value(&id).unwrap(), serde_json::json!("t-1"));
}

#[test]
fn map_keys_validate_too() {
    let map: BTreeMap<Slot, u32> = serde_json::from_str(r#"{"a": 1, "b.c": 2}"#).unwrap();
    assert_eq!(map.get("b.c"), Some(&2));
    assert_eq!(serde_json::to_string(&map).unwrap(), r#"{"a":1,"b.c":2}"#);
    let err = serde_json::from_str::<BTreeMap<Slot, u32>>(r#"{"a b": 1}"#).unwrap_err();
    assert!(
        err.to_string().starts_with(r#"invalid slot "a b""#),
        "{err}"
    );
}

#[test]
fn from_json_value() {
    assert_eq!(
        serde_json::from_value::<RunnerId>(serde_json::json!("r1")).unwrap(),
        "r1"
    );
    let err = serde_json::from_value::<RunnerId>(serde_json::json!(7)).unwrap_err();
    assert!(err.to_string().contains("expected runner id"), "{err}");
}
