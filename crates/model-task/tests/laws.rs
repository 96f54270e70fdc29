//! Property tests: random operation sequences keep the lifecycle invariants, and every wire
//! type survives a serde round trip.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use model_ids::{TaskId, TenantId, Uid};
use model_policy::{AdmissionPolicy, BackoffPolicy, JitterPolicy, RestartPolicy, SeededRandom};
use model_selector::{LabelSelector, Labels, SelectorRequirement};
use model_task::spec::{EnvVar, Interpreter, ScriptBody, Timeout};
use model_task::{
    AttemptOutcome, AttemptResult, SubprocessMode, Task, TaskEnv, TaskError, TaskKind,
    TaskManifest, TaskPhase, TaskSpec, TaskStatus,
};
use proptest::prelude::*;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap()
}

// ---- Strategies for valid values.

fn text() -> impl Strategy<Value = String> {
    "[ -~é✓]{0,12}"
}

fn nonempty_text() -> impl Strategy<Value = String> {
    "[!-~é]{1,12}"
}

fn env() -> impl Strategy<Value = TaskEnv> {
    proptest::collection::btree_map("[A-Z_][A-Z0-9_]{0,6}", text(), 0..4)
        .prop_map(|pairs| TaskEnv::from_pairs(pairs).unwrap())
}

fn args() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(text(), 0..4)
}

fn interpreter() -> impl Strategy<Value = Interpreter> {
    prop_oneof![
        Just(Interpreter::Bash),
        Just(Interpreter::Python),
        Just(Interpreter::Node),
        (nonempty_text(), nonempty_text()).prop_map(|(c, f)| Interpreter::custom(c, f).unwrap()),
    ]
}

fn mode() -> impl Strategy<Value = SubprocessMode> {
    prop_oneof![
        (nonempty_text(), args()).prop_map(|(c, a)| SubprocessMode::command(c, a).unwrap()),
        (interpreter(), "[ -~\n\té]{0,40}", args()).prop_map(|(i, body, a)| {
            SubprocessMode::script(i, ScriptBody::from_text(body).unwrap(), a).unwrap()
        }),
    ]
}

fn kind() -> impl Strategy<Value = TaskKind> {
    prop_oneof![
        (mode(), env(), proptest::option::of(nonempty_text()))
            .prop_map(|(m, e, cwd)| TaskKind::subprocess(m, e, cwd).unwrap()),
        (nonempty_text(), args(), args(), env()).prop_map(|(i, mut c, a, e)| {
            if c.first().is_some_and(String::is_empty) {
                c[0] = "sh".into();
            }
            TaskKind::container(i, c, a, e).unwrap()
        }),
        (nonempty_text(), args(), env()).prop_map(|(m, a, e)| TaskKind::wasm(m, a, e).unwrap()),
        Just(TaskKind::Embedded),
    ]
}

fn restart() -> impl Strategy<Value = RestartPolicy> {
    prop_oneof![
        Just(RestartPolicy::Never),
        Just(RestartPolicy::OnFailure),
        Just(RestartPolicy::always())
    ]
}

fn backoff() -> impl Strategy<Value = BackoffPolicy> {
    let jitter = prop_oneof![
        Just(JitterPolicy::None),
        Just(JitterPolicy::Full),
        Just(JitterPolicy::Equal),
        Just(JitterPolicy::Decorrelated),
    ];
    (jitter, 1u64..5_000, 0u64..50_000, 1.0f64..4.0).prop_map(|(j, first, extra, factor)| {
        BackoffPolicy::new(j, first, first + extra, factor).unwrap()
    })
}

fn labels() -> impl Strategy<Value = Labels> {
    proptest::collection::btree_map("[a-z]{1,6}", "[a-z0-9]{0,6}", 0..4)
        .prop_map(|pairs| Labels::from_pairs(pairs).unwrap())
}

