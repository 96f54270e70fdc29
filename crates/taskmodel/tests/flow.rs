//! A flow across the layers, through the facade only: its jobs' tasks run with model-task's
//! lifecycle, each attempt's restart decision goes to the flow run, and the flow's errors
//! convert into the facade's `Error`.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "helpers of tests: a bad fixture fails the test"
)]

use chrono::{DateTime, TimeDelta, Utc};
use taskmodel::flow::{JobResult, SkipReason, flow_key, run_key};
use taskmodel::prelude::*;
use taskmodel::task::{AttemptOutcome, AttemptResult};

fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_735_689_600, 0).unwrap() + TimeDelta::seconds(seconds)
}

const FLOW: &str = r#"{
  "name": "nightly-etl",
  "env": [{ "key": "STAGE", "value": "prod" }],
  "jobs": [
    { "name": "extract", "spec": { "slot": "etl", "kind": { "type": "wasm", "module": "extract.wasm" },
      "timeoutMs": 60000, "restart": "onFailure", "maxRetries": 2,
      "backoff": { "jitter": "none", "firstMs": 1000, "maxMs": 1000 } } },
    { "name": "transform", "dependsOn": ["extract"],
      "spec": { "slot": "etl", "kind": { "type": "wasm", "module": "transform.wasm" }, "timeoutMs": 60000 } },
    { "name": "load", "dependsOn": ["transform"],
      "spec": { "slot": "etl", "kind": { "type": "wasm", "module": "load.wasm" }, "timeoutMs": 60000 } },
    { "name": "notify", "dependsOn": ["load"], "when": "allDone",
      "spec": { "slot": "etl", "kind": { "type": "wasm", "module": "notify.wasm" }, "timeoutMs": 60000 } }
  ]
}"#;

/// Runs one attempt of `task` ending with `outcome` and tells the flow run.
fn attempt(run: &mut FlowRun, task: &mut Task, job: &str, outcome: AttemptOutcome, now: i64) {
    task.begin_attempt(None, at(now)).unwrap();
    let mut rng = SeededRandom::new(7);
    let decision = task
        .end_attempt(None, AttemptResult::new(outcome), &mut rng, at(now + 1))
        .unwrap();
    let result = (decision.phase() == TaskPhase::Succeeded).then(|| {
        JobResult::from_pairs([("attempts", task.status().attempt().to_string())]).unwrap()
    });
    run.end_attempt(job, decision, result).unwrap();
}

#[test]
fn a_flow_runs_its_tasks_through_the_task_lifecycle() {
    let flow: FlowSpec = serde_json::from_str(FLOW).unwrap();
    flow.validate().unwrap();
    let mut run = FlowRun::new(&flow);
    // Each job's task is created from a manifest the flow controls (an owner reference).
    let flow_uid = Uid::from_u128(0x0192_0000_0000_7000_8000_0000_0000_0001);
    let owner = OwnerReference::new(OwnerKind::Flow, flow.name().as_str(), flow_uid)
        .unwrap()
        .controlling();
    let tenant = TenantId::new("acme").unwrap();
    let task = |job: &str| {
        let id = TaskId::new(format!("{}.{job}", flow.name())).unwrap();
        let meta = ManifestMeta::new(id)
            .with_owner_references(vec![owner.clone()])
            .unwrap();
        let manifest = TaskManifest::new(meta, flow.task_spec(job).unwrap());
        let uid = Uid::from_u128(100 + job.len() as u128);
        Task::create(manifest, tenant.clone(), uid, at(0)).unwrap()
    };

    // extract fails once, is restarted by its policy, and succeeds: only then does
    // transform become ready.
    let mut extract = task("extract");
    assert_eq!(extract.spec().kind().env().get("STAGE"), Some("prod"));
    run.start("extract").unwrap();
    attempt(
        &mut run,
        &mut extract,
        "extract",
        AttemptOutcome::Failed,
        10,
    );
    assert_eq!(extract.phase(), TaskPhase::Pending);
    assert_eq!(run.state("extract"), Some(JobState::Running));
    assert_eq!(run.state("transform"), Some(JobState::Waiting));
    attempt(
        &mut run,
        &mut extract,
        "extract",
        AttemptOutcome::Succeeded,
        20,
    );
    assert_eq!(
        run.ready().map(|j| j.as_str()).collect::<Vec<_>>(),
        ["transform"]
    );

    // transform fails for good (no restart policy): the fail-fast flow skips load, and
    // notify (allDone) still runs.
    let mut transform = task("transform");
    run.start("transform").unwrap();
    attempt(
        &mut run,
        &mut transform,
        "transform",
        AttemptOutcome::Failed,
        30,
    );
    assert_eq!(transform.phase(), TaskPhase::Failed);
    assert_eq!(
        run.state("load"),
        Some(JobState::Skipped(SkipReason::FailFast))
    );
    assert_eq!(run.status(), FlowStatus::Error);
    let mut notify = task("notify");
    run.start("notify").unwrap();
    attempt(
        &mut run,
        &mut notify,
        "notify",
        AttemptOutcome::Succeeded,
        40,
    );
    assert!(run.is_done());
    assert_eq!(run.status(), FlowStatus::Error);

    let results: Vec<(&str, &str)> = run
        .results()
        .map(|(job, result)| (job.as_str(), result.get("attempts").unwrap()))
        .collect();
    assert_eq!(results, [("extract", "2"), ("notify", "1")]);
    let stored: FlowRun = serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
    assert_eq!(stored, run);
    assert_eq!(flow_key(&tenant, flow.name()), "flow:acme:nightly-etl");
    assert_eq!(
        run_key(extract.metadata().tenant(), extract.id(), 2),
        "run:acme:nightly-etl.extract:0000000002"
    );
}

#[test]
fn flow_errors_convert_into_the_facade_error() {
    let cyclic = FLOW.replace(
        r#"{ "name": "extract", "spec""#,
        r#"{ "name": "extract", "dependsOn": ["notify"], "spec""#,
    );
    let err = serde_json::from_str::<FlowSpec>(&cyclic).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("jobs[0].dependsOn[0]: jobs form a cycle: extract -> transform -> load -> notify -> extract"),
        "{err}"
    );
    let flow: FlowSpec = serde_json::from_str(FLOW).unwrap();
    let mut run = FlowRun::new(&flow);
    let err = Error::from(run.start("load").unwrap_err());
    assert!(matches!(err, Error::Flow(_)));
    assert_eq!(err.kind(), ErrorKind::InvalidTransition);
    let err = Error::from(run.start("nope").unwrap_err());
    assert_eq!(err.kind(), ErrorKind::Invalid);
}
