//! Unit tests for `run`: each trigger rule, skips and their reasons, fail-fast, cancel, retries, results, and stored runs that could not have happened.

use chrono::DateTime;
use model_ids::JobName;
use model_task::{SubprocessMode, TaskEnv, TaskKind, TaskPhase, TaskSpec};

use super::*;
use crate::limits::{
    MAX_FLOW_RESULT_BYTES, MAX_RESULT_ENTRIES, MAX_RESULT_KEY_BYTES, MAX_RESULT_VALUE_BYTES,
};
use crate::rule::TriggerRule::{self, AllDone, AllSucceeded, AnyFailed, AnySucceeded, NoneFailed};
use crate::spec::FlowJob;
use crate::state::SkipReason;

/// A flow of jobs `(name, dependencies, rule)`.
fn flow(policy: FailurePolicy, jobs: &[(&str, &[&str], TriggerRule)]) -> FlowSpec {
    let kind = TaskKind::subprocess(
        SubprocessMode::command("/bin/true".into(), vec![]).unwrap(),
        TaskEnv::empty(),
        None,
    )
    .unwrap();
    let spec = TaskSpec::builder("s", kind, 1_000).build().unwrap();
    let name = |n: &str| JobName::new(n).unwrap();
    FlowSpec::builder("f")
        .failure_policy(policy)
        .jobs(jobs.iter().map(|(n, deps, rule)| {
            FlowJob::new(
                name(n),
                spec.clone(),
                deps.iter().map(|d| name(d)).collect(),
                *rule,
            )
        }))
        .build()
        .unwrap()
}

fn succeeded() -> RestartDecision {
    RestartDecision::Final(TaskPhase::Succeeded)
}

fn failed() -> RestartDecision {
    RestartDecision::Final(TaskPhase::Failed)
}

fn retry() -> RestartDecision {
    RestartDecision::Restart {
        retry: 1,
        delay_ms: 1_000,
        at: DateTime::UNIX_EPOCH,
    }
}

/// Starts `job` and ends it with `decision`; returns the changes of the end as
/// `name=state` strings, and checks the run reads back equal.
fn run_job(run: &mut FlowRun, job: &str, decision: RestartDecision) -> Vec<String> {
    run.start(job).unwrap();
    let changes = run.end_attempt(job, decision, None).unwrap();
    let back: FlowRun = serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
    assert_eq!(&back, run);
    shown(&changes)
}

fn shown(changes: &FlowChanges) -> Vec<String> {
    changes
        .changed()
        .iter()
        .map(|c| format!("{}={}", c.name(), c.to()))
        .collect()
}

fn ready(run: &FlowRun) -> Vec<&str> {
    run.ready().map(JobName::as_str).collect()
}

#[test]
fn a_failure_skips_all_succeeded_dependents_and_propagates() {
    let spec = flow(
        FailurePolicy::Continue,
        &[
            ("a", &[], AllSucceeded),
            ("b", &["a"], AllSucceeded),
            ("c", &["b"], AllSucceeded),
            ("side", &[], AllSucceeded),
        ],
    );
    let mut run = FlowRun::new(&spec);
    assert_eq!(ready(&run), ["a", "side"]);
    assert_eq!(run.status(), FlowStatus::Dispatched);
    assert_eq!(
        run_job(&mut run, "a", failed()),
        [
            "a=failed",
            "b=skipped (upstreamFailed)",
            "c=skipped (upstreamFailed)"
        ]
    );
    assert_eq!(run.status(), FlowStatus::Error);
    assert!(!run.is_done());
    // continue: the independent branch still runs.
    assert_eq!(run_job(&mut run, "side", succeeded()), ["side=succeeded"]);
    assert!(run.is_done());
    assert_eq!(run.status(), FlowStatus::Error);
}