fn selector() -> impl Strategy<Value = LabelSelector> {
    (
        labels(),
        proptest::collection::btree_set("[a-z]{1,6}", 0..3),
    )
        .prop_map(|(l, keys)| {
            let mut builder = LabelSelector::builder();
            for (k, v) in l.iter() {
                builder = builder.label(k, v);
            }
            for k in keys {
                builder =
                    builder.requirement(SelectorRequirement::exists(format!("x-{k}")).unwrap());
            }
            builder.build().unwrap()
        })
}

fn spec() -> impl Strategy<Value = TaskSpec> {
    (
        "[a-z0-9][a-z0-9._-]{0,20}",
        kind(),
        1u64..1_000_000,
        restart(),
        backoff(),
        prop_oneof![
            Just(AdmissionPolicy::DropIfRunning),
            Just(AdmissionPolicy::Replace),
            Just(AdmissionPolicy::Queue)
        ],
        selector(),
        labels(),
        proptest::option::of(0u32..5),
    )
        .prop_map(
            |(slot, kind, timeout, restart, backoff, admission, selector, labels, max)| {
                let mut b = TaskSpec::builder(slot, kind, timeout)
                    .restart(restart)
                    .backoff(backoff)
                    .admission(admission)
                    .runner_selector(selector)
                    .labels(labels);
                if let Some(max) = max {
                    b = b.max_retries(max);
                }
                b.build().unwrap()
            },
        )
}

#[derive(Debug, Clone)]
enum Op {
    Start {
        stale: bool,
        after_ms: u32,
    },
    Finish {
        outcome: AttemptOutcome,
        exit_code: Option<i32>,
        after_ms: u32,
    },
    Cancel {
        after_ms: u32,
    },
}

fn outcome() -> impl Strategy<Value = AttemptOutcome> {
    prop_oneof![
        Just(AttemptOutcome::Succeeded),
        Just(AttemptOutcome::Failed),
        Just(AttemptOutcome::Timeout),
        Just(AttemptOutcome::Canceled),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<bool>(), 0u32..100_000).prop_map(|(stale, after_ms)| Op::Start { stale, after_ms }),
        4 => (outcome(), proptest::option::of(-2i32..3), 0u32..100_000)
            .prop_map(|(outcome, exit_code, after_ms)| Op::Finish { outcome, exit_code, after_ms }),
        1 => (0u32..100_000).prop_map(|after_ms| Op::Cancel { after_ms }),
    ]
}

