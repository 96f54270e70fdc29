//! Unit tests of `policy`: the bounds of a rule at their edges, the wire form of rules and
//! policies (overrides, neutral values, `null`, duplicates), and round trips.

use proptest::prelude::*;

use super::*;
use crate::limits::MAX_TTL_AFTER_FINISHED_MS;

#[test]
fn a_rule_checks_its_bounds() {
    let ttl_max = MAX_TTL_AFTER_FINISHED_MS;
    let cases: [(u8, Option<u64>, Option<&str>); 6] = [
        (0, None, None),
        (100, None, None),
        (
            101,
            None,
            Some("invalid cleanupPriority: 101 is larger than the maximum 100"),
        ),
        (50, Some(0), None),
        (50, Some(ttl_max), None),
        (
            50,
            Some(ttl_max + 1),
            Some(
                "invalid ttlAfterFinishedMs: 315360000001 is larger than the maximum 315360000000",
            ),
        ),
    ];
    for (priority, ttl, want) in cases {
        let mut builder = RetentionRule::builder(priority);
        if let Some(ttl) = ttl {
            builder = builder.ttl_after_finished_ms(ttl);
        }
        let got = builder.build().err().map(|err| err.to_string());
        assert_eq!(got.as_deref(), want, "priority {priority}, ttl {ttl:?}");
    }
}

#[test]
fn history_limits_check_their_bounds() {
    assert!(HistoryLimits::new(MAX_HISTORY_LIMIT, MAX_HISTORY_LIMIT).is_ok());
    let err = HistoryLimits::new(MAX_HISTORY_LIMIT + 1, 0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid succeeded: 10001 is larger than the maximum 10000"
    );
    let err = HistoryLimits::new(0, MAX_HISTORY_LIMIT + 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid failed: 10001 is larger than the maximum 10000"
    );
    assert_eq!(HistoryLimits::CRONJOB, HistoryLimits::new(3, 1).unwrap());
}

#[test]
fn a_listed_kind_replaces_its_rule_and_the_others_keep_theirs() {
    let policy: RetentionPolicy = serde_json::from_str(
        r#"{"rules": {"schedule": {"history": {"succeeded": 10, "failed": 5}}}}"#,
    )
    .unwrap();
    let schedule = policy.rule(ResourceKind::Schedule);
    // Absent fields take the neutral values, not the schedule's defaults.
    assert_eq!(schedule.cleanup_priority(), 50);
    assert_eq!(schedule.cascade(), CascadePolicy::Foreground);
    assert_eq!(schedule.history(), Some(HistoryLimits::new(10, 5).unwrap()));
    assert!(!schedule.hold_while_active());
    for kind in [
        ResourceKind::Attempt,
        ResourceKind::Action,
        ResourceKind::Task,
        ResourceKind::Flow,
    ] {
        assert_eq!(
            policy.rule(kind),
            RetentionPolicy::DEFAULT.rule(kind),
            "{kind}"
        );
    }
}

#[test]
fn null_and_absent_read_the_same() {
    let cases = [
        ("{}", "{\"rules\": null}"),
        (
            r#"{"rules": {"task": {}}}"#,
            r#"{"rules": {"task": {"cleanupPriority": null, "ttlAfterFinishedMs": null, "cascade": null, "history": null, "holdWhileActive": null}}}"#,
        ),
    ];
    for (absent, null) in cases {
        let absent: RetentionPolicy = serde_json::from_str(absent).unwrap();
        let null: RetentionPolicy = serde_json::from_str(null).unwrap();
        assert_eq!(absent, null);
    }
    assert_eq!(
        serde_json::from_str::<RetentionPolicy>("{}").unwrap(),
        RetentionPolicy::DEFAULT
    );
}

