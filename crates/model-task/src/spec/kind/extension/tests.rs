//! Unit tests for `extension`: name rules at their exact bounds, the spec's bounds while
//! reading and on a built value, and the two agreeing.

use super::*;

fn reason(result: Result<ExtensionKind, TaskError>) -> Option<(String, InvalidReason)> {
    match result {
        Ok(_) => None,
        Err(TaskError::Invalid { path, reason, .. }) => Some((path, reason)),
        Err(other) => panic!("unexpected error {other:?}"),
    }
}

#[test]
fn api_version_rules() {
    let format = Some((
        "apiVersion".to_owned(),
        InvalidReason::Format {
            expected: API_VERSION_EXPECTED,
        },
    ));
    let long_group = format!("{}.io", "a".repeat(60));
    let cases: &[(&str, bool)] = &[
        ("images.example.com/v1", true),
        ("a.b/v1alpha1", true),
        ("x-1.example.com/v2beta3", true),
        ("0.example.com/v1", true),
        ("example/v1", false),            // the group needs a dot
        ("Images.example.com/v1", false), // lowercase only
        ("images.example.com/1v", false), // the version starts with a letter
        ("images.example.com/v1/", false),
        ("images..com/v1", false),
        ("-images.com/v1", false),
        ("images-.com/v1", false),
        ("images.com/v-", false),
        ("images.com/", false),
        ("/v1", false),
        ("v1", false),
        ("", false),
        ("images.example.com/v1/extra", false),
        ("images_x.com/v1", false),
    ];
    for (api_version, ok) in cases {
        let got = reason(ExtensionKind::new(api_version, "Resize"));
        if *ok {
            assert_eq!(got, None, "{api_version:?}");
        } else {
            assert_eq!(got, format, "{api_version:?}");
        }
    }
    // Labels of 63 bytes are allowed, 64 are not; a version of 63 bytes too.
    let label63 = "a".repeat(63);
    assert!(ExtensionKind::new(&format!("{label63}.io/v1"), "K").is_ok());
    assert_eq!(
        reason(ExtensionKind::new(&format!("{label63}a.io/v1"), "K")),
        format
    );
    let version63 = format!("v{}", "1".repeat(62));
    assert!(ExtensionKind::new(&format!("a.io/{version63}"), "K").is_ok());
    assert_eq!(
        reason(ExtensionKind::new(&format!("a.io/{version63}1"), "K")),
        format
    );
    assert!(ExtensionKind::new(&format!("{long_group}/v1"), "K").is_ok());
}

#[test]
fn api_version_length_is_checked_first() {
    // The longest apiVersion the rules allow is exactly the bound.
    let label = "a".repeat(63);
    let group = [label.as_str(); 4].join(".");
    let group = group.get(..253).unwrap().trim_end_matches('.').to_owned();
    let longest = format!("{group}/v{}", "1".repeat(62));
    assert!(longest.len() <= MAX_API_VERSION_BYTES);
    assert!(
        ExtensionKind::new(&longest, "K").is_ok(),
        "{}",
        longest.len()
    );
    let too_long = "a".repeat(MAX_API_VERSION_BYTES + 1);
    assert_eq!(
        reason(ExtensionKind::new(&too_long, "K")),
        Some((
            "apiVersion".to_owned(),
            InvalidReason::TooLong {
                len: MAX_API_VERSION_BYTES + 1,
                max: MAX_API_VERSION_BYTES
            }
        ))
    );
}

#[test]
fn kind_rules() {
    let format = Some((
        "kind".to_owned(),
        InvalidReason::Format {
            expected: KIND_EXPECTED,
        },
    ));
    for (kind, ok) in [
        ("Resize", true),
        ("R", true),
        ("resize-v2", true),
        ("ImageResize2", true),
        ("", false),
        ("2Resize", false),
        ("-Resize", false),
        ("Resize-", false),
        ("Re size", false),
        ("Re_size", false),
        ("Résumé", false),
        ("Re/size", false),
    ] {
        let got = reason(ExtensionKind::new("images.example.com/v1", kind));
        if ok {
            assert_eq!(got, None, "{kind:?}");
        } else {
            assert_eq!(got, format, "{kind:?}");
        }
    }
    let at_limit = "K".repeat(MAX_EXTENSION_KIND_BYTES);
    assert!(ExtensionKind::new("a.io/v1", &at_limit).is_ok());
    assert_eq!(
        reason(ExtensionKind::new("a.io/v1", &format!("{at_limit}K"))),
        Some((
            "kind".to_owned(),
            InvalidReason::TooLong {
                len: MAX_EXTENSION_KIND_BYTES + 1,
                max: MAX_EXTENSION_KIND_BYTES
            }
        ))
    );
}

