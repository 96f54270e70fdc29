//! Every flow example in `docs/wire-format.md` (marked `<!-- wire(flow): Type -->`) parses
//! as the type it names, or is rejected for the reason the docs give, and accepted examples
//! survive a round trip.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers outside #[test] functions fail loudly, as the tests do"
)]

#[path = "../../../tests/support/wire_examples.rs"]
mod wire_examples;

use wire_examples::{Example, check, markdown};

use model_flow::{
    FailurePolicy, FlowRun, FlowSpec, FlowStatus, JobResult, JobState, SkipReason, TriggerRule,
};

/// The `<!-- wire(flow): Type [rejected] -->` examples of `docs/wire-format.md`.
fn examples() -> Vec<Example> {
    wire_examples::examples(&markdown(), "wire(flow)")
}

#[test]
fn every_flow_example_parses_as_marked_and_rejections_say_why() {
    let mut errors = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for ex in &examples() {
        let error = match ex.type_name.as_str() {
            "FlowSpec" => check::<FlowSpec>(ex),
            "FlowRun" => check::<FlowRun>(ex),
            "TriggerRule" => check::<TriggerRule>(ex),
            "FailurePolicy" => check::<FailurePolicy>(ex),
            "FlowStatus" => check::<FlowStatus>(ex),
            "JobResult" => check::<JobResult>(ex),
            "SkipReason" => check::<SkipReason>(ex),
            other => panic!("line {}: unknown flow wire type {other:?}", ex.line),
        };
        errors.extend(error);
        if !ex.rejected {
            seen.insert(ex.type_name.clone());
        }
    }
    for required in [
        "FlowSpec",
        "FlowRun",
        "TriggerRule",
        "FailurePolicy",
        "FlowStatus",
        "JobResult",
        "SkipReason",
    ] {
        assert!(seen.contains(required), "no accepted example of {required}");
    }
    let want = [
        "jobs[0].dependsOn[0]: jobs form a cycle: extract -> transform -> load -> extract",
        r#"jobs[1].dependsOn[0]: unknown job "extrct" (did you mean "extract"?)"#,
        r#"jobs[0].dependsOn[0]: job "load" depends on itself"#,
        r#"jobs[1].dependsOn[1]: "extract" is already listed at dependsOn[0]"#,
        r#"jobs[1].name: duplicate job name "load", first at jobs[0]"#,
        "jobs: a flow has at least one job",
        "ttlAfterFinishedMs: 315360000001 is larger than the maximum 315360000000",
        "jobs[1].state: a job starts only when its trigger rule holds",
    ];
    assert_eq!(errors.len(), want.len(), "{errors:#?}");
    for (error, want) in errors.iter().zip(want) {
        assert!(error.starts_with(want), "{error}\nwanted: {want}");
    }
}

#[test]
fn the_flow_example_is_what_the_docs_say() {
    let ex = examples()
        .into_iter()
        .find(|e| e.type_name == "FlowSpec" && !e.rejected)
        .unwrap();
    let flow: FlowSpec = serde_json::from_str(&ex.json).unwrap();
    flow.validate().unwrap();
    assert_eq!(flow.name(), "nightly-etl");
    assert_eq!(flow.failure_policy(), FailurePolicy::FailFast);
    assert_eq!(flow.labels().get("team"), Some("data"));
    assert_eq!(flow.ttl_after_finished_ms(), Some(7 * 86_400_000));
    let notify = flow.task_spec("notify").unwrap();
    assert_eq!(
        notify.kind().env().get("STAGE"),
        Some("test"),
        "the job wins"
    );
    let extract = flow.task_spec("extract").unwrap();
    assert_eq!(extract.kind().env().get("STAGE"), Some("prod"));
    assert_eq!(extract.max_retries(), Some(2));
    assert_eq!(flow.job("notify").unwrap().when(), TriggerRule::AllDone);

    let ex = examples()
        .into_iter()
        .find(|e| e.type_name == "FlowRun" && !e.rejected)
        .unwrap();
    let run: FlowRun = serde_json::from_str(&ex.json).unwrap();
    assert_eq!(run.status(), FlowStatus::Error);
    assert!(!run.is_done());
    assert_eq!(
        run.state("load"),
        Some(JobState::Skipped(SkipReason::UpstreamFailed))
    );
    assert_eq!(
        run.ready().map(|j| j.as_str()).collect::<Vec<_>>(),
        ["notify"]
    );
    let results: Vec<(&str, Option<&str>)> = run
        .results()
        .map(|(job, result)| (job.as_str(), result.get("rows")))
        .collect();
    assert_eq!(results, [("extract", Some("120"))]);
}