#[test]
fn a_retry_is_not_a_failure_for_dependents() {
    let spec = flow(
        FailurePolicy::FailFast,
        &[("a", &[], AllSucceeded), ("b", &["a"], AllSucceeded)],
    );
    let mut run = FlowRun::new(&spec);
    assert!(run_job(&mut run, "a", retry()).is_empty());
    assert_eq!(run.state("a"), Some(JobState::Running));
    assert!(run.end_attempt("a", retry(), None).unwrap().is_empty());
    // Retries spent: exhausted is a failure.
    let changes = run
        .end_attempt("a", RestartDecision::Exhausted, None)
        .unwrap();
    assert_eq!(shown(&changes), ["a=failed", "b=skipped (failFast)"]);
}

#[test]
fn each_rule_on_a_join() {
    // Two upstream jobs end as the case says; the join's state follows its rule (a retry
    // keeps the second running, so nothing is decided).
    type Case = (TriggerRule, [RestartDecision; 2], Option<JobState>);
    let cases: [Case; 10] = [
        (
            AllSucceeded,
            [succeeded(), succeeded()],
            Some(JobState::Ready),
        ),
        (
            AllSucceeded,
            [succeeded(), failed()],
            Some(JobState::Skipped(SkipReason::UpstreamFailed)),
        ),
        (AllDone, [failed(), failed()], Some(JobState::Ready)),
        (AnySucceeded, [failed(), succeeded()], Some(JobState::Ready)),
        (
            AnySucceeded,
            [failed(), failed()],
            Some(JobState::Skipped(SkipReason::UpstreamFailed)),
        ),
        (AnyFailed, [succeeded(), failed()], Some(JobState::Ready)),
        (
            AnyFailed,
            [succeeded(), succeeded()],
            Some(JobState::Skipped(SkipReason::NotTriggered)),
        ),
        (
            NoneFailed,
            [succeeded(), succeeded()],
            Some(JobState::Ready),
        ),
        (
            NoneFailed,
            [succeeded(), failed()],
            Some(JobState::Skipped(SkipReason::UpstreamFailed)),
        ),
        (AllDone, [succeeded(), retry()], None),
    ];
    for (rule, ends, want) in cases {
        let spec = flow(
            FailurePolicy::Continue,
            &[
                ("a", &[], AllSucceeded),
                ("b", &[], AllSucceeded),
                ("join", &["a", "b"], rule),
            ],
        );
        let mut run = FlowRun::new(&spec);
        run_job(&mut run, "a", ends[0]);
        assert_eq!(run.state("join"), Some(JobState::Waiting), "{rule} after a");
        run_job(&mut run, "b", ends[1]);
        let want = want.unwrap_or(JobState::Waiting);
        assert_eq!(run.state("join"), Some(want), "{rule}");
    }
}

#[test]
fn any_rules_fire_without_waiting_for_the_rest() {
    let spec = flow(
        FailurePolicy::Continue,
        &[
            ("a", &[], AllSucceeded),
            ("b", &[], AllSucceeded),
            ("any-ok", &["a", "b"], AnySucceeded),
            ("any-bad", &["a", "b"], AnyFailed),
        ],
    );
    let mut run = FlowRun::new(&spec);
    assert_eq!(
        run_job(&mut run, "a", succeeded()),
        ["a=succeeded", "any-ok=ready"]
    );
    assert_eq!(
        run_job(&mut run, "b", failed()),
        ["b=failed", "any-bad=ready"]
    );
}

#[test]
fn skipped_upstream_jobs_count_by_their_reason() {
    // up fails; mid (allSucceeded) is skipped as upstreamFailed, which anyFailed counts as a
    // failure and noneFailed refuses; other (anyFailed on ok) is skipped as notTriggered,
    // which allSucceeded refuses and allDone accepts.
    let spec = flow(
        FailurePolicy::Continue,
        &[
            ("up", &[], AllSucceeded),
            ("ok", &[], AllSucceeded),
            ("mid", &["up"], AllSucceeded),
            ("alert", &["mid"], AnyFailed),
            ("clean", &["mid"], NoneFailed),
            ("other", &["ok"], AnyFailed),
            ("after-other", &["other"], AllSucceeded),
            ("done", &["other"], AllDone),
        ],
    );
    let mut run = FlowRun::new(&spec);
    assert_eq!(
        run_job(&mut run, "up", failed()),
        [
            "up=failed",
            "mid=skipped (upstreamFailed)",
            "alert=ready",
            "clean=skipped (upstreamFailed)"
        ]
    );
    assert_eq!(
        run_job(&mut run, "ok", succeeded()),
        [
            "ok=succeeded",
            "other=skipped (notTriggered)",
            "after-other=skipped (notTriggered)",
            "done=ready"
        ]
    );
}