#[test]
fn parts_text_and_order() {
    let kind = ExtensionKind::new("images.example.com/v1beta1", "Resize").unwrap();
    assert_eq!(
        (
            kind.group(),
            kind.version(),
            kind.api_version(),
            kind.kind()
        ),
        (
            "images.example.com",
            "v1beta1",
            "images.example.com/v1beta1",
            "Resize"
        )
    );
    assert_eq!(kind.to_string(), "images.example.com/v1beta1/Resize");
    assert_eq!(kind.to_string().parse::<ExtensionKind>().unwrap(), kind);
    assert!("Resize".parse::<ExtensionKind>().is_err());
    // Built twice, the names are equal and hash alike; case matters.
    let again = ExtensionKind::new("images.example.com/v1beta1", "Resize").unwrap();
    assert_eq!(kind, again);
    assert_eq!(kind.hash64(), again.hash64());
    assert_ne!(
        kind,
        ExtensionKind::new("images.example.com/v1beta1", "resize").unwrap()
    );
    // Order: apiVersion, then kind.
    let a = ExtensionKind::new("a.io/v1", "Z").unwrap();
    let b = ExtensionKind::new("a.io/v2", "A").unwrap();
    let c = ExtensionKind::new("a.io/v2", "B").unwrap();
    assert!(a < b && b < c);
}

#[test]
fn wire_form_is_an_object() {
    let kind = ExtensionKind::new("images.example.com/v1", "Resize").unwrap();
    let json = serde_json::to_string(&kind).unwrap();
    assert_eq!(
        json,
        r#"{"apiVersion":"images.example.com/v1","kind":"Resize"}"#
    );
    assert_eq!(serde_json::from_str::<ExtensionKind>(&json).unwrap(), kind);
    let err = serde_json::from_str::<ExtensionKind>(
        r#"{"apiVersion":"images.example.com/v1","kind":"Resize","spec":{}}"#,
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("unknown field `spec`"), "{err}");
    let err =
        serde_json::from_str::<ExtensionKind>(r#"{"apiVersion":"v1","kind":"Pod"}"#).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(r#"invalid apiVersion "v1": expected group/version"#),
        "{err}"
    );
}

/// A JSON object nested `depth` levels deep (the outermost is level 1).
fn nested(depth: usize) -> String {
    let mut json = "1".to_owned();
    for _ in 1..depth {
        json = format!("{{\"a\":{json}}}");
    }
    if depth == 1 { "{}".to_owned() } else { json }
}

fn read(json: &str) -> Result<ExtensionSpec, String> {
    serde_json::from_str::<ExtensionSpec>(json).map_err(|e| e.to_string())
}

fn built(json: &str) -> Result<ExtensionSpec, TaskError> {
    // serde_json's own reader stops at 128 levels; build deeper values by hand.
    ExtensionSpec::new(serde_json::from_str::<Value>(json).unwrap())
}

#[test]
fn depth_bound_while_reading_and_on_a_value() {
    // The innermost value of `nested(d)` sits at depth d.
    let at = nested(MAX_EXTENSION_SPEC_DEPTH);
    let over = nested(MAX_EXTENSION_SPEC_DEPTH + 1);
    assert!(read(&at).is_ok());
    assert!(built(&at).is_ok());
    let err = read(&over).unwrap_err();
    assert!(
        err.starts_with("invalid spec: nested 33 levels deep, at most 32 allowed"),
        "{err}"
    );
    assert!(matches!(
        built(&over),
        Err(TaskError::Invalid {
            reason: InvalidReason::TooDeep { depth: 33, max: 32 },
            ..
        })
    ));
    // Arrays count as levels too.
    let arrays = format!("{{\"a\":{}1{}}}", "[".repeat(31), "]".repeat(31));
    assert!(read(&arrays).is_err());
    let arrays = format!("{{\"a\":{}1{}}}", "[".repeat(30), "]".repeat(30));
    assert!(read(&arrays).is_ok());
}