#[test]
fn a_bad_policy_names_the_field() {
    let cases = [
        (
            r#"{"rules": {"task": {"cleanupPriority": 101}}}"#,
            "invalid rules.task.cleanupPriority: 101 is larger than the maximum 100",
        ),
        (
            r#"{"rules": {"task": {"cleanupPriority": 100000}}}"#,
            "invalid rules.task.cleanupPriority: 100000 is larger than the maximum 100",
        ),
        (
            r#"{"rules": {"flow": {"ttlAfterFinishedMs": 315360000001}}}"#,
            "invalid rules.flow.ttlAfterFinishedMs: 315360000001 is larger than the maximum 315360000000",
        ),
        (
            r#"{"rules": {"schedule": {"history": {"succeeded": 10001, "failed": 1}}}}"#,
            "invalid rules.schedule.history.succeeded: 10001 is larger than the maximum 10000",
        ),
        (
            r#"{"rules": {"schedule": {"history": {"succeeded": 1, "failed": 4294967296}}}}"#,
            "invalid rules.schedule.history.failed: 4294967296 is larger than the maximum 10000",
        ),
        (
            r#"{"rules": {"task": {}, "task": {}}}"#,
            "invalid rules.task: named twice",
        ),
    ];
    for (json, want) in cases {
        let err = serde_json::from_str::<RetentionPolicy>(json)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(want), "{json}: {err}");
    }
    for json in [
        r#"{"rules": {"job": {}}}"#,
        r#"{"rules": {"task": {"cascade": "Foreground"}}}"#,
        r#"{"rules": {"task": {"ttl": 1}}}"#,
        r#"{"rules": {"task": {"history": {"succeeded": 1}}}}"#,
        r#"{"rules": [], "other": 1}"#,
    ] {
        assert!(
            serde_json::from_str::<RetentionPolicy>(json).is_err(),
            "{json}"
        );
    }
}

#[test]
fn the_default_policy_writes_every_rule_and_reads_back_equal() {
    let json = serde_json::to_value(RetentionPolicy::DEFAULT).unwrap();
    let rules = json["rules"].as_object().unwrap();
    let kinds: Vec<&str> = rules.keys().map(String::as_str).collect();
    assert_eq!(kinds, ["action", "attempt", "flow", "schedule", "task"]);
    assert_eq!(json["rules"]["schedule"]["history"]["succeeded"], 3);
    let back: RetentionPolicy = serde_json::from_value(json).unwrap();
    assert_eq!(back, RetentionPolicy::DEFAULT);
    assert_eq!(RetentionPolicy::default(), RetentionPolicy::DEFAULT);
}

fn rule() -> impl Strategy<Value = RetentionRule> {
    (
        0..=MAX_CLEANUP_PRIORITY,
        prop::option::of(0..=MAX_TTL_AFTER_FINISHED_MS),
        prop_oneof![
            Just(CascadePolicy::Background),
            Just(CascadePolicy::Foreground),
            Just(CascadePolicy::Orphan)
        ],
        prop::option::of((0..=MAX_HISTORY_LIMIT, 0..=MAX_HISTORY_LIMIT)),
        any::<bool>(),
    )
        .prop_map(|(priority, ttl, cascade, history, hold)| {
            let mut builder = RetentionRule::builder(priority)
                .cascade(cascade)
                .hold_while_active(hold);
            if let Some(ttl) = ttl {
                builder = builder.ttl_after_finished_ms(ttl);
            }
            if let Some((succeeded, failed)) = history {
                builder = builder.history(HistoryLimits::new(succeeded, failed).unwrap());
            }
            builder.build().unwrap()
        })
}

proptest! {
    #[test]
    fn every_policy_reads_back_equal(rules in prop::collection::vec((0..5_usize, rule()), 0..6)) {
        let policy = rules.into_iter().fold(RetentionPolicy::DEFAULT, |policy, (kind, rule)| {
            policy.with_rule(ResourceKind::ALL[kind], rule)
        });
        let json = serde_json::to_string(&policy).unwrap();
        let back: RetentionPolicy = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &policy);
        prop_assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }

    #[test]
    fn every_rule_reads_back_equal_alone(rule in rule()) {
        let back: RetentionRule = serde_json::from_str(&serde_json::to_string(&rule).unwrap()).unwrap();
        prop_assert_eq!(back, rule);
    }
}
