//! The JSON of a Kubernetes `metav1.LabelSelector` deserializes unchanged, and serde
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions may fail loudly"
)]
//! validates, bounds and reports paths.

use model_selector::{LabelSelector, Labels, MAX_LABELS, MAX_VALUES, SelectorError};

#[test]
fn kubernetes_label_selector_json() {
    // As `kubectl get deploy -o json` prints `.spec.selector`.
    let json = r#"{
        "matchLabels": {"app.kubernetes.io/name": "web", "tier": "frontend"},
        "matchExpressions": [
            {"key": "environment", "operator": "In", "values": ["prod", "staging"]},
            {"key": "track", "operator": "NotIn", "values": ["canary"]},
            {"key": "node.kubernetes.io/gpu", "operator": "Exists"},
            {"key": "draining", "operator": "DoesNotExist", "values": []}
        ]
    }"#;
    let s: LabelSelector = serde_json::from_str(json).unwrap();
    assert_eq!(
        s.to_string(),
        "app.kubernetes.io/name=web,!draining,environment in (prod,staging),node.kubernetes.io/gpu,tier=frontend,track!=canary"
    );
    let pod = Labels::from_pairs([
        ("app.kubernetes.io/name", "web"),
        ("tier", "frontend"),
        ("environment", "prod"),
        ("node.kubernetes.io/gpu", "true"),
    ])
    .unwrap();
    assert!(s.matches(&pod));
    let back: serde_json::Value = serde_json::to_value(&s).unwrap();
    assert_eq!(
        back,
        serde_json::json!({
            "matchLabels": {"app.kubernetes.io/name": "web", "tier": "frontend"},
            "matchExpressions": [
                {"key": "draining", "operator": "DoesNotExist"},
                {"key": "environment", "operator": "In", "values": ["prod", "staging"]},
                {"key": "node.kubernetes.io/gpu", "operator": "Exists"},
                {"key": "track", "operator": "NotIn", "values": ["canary"]}
            ]
        })
    );
    for empty in [
        "{}",
        r#"{"matchLabels": null, "matchExpressions": null}"#,
        r#"{"matchLabels": {}}"#,
    ] {
        let s: LabelSelector = serde_json::from_str(empty).unwrap();
        assert!(s.is_empty());
        assert_eq!(serde_json::to_string(&s).unwrap(), "{}");
    }
    let gt: LabelSelector = serde_json::from_str(
        r#"{"matchExpressions":[{"key":"cores","operator":"Gt","values":["8"]}]}"#,
    )
    .unwrap();
    assert_eq!(gt.to_string(), "cores>8");
}

#[track_caller]
fn check_rejected(json: &str, fragment: &str) {
    let err = serde_json::from_str::<LabelSelector>(json)
        .unwrap_err()
        .to_string();
    assert!(err.contains(fragment), "{json}: {err}");
}

#[test]
fn deserialization_validates_with_paths() {
    check_rejected(
        r#"{"matchLabels":{"zone":"e u"}}"#,
        r#"matchLabels["zone"]: invalid label value"#,
    );
    check_rejected(r#"{"matchLabels":{"Zone/x":"eu"}}"#, "invalid label key");
    check_rejected(
        r#"{"matchExpressions":[{"key":"a","operator":"Exists"},{"key":"b","operator":"In","values":[]}]}"#,
        "matchExpressions[1].values: operator In needs at least one value",
    );
    check_rejected(
        r#"{"matchExpressions":[{"key":"a","operator":"In","values":["ok","n o"]}]}"#,
        "matchExpressions[0].values[1]: invalid label value",
    );
    check_rejected(
        r#"{"matchExpressions":[{"key":"a","operator":"Near"}]}"#,
        "matchExpressions[0].operator: unknown operator \"Near\"",
    );
    check_rejected(
        r#"{"matchExpressions":[{"key":"a","operator":"Gt","values":["x"]}]}"#,
        "matchExpressions[0].values[0]: operator Gt needs an integer",
    );
    check_rejected(
        r#"{"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]}"#,
        "takes no values",
    );
    check_rejected(r#"{"matchLabels":{},"selector":"x"}"#, "unknown field");
    let too_many_values = format!(
        r#"{{"matchExpressions":[{{"key":"a","operator":"In","values":[{}]}}]}}"#,
        vec!["\"v\""; MAX_VALUES + 1000].join(",")
    );
    // The bound stops reading inside the requirement, so the path starts there.
    check_rejected(
        &too_many_values,
        "values: too many values: the limit is 128",
    );
    let too_many_labels = format!(
        r#"{{"matchLabels":{{{}}}}}"#,
        (0..MAX_LABELS + 10)
            .map(|i| format!("\"k{i}\":\"v\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    check_rejected(&too_many_labels, "too many");
}

#[test]
fn labels_json_object() {
    let l: Labels = serde_json::from_str(r#"{"zone":"eu","arch":"amd64","empty":""}"#).unwrap();
    assert_eq!(
        serde_json::to_string(&l).unwrap(),
        r#"{"arch":"amd64","empty":"","zone":"eu"}"#
    );
    let err = serde_json::from_str::<Labels>(r#"{"zone":"eu","zone":"us"}"#).unwrap_err();
    assert!(err.to_string().contains("duplicate label key"), "{err}");
    assert!(serde_json::from_str::<Labels>(r#"{"bad key":"x"}"#).is_err());
    let _: SelectorError = Labels::from_pairs([("a", "b c")]).unwrap_err();
}
