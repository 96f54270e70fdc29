//! Unit tests for `env`: key and value rules, duplicates, bounds, merge and serde.

use super::*;

fn env_err(json: &str) -> String {
    serde_json::from_str::<TaskEnv>(json)
        .unwrap_err()
        .to_string()
}

#[test]
fn var_rules() {
    fn check(key: &str, value: &str, want: Result<(), (&str, InvalidReason)>) {
        match (EnvVar::new(key, value), want) {
            (Ok(var), Ok(())) => assert_eq!((var.key(), var.value()), (key, value)),
            (Err(TaskError::Invalid { path, reason, .. }), Err((p, r))) => {
                assert_eq!((path.as_str(), reason), (p, r), "{key:?}={value:?}");
            }
            (got, want) => panic!("{key:?}={value:?}: got {got:?}, want {want:?}"),
        }
    }
    let max_key = "K".repeat(MAX_ENV_KEY_BYTES);
    let long_key = "K".repeat(MAX_ENV_KEY_BYTES + 1);
    let max_value = "v".repeat(MAX_ENV_VALUE_BYTES);
    let long_value = "v".repeat(MAX_ENV_VALUE_BYTES + 1);
    check("PATH", "/bin", Ok(()));
    check("EMPTY_VALUE", "", Ok(()));
    check("lower.case-ok", "a=b is fine in a value", Ok(()));
    check("", "x", Err(("key", InvalidReason::Empty)));
    check(
        "A=B",
        "x",
        Err(("key", InvalidReason::EqualsSign { index: 1 })),
    );
    check(
        "=",
        "x",
        Err(("key", InvalidReason::EqualsSign { index: 0 })),
    );
    check(
        "A\0B",
        "x",
        Err(("key", InvalidReason::NulByte { index: 1 })),
    );
    check(
        "A",
        "x\0",
        Err(("value", InvalidReason::NulByte { index: 1 })),
    );
    check(&max_key, "x", Ok(()));
    check(
        &long_key,
        "x",
        Err((
            "key",
            InvalidReason::TooLong {
                len: MAX_ENV_KEY_BYTES + 1,
                max: MAX_ENV_KEY_BYTES,
            },
        )),
    );
    check("A", &max_value, Ok(()));
    check(
        "A",
        &long_value,
        Err((
            "value",
            InvalidReason::TooLong {
                len: MAX_ENV_VALUE_BYTES + 1,
                max: MAX_ENV_VALUE_BYTES,
            },
        )),
    );
}

#[test]
fn duplicate_keys_name_both_entries() {
    let err = TaskEnv::from_pairs([("A", "1"), ("B", "2"), ("A", "3")]).unwrap_err();
    let TaskError::Invalid {
        path,
        reason,
        input,
    } = err
    else {
        panic!("{err:?}")
    };
    assert_eq!(path, "[2].key");
    assert_eq!(reason, InvalidReason::DuplicateKey { first: 0 });
    assert_eq!(input.as_deref(), Some("A"));
    // The hashing path for long lists reports the same way.
    let mut pairs: Vec<(String, String)> =
        (0..100).map(|i| (format!("K{i}"), String::new())).collect();
    pairs.push(("K42".into(), "again".into()));
    let err = RunnerEnv::from_pairs(pairs).unwrap_err();
    assert_eq!(err.path(), Some("[100].key"));
    assert!(matches!(
        err,
        TaskError::Invalid {
            reason: InvalidReason::DuplicateKey { first: 42 },
            ..
        }
    ));
    // Keys differing only in case are different keys.
    assert!(TaskEnv::from_pairs([("a", "1"), ("A", "2")]).is_ok());
}

#[test]
fn push_keeps_rules() {
    let mut env = TaskEnv::empty();
    env.push(EnvVar::new("A", "1").unwrap()).unwrap();
    let err = env.push(EnvVar::new("A", "2").unwrap()).unwrap_err();
    assert_eq!(err.path(), Some("[1].key"));
    assert_eq!(env.len(), 1);
    let mut full = TaskEnv::from_pairs((0..MAX_ENV_VARS).map(|i| (format!("K{i}"), ""))).unwrap();
    let err = full.push(EnvVar::new("MORE", "").unwrap()).unwrap_err();
    assert!(
        matches!(err, TaskError::Invalid { reason: InvalidReason::TooMany { len, max }, .. } if len == MAX_ENV_VARS + 1 && max == MAX_ENV_VARS)
    );
}

#[test]
fn list_bound_is_exact() {
    assert!(TaskEnv::from_pairs((0..MAX_ENV_VARS).map(|i| (format!("K{i}"), ""))).is_ok());
    let err = TaskEnv::from_pairs((0..=MAX_ENV_VARS).map(|i| (format!("K{i}"), ""))).unwrap_err();
    assert!(matches!(
        err,
        TaskError::Invalid {
            reason: InvalidReason::TooMany { .. },
            ..
        }
    ));
    let vars: Vec<EnvVar> = (0..=MAX_ENV_VARS)
        .map(|i| EnvVar::new(format!("K{i}"), "").unwrap())
        .collect();
    assert!(TaskEnv::new(vars).is_err());
}

#[test]
fn serde_validates_with_entry_paths() {
    let env: TaskEnv =
        serde_json::from_str(r#"[{"key":"B","value":"2"},{"key":"A","value":"1"}]"#).unwrap();
    let keys: Vec<&str> = env.iter().map(EnvVar::key).collect();
    assert_eq!(keys, ["B", "A"], "order is kept");
    assert_eq!(
        serde_json::to_string(&env).unwrap(),
        r#"[{"key":"B","value":"2"},{"key":"A","value":"1"}]"#
    );
    assert!(
        env_err(r#"[{"key":"A","value":"1"},{"key":"A","value":"2"}]"#)
            .starts_with("invalid [1].key \"A\": duplicate key, first used by entry 0")
    );
    assert!(env_err(r#"[{"key":"X=","value":"1"}]"#).starts_with("invalid [0].key"));
    assert!(env_err(r#"[{"key":"X","value":"\u0000"}]"#).starts_with("invalid [0].value"));
    assert!(env_err(r#"[{"key":"X","value":"1","extra":true}]"#).contains("unknown field"));
    let var: EnvVar = serde_json::from_str(r#"{"key":"K","value":"V"}"#).unwrap();
    assert_eq!(var.into_parts(), ("K".to_owned(), "V".to_owned()));
    assert!(serde_json::from_str::<EnvVar>(r#"{"key":"","value":"V"}"#).is_err());
}

#[test]
fn merge_runner_first_task_wins() {
    fn check(runner: &[(&str, &str)], task: &[(&str, &str)], want: &[(&str, &str)]) {
        let runner = RunnerEnv::from_pairs(runner.iter().copied()).unwrap();
        let task = TaskEnv::from_pairs(task.iter().copied()).unwrap();
        let merged = merge_env(&runner, &task);
        let got: Vec<(&str, &str)> = merged.iter().map(|v| (v.key(), v.value())).collect();
        assert_eq!(got, want);
    }
    check(&[], &[], &[]);
    check(&[("A", "r")], &[], &[("A", "r")]);
    check(&[], &[("A", "t")], &[("A", "t")]);
    check(
        &[("A", "r"), ("B", "r")],
        &[("B", "t")],
        &[("A", "r"), ("B", "t")],
    );
    check(
        &[("A", "r"), ("B", "r")],
        &[("C", "t"), ("A", "t")],
        &[("A", "t"), ("B", "r"), ("C", "t")],
    );
    check(&[("A", "r")], &[("A", "")], &[("A", "")]);
}