#[test]
fn fail_fast_keeps_clean_up_jobs() {
    let spec = flow(
        FailurePolicy::FailFast,
        &[
            ("a", &[], AllSucceeded),
            ("slow", &[], AllSucceeded),
            ("later", &[], AllSucceeded),
            ("b", &["a"], AllSucceeded),
            ("notify", &["b"], AllDone),
            ("alert", &["a"], AnyFailed),
            ("tail", &["notify"], AllSucceeded),
        ],
    );
    let mut run = FlowRun::new(&spec);
    run.start("slow").unwrap();
    assert_eq!(
        run_job(&mut run, "a", failed()),
        [
            "a=failed",
            "later=skipped (failFast)",
            "b=skipped (failFast)",
            "tail=skipped (failFast)",
            "alert=ready",
            "notify=ready"
        ]
    );
    assert_eq!(ready(&run), ["notify", "alert"]);
    // The running job finishes as it does.
    assert_eq!(run_job(&mut run, "slow", succeeded()), ["slow=succeeded"]);
    // A second failure does not scan again.
    assert_eq!(run_job(&mut run, "notify", failed()), ["notify=failed"]);
    run_job(&mut run, "alert", succeeded());
    assert!(run.is_done());
    assert_eq!(run.status(), FlowStatus::Error);
}

#[test]
fn cancel_skips_what_has_not_started_and_lists_what_runs() {
    let spec = flow(
        FailurePolicy::Continue,
        &[
            ("a", &[], AllSucceeded),
            ("b", &[], AllSucceeded),
            ("c", &["a"], AllDone),
        ],
    );
    let mut run = FlowRun::new(&spec);
    run.start("a").unwrap();
    let changes = run.cancel();
    assert_eq!(
        shown(&changes),
        ["b=skipped (canceled)", "c=skipped (canceled)"]
    );
    assert_eq!(changes.to_cancel(), [JobName::new("a").unwrap()]);
    assert_eq!(run.status(), FlowStatus::Canceled);
    assert!(ready(&run).is_empty());
    let again = run.cancel();
    assert!(again.changed().is_empty());
    assert_eq!(again.to_cancel().len(), 1);
    let err = run.start("b").unwrap_err();
    assert!(matches!(err, FlowError::JobTransition { .. }), "{err}");
    let changes = run
        .end_attempt("a", RestartDecision::Final(TaskPhase::Canceled), None)
        .unwrap();
    assert_eq!(shown(&changes), ["a=canceled"]);
    assert!(run.is_done());
    assert!(run.cancel().is_empty());
    let back: FlowRun = serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
    assert_eq!(back, run);
}