proptest! {
    #[test]
    fn random_operations_keep_the_invariants(spec in spec(), ops in proptest::collection::vec(op(), 0..40), seed in any::<u64>()) {
        let mut task = Task::create(TaskManifest::named(TaskId::new("job").unwrap(), spec), TenantId::new("tenant").unwrap(), Uid::from_u128(1), t0()).unwrap();
        let mut rng = SeededRandom::new(seed);
        let mut now = t0();
        for op in ops {
            let before = task.clone();
            let result = match op {
                Op::Start { stale, after_ms } => {
                    now += TimeDelta::milliseconds(i64::from(after_ms));
                    // Start when due: jump to the scheduled time when one is set.
                    if let Some(due) = task.status().next_attempt_at() { now = now.max(due); }
                    let expected = if stale { task.resource_version() - 1 } else { task.resource_version() };
                    task.begin_attempt(Some(expected), now).map(drop)
                }
                Op::Finish { outcome, exit_code, after_ms } => {
                    now += TimeDelta::milliseconds(i64::from(after_ms));
                    let mut result = AttemptResult::new(outcome);
                    result.exit_code = exit_code;
                    task.end_attempt(None, result, &mut rng, now).map(drop)
                }
                Op::Cancel { after_ms } => {
                    now += TimeDelta::milliseconds(i64::from(after_ms));
                    task.cancel(None, now)
                }
            };
            match &result {
                Ok(()) => {
                    prop_assert_eq!(task.resource_version(), before.resource_version() + 1);
                    prop_assert!(before.phase().can_become(task.phase()));
                    prop_assert_eq!(task.metadata().updated_at(), now.max(before.metadata().updated_at()));
                }
                Err(err) => {
                    prop_assert_eq!(&task, &before, "a failed call changes nothing");
                    let known = matches!(err, TaskError::Conflict { .. } | TaskError::InvalidTransition { .. });
                    prop_assert!(known, "unexpected error {:?}", err);
                }
            }
            prop_assert!(task.status().attempt() >= before.status().attempt());
            if before.phase().is_final() {
                prop_assert!(result.is_err());
                prop_assert_eq!(task.phase(), before.phase());
            }
            prop_assert!(task.metadata().updated_at() >= task.metadata().created_at());
            prop_assert_eq!(task.status().next_attempt_at().is_some(), task.phase() == TaskPhase::Pending && task.status().attempt() > 0);
            // The budget bounds failures in a row; successes spend none of it.
            if let Some(max) = task.spec().max_retries() {
                prop_assert!(task.status().consecutive_failures() <= max + 1);
                if !task.phase().is_final() {
                    prop_assert!(task.status().consecutive_failures() <= max);
                }
            }
            if task.status().outcome() == Some(AttemptOutcome::Succeeded) {
                prop_assert_eq!(task.status().consecutive_failures(), 0);
            }
            // Every reachable task is a valid wire value.
            let back: Task = serde_json::from_str(&serde_json::to_string(&task).unwrap()).unwrap();
            prop_assert_eq!(&back, &task);
        }
    }

    #[test]
    fn spec_round_trips(spec in spec()) {
        let json = serde_json::to_string(&spec).unwrap();
        let back: TaskSpec = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, spec);
    }

    #[test]
    fn kind_round_trips(kind in kind()) {
        let back: TaskKind = serde_json::from_str(&serde_json::to_string(&kind).unwrap()).unwrap();
        prop_assert_eq!(back, kind);
    }

    #[test]
    fn env_round_trips(env in env()) {
        let back: TaskEnv = serde_json::from_str(&serde_json::to_string(&env).unwrap()).unwrap();
        prop_assert_eq!(&back, &env);
        for var in &env {
            let one: EnvVar = serde_json::from_str(&serde_json::to_string(var).unwrap()).unwrap();
            prop_assert_eq!(&one, var);
        }
    }

    #[test]
    fn script_body_round_trips(body in "[^\u{0}]{0,200}") {
        let body = ScriptBody::from_text(body).unwrap();
        let back: ScriptBody = serde_json::from_str(&serde_json::to_string(&body).unwrap()).unwrap();
        prop_assert_eq!(&back, &body);
        prop_assert_eq!(ScriptBody::from_base64(&body.to_base64()).unwrap(), body);
    }

    #[test]
    fn scalars_round_trip(ms in 1u64..=model_task::spec::MAX_TIMEOUT_MS, i in 0usize..7) {
        let timeout = Timeout::new(ms).unwrap();
        prop_assert_eq!(serde_json::from_str::<Timeout>(&serde_json::to_string(&timeout).unwrap()).unwrap(), timeout);
        let phase = TaskPhase::ALL[i];
        prop_assert_eq!(serde_json::from_str::<TaskPhase>(&serde_json::to_string(&phase).unwrap()).unwrap(), phase);
        prop_assert_eq!(phase.to_string().parse::<TaskPhase>().unwrap(), phase);
    }

    #[test]
    fn status_round_trips(spec in spec(), outcomes in proptest::collection::vec(outcome(), 0..4), seed in any::<u64>()) {
        let mut task = Task::create(TaskManifest::named(TaskId::new("job").unwrap(), spec), TenantId::new("tenant").unwrap(), Uid::from_u128(1), t0()).unwrap();
        let mut rng = SeededRandom::new(seed);
        let mut now = t0();
        for outcome in outcomes {
            if let Some(due) = task.status().next_attempt_at() { now = now.max(due); }
            if task.begin_attempt(None, now).is_err() { break; }
            let result = AttemptResult::new(outcome).with_exit_code(1).with_error("e");
            task.end_attempt(None, result, &mut rng, now).unwrap();
        }
        let status: &TaskStatus = task.status();
        let back: TaskStatus = serde_json::from_str(&serde_json::to_string(status).unwrap()).unwrap();
        prop_assert_eq!(&back, status);
    }
}
