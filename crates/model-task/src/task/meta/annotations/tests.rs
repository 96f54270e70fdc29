//! Unit tests for `Annotations`: the key rule, the count and size bounds at their exact
//! boundaries, duplicates, and the wire form.

use super::*;

#[track_caller]
fn check(pairs: Vec<(String, String)>, want: Result<usize, (&str, &str)>) {
    match (Annotations::from_pairs(pairs), want) {
        (Ok(notes), Ok(len)) => {
            assert_eq!(notes.len(), len);
            let json = serde_json::to_string(&notes).unwrap();
            assert_eq!(serde_json::from_str::<Annotations>(&json).unwrap(), notes);
        }
        (Err(err), Err((path, message))) => {
            assert_eq!(err.path(), Some(path), "{err}");
            assert!(err.message().contains(message), "{err}");
        }
        (got, want) => panic!("got {got:?}, want {want:?}"),
    }
}

fn pair(key: &str, value: &str) -> (String, String) {
    (key.to_owned(), value.to_owned())
}

#[test]
fn keys_follow_the_label_key_rule_and_values_are_any_text() {
    check(vec![], Ok(0));
    check(vec![pair("note", "")], Ok(1));
    check(
        vec![pair(
            "example.com/runbook",
            "see https://example.com/{id} — \"quoted\"\n",
        )],
        Ok(1),
    );
    check(vec![pair(&"k".repeat(63), "v")], Ok(1));
    check(
        vec![pair(&"k".repeat(64), "v")],
        Err((
            &format!("[{:?}]", "k".repeat(64)),
            "not a qualified name: a name must be at most 63 bytes",
        )),
    );
    check(
        vec![pair("bad key", "v")],
        Err((r#"["bad key"]"#, "not a qualified name")),
    );
    check(
        vec![pair("Example.com/x", "v")],
        Err((r#"["Example.com/x"]"#, "DNS-1123")),
    );
    check(
        vec![pair("a", "1"), pair("a", "2")],
        Err((r#"["a"]"#, "the key is given twice")),
    );
}

#[test]
fn count_and_size_bounds_hold_at_their_edges() {
    let many = |n: usize| {
        (0..n)
            .map(|i| pair(&format!("k{i}"), ""))
            .collect::<Vec<_>>()
    };
    check(many(MAX_ANNOTATIONS), Ok(MAX_ANNOTATIONS));
    check(
        many(MAX_ANNOTATIONS + 1),
        Err(("", "65 entries, at most 64 allowed")),
    );
    // Keys and values together: "k" plus the value.
    let fits = "v".repeat(MAX_ANNOTATIONS_BYTES - 1);
    check(vec![pair("k", &fits)], Ok(1));
    let over = "v".repeat(MAX_ANNOTATIONS_BYTES);
    check(
        vec![pair("k", &over)],
        Err(("", "262145 bytes long, at most 262144 allowed")),
    );
}

#[test]
fn the_wire_reads_through_the_bound() {
    let json = format!(
        "{{{}}}",
        (0..=MAX_ANNOTATIONS)
            .map(|i| format!("\"k{i}\": \"\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let err = serde_json::from_str::<Annotations>(&json).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("invalid annotations: more than 64 entries"),
        "{err}"
    );
    let notes: Annotations = serde_json::from_str(r#"{"b": "2", "a": "1"}"#).unwrap();
    assert_eq!(notes.iter().collect::<Vec<_>>(), [("a", "1"), ("b", "2")]);
    assert_eq!(
        serde_json::to_string(&notes).unwrap(),
        r#"{"a":"1","b":"2"}"#
    );
    assert!(serde_json::from_str::<Annotations>(r#"{"a": 1}"#).is_err());
}
