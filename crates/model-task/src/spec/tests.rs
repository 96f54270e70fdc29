//! Unit tests for `spec`: parsing validates with full field paths, defaults, builder, submit rules.

use model_policy::PolicyError;
use model_selector::{MAX_LABELS, SelectorError};

use super::*;
use model_selector::MAX_REQUIREMENTS;

const KIND: &str = r#"{"type":"subprocess","mode":{"type":"command","command":"/bin/true"}}"#;

fn spec_json(extra: &str) -> String {
    format!(r#"{{"slot":"lane-1","kind":{KIND},"timeoutMs":5000{extra}}}"#)
}

/// Parses through the raw twin, keeping the typed error.
fn parse(json: &str) -> Result<TaskSpec, TaskError> {
    let raw: TaskSpecRaw = serde_json::from_str(json).expect("raw shape");
    TaskSpec::try_from(raw)
}

fn command_kind() -> TaskKind {
    TaskKind::subprocess(
        SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
        TaskEnv::empty(),
        None,
    )
    .unwrap()
}

#[test]
fn minimal_spec_takes_the_defaults() {
    let spec = parse(&spec_json("")).unwrap();
    assert_eq!(spec.slot().as_str(), "lane-1");
    assert_eq!(spec.timeout().as_millis(), 5_000);
    assert_eq!(spec.restart(), RestartPolicy::Never);
    assert_eq!(spec.backoff(), &BackoffPolicy::default());
    assert_eq!(spec.admission(), AdmissionPolicy::DropIfRunning);
    assert!(spec.runner_selector().is_empty());
    assert!(spec.labels().is_empty());
    assert_eq!(spec.max_retries(), None);
    assert_eq!(
        serde_json::to_string(&spec).unwrap(),
        format!(
            r#"{{"slot":"lane-1","kind":{{"type":"subprocess","mode":{{"type":"command","command":"/bin/true","args":[]}},"env":[]}},"timeoutMs":5000,"restart":"never","backoff":{{"jitter":"full","firstMs":1000,"maxMs":30000,"factor":2.0}},"admission":"dropIfRunning"}}"#
        )
    );
}

#[test]
fn partial_backoff_fills_in_defaults() {
    let spec = parse(&spec_json(r#","backoff":{"firstMs":200}"#)).unwrap();
    assert_eq!(spec.backoff().first_ms(), 200);
    assert_eq!(spec.backoff().max_ms(), BackoffPolicy::default().max_ms());
}

#[test]
fn every_invalid_field_names_its_path() {
    fn check(extra_or_full: &str, want_path: &str) {
        let json = if extra_or_full.starts_with('{') {
            extra_or_full.to_owned()
        } else {
            spec_json(extra_or_full)
        };
        let err = parse(&json).unwrap_err();
        assert_eq!(err.path(), Some(want_path), "{json}: {err}");
        assert!(
            err.to_string().contains(want_path),
            "message names the path: {err}"
        );
        // The serde message (what a JSON user sees) carries the same path.
        let de = serde_json::from_str::<TaskSpec>(&json)
            .unwrap_err()
            .to_string();
        assert!(de.contains(want_path), "{de}");
    }
    check(
        &format!(r#"{{"slot":"a b","kind":{KIND},"timeoutMs":1}}"#),
        "slot",
    );
    check(
        &format!(r#"{{"slot":"..","kind":{KIND},"timeoutMs":1}}"#),
        "slot",
    );
    check(
        &format!(
            r#"{{"slot":"{}","kind":{KIND},"timeoutMs":1}}"#,
            "s".repeat(65)
        ),
        "slot",
    );
    check(
        &format!(r#"{{"slot":"a","kind":{KIND},"timeoutMs":0}}"#),
        "timeoutMs",
    );
    check(
        r#"{"slot":"a","kind":{"type":"subprocess","mode":{"type":"script","interpreter":"bash","body":"@@"}},"timeoutMs":1}"#,
        "kind.mode.body",
    );
    check(
        r#"{"slot":"a","kind":{"type":"subprocess","mode":{"type":"command","command":"x"},"env":[{"key":"A","value":""},{"key":"B","value":""},{"key":"C=","value":""}]},"timeoutMs":1}"#,
        "kind.env[2].key",
    );
    check(r#","backoff":{"firstMs":0}"#, "backoff.firstMs");
    check(r#","backoff":{"firstMs":500,"maxMs":100}"#, "backoff.maxMs");
    check(r#","backoff":{"factor":0.5}"#, "backoff.factor");
    check(
        r#","runnerSelector":{"matchExpressions":[{"key":"zone","operator":"Exists"},{"key":"gpu","operator":"In","values":[]}]}"#,
        "runnerSelector.matchExpressions[1].values",
    );
    check(
        r#","runnerSelector":{"matchExpressions":[{"key":"bad key!","operator":"Exists"}]}"#,
        "runnerSelector.matchExpressions[0].key",
    );
    check(
        r#","runnerSelector":{"matchLabels":{"zone":"EU!"}}"#,
        r#"runnerSelector.matchLabels["zone"]"#,
    );
    check(r#","labels":{"x":"not valid!"}"#, r#"labels["x"]"#);
    check(r#","labels":{"bad key!":"v"}"#, r#"labels["bad key!"]"#);
}

#[test]
fn lower_errors_keep_their_type() {
    let err = parse(&spec_json(r#","backoff":{"firstMs":0}"#)).unwrap_err();
    assert!(
        matches!(
            err,
            TaskError::Policy {
                error: PolicyError::InvalidBackoff {
                    field: "firstMs",
                    ..
                },
                ..
            }
        ),
        "{err:?}"
    );
    let err = parse(&spec_json(r#","labels":{"x":"not valid!"}"#)).unwrap_err();
    assert!(
        matches!(err, TaskError::Selector(SelectorError::InvalidValue { .. })),
        "{err:?}"
    );
    let err = parse(&format!(r#"{{"slot":"","kind":{KIND},"timeoutMs":1}}"#)).unwrap_err();
    assert!(
        matches!(err, TaskError::Id { ref path, .. } if path == "slot"),
        "{err:?}"
    );
}

#[test]
fn too_many_labels_and_requirements_are_rejected() {
    let labels: Vec<String> = (0..=MAX_LABELS).map(|i| format!(r#""k{i}":"v""#)).collect();
    assert!(
        serde_json::from_str::<TaskSpec>(&spec_json(&format!(
            r#","labels":{{{}}}"#,
            labels.join(",")
        )))
        .is_err()
    );
    let ok: Vec<String> = (0..MAX_LABELS).map(|i| format!(r#""k{i}":"v""#)).collect();
    assert_eq!(
        parse(&spec_json(&format!(r#","labels":{{{}}}"#, ok.join(","))))
            .unwrap()
            .labels()
            .len(),
        MAX_LABELS
    );
    // Each part fits on its own; together they are one requirement too many.
    let half = MAX_REQUIREMENTS / 2;
    let reqs: Vec<String> = (0..=half)
        .map(|i| format!(r#"{{"key":"k{i}","operator":"Exists"}}"#))
        .collect();
    let labels: Vec<String> = (0..half).map(|i| format!(r#""l{i}":"v""#)).collect();
    let err = parse(&spec_json(&format!(
        r#","runnerSelector":{{"matchLabels":{{{}}},"matchExpressions":[{}]}}"#,
        labels.join(","),
        reqs.join(",")
    )))
    .unwrap_err();
    assert_eq!(err.path(), Some("runnerSelector"));
}

#[test]
fn wire_shape_errors_come_from_serde() {
    fn check(json: &str, want: &str) {
        let err = serde_json::from_str::<TaskSpec>(json)
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{json}: {err}");
    }
    check(&spec_json(r#","extra":1"#), "unknown field `extra`");
    check(&spec_json(r#","restart":"sometimes""#), "sometimes");
    check(&spec_json(r#","admission":"later""#), "later");
    check(&spec_json(r#","backoff":{"jitter":"wild"}"#), "wild");
    check(
        &spec_json(r#","backoff":{"firstMs":1,"extra":1}"#),
        "unknown field `extra`",
    );
    check(
        &spec_json(r#","runnerSelector":{"matchExpressions":[{"key":"a","operator":"Near"}]}"#),
        "Near",
    );
    check(&spec_json(r#","maxRetries":-1"#), "invalid value");
    check(r#"{"slot":"a","timeoutMs":1}"#, "missing field `kind`");
    check(
        &format!(r#"{{"slot":"a","kind":{KIND}}}"#),
        "missing field `timeoutMs`",
    );
}

#[test]
fn builder_validates_slot_then_timeout() {
    let err = TaskSpec::builder("bad slot", command_kind(), 0)
        .build()
        .unwrap_err();
    assert_eq!(err.path(), Some("slot"));
    let err = TaskSpec::builder("ok", command_kind(), 0)
        .build()
        .unwrap_err();
    assert!(
        matches!(err, TaskError::Invalid { ref path, reason: InvalidReason::Zero, .. } if path == "timeoutMs")
    );
    let err = TaskSpec::builder("ok", command_kind(), MAX_TIMEOUT_MS + 1)
        .build()
        .unwrap_err();
    assert!(matches!(
        err,
        TaskError::Invalid {
            reason: InvalidReason::TooLarge { .. },
            ..
        }
    ));
    let labels = Labels::from_pairs([("team", "infra")]).unwrap();
    let selector = LabelSelector::builder()
        .label("zone", "eu")
        .build()
        .unwrap();
    let spec = TaskSpec::builder("ok", command_kind(), 10)
        .restart(RestartPolicy::always())
        .admission(AdmissionPolicy::Queue)
        .labels(labels.clone())
        .runner_selector(selector.clone())
        .max_retries(2)
        .build()
        .unwrap();
    assert_eq!(
        (spec.restart(), spec.admission(), spec.max_retries()),
        (RestartPolicy::always(), AdmissionPolicy::Queue, Some(2))
    );
    assert_eq!(
        (spec.labels(), spec.runner_selector()),
        (&labels, &selector)
    );
    let back: TaskSpec = serde_json::from_str(&serde_json::to_string(&spec).unwrap()).unwrap();
    assert_eq!(back, spec);
}

#[test]
fn validate_rejects_embedded_only() {
    let embedded = TaskSpec::builder("lane", TaskKind::Embedded, 10)
        .build()
        .unwrap();
    let err = embedded.validate().unwrap_err();
    assert!(
        matches!(err, TaskError::Invalid { ref path, reason: InvalidReason::EmbeddedNotSubmittable, .. } if path == "kind.type"),
        "{err:?}"
    );
    // Parsing accepts it: embedded specs are valid values, just not submittable.
    let parsed = parse(r#"{"slot":"a","kind":{"type":"embedded"},"timeoutMs":1}"#).unwrap();
    assert!(parsed.validate().is_err());
    assert!(
        TaskSpec::builder("lane", command_kind(), 10)
            .build()
            .unwrap()
            .validate()
            .is_ok()
    );
    let container =
        TaskKind::container("alpine:3".into(), vec![], vec![], TaskEnv::empty()).unwrap();
    assert!(
        TaskSpec::builder("lane", container, 10)
            .build()
            .unwrap()
            .validate()
            .is_ok()
    );
}

/// The wire rule (docs/wire-format.md): `null` in an optional field reads as if the field
/// were absent; a required field must hold a value.
#[test]
fn null_reads_as_absent_in_every_optional_field() {
    #[track_caller]
    fn same_as_absent(with_null: &str, without: &str) {
        let a = serde_json::from_str::<TaskSpec>(with_null);
        let b = serde_json::from_str::<TaskSpec>(without);
        match (a, b) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{with_null}"),
            (a, b) => panic!("{with_null}: {a:?} vs {without}: {b:?}"),
        }
    }
    for field in [
        "restart",
        "backoff",
        "admission",
        "runnerSelector",
        "labels",
        "maxRetries",
    ] {
        same_as_absent(&spec_json(&format!(r#","{field}":null"#)), &spec_json(""));
    }
    for field in ["jitter", "firstMs", "maxMs", "factor"] {
        same_as_absent(
            &spec_json(&format!(r#","backoff":{{"{field}":null}}"#)),
            &spec_json(r#","backoff":{}"#),
        );
    }
    for field in ["matchLabels", "matchExpressions"] {
        same_as_absent(
            &spec_json(&format!(r#","runnerSelector":{{"{field}":null}}"#)),
            &spec_json(""),
        );
    }
    same_as_absent(
        &spec_json(
            r#","runnerSelector":{"matchExpressions":[{"key":"a","operator":"Exists","values":null}]}"#,
        ),
        &spec_json(r#","runnerSelector":{"matchExpressions":[{"key":"a","operator":"Exists"}]}"#),
    );
    let kind = |fields: &str| format!(r#"{{"slot":"s","timeoutMs":1,"kind":{fields}}}"#);
    for (with_null, without) in [
        (
            r#"{"type":"subprocess","mode":{"type":"command","command":"x","args":null},"env":null,"cwd":null}"#,
            r#"{"type":"subprocess","mode":{"type":"command","command":"x"}}"#,
        ),
        (
            r#"{"type":"container","image":"i","command":null,"args":null,"env":null}"#,
            r#"{"type":"container","image":"i"}"#,
        ),
        (
            r#"{"type":"wasm","module":"m","args":null,"env":null}"#,
            r#"{"type":"wasm","module":"m"}"#,
        ),
    ] {
        same_as_absent(&kind(with_null), &kind(without));
    }

    for required in [
        r#"{"slot":null,"kind":{"type":"embedded"},"timeoutMs":1}"#,
        r#"{"slot":"s","kind":null,"timeoutMs":1}"#,
        r#"{"slot":"s","kind":{"type":"embedded"},"timeoutMs":null}"#,
        r#"{"slot":"s","kind":{"type":null},"timeoutMs":1}"#,
        r#"{"slot":"s","kind":{"type":"wasm","module":null},"timeoutMs":1}"#,
        r#"{"slot":"s","kind":{"type":"subprocess","mode":null},"timeoutMs":1}"#,
        r#"{"slot":"s","kind":{"type":"subprocess","mode":{"type":"command","command":null}},"timeoutMs":1}"#,
    ] {
        assert!(
            serde_json::from_str::<TaskSpec>(required).is_err(),
            "{required}"
        );
    }
}