#[test]
fn calls_that_do_not_fit_the_state_are_refused() {
    let spec = flow(
        FailurePolicy::Continue,
        &[("a", &[], AllSucceeded), ("b", &["a"], AllSucceeded)],
    );
    let mut run = FlowRun::new(&spec);
    let unknown = run.start("nope").unwrap_err();
    assert!(matches!(unknown, FlowError::UnknownJob { .. }));
    let FlowError::UnknownJob { name } = run.start(&"x".repeat(1_000)).unwrap_err() else {
        panic!()
    };
    assert_eq!(
        name.chars().count(),
        model_ids::ERROR_INPUT_MAX_CHARS + 1,
        "{name}"
    );
    let waiting = run.start("b").unwrap_err();
    assert_eq!(
        waiting.to_string(),
        r#"job "b" cannot go from waiting to running"#
    );
    let not_started = run.end_attempt("a", succeeded(), None).unwrap_err();
    assert_eq!(
        not_started.to_string(),
        r#"job "a" cannot go from ready to succeeded"#
    );
    run.start("a").unwrap();
    assert!(
        run.start("a").unwrap().is_empty(),
        "starting twice changes nothing"
    );
    let running = RestartDecision::Final(TaskPhase::Running);
    let err = run.end_attempt("a", running, None).unwrap_err();
    assert!(matches!(err, FlowError::NotAnAttemptEnd { .. }), "{err}");
    let rows = JobResult::from_pairs([("rows", "1")]).unwrap();
    run.end_attempt("a", succeeded(), Some(rows.clone()))
        .unwrap();
    // The same end again changes nothing; another state or result conflicts.
    assert!(run.end_attempt("a", succeeded(), None).unwrap().is_empty());
    assert!(
        run.end_attempt("a", succeeded(), Some(rows))
            .unwrap()
            .is_empty()
    );
    let other = JobResult::from_pairs([("rows", "2")]).unwrap();
    for (decision, result) in [
        (failed(), None),
        (succeeded(), Some(other)),
        (retry(), None),
    ] {
        let err = run.end_attempt("a", decision, result).unwrap_err();
        assert_eq!(err.kind(), model_ids::ErrorKind::Conflict, "{err}");
    }
    assert_eq!(run.result("a").unwrap().get("rows"), Some("1"));
}

#[test]
fn results_are_collected_and_their_total_is_bounded() {
    let names: Vec<String> = (0..5).map(|i| format!("j{i}")).collect();
    let jobs: Vec<(&str, &[&str], TriggerRule)> = names
        .iter()
        .map(|n| (n.as_str(), &[][..], AllSucceeded))
        .collect();
    let spec = flow(FailurePolicy::Continue, &jobs);
    let mut run = FlowRun::new(&spec);
    // Each full result is 64 entries of a 2-byte key and a value filling the rest of 4 MiB.
    let full = |tag: char| {
        let value = tag.to_string().repeat(MAX_FLOW_RESULT_BYTES / 4 / 64 - 2);
        JobResult::from_pairs((0..64).map(|i| (format!("{i:02}"), value.clone()))).unwrap()
    };
    for (i, name) in names.iter().take(4).enumerate() {
        run.start(name).unwrap();
        let result = full(char::from(b'a' + i as u8));
        assert_eq!(result.byte_len(), MAX_FLOW_RESULT_BYTES / 4);
        run.end_attempt(name, succeeded(), Some(result)).unwrap();
    }
    run.start("j4").unwrap();
    let one_byte = JobResult::from_pairs([("x", "")]).unwrap();
    let err = run
        .end_attempt("j4", succeeded(), Some(one_byte))
        .unwrap_err();
    assert!(matches!(
        err,
        FlowError::TooLong {
            max: MAX_FLOW_RESULT_BYTES,
            ..
        }
    ));
    assert_eq!(run.state("j4"), Some(JobState::Running), "nothing changed");
    run.end_attempt("j4", succeeded(), None).unwrap();
    let collected: Vec<&str> = run.results().map(|(name, _)| name.as_str()).collect();
    assert_eq!(collected, ["j0", "j1", "j2", "j3"]);
}