#[test]
fn a_very_deep_document_is_refused_without_recursing() {
    // Far past serde_json's own limit: the spec refuses it at its own depth first.
    let deep = format!("{{\"a\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
    let err = read(&deep).unwrap_err();
    assert!(err.contains("levels deep"), "{err}");
    // A value built in memory (deeper than serde_json reads) is walked without recursion.
    // (Not deeper still: dropping a `Value` recurses.)
    let mut value = Value::Null;
    for _ in 0..1_000 {
        value = Value::Array(vec![value]);
    }
    let mut object = Map::new();
    object.insert("a".into(), value);
    assert!(matches!(
        ExtensionSpec::new(Value::Object(object)),
        Err(TaskError::Invalid {
            reason: InvalidReason::TooDeep { .. },
            ..
        })
    ));
}

#[test]
fn value_count_bound() {
    // The object itself is one value: MAX - 1 array items, plus the array, plus the object.
    let items = |n: usize| format!("{{\"a\":[{}]}}", vec!["0"; n].join(","));
    let at = items(MAX_EXTENSION_SPEC_VALUES - 2);
    let over = items(MAX_EXTENSION_SPEC_VALUES - 1);
    assert!(read(&at).is_ok());
    assert!(built(&at).is_ok());
    let err = read(&over).unwrap_err();
    assert!(
        err.starts_with("invalid spec: 16385 entries, at most 16384 allowed"),
        "{err}"
    );
    assert!(matches!(
        built(&over),
        Err(TaskError::Invalid {
            reason: InvalidReason::TooMany {
                len: 16_385,
                max: 16_384
            },
            ..
        })
    ));
}

#[test]
fn text_bound_counts_keys_and_strings() {
    let half = MAX_EXTENSION_SPEC_BYTES / 2;
    // Key "k" (1 byte) + key "v" (1) + the two strings.
    let json = |a: usize, b: usize| {
        format!(
            "{{\"k\":\"{}\",\"v\":\"{}\"}}",
            "x".repeat(a),
            "y".repeat(b)
        )
    };
    let at = json(half - 1, half - 1);
    let over = json(half - 1, half);
    assert!(read(&at).is_ok());
    assert!(built(&at).is_ok());
    assert!(read(&over).unwrap_err().starts_with(&format!(
        "invalid spec: {} bytes long, at most {} allowed",
        MAX_EXTENSION_SPEC_BYTES + 1,
        MAX_EXTENSION_SPEC_BYTES
    )));
    assert!(built(&over).is_err());
    // Keys count: a long key alone.
    let key = format!("{{\"{}\":1}}", "k".repeat(MAX_EXTENSION_SPEC_BYTES + 1));
    assert!(read(&key).is_err());
    assert!(built(&key).is_err());
}

#[test]
fn shape_rules() {
    for (json, ok) in [
        ("{}", true),
        (
            r#"{"a":null,"b":true,"c":-1,"d":1.5,"e":18446744073709551615,"f":[{}]}"#,
            true,
        ),
        ("[]", false),
        ("1", false),
        (r#""text""#, false),
        ("null", false),
        (r#"{"a":1,"a":2}"#, false),
    ] {
        assert_eq!(read(json).is_ok(), ok, "{json}");
    }
    let err = read(r#"{"a":1,"a":2}"#).unwrap_err();
    assert!(
        err.starts_with(r#"invalid spec: duplicate key "a""#),
        "{err}"
    );
    assert!(
        read("[]")
            .unwrap_err()
            .starts_with("invalid spec: expected a JSON object")
    );
    assert!(matches!(
        ExtensionSpec::new(Value::Bool(true)),
        Err(TaskError::Invalid {
            reason: InvalidReason::Format { .. },
            ..
        })
    ));
}

#[test]
fn keys_come_out_sorted_and_values_exact() {
    let spec = read(r#"{"z":1,"a":[1.5,-2,18446744073709551615],"m":{"y":null,"b":"s"}}"#).unwrap();
    let json = serde_json::to_string(&spec).unwrap();
    assert_eq!(
        json,
        r#"{"a":[1.5,-2,18446744073709551615],"m":{"b":"s","y":null},"z":1}"#
    );
    assert_eq!(read(&json).unwrap(), spec);
    assert_eq!(ExtensionSpec::new(spec.clone().into_value()).unwrap(), spec);
}
