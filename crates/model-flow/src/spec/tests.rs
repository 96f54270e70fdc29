//! Unit tests for `spec`: field errors with their paths, null fields, the flow environment merged into each job, the builder against the parser.

use model_task::TaskKind;
use model_task::spec::{EnvVar, MAX_ENV_VARS};

use super::*;

/// A job JSON object with a wasm spec whose env is `env` (a JSON list).
fn job(name: &str, deps: &str, env: &str) -> String {
    format!(
        r#"{{"name": "{name}", "dependsOn": [{deps}], "spec": {{"slot": "s", "timeoutMs": 1000,
            "kind": {{"type": "wasm", "module": "m.wasm", "env": {env}}}}}}}"#
    )
}

fn parse(json: &str) -> Result<FlowSpec, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

fn env_json(pairs: impl Iterator<Item = (String, String)>) -> String {
    let vars: Vec<String> = pairs
        .map(|(k, v)| format!(r#"{{"key": "{k}", "value": "{v}"}}"#))
        .collect();
    format!("[{}]", vars.join(","))
}

#[test]
fn field_errors_name_their_path() {
    let ok = job("a", "", "[]");
    let table = [
        (
            format!(r#"{{"name": "a b", "jobs": [{ok}]}}"#),
            r#"name: invalid flow id "a b""#,
        ),
        (
            format!(r#"{{"name": "f", "env": [{{"key": "A=B", "value": ""}}], "jobs": [{ok}]}}"#),
            "invalid env[0].key",
        ),
        (
            format!(r#"{{"name": "f", "labels": {{"team": "no spaces"}}, "jobs": [{ok}]}}"#),
            r#"labels["team"]"#,
        ),
        (
            format!(
                r#"{{"name": "f", "jobs": [{ok}, {}]}}"#,
                job("b c", "", "[]")
            ),
            r#"jobs[1].name: invalid job name "b c""#,
        ),
        (
            format!(
                r#"{{"name": "f", "jobs": [{ok}, {}]}}"#,
                job("b", "", "[]").replace("1000", "0")
            ),
            "invalid jobs[1].spec.timeoutMs: must be greater than zero",
        ),
        (
            format!(r#"{{"name": "f", "jobs": [{ok}], "extra": 1}}"#),
            "unknown field `extra`",
        ),
        (
            format!(r#"{{"name": "f", "failurePolicy": "sometimes", "jobs": [{ok}]}}"#),
            "unknown variant `sometimes`",
        ),
    ];
    for (json, want) in table {
        let err = parse(&json).unwrap_err();
        assert!(err.contains(want), "{err}\nwanted: {want}");
    }
}

#[test]
fn null_optional_fields_read_as_absent() {
    let json = r#"{"name": "f", "env": null, "labels": null, "failurePolicy": null,
        "ttlAfterFinishedMs": null, "jobs": [{"name": "a", "spec": {"slot": "s", "timeoutMs": 1, "kind": {"type": "wasm", "module": "m"}},
                  "dependsOn": null, "when": null}]}"#;
    let flow = parse(json).unwrap();
    assert!(flow.env().is_empty());
    assert_eq!(flow.failure_policy(), FailurePolicy::FailFast);
    assert_eq!(flow.ttl_after_finished_ms(), None);
    assert_eq!(flow.jobs()[0].when(), TriggerRule::AllSucceeded);
    let written = serde_json::to_string(&flow).unwrap();
    assert!(!written.contains("null"), "{written}");
    assert!(
        !written.contains("dependsOn") && !written.contains("when"),
        "{written}"
    );
}

#[test]
fn the_flow_env_merges_into_each_job_with_the_job_winning() {
    let flow_env = env_json(
        [("A", "flow"), ("B", "flow")]
            .map(|(k, v)| (k.into(), v.into()))
            .into_iter(),
    );
    let job_env = env_json(
        [("B", "job"), ("C", "job")]
            .map(|(k, v)| (k.into(), v.into()))
            .into_iter(),
    );
    let json = format!(
        r#"{{"name": "f", "env": {flow_env}, "jobs": [{}, {}]}}"#,
        job("a", "", &job_env),
        job("b", r#""a""#, "[]")
    );
    let flow = parse(&json).unwrap();
    let pairs = |spec: TaskSpec| -> Vec<(String, String)> {
        spec.kind()
            .env()
            .iter()
            .map(|v| (v.key().to_owned(), v.value().to_owned()))
            .collect()
    };
    let own = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    assert_eq!(
        pairs(flow.task_spec("a").unwrap()),
        [own("A", "flow"), own("B", "job"), own("C", "job")]
    );
    assert_eq!(
        pairs(flow.task_spec("b").unwrap()),
        [own("A", "flow"), own("B", "flow")]
    );
    // The spec as written keeps its own env; the rest of the spec is unchanged.
    assert_eq!(flow.jobs()[1].spec().kind().env().len(), 0);
    let merged = flow.task_spec("a").unwrap();
    let written = flow.jobs()[0].spec();
    assert_eq!(merged.slot(), written.slot());
    assert_eq!(merged.timeout(), written.timeout());
    assert!(matches!(
        flow.task_spec("zz"),
        Err(FlowError::UnknownJob { .. })
    ));
    // An embedded task has no environment to merge into.
    let embedded = TaskSpec::builder("s", TaskKind::Embedded, 1)
        .build()
        .unwrap();
    let env = TaskEnv::from_pairs([("A", "1")]).unwrap();
    assert_eq!(merge_flow_env(&env, &embedded).unwrap(), embedded);
}

#[test]
fn a_merged_env_past_its_bound_is_refused_at_the_job() {
    let keys = |prefix: &str, count: usize| {
        env_json((0..count).map(move |i| (format!("{prefix}{i}"), String::new())))
    };
    let half = MAX_ENV_VARS / 2;
    // Exactly MAX_ENV_VARS after the merge (shared keys count once) is accepted...
    let shared = keys("K", half + 10);
    let own = keys("K", 10).trim_end_matches(']').to_owned() + "," + &keys("J", half - 10)[1..];
    let json = format!(
        r#"{{"name": "f", "env": {shared}, "jobs": [{}]}}"#,
        job("a", "", &own)
    );
    let flow = parse(&json).unwrap();
    assert_eq!(
        flow.task_spec("a").unwrap().kind().env().len(),
        MAX_ENV_VARS
    );
    // ... one more is not.
    let own = keys("J", half - 9);
    let json = format!(
        r#"{{"name": "f", "env": {shared}, "jobs": [{}, {}]}}"#,
        job("a", "", "[]"),
        job("b", "", &own)
    );
    let err = parse(&json).unwrap_err();
    assert!(
        err.starts_with("invalid jobs[1].spec.kind.env: 513 entries, at most 512"),
        "{err}"
    );
}

#[test]
fn builder_and_parser_agree() {
    let json = format!(
        r#"{{"name": "f", "failurePolicy": "continue", "labels": {{"team": "data"}}, "jobs": [{}, {}]}}"#,
        job("a", "", "[]"),
        job("b", r#""a""#, "[]")
    );
    let parsed = parse(&json).unwrap();
    let built = FlowSpec::builder("f")
        .failure_policy(FailurePolicy::Continue)
        .labels(parsed.labels().clone())
        .jobs(parsed.jobs().iter().cloned())
        .build()
        .unwrap();
    assert_eq!(built, parsed);
    let back = parse(&serde_json::to_string(&built).unwrap()).unwrap();
    assert_eq!(back, built);
    let b_deps = built.job("b").unwrap().depends_on();
    assert_eq!(b_deps.iter().collect::<Vec<_>>(), ["a"]);
    assert_eq!(*b_deps, JobNames::from_iter([JobName::new("a").unwrap()]));
    let err = FlowSpec::builder("f").build().unwrap_err();
    assert_eq!(err.to_string(), "jobs: a flow has at least one job");
    let err = FlowSpec::builder("").build().unwrap_err();
    assert_eq!(err.path(), Some("name"));
    let env = TaskEnv::new(vec![EnvVar::new("A", "1").unwrap()]).unwrap();
    let with_env = FlowSpec::builder("f")
        .env(env.clone())
        .jobs(parsed.jobs().iter().cloned());
    assert_eq!(with_env.build().unwrap().env(), &env);
}

#[test]
fn embedded_jobs_cannot_be_submitted() {
    let json = r#"{"name": "f", "jobs": [{"name": "a", "spec": {"slot": "s", "timeoutMs": 1, "kind": {"type": "embedded"}}}]}"#;
    let flow = parse(json).unwrap();
    let err = flow.validate().unwrap_err();
    assert_eq!(err.path(), Some("jobs[0].spec.kind.type"));
}

#[test]
fn ttl_after_finished_is_bounded_by_the_task_rule_on_both_ways_in() {
    use model_task::spec::MAX_TTL_AFTER_FINISHED_MS as MAX;
    let ok = job("a", "", "[]");
    let table = [
        (0, true),
        (3_600_000, true),
        (MAX, true),
        (MAX + 1, false),
        (u64::MAX, false),
    ];
    for (ttl, accepted) in table {
        let json = format!(r#"{{"name": "f", "ttlAfterFinishedMs": {ttl}, "jobs": [{ok}]}}"#);
        let parsed = parse(&json);
        let built = FlowSpec::builder("f")
            .ttl_after_finished_ms(ttl)
            .jobs(
                parse(&format!(r#"{{"name": "f", "jobs": [{ok}]}}"#))
                    .unwrap()
                    .jobs()
                    .iter()
                    .cloned(),
            )
            .build();
        if accepted {
            let parsed = parsed.unwrap();
            assert_eq!(parsed.ttl_after_finished_ms(), Some(ttl));
            assert_eq!(built.unwrap(), parsed);
            let written = serde_json::to_string(&parsed).unwrap();
            assert!(
                written.contains(&format!(r#""ttlAfterFinishedMs":{ttl}"#)),
                "{written}"
            );
            assert_eq!(parse(&written).unwrap(), parsed);
        } else {
            let want = format!("ttlAfterFinishedMs: {ttl} is larger than the maximum {MAX}");
            assert!(parsed.unwrap_err().starts_with(&want), "{ttl}");
            let err = built.unwrap_err();
            assert!(
                matches!(err, FlowError::TooLarge { value, max: MAX, .. } if value == ttl),
                "{err}"
            );
            assert_eq!(err.path(), Some("ttlAfterFinishedMs"));
            assert_eq!(err.kind(), model_ids::ErrorKind::Invalid);
        }
    }
}