#[test]
fn job_results_check_their_entries() {
    let table: [(Vec<(String, String)>, &str); 6] = [
        (
            vec![(String::new(), "x".into())],
            "result key: must not be empty",
        ),
        (
            vec![("k".repeat(MAX_RESULT_KEY_BYTES + 1), String::new())],
            "bytes, more than 256",
        ),
        (
            vec![("k".into(), "v".repeat(MAX_RESULT_VALUE_BYTES + 1))],
            r#"result["k"]: 65537 bytes, more than 65536"#,
        ),
        (
            vec![("k".into(), "a\0b".into())],
            r#"result["k"]: NUL byte at byte 1"#,
        ),
        (
            vec![("k".into(), "1".into()), ("k".into(), "2".into())],
            r#"result: key "k" given twice"#,
        ),
        (
            (0..=MAX_RESULT_ENTRIES)
                .map(|i| (i.to_string(), String::new()))
                .collect(),
            "result: 65 entries, more than 64",
        ),
    ];
    for (pairs, want) in table {
        let err = JobResult::from_pairs(pairs).unwrap_err().to_string();
        assert!(err.contains(want), "{err}");
    }
    let at_limits = JobResult::from_pairs(
        (0..MAX_RESULT_ENTRIES).map(|i| (format!("{i:0>256}"), "v".repeat(MAX_RESULT_VALUE_BYTES))),
    )
    .unwrap();
    assert_eq!(at_limits.len(), MAX_RESULT_ENTRIES);
    let json = format!(
        "{{{}}}",
        (0..=MAX_RESULT_ENTRIES)
            .map(|i| format!(r#""{i}": """#))
            .collect::<Vec<_>>()
            .join(",")
    );
    let err = serde_json::from_str::<JobResult>(&json)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("invalid result: more than 64 entries"),
        "{err}"
    );
}

/// A stored run of `jobs` (JSON objects) under `policy`.
fn stored(policy: &str, jobs: &str) -> Result<FlowRun, String> {
    let json = format!(r#"{{"flow": "f", "failurePolicy": "{policy}", "jobs": [{jobs}]}}"#);
    serde_json::from_str(&json).map_err(|e| e.to_string())
}

#[test]
fn a_stored_run_must_be_reachable() {
    let table = [
        (
            "continue",
            r#"{"name": "a", "state": "succeeded", "skipReason": "failFast"}"#,
            "jobs[0].skipReason: only a skipped job has a skip reason",
        ),
        (
            "continue",
            r#"{"name": "a", "state": "skipped"}"#,
            "jobs[0].skipReason: a skipped job has a skip reason",
        ),
        (
            "continue",
            r#"{"name": "a", "state": "waiting"}"#,
            "jobs[0].state: a waiting job's trigger rule is still undecided",
        ),
        (
            "continue",
            r#"{"name": "a", "state": "failed"}, {"name": "b", "dependsOn": ["a"], "state": "skipped", "skipReason": "failFast"}"#,
            "jobs[1].state: fail-fast skips only",
        ),
        (
            "failFast",
            r#"{"name": "a", "state": "failed"}, {"name": "b", "state": "ready"}"#,
            "jobs[1].state: after a failure, a fail-fast flow starts no job",
        ),
        (
            "continue",
            r#"{"name": "a", "state": "skipped", "skipReason": "canceled"}, {"name": "b", "state": "ready"}"#,
            "jobs[1].state: no job waits after the flow was canceled",
        ),
        (
            "continue",
            r#"{"name": "a", "state": "succeeded"}, {"name": "b", "dependsOn": ["a"], "state": "skipped", "skipReason": "notTriggered"}"#,
            "jobs[1].state: a job is skipped by its rule only when",
        ),
        (
            "continue",
            r#"{"name": "a", "state": "ready", "result": {"x": "1"}}"#,
            "jobs[0].result: only a job that ran and ended has a result",
        ),
        (
            "continue",
            r#"{"name": "a", "state": "succeeded", "result": {"": "1"}}"#,
            "jobs[0].result key: must not be empty",
        ),
        (
            "continue",
            r#"{"name": "a", "state": "succeeded"}, {"name": "a", "state": "succeeded"}"#,
            r#"jobs[1].name: duplicate job name "a""#,
        ),
        (
            "continue",
            r#"{"name": "a b", "state": "ready"}"#,
            r#"jobs[0].name: invalid job name "a b""#,
        ),
    ];
    for (policy, jobs, want) in table {
        let err = stored(policy, jobs).unwrap_err();
        assert!(err.starts_with(want), "{jobs}\n{err}");
    }
    assert!(stored("continue", r#"{"name": "a", "state": "ready"}"#).is_ok());
    let bad_flow = r#"{"flow": "a b", "jobs": [{"name": "a", "state": "ready"}]}"#;
    let err = serde_json::from_str::<FlowRun>(bad_flow)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with(r#"flow: invalid flow id "a b""#), "{err}");
}
